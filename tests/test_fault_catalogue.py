"""Meta-tests: every check is proven both ways against the local mock.

* the clean mock passes every check of each suite (no false positives);
* the run under each fault is also judged passively from its traffic.har (conformance traffic):
  the fault's checks that observed traffic can judge fail there too;
* under each fault of the catalogue, every check the fault must trip fails with a
  finding, nothing outside its must/may sets fails, no check breaks (an `error` is a
  harness problem), and the exit code follows the severities (1 when a MUST check
  failed, else 4 when a MUST check was blocked, else 0 with warnings). A check the
  fault takes a precondition from may be `blocked` anywhere: that is the honest answer.
  The run under a fault selects (`--check`) the checks it must or may trip and a sample of
  the others of its suite, drawn from the fault's name: every fault is proven by its own
  checks, and over the catalogue every check meets many faults it must not fail under,
  at a fraction of a full run's time each;
* every MUST and SHOULD check is proven by some fault, and every fault proves a check.

Each run is a real `conformance run` in a subprocess, read back from its summary.json.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.checks.registry import Severity, check_by_id, registered_checks
from conformance.mocks.faults import Fault, catalogue, expected_failures
from conformance.paths import CHECKOUT as REPO_ROOT

SUITES = ("address", "auth", "soap")
FUZZ_EXAMPLES = "8"
# The WSDL checks read a file, not the mock's answers: tests/test_soap_checks.py proves
# them both ways on tampered copies of the WSDL.
# The client checks judge what a client sends, not what the mock answers: tests/test_passive_traffic.py
# proves each both ways on the captures of client scripts.
PROVEN_ELSEWHERE = ("soap.wsdl.", "client.")
# Apply only to a description with operations beyond the seed's; the shipped one has none:
# tests/test_any_description.py runs it on a vendor's description.
NOT_FOR_THE_SHIPPED_DESCRIPTION = {"address.contract.other_operations"}


def conformance_run(report_dir: Path, suite: str, *faults: str, marker: str | None,
                    checks: list[str] | None = None) -> tuple[int, dict[str, Any]]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", suite, "-n", "0", "--no-html",
           "--report-dir", str(report_dir), "--max-examples", FUZZ_EXAMPLES, "--seed", "20261121"]
    for name in faults:
        cmd += ["--mock-fault", name]
    for check in checks or ():
        cmd += ["--check", check]
    cmd += ["--", "-q"] + (["-m", marker] if marker else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary_path = report_dir / "summary.json"
    assert summary_path.is_file(), f"no summary.json; exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.returncode, json.loads(summary_path.read_text())


# A response the bounded HTTP layer stops reading is recorded without its body: a capture
# tool's HAR would hold it whole, a run's own traffic.har does not.
NOT_RECORDED_WHOLE = {"soap.oversized_response"}


def judge_traffic(har: Path, report_dir: Path) -> dict[str, str]:
    """`conformance traffic` over a HAR: check id -> outcome."""
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "traffic", str(har), "--no-html",
                           "--report-dir", str(report_dir)], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    summary = report_dir / "summary.json"
    assert summary.is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    return {e["check"]: e["outcome"] for e in json.loads(summary.read_text())["checks"]}


def outcomes(summary: dict[str, Any], *wanted: str) -> dict[str, str]:
    return {e["check"]: e["reason"] for e in summary["checks"] if e["outcome"] in wanted}


@pytest.mark.parametrize("suite", SUITES)
def test_clean_mock_passes_every_check(suite: str, tmp_path: Path) -> None:
    code, summary = conformance_run(tmp_path, suite, marker=None)
    assert outcomes(summary, "failed", "error", "blocked") == {}
    assert code == 0
    executed = {e["check"] for e in summary["checks"] if e["outcome"] not in ("skipped", "not_applicable")}
    declared = {c.id for c in registered_checks(suite)}
    assert declared - executed - NOT_FOR_THE_SHIPPED_DESCRIPTION == set(), "checks declared but never executed"
    observations = [e for e in summary["checks"] if e["severity"] == "observation"
                    and e["check"] not in NOT_FOR_THE_SHIPPED_DESCRIPTION]
    assert all(e["outcome"] == "observation" and e["value"] is not None for e in observations)


# Checks outside a fault's must/may sets that each run under it also selects.
SAMPLE_OF_OTHERS = 6
# Where a passive rule judges exchanges another check sends: its run selects that one too.
PASSIVE_TRAFFIC_FROM = {"address.media.not_acceptable_names_accept_crs": ("address.crs.unsupported_accept_crs_rejected",)}


def selection(fault: Fault, must: set[str], may: set[str], fuzzes: bool) -> list[str]:
    """The checks a fault's run selects: those it must or may trip, and a sample of the
    others of its suite drawn from the fault's name (the same every run)."""
    others = sorted(c.id for c in registered_checks(fault.server)
                    if c.id not in must | may and c.severity is not Severity.OBSERVATION
                    and (fuzzes or not c.id.startswith("address.contract.")))
    traffic = {source for check in must for source in PASSIVE_TRAFFIC_FROM.get(check, ())}
    return sorted(must | may | traffic) + random.Random(fault.name).sample(others, min(SAMPLE_OF_OTHERS, len(others)))


