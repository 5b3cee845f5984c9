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
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

DEFAULT_CONCURRENCY = 4
# A profile that leaves `concurrency` out gets Little's law's figure (below), at most this.
DERIVED_CONCURRENCY_CAP = 32
# xdist workers for `-n auto` against a slow service: each is a process with the suites
# loaded (about 150 MB, a second or two of CPU to start); beyond this the requests that do
# not depend on each other are sent together inside the checks instead.
WORKER_CAP = 12


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
        self._next = 0

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
        """A slot file locked by this thread: a free one if there is, else wait for one
        (held at most a request's deadline by whoever has it)."""
        for path in self._files:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                os.close(fd)
        self._next = (self._next + 1) % self.limit  # spread the waiters over the slots
        fd = os.open(self._files[self._next], os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd
