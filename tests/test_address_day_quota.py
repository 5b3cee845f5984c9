"""address.ratelimit.day_quota_exceeded tells the rate window's 429 from the quota's
(conformance/checks/address/quota.py), proven both ways against the address mock in process.

The suite's check runs against the local mock's quota key, whose window never trips first. A
deployment whose quota key also has a small rate window conforms when its window answers 429
long before the quota does: the check waits the window out (each wait here moves the mock's
clock, where the suite's check waits in real time within the run's wait budget) and still
demands the quota's own 429. The check before issue 42 stopped at the window's 429 and failed
such a server; the test shows that 429 is met, and that the old rule would have failed it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_mock_address_app import BASE, NA, Clock, TestClient, get

from conformance.checks.address import general as g
from conformance.checks.address import quota
from conformance.errors import NotJudged
from conformance.findings import Blocked, Finding
from conformance.http.exchange import Exchange, Headers
from conformance.mocks.address import data
from conformance.mocks.address.app import create_app
from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
from conformance.mocks.faults import FaultSet

QUOTA = "key-quota-window"
DAY_LIMIT, WINDOW_LIMIT, WINDOW_S = 12, 5, 10


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return data.ensure_database(tmp_path_factory.mktemp("address-db-quota") / "address.sqlite")


def _mock(db_path: Path, policy: KeyPolicy, *faults: str) -> tuple[TestClient, Clock]:
    # Start just after a window began: the first five requests share one window.
    clock = Clock(datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC))
    config = AddressMockConfig(db_path=db_path, keys={QUOTA: policy}, clock=clock)
    return TestClient(create_app(config, FaultSet(frozenset(faults)))), clock


def _exchange(c: TestClient) -> Exchange:
    r = get(c, f"/adressen/{NA}", key=QUOTA)
    return Exchange("GET", "http://testserver" + BASE + f"/adressen/{NA}", Headers(), b"", r.status_code,
                    Headers(list(r.headers.items())), r.content)


def _walk(c: TestClient, clock: Clock, *, budget: float = 600.0,
          bound: int = DAY_LIMIT + 5) -> tuple[Exchange, quota.QuotaWalk, list[float]]:
    waited: list[float] = []

    def wait(seconds: float) -> None:
        if sum(waited) + seconds > budget:
            raise NotJudged("the wait budget (safety.max_wait_s) used up", f"{seconds:g} s more")
        waited.append(seconds)
        clock.advance(seconds=seconds)

    walk = quota.QuotaWalk()
    ex = quota.exhaust_day_quota(lambda: _exchange(c), wait, bound=bound, walk=walk)
    return ex, walk, waited


WINDOW_FIRST = KeyPolicy(rate_limit=WINDOW_LIMIT, rate_window_s=WINDOW_S, day_limit=DAY_LIMIT)


def test_a_window_that_trips_first_is_waited_out_and_the_quota_still_judged(db_path: Path) -> None:
    c, clock = _mock(db_path, WINDOW_FIRST)
    ex, walk, waited = _walk(c, clock)
    g.day_quota_exhausted(ex)  # passes: the quota's own 429
    window_429s = [a for a in walk.answers if a.status == 429 and a is not ex]
    assert len(window_429s) == 2 and waited == walk.window_waits and all(0 < w <= WINDOW_S for w in waited)
    assert [a.status for a in walk.answers].count(200) == DAY_LIMIT
    # What the check before issue 42 did: judge the first 429 met. It was the window's.
    first = next(a for a in walk.answers if a.status == 429)
    with pytest.raises(Finding, match="does not report 0 remaining"):
        g.day_quota_exhausted(first)


def test_a_quota_key_without_a_window_reaches_the_quota_without_waiting(db_path: Path) -> None:
    c, clock = _mock(db_path, KeyPolicy(rate_limit=100_000, day_limit=DAY_LIMIT))
    ex, walk, waited = _walk(c, clock)
    g.day_quota_exhausted(ex)
    assert waited == [] and len(walk.answers) == DAY_LIMIT + 1


def test_a_quota_never_enforced_fails(db_path: Path) -> None:
    c, clock = _mock(db_path, WINDOW_FIRST, "address.day_quota_not_enforced")
    ex, _, waited = _walk(c, clock)
    assert ex.status == 200 and waited  # the windows were waited out, the quota never came
    with pytest.raises(Finding, match="unexpected HTTP status"):
        g.day_quota_exhausted(ex)


def test_waits_beyond_the_budget_are_not_judged(db_path: Path) -> None:
    c, clock = _mock(db_path, WINDOW_FIRST)
    with pytest.raises(NotJudged, match="wait budget"):
        _walk(c, clock, budget=WINDOW_S / 2)


def _rated(status: int, day_left: str, window_left: str, reset: str = "1") -> Exchange:
    headers = {"Registry-RateLimit-DayLimit": "12", "Registry-RateLimit-DayLimit-Remaining": day_left,
               "Registry-RateLimit-DayLimit-Reset": "3600", "RateLimit-Limit": "5",
               "RateLimit-Remaining": window_left, "RateLimit-Reset": reset}
    return Exchange("GET", "http://x/adressen/1", Headers(), b"", status,
                    Headers([("content-type", "application/problem+json"), *headers.items()]), b"{}")


def _scripted(*answers: Exchange) -> Callable[[], Exchange]:
    queue = list(answers)
    return lambda: queue.pop(0)


def test_a_429_neither_limit_explains_is_a_finding() -> None:
    send = _scripted(_rated(200, "3", "4"), _rated(429, "2", "3"))
    with pytest.raises(Finding, match="neither the daily quota nor the rate window"):
        quota.exhaust_day_quota(send, lambda s: None, bound=10)


def test_a_window_that_never_ends_blocks() -> None:
    send = _scripted(*[_rated(429, "2", "0")] * (quota.MAX_WAITS_IN_A_ROW + 1))
    with pytest.raises(Blocked, match="rate window ends"):
        quota.exhaust_day_quota(send, lambda s: None, bound=10)


def test_both_limits_spent_at_once_wait_out_the_window_first() -> None:
    """DayLimit-Remaining 0 and RateLimit-Remaining 0: the window is waited out; the quota's
    429 is the one right after it (whatever its RateLimit-Remaining), a 200 there is no quota."""
    both, quota_429 = _rated(429, "0", "0"), _rated(429, "0", "0")
    waits: list[float] = []
    assert quota.exhaust_day_quota(_scripted(both, quota_429), waits.append, bound=5) is quota_429
    assert waits == [1.0]
    served = quota.exhaust_day_quota(_scripted(both, *[_rated(200, "0", "4")] * 3), waits.append, bound=2)
    assert served.status == 200  # day_quota_exhausted fails it: requests served past the quota


def test_the_deployments_header_names_are_read() -> None:
    prefixed = Exchange("GET", "http://x/adressen/1", Headers(), b"", 429, Headers([
        ("Kadaster-RateLimit-DayLimit-Remaining", "0"), ("RateLimit-Remaining", "3")]), b"{}")
    name = lambda seed: seed.replace("Registry-", "Kadaster-")  # noqa: E731
    assert quota.exhaust_day_quota(_scripted(prefixed), lambda s: None, bound=1, name=name) is prefixed


def test_the_mock_clock_moves_the_window(db_path: Path) -> None:
    """The fixture's premise: the mock's window is its clock's (no real time passes here)."""
    c, clock = _mock(db_path, WINDOW_FIRST)
    statuses = [get(c, f"/adressen/{NA}", key=QUOTA).status_code for _ in range(WINDOW_LIMIT + 1)]
    assert statuses == [200] * WINDOW_LIMIT + [429]
    clock.advance(**{"seconds": WINDOW_S})
    assert get(c, f"/adressen/{NA}", key=QUOTA).status_code == 200
    assert clock.now - datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC) == timedelta(seconds=WINDOW_S)
