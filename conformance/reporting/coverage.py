"""Coverage: how many of the MUST checks a run selected it judged, and why it judged no more.

A verdict word alone can say "conforms" when most of the specification was never judged (a
production run out of budget, a profile without a restricted key). The coverage line says
what the word rests on: "on 186 of 204 MUST checks (18 not judged: no restricted key, no
clock hook)". Per check (its worst test case, as the matrix reads it):

* judged -- passed or failed (an observation too, should a MUST check record one);
* not judged -- the rule applies, the run lacked material, budget or time, or a safety
  switch forbade it; grouped by what was lacking (the `cause` of its entries);
* blocked -- a precondition on the server failed, or the check broke (exit 4 already);
* not applicable / skipped -- the rule does not apply here, or needs control of the local
  mock: outside the count.

Read from summary.json's check entries (dicts), so old summaries get a coverage too.

The run's counts speak of **checks** (console, report title, summary.json `check_counts`):
a check is one rule of the catalogue, run as one or more **test cases** (parameters,
operations, subtests); its outcome is its worst test case's, except that a test case that
failed makes the check failed -- a finding is a finding, whatever another case met
(`check_outcomes`). The verdict rests on the MUST checks. Test cases are named as such where
they are what is shown: Allure's totals, summary.json `counts`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from conformance.reporting.outcome_model import OUTCOMES, RANK

JUDGED = ("passed", "failed", "observation")
COULD_NOT = ("blocked", "error")
OUTSIDE = ("not_applicable", "skipped")
# Causes that mean the run's request budget or daily quota ran out (conformance/http/client.py).
BUDGET_CAUSES = ("request budget of", "daily quota reserve reached")
LISTED = 12  # reasons named in the line; summary.json keeps them all


def _rank(outcome: str) -> float:
    """RANK, but a failed test case before a broken one: the check failed (exit 1)."""
    return RANK["error"] + 1 if outcome == "failed" else RANK.get(outcome, 0)


def worst_per_check(entries: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """check id -> the entry that gives the check its outcome (outcome, cause, reason,
    severity): its worst test case, a failed one first."""
    out: dict[str, dict[str, Any]] = {}
    for e in entries:
        known = out.get(e["check"])
        if known is None or _rank(e["outcome"]) > _rank(known["outcome"]):
            out[e["check"]] = e
    return out


def check_outcomes(entries: Iterable[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """check id -> (severity, outcome) of the check."""
    return {cid: (str(e.get("severity")), str(e["outcome"])) for cid, e in worst_per_check(entries).items()}


def check_counts(entries: Iterable[dict[str, Any]]) -> dict[str, int]:
    """The run's checks by outcome, in the words of the console and the report title:
    `checks` and `test_cases` in all; one count per outcome; `warnings` (SHOULD checks
    failed); the verdict's basis: `must_failed` (MUST checks failed: exit 1) and
    `must_could_not_judge` (MUST checks blocked or broken, none of their cases failed: exit 4)."""
    listed = list(entries)
    by_check = check_outcomes(listed)
    counts = {"checks": len(by_check), "test_cases": len(listed), **{o: 0 for o in OUTCOMES}}
    for _, outcome in by_check.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    counts["warnings"] = sum(1 for sev, out in by_check.values() if sev == "SHOULD" and out == "failed")
    counts["must_failed"] = sum(1 for sev, out in by_check.values() if sev == "MUST" and out == "failed")
    counts["must_could_not_judge"] = sum(1 for sev, out in by_check.values() if sev == "MUST" and out in COULD_NOT)
    return counts


def coverage(entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The MUST checks selected (that apply), judged, not judged (with grouped reasons) and
    blocked; `not_judged` lists every check not judged, any severity, by reason."""
    checks = worst_per_check(entries)
    must = {cid: e for cid, e in checks.items() if e.get("severity") == "MUST"}
    counted = {cid: e for cid, e in must.items() if e["outcome"] not in OUTSIDE}
    groups: dict[str, dict[str, Any]] = {}
    for cid, e in sorted(checks.items()):
        if e["outcome"] != "not_judged":
            continue
        reason = str(e.get("cause") or e.get("reason") or "not judged")
        group = groups.setdefault(reason, {"reason": reason, "checks": [], "must": 0})
        group["checks"].append(cid)
        group["must"] += e.get("severity") == "MUST"
    ordered = sorted(groups.values(), key=lambda g: (-g["must"], -len(g["checks"]), g["reason"]))
    result = {
        "must_selected": len(counted),
        "must_judged": sum(1 for e in counted.values() if e["outcome"] in JUDGED),
        "must_not_judged": sum(1 for e in counted.values() if e["outcome"] == "not_judged"),
        "must_blocked": sum(1 for e in counted.values() if e["outcome"] in COULD_NOT),
        "must_not_applicable": sum(1 for e in must.values() if e["outcome"] in OUTSIDE),
        "not_judged": ordered,
        "budget_stop": next((g["reason"] for g in ordered if g["reason"].startswith(BUDGET_CAUSES)), None),
    }
    result["line"] = line(result)
    return result


def line(cov: dict[str, Any]) -> str:
    """"on 186 of 204 MUST checks (18 not judged: no restricted key, no clock hook)"."""
    text = f"on {cov['must_judged']} of {cov['must_selected']} MUST checks"
    parts = []
    if cov["must_blocked"]:
        parts.append(f"{cov['must_blocked']} blocked")
    if cov["must_not_judged"]:
        reasons = [g["reason"] for g in cov["not_judged"] if g["must"]]
        more = f", … ({len(reasons)} reasons)" if len(reasons) > LISTED else ""
        parts.append(f"{cov['must_not_judged']} not judged: " + ", ".join(reasons[:LISTED]) + more)
    return f"{text} ({'; '.join(parts)})" if parts else text


def of_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary.json's coverage: as written, or computed from its checks (an older run)."""
    written = summary.get("coverage")
    if isinstance(written, dict) and "line" in written:
        return written
    return coverage(e for e in summary.get("checks", []) if isinstance(e, dict) and "check" in e)
