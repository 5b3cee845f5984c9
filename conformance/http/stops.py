"""When a run stops sending: its deadline, a signal, or a service that stopped answering.

* `RunStop` -- the run deadline (`limits.run_deadline_s`, `--max-duration`) and the stop a
  SIGINT or SIGTERM asks for, the same for all the run's processes: a signal writes the
  reason to a file every process looks at before each check and each request. A request
  in flight ends at its own deadline or the run's, whichever is first.
* `Breaker` -- one per service: after `limit` requests in a row ended in a transport
  failure (no complete answer within the deadline, a reset, broken framing, a head or body
  over its cap), the service is taken as having stopped answering. Its remaining checks are
  blocked under one cause, and the run goes on with the other services. A single slow or
  broken answer never trips it: any complete answer starts the count again, a wrong one too
  (a content coding that does not decode, invalid UTF-8: the server answered). The count is
  the run's, kept in the service's shared schedule (conformance/http/schedule.py).

Both raise `Stopped`, a `Blocked` whose `stop` is the reason the run's verdict states: the
checks not run could not judge their rules, so the run "could not judge" (exit 4), or is
"unreachable" (exit 3) when a service that stopped never answered anything.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from conformance.findings import Blocked

DEFAULT_BREAKER_FAILURES = 5
DEFAULT_RUN_DEADLINE_S = 1800.0
# What makes a request a transport failure: the server did not give a complete answer
# within the bounds (conformance/http/limits.py). A complete answer that is wrong (bad
# content coding, invalid UTF-8, a 500) is the server answering.
TRANSPORT_FAILURES = frozenset({"no_answer", "deadline", "reset", "protocol", "head", "body", "decoded", "tls"})
# Violations after which the server had sent something back: a service that only ever met
# the others (nothing within the deadline, a reset, a refused TLS session) never answered at
# all -- unreachable rather than "could not judge".
ANSWERED = frozenset({"deadline", "protocol", "head", "body", "decoded", "decoding", "encoding"})


class Stopped(Blocked):
    """A check the run did not run to its end: `stop` says why, the same for every one."""

    def __init__(self, stop: str, *, unreachable: bool = False) -> None:
        super().__init__("the run going on", stop)
        self.stop = stop
        self.unreachable = unreachable


class RunStop:
    """The run's deadline (wall-clock, so the same for every process) and its stop file."""

    def __init__(self, deadline_at: float | None = None, deadline_s: float | None = None,
                 stop_file: str | Path | None = None) -> None:
        self.deadline_at = deadline_at
        self.deadline_s = deadline_s
        self.stop_file = Path(stop_file) if stop_file else None
        self._asked: str | None = None  # this process's own stop, when there is no file

    def reason(self) -> str | None:
        if self._asked is not None:
            return self._asked
        if self.stop_file is not None:
            with contextlib.suppress(OSError):
                return self.stop_file.read_text(encoding="utf-8").strip() or "run stopped"
        if self.deadline_at is not None and time.time() >= self.deadline_at:
            return f"run deadline of {self.deadline_s:g} s reached"
        return None

    def check(self) -> None:
        """Stopped, when the run is to send nothing more."""
        reason = self.reason()
        if reason is not None:
            raise Stopped(reason)

    def ask(self, reason: str) -> None:
        """Stop the run (a signal): the first reason stays."""
        if self.reason() is not None:
            return
        if self.stop_file is None:
            self._asked = reason
            return
        # Written whole, then linked into place: another process reading between the file's
        # creation and its write would take an empty file for a stop without a reason. The
        # link fails when a stop is there already: the first reason stays.
        draft = self.stop_file.with_name(f"{self.stop_file.name}.{os.getpid()}.draft")
        draft.write_text(reason, encoding="utf-8")
        try:
            with contextlib.suppress(FileExistsError):
                os.link(draft, self.stop_file)
        finally:
            draft.unlink(missing_ok=True)

    def left_s(self) -> float | None:
        """Seconds until the run deadline (None: no deadline)."""
        return None if self.deadline_at is None else self.deadline_at - time.time()


NO_STOP = RunStop()


@dataclass
class Breaker:
    """The circuit breaker of one service (see the module's doc)."""

    title: str  # the service in the user's words: "address API"
    limit: int = DEFAULT_BREAKER_FAILURES
    deadline_s: float = 30.0
    reason_file: Path | None = None  # shared with the other processes; None: this process alone

    def __post_init__(self) -> None:
        self._reason: str | None = None
        self._unreachable = False

    def check(self) -> None:
        reason = self._read()
        if reason is not None:
            raise Stopped(reason, unreachable=self._unreachable)

    def _read(self) -> str | None:
        if self._reason is None and self.reason_file is not None:
            with contextlib.suppress(OSError):
                state, _, reason = self.reason_file.read_text(encoding="utf-8").partition("\n")
                self._unreachable, self._reason = state == "unreachable", reason
        return self._reason

    def trip(self, kind: str, message: str, answered: int) -> None:
        """The `limit`-th transport failure in a row: `kind` and `message` of the last."""
        if kind in ("no_answer", "deadline"):
            what = f"stopped answering within {self.deadline_s:g} s"
        else:
            what = f"broke {self.limit} requests in a row ({message})"
        never = "" if answered else ", and never answered at all"
        reason = f"the {self.title} {what} after {self.limit} requests{never}"
        if kind not in ("no_answer", "deadline"):
            reason = f"the {self.title} {what}{never}"
        self._reason, self._unreachable = reason, not answered
        if self.reason_file is not None:
            with contextlib.suppress(FileExistsError):
                fd = os.open(self.reason_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(("unreachable" if not answered else "answered") + "\n" + reason)
            self._reason = None  # the file's first word counts: another process may have tripped first
            self._read()
