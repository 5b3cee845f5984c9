"""Allure shows the outcome summary.json records, whatever exception carried it (issue 43).

allure-pytest takes its status from pytest's report and then calls every exception other
than an AssertionError "broken" (allure_pytest/listener.py): a MUST finding raised inside
schemathesis -- an exception group of its checks' failures -- showed as a yellow "broken"
harness error, filed under "Harness errors", while the verdict counted it a failure. The
outcome model hands allure-pytest the exception that says the outcome (run_outcomes.decide).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import forked_cli
import pytest
from allure_pytest.listener import _exception_brokes_test
from allure_pytest.utils import get_pytest_report_status
from schemathesis.core.failures import Failure, FailureGroup

from conformance.catalogue import check_by_id
from conformance.errors import NotJudged
from conformance.findings import Blocked, Finding
from conformance.paths import CHECKOUT
from conformance.run_outcomes import decide

STATEFUL = "address.contract.stateful_links"
OBSERVATION = "address.headers.api_version_value"


def raising(exc: BaseException | None) -> pytest.CallInfo[None]:
    def call() -> None:
        if exc is not None:
            raise exc
    return pytest.CallInfo.from_call(call, when="call")


def report_of(call: pytest.CallInfo[None]) -> pytest.TestReport:
    outcome = "passed" if call.excinfo is None else "skipped" if call.excinfo.errisinstance(
        pytest.skip.Exception) else "failed"
    return pytest.TestReport("suites/x.py::test", ("suites/x.py", 0, "test"), {}, outcome,
                             None if outcome == "passed" else "text", "call", duration=0.5)


def allure_status(report: pytest.TestReport, call: pytest.CallInfo[None]) -> str:
    """What allure-pytest's own makereport makes of them (listener.pytest_runtest_makereport)."""
    status = get_pytest_report_status(report)
    if call.excinfo is not None and status != "skipped" and _exception_brokes_test(call.excinfo.value):
        status = "broken"
    return str(status)


def decided(check_id: str, exc: BaseException | None) -> tuple[str, str, pytest.CallInfo[None]]:
    call = raising(exc)
    report = report_of(call)
    entry = decide(check_by_id(check_id), "test", report, call, not_judged=("skipped", None),
                   stopped=(None, False), observed=[{"v": 1}] if exc is None else [])
    return entry.outcome, allure_status(report, call), call


def schemathesis_failures(*messages: str) -> FailureGroup:
    return FailureGroup([Failure(operation="GET /adressen", title="Undocumented status code", message=m)
                         for m in messages])


def test_a_finding_inside_schemathesis_is_failed_in_allure() -> None:
    group = schemathesis_failures("Received: 404", "Response violates schema")
    assert allure_status(report_of(raising(group)), raising(group)) == "broken", "allure-pytest alone: broken"
    outcome, status, call = decided(STATEFUL, group)
    assert (outcome, status) == ("failed", "failed")
    assert call.excinfo is not None and "Undocumented status code Received: 404" in call.excinfo.exconly()
    assert call.excinfo.value.__cause__ is group  # the group stays reachable


def test_a_group_of_findings_and_a_spent_budget_is_failed() -> None:
    group = ExceptionGroup("fuzzing", [Finding("expected 200; actual: 500"), NotJudged("request budget of 10 used up",
                                                                                     "raise request_budget")])
    assert decided(STATEFUL, group)[:2] == ("failed", "failed")


def test_a_plain_finding_stays_failed_and_a_harness_error_broken() -> None:
    assert decided(STATEFUL, Finding("expected 200", actual=404))[:2] == ("failed", "failed")
    assert decided(STATEFUL, KeyError("links"))[:2] == ("error", "broken")
    assert decided(STATEFUL, ExceptionGroup("mixed", [Finding("x"), KeyError("y")]))[:2] == ("error", "broken")
    # pytest.fail reads as a failure to allure-pytest; the outcome model calls it an error.
    assert decided(STATEFUL, pytest.fail.Exception("broke"))[:2] == ("error", "broken")


def test_a_blocked_or_not_judged_group_is_skipped_with_its_reason() -> None:
    outcome, status, call = decided(STATEFUL, ExceptionGroup("stopped", [Blocked("the run", "deadline of 60 s")]))
    assert (outcome, status) == ("blocked", "skipped")
    assert call.excinfo is not None and "blocked: the run: deadline of 60 s" in call.excinfo.exconly()
    outcome, status, call = decided(STATEFUL, ExceptionGroup("budget", [NotJudged("request budget of 10 used up",
                                                                                 "raise request_budget")]))
    assert (outcome, status) == ("not_judged", "skipped")
    assert call.excinfo is not None and "not judged: " in call.excinfo.exconly()


def test_an_observations_finding_inside_schemathesis_passes() -> None:
    assert decided(OBSERVATION, schemathesis_failures("no api-version"))[:2] == ("observation", "passed")


def test_a_stateful_must_failure_is_failed_in_allure(tmp_path: Path) -> None:
    """The issue's run: the stateful links test finds a MUST failure (the address API serves
    application/json), which schemathesis raises as a FailureGroup."""
    run = tmp_path / "run"
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "--check", STATEFUL,
                           "--mock-fault", "address.hal_served_as_json", "--seed", "1", "-n", "0", "--no-html",
                           "--report-dir", str(run), "--", "-q"], capture_output=True, text=True, timeout=300,
                          cwd=CHECKOUT)
    summary = json.loads((run / "summary.json").read_text())
    assert proc.returncode == 1 == summary["exit_code"], proc.stdout[-2000:]
    failed = {e["check"] for e in summary["checks"] if e["outcome"] == "failed"}
    assert failed == {STATEFUL}
    results = [json.loads(p.read_text()) for p in (run / "allure-results").glob("*-result.json")]
    statuses = {(next(lb["value"] for lb in r["labels"] if lb["name"] == "check_id"), r["status"]) for r in results}
    assert statuses == {(STATEFUL, "failed")}, statuses
