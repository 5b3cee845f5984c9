"""One rule, every exchange: a rule one exchange can show broken judges every exchange of an
active run (suites/passive, run last: conformance/last_tests.py), so `conformance run` finds
what `conformance traffic` finds on the same traffic -- here a problem instance that is no URI
reference only in answers to requests that held an escape (the mock fault
address.problem_instance_decoded): the rule's own scenario with an escape fails, its others
pass, and the answers of the run's fuzzing fail it too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import forked_cli

from conformance.paths import CHECKOUT

RULE = "address.errors.problem_uri_references"
# The rule's own scenario and one operation's contract fuzzing, whose generated requests hold escapes.
SELECTION = ["--check", RULE, "--check", "address.contract.bevragenAdresseerbaarObject", "--max-examples", "10"]


def _run(report: Path, *faults: str) -> tuple[int, dict]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
           "--report-dir", str(report), *SELECTION]
    for fault in faults:
        cmd += ["--mock-fault", fault]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=CHECKOUT)
    assert (report / "summary.json").is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.returncode, json.loads((report / "summary.json").read_text())


def _cases(summary: dict, check: str) -> dict[str, str]:
    return {e["test"].split("::")[-1]: e["outcome"] for e in summary["checks"] if e["check"] == check}


def test_a_rule_broken_in_some_answers_fails_in_the_run_as_in_its_traffic(tmp_path: Path):
    code, summary = _run(tmp_path / "run", "address.problem_instance_decoded")
    cases = _cases(summary, RULE)
    every_exchange = "test_address_errors_problem_uri_references"
    # Its own requests without an escape pass; the one with an escape and the run's other answers do not.
    assert {case: outcome for case, outcome in cases.items() if case != every_exchange} == {
        f"{every_exchange}[400-malformed-value]": "passed",
        f"{every_exchange}[404-unknown-id]": "passed",
        f"{every_exchange}[400-escaped-value]": "failed"}
    assert cases[every_exchange] == "failed" and code == 1
    reason = next(e["reason"] for e in summary["checks"] if e["test"].endswith(every_exchange))
    assert "are not" in reason and "%" in reason  # the offending answers, to requests that held an escape
    # The same traffic judged as a capture: the same verdict on the rule.
    traffic = tmp_path / "traffic"
    forked_cli.run([sys.executable, "-m", "conformance.cli", "traffic", str(tmp_path / "run" / "traffic.har"),
                    "--profile", "local-mock", "--report-dir", str(traffic), "--no-html"],
                   capture_output=True, text=True, timeout=300, cwd=CHECKOUT)
    judged = json.loads((traffic / "summary.json").read_text())
    assert {e["outcome"] for e in judged["checks"] if e["check"] == RULE} == {"failed"}


def test_the_rule_passes_every_exchange_of_a_conforming_run(tmp_path: Path) -> None:
    code, summary = _run(tmp_path / "run")
    cases = _cases(summary, RULE)
    assert code == 0 and set(cases.values()) == {"passed"} and "test_address_errors_problem_uri_references" in cases
