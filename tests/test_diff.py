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
