"""How the project's own tests are dealt over xdist's workers (tests/conftest.py says why)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any


def share_sizes(count: int, workers: int) -> list[int]:
    """The shares xdist's work stealing first hands out: the pending items split evenly over
    the idle workers, in order (WorkStealingScheduling.check_schedule)."""
    sizes = []
    for k in range(workers):
        sizes.append(count // (workers - k))
        count -= sizes[-1]
    return sizes


def dealt(items: list[Any], workers: int, heavy: Callable[[Any], Hashable | None] = lambda _: None) -> list[Any]:
    """`items` (the heavy ones first) in the order that gives each worker's first share its
    part of the heavy ones first. `heavy(item)` is None for a light item, else the unit it is
    dealt in: items of one unit go to one share together (a module whose fixture is costly:
    split, each worker would build it again). Heavy units go round-robin to the shares with
    room; light items then fill the shares in order, each share a contiguous run of them (a
    module's tests stay together, and its module-scoped fixtures are built once)."""
    sizes = share_sizes(len(items), workers)
    shares: list[list[Any]] = [[] for _ in range(workers)]
    units: dict[Hashable, list[Any]] = {}
    light = []
    for item in items:
        unit = heavy(item)
        if unit is None:
            light.append(item)
        else:
            units.setdefault(unit, []).append(item)
    turn = 0
    for unit_items in units.values():
        for _ in range(workers):  # the next share in turn with room for the whole unit, else the emptiest
            if len(shares[turn % workers]) + len(unit_items) <= sizes[turn % workers]:
                break
            turn += 1
        else:
            turn = min(range(workers), key=lambda k: len(shares[k]) - sizes[k])
        shares[turn % workers].extend(unit_items)
        turn += 1
    rest = iter(light)
    for k in range(workers):
        while len(shares[k]) < sizes[k]:
            item = next(rest, None)
            if item is None:
                break
            shares[k].append(item)
    return [item for share in shares for item in share] + list(rest)
