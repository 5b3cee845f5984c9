"""The outcome model, applied: what a check's test raised (or skipped with) becomes one
summary entry (conformance/reporting/summary.py) and, for pytest, JUnit and Allure, a passed,
failed or skipped report.

  a Finding (an AssertionError)          -> failed (an observation check: its observed value)
  Blocked (a precondition; Stopped)      -> blocked, reported as skipped "blocked: ..."
  NotApplicable                          -> not_applicable, reported as skipped "not applicable: ..."
  NotJudged (missing material, a budget) -> not_judged, reported as skipped "not judged: ..."
  a safety switch's skip                 -> not_judged (the rule applies; the profile forbade it)
  needs the local mock / no such service -> skipped
  anything else                          -> error (a harness problem)

Called by the plugin's pytest_runtest_makereport (conformance/pytest_plugin.py).

What Allure shows follows the entry, whatever exception carried it: allure-pytest reads its
status from the report (passed, failed, skipped) and then calls any exception other than an
AssertionError "broken", reading `call.excinfo` after this hook. A MUST finding raised inside
schemathesis arrives as an exception group (a FailureGroup of its checks' failures), which
allure-pytest showed as a yellow "broken" harness error beside the verdict's red failure. So
`decide` also hands allure-pytest the exception that says the outcome (`_show_as`): a finding
for "failed", the harness's own error for "error", the skip with its prefixed reason for a
blocked, not-judged or not-applicable group, and none for an observation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.checks.registry import Check, Severity
from conformance.errors import ExitCode, NotApplicable, NotJudged, UnreachableError
from conformance.findings import Blocked, Finding
from conformance.http import evidence as report_evidence
from conformance.http.redaction import Redactor
from conformance.http.stops import Stopped
from conformance.reporting.summary import Entry, Summary


def decide(check: Check, test_id: str, report: pytest.TestReport, call: pytest.CallInfo[None], *,
           not_judged: tuple[str, str | None], stopped: tuple[str | None, bool], observed: list[Any]) -> Entry:
    """The entry of a test's deciding phase; `report` is adjusted to match (a blocked subtest
    is skipped, an observation's finding passes, a finding's longrepr is its reason)."""
    entry = Entry(
        check=check.id,
        requirements=list(check.requirements),
        severity=str(check.severity),
        suite=check.suite,
        title=check.title,
        test=test_id,
        outcome="passed",
        duration_s=round(report.duration, 3),
    )
    if report.skipped:
        entry.outcome, entry.cause = not_judged
        entry.reason = _skip_reason(report)
        entry.stop, entry.unreachable = stopped
    elif report.failed and call.excinfo is not None and _only(call.excinfo.value, Blocked):
        # Blocked inside a schemathesis subtest or a group: the run stopped mid-fuzzing.
        first = _flatten(call.excinfo.value)[0]
        assert isinstance(first, Blocked)
        entry.outcome, entry.cause, entry.reason = "blocked", first.cause, _full(str(first))
        if isinstance(first, Stopped):
            entry.stop, entry.unreachable = first.stop, first.unreachable
        report_evidence.tag_cause(first.cause)
        report.outcome, report.longrepr = "skipped", (str(report.fspath), 0, f"blocked: {entry.reason}")
        _show_as(call, pytest.skip.Exception(f"blocked: {entry.reason}"))
    elif report.failed and check.severity is Severity.OBSERVATION and call.excinfo is not None \
            and _is_finding(call.excinfo.value):
        # An observation never fails: what it found is the observed value (schemathesis
        # subtests report here, past the call wrapper's own conversion).
        entry.outcome, entry.value = "observation", {"finding": _failure_reason(call.excinfo)}
        report.outcome, report.longrepr = "passed", None
        call.excinfo = None  # passed, with nothing "broken" about it
    elif report.failed and call.excinfo is not None and _only(call.excinfo.value, NotJudged | NotApplicable):
        # Raised inside a schemathesis subtest (the request budget ran out mid-fuzzing).
        leaves = _flatten(call.excinfo.value)
        judged = [e for e in leaves if isinstance(e, NotJudged)]
        entry.outcome = "not_judged" if judged else "not_applicable"
        entry.cause = judged[0].what if judged else None
        entry.reason = _failure_reason(call.excinfo)
        said = f"{entry.outcome.replace('_', ' ')}: {entry.reason}"
        report.outcome, report.longrepr = "skipped", (str(report.fspath), 0, said)
        _show_as(call, pytest.skip.Exception(said))
    elif report.failed:
        excinfo = call.excinfo
        is_finding = excinfo is not None and _is_finding(excinfo.value)
        entry.outcome = "failed" if is_finding else "error"
        entry.unreachable = excinfo is not None and excinfo.errisinstance(UnreachableError)
        entry.reason = _failure_reason(excinfo) if excinfo else _full(report.longreprtext)
        entry.cause = (getattr(excinfo.value, "cause", None) or shared_cause(excinfo.value)) if excinfo else None
        entry.direct = excinfo is not None and isinstance(excinfo.value, Finding)
        if is_finding:  # a finding is the environment's, not the harness's: its reason, no traceback
            report.longrepr = f"{check.severity} {check.id} [{', '.join(check.requirements)}]: {entry.reason}"
            if excinfo is not None and not isinstance(excinfo.value, AssertionError):  # a group of findings
                _show_as(call, Finding(entry.reason or "finding", cause=entry.cause), excinfo.value)
        elif excinfo is not None and isinstance(excinfo.value, AssertionError | pytest.fail.Exception):
            _show_as(call, CheckBroke(entry.reason or excinfo.exconly()), excinfo.value)
    elif check.severity is Severity.OBSERVATION:
        observed = observed
        if observed:
            entry.outcome = "observation"
            entry.value = observed[0] if len(observed) == 1 else observed
        else:
            entry.outcome = "error"
            entry.reason = "observation check recorded no value"
    return entry


class CheckBroke(Exception):
    """A check that broke (outcome `error`) with an exception allure-pytest would call a
    failure (`pytest.fail`): shown to Allure as this, so "broken"."""


def _show_as(call: pytest.CallInfo[None], shown: BaseException, carried: BaseException | None = None) -> None:
    """Hand allure-pytest `shown` instead of the exception the test raised (`carried`, kept
    as its cause): allure-pytest's own makereport wrapper runs outside the plugin's and reads
    `call.excinfo` after it -- its status (AssertionError: failed, pytest's skip: skipped,
    anything else: broken) and its message. pytest's report (JUnit, the console) is made."""
    try:
        raise shown from carried
    except BaseException:
        call.excinfo = pytest.ExceptionInfo.from_current()


