"""The slow tests of a run lead the workers' first chunks (conformance/xdist_order.py)."""

from __future__ import annotations

from conformance.xdist_order import first_chunk_size, spread_slow_first


def _chunks(items: list[str], workers: int) -> list[list[str]]:
    """What xdist's `load` scheduling hands each worker first."""
    size = first_chunk_size(len(items), workers)
    return [items[w * size:(w + 1) * size] for w in range(workers)]


def test_slow_items_start_first_on_every_worker_in_turn() -> None:
    items = [f"t{i:03}" for i in range(200)]
    slow = {f"t{i:03}" for i in range(40, 50)}  # ten consecutive slow tests, as the contract tests are
    ordered = spread_slow_first(items, 2, lambda item: item in slow)
    assert sorted(ordered) == sorted(items), "a reorder, nothing lost or doubled"
    first, second = _chunks(ordered, 2)
    assert first[:5] == ["t040", "t042", "t044", "t046", "t048"]
    assert second[:5] == ["t041", "t043", "t045", "t047", "t049"]
    # The others keep their relative order.
    rest = [item for item in ordered if item not in slow]
    assert rest == [item for item in items if item not in slow]


def test_more_slow_items_than_a_chunk_holds_lead_the_refills() -> None:
    items = [f"t{i:02}" for i in range(16)]  # chunks of 2 for 2 workers
    slow = set(items[:8])
    ordered = spread_slow_first(items, 2, lambda item: item in slow)
    assert sorted(ordered) == sorted(items)
    assert ordered[:4] == ["t00", "t02", "t01", "t03"]
    assert ordered[4:8] == ["t04", "t05", "t06", "t07"]


def test_a_serial_run_or_nothing_slow_keeps_the_collection_order() -> None:
    items = [f"t{i}" for i in range(20)]
    assert spread_slow_first(items, 0, lambda item: item == "t7") == items
    assert spread_slow_first(items, 1, lambda item: item == "t7") == items
    assert spread_slow_first(items, 4, lambda item: False) == items


def test_chunks_of_two_take_one_slow_item_each() -> None:
    # Many workers, few long tests (--maxschedchunk 2): one slow item per first
    # chunk, the rest one per refill of two, each beside a quick one.
    items = [f"t{i:02d}" for i in range(40)]
    slow = {"t30", "t31", "t32", "t33", "t34"}
    ordered = spread_slow_first(items, 3, lambda item: item in slow, max_chunk=2)
    assert sorted(ordered) == sorted(items)
    assert ordered[:6] == ["t30", "t00", "t31", "t01", "t32", "t02"]  # the first chunks
    assert ordered[6:10] == ["t33", "t03", "t34", "t04"]  # the refills
    assert first_chunk_size(400, 12, 2) == 2 and first_chunk_size(400, 2) == 50


def test_a_budgeted_run_orders_must_first_and_still_spreads_the_slow_items() -> None:
    from conformance.xdist_order import by_severity

    severity = {f"t{i:02}": ("observation", "SHOULD", "MUST")[i % 3] for i in range(30)}
    ordered = by_severity(list(severity), severity.get)
    assert [severity[t] for t in ordered] == ["MUST"] * 10 + ["SHOULD"] * 10 + ["observation"] * 10
    assert [t for t in ordered if severity[t] == "MUST"] == [t for t in severity if severity[t] == "MUST"]  # stable
    slow = {"t02", "t05"}  # two MUST items
    spread = spread_slow_first(ordered, 2, lambda item: item in slow)
    first, second = _chunks(spread, 2)
    assert first[0] in slow and second[0] in slow
    rest = [t for t in spread if t not in slow]
    assert rest == [t for t in ordered if t not in slow]  # the severity order of the others holds


def test_the_own_tests_are_dealt_into_the_shares_work_stealing_hands_out() -> None:
    """tests/conftest.py (tests/xdist_shares.py): each worker's first share starts with its
    part of the whole-run tests (put first), a unit kept together; the light tests fill the
    shares in order; nothing is lost or doubled."""
    from xdist.scheduler import WorkStealingScheduling
    from xdist_shares import dealt, share_sizes

    for count, workers in ((1874, 3), (40, 3), (41, 2), (30, 1)):
        items = list(range(count))  # 0..19 heavy (18 and 19 one unit), the rest light
        unit = lambda i: None if i >= 20 else ("pair" if i >= 18 else i)  # noqa: E731
        ordered = dealt(items, workers, unit)
        assert sorted(ordered) == items
        sizes, start, shares = share_sizes(count, workers), 0, []
        for size in sizes:
            shares.append(ordered[start:start + size])
            start += size
        assert [len(s) for s in shares] == sizes
        for share in shares:
            heavy = [i for i in share if i < 20]
            assert share[:len(heavy)] == sorted(heavy), "its heavy tests first, in order"
            light = share[len(heavy):]
            assert light == list(range(light[0], light[0] + len(light))) if light else True, "light: contiguous"
            assert (18 in share) == (19 in share), "a unit stays together"
        firsts = [share[0] for share in shares]
        assert firsts == list(range(workers)), "each share starts with a heavy test"
    assert share_sizes(10, 3) == [3, 3, 4] and share_sizes(2, 3) == [0, 1, 1]
    assert hasattr(WorkStealingScheduling, "check_schedule")  # the split share_sizes follows
