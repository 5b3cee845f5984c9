"""A password in a URL (issue 50, item 7a): a profile URL holding a user name or password
(`https://user:password@host/`) is exit 2 naming its key and the secrets table, and the
password appears in no message; a URL a report writes (summary.json's targets and reference,
the Allure report's title in allurerc.mjs, environment.properties, the environments matrix)
is written without user info (conformance/urls.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import forked_cli
import pytest

from conformance.errors import ConfigError
from conformance.paths import CHECKOUT
from conformance.profiles import load_profile
from conformance.reporting.allure_extras import environment_properties, report_title
from conformance.reporting.environments import RunColumn
from conformance.reporting.summary import Summary, public_url
from conformance.urls import without_userinfo

PASSWORD = "hunter2-url-canary"
# A real environment of all three services; the description is prose, whatever it holds.
TABLES = {
    "profile": {"name": "vendor", "description": "e.g. https://user:pass@host/ is no URL key"},
    "services.address": {"mock": False, "base_url": "https://vendor.example/v2"},
    "services.address.secrets": {"api_key": "VENDOR_KEY"},
    "services.auth": {"mock": False, "auth_url": "https://auth.vendor.example"},
    "services.soap": {"mock": False, "url": "https://soap.vendor.example/graaf"},
}


def profile(tmp_path: Path, key: str, url: str) -> Path:
    """The profile with `key` (dotted) set to `url`."""
    table, _, name = key.rpartition(".")
    tables = {**TABLES, table: {**TABLES.get(table, {}), name: url}}
    path = tmp_path / "vendor.toml"
    path.write_text("".join(f"[{t}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())
                            for t, values in tables.items()), encoding="utf-8")
    return path


@pytest.mark.parametrize("key", [
    "services.address.base_url", "services.address.maintenance_url", "services.address.openapi",
    "services.auth.auth_url", "services.auth.inquiry_base", "services.auth.redirect_uri",
    "services.auth.keys.jwks_uri", "services.auth.clock.url", "services.soap.url",
])
def test_a_profile_url_with_a_password_is_refused_naming_its_key(tmp_path: Path, key: str) -> None:
    path = profile(tmp_path, key, f"https://operator:{PASSWORD}@host.example:8443/v2")
    with pytest.raises(ConfigError) as info:
        load_profile(str(path))
    message = str(info.value)
    section = ".".join(key.split(".")[:2])
    assert message == (
        f"{path}: key {key} holds a user name or password before its host (user:password@): credentials go in "
        f"the secrets table ({section}.secrets names the environment variables that hold them), not in the "
        "URL; give it as 'https://host.example:8443/v2'")
    assert PASSWORD not in message and "operator" not in message


def test_a_user_name_alone_and_a_non_http_scheme_are_refused_too(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"key services.address.base_url holds a user name or password"):
        load_profile(str(profile(tmp_path, "services.address.base_url", "https://operator@host.example/")))
    # Before the schema, whose message (`does not match '^https?://'`) would echo the value.
    with pytest.raises(ConfigError, match=r"key services.soap.url holds a user name or password") as info:
        load_profile(str(profile(tmp_path, "services.soap.url", f"ftp://u:{PASSWORD}@host.example/")))
    assert PASSWORD not in str(info.value)
    # An '@' after the host is no user info: the profile loads.
    loaded = load_profile(str(profile(tmp_path, "services.address.base_url", "https://host.example/v2/@x")))
    assert loaded.address.base_url == "https://host.example/v2/@x"


def test_the_command_ends_with_exit_2_before_anything_is_written(tmp_path: Path) -> None:
    path = profile(tmp_path, "services.address.base_url", f"https://operator:{PASSWORD}@127.0.0.1:9/v2")
    report = tmp_path / "report"
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--profile", str(path), "--suite",
                           "address", "--no-html", "--report-dir", str(report)],
                          capture_output=True, text=True, timeout=120, cwd=CHECKOUT,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "VENDOR_KEY": "k" * 32})
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out[-2000:]
    assert "key services.address.base_url holds a user name or password" in out and "Traceback" not in out
    assert PASSWORD not in out and not report.exists()


def test_a_url_a_report_writes_holds_no_user_info(tmp_path: Path) -> None:
    """Whatever reaches the summary (a profile of before this check, a mock's URL): the
    reports write it without the password."""
    summary = Summary(profile="vendor", targets={"address": f"https://operator:{PASSWORD}@api.example/v2",
                                                 "soap": f"http://u:{PASSWORD}@[::1/x"})
    summary.reference = {"profile": "reference", "url": f"https://r:{PASSWORD}@ref.example/v2"}
    summary.write(tmp_path)
    written = json.loads((tmp_path / "summary.json").read_text())
    assert written["targets"] == {"address": "https://api.example/v2", "soap": "http://[::1/x"}
    assert written["reference"] == {"profile": "reference", "url": "https://ref.example/v2"}
    older = {"address": summary.targets["address"]}  # a summary.json written before
    (tmp_path / "summary.json").write_text(json.dumps({**written, "targets": older}))
    title = report_title(tmp_path)
    assert title is not None and "(api.example" in title and PASSWORD not in title  # allurerc.mjs's name
    assert environment_properties(json.loads((tmp_path / "summary.json").read_text()))["target.address"] == \
        "https://api.example/v2"
    column = RunColumn("vendor", tmp_path, {"targets": summary.targets})
    assert PASSWORD not in column.targets and "address https://api.example/v2" in column.targets


@pytest.mark.parametrize("url, expected", [
    ("https://u:p@h.example/x", "https://h.example/x"),
    ("https://u:p@q@h.example:1/x@y", "https://h.example:1/x@y"),  # the last '@' of the authority
    ("http://h.example/a@b", "http://h.example/a@b"),
    ("http://u:p@[::1/x", "http://[::1/x"),  # unparsable: stripped all the same
    ("not a url @ all", "not a url @ all"),
])
def test_without_userinfo(url: str, expected: str) -> None:
    assert without_userinfo(url) == expected
    assert "u:p" not in public_url(url)
