"""Requests that do not depend on each other, sent together; never more in flight than the
profile's `limits.concurrency` to one service, across all the run's processes.

A slow service makes a run's time the number of requests times the answer time; requests
that do not depend on each other's answers (the valid-message examples, the variants of one
negative check, one check's scenario requests) are sent together by `concurrently`, and
`Slots` keeps the number in flight to a service at or below its bound, whichever process or
thread sends. Checks that need order (token flows, replay, rate-limit floods) keep sending
one request after another.
"""

from __future__ import annotations

import contextlib
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
# xdist workers for `-n auto` against a slow service: each is a process with the suites
# loaded (about 150 MB, a second or two of CPU to start); beyond this the requests that do
# not depend on each other are sent together inside the checks instead.
WORKER_CAP = 12
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
    one (0: it does not); else Little's law's figure for the observed latency, never below
    the default (a loopback mock or an unpaced run keep it) nor above DERIVED_CONCURRENCY_CAP."""
    if configured:
        return configured
    return max(DEFAULT_CONCURRENCY, min(DERIVED_CONCURRENCY_CAP, little(rate_per_s, latency_s or 0.0)))


def auto_workers(cores: int, bounds: list[tuple[int, float, float | None]]) -> int:
    """xdist workers for `-n auto`: `cores`, or more when a service answers slowly. Each
    worker sends one request at a time in the checks that need order, so a run keeps a
    service busy at its rate with Little's law's number of workers, capped by the service's
    in-flight bound and WORKER_CAP. `bounds`: (in-flight bound, rate, latency) per service."""
    wanted = max((min(bound, little(rate, latency or 0.0)) for bound, rate, latency in bounds), default=0)
    return max(cores, min(WORKER_CAP, wanted))


def concurrently(calls: Sequence[Callable[[], T]], limit: int) -> list[T]:
    """The results of `calls`, in order, at most `limit` at a time.

    A verdict must not depend on the concurrency: every call runs to its end, then the
    first exception in the calls' order is raised -- the one a serial run meets first (a
    serial run stops there; the later answers change nothing it concludes). `limit` 1 is
    exactly the serial run."""
    if limit <= 1 or len(calls) <= 1:
        return [call() for call in calls]
    with ThreadPoolExecutor(max_workers=min(limit, len(calls)), thread_name_prefix="conformance-send") as pool:
        futures = [pool.submit(call) for call in calls]
        wait(futures)
    for future in futures:
        error = future.exception()
        if error is not None:
            raise error
    return [future.result() for future in futures]


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
