"""Per-key rate limit (fixed window) and daily quota (seed parts 4 and 8; bag-api.md 6).

Windows are aligned to the epoch (a window of w seconds starts at a multiple of w), and
the daily quota resets at UTC midnight, both read from the config clock so tests move
time instead of sleeping. Only requests that reach the limiter are counted (authenticated,
authorised, not in maintenance); a request answered 429 does not count either.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import NamedTuple

from conformance.mocks.address.config import KeyPolicy


@dataclass
class _Usage:
    window_start: float
    window_count: int
    day: date
    day_count: int


# The rate-limit headers of an answer, in the order they are sent.
HEADER_NAMES: tuple[str, ...] = (
    "Registry-RateLimit-DayLimit",
    "Registry-RateLimit-DayLimit-Remaining",
    "Registry-RateLimit-DayLimit-Reset",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
)


class Decision(NamedTuple):
    allowed: bool
    values: tuple[bytes, ...]  # of the HEADER_NAMES, in that order, as sent
    retry_after_s: int  # when refused: seconds until the exhausted limit resets

    @property
    def headers(self) -> dict[str, str]:
        return {name: value.decode("latin-1") for name, value in zip(HEADER_NAMES, self.values, strict=True)}


class RateLimiter:
    def __init__(self) -> None:
        # uvicorn serves from one event loop, but the launcher may share an app across
        # threads in tests; the lock keeps check-and-count atomic either way.
        self._lock = threading.Lock()
        self._usage: dict[str, _Usage] = {}
        self._next_midnight: tuple[date, datetime] | None = None  # (a day, the midnight after it)

    def check(
        self,
        key: str,
        policy: KeyPolicy,
        now: datetime,
        *,
        enforce_rate: bool = True,
        enforce_day: bool = True,
    ) -> Decision:
        now = now.astimezone(UTC)
        stamp = now.timestamp()
        window_s = max(policy.rate_window_s, 1)
        window_start = math.floor(stamp / window_s) * window_s
        today = now.date()
        known = self._next_midnight  # one tuple, read and replaced whole: no lock needed
        if known is not None and known[0] == today:
            midnight = known[1]
        else:
            midnight = datetime.combine(today + timedelta(days=1), time(), tzinfo=UTC)
            self._next_midnight = (today, midnight)
        rate_reset = max(1, math.ceil(window_start + window_s - stamp))
        day_reset = max(1, math.ceil((midnight - now).total_seconds()))

        with self._lock:
            usage = self._usage.get(key)
            if usage is None:
                usage = self._usage[key] = _Usage(window_start, 0, today, 0)
            if usage.window_start != window_start:
                usage.window_start, usage.window_count = window_start, 0
            if usage.day != today:
                usage.day, usage.day_count = today, 0

            if enforce_day and usage.day_count >= policy.day_limit:
                allowed, retry = False, day_reset
            elif enforce_rate and usage.window_count >= policy.rate_limit:
                allowed, retry = False, rate_reset
            else:
                allowed, retry = True, 0
                usage.window_count += 1
                usage.day_count += 1
            window_count, day_count = usage.window_count, usage.day_count

        values = (
            str(policy.day_limit).encode("latin-1"),
            str(max(0, policy.day_limit - day_count)).encode("latin-1"),
            str(day_reset).encode("latin-1"),
            str(policy.rate_limit).encode("latin-1"),
            str(max(0, policy.rate_limit - window_count)).encode("latin-1"),
            str(rate_reset).encode("latin-1"),
        )
        return Decision(allowed, values, retry)
