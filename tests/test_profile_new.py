"""`conformance profile new`: a skeleton that loads as written and names every profile key."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.profile_new import skeleton
from conformance.profiles import ADDRESS_SAMPLES, PROFILE_SCHEMA, load_profile


def schema_keys(node: dict[str, Any]) -> set[str]:
    keys: set[str] = set()
    for key, sub in (node.get("properties") or {}).items():
        keys.add(key)
        if isinstance(sub, dict):
            keys |= schema_keys(sub)
    return keys


def test_the_skeleton_names_every_key_of_the_schema() -> None:
    text = skeleton("vendor-x")
    named = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*(?= = )", text)) | set(re.findall(r"\[([a-z_.]+)\]", text))
    flat = {part for name in named for part in name.split(".")}
    mock_only = {"mock_code_lifetime_s", "mock_kind", "mock_data"}  # how the local mock behaves: not a vendor's
    missing = schema_keys(PROFILE_SCHEMA) - flat - mock_only
    assert not missing, f"keys the skeleton does not show: {sorted(missing)}"
    assert set(ADDRESS_SAMPLES) <= flat


def test_new_writes_a_profile_that_loads_once_its_host_is_filled(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "new", "vendor-x", "--out", str(tmp_path)]) == 0
    written = tmp_path / "vendor-x.toml"
    from conformance.errors import ConfigError

    # As written, its one required placeholder is exit 2 naming the key, before any request.
    with pytest.raises(ConfigError, match=r"key services\.address\.base_url = .*placeholder <host>"):
        load_profile(str(written))
    written.write_text(written.read_text().replace("<host>", "api.vendor-x.example"))
    profile = load_profile(str(written))
    assert profile.name == "vendor-x" and profile.address is not None and profile.auth is None
    assert profile.address.base_url == "https://api.vendor-x.example/lvbag/individuelebevragingen/v2"
    out = capsys.readouterr().out
    assert "export VENDOR_X_API_KEY" in out and "pki init" in out and "conformance run --profile" in out
    assert main(["profile", "new", "vendor-x", "--out", str(tmp_path)]) == 2  # never overwritten
    assert "not overwritten" in capsys.readouterr().err


def test_a_bad_name_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "new", "../x"]) == 2
    assert "profile name" in capsys.readouterr().err


def test_an_unknown_sample_key_is_exit_2_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('[profile]\nname = "x"\ndescription = "y"\n[services.address]\nmock = false\n'
                    'base_url = "https://h/v2"\n[services.address.secrets]\napi_key = "K"\n'
                    '[services.address.samples]\nnummeraanduding = "0363200000000000"\n')
    from conformance.errors import ConfigError

    with pytest.raises(ConfigError, match="nummeraanduding"):
        load_profile(str(path))


def test_the_manual_lists_every_sample_with_its_contract() -> None:
    from conformance.paths import CHECKOUT as REPO_ROOT

    samples = (REPO_ROOT / "docs" / "samples.md").read_text(encoding="utf-8")
    for key, contract in ADDRESS_SAMPLES.items():
        assert f"| `{key}` | {contract} |" in samples, key
    assert "conformance discover" in samples


def test_the_manual_names_every_key_with_its_meaning() -> None:
    """The manual's "Profile keys" page is generated from the schema and docs/profile-keys.toml
    (scripts/docs_pages.py), and refuses to build without an entry for every key."""
    import sys

    from conformance.paths import CHECKOUT as REPO_ROOT

    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    import docs_pages

    page = docs_pages.profile_keys_page()
    for key in schema_keys(PROFILE_SCHEMA) - {"samples", "samples_verified"}:
        assert f"`{key}`" in page or f"[{key}" in page or f".{key}]" in page, key


def test_the_unfilled_skeleton_is_exit_2_before_any_folder_or_request(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 43: `conformance run` on the skeleton tried https://<host> and said "unreachable" (exit 3)."""
    assert main(["profile", "new", "vendor-x", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--profile", str(tmp_path / "vendor-x.toml"), "--no-html"]) == 2
    err = capsys.readouterr().err
    assert "services.address.base_url" in err and "<host>" in err and "Traceback" not in err
    assert not (tmp_path / "reports").exists()  # no report folder made
    assert main(["discover", "--profile", str(tmp_path / "vendor-x.toml")]) == 2
    assert "services.address.base_url" in capsys.readouterr().err


def test_the_skeleton_says_how_the_seed_is_chosen() -> None:
    text = skeleton("vendor-x")
    assert "# seed = 12345" in text and "derived from the profile's name and its targets' URLs" in text
    assert "--seed random" in text
