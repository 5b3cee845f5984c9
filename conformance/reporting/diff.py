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

The header gives each run's MUST coverage, and how each run fuzzed: its seed and how it was
chosen, the saved failing examples of earlier runs it replayed first, and the phases it left
out (summary.json `seed_source`, `replay`, `fuzzing`). When the seeds, the example budgets or
the phases differ, or either run replayed saved findings, the generated-request checks of the
two runs were not asked the same questions: the REGRESSED,
NEWLY FAILING and FIXED sections say so, and each of their lines whose test replayed saved
findings says how many.

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
    test: str = ""  # the test case (its node id), for what summary.json says of it (replayed findings)


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
        change = Change(name, b["severity"], old_outcome, b["outcome"], b.get("reason") or "", key[1])
        if a is None:
            diff.new.append(change)
        if old_outcome in _GOOD and b["outcome"] in _BAD:
            diff.regressed.append(change)
        elif b["outcome"] in _BAD and old_outcome not in _BAD and b["severity"] == "MUST":
            diff.newly_failing.append(change)
        elif b["outcome"] == "waived" and old_outcome != "waived":
            diff.waived.append(change)
        elif old_outcome in (*_BAD, "waived") and b["outcome"] in _GOOD:
            diff.fixed.append(Change(name, b["severity"], old_outcome, b["outcome"], test=key[1]))
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


_SEED_SOURCE = {"derived": "derived from the profile's name and targets", "profile": "the profile's [fuzz] seed",
                "--seed": "given with --seed", "random": "drawn at random"}


def fuzzing(summary: dict[str, Any]) -> str:
    """How a run fuzzed, for the header: "seed 123 (derived ...); replayed 2 saved failing examples"."""
    seed = summary.get("seed")
    if seed is None:
        return "no fuzzing seed (judged recorded traffic)" if summary.get("traffic") else "no fuzzing seed recorded"
    source = _SEED_SOURCE.get(str(summary.get("seed_source")), "how it was chosen not recorded")
    replayed = _replayed(summary)
    left_out = _fuzzed(summary)[2] if _fuzzed(summary) else ()
    return f"seed {seed} ({source}); " + (f"replayed {replayed} saved failing example(s) of earlier runs first"
                                          if replayed else "replayed no saved failing example") \
        + (f"; without the {', '.join(left_out)} phase{'s' if len(left_out) > 1 else ''}" if left_out else "")


def _fuzzed(summary: dict[str, Any]) -> tuple[Any, tuple[str, ...], tuple[str, ...]] | None:
    """(max_examples, phases, phases left out) as summary.json's `fuzzing` records them."""
    fuzzed = summary.get("fuzzing")
    if not isinstance(fuzzed, dict):
        return None
    return fuzzed.get("max_examples"), tuple(map(str, fuzzed.get("phases") or ())), \
        tuple(map(str, fuzzed.get("left_out") or ()))


def _budget_words(fuzzed: tuple[Any, tuple[str, ...], tuple[str, ...]]) -> str:
    return f"{fuzzed[0]} examples per operation, phases {', '.join(fuzzed[1]) or 'none'}"


def _replayed(summary: dict[str, Any]) -> int:
    replay = summary.get("replay")
    return int(replay.get("replayed") or 0) if isinstance(replay, dict) else 0


def _replayed_by(summary: dict[str, Any]) -> dict[str, int]:
    replay = summary.get("replay")
    by_test = replay.get("by_test") if isinstance(replay, dict) else None
    return {str(k): int(v) for k, v in by_test.items()} if isinstance(by_test, dict) else {}


def fuzzing_caveat(old: dict[str, Any], new: dict[str, Any]) -> str:
    """Why a generated-request check may differ between the runs for no change of the server:
    other seeds, or saved failing examples one of them replayed first. "" when neither."""
    parts = []
    if old.get("seed") is not None and new.get("seed") is not None and old.get("seed") != new.get("seed"):
        parts.append(f"the runs fuzzed with different seeds ({old.get('seed')} -> {new.get('seed')})")
    before, after = _fuzzed(old), _fuzzed(new)
    if before and after and before[:2] != after[:2]:
        parts.append(f"the runs fuzzed with different budgets ({_budget_words(before)} -> {_budget_words(after)})")
    replayed = [f"the {name} run replayed {n} saved failing example(s) first"
                for name, n in (("old", _replayed(old)), ("new", _replayed(new))) if n]
    parts += replayed
    if not parts:
        return ""
    return ("note: " + " and ".join(parts) + ": a check of generated requests (contract fuzzing) may pass in one "
            "run and fail in the other without the server changing; replay one run's seed with `conformance run "
            "--seed N` to compare like with like")


def render(diff: RunDiff, old: dict[str, Any], new: dict[str, Any], old_name: str, new_name: str) -> list[str]:
    """Plain aligned text: readable in a terminal and in a CI log alike."""
    lines = [f"old: {old_name}  (profile {old.get('profile')}, started {old.get('started')}; "
             f"{coverage.of_summary(old)['line']}; {fuzzing(old)})",
             f"new: {new_name}  (profile {new.get('profile')}, started {new.get('started')}; "
             f"{coverage.of_summary(new)['line']}; {fuzzing(new)})"]
    caveat = fuzzing_caveat(old, new)
    replayed = {"old": _replayed_by(old), "new": _replayed_by(new)}
    sections = (
        ("REGRESSED (pass -> fail)", diff.regressed), ("NEWLY FAILING MUST checks", diff.newly_failing),
        ("FIXED (fail -> pass)", diff.fixed), ("NO LONGER JUDGED (judged -> not judged)", diff.unjudged),
        ("NEW checks", diff.new), ("REMOVED checks", diff.removed),
        ("CHANGED observations", diff.observations), ("WAIVED (failed, waived: accepted deviations)", diff.waived),
        ("OTHER outcome changes", diff.other),
    )
    for title, changes in sections:
        lines.append(f"{title}: {len(changes)}")
        verdict_section = changes is diff.regressed or changes is diff.newly_failing or changes is diff.fixed
        if caveat and verdict_section and changes:
            lines.append(f"  {caveat}")
        width = max((len(c.check) for c in changes), default=0)
        for c in changes:
            note = f"  {_clip(c.note)}" if c.note else ""
            if verdict_section:
                note += _replay_note(c, replayed)
            lines.append(f"  {c.severity:<11} {c.check:<{width}}  {c.old} -> {c.new}{note}")
    verdict = "REGRESSION (exit 1)" if diff.has_regression else "no regression (exit 0)"
    lines.append(f"verdict: {verdict}")
    return lines


def _replay_note(change: Change, replayed: dict[str, dict[str, int]]) -> str:
    """" [the new run replayed 2 saved failing examples of this test first]", or ""."""
    said = [f"the {run} run replayed {n} saved failing example(s) of this test first"
            for run in ("old", "new") if (n := replayed[run].get(change.test, 0))]
    return f"  [{'; '.join(said)}]" if said else ""
