"""Meta-tests: every check is proven both ways against the local mock.

* the clean mock passes every check of the address suite (no false positives);
* under each fault of the catalogue, every check that names the fault in `proven_by`
  fails, nothing outside `proven_by | may_fail_under` fails, and the exit code follows
  the severities (1 when a MUST check failed, else 0 with warnings);
* every MUST and SHOULD check names at least one fault that proves it, and every fault
  proves at least one check (no unproven checks, no idle faults).

Each run is a real `conformance run` in a subprocess, read back from its summary.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.checks.registry import Severity, registered_checks
from conformance.mocks.faults import Fault, catalogue, expected_failures
from conformance.profiles import REPO_ROOT

ADDRESS_FAULTS = catalogue("address")
FUZZ_EXAMPLES = "8"


def conformance_run(report_dir: Path, *faults: str, marker: str | None, examples: str = FUZZ_EXAMPLES) -> tuple[int, dict[str, Any]]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
           "--report-dir", str(report_dir), "--max-examples", examples, "--seed", "20261121"]
    for name in faults:
        cmd += ["--mock-fault", name]
    cmd += ["--", "-q"] + (["-m", marker] if marker else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary_path = report_dir / "summary.json"
    assert summary_path.is_file(), f"no summary.json; exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.returncode, json.loads(summary_path.read_text())


def failed_checks(summary: dict[str, Any]) -> dict[str, str]:
    return {e["check"]: e["reason"] for e in summary["checks"] if e["outcome"] in ("failed", "error")}


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any]]:
    return conformance_run(tmp_path_factory.mktemp("clean"), marker=None)


def test_clean_mock_passes_every_check(clean_run: tuple[int, dict[str, Any]]) -> None:
    code, summary = clean_run
    assert failed_checks(summary) == {}
    assert code == 0
    executed = {e["check"] for e in summary["checks"] if e["outcome"] != "skipped"}
    declared = {c.id for c in registered_checks("address")}
    assert declared - executed == set(), "checks declared but never executed against the mock"
    observations = [e for e in summary["checks"] if e["severity"] == "observation"]
    assert observations and all(e["outcome"] == "observation" and e["value"] is not None for e in observations)


@pytest.mark.parametrize("fault", ADDRESS_FAULTS, ids=lambda f: f.name)
def test_fault_trips_its_checks_and_only_plausible_ones(fault: Fault, tmp_path: Path) -> None:
    must, may = expected_failures(fault)
    # Fuzzing is slow: it runs only under the faults that prove a contract check.
    proves_contract = any(c.startswith("address.contract.") for c in must)
    code, summary = conformance_run(tmp_path, fault.name, marker=None if proves_contract else "not fuzz")
    ran = {e["check"] for e in summary["checks"] if e["outcome"] != "skipped"}
    failed = failed_checks(summary)
    expected = must & ran
    assert expected, f"{fault.name}: none of its checks ran ({sorted(must)})"
    missed = expected - set(failed)
    assert not missed, f"{fault.name} was not caught by {sorted(missed)}"
    unexpected = {c: r for c, r in failed.items() if c not in must | may}
    assert not unexpected, f"{fault.name} also failed unrelated checks: {unexpected}"
    severities = {e["check"]: e["severity"] for e in summary["checks"]}
    must_failed = any(severities[c] == "MUST" for c in failed)
    assert code == (1 if must_failed else 0)


def test_every_check_is_proven_by_a_fault() -> None:
    known = {f.name for f in catalogue()}
    for check in registered_checks("address"):
        if check.severity is Severity.OBSERVATION:
            continue
        assert check.proven_by, f"{check.id} names no fault that proves it"
        unknown = set(check.proven_by) | set(check.may_fail_under)
        assert unknown <= known, f"{check.id} names unknown faults {sorted(unknown - known)}"


def test_every_fault_proves_a_check() -> None:
    for fault in ADDRESS_FAULTS:
        must, _ = expected_failures(fault)
        assert must, f"{fault.name} proves no check"
