"""Expiry checks against an environment the harness does not control: through the
environment's own clock hook (services.auth.clock) they run at once; without one, real-time
waits stay within the run's wait budget (safety.max_wait_s), beyond which a check is not
applicable with the wait it would have needed.

The environment is a mock authorization server started here and described by an ordinary
profile (mock = false), so the harness treats it as any vendor's server.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import forked_cli
import pytest

from conformance.mocks import faults
from conformance.mocks.launcher import MockCluster
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

EXPIRY_CHECKS = ("auth.code.expired_refused", "auth.use.expired_token_refused", "auth.refresh.expired_refused")


@pytest.fixture
def environment() -> Iterator[tuple[dict[str, str], dict[str, str]]]:
    cluster = MockCluster(load_profile("local-mock"), faults.FaultSet(frozenset()))
    try:
        info = cluster.start_auth()
        yield info, dict(cluster.secrets)
    finally:
        cluster.stop()


def write_profile(tmp_path: Path, info: dict[str, str], extra: str) -> Path:
    clients = "\n".join(f'{k.removeprefix("client.")} = "{v}"' for k, v in info.items() if k.startswith("client."))
    text = f"""
[profile]
name = "vendor-test-environment"
description = "a test environment with its own time travel"
[services.auth]
mock = false
auth_url = "{info['auth_url']}"
filing_base = "{info['filing_base']}"
inquiry_base = "{info['inquiry_base']}"
[services.auth.clients]
{clients}
[services.auth.secrets]
client_secret = "CONFORMANCE_MOCK_CLIENT_SECRET"
username = "CONFORMANCE_MOCK_USERNAME"
password = "CONFORMANCE_MOCK_PASSWORD"
[services.auth.keys]
pki_dir = "{info['pki_dir']}"
[services.auth.login]
driver = "form"
[safety]
negative = true
{extra}
"""
    path = tmp_path / "vendor.toml"
    path.write_text(text)
    return path


def run(tmp_path: Path, profile: Path, secrets: dict[str, str]) -> tuple[float, dict[str, Any]]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "auth", "--profile", str(profile), "-n", "0",
           "--no-html", "--report-dir", str(tmp_path / "run"), "--", "-q", "-k", "expired"]
    started = time.monotonic()
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env={**os.environ, **secrets})
    wall = time.monotonic() - started
    summary_file = tmp_path / "run" / "summary.json"
    assert summary_file.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return wall, json.loads(summary_file.read_text())


def test_a_clock_hook_moves_the_environments_time_through_the_profile(tmp_path: Path, environment) -> None:
    info, secrets = environment
    hook = f'[services.auth.clock]\nurl = "{info["auth_url"]}/__mock__/clock"\nmethod = "POST"\nparameter = "advance_s"\n'
    profile = write_profile(tmp_path, info, "").read_text().replace("[safety]", hook + "[safety]")
    (tmp_path / "vendor.toml").write_text(profile)
    wall, summary = run(tmp_path, tmp_path / "vendor.toml", secrets)
    outcomes = {e["check"]: e["outcome"] for e in summary["checks"]}
    assert all(outcomes[c] == "passed" for c in EXPIRY_CHECKS), outcomes
    assert wall < 120  # seven days of refresh-token lifetime moved in an instant


def test_max_wait_s_bounds_the_real_time_waits(tmp_path: Path, environment) -> None:
    info, secrets = environment
    profile = write_profile(tmp_path, info, "waits = true\nmax_wait_s = 20")
    wall, summary = run(tmp_path, profile, secrets)
    by_check = {e["check"]: e for e in summary["checks"]}
    for check in ("auth.use.expired_token_refused", "auth.refresh.expired_refused"):
        assert by_check[check]["outcome"] == "not_judged", by_check[check]
        assert "would wait" in by_check[check]["reason"] and "max_wait_s = 20" in by_check[check]["reason"]
    # The code's 30 s lifetime is tried first (35 s): within no budget of 20 s either.
    assert by_check["auth.code.expired_refused"]["outcome"] == "not_judged"
    assert wall < 90
