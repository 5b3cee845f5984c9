"""tests/interop/record.py keeps a written reason for every outcome it records (issue 52): a
changed outcome -- a failure that turns into a pass included -- without a given reason is
named, never dropped or left as TODO."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("interop_record", Path(__file__).with_name("record.py"))
assert _SPEC is not None and _SPEC.loader is not None
record_module = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(record_module)


def _run(old, full, whys=None):
    return record_module.record(old, {c: {"outcome": o} for c, o in full.items()}, {}, whys or {})


def test_an_unchanged_outcome_keeps_its_reason_and_a_new_pass_needs_none() -> None:
    checks, unexplained = _run({"a": {"outcome": "failed", "why": "Prism answers 200"}}, {"a": "failed", "b": "passed"})
    assert checks["a"]["why"] == "Prism answers 200" and "why" not in checks["b"] and unexplained == []


def test_a_changed_or_new_non_pass_and_a_failure_turned_pass_need_a_given_reason() -> None:
    old = {"a": {"outcome": "failed", "why": "x"}, "b": {"outcome": "failed", "why": "y"}}
    _, unexplained = _run(old, {"a": "blocked", "b": "passed", "c": "not_judged"})
    assert unexplained == ["a", "b", "c"]
    checks, unexplained = _run(old, {"a": "blocked", "b": "passed", "c": "not_judged"},
                               {"a": "Prism renders {}", "b": "the harness reads sl-violations now", "c": "no sample"})
    assert unexplained == [] and checks["b"] == {"outcome": "passed", "why": "the harness reads sl-violations now"}


def test_a_todo_is_no_reason() -> None:
    _, unexplained = _run({"a": {"outcome": "failed", "why": "TODO"}}, {"a": "failed"})
    assert unexplained == ["a"]
