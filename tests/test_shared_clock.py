"""An authorization server whose clock hook (services.auth.clock) moves time for everyone, as a
vendor's test environment does: the expiry checks move it days ahead, and every check after
them still gets tokens that are valid at the moved time (conformance/auth/shared_clock.py).

The environment is one mock authorization server started here with its faults, described by
an ordinary profile (mock = false) whose clock hook is the mock's /__mock__/clock: one clock
for the whole mock, so every token it issued ages with each move.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import forked_cli
import httpx
import pytest

from conformance.auth.shared_clock import ClockLedger, clock_turn
from conformance.catalogue import check_by_id
from conformance.checks.registry import Severity
from conformance.mocks import faults
from conformance.mocks.launcher import MockCluster
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

# The checks that reuse the module's tokens after the expiry checks moved the clock.
REUSE_AFTER_MOVE = ("auth.use.tampered_token_refused", "auth.use.wrong_scope_forbidden", "auth.use.www_authenticate")
REFRESH_LIFETIME_S = 604800


def vendor_profile(tmp_path: Path, info: dict[str, str]) -> Path:
    clients = "\n".join(f'{k.removeprefix("client.")} = "{v}"' for k, v in info.items() if k.startswith("client."))
    path = tmp_path / "vendor.toml"
    path.write_text(f"""
[profile]
name = "vendor-shared-clock"
description = "a test environment whose clock hook moves time for everyone"
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
username_without_role = "CONFORMANCE_MOCK_USERNAME_WITHOUT_ROLE"
password_without_role = "CONFORMANCE_MOCK_PASSWORD_WITHOUT_ROLE"
[services.auth.keys]
pki_dir = "{info['pki_dir']}"
[services.auth.login]
driver = "form"
[services.auth.clock]
url = "{info['auth_url']}/__mock__/clock"
method = "POST"
parameter = "advance_s"
[safety]
negative = true
""")
    return path


def run_auth(tmp_path: Path, *fault_names: str, workers: int = 0) -> tuple[int, dict[str, Any], float]:
    """`conformance run --suite auth` against a fresh mock environment with these faults; the
    exit code, the summary and how far the mock's clock runs ahead of real time afterwards."""
    cluster = MockCluster(load_profile("local-mock"), faults.FaultSet(frozenset(fault_names)))
    try:
        info = cluster.start_auth()
        cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "auth", "--profile",
               str(vendor_profile(tmp_path, info)), "-n", str(workers), "--no-html",
               "--report-dir", str(tmp_path / "run"), "--", "-q"]
        proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                              env={**os.environ, **cluster.secrets})
        ahead = httpx.get(info["auth_url"] + "/__mock__/clock").json()["now"] - time.time()
    finally:
        cluster.stop()
    summary_file = tmp_path / "run" / "summary.json"
    assert summary_file.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.returncode, json.loads(summary_file.read_text()), ahead


def outcomes(summary: dict[str, Any]) -> dict[str, str]:
    return {e["check"]: e["outcome"] for e in summary["checks"]}


@pytest.mark.parametrize("workers", [0, 2])
def test_a_conforming_server_is_judged_after_its_clock_moved(tmp_path: Path, workers: int) -> None:
    code, summary, ahead = run_auth(tmp_path, workers=workers)
    by_check = outcomes(summary)
    assert ahead > REFRESH_LIFETIME_S  # the expiry checks moved the one clock of the whole mock
    assert {c: by_check[c] for c in REUSE_AFTER_MOVE} == dict.fromkeys(REUSE_AFTER_MOVE, "passed")
    blocked = {c: o for c, o in by_check.items() if o in ("blocked", "error", "failed")}
    assert not blocked, [e for e in summary["checks"] if e["check"] in blocked]
    assert code == 0, summary


@pytest.mark.parametrize(("fault", "check"), [
    ("auth.resource_scope_not_checked", "auth.use.wrong_scope_forbidden"),
    ("auth.resource_accepts_expired_token", "auth.use.expired_token_refused"),
])
def test_a_fault_is_found_after_the_clock_moved(tmp_path: Path, fault: str, check: str) -> None:
    code, summary, _ = run_auth(tmp_path, fault)
    by_check = outcomes(summary)
    assert by_check[check] == "failed", [e for e in summary["checks"] if e["check"] == check]
    must, may = faults.expected_failures(next(f for f in faults.catalogue("auth") if f.name == fault))
    assert {c for c, o in by_check.items() if o == "failed"} <= must | may
    assert not [c for c, o in by_check.items() if o == "blocked" and check_by_id(c).severity is Severity.MUST]
    assert code == 1


# --- the ledger and the turns themselves -----------------------------------------------------
def test_the_ledger_is_read_by_every_process_of_the_run(tmp_path: Path) -> None:
    ClockLedger(tmp_path).record(3660.0)
    script = "import sys; from conformance.auth.shared_clock import ClockLedger; print(ClockLedger(sys.argv[1]).read())"
    other = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True,
                           cwd=REPO_ROOT)
    assert other.stdout.strip() == "Moves(count=1, ahead_s=3660.0)"
    assert ClockLedger(tmp_path).record(0.0) == ClockLedger(tmp_path).read()
    assert ClockLedger(tmp_path).read().count == 2


def _try_lock(run_dir: Path, mode: int) -> bool:
    with open(run_dir / "auth-clock-turn.lock", "a") as other:  # another open file: as another worker's
        try:
            fcntl.flock(other, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def test_a_clock_mover_runs_alone_and_other_checks_together(tmp_path: Path) -> None:
    with clock_turn(tmp_path, alone=True):
        assert not _try_lock(tmp_path, fcntl.LOCK_SH)  # no check runs while the clock moves
    with clock_turn(tmp_path, alone=False):
        assert _try_lock(tmp_path, fcntl.LOCK_SH)  # checks that hold the clock still run together
        assert not _try_lock(tmp_path, fcntl.LOCK_EX)  # a mover waits for them
    assert _try_lock(tmp_path, fcntl.LOCK_EX)
