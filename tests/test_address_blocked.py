"""Meta-tests: a precondition that fails turns the address checks depending on it
`blocked` -- never passed, never failed -- with one cause per root cause.

* `address.time_travel_forbidden` answers every request carrying geldigOp or beschikbaarOp
  with 403, valid or not. A negative check that sent only the malformed date would see a
  4xx and pass; with the unchanged request as its control it sees that refused too, and
  is blocked.
* `address.identifiers_malformed` renders the sample objects with a wrong identifier: the
  checks whose own rule is that rendering fail, every check that merely starts from a
  sample is blocked under that sample's one cause.

Each run is a real `conformance run` in a subprocess, read back from its summary.json.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import forked_cli

from conformance.paths import CHECKOUT as REPO_ROOT

# The negative checks that change only a time-travel value (or add huidig=true to one).
TIME_TRAVEL_NEGATIVE = {
    "address.params.geldig_op_malformed_rejected",
    "address.params.beschikbaar_op_malformed_rejected",
    "address.params.huidig_with_time_travel_rejected",
}
# Test cases of other checks whose changed request carries a malformed date.
TIME_TRAVEL_CASES = {
    "test_malformed_input_is_client_error[date-day-out-of-range]",
    "test_empty_or_repeated_value_answered[date-empty]",
    "test_empty_or_repeated_value_refused[date-empty]",
    "test_malformed_input_is_client_error[timestamp-out-of-range]",
    "test_address_errors_problem_members[400-malformed-value]",
    "test_address_media_error_is_problem_json[400-malformed-value]",
}


def run(report_dir: Path, fault: str) -> tuple[int, dict[str, Any]]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
           "--report-dir", str(report_dir), "--mock-fault", fault, "--", "-q", "-m", "not fuzz"]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=900, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary = report_dir / "summary.json"
    assert summary.is_file(), f"no summary.json; exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.returncode, json.loads(summary.read_text())


def by_test(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["test"].rsplit("::", 1)[-1]: e for e in summary["checks"]}


def test_a_refused_control_blocks_the_negative_checks(tmp_path: Path) -> None:
    code, summary = run(tmp_path, "address.time_travel_forbidden")
    entries = by_test(summary)
    negative = {t: e for t, e in entries.items() if e["check"] in TIME_TRAVEL_NEGATIVE}
    assert len(negative) >= 12, sorted(negative)
    for test in [*negative, *TIME_TRAVEL_CASES]:
        entry = entries[test]
        assert entry["outcome"] == "blocked", (test, entry["outcome"], entry.get("reason"))
        assert entry["cause"].startswith("unchanged request GET /adresseerbareobjecten/"), entry["cause"]
        assert entry["cause"].endswith("-> 403 autorisation"), entry["cause"]
    # One refusal, one root cause, listing every check it blocked.
    causes = [r for r in summary["root_causes"] if r["cause"].startswith("unchanged request")]
    assert len(causes) == 1
    assert set(causes[0]["checks"]) >= TIME_TRAVEL_NEGATIVE
    # The checks that need no time travel still judge: a malformed huisnummer is refused.
    assert entries["test_malformed_input_is_client_error[huisnummer-huge]"]["outcome"] == "passed"
    # The positive time-travel check fails: a MUST failure decides the exit code.
    assert entries["test_beschikbaar_op_forms_accepted[full]"]["outcome"] == "failed"
    assert code == 1


def test_a_sample_rendered_wrongly_blocks_what_starts_from_it(tmp_path: Path) -> None:
    code, summary = run(tmp_path, "address.identifiers_malformed")
    entries = by_test(summary)
    # Own rule: the rendering of the sample itself.
    for test in ("test_adres_by_id", "test_object_by_id[verblijfsobject]"):
        assert entries[test]["outcome"] == "failed", (test, entries[test])
    # Merely starting from the sample: blocked, under the sample's one cause.
    started = {"test_by_postcode_huisnummer": "nummeraanduiding", "test_postcode_pattern_rejected[adressen-leading_zero]":
               "nummeraanduiding", "test_by_nummeraanduiding": "verblijfsobject",
               "test_by_adresseerbaar_object": "verblijfsobject"}
    for test, sample in started.items():
        entry = entries[test]
        assert entry["outcome"] == "blocked", (test, entry)
        assert entry["cause"].startswith(f"sample {sample} "), entry["cause"]
    samples = [r for r in summary["root_causes"] if r["cause"].startswith("sample ")]
    names = [r["cause"].split()[1] for r in samples]
    assert sorted(names) == sorted(set(names)), "one cause per sample"
    assert {"nummeraanduiding", "verblijfsobject"} <= set(names)
    assert all(r["outcomes"] == ["blocked"] for r in samples)
    assert code == 1
