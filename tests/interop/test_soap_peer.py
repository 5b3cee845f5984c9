"""Interop peer 3: the SOAP suite against an independent message service built with spyne.

The server (tests/interop/soap/server.py) is spyne, unmodified, serving the types of the
shipped schema declared with spyne's own type system; it shares no code with the project's
mock. The test starts it on a free loopback port, writes the profile a user would write for
it, runs `conformance run --suite soap` in a subprocess and compares every check's outcome
with tests/interop/expected/soap-peer.toml. A difference fails the test and names the check,
the expected and the actual outcome and the run's reason.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import forked_cli
import httpx
import pytest
from peers import read_first_line, require_peer
from soap_check_groups import ALL_CHECKS
from verdicts import differences, load_expected, outcomes_by_check

from conformance.soap import DEFAULT_SOAP_ACTION_BASE, SHIPPED_WSDL, SHIPPED_XSD

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(__file__).parent / "soap" / "server.py"
# The table's format and its comparison are the interop tier's (tests/interop/verdicts.py):
# [peer] name, version, suite, exit_code; [checks] check id -> {outcome, why (every non-pass,
# one line), observed (an observation's value as JSON text)}.
EXPECTED = Path(__file__).parent / "expected" / "soap-peer.toml"
START_TIMEOUT_S = 30.0
RUN_TIMEOUT_S = 300.0


# ---------------------------------------------------------------- the peer
def _require_spyne() -> None:
    missing = "spyne is not installed (a dev dependency)" if importlib.util.find_spec("spyne") is None else None
    require_peer(missing, "spyne SOAP server")


@pytest.fixture(scope="module")
def spyne_peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The spyne server's endpoint URL, once it answers `?wsdl`; stopped afterwards."""
    _require_spyne()
    log = tmp_path_factory.mktemp("soap-peer") / "server.log"
    with log.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, str(SERVER), "--port", "0"], stdout=subprocess.PIPE,
                                stderr=stderr, text=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        line = read_first_line(proc, deadline)
        if not line.startswith("listening "):
            pytest.fail(f"the spyne server did not start: {line!r}\n{log.read_text()[-3000:]}")
        url = line.split()[1]
        while True:  # bounded readiness poll: the WSDL spyne generates answers once it serves
            try:
                if httpx.get(f"{url}?wsdl", timeout=2.0).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail(f"the spyne server at {url} never answered ?wsdl\n{log.read_text()[-3000:]}")
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.1)  # returns early only when the server died
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def write_profile(directory: Path, url: str) -> Path:
    """What a user of this service would write: the endpoint, the action base, and the WSDL and
    schema the operator hands out (the shipped pair, its placeholders filled in)."""
    wsdl = SHIPPED_WSDL.read_text(encoding="utf-8")
    wsdl = wsdl.replace("{soap_url}", url).replace("{soap_action_base}", DEFAULT_SOAP_ACTION_BASE)
    (directory / SHIPPED_WSDL.name).write_text(wsdl, encoding="utf-8")
    shutil.copy(SHIPPED_XSD, directory / SHIPPED_XSD.name)
    profile = directory / "spyne-peer.toml"
    profile.write_text(f"""\
[profile]
name = "spyne-peer"
description = "The excavation-message service, built with spyne, on loopback"

[services.soap]
mock = false
url = "{url}"
soap_action_base = "{DEFAULT_SOAP_ACTION_BASE}"
wsdl = "{SHIPPED_WSDL.name}"

[safety]
fuzz = true
negative = true
flood = false

[fuzz]
max_examples = 10
""", encoding="utf-8")
    return profile


# ---------------------------------------------------------------- the test
def test_soap_suite_against_spyne_matches_the_table(spyne_peer: str, tmp_path: Path) -> None:
    table = load_expected(EXPECTED)
    assert version("spyne") == table["peer"]["version"], f"spyne {version('spyne')} is installed: review {EXPECTED.name}"
    profile = write_profile(tmp_path, spyne_peer)
    report = tmp_path / "report"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    started = time.monotonic()
    run = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--suite", "soap", "--profile", str(profile),
         "-n", "0", "--no-html", "--report-dir", str(report)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
    )
    print(f"spyne {table['peer']['version']}: SOAP suite took {time.monotonic() - started:.1f} s")
    summary_file = report / "summary.json"
    assert summary_file.is_file(), f"no summary.json (exit {run.returncode})\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    actual = outcomes_by_check(summary)
    errors = {c: (e.get("reason") or "").splitlines()[:1] for c, e in actual.items() if e["outcome"] == "error"}
    assert not errors, f"harness errors (checks broke instead of judging): {errors}"
    lines = differences(table["checks"], actual, ALL_CHECKS)
    if run.returncode != table["peer"]["exit_code"]:
        lines.append(f"exit code: expected {table['peer']['exit_code']}, actual {run.returncode}; "
                     f"the run's output ends:\n{run.stdout[-1500:]}{run.stderr[-1500:]}")
    assert not lines, (
        f"the SOAP suite's verdicts against spyne differ from {EXPECTED.name} (seed {summary.get('seed')}):\n  "
        + "\n  ".join(lines)
    )
