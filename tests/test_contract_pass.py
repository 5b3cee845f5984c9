"""One fuzzing pass per address operation (conformance/checks/address/contract_pass.py).

The SHOULD rules and the public-behaviour constraints of an operation pass on its contract
test's pass only when that pass was complete and they found nothing in it; a finding of
theirs is reported by their own test, which fuzzes on its own. Real `conformance run`s of
one operation's three fuzzing tests against the local mock, and the ledger's parts.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import forked_cli

from conformance.checks.address.contract_pass import PUBLIC_BEHAVIOUR, SHOULD_RULES, ContractPass, Ledger
from conformance.paths import CHECKOUT as REPO_ROOT

OPERATION = "bevraagAdressen"
THREE = f"test_{OPERATION} or test_should_rules_{OPERATION} or test_public_behaviour_{OPERATION}"


def run(report_dir: Path, select: str, *faults: str) -> tuple[dict[str, Any], int]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
           "--report-dir", str(report_dir), "--max-examples", "6", "--seed", "5"]
    for fault in faults:
        cmd += ["--mock-fault", fault]
    proc = forked_cli.run([*cmd, "--", "-q", "-k", f"({select}) and not MetNumId and not Lvc"], capture_output=True,
                          text=True, timeout=600, cwd=REPO_ROOT, env={**os.environ, "PYTHONHASHSEED": "0"})
    assert (report_dir / "summary.json").is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    sent = len(json.loads((report_dir / "traffic.har").read_text())["log"]["entries"])
    return json.loads((report_dir / "summary.json").read_text()), sent


def outcomes(summary: dict[str, Any]) -> dict[str, str]:
    return {entry["check"]: entry["outcome"] for entry in summary["checks"]}


def test_the_other_groups_pass_on_a_clean_contract_pass_without_sending(tmp_path: Path) -> None:
    alone, sent_alone = run(tmp_path / "contract", f"test_{OPERATION}")
    together, sent_together = run(tmp_path / "three", THREE)
    _, sent_groups = run(tmp_path / "groups", f"test_should_rules_{OPERATION} or test_public_behaviour_{OPERATION}")
    assert outcomes(alone) == {f"address.contract.{OPERATION}": "passed"}
    assert outcomes(together) == {f"address.contract.{OPERATION}": "passed", SHOULD_RULES: "passed",
                                  PUBLIC_BEHAVIOUR: "passed"}
    # the groups judged the contract test's answers: not one request more than it sends alone
    assert sent_together == sent_alone, (sent_together, sent_alone)
    assert sent_groups > 0  # without the contract test they fuzz on their own


def test_a_finding_of_a_group_is_reported_by_its_own_test(tmp_path: Path) -> None:
    # The fault breaks the self links the SHOULD rules judge (and, collaterally, the contract).
    summary, _ = run(tmp_path, THREE, "address.self_link_drops_query")
    assert outcomes(summary)[SHOULD_RULES] == "failed", summary["checks"]
    failed = next(e for e in summary["checks"] if e["check"] == SHOULD_RULES)
    assert failed["test"].endswith(f"test_should_rules_{OPERATION}") and "self" in failed["reason"], failed


class _Case:
    """A case whose validation fails for the checks named in `failing`."""

    def __init__(self, failing: set[str]) -> None:
        self.failing = failing

    def validate_response(self, response: Any, checks: list[Any], **_: Any) -> None:
        if any(check in self.failing for check in checks):
            raise AssertionError("found")


def test_a_group_that_finds_something_is_never_noted_clean() -> None:
    judged = ContractPass("zoek", {SHOULD_RULES: ["hal"], PUBLIC_BEHAVIOUR: ["pattern"]})
    assert judged.clean_groups() == []  # nothing judged: nothing clean
    judged.judge(_Case(set()), None)
    judged.judge(_Case({"pattern"}), None)
    judged.judge(_Case(set()), None)
    assert judged.clean_groups() == [SHOULD_RULES]


def test_a_group_waits_for_the_contract_test_running_in_another_process(tmp_path: Path) -> None:
    contract, group = Ledger(tmp_path), Ledger(tmp_path)  # two processes' ledgers of one run
    answers: list[bool] = []
    with contract.running("zoek"):
        waiter = threading.Thread(target=lambda: answers.append(group.judged_clean("zoek", SHOULD_RULES)))
        waiter.start()
        waiter.join(0.5)
        assert waiter.is_alive()  # held by the running contract test
        contract.note_clean("zoek", [SHOULD_RULES])
    waiter.join(10)
    assert answers == [True]
    assert not group.judged_clean("zoek", PUBLIC_BEHAVIOUR)
    assert not Ledger(None).judged_clean("zoek", SHOULD_RULES)  # no shared directory: this process only