@pytest.mark.parametrize("fault", catalogue(), ids=lambda f: f.name)
def test_fault_trips_its_checks_and_only_plausible_ones(fault: Fault, tmp_path: Path) -> None:
    must, may = expected_failures(fault)
    # Fuzzing is slow: the address suite fuzzes only under faults that prove a contract check.
    fuzzes = fault.server != "address" or any(c.startswith("address.contract.") for c in must)
    code, summary = conformance_run(tmp_path, fault.server, fault.name, marker=None if fuzzes else "not fuzz",
                                    checks=selection(fault, must, may, fuzzes))
    ran = {e["check"] for e in summary["checks"] if e["outcome"] not in ("skipped", "not_applicable")}
    failed = outcomes(summary, "failed")
    assert outcomes(summary, "error") == {}, "checks broke instead of judging"
    expected = must & ran
    assert expected, f"{fault.name}: none of its checks ran ({sorted(must)})"
    missed = expected - set(failed)
    assert not missed, f"{fault.name} was not caught by {sorted(missed)}"
    unexpected = {c: r for c, r in failed.items() if c not in must | may}
    assert not unexpected, f"{fault.name} also failed unrelated checks: {unexpected}"
    severities = {e["check"]: e["severity"] for e in summary["checks"]}
    blocked = outcomes(summary, "blocked")
    expected_code = 1 if any(severities[c] == "MUST" for c in failed) else \
        4 if any(severities[c] == "MUST" for c in blocked) else 0
    assert code == expected_code, f"exit {code}; failed {sorted(failed)}, blocked {sorted(blocked)}"
    # The same run's traffic, judged passively: every check of the fault that one observed
    # exchange (or a flow) can show fails there too, from the recording alone.
    observable = {c for c in must if check_by_id(c).observes != "probe"} & ran
    if observable and fault.name not in NOT_RECORDED_WHOLE:
        passive = judge_traffic(tmp_path / "traffic.har", tmp_path / "passive")
        missed = {c: passive.get(c) for c in observable if passive.get(c) != "failed"}
        assert not missed, f"{fault.name}: not found passively in its run's traffic.har: {missed}"


def test_every_check_is_proven_by_a_fault() -> None:
    known = {f.name for f in catalogue()}
    proven = set().union(*(expected_failures(f)[0] for f in catalogue()))
    for check in registered_checks():
        unknown = (set(check.proven_by) | set(check.may_fail_under)) - known
        assert not unknown, f"{check.id} names unknown faults {sorted(unknown)}"
        if check.severity is Severity.OBSERVATION or check.id.startswith(PROVEN_ELSEWHERE):
            continue
        assert check.id in proven, f"{check.id}: no fault proves it"


def test_every_fault_proves_a_check() -> None:
    for fault in catalogue():
        must, _ = expected_failures(fault)
        assert must, f"{fault.name} proves no check"
