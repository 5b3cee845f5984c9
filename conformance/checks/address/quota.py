"""Exhausting the daily quota with the quota key (seed parts 4, 7 and 8; bag-api.md 6).

A deployment limits a key two ways, and either answers 429: the rate window (RateLimit-*:
`RateLimit-Remaining` 0 on its 429, `RateLimit-Reset` seconds until the window ends) and the
daily quota (Registry-RateLimit-DayLimit-*: `DayLimit-Remaining` 0 on its 429). Requests sent
as fast as a flood sends them may trip the window long before the quota; that 429 is the
window's, and says nothing about the quota: it is waited out (the run's wait budget bounds the
waits) and the requests go on until the quota's own 429.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from conformance.checks.address import general as g
from conformance.findings import Blocked, expect
from conformance.http.exchange import Exchange

HeaderName = Callable[[str], str]
DAY_REMAINING = "Registry-RateLimit-DayLimit-Remaining"
# A window that is still closed after its own RateLimit-Reset this many times in a row is not
# one the check can wait out.
MAX_WAITS_IN_A_ROW = 3


@dataclass
class QuotaWalk:
    """What exhausting the quota met: every answer, and the window 429s waited out."""

    answers: list[Exchange] = field(default_factory=list)
    window_waits: list[float] = field(default_factory=list)


def _same(name: str) -> str:
    return name


def exhaust_day_quota(send: Callable[[], Exchange], wait: Callable[[float], None], *, bound: int,
                      name: HeaderName = _same, walk: QuotaWalk | None = None) -> Exchange:
    """Send until the quota's 429 and return it (`day_quota_exhausted` judges it). At most
    `bound` requests are served (200) on the way.

    Which limit a 429 is from, by its headers: the quota's says DayLimit-Remaining 0 with
    requests left in the window (RateLimit-Remaining above 0), or DayLimit-Remaining 0 right
    after a window was waited out; a 429 with RateLimit-Remaining 0 otherwise is the window's
    (both may be spent at once: the window is waited out first), waited out with `wait(seconds)`
    (RateLimit-Reset; NotJudged when the run's wait budget has no more). A 429 that reports
    requests left in the quota and in the window is explained by neither: a finding."""
    walk = walk if walk is not None else QuotaWalk()
    served = in_a_row = 0
    after_wait = False
    while True:
        ex = send()
        walk.answers.append(ex)
        if ex.status != 429:
            in_a_row, after_wait = 0, False
            served += 1
            if served > bound:
                return ex  # no 429 within the bound: day_quota_exhausted says so
            continue
        day_left = g.integer_header(ex, name(DAY_REMAINING))
        window_left = g.integer_header(ex, name("RateLimit-Remaining"))
        if day_left == 0 and (window_left > 0 or after_wait):
            return ex
        expect(window_left == 0, "a 429 that neither the daily quota nor the rate window explains",
               expected=f"{name(DAY_REMAINING)} 0 (the quota's 429) or RateLimit-Remaining 0 (the window's)",
               actual=f"{ex.summary()}; {name(DAY_REMAINING)} {day_left}, RateLimit-Remaining {window_left}")
        in_a_row += 1
        if in_a_row > MAX_WAITS_IN_A_ROW:
            raise Blocked("the quota key's rate window ends after its RateLimit-Reset",
                          f"{MAX_WAITS_IN_A_ROW} waits of RateLimit-Reset in a row, still 429 with "
                          f"{name(DAY_REMAINING)} {day_left}")
        seconds = float(max(g.integer_header(ex, name("RateLimit-Reset")), 1))
        wait(seconds)
        walk.window_waits.append(seconds)
        after_wait = True
