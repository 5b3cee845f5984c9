"""Profiles: shipped ones load; malformed ones name the file and key; secrets name their variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.errors import ConfigError
from conformance.profiles import load_profile, read_secret, shipped_profiles

VALID = """
[profile]
name = "vendor"
description = "a vendor's environment"

[services.address]
mock = false
base_url = "https://vendor.example/v2"

[services.address.secrets]
api_key = "VENDOR_KEY"
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "vendor.toml"
    path.write_text(text)
    return str(path)


def test_shipped_profiles_load() -> None:
    names = {load_profile(str(p)).name for p in shipped_profiles()}
    assert names == {"local-mock", "production", "external-test"}


def test_production_is_safe_by_default() -> None:
    prod = load_profile("production")
    assert not (prod.safety.fuzz or prod.safety.negative or prod.safety.flood)
    assert 0 < prod.limits.requests_per_second < 50  # below the public 50/s per key
    assert prod.limits.daily_quota_reserve > 0 and prod.limits.request_budget > 0
    assert prod.address is not None and not prod.address.mock


def test_user_profile_by_path(tmp_path: Path) -> None:
    profile = load_profile(write(tmp_path, VALID))
    assert profile.name == "vendor"
    assert profile.address.base_url == "https://vendor.example/v2"
    assert profile.address.header("Registry-RateLimit-DayLimit") == "Registry-RateLimit-DayLimit"
    assert profile.safety.fuzz is False  # safe defaults when the table is absent
    assert profile.address.maintenance_url is None


def test_maintenance_url_is_read_without_trailing_slash(tmp_path: Path) -> None:
    text = VALID.replace('base_url = "https://vendor.example/v2"',
                         'base_url = "https://vendor.example/v2"\nmaintenance_url = "https://down.vendor.example/v2/"')
    assert load_profile(write(tmp_path, text)).address.maintenance_url == "https://down.vendor.example/v2"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t + "\n[safety]\nfuzzz = true\n", "unknown key safety.fuzzz"),
        (lambda t: t.replace('mock = false', 'mock = "no"'), "services.address.mock must be of type boolean"),
        (lambda t: t.replace('api_key = "VENDOR_KEY"', ""), "missing required key services.address.secrets.api_key"),
        (lambda t: t.replace('name = "vendor"\n', ""), "missing required key profile.name"),
        (lambda t: t.replace('base_url = "https://vendor.example/v2"', ""), "services.address.base_url"),
        (lambda t: t + "\n[limits]\nrequests_per_second = -1\n", "limits.requests_per_second"),
        (lambda t: t + "\nbogus = 1\n", "unknown key"),
        (lambda t: t.replace("[profile]", "[profile"), "not valid TOML"),
        (lambda t: t.replace('base_url = "https://vendor.example/v2"',
                             'base_url = "https://vendor.example/v2"\nmaintenance_url = "vendor.example/down"'),
         "key services.address.maintenance_url"),
    ],
)
def test_malformed_profile_names_file_and_key(tmp_path: Path, edit, message: str) -> None:
    path = write(tmp_path, edit(VALID))
    with pytest.raises(ConfigError) as info:
        load_profile(path)
    assert message in str(info.value)
    assert "vendor.toml" in str(info.value)


def test_unknown_profile_name_lists_shipped() -> None:
    with pytest.raises(ConfigError, match="local-mock"):
        load_profile("no-such-profile")


def test_missing_secret_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VENDOR_KEY_FOR_TEST", raising=False)
    with pytest.raises(ConfigError, match="VENDOR_KEY_FOR_TEST"):
        read_secret("VENDOR_KEY_FOR_TEST", purpose="address api_key")
    monkeypatch.setenv("VENDOR_KEY_FOR_TEST", "s3cret-value")
    assert read_secret("VENDOR_KEY_FOR_TEST", purpose="address api_key") == "s3cret-value"


def test_auth_pki_dir_must_hold_a_test_pki(tmp_path: Path) -> None:
    text = VALID + """
[services.auth]
mock = false
auth_url = "https://auth.vendor.example"
filing_base = "https://api.vendor.example"
inquiry_base = "https://api.vendor.example"
[services.auth.keys]
pki_dir = "no-such-pki"
"""
    with pytest.raises(ConfigError, match=r"services\.auth\.keys\.pki_dir"):
        load_profile(write(tmp_path, text))


def test_auth_real_environment_needs_its_urls(tmp_path: Path) -> None:
    text = VALID + """
[services.auth]
mock = false
filing_base = "https://api.vendor.example"
"""
    with pytest.raises(ConfigError, match=r"services\.auth\.auth_url"):
        load_profile(write(tmp_path, text))
    # the resource servers are optional: a deployment without them has none
    text = VALID + """
[services.auth]
mock = false
auth_url = "https://auth.vendor.example"
"""
    assert load_profile(write(tmp_path, text)).auth.resource_servers == ()


def test_an_unfilled_placeholder_is_exit_2_naming_its_key(tmp_path: Path) -> None:
    """Issue 43: the skeleton's `https://<host>` was tried, and called unreachable (exit 3)."""
    text = VALID.replace("https://vendor.example/v2", "https://<host>/lvbag/individuelebevragingen/v2")
    with pytest.raises(ConfigError) as info:
        load_profile(write(tmp_path, text))
    message = str(info.value)
    assert "key services.address.base_url = 'https://<host>/lvbag/individuelebevragingen/v2'" in message
    assert "placeholder <host>" in message and message.startswith(str(tmp_path / "vendor.toml"))


def test_every_placeholder_is_named_at_once_in_urls_ids_and_files(tmp_path: Path) -> None:
    text = VALID + """
[services.address.samples]
pand = "<id>"
[services.auth]
mock = false
auth_url = "https://<auth-host>"
[services.auth.clients]
confidential = "<id>"
"""
    with pytest.raises(ConfigError) as info:
        load_profile(write(tmp_path, text))
    message = str(info.value)
    for key in ("services.address.samples.pand", "services.auth.auth_url", "services.auth.clients.confidential"):
        assert f"key {key} = " in message, key
    assert "services.address.base_url" not in message  # filled in: not named


def test_prose_and_html_patterns_may_hold_angle_brackets(tmp_path: Path) -> None:
    text = VALID.replace('"a vendor\'s environment"', '"<vendor X> acceptance"') + """
[services.auth]
mock = false
auth_url = "https://auth.vendor.example"
[services.auth.login]
approve_pattern = "<button[^>]*>Toestaan"
"""
    profile = load_profile(write(tmp_path, text))
    assert profile.description == "<vendor X> acceptance"
    assert profile.auth is not None and profile.auth.login["approve_pattern"].startswith("<button")
