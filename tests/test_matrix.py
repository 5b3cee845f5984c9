"""The conformance matrix: one verdict per requirement, gaps and untested ones with reasons."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.reporting.matrix import (
    GAP_REASON,
    build_matrix,
    render_markdown,
    totals,
    write_matrix,
)
from conformance.requirements import Requirement


@dataclass
class FakeCheck:
    id: str
    severity: str
    suite: str


def req(rid: str, api: str = "address", source: str = "seed 000 part 4 (Endpoints)") -> Requirement:
    return Requirement(rid, api, source, "s", f"text of {rid}", "MUST")


def entry(check: str, reqs: list[str], severity: str, outcome: str, *, suite: str = "address",
          test: str | None = None, reason: str | None = None, value: Any = None) -> dict[str, Any]:
    return {"check": check, "requirements": reqs, "severity": severity, "suite": suite, "title": "t",
            "test": test or check, "outcome": outcome, "reason": reason, "value": value}


CATALOGUE = {r.id: r for r in [
    req("R-pass"), req("R-fail"), req("R-warn"), req("R-obs"), req("R-gap"), req("R-skip"),
    req("R-worst"), req("R-blocked"), req("R-deselected"), req("R-auth", "auth", "seed 001 part 2 (Resources and fields)"),
]}
CHECKS = {
    "R-pass": [FakeCheck("a.pass", "MUST", "address")],
    "R-fail": [FakeCheck("a.must_fails", "MUST", "address"), FakeCheck("a.should_fails", "SHOULD", "address")],
    "R-warn": [FakeCheck("a.should_fails", "SHOULD", "address"), FakeCheck("a.pass", "MUST", "address")],
    "R-obs": [FakeCheck("a.observe", "observation", "address")],
    "R-skip": [FakeCheck("a.fuzz", "MUST", "address")],
    "R-worst": [FakeCheck("a.param", "MUST", "address")],
    "R-blocked": [FakeCheck("a.blocked", "MUST", "address")],
    "R-deselected": [FakeCheck("a.not_selected", "MUST", "address")],
    "R-auth": [FakeCheck("auth.flow", "MUST", "auth")],
}
SUMMARY = {"profile": "production", "started": "2026-01-01T00:00:00+00:00", "checks": [
    entry("a.pass", ["R-pass", "R-warn"], "MUST", "passed"),
    entry("a.must_fails", ["R-fail"], "MUST", "failed", reason="expected 400, got 200"),
    entry("a.should_fails", ["R-fail", "R-warn"], "SHOULD", "failed", reason="no Pragma"),
    entry("a.observe", ["R-obs"], "observation", "observation", value="2.9.2"),
    entry("a.fuzz", ["R-skip"], "MUST", "skipped", reason="production profile forbids fuzzing"),
    entry("a.param", ["R-worst"], "MUST", "passed", test="a.param[1]"),
    entry("a.param", ["R-worst"], "MUST", "failed", test="a.param[2]", reason="ReadTimeout"),
    entry("a.blocked", ["R-blocked"], "MUST", "blocked", reason="control refused: GET /x -> 401"),
    entry("a.stray", ["R-uncatalogued"], "MUST", "passed"),
]}


def rows_by_id() -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in build_matrix(SUMMARY, CATALOGUE, CHECKS)}


def test_each_verdict_kind() -> None:
    rows = rows_by_id()
    verdicts = {rid: row["verdict"] for rid, row in rows.items()}
    assert verdicts == {
        "R-pass": "passed", "R-fail": "failed", "R-warn": "warning", "R-obs": "observed",
        "R-gap": "not tested", "R-skip": "not tested", "R-worst": "failed", "R-deselected": "not tested",
        "R-auth": "not tested", "R-uncatalogued": "passed", "R-blocked": "blocked",
    }
    assert rows["R-blocked"]["reason"] == "a.blocked blocked: control refused: GET /x -> 401"
    assert rows["R-fail"]["reason"] == "a.must_fails: expected 400, got 200"  # the MUST failure decides
    assert rows["R-warn"]["reason"] == "a.should_fails: no Pragma"
    assert rows["R-worst"]["reason"] == "a.param: ReadTimeout"  # the worst of a check's tests


def test_observed_values_are_kept() -> None:
    row = rows_by_id()["R-obs"]
    assert row["observed"] == {"a.observe": "2.9.2"} and row["reason"] is None


def test_not_tested_says_why() -> None:
    rows = rows_by_id()
    assert (rows["R-gap"]["reason"], rows["R-gap"]["gap"], rows["R-gap"]["checks"]) == (GAP_REASON, True, [])
    assert rows["R-skip"]["reason"] == "skipped: production profile forbids fuzzing"
    assert rows["R-auth"]["reason"] == "suite auth not run"
    assert rows["R-deselected"]["reason"] == "a.not_selected not run (deselected)"
    assert not rows["R-skip"]["gap"] and rows["R-skip"]["checks"][0]["outcome"] == "skipped"


def test_a_requirement_missing_from_the_catalogue_is_still_shown() -> None:
    row = rows_by_id()["R-uncatalogued"]
    assert row["source"] == "not in the catalogue" and row["checks"][0]["check"] == "a.stray"


def test_totals_count_verdicts_and_gaps_per_api() -> None:
    counts = totals(build_matrix(SUMMARY, CATALOGUE, CHECKS))
    assert counts["all"] == {"requirements": 11, "failed": 2, "failed in consequence": 0, "warning": 1, "blocked": 1,
                             "waived": 0, "not judged": 0, "passed": 2, "observed": 1, "not tested": 4, "gaps": 1}
    assert counts["auth"]["not tested"] == 1 and counts["auth"]["requirements"] == 1


def test_a_requirement_failed_only_through_another_rules_root_cause_is_failed_in_consequence() -> None:
    # Issue 51: a server without api-version fails the header rule and, through it, contract
    # fuzzing's checks of other requirements; only the header's requirement is broken.
    summary = {**SUMMARY, "checks": [*SUMMARY["checks"],
                                     entry("a.pipe", ["R-pass"], "MUST", "failed", reason="api-version header missing")],
               "root_causes": [{"cause": "api-version header missing", "words": "api-version header missing on 9 of 9 "
                                "answers", "checks": ["a.fail", "a.pipe"], "breaks": ["a.fail"],
                                "in_consequence": ["a.pipe"], "outcomes": ["failed"], "must": 2, "must_failed": 2,
                                "test_cases": ["a", "b"]}]}
    rows = {r["id"]: r for r in build_matrix(summary, CATALOGUE, CHECKS)}
    assert rows["R-pass"]["verdict"] == "failed in consequence"
    assert "in consequence of api-version header missing on 9 of 9 answers" in rows["R-pass"]["reason"]


def test_markdown_groups_by_api_and_source_with_totals_first() -> None:
    summary = {**SUMMARY, "checks": [*SUMMARY["checks"], entry("a.pipe", ["R-pass"], "observation",
                                                                 "observation", value="a|b")]}
    md = render_markdown(summary, build_matrix(summary, CATALOGUE, CHECKS))
    lines = md.splitlines()
    title = "## Address API (specification 000)"
    assert lines.index("| **all** | 11 | 2 | 0 | 1 | 1 | 0 | 0 | 2 | 1 | 4 | 1 |") < lines.index(title)
    assert lines.index(title) < lines.index("### seed 000 part 4 (Endpoints)")
    assert "## Authorization server (specification 001, part a)" in lines
    row = next(line for line in lines if line.startswith("| `R-pass`"))
    assert "a\\|b" in row and row.count(" | ") == 5  # a pipe in a value cannot break the table


def test_written_next_to_the_summary_with_the_real_catalogue(tmp_path: Path) -> None:
    summary = {"profile": "p", "started": "s", "checks": [
        entry("address.pagination.page_size_above_maximum_rejected", ["ADDR-8.pageSize", "ADDR-4.pageSize"],
              "MUST", "failed", reason="pageSize 101 answered 200"),
    ]}
    write_matrix(tmp_path, summary)
    data = json.loads((tmp_path / "matrix.json").read_text())
    rows = {r["id"]: r for r in data["requirements"]}
    assert rows["ADDR-8.pageSize"]["verdict"] == "failed"
    # administrative: no check can verify it; still a gap, with the catalogue's why
    assert rows["ADDR-5.3"]["gap"] and rows["ADDR-5.3"]["verdict"] == "not tested"
    assert rows["ADDR-5.3"]["reason"].startswith(GAP_REASON + ": not testable against a server (")
    assert rows["SOAP-4.binding"]["reason"] == "suite soap not run"
    assert data["totals"]["all"]["requirements"] == len(rows)
    md = (tmp_path / "matrix.md").read_text()
    assert "pageSize 101 answered 200" in md and "### RFC 6749 (OAuth 2.0)" in md
