"""One rule over every observed exchange it applies to."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from conformance.errors import NotJudged
from conformance.findings import Finding
from conformance.http.intent import NOTE
from conformance.passive.har import JUDGED_LIVE, NOT_KEPT

T = TypeVar("T")
SHOWN = 5  # offending exchanges named in a finding (all are attached as evidence)


def judge_each(items: Iterable[T], rule: Callable[[T], None], *, label: Callable[[T], str], what: str,
               evidence: Callable[[list[T]], object] = lambda _: None) -> int:
    """Apply `rule` to each item; a finding names how many of the observed items break it
    and the first few with what each broke. No item at all: the rule was not observed."""
    seen, broken = 0, []
    for item in items:
        seen += 1
        try:
            rule(item)
        except Finding as finding:
            broken.append((item, finding))
    if not seen:
        raise NotJudged(f"the traffic holds no {what}", "record traffic that has one")
    if broken:
        evidence([item for item, _ in broken])
        first = broken[0][1]
        lines = "; ".join(f"{label(item)}: {finding.message}" for item, finding in broken[:SHOWN])
        # One defect on many exchanges is one cause: what every broken one states alike.
        stated = {finding.cause or finding.message for _, finding in broken}
        raise Finding(f"{len(broken)} of {seen} observed {what} break the rule: {lines}",
                      expected=first.expected, actual=first.actual,
                      cause=stated.pop() if len(stated) == 1 else None)
    return seen


# A client's rules (client.*) judge what a client means to send. The harness's own requests
# designed to be refused, and its generated ones, break them on purpose: never a client failure.
_NOT_A_CLIENTS = frozenset({"refused", "fuzz"})


def _items(rule, selection) -> list:
    if not rule.check.startswith("client."):
        return selection.items
    return [item for item in selection.items if _intent(selection.exchange(item)) not in _NOT_A_CLIENTS]


def _intent(exchange) -> str | None:
    notes = getattr(exchange, "notes", None)
    return notes.get(NOTE) if isinstance(notes, dict) else None


def judge_rule(rule, traffic, context, *, evidence: Callable[[list], object] = lambda _: None) -> int:
    """A passive rule (conformance/passive/rules) over the traffic: the number of items it judged."""
    selection = rule.select(traffic, context)
    return judge_each(_items(rule, selection), _as_judged_whole(rule, selection), label=selection.label,
                      what=rule.what, evidence=lambda bad: evidence([selection.exchange(item) for item in bad]))


def _as_judged_whole(rule, selection) -> Callable[[object], None]:
    """The rule's apply, except on an exchange a capture kept without a body too large to keep
    (conformance/passive/har.py Capture): there the verdict the rule gave on the whole exchange
    as it passed stands (`conformance proxy` judged it live), not one on what is left of it."""
    def apply(item) -> None:
        notes = getattr(selection.exchange(item), "notes", None)
        judged = notes.get(JUDGED_LIVE) if isinstance(notes, dict) and notes.get(NOT_KEPT) else None
        if not isinstance(judged, dict) or rule.check not in judged:
            selection.apply(item)
        elif judged[rule.check] is not None:
            raise Finding(f"{judged[rule.check]} (judged as it passed; its body was not kept)")
    return apply


def verdicts(rule, traffic, context) -> tuple[int, list[tuple[str, Finding]]]:
    """How many items the rule judged, and (label, finding) of every one that breaks it: what
    `conformance proxy` prints live, and keeps for an exchange whose body it cannot keep."""
    selection = rule.select(traffic, context)
    items, out = _items(rule, selection), []
    for item in items:
        try:
            selection.apply(item)
        except Finding as finding:
            # Without its traceback: its frames hold the traffic, whose parsed bodies would
            # otherwise live on in a reference cycle until the collector finds it.
            out.append((selection.label(item), finding.with_traceback(None)))
    return len(items), out
