"""When the next request may start: the profile's rate and budget, and what the server says.

A profile's `requests_per_second` and `request_budget` are the run's, not a worker's: with a
fixed share each, a worker that runs out of tests leaves its share unused while the other
waits on its half (63 % of the limit measured). `SharedSchedule` keeps one schedule for all
xdist workers in a small file under an exclusive lock (the run's controller makes it, the
workers open it by name); `Schedule` is the same in one process.

The server's word counts too (RateLimit-Limit/-Remaining/-Reset, a 429's Retry-After):
  * Remaining at 0 holds every request until the window ends. Reset is whole seconds, so
    a single reading overshoots by up to a second (half the rate at a one-second window):
    the end is taken as the earliest `time + Reset` read in the current window, which is
    never before the true end and is close to it once one answer came early in the window.
    A window is new when Remaining went up.
  * A 429's Retry-After holds every request that long.
Wall-clock time throughout, since monotonic clocks are per process.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


class BudgetSpent(Exception):
    """The run's request budget is used up."""

    @classmethod
    def of(cls, budget: int) -> BudgetSpent:
        return cls(f"request budget of {budget} used up")


@dataclass
class _State:
    next_at: float = 0.0         # the next paced start
    hold_until: float = 0.0      # what the server asked for
    window_end: float = 0.0      # the earliest end of the server's current window read so far
    sent: int = 0                # requests reserved
    last_remaining: int = -1     # RateLimit-Remaining last read (-1: none)
    failures: int = 0            # transport failures in a row (conformance/http/stops.py: the breaker)
    answered: int = 0            # requests a response came back to (its head at least)


class Schedule:
    """One process's schedule (also the base of the shared one)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = _State()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[_State]:
        with self._lock:
            yield self._state

    def reserve(self, interval_s: float, budget: int, *, paced: bool = True) -> float:
        """The wall-clock time at which the caller may send its next request; counts it
        against `budget` (0: none). `paced`: False for floods, which exceed on purpose: they
        count against the budget but neither wait nor take a place in the schedule."""
        with self._locked() as state:
            if budget and state.sent >= budget:
                raise BudgetSpent.of(budget)
            state.sent += 1
            now = time.time()
            if not paced:
                return now
            start = max(now, state.next_at, state.hold_until)
            state.next_at = start + interval_s
            return start

    def sent(self) -> int:
        """Requests reserved so far, all the run's processes (the console's progress)."""
        with self._locked() as state:
            return state.sent

    def hold(self, seconds: float) -> None:
        """No request starts before `seconds` from now."""
        with self._locked() as state:
            state.hold_until = max(state.hold_until, time.time() + seconds)

    def observe(self, remaining: int | None, reset_s: float | None, retry_after_s: float | None,
                max_wait_s: float) -> float | None:
        """Learn from an answer's rate-limit headers; the seconds every request now waits
        (at most `max_wait_s`), or None when the server asked for no wait."""
        with self._locked() as state:
            now = time.time()
            if reset_s is not None:
                new_window = (remaining is not None and remaining > state.last_remaining >= 0) or now >= state.window_end
                state.window_end = now + reset_s if new_window else min(state.window_end, now + reset_s)
            if remaining is not None:
                state.last_remaining = remaining
            wait: float | None = None
            if retry_after_s is not None:
                wait = retry_after_s
            elif remaining is not None and remaining <= 0 and reset_s is not None:
                wait = max(0.0, state.window_end - now)
            if wait is not None:
                wait = min(wait, max_wait_s)
                state.hold_until = max(state.hold_until, now + wait)
            return wait

    def outcome(self, failed: bool, answered: bool) -> tuple[int, int]:
        """Count a request's end: `failed`, a transport failure; `answered`, a response (its
        head at least) came back. (Failures in a row, answers so far), of the whole run."""
        with self._locked() as state:
            state.failures = state.failures + 1 if failed else 0
            state.answered += 1 if answered else 0
            return state.failures, state.answered


_FORMAT = struct.Struct("<dddqqqq")


class SharedSchedule(Schedule):
    """The run's schedule, shared by its processes through a locked file."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = str(path)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    @contextlib.contextmanager
    def _locked(self) -> Iterator[_State]:
        # flock excludes other processes; the thread lock, other threads of this one.
        with self._lock:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                data = os.pread(self._fd, _FORMAT.size, 0)
                state = _State(*_FORMAT.unpack(data)) if len(data) == _FORMAT.size else _State()
                yield state
                # the fields by name: dataclasses.astuple deep-copies each (a tenth of a request's own cost)
                os.pwrite(self._fd, _FORMAT.pack(state.next_at, state.hold_until, state.window_end, state.sent,
                                                 state.last_remaining, state.failures, state.answered), 0)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
