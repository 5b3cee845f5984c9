"""How the project's own tests are dealt over xdist's workers (tests/conftest.py says why)."""

from __future__ import annotations

from typing import Any


def dealt(items: list[Any], workers: int) -> list[Any]:
    """`items` dealt round-robin into the shares xdist's work stealing first hands out (the
    pending items split evenly over the idle workers, in order: share k has
    remaining // (workers - k) of them), each share keeping the order of `items`."""
    sizes = []
    remaining = len(items)
    for k in range(workers):
        sizes.append(remaining // (workers - k))
        remaining -= sizes[-1]
    shares: list[list[Any]] = [[] for _ in range(workers)]
    turn = 0
    for item in items:
        while len(shares[turn % workers]) >= sizes[turn % workers]:
            turn += 1
        shares[turn % workers].append(item)
        turn += 1
    return [item for share in shares for item in share]
