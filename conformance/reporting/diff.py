"""Run-to-run comparison of two summary.json files: what got worse, what got better.

Used to compare a release candidate's run with the last release's. Per test case (a check
id and its parameters), so a check that already failed in one case and now fails in
another too has regressed:

* regressed: passed or observed before, failed or broken now (any severity);
* newly failing: a MUST check failing now that was not failing before (new, or skipped);
* no longer judged: judged before (passed, failed, observed), not judged now (missing
  material, a spent budget, a safety switch): coverage lost, listed apart, no regression;
* fixed, new and removed checks, changed observation values, other outcome changes;
* waived: failing now, with a waiver accepting it ("failed, waived"), and not waived before
  (a waived case that fails again once its waiver expired is newly failing).

The header gives each run's MUST coverage.

Something regressed when either of the first two lists is non-empty: exit 1.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.errors import ConfigError
from conformance.reporting import coverage
from conformance.reporting.summary import RANK

_BAD = ("failed", "error")
_GOOD = ("passed", "observation")


@dataclass
class Change:
    check: str
    severity: str
    old: str  # outcome, or "absent"
    new: str
    note: str = ""  # the new failure's reason, or the old and new observed values


@dataclass
class RunDiff:
    regressed: list[Change] = field(default_factory=list)
    newly_failing: list[Change] = field(default_factory=list)
    fixed: list[Change] = field(default_factory=list)
    unjudged: list[Change] = field(default_factory=list)
    new: list[Change] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    observations: list[Change] = field(default_factory=list)
    waived: list[Change] = field(default_factory=list)
    other: list[Change] = field(default_factory=list)

    @property
    def has_regression(self) -> bool:
        return bool(self.regressed or self.newly_failing)


def load_run(path: Path) -> dict[str, Any]:
    """summary.json of a run directory (or the file itself); ConfigError (exit 2) otherwise."""
    file = path / "summary.json" if path.is_dir() else path
    if not file.is_file():
        raise ConfigError(f"{path}: no summary.json (expected a run directory under reports/)")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{file}: not a readable summary ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("checks"), list):
        raise ConfigError(f"{file}: not a conformance summary (no 'checks' list)")
    return data


def compare(old: dict[str, Any], new: dict[str, Any]) -> RunDiff:
    """Test case by test case (check id and its parameters): a check that already failed in
    one case and newly fails in another has regressed."""
    try:
        before, after = _cases(old["checks"]), _cases(new["checks"])
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"a summary entry lacks a field: {exc}") from None
    diff = RunDiff()
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        name = _label(key)
        if b is None:
            assert a is not None
            diff.removed.append(Change(name, a["severity"], a["outcome"], "absent"))
            continue
        old_outcome = a["outcome"] if a else "absent"
        change = Change(name, b["severity"], old_outcome, b["outcome"], b.get("reason") or "")
        if a is None:
            diff.new.append(change)
        if old_outcome in _GOOD and b["outcome"] in _BAD:
            diff.regressed.append(change)
        elif b["outcome"] in _BAD and old_outcome not in _BAD and b["severity"] == "MUST":
            diff.newly_failing.append(change)
        elif b["outcome"] == "waived" and old_outcome != "waived":
            diff.waived.append(change)
        elif old_outcome in (*_BAD, "waived") and b["outcome"] in _GOOD:
            diff.fixed.append(Change(name, b["severity"], old_outcome, b["outcome"]))
        elif old_outcome in (*_GOOD, "failed") and b["outcome"] == "not_judged":
            diff.unjudged.append(change)
        elif a is None:
            continue
        elif old_outcome == b["outcome"] == "observation" and _norm([a.get("value")]) != _norm([b.get("value")]):
            diff.observations.append(Change(name, b["severity"], "observation", "observation",
                                            f"{_short([a.get('value')])} -> {_short([b.get('value')])}"))
        elif old_outcome != b["outcome"]:
            diff.other.append(change)
    return diff


def _cases(entries: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """(check id, test case) -> its entry; a case reported twice keeps its worst outcome."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for e in entries:
        key = (e["check"], e.get("test") or e["check"])
        if key not in out or RANK.get(e["outcome"], 0) > RANK.get(out[key]["outcome"], 0):
            out[key] = e
    return out


def _label(key: tuple[str, str]) -> str:
    """The check id, with the test case's parameters when it has any ("check [param]")."""
    check, test = key
    params = test[test.index("["):] if "[" in test and test.endswith("]") else ""
    return f"{check} {params}" if params else check


def _norm(values: list[Any]) -> str:
    return json.dumps(values, sort_keys=True, default=str)


def _short(values: list[Any], limit: int = 80) -> str:
    return _clip(json.dumps(values[0] if len(values) == 1 else values, default=str, ensure_ascii=False), limit)


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render(diff: RunDiff, old: dict[str, Any], new: dict[str, Any], old_name: str, new_name: str) -> list[str]:
    """Plain aligned text: readable in a terminal and in a CI log alike."""
    lines = [f"old: {old_name}  (profile {old.get('profile')}, started {old.get('started')}; "
             f"{coverage.of_summary(old)['line']})",
             f"new: {new_name}  (profile {new.get('profile')}, started {new.get('started')}; "
             f"{coverage.of_summary(new)['line']})"]
    sections = (
        ("REGRESSED (pass -> fail)", diff.regressed), ("NEWLY FAILING MUST checks", diff.newly_failing),
        ("FIXED (fail -> pass)", diff.fixed), ("NO LONGER JUDGED (judged -> not judged)", diff.unjudged),
        ("NEW checks", diff.new), ("REMOVED checks", diff.removed),
        ("CHANGED observations", diff.observations), ("WAIVED (failed, waived: accepted deviations)", diff.waived),
        ("OTHER outcome changes", diff.other),
    )
    for title, changes in sections:
        lines.append(f"{title}: {len(changes)}")
        width = max((len(c.check) for c in changes), default=0)
        for c in changes:
            note = f"  {_clip(c.note)}" if c.note else ""
            lines.append(f"  {c.severity:<11} {c.check:<{width}}  {c.old} -> {c.new}{note}")
    verdict = "REGRESSION (exit 1)" if diff.has_regression else "no regression (exit 0)"
    lines.append(f"verdict: {verdict}")
    return lines
