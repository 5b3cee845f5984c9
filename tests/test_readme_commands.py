"""The commands the README and tox.ini show for the checkout's layout work as written:
`pytest suites --profile local-mock` (the suites are plain pytest), a suite folder of its
own, the lint `tox -e lint` and .ci/run run (scripts/lint), and a team's own profile in
./profiles/ found by name."""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.paths import CHECKOUT

assert CHECKOUT is not None
ROOT = CHECKOUT
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTEST = [sys.executable, "-m", "pytest"]


def _shown(command: str) -> None:
    assert command in README, f"the README no longer shows `{command}`: update this test with it"


def _plain_pytest(tmp_path: Path, *args: str) -> dict:
    report = tmp_path / "report"
    proc = subprocess.run([*PYTEST, *args, "--report-dir", str(report), "-q", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads((report / "summary.json").read_text())


def test_pytest_suites_with_a_profile_is_a_conformance_run(tmp_path: Path) -> None:
    _shown(".venv/bin/pytest suites --profile local-mock")
    summary = _plain_pytest(tmp_path, "suites", "--profile", "local-mock", "-k", "test_limits_accepted")
    assert summary["exit_code"] == 0
    assert {e["check"] for e in summary["checks"]} == {"address.pagination.limits_accepted"}


def test_pytest_on_one_suite_folder_with_workers(tmp_path: Path) -> None:
    _shown(".venv/bin/pytest suites/address --profile my-vendor.toml -n 4")
    profile = tmp_path / "my-vendor.toml"
    shutil.copy(ROOT / "profiles" / "local-mock.toml", profile)
    summary = _plain_pytest(tmp_path, "suites/address", "--profile", str(profile), "-n", "2",
                            "-k", "test_page_size_below_minimum_rejected")
    assert summary["profile"] == "local-mock"
    assert {e["check"] for e in summary["checks"]} == {"address.pagination.page_size_below_minimum_rejected"}
    assert {e["outcome"] for e in summary["checks"]} == {"passed"}


def test_the_lint_of_tox_and_ci_is_scripts_lint() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini")
    assert tox["testenv:lint"]["commands"].strip() == "{toxinidir}/scripts/lint"
    assert "scripts/lint" in (ROOT / ".ci" / "run").read_text()
    if not (ROOT / "tools" / "node_modules" / ".bin" / "spectral").exists() and not os.environ.get("CI"):
        pytest.skip("spectral is not installed (scripts/bootstrap installs it where npm is)")
    # The audits' databases pointed at a closed loopback port: no network beyond this machine,
    # and the lint says it could not audit (a warning with CONFORMANCE_AUDIT_OFFLINE=skip).
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "CONFORMANCE_AUDIT_OFFLINE": "skip", "PIP_AUDIT_VULNERABILITY_SERVICE": "osv",
           "PIP_AUDIT_OSV_URL": "http://127.0.0.1:9/v1/query", "npm_config_registry": "http://127.0.0.1:9/"}
    proc = subprocess.run([str(ROOT / "scripts" / "lint")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "All checks passed" in proc.stdout
    assert "SKIPPED pip-audit" in proc.stdout and "SKIPPED npm audit" in proc.stdout


def test_a_teams_profile_in_profiles_is_found_by_name_and_listed(tmp_path: Path) -> None:
    _shown("profiles/<name>.toml")
    (tmp_path / "profiles").mkdir()
    text = (ROOT / "profiles" / "local-mock.toml").read_text().replace('name = "local-mock"', 'name = "vendor-x"')
    (tmp_path / "profiles" / "vendor-x.toml").write_text(text)
    (tmp_path / "profiles" / "production.toml").write_text(text.replace('name = "vendor-x"', 'name = "production"'))
    listed = subprocess.run([sys.executable, "-m", "conformance.cli", "profiles"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert any(line.startswith("vendor-x") and "[./profiles]" in line for line in lines)
    assert any(line.startswith("production") and "[shipped] (name in ./profiles and shipped: refused, give the path)"
               in line for line in lines)
    run = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--profile", "vendor-x", "--suite", "address",
                          "--check", "address.pagination.limits_accepted", "-n", "0", "--no-html",
                          "--report-dir", str(tmp_path / "report")], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert json.loads((tmp_path / "report" / "summary.json").read_text())["profile"] == "vendor-x"
