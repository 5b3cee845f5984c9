"""`conformance diff OLD NEW`: exit 1 on a regression, 0 on an improvement, 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main


def entry(check: str, outcome: str, severity: str = "MUST", **kw: Any) -> dict[str, Any]:
    return {"check": check, "requirements": ["ADDR-4"], "severity": severity, "suite": "address",
            "title": "t", "test": kw.pop("test", check), "outcome": outcome, "reason": kw.pop("reason", None),
            "value": kw.pop("value", None)}


def run_dir(parent: Path, name: str, *entries: dict[str, Any]) -> str:
    folder = parent / name
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps(
        {"profile": "external-test", "started": "2026-01-01T00:00:00+00:00", "checks": list(entries)}))
    return str(folder)


def diff(capsys: pytest.CaptureFixture[str], old: str, new: str) -> tuple[int, list[str]]:
    code = main(["diff", old, new])
    return code, capsys.readouterr().out.splitlines()


def test_pass_to_fail_is_a_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = run_dir(tmp_path, "old", entry("a.page_size", "passed"), entry("a.warning", "passed", "SHOULD"))
    new = run_dir(tmp_path, "new", entry("a.page_size", "passed"),
                  entry("a.warning", "failed", "SHOULD", reason="no warning header"))
    code, out = diff(capsys, old, new)
    assert code == 1
    assert "REGRESSED (pass -> fail): 1" in out
    assert any(line.split()[:5] == ["SHOULD", "a.warning", "passed", "->", "failed"] and "no warning header" in line
               for line in out)
    assert out[-1] == "verdict: REGRESSION (exit 1)"


def test_a_must_check_newly_failing_is_a_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = run_dir(tmp_path, "old", entry("a.fuzz", "skipped", reason="forbidden"))
    new = run_dir(tmp_path, "new", entry("a.fuzz", "failed", reason="500"), entry("a.brand_new", "error"))
    code, out = diff(capsys, old, new)
    assert code == 1
    assert "NEWLY FAILING MUST checks: 2" in out and "NEW checks: 1" in out and "REGRESSED (pass -> fail): 0" in out


def test_improvements_and_changes_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = run_dir(tmp_path, "old",
                  entry("a.fixed", "failed", reason="was broken"),
                  entry("a.version", "observation", "observation", value="2.9.1"),
                  entry("a.gone", "passed"),
                  entry("a.param", "passed", test="p1"), entry("a.param", "failed", test="p2"))
    new = run_dir(tmp_path, "new",
                  entry("a.fixed", "passed"),
                  entry("a.version", "observation", "observation", value="2.9.2"),
                  entry("a.added", "passed"),
                  entry("a.param", "passed", test="p1"), entry("a.param", "passed", test="p2"),
                  entry("a.should", "failed", "SHOULD"))
    code, out = diff(capsys, old, new)
    assert code == 0, out
    assert {"FIXED (fail -> pass): 2", "NEW checks: 2", "REMOVED checks: 1", "CHANGED observations: 1"} <= set(out)
    assert any("a.version" in line and '"2.9.1" -> "2.9.2"' in line for line in out)
    assert any(line.split()[:2] == ["MUST", "a.gone"] for line in out)
    assert out[-1] == "verdict: no regression (exit 0)"  # a new SHOULD failure is listed, not a regression


def test_a_check_failing_in_one_more_case_is_a_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Per check, both runs read "failed": compared per test case, the second case regressed.
    old = run_dir(tmp_path, "old", entry("a.limit", "failed", test="t::limit[page]", reason="page 0 accepted"),
                  entry("a.limit", "passed", test="t::limit[pageSize]"))
    new = run_dir(tmp_path, "new", entry("a.limit", "failed", test="t::limit[page]", reason="page 0 accepted"),
                  entry("a.limit", "failed", test="t::limit[pageSize]", reason="pageSize 101 accepted"))
    code, out = diff(capsys, old, new)
    assert code == 1
    assert "REGRESSED (pass -> fail): 1" in out
    assert any("a.limit [pageSize]" in line and "pageSize 101 accepted" in line for line in out)


@pytest.mark.parametrize("bad", ["missing", "empty", "garbage", "not_a_summary"])
def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    good = run_dir(tmp_path, "good", entry("a", "passed"))
    folder = tmp_path / bad
    if bad != "missing":
        folder.mkdir()
    if bad == "garbage":
        (folder / "summary.json").write_text("{not json")
    if bad == "not_a_summary":
        (folder / "summary.json").write_text("[1, 2]")
    assert main(["diff", good, str(folder)]) == 2
    err = capsys.readouterr().err
    assert str(folder) in err and "Traceback" not in err


def fuzzed_run(parent: Path, name: str, seed: int, source: str, by_test: dict[str, int], *entries: dict[str, Any]) -> str:
    folder = Path(run_dir(parent, name, *entries))
    data = json.loads((folder / "summary.json").read_text())
    data.update(seed=seed, seed_source=source,
                replay={"database": "/cache/findings/x", "replayed": sum(by_test.values()), "by_test": by_test, "kept": 1})
    (folder / "summary.json").write_text(json.dumps(data))
    return str(folder)


def test_a_regression_between_runs_of_other_seeds_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 43: a fuzzing finding of one seed is no regression of the server by itself."""
    test_id = "suites/address/test_contract.py::test_zoek"
    old = fuzzed_run(tmp_path, "old", 11, "derived", {}, entry("address.contract.zoek", "passed", test=test_id))
    new = fuzzed_run(tmp_path, "new", 42, "random", {}, entry("address.contract.zoek", "failed", test=test_id,
                                                              reason="X-Pagination-Page disagrees"))
    code, out = diff(capsys, old, new)
    assert code == 1  # still a regression: the verdicts differ, and the diff says why they may
    assert "seed 11 (derived from the profile's name and targets)" in out[0]
    assert "seed 42 (drawn at random)" in out[1]
    at = out.index("REGRESSED (pass -> fail): 1")
    assert out[at + 1].startswith("  note: the runs fuzzed with different seeds (11 -> 42)")
    assert "address.contract.zoek" in out[at + 2]


