"""Contract fuzzing's phases (`conformance run --fuzz-phases`, the profile's `[fuzz] phases`,
docs/cli.md): the run sends only what the phases named generate, a check whose phases are
all left out is not judged (never passed or skipped), the console and summary.json say what
was left out, and a phase name the run does not know is exit 2 before anything is sent.

Real `conformance run`s of one operation's contract test against the local mock."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import forked_cli

from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.paths import SHIPPED_PROFILES

ONE_OPERATION = "test_bevraagAdressen and not MetNumId and not Lvc"


def run(report_dir: Path, *options: str, select: str = ONE_OPERATION) -> tuple[int, str, dict[str, Any] | None, int]:
    """Exit code, console, summary.json (None if none was written) and requests sent."""
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
           "--report-dir", str(report_dir), "--max-examples", "3", "--seed", "5", *options, "--", "-q", "-k", select]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary = report_dir / "summary.json"
    har = report_dir / "traffic.har"
    sent = len(json.loads(har.read_text())["log"]["entries"]) if har.is_file() else 0
    return proc.returncode, proc.stdout + proc.stderr, json.loads(summary.read_text()) if summary.is_file() else None, sent


def outcomes(summary: dict[str, Any]) -> dict[str, str]:
    return {entry["check"]: entry["outcome"] for entry in summary["checks"]}


def test_leaving_out_the_coverage_phase_sends_fewer_requests_and_says_so(tmp_path: Path) -> None:
    code_all, console_all, every, sent_all = run(tmp_path / "all")
    code, console, fewer, sent = run(tmp_path / "fewer", "--fuzz-phases", "fuzzing,examples")
    assert code_all == code == 0, console_all[-2000:] + console[-2000:]
    assert outcomes(every) == outcomes(fewer) == {"address.contract.bevraagAdressen": "passed"}
    assert every["fuzzing"] == {"max_examples": 3, "phases": ["examples", "coverage", "fuzzing", "stateful"],
                                "left_out": []}
    assert fewer["fuzzing"] == {"max_examples": 3, "phases": ["examples", "fuzzing"],  # in the order they run
                                "left_out": ["coverage", "stateful"]}
    assert "contract fuzzing without its coverage, stateful phases" in fewer["verdict_line"]
    assert "contract fuzzing without" not in every["verdict_line"]
    # the coverage cases (each parameter's boundary and invalid values) were most of the requests
    assert 0 < sent < sent_all / 3, (sent, sent_all)
    assert "coverage, stateful left out" in console and "left out" not in console_all


def test_a_check_whose_phases_are_all_left_out_is_not_judged(tmp_path: Path) -> None:
    select = "test_bevraagAdressen and not MetNumId and not Lvc or test_stateful_links"
    code, console, summary, _ = run(tmp_path / "examples", "--fuzz-phases", "examples", select=select)
    assert summary is not None, console[-3000:]
    entries = {e["check"]: e for e in summary["checks"]}
    for check in ("address.contract.bevraagAdressen", "address.contract.stateful_links"):
        assert entries[check]["outcome"] == "not_judged", entries[check]
        assert "fuzzing phases left out" in entries[check]["reason"], entries[check]
    assert code == 4  # nothing judged: could not judge


def test_an_unknown_phase_is_exit_2_before_anything_is_sent(tmp_path: Path) -> None:
    code, console, summary, sent = run(tmp_path / "cli", "--fuzz-phases", "coverage,shrinking")
    assert code == 2 and "--fuzz-phases 'coverage,shrinking': unknown phase 'shrinking'" in console, console[-2000:]
    assert "Traceback" not in console and sent == 0
    written = (SHIPPED_PROFILES / "local-mock.toml").read_text().replace(
        "[fuzz]\n", '[fuzz]\nphases = ["coverage", "shrinking"]\n', 1)
    profile = tmp_path / "phases.toml"
    profile.write_text(written)
    code, console, _, sent = run(tmp_path / "profile", "--profile", str(profile))
    assert code == 2 and "fuzz.phases" in console and "Traceback" not in console and sent == 0, console[-2000:]
