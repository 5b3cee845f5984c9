"""How many senders a run against a slow deployment gets (Little's law: rate x latency, times
the time a request holds its slot beyond its answer), and the console's progress lines
(README "Limits": how many senders). The workers stay the cores: the senders are tests side
by side within them (conformance/side_by_side.py)."""

from __future__ import annotations

from conformance.http.concurrency import (
    DEFAULT_CONCURRENCY,
    DERIVED_CONCURRENCY_CAP,
    SLOT_HOLD,
    in_flight_bound,
    lanes,
    little,
)
from conformance.reporting.console import rate_line


def test_little_is_rate_times_latency_rounded_up() -> None:
    assert little(50, 0.2) == 10
    assert little(50, 0.21) == 11
    assert little(0, 0.2) == 0 and little(50, 0) == 0  # unpaced, or no latency observed


def test_in_flight_bound_follows_the_latency_unless_the_profile_sets_it() -> None:
    assert in_flight_bound(0, 50, 0.2) == SLOT_HOLD * 10
    assert in_flight_bound(0, 50, 5.0) == DERIVED_CONCURRENCY_CAP
    assert in_flight_bound(0, 50, 0.001) == DEFAULT_CONCURRENCY  # a fast service: today's bound
    assert in_flight_bound(0, 0, 0.2) == DEFAULT_CONCURRENCY  # unpaced: nothing to derive from
    assert in_flight_bound(0, 50, None) == DEFAULT_CONCURRENCY  # a local mock: not probed
    assert in_flight_bound(2, 50, 5.0) == 2  # the profile's own bound, as set


def test_a_worker_runs_as_many_tests_side_by_side_as_may_be_in_flight() -> None:
    assert lanes(in_flight_bound(0, 50, 0.2)) == 20
    assert lanes(DEFAULT_CONCURRENCY) == DEFAULT_CONCURRENCY
    assert lanes(1) == 1  # `concurrency = 1`: one test at a time, as a serial run
    assert lanes(0) == 1


def test_rate_line_gives_the_share_of_the_limit() -> None:
    assert rate_line(3600, 80, 50) == "conformance: 3,600 requests in 1:20: 45.0/s, 90 % of the profile's limit of 50/s"
    assert rate_line(100, 10, 0).endswith("10.0/s (the profile sets no rate limit)")