def test_a_fix_found_by_a_replayed_finding_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    test_id = "suites/address/test_contract.py::test_stateful_links"
    old = fuzzed_run(tmp_path, "old", 7, "derived", {}, entry("address.contract.stateful_links", "passed", test=test_id))
    new = fuzzed_run(tmp_path, "new", 7, "derived", {test_id: 2},
                     entry("address.contract.stateful_links", "failed", test=test_id, reason="X-Pagination-Page"))
    code, out = diff(capsys, old, new)
    assert code == 1
    assert "replayed 2 saved failing example(s) of earlier runs first" in out[1]
    assert "replayed no saved failing example" in out[0]
    at = out.index("REGRESSED (pass -> fail): 1")
    assert "the new run replayed 2 saved failing example(s) first" in out[at + 1]
    assert "the runs fuzzed with different seeds" not in out[at + 1]  # the same seed
    assert out[at + 2].endswith("[the new run replayed 2 saved failing example(s) of this test first]")


def test_runs_of_one_seed_without_replay_carry_no_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = fuzzed_run(tmp_path, "old", 7, "profile", {}, entry("a.x", "passed"))
    new = fuzzed_run(tmp_path, "new", 7, "profile", {}, entry("a.x", "failed", reason="broke"))
    code, out = diff(capsys, old, new)
    assert code == 1 and not any("note:" in line for line in out)
    assert "seed 7 (the profile's [fuzz] seed); replayed no saved failing example" in out[0]


def test_runs_of_other_fuzzing_phases_or_budgets_say_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run without the coverage phase (--fuzz-phases) asked fewer questions than one with it."""
    runs = {}
    for name, phases, examples in (("old", ["examples", "coverage", "fuzzing", "stateful"], 25),
                                   ("new", ["examples", "fuzzing", "stateful"], 25)):
        folder = Path(fuzzed_run(tmp_path, name, 7, "derived", {}, entry("address.contract.zoek", "passed")))
        data = json.loads((folder / "summary.json").read_text())
        data["fuzzing"] = {"max_examples": examples, "phases": phases,
                           "left_out": [p for p in ("examples", "coverage", "fuzzing", "stateful") if p not in phases]}
        (folder / "summary.json").write_text(json.dumps(data))
        runs[name] = str(folder)
    (Path(runs["new"]) / "summary.json").write_text((Path(runs["new"]) / "summary.json").read_text().replace(
        '"outcome": "passed"', '"outcome": "failed"'))
    code, out = diff(capsys, runs["old"], runs["new"])
    assert code == 1
    assert out[1].endswith("; without the coverage phase)") and "without" not in out[0]
    at = out.index("REGRESSED (pass -> fail): 1")
    assert ("the runs fuzzed with different budgets (25 examples per operation, phases examples, coverage, "
            "fuzzing, stateful -> 25 examples per operation, phases examples, fuzzing, stateful)") in out[at + 1]
