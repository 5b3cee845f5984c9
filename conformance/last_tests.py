"""The tests that judge what the rest of a run sent: they run last, once every other test of
the run has ended, in whichever xdist worker they land.

Two kinds: the address API's response-schema checks (every answer against its schema,
conformance/checks/address/response_schema.py) and the rules one exchange can show broken,
judged on every exchange of an active run (suites/passive/: the same rules and verdicts as
`conformance traffic` on the run's traffic.har). Each worker holds a lock on
`<report>/.last/<worker>.running` from its start to its end (the kernel releases it when a
worker dies, so a wait cannot hang on a crash); a last test releases its own worker's lock --
every other test of that worker has ended, its exchanges are written -- and waits for the
other workers' locks. xdist hands out the last item only after every worker collected and
tells every worker to shut down once it has handed out the last item, so each worker ends
after its last test.
"""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO

import pytest

DIRNAME = ".last"
_HELD: dict[str, IO[str]] = {}


def running_path(report_dir: str | Path, process: str) -> Path:
    return Path(report_dir) / DIRNAME / f"{process}.running"


def hold_running(report_dir: str | Path, process: str) -> IO[str]:
    """A worker's lock for its whole session: keep the handle open, close it at the end."""
    target = running_path(report_dir, process)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle = target.open("a", encoding="utf-8")
    fcntl.flock(handle, fcntl.LOCK_EX)
    _HELD[process] = handle
    return handle


def release_running(process: str) -> None:
    """A last test's worker lets the others' last tests go on (without it, two last tests on
    two workers would each wait for the other's session to end)."""
    handle = _HELD.pop(process, None)
    if handle is not None:
        handle.close()


def wait_for_workers(report_dir: str | Path, me: str, workers: int) -> None:
    """Block until every other xdist worker (gw0 ... gw<workers-1>) has ended its session."""
    for index in range(workers):
        other = f"gw{index}"
        if other == me:
            continue
        with running_path(report_dir, other).open("a", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH)  # blocks in the kernel until that worker is done


def after_the_others(config: object, report_dir: str | Path) -> str:
    """Called by a last test: release this worker's lock and wait for the other workers.
    Returns this process's name ("main" when the run is one process)."""
    worker = getattr(config, "workerinput", {})
    process = worker.get("workerid", "main")
    if worker:
        release_running(process)
        wait_for_workers(report_dir, process, int(worker["workercount"]))
    return process


class LastTests:
    """One process's part, as a pytest plugin object (the conformance plugin registers it in
    every process of an active run): the worker's lock held for its session, and the last
    tests moved to the end of the collection -- those of suites/passive and those of checks
    that send nothing of their own (their declaration's `sends`)."""

    def __init__(self, report_dir: str, process: str, suites_dir: Path, sends_of) -> None:
        self._suites_dir = suites_dir / "passive"
        self._sends_of = sends_of  # item -> its check's `sends` (the conformance plugin's)
        self._running = hold_running(report_dir, process) if process != "main" else None

    def is_last(self, item) -> bool:
        return self._suites_dir in Path(str(item.path)).parents or self._sends_of(item) == ("nothing",)

    @pytest.hookimpl(trylast=True)  # after the conformance plugin's own order (severity, slow first)
    def pytest_collection_modifyitems(self, items: list) -> None:
        last = [item for item in items if self.is_last(item)]
        if last:  # xdist hands items out in order: these go last, and then wait for the others
            items[:] = [item for item in items if not self.is_last(item)] + last

    def pytest_sessionfinish(self, session: object) -> None:
        if self._running is not None:
            self._running.close()
