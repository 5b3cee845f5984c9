"""Requests that do not depend on each other, sent together; never more in flight than the
profile's `limits.concurrency` to one service, across all the run's processes.

A slow service makes a run's time the number of requests times the answer time. The run
keeps it busy without more processes than cores: each xdist worker runs several tests side by
side (`lanes`; conformance/side_by_side.py), and requests that do not depend on each other's
answers (the valid-message examples, the variants of one negative check, one check's scenario
requests) are sent together by `concurrently`. `Slots` keeps the number in flight to a service
at or below its bound, whichever process or thread sends. Checks that need order (token flows,
replay, rate-limit floods) keep sending one request after another.
"""

from __future__ import annotations

import contextlib
import contextvars
import fcntl
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

DEFAULT_CONCURRENCY = 4
# A profile that leaves `concurrency` out gets Little's law's figure (below), at most this:
# a service answering in 5 s at 50 requests/s would have 250 in flight; the SOAP suite's 222
# requests at 32 could not take less than 35 s, at 64 they take 17 s (benchmarks/slow_service.py
# --suite soap --delay 5: 62.8 s -> 51.7 s wall). A profile bounds it lower with `concurrency`.
DERIVED_CONCURRENCY_CAP = 64
# A request holds its slot longer than its answer takes: from before its turn in the rate
# (conformance/http/schedule.py) until the harness has read the answer. Little's law on the
# answer time alone left the run below the rate: 0.2 s answers at 50 requests/s held 10 slots
# 0.29 s each on two busy cores, 35 requests/s (benchmarks/slow_service.py --suite address).
SLOT_HOLD = 2
# How often the head of a service's queue looks for a freed slot when all are held: a slot is
# held for a request's answer time, so this adds at most this much to a request that waited.
POLL_S = 0.02


def little(rate_per_s: float, latency_s: float) -> int:
    """Requests in flight that keep a service busy at `rate_per_s` when each answer takes
    `latency_s` (Little's law: L = lambda x W); 0 when either is unknown or zero."""
    if rate_per_s <= 0 or latency_s <= 0:
        return 0
    return math.ceil(rate_per_s * latency_s)


def in_flight_bound(configured: int, rate_per_s: float, latency_s: float | None) -> int:
    """The most requests in flight to one service: the profile's `concurrency` when it sets
    one (0: it does not); else Little's law's figure for the observed latency times SLOT_HOLD,
    never below the default (a loopback mock or an unpaced run keep it) nor above
    DERIVED_CONCURRENCY_CAP."""
    if configured:
        return configured
    wanted = SLOT_HOLD * little(rate_per_s, latency_s or 0.0)
    return max(DEFAULT_CONCURRENCY, min(DERIVED_CONCURRENCY_CAP, wanted))


def lanes(in_flight: int) -> int:
    """Tests one worker runs side by side against a slow service: as many as may be in flight
    to it (each test waits for one answer at a time, and every worker may find the others busy
    with their own work); `Slots` holds the requests of all of them to the bound. 1 (one test
    at a time) where at most one request may be in flight."""
    return max(1, in_flight)


def concurrently(calls: Sequence[Callable[[], T]], limit: int) -> list[T]:
    """The results of `calls`, in order, at most `limit` at a time.

    A verdict must not depend on the concurrency: every call runs to its end, then the
    first exception in the calls' order is raised -- the one a serial run meets first (a
    serial run stops there; the later answers change nothing it concludes). `limit` 1 is
    exactly the serial run."""
    if limit <= 1 or len(calls) <= 1:
        return [call() for call in calls]
    with ThreadPoolExecutor(max_workers=min(limit, len(calls)), thread_name_prefix="conformance-send") as pool:
        # Each call in the caller's context: what it sends is recorded as the caller's test's.
        futures = [pool.submit(contextvars.copy_context().run, call) for call in calls]
        wait(futures)
    for future in futures:
        error = future.exception()
        if error is not None:
            raise error
    return [future.result() for future in futures]


_ON_WAIT: list[Callable[[], contextlib.AbstractContextManager[None]]] = []


def waiting() -> contextlib.AbstractContextManager[None]:
    """Around a wait for another test's work (a lock it holds while it runs): a test that runs
    side by side with others gives its worker's turn up meanwhile (`on_wait`). Not around a
    wait for one's own work (`concurrently`'s calls need no turn): a fixture being made must
    not be made again by a test beside it."""
    return _ON_WAIT[0]() if _ON_WAIT else contextlib.nullcontext()


def on_wait(hook: Callable[[], contextlib.AbstractContextManager[None]] | None) -> None:
    """What `waiting` does from now on (conformance/side_by_side.py, while its loop runs);
    None: nothing again."""
    _ON_WAIT[:] = [hook] if hook is not None else []


class Slots:
    """At most `limit` requests in flight to one service.

    In one process a semaphore; across xdist workers (`directory` given) also one lock file
    per slot: a request holds one slot file's lock while in flight. A process that dies
    releases its locks with it, so a crashed worker never holds a slot."""

    def __init__(self, limit: int, directory: str | Path | None = None, service: str = "service") -> None:
        self.limit = max(1, int(limit))
        self._local = threading.BoundedSemaphore(self.limit)
        self._files = [str(Path(directory) / f"{service}.slot{i}") for i in range(self.limit)] if directory else []

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        with self._local:
            if not self._files:
                yield
                return
            fd = self._take_file()
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)

    def _take_file(self) -> int:
        """A slot file locked by this thread: a free one if there is, else the first to free.

        Every waiter queues on the service's turnstile file; only its holder, the head of the
        queue, looks for a slot (at most POLL_S apart) and passes the turnstile on once it has one. A
        waiter blocked on one chosen slot would wait for that slot's holder even while others
        freed: with every process choosing from slot 0, a dozen workers' waiters piled on the
        first few slots and were served one after another (a SOAP run against a service
        answering in 5 s kept 11 of 32 slots busy on average)."""
        fd = self._try_any()
        if fd is not None:
            return fd
        turnstile = os.open(f"{self._files[0]}.queue", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(turnstile, fcntl.LOCK_EX)
            pause = 0.001  # a loopback mock frees a slot within milliseconds: look soon, then less often
            while (fd := self._try_any()) is None:
                time.sleep(pause)
                pause = min(POLL_S, pause * 2)
            return fd
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
            os.close(turnstile)

    def _try_any(self) -> int | None:
        for path in self._files:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                os.close(fd)
        return None
