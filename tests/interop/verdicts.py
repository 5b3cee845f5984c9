"""Expected-verdict tables of the interop tier, shared by every peer.

A table: [peer] name, version, suite, exit_code; [checks] check id -> {outcome, why (every
non-pass, one line, naming the peer's documented behaviour), and for observations the
observed value: `observed` as JSON text or `value` inline}. A check that several tests
report (parameters, subtests) has one row: its worst outcome, ranked as summary.json ranks
repeated reports. A `why` of TODO (a placeholder) or one that blames a "harness
limitation" makes the table unusable: a harness limitation is fixed, not recorded.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from conformance.reporting.outcome_model import OUTCOMES as _MODEL_OUTCOMES
from conformance.reporting.summary import RANK

# The outcome model's outcomes (conformance/reporting/outcome_model.py): not_judged and waived included.
OUTCOMES = frozenset(_MODEL_OUTCOMES)
TODO = "TODO"


def outcomes_by_check(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Check id -> the report of its worst outcome (a check can be reported by several tests)."""
    worst: dict[str, dict[str, Any]] = {}
    for entry in summary["checks"]:
        kept = worst.get(entry["check"])
        if kept is None or RANK[entry["outcome"]] > RANK[kept["outcome"]]:
            worst[entry["check"]] = entry
    return worst


def observed_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# ---------------------------------------------------------------- the expected-verdict table
def table_problems(table: dict[str, Any]) -> list[str]:
    """What makes the table unusable as a verdict: unknown outcomes, a non-pass without a
    one-line why, a TODO left by record.py, a harness limitation recorded as a reason."""
    problems = []
    for check, entry in table["checks"].items():
        if entry.get("outcome") not in OUTCOMES:
            problems.append(f"{check}: unknown outcome {entry.get('outcome')!r}")
        why = entry.get("why", "")
        if entry.get("outcome") != "passed" and (not why.strip() or "\n" in why):
            problems.append(f"{check}: a non-pass needs a one-line why")
        if why.strip() == TODO:
            problems.append(f"{check}: why is {TODO}: write which documented behaviour of the peer causes it")
        if "harness limitation" in why.lower():
            problems.append(f"{check}: a harness limitation is fixed, not recorded")
    return problems


def load_expected(path: Path) -> dict[str, Any]:
    """The table, refused when it is not a usable verdict (table_problems)."""
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    problems = table_problems(table)
    assert not problems, f"{path.name} is not a usable verdict table:\n  " + "\n  ".join(problems)
    return table


def differences(expected: dict[str, dict[str, Any]], actual: dict[str, dict[str, Any]],
                known: frozenset[str] = frozenset()) -> list[str]:
    """One line per check whose outcome (or observed value) differs from the table. `known`:
    the check ids the suite declares, so a check that neither ran nor is in the table shows."""
    lines = []
    for check in sorted(set(expected) | set(actual) | set(known)):
        want, got = expected.get(check), actual.get(check)
        if want is None:
            lines.append(f"{check}: not in the table; actual {got['outcome'] + _reason(got) if got else 'not run'}")
        elif got is None:
            lines.append(f"{check}: expected {want['outcome']}, actual: not run")
        elif got["outcome"] != want["outcome"]:
            lines.append(f"{check}: expected {want['outcome']}, actual {got['outcome']}{_reason(got)}"
                         f"{'; table: ' + want['why'] if want.get('why') else ''}")
        elif "observed" in want and observed_json(got.get("value")) != observed_json(json.loads(want["observed"])):
            lines.append(f"{check}: expected observed value {want['observed']}, actual {observed_json(got.get('value'))}")
        elif "value" in want and observed_json(got.get("value")) != observed_json(want["value"]):
            lines.append(f"{check}: expected observed value {observed_json(want['value'])}, "
                         f"actual {observed_json(got.get('value'))}")
    return lines


def _reason(result: dict[str, Any]) -> str:
    reason = (result.get("reason") or "").strip()
    return f" (run's reason: {reason.splitlines()[0][:400]})" if reason else ""
