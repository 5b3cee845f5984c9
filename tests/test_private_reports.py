"""Less reach for what needs no secret: report files private to the user, the keys file
private whatever existed, the report renderer without the run's environment, a local profile
that takes a shipped one's name refused by that name, and every missing secret named at once,
before any folder is made."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import forked_cli
import pytest

from conformance.paths import CHECKOUT, SHIPPED_PROFILES


def test_a_runs_files_are_private_to_the_user_whatever_the_umask(tmp_path: Path) -> None:
    report = tmp_path / "report"
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "2", "--no-html",
         "--check", "address.headers.api_version_present", "--report-dir", str(report)],
        capture_output=True, text=True, timeout=300, cwd=CHECKOUT, preexec_fn=lambda: os.umask(0o022))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    paths = [report, *report.rglob("*")]
    assert any(p.name == "traffic.har" for p in paths) and any(p.parent.name == "allure-results" for p in paths)
    for path in paths:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o077 == 0, f"{path} is {oct(mode)}: readable by others"


def test_the_keys_file_is_made_private_even_when_it_existed(tmp_path: Path) -> None:
    from conformance.cli import _write_keys

    keys = tmp_path / "mock-keys.env"
    keys.write_text("OLD=1\n")
    keys.chmod(0o644)
    _write_keys(keys, {"ADDRESS_KEY": "a-secret-value"})
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert keys.read_text() == "ADDRESS_KEY=a-secret-value\n"


def test_the_report_renderer_gets_no_secret_of_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.reporting.html import renderer_environment

    monkeypatch.setenv("VENDOR_X_API_KEY", "do-not-pass-me-on")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    env = renderer_environment()
    assert env["PATH"] == "/usr/bin:/bin"
    assert "do-not-pass-me-on" not in env.values() and "VENDOR_X_API_KEY" not in env


def test_a_local_profile_that_takes_a_shipped_name_is_refused_naming_both_paths(tmp_path: Path) -> None:
    local = tmp_path / "profiles"
    local.mkdir()
    shutil.copy(SHIPPED_PROFILES / "production.toml", local / "production.toml")
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--profile", "production"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    assert proc.returncode == 2
    assert f"names two files: {local / 'production.toml'}" in proc.stderr
    assert f"the shipped {SHIPPED_PROFILES / 'production.toml'}" in proc.stderr


def test_every_missing_secret_is_named_at_once_and_no_folder_is_left(tmp_path: Path) -> None:
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--profile", "production"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    for variable in ("REGISTRY_API_KEY", "REGISTRY_CLIENT_SECRET", "REGISTRY_REFRESH_TOKEN",
                     "REGISTRY_CLIENT_PRIVATE_KEY"):
        assert variable in proc.stderr
    assert "4 environment variables are not set" in proc.stderr
    assert "services.auth.secrets.refresh_token" in proc.stderr
    assert not (tmp_path / "reports").exists() or not any((tmp_path / "reports").iterdir())
