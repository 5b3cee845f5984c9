"""The verdict follows the severities: MUST failures fail the run, SHOULD ones warn."""

from __future__ import annotations

import json

from conformance.errors import ExitCode
from conformance.reporting.summary import Entry, Summary


def entry(severity: str, outcome: str, **kw) -> Entry:
    return Entry(check=f"c.{severity}.{outcome}", requirements=["ADDR-4"], severity=severity,
                 suite="address", title="t", test=f"t{kw}", outcome=outcome, **kw)


def test_exit_codes_by_severity(tmp_path) -> None:
    s = Summary(profile="p")
    s.add(entry("MUST", "passed"))
    s.add(entry("SHOULD", "failed", reason="warn"))
    s.add(entry("observation", "observation", value=42))
    assert s.exit_code() is ExitCode.OK
    s.add(entry("MUST", "error", reason="boom"))
    assert s.exit_code() is ExitCode.MUST_FAILED
    s.add(entry("MUST", "error", unreachable=True))
    assert s.exit_code() is ExitCode.UNREACHABLE
    data = json.loads(s.write(tmp_path).read_text())
    assert data["counts"]["warnings"] == 1 and data["counts"]["must_failures"] == 2
    assert {"check", "requirements", "severity", "suite", "outcome", "reason", "value"} <= set(data["checks"][0])


def test_repeated_reports_keep_the_worst_outcome() -> None:
    s = Summary(profile="p")
    s.add(Entry(check="c", requirements=["R"], severity="MUST", suite="a", title="t", test="x", outcome="passed"))
    s.add(Entry(check="c", requirements=["R"], severity="MUST", suite="a", title="t", test="x", outcome="failed", reason="r"))
    s.add(Entry(check="c", requirements=["R"], severity="MUST", suite="a", title="t", test="x", outcome="passed"))
    assert [(e.outcome, e.reason) for e in s.entries] == [("failed", "r")]


def test_verdict_per_requirement() -> None:
    s = Summary(profile="p")
    add = lambda check, sev, outcome, reqs: s.add(Entry(check=check, requirements=reqs, severity=sev,  # noqa: E731
                                                        suite="a", title="t", test=check, outcome=outcome))
    add("a.must", "MUST", "failed", ["R1", "R2"])
    add("a.should", "SHOULD", "failed", ["R2", "R3"])
    add("a.ok", "MUST", "passed", ["R3", "R4"])
    add("a.obs", "observation", "observation", ["R5"])
    add("a.skip", "MUST", "skipped", ["R6"])
    verdicts = {req: item["verdict"] for req, item in s.by_requirement().items()}
    assert verdicts == {"R1": "failed", "R2": "failed", "R3": "warning", "R4": "passed", "R5": "observed", "R6": "skipped"}
    assert s.by_requirement()["R2"]["failing"] == {"a.must": "MUST", "a.should": "SHOULD"}
