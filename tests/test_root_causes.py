"""One defect, one finding (issue 51): failures that share an observable cause are one root
cause in summary.json (in words, with how far it reaches, the checks it breaks and those that
fail in consequence, and the test cases it explains); the console verdict, the report's title
(its first screen) and the matrix lead with it; `conformance waive` writes one waiver for it.
Real runs against the local mock under single-cause faults, and two independent ones."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import forked_cli
import pytest

from conformance.paths import CHECKOUT
from conformance.reporting.allure_extras import report_title

CLI = [sys.executable, "-m", "conformance.cli"]
# The checks each fault takes down, and (for api-version) contract fuzzing, which judges every
# answer with them too: the failures in consequence.
SELECTION = ["--check", "address.headers.*", "--check", "address.media.*", "--check", "address.maintenance.*"]
WITH_FUZZING = [*SELECTION, "--check", "address.contract.*"]
SINGLE = {
    # fault: the root cause's words begin so; the requirement it breaks
    "address.api_version_missing": ("api-version header missing on ", "ADDR-4.api-version"),
    "address.hal_served_as_json": ("success response is not application/hal+json on ", "ADDR-1.media-type"),
    "address.rate_limit_headers_missing": ("rate-limit headers missing on ", "ADDR-4.rate-limit"),
}


def _run(report: Path, *faults: str):
    # Fuzzing without its coverage phase (some 2,000 requests under this fault): every answer
    # lacks api-version, so the first generated one fails each contract check.
    selection = WITH_FUZZING + ["--fuzz-phases", "examples,fuzzing,stateful"] \
        if faults == ("address.api_version_missing",) else SELECTION
    cmd = [*CLI, "run", "--suite", "address", "-n", "0", "--no-html", "--max-examples", "5", "--seed", "7",
           "--report-dir", str(report), *selection]
    for fault in faults:
        cmd += ["--mock-fault", fault]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=900, cwd=CHECKOUT)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc, json.loads((report / "summary.json").read_text(encoding="utf-8"))


def _failing_causes(summary: dict) -> list[dict]:
    return [c for c in summary["root_causes"] if c["must_failed"]]


@pytest.mark.parametrize("fault", list(SINGLE))
def test_a_single_cause_fault_is_one_root_cause_everywhere(fault: str, tmp_path: Path) -> None:
    words, requirement = SINGLE[fault]
    report = tmp_path / "run"
    proc, summary = _run(report, fault)
    causes = _failing_causes(summary)
    assert len(causes) == 1, [c["words"] for c in causes]
    cause = causes[0]
    assert cause["words"].startswith(words), cause["words"]
    failed = {e["check"] for e in summary["checks"] if e["outcome"] == "failed"}
    assert set(cause["checks"]) == failed  # it explains every failure of the run
    # Its own check's test and its rule over every exchange at least: one cause, several cases.
    assert cause["breaks"] and len(cause["test_cases"]) >= 2
    # The console, the verdict line and the report's title name it.
    out = proc.stdout + proc.stderr
    assert f"CAUSE failed x{len(cause['checks'])}" in out and cause["words"][:60] in out
    assert "1 root cause: " + cause["words"] in summary["verdict_line"]
    assert cause["words"] in (report_title(report) or "")
    # The matrix: its rule's requirement is broken; a requirement only contract fuzzing failed
    # through it is failed in consequence.
    rows = {r["id"]: r for r in json.loads((report / "matrix.json").read_text(encoding="utf-8"))["requirements"]}
    assert rows[requirement]["verdict"] == "failed", rows[requirement]
    consequences = [r for r in rows.values() if r["verdict"] == "failed in consequence"]
    if fault == "address.api_version_missing":  # contract fuzzing failed through it
        assert cause["in_consequence"] and consequences
    assert all(cause["words"] in r["reason"] for r in consequences)
    # One waiver for the one defect, and it waives the whole run.
    waivers = tmp_path / "waivers.toml"
    written = forked_cli.run([*CLI, "waive", str(report), "--reason", "accepted", "--until", "2099-01-01", "--out",
                              str(waivers)], capture_output=True, text=True, timeout=120, cwd=CHECKOUT)
    assert written.returncode == 0 and "1 waiver written" in written.stdout, written.stdout + written.stderr


def test_two_independent_faults_are_two_root_causes(tmp_path: Path) -> None:
    _, summary = _run(tmp_path / "run", "address.api_version_missing", "address.hal_served_as_json")
    causes = _failing_causes(summary)
    assert sorted(c["words"].split(" on ")[0] for c in causes) == [
        "api-version header missing", "success response is not application/hal+json"], [c["words"] for c in causes]
    assert "2 root causes: " in summary["verdict_line"]
