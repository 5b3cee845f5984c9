"""How many senders a run against a slow deployment gets (Little's law: rate x latency), and
the console's progress lines (README "Limits": how many senders)."""

from __future__ import annotations

from conformance.http.concurrency import (
    DEFAULT_CONCURRENCY,
    DERIVED_CONCURRENCY_CAP,
    WORKER_CAP,
    auto_workers,
    in_flight_bound,
    little,
)
from conformance.reporting.console import rate_line


def test_little_is_rate_times_latency_rounded_up() -> None:
    assert little(50, 0.2) == 10
    assert little(50, 0.21) == 11
    assert little(0, 0.2) == 0 and little(50, 0) == 0  # unpaced, or no latency observed


def test_in_flight_bound_follows_the_latency_unless_the_profile_sets_it() -> None:
    assert in_flight_bound(0, 50, 0.2) == 10
    assert in_flight_bound(0, 50, 5.0) == DERIVED_CONCURRENCY_CAP
    assert in_flight_bound(0, 50, 0.001) == DEFAULT_CONCURRENCY  # a fast service: today's bound
    assert in_flight_bound(0, 0, 0.2) == DEFAULT_CONCURRENCY  # unpaced: nothing to derive from
    assert in_flight_bound(0, 50, None) == DEFAULT_CONCURRENCY  # a local mock: not probed
    assert in_flight_bound(2, 50, 5.0) == 2  # the profile's own bound, as set


def test_auto_workers_keep_the_cores_unless_a_service_is_slow() -> None:
    assert auto_workers(2, []) == 2
    assert auto_workers(2, [(DEFAULT_CONCURRENCY, 50, 0.002)]) == 2
    assert auto_workers(2, [(10, 50, 0.2)]) == 10
    assert auto_workers(2, [(3, 50, 0.2)]) == 3  # capped by the in-flight bound
    assert auto_workers(2, [(32, 50, 5.0)]) == WORKER_CAP
    assert auto_workers(2, [(4, 50, 0.02), (10, 50, 0.2)]) == 10  # the slowest service decides


def test_rate_line_gives_the_share_of_the_limit() -> None:
    assert rate_line(3600, 80, 50) == "conformance: 3,600 requests in 1:20: 45.0/s, 90 % of the profile's limit of 50/s"
    assert rate_line(100, 10, 0).endswith("10.0/s (the profile sets no rate limit)")
