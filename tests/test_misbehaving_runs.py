"""Whole harness runs against a misbehaving server: every run ends within a wall-time bound
and a peak-memory bound of its own process, writes its report, gives the verdict the mode
deserves with a reason naming the violation, and never sends a request to another origin.

Each run is a real `conformance run` in a subprocess (its processes' peak RSS sampled from /proc), with
small limits and a request budget in the profile so that a mode that stalls every request
still ends quickly. One run per mode judges all three services at once (the address API, the
authorization server and the SOAP message service all at the misbehaving server; the budget
is each service's own), and each service's checks must name the violation. Contract fuzzing
leaves its coverage phase out (`[fuzz] phases`): the request budget is spent within the first
seconds, and the coverage cases, built for every operation before its first one is sent, were
then refused one by one (some 660 a run); the examples and the generated cases still meet the
misbehaviour through fuzzing's transport.
tests/test_bounded_http.py covers each mode request by request.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import forked_cli
import pytest
from misbehaving_server import MisbehavingServer
from process_peak import PeakRss

from conformance.paths import CHECKOUT as REPO_ROOT

WALL_S = 150.0
RSS_MB = 400.0
LIMITS = """
[limits]
deadline_s = 1
max_body_bytes = 1048576
max_decoded_bytes = 4194304
request_budget = 15
"""


def profile(url: str) -> str:
    return f"""
[profile]
name = "misbehaving"
description = "an address API, authorization server and SOAP message service that misbehave"
[services.address]
mock = false
base_url = "{url}/lvbag/individuelebevragingen/v2"
timeout_s = 5
[services.address.secrets]
api_key = "MISBEHAVING_KEY"
[services.address.samples]
nummeraanduiding = "0363200000123456"
[services.soap]
mock = false
url = "{url}/soap"
soap_action_base = "urn:registry:graafbericht"
timeout_s = 5
response_time_s = 2
[services.auth]
mock = false
auth_url = "{url}"
filing_base = "{url}"
inquiry_base = "{url}"
redirect_uri = "http://127.0.0.1:9/callback"
timeout_s = 5
[services.auth.clients]
confidential = "conformance-confidential"
public = "conformance-public"
[services.auth.secrets]
client_secret = "MISBEHAVING_CLIENT_SECRET"
username = "MISBEHAVING_USER"
password = "MISBEHAVING_PASSWORD"
[services.auth.login]
driver = "form"
[safety]
fuzz = true
negative = true
[fuzz]
max_examples = 2
stateful_steps = 2
phases = ["examples", "fuzzing", "stateful"]
""" + LIMITS


SUITES = ("address", "auth", "soap")
# mode -> words one of the run's reasons must contain (None: the run is "unreachable")
EXPECTED = {
    "hang": None,
    "reset": None,
    "drip": "not complete within 1 s",
    "huge-body": "body over 1 MiB",
    "gzip-bomb": "once its content-encoding gzip is undone",
    "many-headers": "head",
    "long-header": "head",
    "short-body": "framing",
    "http09": "no valid HTTP status line",
    "status999": "999",
    "malformed-json": "",
    "wrong-type": "",
    "bad-utf8": "not valid UTF-8",
    "redirect-loop": "302",
    "redirect-foreign": "302",
    "flood-1xx": None,  # only 1xx heads, never a final answer: nothing answered
    "xml-bomb": "",
    "xml-external": "",
}
# Where a suite words it otherwise: the login drivers stop at another origin themselves.
SUITE_EXPECTED = {("auth", "redirect-foreign"): "another origin"}


def run_harness(tmp_path: Path, url: str) -> tuple[int, float, float, str]:
    profile_file = tmp_path / "misbehaving.toml"
    profile_file.write_text(profile(url))
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile_file),
           "-n", "0", "--no-html", "--report-dir", str(tmp_path / "run"), "--seed", "3", "--", "-q"]
    started = time.monotonic()
    out = tmp_path / "out.txt"
    proc = forked_cli.Forked(cmd, stdout=out, stderr=out, cwd=REPO_ROOT,
                             env={**os.environ, "MISBEHAVING_KEY": "k" * 16, "MISBEHAVING_CLIENT_SECRET": "s" * 16,
                                  "MISBEHAVING_USER": "notaris", "MISBEHAVING_PASSWORD": "p" * 12})
    peak = PeakRss(proc.pid)
    deadline = started + WALL_S
    while (code := proc.poll()) is None:
        peak.sample()
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the run against the server did not end within {WALL_S} s")
        time.sleep(0.2)  # polling a child process, not synchronising with it
    wall = time.monotonic() - started
    rss_mb = peak.peak_mb
    return code, wall, rss_mb, out.read_text()


@pytest.mark.parametrize("mode", EXPECTED)
def test_a_misbehaving_server_cannot_hang_exhaust_or_fool_the_harness(tmp_path: Path, mode: str) -> None:
    with MisbehavingServer(mode="ok", limit_s=15) as elsewhere, \
            MisbehavingServer(mode=mode, limit_s=15, foreign=f"http://127.0.0.1:{elsewhere.port}/stolen") as server:
        code, wall, rss_mb, output = run_harness(tmp_path, f"http://127.0.0.1:{server.port}")
        foreign_requests = list(elsewhere.requests)
    assert "INTERNALERROR" not in output, output[-3000:]
    assert wall < WALL_S and rss_mb < RSS_MB, f"{wall:.0f} s, {rss_mb:.0f} MB"
    assert foreign_requests == [], "a request reached another origin"
    summary_file = tmp_path / "run" / "summary.json"
    assert summary_file.is_file(), output[-3000:]
    summary: dict[str, Any] = json.loads(summary_file.read_text())
    if EXPECTED[mode] is None:
        assert code == 3 and summary["verdict"] == "UNREACHABLE", output[-2000:]
        return
    errors = {e["check"]: e["reason"] for e in summary["checks"] if e["outcome"] == "error"}
    assert errors == {}, "checks broke instead of judging"
    assert code in (1, 4), f"exit {code}: a misbehaving server must not conform\n{output[-2000:]}"
    for suite in SUITES:  # each service's own checks name the violation
        words = SUITE_EXPECTED.get((suite, mode), EXPECTED[mode])
        reasons = " | ".join(e["reason"] or "" for e in summary["checks"]
                             if e["check"].startswith(f"{suite}.") and e["outcome"] in ("failed", "blocked"))
        assert reasons, f"no {suite} check failed or was blocked"
        assert words in reasons, f"{suite}: {reasons[:3000]}"
