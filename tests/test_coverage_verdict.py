"""The production run judges what it claims (issue 34): its verdict carries its MUST coverage,
a spent request budget is "not judged" (never "not applicable"), the budget is exact when
counted at the server, `--require-coverage` makes a MUST check not judged exit 4, and the
shipped production profile's budget fits a full safe address run.

The address mock runs here as an ordinary server (in this process, counting every request
it answers); each run is a real `conformance run` in a subprocess whose profile has the
shipped production profile's safety switches and limits, pointed at that server. Pacing is
off (it changes when requests go, not how many).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import tomllib
from pathlib import Path
from typing import Any

import forked_cli
import pytest

from conformance.catalogue import check_by_id
from conformance.mocks.address.app import create_app
from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
from conformance.mocks.address.data import WELL_KNOWN, default_database_path, ensure_database
from conformance.mocks.faults import FaultSet
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import resolve_profile_path
from conformance.serving import ServerThread

KEY = "coverage-valid-key-0001"
BASE = "/lvbag/individuelebevragingen/v2"
PRODUCTION = tomllib.loads(resolve_profile_path("production").read_text(encoding="utf-8"))
# What a budget must leave over a measured full run: requests vary a little with the data
# a check meets, and a production server answers differently from the mock.
HEADROOM = 1.25


class CountingServer:
    """The address mock, counting the requests it answers (ASGI middleware)."""

    def __init__(self) -> None:
        config = AddressMockConfig(db_path=ensure_database(default_database_path()),
                                   keys={KEY: KeyPolicy(day_limit=10_000_000)})
        self._app = create_app(config, FaultSet())
        self._lock = threading.Lock()
        self.count = 0
        self.server = ServerThread(self, "coverage-address")
        self.url = ""

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            with self._lock:
                self.count += 1
        await self._app(scope, receive, send)

    def __enter__(self) -> CountingServer:
        self.url = f"http://127.0.0.1:{self.server.start()}{BASE}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()


def production_style_profile(url: str, budget: int) -> str:
    """The shipped production profile's switches and limits (pacing off), its address API
    being the local mock with the mock's samples; `budget` replaces its request budget."""
    limits = {**PRODUCTION["limits"], "requests_per_second": 0, "request_budget": budget}
    safety = PRODUCTION["safety"]
    samples = "\n".join(f'{k} = "{v}"' for k, v in WELL_KNOWN.items())
    return "\n".join([
        "[profile]", 'name = "production-style"', 'description = "production switches against the local mock"',
        "[services.address]", "mock = false", f'base_url = "{url}"',
        "[services.address.secrets]", 'api_key = "COVERAGE_API_KEY"',
        "[services.address.samples]", samples,
        "[limits]", *(f"{k} = {json.dumps(v)}" for k, v in limits.items()),
        "[safety]", *(f"{k} = {json.dumps(v)}" for k, v in safety.items()),
        "",
    ])


def run(tmp_path: Path, server: CountingServer, budget: int, *extra: str,
        profile_extra: str = "", workers: str = "2") -> tuple[int, str, dict[str, Any], int]:
    """(exit code, console output, summary.json, requests the server answered). Two xdist
    workers by default: the budget is the run's, shared by its processes."""
    profile = tmp_path / f"production-style-{budget}.toml"
    profile.write_text(production_style_profile(server.url, budget) + profile_extra)
    report = tmp_path / f"run-{budget}{'-'.join(extra)}"
    before = server.count
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", "address",
         "-n", workers, "--no-html", "--report-dir", str(report), *extra],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "COVERAGE_API_KEY": KEY})
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    return proc.returncode, proc.stdout + proc.stderr, summary, server.count - before


@pytest.fixture(scope="module")
def server():
    with CountingServer() as running:
        yield running


def verdict_line(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("verdict: "))


def test_a_run_out_of_budget_says_what_it_did_not_judge(tmp_path: Path, server: CountingServer) -> None:
    budget = 150
    code, output, summary, sent = run(tmp_path, server, budget)
    assert sent <= budget, f"{sent} requests reached the server for a budget of {budget}"
    cov = summary["coverage"]
    assert cov["must_not_judged"] > 0 and cov["budget_stop"] == f"request budget of {budget} used up", cov
    spent = next(g for g in cov["not_judged"] if g["reason"] == cov["budget_stop"])
    assert spent["must"] > 0 and spent["checks"]
    assert summary["counts"]["not_applicable"] == 0 or all(
        "budget" not in (e["reason"] or "") for e in summary["checks"] if e["outcome"] == "not_applicable")
    # Never a bare CONFORMS: the line says on how much, why the rest was not judged, and the stop.
    line = verdict_line(output)
    assert f"on {cov['must_judged']} of {cov['must_selected']} MUST checks" in line, line
    assert f"request budget of {budget} used up" in line.split(" not judged: ", 1)[1], line
    assert f"stopped: request budget of {budget} used up" in line, line
    assert code == summary["exit_code"] == 0, output[-3000:]  # by default coverage informs, not gates
    assert "not judged (" in output and spent["checks"][0] in output  # what it did not judge, listed
    # Spent by severity: no MUST check waits on the budget while a SHOULD or observation check spent it.
    # (what judges, last, the answers the others received sends nothing: the response-schema
    # checks, and the test cases that judge every exchange of the run, suites/passive)
    by_check = {e["check"]: e for e in summary["checks"] if not e["test"].startswith("passive/")}
    judged = [c for c, e in by_check.items() if e["outcome"] in ("passed", "failed", "observation")
              and check_by_id(c).sends != ("nothing",)]
    if any(by_check[c]["severity"] == "MUST" for c in spent["checks"]):
        assert all(by_check[c]["severity"] == "MUST" for c in judged), \
            [c for c in judged if by_check[c]["severity"] != "MUST"]