def redact_report(report: pytest.TestReport, call: pytest.CallInfo[None], redactor: Redactor) -> None:
    """Secrets out of everything a test's report carries past the exchanges: the exception's
    text (Allure reads it from `call.excinfo`), the failure text and traceback (JUnit, the
    console), captured output. A finding that quotes a server's answer echoing a token, or a
    traceback whose frame shows a header, must not carry it into a shared report."""
    if call.excinfo is not None:
        for exc in _flatten(call.excinfo.value):
            for holder in (exc, getattr(exc, "exception", None)):  # schemathesis keeps a custom check's finding
                if isinstance(getattr(holder, "cause", None), str):
                    holder.cause = redactor.text(holder.cause)  # type: ignore[union-attr]
            if not isinstance(exc, BaseExceptionGroup) and exc.args:
                text = str(exc)
                masked = redactor.text(text)
                if masked != text:
                    exc.args = (masked,)
                    if isinstance(exc, Finding):  # its own members make its text again
                        exc.message, exc.expected, exc.actual = masked, None, None
    if report.longrepr is not None:
        if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
            path, line, text = report.longrepr
            report.longrepr = (path, line, redactor.text(str(text)))
        else:
            text = str(report.longrepr)
            masked = redactor.text(text)
            if masked != text:
                report.longrepr = masked
    report.sections = [(title, redactor.text(content)) for title, content in report.sections]


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        text = str(longrepr[2]).removeprefix("Skipped: ")
    else:
        text = _full(str(longrepr))
    return text.removeprefix("blocked: ").removeprefix("not applicable: ").removeprefix("not judged: ")


def _is_finding(exc: BaseException) -> bool:
    """A conformance finding: an AssertionError, or a group (schemathesis) of them; cases a
    spent request budget stopped (NotJudged) may be among them."""
    if isinstance(exc, BaseExceptionGroup):
        flat = _flatten(exc)
        return any(isinstance(e, AssertionError) for e in flat) and \
            all(isinstance(e, AssertionError | NotJudged | NotApplicable | Blocked) for e in flat)
    return isinstance(exc, AssertionError)


