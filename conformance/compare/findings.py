"""A comparison's outcomes for one operation, grouped into findings: per JSON path pattern
and kind of difference, with how many answers showed it and the first request as example."""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.compare.address import Comparison, Outcome

MAX_GROUPS_LISTED = 12


@dataclass
class Group:
    key: str  # "pattern: kind", "status 200 -> 404", "header api-version"
    outcomes: list[Outcome] = field(default_factory=list)
    example: str = ""

    def line(self, of: int) -> str:
        first = self.outcomes[0].request
        return f"{self.key} in {len(self.outcomes)} of {of} answers (e.g. {first.label} [{first.source}]: {self.example})"


def _grouped(items: list[tuple[str, Outcome, str]]) -> list[Group]:
    groups: dict[str, Group] = {}
    for key, outcome, example in items:
        group = groups.setdefault(key, Group(key, example=example))
        if outcome not in group.outcomes:
            group.outcomes.append(outcome)
    return sorted(groups.values(), key=lambda g: (-len(g.outcomes), g.key))


def status_groups(outcomes: list[Outcome]) -> list[Group]:
    items = []
    for o in outcomes:
        if o.status_differs:
            items.append((f"status {o.reference.status} -> {o.vendor.status}", o,
                          f"reference {o.reference.status}, vendor {o.vendor.status}"))
        elif o.media_differs:
            items.append((f"media type {o.reference.media_type or '-'} -> {o.vendor.media_type or '-'}", o,
                          f"reference {o.reference.media_type or '-'}, vendor {o.vendor.media_type or '-'}"))
    return _grouped(items)


def field_groups(comparison: Comparison, outcomes: list[Outcome], *, defined: bool) -> list[Group]:
    items = []
    for o in outcomes:
        for d in o.differences:
            if comparison.defined(o, d) is defined:
                items.append((f"{d.pattern or '(body)'}: {d.kind}", o, d.describe()))
    return _grouped(items)


def header_groups(outcomes: list[Outcome]) -> list[Group]:
    return _grouped([(f"header {name}", o, f"reference {ref!r}, vendor {ven!r}")
                     for o in outcomes for name, ref, ven in o.header_differences])


def differences_of(outcome: Outcome) -> list[str]:
    """Every difference left of one request, for its side-by-side evidence."""
    lines = [d.describe() for d in outcome.differences]
    lines += [f"header {name}: reference {ref!r}, vendor {ven!r}" for name, ref, ven in outcome.header_differences]
    if outcome.status_differs or outcome.media_differs:
        lines.insert(0, f"status/media type: reference {outcome.reference.status} {outcome.reference.media_type}, "
                        f"vendor {outcome.vendor.status} {outcome.vendor.media_type}")
    return lines


def message(what: str, groups: list[Group], of: int) -> str:
    listed = "; ".join(g.line(of) for g in groups[:MAX_GROUPS_LISTED])
    more = f"; and {len(groups) - MAX_GROUPS_LISTED} more" if len(groups) > MAX_GROUPS_LISTED else ""
    return f"{what}: {listed}{more}"
