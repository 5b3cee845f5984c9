"""Whole runs against services that are slow or stop answering, with the DEFAULT limits:
each run ends by itself, writes its report, and says why it could not judge (README
"Limits": the circuit breaker, the run deadline, SIGINT/SIGTERM).

A gzip bomb or a 60 MiB body on every answer ends within 60 s and 400 MB peak RSS of any of
its processes. The drip is judged the same way with one limit changed, the per-request
deadline (1 s instead of 30 s): what is proven is that the breaker stops a service whose
every answer runs out its deadline; how long that takes with the default deadline (under
3 minutes) is a figure `benchmarks/misbehaving_run.py --mode drip` prints, not a wait of
two minutes in every run of these tests. Each run is a real `conformance run` in a
subprocess (its processes' peak RSS sampled from /proc: tests/process_peak.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import forked_cli
import pytest
from misbehaving_server import MisbehavingServer
from process_peak import PeakRss

from conformance.paths import CHECKOUT as REPO_ROOT

ADDRESS_PROFILE = """
[profile]
name = "slow-address"
description = "an address API that misbehaves on every answer"
[services.address]
mock = false
base_url = "{url}/lvbag/individuelebevragingen/v2"
[services.address.secrets]
api_key = "MISBEHAVING_KEY"
[services.address.samples]
nummeraanduiding = "0363200000123456"
[safety]
fuzz = true
negative = true
"""


def run(tmp_path: Path, profile: str, *args: str, wall_s: float, on_start: Any = None) -> tuple[int, float, float, str]:
    """(exit code, wall seconds, peak RSS MB, output) of a run that must end within `wall_s`;
    `profile`: a profile's text, or a shipped profile's name."""
    if "\n" in profile:
        (tmp_path / "profile.toml").write_text(profile)
        profile = str(tmp_path / "profile.toml")
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--profile", profile, "--no-html",
           "--report-dir", str(tmp_path / "run"), "--seed", "7", *args, "--", "-q"]
    out = tmp_path / "out.txt"
    started = time.monotonic()
    proc = forked_cli.Forked(cmd, stdout=out, stderr=out, cwd=REPO_ROOT, env={**os.environ, "MISBEHAVING_KEY": "k" * 16})
    peak = PeakRss(proc.pid)
    while (code := proc.poll()) is None:
        peak.sample()
        if time.monotonic() - started > wall_s:
            proc.kill()
            proc.wait()
            pytest.fail(f"the run did not end within {wall_s} s:\n{out.read_text()[-2000:]}")
        if on_start is not None and on_start(proc):
            on_start = None
        time.sleep(0.2)  # polling a child process, not synchronising with it
    return code, time.monotonic() - started, peak.peak_mb, out.read_text()


def summary_of(tmp_path: Path, output: str) -> dict[str, Any]:
    path = tmp_path / "run" / "summary.json"
    assert path.is_file(), output[-3000:]
    return json.loads(path.read_text())


# The drip's deadline (the only limit changed from the defaults): a drip of a byte every 2 s
# outlasts it, so every answer is cut off at 1 s.
DRIP_LIMITS = "[limits]\ndeadline_s = 1\n"


# The breaker's count is the run's, shared by its processes: one mode runs in two xdist
# workers, the others in one process (a worker's start costs more than what it judges here).
@pytest.mark.parametrize(("mode", "stop", "workers"), [
    ("drip", "the address API stopped answering within 1 s after 5 requests", "0"),
    ("gzip-bomb", "the address API broke 5 requests in a row (body over 32 MiB once its content-encoding gzip", "2"),
    ("huge-body", "the address API broke 5 requests in a row (body over 8 MiB, stopped reading)", "0"),
])
def test_a_service_that_stops_answering_is_stopped_by_its_breaker(tmp_path: Path, mode: str, stop: str,
                                                                  workers: str) -> None:
    bound_s = 60.0
    with MisbehavingServer(mode=mode, limit_s=bound_s + 30) as server:
        profile = ADDRESS_PROFILE.format(url=f"http://127.0.0.1:{server.port}") + (DRIP_LIMITS if mode == "drip" else "")
        code, wall, rss_mb, output = run(tmp_path, profile, "--suite", "address", "-n", workers, wall_s=bound_s)
    assert "Traceback" not in output and "INTERNALERROR" not in output, output[-3000:]
    assert wall < bound_s and rss_mb < 400, f"{wall:.0f} s, {rss_mb:.0f} MB\n{output[-2000:]}"
    summary = summary_of(tmp_path, output)
    assert code == 4 and summary["verdict"] == "COULD_NOT_JUDGE", output[-2000:]
    assert summary["verdict_reason"].startswith(f"could not judge: {stop}"), output[-2000:]
    stopped = [e for e in summary["checks"] if e["stop"]]
    assert stopped and all(e["outcome"] == "blocked" and e["stop"].startswith(stop) for e in stopped), output[-2000:]
    assert not [e for e in summary["checks"] if e["outcome"] == "error"], output[-2000:]


def test_the_run_deadline_blocks_what_it_did_not_run(tmp_path: Path) -> None:
    code, _, _, output = run(tmp_path, "local-mock",
                             "--suite", "address", "-n", "0", "--max-duration", "4", wall_s=120)
    summary = summary_of(tmp_path, output)
    assert code == 4, output[-2000:]
    not_run = [e for e in summary["checks"] if e["stop"] == "run deadline of 4 s reached"]
    assert not_run and all(e["outcome"] == "blocked" for e in not_run)
    assert summary["verdict_reason"].startswith("could not judge: run deadline of 4 s reached")
    assert summary["stops"] == {"run deadline of 4 s reached": len(not_run)}


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_the_run_with_a_partial_report(tmp_path: Path, sig: signal.Signals) -> None:
    results = tmp_path / "run" / "allure-results"

    def signal_once_checks_ran(proc: subprocess.Popen) -> bool:
        if results.is_dir() and any(results.glob("*-result.json")):
            proc.send_signal(sig)
            return True
        return False

    code, _, _, output = run(tmp_path, "local-mock",
                             "--suite", "address", "-n", "2", wall_s=120, on_start=signal_once_checks_ran)
    assert "Traceback" not in output, output[-3000:]
    summary = summary_of(tmp_path, output)
    reason = f"run interrupted by {sig.name}"
    assert code == 4 and summary["verdict_reason"].startswith(f"could not judge: {reason}"), output[-2000:]
    assert any(e["outcome"] == "passed" for e in summary["checks"])  # what ran before the signal is kept
    assert all(e["outcome"] == "blocked" for e in summary["checks"] if e["stop"] == reason)
