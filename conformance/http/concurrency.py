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
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

DEFAULT_CONCURRENCY = 4


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
