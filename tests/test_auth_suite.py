"""The auth suite measures what the seed leaves open instead of assuming it: the code
lifetime observation reports 30 s or 300 s, whichever the server applies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.paths import SHIPPED_PROFILES


@pytest.mark.parametrize("lifetime", [30, 300])
def test_code_lifetime_observation_measures_the_servers_lifetime(lifetime: int, tmp_path: Path) -> None:
    text = (SHIPPED_PROFILES / "local-mock.toml").read_text()
    text = text.replace("mock_code_lifetime_s = 30", f"mock_code_lifetime_s = {lifetime}")
    profile = tmp_path / "mock.toml"
    profile.write_text(text)
    report = tmp_path / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", "auth", "-n", "0",
         "--no-html", "--report-dir", str(report), "--", "-q", "-k", "lifetime or expired_refused"],
        capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    entries = {e["check"]: e for e in json.loads((report / "summary.json").read_text())["checks"]}
    assert entries["auth.code.lifetime_governing"]["value"]["governing_s"] == lifetime
    # Whichever governs, a code older than the longer lifetime is refused.
    assert entries["auth.code.expired_refused"]["outcome"] == "passed"