def shared_cause(exc: BaseException) -> str | None:
    """What every finding of a failure states alike, or None when they state different things:
    a finding's `cause`, else its message -- one rule's finding reads the same wherever it is
    raised (its own test, the rule over every exchange, a custom check of contract fuzzing:
    schemathesis keeps the finding as the failure's `exception`); a schemathesis failure of its
    own, its title. Cases the run did not judge (NotJudged, Blocked) are left aside."""
    from conformance.checks.address.contract_split import built_in_statement

    stated: set[str] = set()
    for leaf in _flatten(exc):
        if isinstance(leaf, NotJudged | NotApplicable | Blocked):
            continue
        inner = getattr(leaf, "exception", None)
        leaf = inner if isinstance(inner, Finding) else leaf
        if isinstance(leaf, Finding):
            stated.add(leaf.cause or leaf.message)
        else:  # schemathesis's own check: in the words of the harness's rule of that property, or its title
            stated.update(built_in_statement(leaf)
                          or {str(getattr(leaf, "title", "") or (str(leaf).splitlines() or [type(leaf).__name__])[0])})
    return stated.pop() if len(stated) == 1 else None


def _only(exc: BaseException, kind: type[BaseException]) -> bool:
    return all(isinstance(e, kind) for e in _flatten(exc))


def _flatten(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _flatten(sub)]
    return [exc]


def _failure_reason(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    """The whole reason, on one line; for an exception group (schemathesis), the distinct
    sub-failures. Never cut here: summary.json keeps it all (the console shortens)."""
    exc = excinfo.value
    if isinstance(exc, BaseExceptionGroup):
        leaves = _flatten(exc)
        findings = [e for e in leaves if isinstance(e, AssertionError)] or leaves
        parts = []
        for sub in findings:
            lines = [ln.strip() for ln in str(sub).splitlines() if ln.strip()]
            parts.append(" ".join(lines[:2]))
        return _full("; ".join(sorted(set(parts))))  # in one order: two runs of the same findings read alike
    if isinstance(exc, Finding):
        return _full(str(exc))
    return _full(excinfo.exconly())


def _full(text: str) -> str:
    """Lines joined into one, without the exception class prefix."""
    text = " ".join(line.strip() for line in text.splitlines() if line.strip())
    return text.removeprefix("conformance.findings.Finding: ").removeprefix("AssertionError: ")


class SummaryCollector:
    """Registered in the controller only: gathers entries from local and xdist reports."""

    def __init__(self, summary: Summary, report_dir: Path, waivers: tuple[str, list[Any]] | None = None) -> None:
        self.summary = summary
        self.report_dir = report_dir
        self.waivers = waivers

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        from conformance.profiles import load_profile

        self.summary.require_coverage = bool(session.config.getoption("require_coverage")) or \
            load_profile(session.config.getoption("profile")).require_coverage

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        raw = getattr(report, "conformance_entry", None)
        if raw is not None:
            # Subtests (schemathesis runs one per operation) report several times for one
            # test: the summary keeps one entry per test, with its worst outcome. The test's
            # own report after its subtests says only that the loop ran: it never counts as
            # a pass of its own (a check whose cases were all stopped is not "passed").
            entry = Entry(**json.loads(raw))
            entry.subtest = type(report).__name__ == "SubtestReport" or bool(getattr(report, "_schemathesis_subtest", False))
            self.summary.add(entry)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.waivers is not None:  # accepted deviations: failed -> waived, before the verdict
            from conformance.reporting import waivers

            self.summary.waivers = {"file": self.waivers[0],
                                    "warnings": waivers.apply(self.summary.entries, self.waivers[1])}
        self.summary.write(self.report_dir)
        from conformance.passive.har import TrafficLog

        TrafficLog.join(self.report_dir)  # the run's exchanges, redacted: `conformance traffic` reads them
        from conformance.reporting.allure_extras import write_run_extras

        write_run_extras(self.report_dir)  # matrix.json/.md, Allure metadata; never fatal
        if int(exitstatus) in (ExitCode.OK, ExitCode.MUST_FAILED):
            session.exitstatus = int(self.summary.exit_code())

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from conformance.reporting.console import verdict_lines

        terminalreporter.section("conformance verdict")
        for line in verdict_lines(self.summary.to_json(), self.report_dir):
            terminalreporter.write_line(line)


def login_blocked(exc: Exception) -> Blocked:
    """A login the profile's driver could not walk (a loop, another origin, no usable form):
    the checks that start from it could not judge their rules."""
    return Blocked("a login through the profile's login driver", f"login: {exc}")