@pytest.mark.parametrize("gate", ["option", "profile key"])
def test_the_strict_gate_makes_a_must_not_judged_exit_4(tmp_path: Path, server: CountingServer, gate: str) -> None:
    # In one process: what is proven is the gate (the budget shared by workers is the test above's).
    if gate == "option":
        code, output, summary, sent = run(tmp_path, server, 150, "--require-coverage", workers="0")
    else:
        code, output, summary, sent = run(tmp_path, server, 150, workers="0",
                                          profile_extra="\n[run]\nrequire_coverage = true\n")
    assert sent <= 150
    assert code == summary["exit_code"] == 4, output[-3000:]
    assert summary["verdict_reason"].startswith("could not judge: coverage required, on "), summary["verdict_reason"]
    line = verdict_line(output)
    assert line.startswith("verdict: COULD NOT JUDGE — address API at ") and ": coverage required, on " in line, line


def test_the_shipped_production_budget_fits_a_full_safe_run(tmp_path: Path, server: CountingServer) -> None:
    """Measured: a full address run with the production switches and no budget; the shipped
    budget must cover it with headroom, and a run with that budget judges everything it selects."""
    code, output, summary, sent = run(tmp_path, server, 0)
    assert code == 0, output[-3000:]
    budget = PRODUCTION["limits"]["request_budget"]
    assert sent * HEADROOM <= budget, f"a full safe run sent {sent} requests; the production budget is {budget}"
    assert not any(g["reason"].startswith("request budget") for g in summary["coverage"]["not_judged"])
    print(f"a full safe address run with the production switches: {sent} requests; budget {budget}")


# --------------------------------------------------------------------------- the model, without a run
def _entry(check: str, severity: str, outcome: str, cause: str | None = None, test: str = "") -> Any:
    from conformance.reporting.summary import Entry

    return Entry(check=check, requirements=["ADDR-4"], severity=severity, suite="address", title="t",
                 test=test or check, outcome=outcome, cause=cause, reason=cause)


def test_coverage_counts_must_checks_and_groups_what_was_not_judged() -> None:
    from conformance.errors import ExitCode
    from conformance.reporting.summary import Summary

    summary = Summary(profile="p")
    for entry in (_entry("a.ok", "MUST", "passed"), _entry("a.half", "MUST", "passed", test="a.half[1]"),
                  _entry("a.half", "MUST", "not_judged", "request budget of 9 used up", test="a.half[2]"),
                  _entry("a.key", "MUST", "not_judged", "no restricted api key"),
                  _entry("a.neg", "SHOULD", "not_judged", "forbidden by safety.negative = false"),
                  _entry("a.na", "MUST", "not_applicable", "no such resource server")):
        summary.add(entry)
    cov = summary.coverage()
    # A check with one case not judged was not judged whole; not applicable is outside the count.
    assert (cov["must_selected"], cov["must_judged"], cov["must_not_judged"]) == (3, 1, 2), cov
    assert cov["line"] == ("on 1 of 3 MUST checks (2 not judged: no restricted api key, "
                           "request budget of 9 used up)"), cov["line"]
    assert cov["budget_stop"] == "request budget of 9 used up"
    assert [g["checks"] for g in cov["not_judged"]][-1] == ["a.neg"]  # every severity listed, MUST first
    assert summary.exit_code() is ExitCode.OK  # by default coverage informs
    summary.require_coverage = True
    assert summary.verdict() == (ExitCode.COULD_NOT_JUDGE, "could not judge: coverage required, " + cov["line"])
    summary.add(_entry("a.bad", "MUST", "failed", "wrong"))
    assert summary.exit_code() is ExitCode.MUST_FAILED  # a failure is a failure, whatever the coverage


def test_matrix_and_diff_carry_not_judged(tmp_path: Path) -> None:
    from dataclasses import asdict

    from conformance.reporting.diff import compare, render
    from conformance.reporting.matrix import _verdict

    check = {"check": "a.key", "severity": "MUST", "outcome": "not_judged", "reason": "no restricted api key"}
    assert _verdict([check, {**check, "check": "a.ok", "outcome": "passed"}], {"address"})[0] == "not judged"
    old = {"checks": [asdict(_entry("a.key", "MUST", "passed"))]}
    new = {"checks": [asdict(_entry("a.key", "MUST", "not_judged", "no restricted api key"))]}
    diff = compare(old, new)
    assert [c.check for c in diff.unjudged] == ["a.key"] and not diff.has_regression
    lines = render(diff, old, new, "old", "new")
    assert "on 0 of 1 MUST checks (1 not judged: no restricted api key)" in lines[1]
    assert "NO LONGER JUDGED (judged -> not judged): 1" in lines
