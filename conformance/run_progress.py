"""Progress of a long run against a real deployment, on the console: a line at a fixed pace
(every EVERY_S seconds from the start of the tests) with the time so far, the requests sent
and their rate, the tests ended and the time left; at the end the rate achieved as a share
of the profile's limit.

The controller's plugin object; the requests are the run's shared schedules' (every request
of every worker reserves its place there: conformance/http/schedule.py), the tests' starts
and ends pytest's (xdist hands them to the controller).

**The estimate** (`Estimate`) is in seconds of a worker's work. Its plan is an earlier run's:
how long each test took there, by test id, from the latest earlier run in the same reports
folder -- the same profile's first, else any run that selected most of these tests -- read
from its progress.json (which this plugin writes at the end of a run: each test's phases as
its worker measured them, the workers' start, the run's end after its tests) or, for a run
that printed no progress (the local mock's), from its summary.json (`duration_s`). The run's
own tests then say how much slower or faster this environment is (`speed`: their seconds
over the plan's, a running test's time so far included, weighed against a tenth of the plan
so that the first test ended does not swing it; the long tests -- the fuzzing -- and the
short ones apart, the short ones taken as fast as the long ones until they say otherwise).
The time left is the plan's work not done yet at that speed, spread over the tests that run
at once (the workers, times the tests each runs side by side: conformance/side_by_side.py;
never less than the longest running test still needs), plus the part of the earlier run its
tests' seconds leave out (the workers' start while it lasts, the time between tests, the
run's end). It is shown once a test of this run has ended (before, a plan from a faster
environment said "about 0:13 left"), holds within a factor of two from then, or from the
first tenth of the run if later, when the environment is within half again as fast or slow
as the plan's, and corrects a plan further off as the long tests end. A line's time left is
never more than the last line's less the time since, but for the growth of the tests' own
work left (the run turning out slower than planned): it went from 0:13 to 2:00 for the rest
(`Progress._left`; tests/test_run_progress.py feeds simulated runs, with an injected clock).

Without an earlier run there is no plan: the contract fuzzing, which sends most, goes first
(conformance/xdist_order.py), so the tests ended early say nothing about the many short ones
after them. The line then gives no estimate until a quarter of the tests ended, and then a
rough one, "from this run's tests alone": a test not ended is as long as those of its
module that ended (else the median of all), plus the workers' time between tests so far.
Runs of loopback mocks only print nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from conformance.reporting.console import progress_status, rate_line

EVERY_S = 5.0  # a line this often, from the start of the tests
PLAN_WEIGHT = 0.1  # the share of the plan the speed is weighed against
LONG_S = 1.0  # a test the plan gives this long or more: a long one (its own speed)
NO_PLAN_SHARE = 0.25  # without a plan: the share of the tests ended before an estimate


PROGRESS_FILE = "progress.json"  # what a run's tests took, as this plugin saw them: the next run's plan


@dataclass
class Plan:
    """What an earlier run's tests took, by test id. From its progress.json (written by this
    plugin: each test's setup, call and teardown as its worker measured them; the tests' start
    and their whole time) or, for a run that printed no progress (the local mock's), from its
    summary.json (each test's deciding phase only, `duration_s`; its whole time from `started`
    to `finished`). What the tests' seconds leave out -- the workers' start, the time between
    tests, the end of the run -- is spread over the run in `Estimate._left_by_plan`."""

    durations: dict[str, float]
    wall_s: float
    startup_s: float | None = None  # measured: from the tests' start to the first test's
    source: str = ""
    finish_s: float = 0.0  # measured: from the last test's end to the run's

    @classmethod
    def from_summary(cls, summary: dict[str, Any], source: str = "") -> Plan | None:
        durations: dict[str, float] = {}
        for entry in summary.get("checks") or []:
            test, seconds = entry.get("test"), entry.get("duration_s")
            if isinstance(test, str) and isinstance(seconds, int | float):
                durations[test] = max(durations.get(test, 0.0), float(seconds))
        try:
            wall = (datetime.fromisoformat(summary["finished"]) - datetime.fromisoformat(summary["started"])).total_seconds()
        except (KeyError, TypeError, ValueError):
            wall = 0.0
        return cls(durations, max(wall, 0.0), None, source) if durations else None

    @classmethod
    def from_progress(cls, progress: dict[str, Any], source: str = "") -> Plan | None:
        tests = progress.get("tests")
        if not isinstance(tests, dict) or not tests:
            return None
        durations = {str(t): float(s) for t, s in tests.items() if isinstance(s, int | float)}
        wall = float(progress.get("wall_s") or 0.0)
        return cls(durations, wall, float(progress.get("startup_s") or 0.0), source,
                   max(wall - float(progress.get("tests_end_s") or wall), 0.0))


def _plan_of(run: Path) -> tuple[dict[str, Any], Plan] | None:
    try:
        summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(summary, dict) or summary.get("mode", "active") != "active" or not summary.get("finished"):
        return None
    plan = None
    try:
        plan = Plan.from_progress(json.loads((run / PROGRESS_FILE).read_text(encoding="utf-8")), str(run))
    except (OSError, ValueError, TypeError, AttributeError):
        plan = None
    plan = plan or Plan.from_summary(summary, str(run))
    return (summary, plan) if plan is not None else None


def previous_plan(report_dir: Path, profile: str, tests: Iterable[str]) -> Plan | None:
    """The plan of the latest earlier run beside `report_dir`: of the same profile when one
    selected at least half of `tests`, else of any profile that did."""
    wanted = set(tests)
    found: list[tuple[bool, str, Plan]] = []
    try:
        here = report_dir.resolve()
        siblings = [d for d in here.parent.iterdir() if d.is_dir() and d.resolve() != here]
    except OSError:
        return None
    for run in siblings:
        known = _plan_of(run)
        if known is None:
            continue
        summary, plan = known
        if wanted and len(wanted & plan.durations.keys()) * 2 < len(wanted):
            continue
        found.append((summary.get("profile") == profile, str(summary.get("started")), plan))
    return max(found, key=lambda f: (f[0], f[1]))[2] if found else None


def _module(test: str) -> str:
    return test.split("::", 1)[0]


@dataclass
class Estimate:
    """The time a run has left, from its tests' starts and ends (`begin`, `end`) and its plan.
    Times are the caller's clock (seconds); nothing here reads one."""

    tests: list[str]
    workers: int
    started: float
    plan: Plan | None = None
    running: dict[str, float] = field(default_factory=dict)  # test -> when it began
    ended: dict[str, float] = field(default_factory=dict)  # test -> its seconds
    first_begin: float | None = None  # seconds from the start to the first test's
    last_end: float | None = None  # when the latest test ended

    def begin(self, test: str, now: float) -> None:
        if self.first_begin is None:
            self.first_begin = now - self.started
        if test not in self.ended:
            self.running.setdefault(test, now)

    def end(self, test: str, now: float, seconds: float | None = None) -> None:
        began = self.running.pop(test, None)
        self.last_end = now
        if seconds is None:
            seconds = now - began if began is not None else 0.0
        self.ended[test] = max(seconds, 0.0)

    def left(self, now: float) -> float | None:
        """Seconds left, or None when there is nothing to base it on yet."""
        known = self.left_and_work(now)
        return known[0] if known is not None else None

    def left_and_work(self, now: float) -> tuple[float, float] | None:
        """(seconds left, the part of them that is the tests' own work left at this run's speed),
        or None before a test of this run has ended: until then there is no telling how fast
        this environment is (a plan from a faster one said "about 0:13 left" before any had)."""
        if not self.tests or not self.ended:
            return None
        if self.plan is not None:
            return self._left_by_plan(now)
        return self._left_by_modules(now)

    def _left_by_plan(self, now: float) -> tuple[float, float]:
        assert self.plan is not None
        plan = self.plan.durations
        median = statistics.median(plan.values())
        planned = {test: plan.get(test, median) for test in self.tests}
        total = sum(planned.values())
        workers = max(self.workers, 1)
        # This environment's speed against the plan, for the long tests (the fuzzing: the
        # server's and the generator's work) and the short ones (a few requests each) apart:
        # the time its tests took over the time the plan gave them; a running test has taken
        # at least its time so far.
        long = {test for test, seconds in planned.items() if seconds >= LONG_S}
        took, gave = {True: 0.0, False: 0.0}, {True: 0.0, False: 0.0}
        for test, seconds in self.ended.items():
            if test in planned:
                took[test in long] += seconds
                gave[test in long] += planned[test]
        done = sum(gave.values())
        for test, began in self.running.items():
            so_far, given = now - began, min(planned.get(test, median), now - began)
            took[test in long] += so_far
            gave[test in long] += given
            done += given
        speed, expect = {}, 1.0
        for kind in (True, False):  # the short ones are as fast as the long ones until they say otherwise
            prior = PLAN_WEIGHT * sum(seconds for test, seconds in planned.items() if (test in long) is kind)
            speed[kind] = (took[kind] + prior * expect) / (gave[kind] + prior) if gave[kind] + prior > 0 else expect
            expect = speed[kind]
        running_left = [max(planned.get(test, median) * speed[test in long] - (now - began), 0.0)
                        for test, began in self.running.items()]
        not_begun = sum(seconds * speed[test in long] for test, seconds in planned.items()
                        if test not in self.ended and test not in self.running)
        left = max((not_begun + sum(running_left)) / workers, max(running_left, default=0.0))
        speed_all = (sum(took.values()) + PLAN_WEIGHT * total) / (sum(gave.values()) + PLAN_WEIGHT * total)
        # The earlier run's whole time less its tests' seconds is what the plan does not know
        # of (between tests, the end of the run; from a summary also the workers' start and
        # the fixtures): it goes with the tests, each its share, and is left for those not ended.
        elapsed, first, start = now - self.started, self.first_begin, self.plan.startup_s
        if start is not None:  # measured: the workers' start while it lasts, the run's end after its tests
            left += max(start - elapsed, 0.0) if first is None else 0.0
            finish = self.plan.finish_s
            unknown = max(self.plan.wall_s - start - finish - sum(plan.values()) / workers, 0.0)
        else:  # the run's end after its tests (summary, traffic, matrix), taken as a twentieth of the earlier run
            unknown = max(self.plan.wall_s - sum(plan.values()) / workers - (first if first is not None else elapsed), 0.0)
            finish = min(self.plan.wall_s / 20, unknown)
            unknown -= finish
        all_ended = len(self.ended) >= len(self.tests) and not self.running
        finishing = now - self.last_end if all_ended and self.last_end is not None else 0.0
        return left + max(finish * speed_all - finishing, 0.0) + \
            unknown * speed_all * (1 - min(len(self.ended) / len(self.tests), 1.0)), left

    def _left_by_modules(self, now: float) -> tuple[float, float] | None:
        if len(self.ended) < NO_PLAN_SHARE * len(self.tests):
            return None
        by_module: dict[str, list[float]] = {}
        for test, seconds in self.ended.items():
            by_module.setdefault(_module(test), []).append(seconds)
        overall = statistics.median(self.ended.values())

        def expected(test: str) -> float:
            known = by_module.get(_module(test))
            return statistics.mean(known) if known else overall

        workers = max(self.workers, 1)
        running_left = [max(expected(test) - (now - began), 0.0) for test, began in self.running.items()]
        not_begun = [test for test in self.tests if test not in self.ended and test not in self.running]
        left = max((sum(expected(test) for test in not_begun) + sum(running_left)) / workers,
                   max(running_left, default=0.0))
        # The workers' time outside the tests so far (between them: handing out, reporting),
        # per test ended, for the tests still to come; and the run's end after them.
        busy = sum(self.ended.values()) + sum(now - began for began in self.running.values())
        outside = max((now - self.started - (self.first_begin or 0.0)) * workers - busy, 0.0)
        work = left
        left += outside / len(self.ended) * (len(not_begun) + len(self.running)) / workers
        return left + (now - self.started) / 20, work


class Progress:
    def __init__(self, config: pytest.Config, run: Any, services: list[str], rate_per_s: float, *,
                 clock: Callable[[], float] = time.monotonic, write: Callable[[str], None] | None = None,
                 every_s: float = EVERY_S, lanes: int = 1) -> None:
        """`lanes`: the tests each worker runs side by side (conformance/side_by_side.py)."""
        self.config = config
        self.run = run
        self.lanes = lanes
        self.services = services
        self.rate_per_s = rate_per_s
        self.clock = clock
        self.every_s = every_s
        self.estimate: Estimate | None = None
        self.tests: list[str] = []
        self.started = 0.0
        self.shown = 0  # lines written: the next is due at started + (shown + 1) * every_s
        self._last: tuple[float, float, float] | None = None  # the last line's (time, time left, work left)
        self._seconds: dict[str, float] = {}  # a running test's phases so far
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._write = write or _terminal_writer(config)

    def sent(self) -> int:
        return sum(self.run.schedule(service).sent() for service in self.services if self.run.schedule(service))

    # The tests of the run: the controller's own (-n 0), or what the first worker collected
    # (xdist tells the controller once the loop has started).
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.selected([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.selected(list(ids))

    def selected(self, tests: list[str]) -> None:
        with self._lock:
            if self.tests:
                return
            self.tests = tests
            if self.estimate is not None:
                self.estimate.tests, self.estimate.plan = tests, self._plan(tests)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> None:
        self.start(self.clock())
        self._ticker = threading.Thread(target=self._tick_at_pace, name="conformance-progress", daemon=True)
        self._ticker.start()

    def start(self, now: float) -> None:
        with self._lock:
            self.started = now
            self.estimate = Estimate(self.tests, _workers(self.config) * self.lanes, now,
                                     self._plan(self.tests) if self.tests else None)

    def _plan(self, tests: list[str]) -> Plan | None:
        report_dir = getattr(self.run, "report_dir", None)
        return previous_plan(Path(report_dir), getattr(self.run, "profile_name", ""), tests) if report_dir else None

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        with self._lock:
            if self.estimate is not None:
                self.estimate.begin(nodeid, self.clock())

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A test's seconds are its phases' as its worker measured them (xdist hands the
        controller a quick test's start and end together)."""
        if getattr(report, "_schemathesis_subtest", False):
            return
        with self._lock:
            seconds = self._seconds.get(report.nodeid, 0.0) + float(getattr(report, "duration", 0.0) or 0.0)
            if report.when != "teardown":
                self._seconds[report.nodeid] = seconds
                return
            self._seconds.pop(report.nodeid, None)
            if self.estimate is not None:
                self.estimate.end(report.nodeid, self.clock(), seconds)

    def tick(self, now: float) -> None:
        """Write the line that is due at `now` (the ticker thread's, or a test's clock)."""
        with self._lock:
            if self.estimate is None or now < self.started + (self.shown + 1) * self.every_s:
                return
            self.shown = int((now - self.started) // self.every_s)
            estimate = self.estimate
            line = progress_status(self.sent(), len(estimate.ended), len(estimate.tests), now - self.started,
                                   self._left(estimate, now), planned=estimate.plan is not None)
        self._write(line)

    def _left(self, estimate: Estimate, now: float) -> float | None:
        """The time left to show: the estimate, but never more than the last line's less the
        time since, unless the tests' own work left has grown (this run slower than the plan
        said): then by that growth at most. An estimate that rose for anything else -- the
        time between tests, the run's end -- went from "about 0:13 left" to 2:00 (issue 53)."""
        known = estimate.left_and_work(now)
        if known is None:
            return None
        left, work = known
        if self._last is not None:
            then, shown, was = self._last
            left = min(left, max(shown - (now - then), 0.0) + max(work - was, 0.0))
        self._last = (now, left, work)
        return left

    def _tick_at_pace(self) -> None:
        while not self._stop.wait(max(self.started + (self.shown + 1) * self.every_s - self.clock(), 0.05)):
            self.tick(self.clock())

    def pytest_terminal_summary(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2)
        if self.started:
            now = self.clock()
            self._write(rate_line(self.sent(), now - self.started, self.rate_per_s))
            self.save(now)

    def save(self, now: float) -> None:
        """progress.json beside summary.json: each test's seconds (its phases'), the tests'
        whole time and their start -- the next run's plan (`Plan.from_progress`)."""
        report_dir = getattr(self.run, "report_dir", None)
        with self._lock:
            estimate = self.estimate
            if not report_dir or estimate is None or not estimate.ended:
                return
            data = {"wall_s": round(now - self.started, 3), "startup_s": round(estimate.first_begin or 0.0, 3),
                    "tests_end_s": round((estimate.last_end or now) - self.started, 3), "workers": _workers(self.config),
                    "tests": {t: round(s, 3) for t, s in estimate.ended.items()}}
        with contextlib.suppress(OSError):  # a convenience for the next run's estimate, never the verdict
            (Path(report_dir) / PROGRESS_FILE).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    def pytest_unconfigure(self) -> None:
        self._stop.set()


def _workers(config: pytest.Config) -> int:
    """The tests that run at once: xdist's workers, or 1."""
    count = getattr(config.option, "numprocesses", None)
    try:
        return max(int(count or 1), 1)
    except (TypeError, ValueError):
        return 1


def _terminal_writer(config: pytest.Config) -> Callable[[str], None]:
    """Lines for the terminal, written from the ticker thread: to a duplicate of the standard
    output taken now (pytest's capture of a serial run's tests redirects the descriptor
    itself), on a line of their own (pytest's progress dots leave the cursor mid-line)."""
    try:
        fd = os.dup(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        fd = None

    def write(line: str) -> None:
        reporter = config.pluginmanager.getplugin("terminalreporter")
        mid_line = bool(reporter is not None and getattr(reporter, "_tw", None) is not None
                        and reporter._tw.width_of_current_line)
        text = ("\n" if mid_line else "") + line + "\n"
        if fd is None:
            print(text, end="", flush=True)
        else:
            sys.stdout.flush()
            os.write(fd, text.encode())

    return write


def install(config: pytest.Config, run: Any, state: Any, profile: Any) -> None:
    """Show progress when the run sends to a real service (the probe measured its latency)."""
    services = [name for name in state.urls if name in state.latency_s]
    if not services or state.traffic:
        return
    from conformance.side_by_side import lanes_of

    progress = Progress(config, _RunView(run, state.report_dir, profile.name), services,
                        profile.limits.requests_per_second, lanes=lanes_of(state))
    config.pluginmanager.register(progress, "conformance-progress")


class _RunView:
    """What Progress reads of the run: its schedules, its report folder and its profile."""

    def __init__(self, run: Any, report_dir: str, profile_name: str) -> None:
        self._run = run
        self.report_dir = report_dir
        self.profile_name = profile_name

    def schedule(self, service: str) -> Any:
        return self._run.schedule(service)
