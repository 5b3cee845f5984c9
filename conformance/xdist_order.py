"""The order a run's tests are handed to xdist workers in: the long ones spread over them.

pytest-xdist's `load` scheduling first hands each of the W workers a chunk of consecutive
items (max(2, N // W // 4) of the N collected), then refills whichever worker runs low.
In collection order the address suite's contract fuzzing (a few seconds per operation, a
quarter of a full local run's work) sits in one chunk: one worker fuzzed while the other
ran out of work and waited (benchmarks/address_run_time.py showed 3-4 s of a 12 s test
phase idle). Each slow item is moved to the head of one worker's first chunk in turn, so
the long work starts first and on every worker; what remains is balanced by the refills.

If xdist hands out other chunks than this, the order is still a valid order, only less
balanced; a serial run keeps its collection order.

A run with a request budget or a quota reserve first orders its items by severity
(`by_severity`: MUST, then SHOULD, then observations, each in collection order), so that
a budget that cannot fit everything is spent on MUST checks first; the slow items are then
spread as above (the two compose: spreading keeps the order of the items it does not move).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import TypeVar

T = TypeVar("T")


SEVERITY_ORDER = ("MUST", "SHOULD", "observation")


def by_severity(items: list[T], severity: Callable[[T], str | None]) -> list[T]:
    """`items` MUST first, then SHOULD, then observations (unknown last), each in its order."""
    def rank(item: T) -> int:
        value = severity(item)
        return SEVERITY_ORDER.index(value) if value in SEVERITY_ORDER else len(SEVERITY_ORDER)

    return sorted(items, key=rank)  # stable: collection order within a severity


def first_chunk_size(collected: int, workers: int, max_chunk: int | None = None) -> int:
    """The size of each worker's first chunk under xdist's `load` scheduling
    (`max_chunk`: its --maxschedchunk)."""
    return max(2, min(collected // workers // 4, max_chunk or collected))


def spread_slow_first(items: list[T], workers: int, slow: Callable[[T], bool], max_chunk: int | None = None) -> list[T]:
    """`items` with the slow ones at the heads of the workers' first chunks, in turn.

    With chunks of two (`max_chunk` 2: a run given `--maxschedchunk 2`, for many workers and
    few long tests) a worker's chunk holds one slow item; the
    others lead the refills of two, each beside a quick one, so they go one by one to the
    workers that run low first instead of queueing behind another slow item."""
    slow_items = [item for item in items if slow(item)]
    if workers < 2 or not slow_items or len(items) < 2 * workers:
        return list(items)
    chunk = first_chunk_size(len(items), workers, max_chunk)
    if chunk <= 2 and max_chunk:
        return _one_slow_per_refill(items, workers, slow_items, slow)
    rest = iter(item for item in items if not slow(item))
    placed: dict[int, T] = {}
    overflow: list[T] = []
    for index, item in enumerate(slow_items):
        worker, depth = index % workers, index // workers
        if depth < chunk:
            placed[worker * chunk + depth] = item
        else:
            overflow.append(item)  # more slow items than a chunk holds: they lead the refills
    ordered: list[T] = []
    for position in range(workers * chunk):
        if position in placed:
            ordered.append(placed[position])
        else:
            ordered.extend(islice(rest, 1))  # none left: the chunks are short, still in turn
    return ordered + overflow + list(rest)


def _one_slow_per_refill(items: list[T], workers: int, slow_items: list[T], slow: Callable[[T], bool]) -> list[T]:
    rest = [item for item in items if not slow(item)]
    ordered: list[T] = []
    for item in slow_items[:workers]:  # the first chunks: one slow, one quick
        ordered += [item, *rest[:1]]
        rest = rest[1:]
    for item in slow_items[workers:]:  # the refills: the same
        ordered += [item, *rest[:1]]
        rest = rest[1:]
    return ordered + rest
