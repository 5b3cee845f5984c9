"""The run's own bounds in a pytest run: its deadline, the signals that stop it, and the
bounds on each service that every client of the service shares in a process (requests in
flight, the circuit breaker: conformance/http/concurrency.py, conformance/http/stops.py).

The plugin hub registers a `StopGate` in every process of an active run (the controller
and each xdist worker): before each check it asks whether the run is to stop, and a check
not run for that reason is blocked under the stop's reason. SIGINT and SIGTERM stop the run
the same way: the checks not yet run are blocked, the report is written, the exit code says
"could not judge". A second signal is not caught: it interrupts at once.

The run's processes end without the interpreter's teardown (`end_process`): the command
once its reports are written, and each xdist worker once it has said everything.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, NoReturn

import pytest

from conformance.http.client import ServiceBounds
from conformance.http.concurrency import Slots
from conformance.http.stops import Breaker, RunStop

STOP_FILE = "stop"
_BOUNDS: dict[tuple[str, str], ServiceBounds] = {}
_STOPS: dict[str, RunStop] = {}


def deadline_of(max_duration_s: float | None, profile_deadline_s: float) -> tuple[float, float]:
    """(seconds, wall-clock end) of a run starting now: --max-duration over the profile's."""
    seconds = float(max_duration_s) if max_duration_s else float(profile_deadline_s)
    return seconds, time.time() + seconds


def run_stop(schedule_dir: str, deadline_at: float | None, deadline_s: float | None) -> RunStop:
    """This process's view of the run's stop (one per run directory)."""
    if schedule_dir not in _STOPS:
        _STOPS[schedule_dir] = RunStop(deadline_at, deadline_s, Path(schedule_dir) / STOP_FILE if schedule_dir else None)
    return _STOPS[schedule_dir]


def service_bounds(stop: RunStop, schedule_dir: str, shared: bool, service: str, title: str, *,
                   concurrency: int, breaker_failures: int, deadline_s: float) -> ServiceBounds:
    """The bounds every client of `service` in this process shares, kept with the other
    processes through files in the run's schedule directory when `shared`."""
    key = (schedule_dir, service)
    if key not in _BOUNDS:
        folder = schedule_dir if shared and schedule_dir else None
        _BOUNDS[key] = ServiceBounds(
            slots=Slots(concurrency, folder, service),
            breaker=Breaker(title, breaker_failures, deadline_s,
                            reason_file=Path(folder) / f"{service}.stopped" if folder else None),
            stop=stop,
        )
    return _BOUNDS[key]


class StopGate:
    """A pytest plugin object: no check starts once the run is to stop."""

    def __init__(self, stop: RunStop) -> None:
        self.stop = stop
        self._previous: dict[int, Any] = {}

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self.stop.check()  # Stopped: the hub's setup wrapper reports the check blocked

    def install_signals(self) -> None:
        """SIGINT and SIGTERM ask the run to stop (main thread only: where Python allows it)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._on_signal)

    def uninstall_signals(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    def _on_signal(self, signum: int, frame: object) -> None:
        self.stop.ask(f"run interrupted by {signal.Signals(signum).name}")
        self.uninstall_signals()  # a second signal interrupts at once


def end_process(code: int) -> NoReturn:
    """Run the exit functions (atexit), flush what was printed, and end the process without
    the interpreter taking apart the objects of pytest, schemathesis and hypothesis one by
    one: about 0.25 s for the command, and about a second for each xdist worker of a full
    run, which the controller waits for before its verdict. mypy ends the same way."""
    atexit._run_exitfuncs()  # noqa: SLF001 - what the interpreter's exit would run, in its order
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`| head`): nothing left to say
            stream.flush()
    os._exit(code)


def end_worker_without_teardown() -> None:
    """An xdist worker of a run, its session set up: at the interpreter's exit (xdist has
    closed the worker's gateway), `end_after_exit_functions` runs first."""
    atexit.register(end_after_exit_functions)


def end_after_exit_functions() -> None:
    """Run the exit functions registered before this one, and end the process (`end_process`)
    with status 0: xdist learns how a worker ended from its messages, not from its status."""
    atexit.unregister(end_after_exit_functions)
    end_process(0)
