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


def _tree(root: Path) -> Path:
    for name in ("conformance/cli.py", "suites/address/test_contract.py", "profiles/local-mock.toml",
                 "tests/interop/prism_peer.py", "tests/interop/expected/prism-address.toml", "tests/interop/record.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    return root


def test_a_kept_recording_is_reused_only_while_nothing_it_depends_on_changed(tmp_path: Path) -> None:
    """The rerun that gives a --why reuses the recording it was asked after; a change to the
    harness, a suite, a profile or the peer's files records anew, a new table does not."""
    root = _tree(tmp_path / "tree")
    before = record_module.fingerprint(root)
    kept = tmp_path / "kept.json"
    record_module.keep_recording({"fingerprint": before, "peer": {}, "full": {}, "contract": {}}, kept)
    assert record_module.kept_recording(before, kept) is not None
    (root / "tests/interop/expected/prism-address.toml").write_text("the table it wrote")
    (root / "tests/interop/record.py").write_text("this script, edited")
    (root / "conformance/__pycache__").mkdir()
    (root / "conformance/__pycache__/cli.cpython-311.pyc").write_bytes(b"\0")
    assert record_module.fingerprint(root) == before
    for number, name in enumerate(("conformance/cli.py", "suites/address/test_contract.py", "profiles/local-mock.toml",
                                   "tests/interop/prism_peer.py")):
        changed = _tree(tmp_path / f"changed-{number}")
        (changed / name).write_text("edited")
        assert record_module.fingerprint(changed) != before, name
        assert record_module.kept_recording(record_module.fingerprint(changed), kept) is None, name
    kept.write_text("{not json")
    assert record_module.kept_recording(before, kept) is None
