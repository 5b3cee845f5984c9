"""A clock that every check of a run shares: an environment whose clock hook
(services.auth.clock) moves time for everyone, or real-time waits (safety.waits).

Moving such a clock ages every code, token, refresh token and assertion issued before the
move, including those other checks hold. Two things keep those checks judging:

- the ledger: how often and how far the run moved the clock, in a file of the run's shared
  directory, so that every process of the run (xdist workers are separate processes) dates
  its assertions by the moved time and uses a cached token only while no move came after it;
- turns: a check that moves the clock through the hook runs alone (an exclusive lock), every
  other check holds a shared lock for its whole duration, so no move falls between a check's
  control and its changed request. Both locks block in the kernel: no sleeping, no polling.

A private mock instance (local mock, mock = true) has a clock of its own and needs neither.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

LEDGER_FILE = "auth-clock.json"
_LEDGER_LOCK = "auth-clock-ledger.lock"  # writers of the ledger (never held across a check)
_TURN_LOCK = "auth-clock-turn.lock"  # held for a check's duration: shared, or exclusive by a mover
_GATE_LOCK = "auth-clock-gate.lock"  # a waiting mover closes it, so new checks cannot overtake it


@dataclass(frozen=True)
class Moves:
    count: int = 0  # moves so far: a token issued under another count may have aged
    ahead_s: float = 0.0  # how far the environment's clock runs ahead of real time


class ClockLedger:
    """The run's clock moves; `directory` None keeps them in this process (no shared directory)."""

    def __init__(self, directory: str | Path | None) -> None:
        self._dir = Path(directory) if directory else None
        self._memory = Moves()

    def read(self) -> Moves:
        if self._dir is None:
            return self._memory
        try:
            data = json.loads((self._dir / LEDGER_FILE).read_text())
        except FileNotFoundError:
            return Moves()
        return Moves(int(data["count"]), float(data["ahead_s"]))

    def record(self, ahead_s: float) -> Moves:
        """One move that put the clock `ahead_s` further ahead of real time (0 for a real wait)."""
        if self._dir is None:
            self._memory = Moves(self._memory.count + 1, self._memory.ahead_s + ahead_s)
            return self._memory
        with open(self._dir / _LEDGER_LOCK, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            moves = self.read()
            moves = Moves(moves.count + 1, moves.ahead_s + ahead_s)
            part = self._dir / f"{LEDGER_FILE}.{os.getpid()}"
            part.write_text(json.dumps(asdict(moves)))
            os.replace(part, self._dir / LEDGER_FILE)  # readers see the old or the new ledger, never half
        return moves


@contextlib.contextmanager
def clock_turn(directory: str | Path | None, *, alone: bool) -> Iterator[None]:
    """Hold the shared clock for one check: `alone` for a check that moves it."""
    if not directory:
        yield
        return
    with open(Path(directory) / _GATE_LOCK, "a") as gate, open(Path(directory) / _TURN_LOCK, "a") as turn:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(turn, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(turn, fcntl.LOCK_UN)
