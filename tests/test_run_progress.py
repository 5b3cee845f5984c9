"""Progress that helps (issue 43): a line at a fixed pace, and an estimate of the time left
within a factor of two from the first tenth of the run on.

The simulated run is the address suite's as measured against the local mock described as a
deployment with two workers (`conformance run --suite address -n 2`, 57 s): 8 s for the
workers to start, the contract fuzzing first (ten tests of 2.5 to 19 s, slow ones spread
over the workers by conformance/xdist_order.py), then twelve tests judged on the fuzzing's
answers and 455 short ones. The old estimate (the requests sent, scaled by the tests ended)
first spoke 36-41 s in and said "about 3:41 left" with 21 s to go. No sleeps: the runs are
fed to the estimate and to the line's writer with their own clock.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.run_progress import Estimate, Plan, Progress, previous_plan

LONG = [12.15, 18.99, 10.81, 3.32, 3.07, 2.46, 5.7, 2.72, 7.46, 2.98]
STARTUP_S = 8.0  # the workers' start
FINISH_S = 2.7  # after the last test: the summary, the traffic log, the matrix
MODULES = ("test_endpoints_adressen", "test_endpoints_adresseerbareobjecten", "test_general_paging",
           "test_general_errors", "test_general_headers")


def suite(rng: random.Random) -> list[tuple[str, float]]:
    """(test id, seconds) in the order xdist hands them out."""
    tests = [(f"address/test_contract.py::test_operation_{i}", seconds) for i, seconds in enumerate(LONG)]
    tests += [(f"address/test_contract.py::test_should_rules_{i}", 0.015) for i in range(12)]
    tests += [(f"address/{MODULES[i % 5]}.py::test_{i}", 0.01 + 0.14 * rng.random() ** 3) for i in range(455)]
    return tests


def simulate(tests: list[tuple[str, float]], workers: int, startup: float,
             finish: float = FINISH_S) -> tuple[list[tuple[float, str, str]], float]:
    """Each test's begin and end: the workers take the next test when free (xdist's refills);
    and when the run ends."""
    free = [startup] * workers
    events = []
    for test, seconds in tests:
        worker = min(range(workers), key=lambda w: free[w])
        events += [(free[worker], "begin", test), (free[worker] + seconds, "end", test)]
        free[worker] += seconds
    return sorted(events), max(free) + finish


def previous_run(tests: list[tuple[str, float]], rng: random.Random, speed: float, noise: float,
                 measured: bool = True) -> Plan:
    """The plan a previous run left: each test `speed` times as fast, give or take `noise`;
    `measured`: its progress.json (the tests' start known), else its summary.json."""
    durations = {test: seconds / speed * (1 + noise * (2 * rng.random() - 1)) for test, seconds in tests}
    _, wall = simulate([(test, durations[test]) for test, _ in tests], 2, STARTUP_S / speed, FINISH_S / speed)
    if not measured:
        return Plan(durations, wall + 2.5)  # a summary's time also holds the mocks' start and the preflight
    return Plan(durations, wall, STARTUP_S / speed, finish_s=FINISH_S / speed)


def worst_ratio(estimate: Estimate, events: list[tuple[float, str, str]], total: float, since: float) -> float:
    """The worst of estimate/actual and actual/estimate of the time left, every half second
    from `since` (a share of the run; at the earliest once a test of the run has ended: no
    estimate before) while more than a second is left."""
    worst, index, now = 1.0, 0, 0.0
    first_end = min(at for at, kind, _ in events if kind == "end")
    while now < total - 1:
        while index < len(events) and events[index][0] <= now:
            at, kind, test = events[index]
            estimate.begin(test, at) if kind == "begin" else estimate.end(test, at)
            index += 1
        left = estimate.left(now)
        if now < first_end:
            assert left is None, now
        if now >= max(since * total, first_end):
            assert left is not None and left > 0, now
            worst = max(worst, left / (total - now), (total - now) / left)
        now += 0.5
    return worst


@pytest.mark.parametrize("measured", [True, False], ids=["progress.json", "summary.json"])
@pytest.mark.parametrize("speed", [1.0, 1.5, 1 / 1.5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_estimate_holds_from_the_first_tenth_of_the_run(speed: float, seed: int, measured: bool) -> None:
    """A rerun of the profile (each test 30 % off its previous time, the environment up to
    1.5 times slower or faster than it was): within a factor of two from 10 % of the run on,
    once a test has ended (here its first fifth: the workers' start and the long tests first)."""
    rng = random.Random(seed)
    tests = suite(rng)
    events, total = simulate(tests, 2, STARTUP_S)
    estimate = Estimate([test for test, _ in tests], 2, 0.0, previous_run(tests, rng, speed, 0.3, measured))
    assert worst_ratio(estimate, events, total, since=0.1) <= 2.0


@pytest.mark.parametrize("speed", [3.0, 1 / 3.0])
def test_a_plan_from_another_environment_is_corrected_by_the_runs_own_tests(speed: float) -> None:
    """A plan three times off (the local mock's run as the plan of a slow vendor's): within a
    factor of two once the long tests have said how fast this environment is."""
    rng = random.Random(4)
    tests = suite(rng)
    events, total = simulate(tests, 2, STARTUP_S)
    estimate = Estimate([test for test, _ in tests], 2, 0.0, previous_run(tests, rng, speed, 0.3))
    assert worst_ratio(estimate, events, total, since=0.5) <= 2.0


def test_without_a_previous_run_no_estimate_until_a_quarter_of_the_tests_ended() -> None:
    rng = random.Random(5)
    tests = suite(rng)
    events, total = simulate(tests, 2, STARTUP_S)
    estimate = Estimate([test for test, _ in tests], 2, 0.0, None)
    needed = math.ceil(len(tests) / 4)
    quarter = sorted(at for at, kind, _ in events if kind == "end")[needed - 1]
    for at, kind, test in events:
        if at > quarter:
            break
        estimate.begin(test, at) if kind == "begin" else estimate.end(test, at)
        if len(estimate.ended) < needed:
            assert estimate.left(at) is None
    left = estimate.left(quarter)
    assert left is not None and 0.5 <= left / (total - quarter) <= 2.0


# ----------------------------------------------------------------- the line and its pace
class Schedule:
    def __init__(self) -> None:
        self.count = 0

    def sent(self) -> int:
        return self.count


def finished(progress: Progress, test: str, seconds: float) -> None:
    """A test's reports as xdist hands them to the controller: its phases, with the seconds
    its worker measured."""
    for when, share in (("setup", 0.2), ("call", 0.7), ("teardown", 0.1)):
        progress.pytest_runtest_logreport(SimpleNamespace(when=when, nodeid=test, duration=seconds * share))  # type: ignore[arg-type]


def summary_of(tests: list[tuple[str, float]], profile: str, started: str, finished: str) -> dict[str, Any]:
    return {"profile": profile, "mode": "active", "started": started, "finished": finished,
            "checks": [{"check": "c", "test": test, "duration_s": seconds} for test, seconds in tests]}


def test_a_line_at_a_fixed_pace_with_the_previous_runs_plan(tmp_path: Path) -> None:
    rng = random.Random(6)
    tests = suite(rng)
    events, total = simulate(tests, 2, STARTUP_S)
    # The reports folder: an earlier run of this profile, one of another, and this run's own.
    earlier = tmp_path / "20260301T010000Z-vendor"
    earlier.mkdir()
    (earlier / "summary.json").write_text(json.dumps(summary_of(tests, "vendor", "2026-03-01T01:00:00+00:00",
                                                                "2026-03-01T01:00:59+00:00")))
    other = tmp_path / "20260302T010000Z-local-mock"
    other.mkdir()
    (other / "summary.json").write_text(json.dumps(summary_of([(t, s / 10) for t, s in tests], "local-mock",
                                                              "2026-03-02T01:00:00+00:00", "2026-03-02T01:00:09+00:00")))
    this = tmp_path / "20260303T010000Z-vendor"
    this.mkdir()
    plan = previous_plan(this, "vendor", [test for test, _ in tests])
    assert plan is not None and plan.source == str(earlier) and plan.wall_s == 59  # the same profile first
    assert previous_plan(this, "vendor-y", [test for test, _ in tests]) is not None  # else any that selected them
    assert previous_plan(this, "vendor", ["address/x.py::test_new"]) is None  # not one that selected others

    schedule, lines, clock, seconds = Schedule(), [], [0.0], dict(tests)
    run = SimpleNamespace(schedule=lambda service: schedule, report_dir=str(this), profile_name="vendor")
    config = SimpleNamespace(option=SimpleNamespace(numprocesses=2))
    progress = Progress(config, run, ["address"], 0.0, clock=lambda: clock[0], write=lines.append)  # type: ignore[arg-type]
    progress.start(0.0)
    progress.pytest_xdist_node_collection_finished(None, [test for test, _ in tests])
    index = 0
    while clock[0] < total:  # asked at uneven times, the line comes once per period, on time
        clock[0] = round(clock[0] + rng.uniform(0.01, 0.3), 3)
        while index < len(events) and events[index][0] <= clock[0]:
            at, kind, test = events[index]
            if kind == "begin":
                progress.pytest_runtest_logstart(test, None)
            else:
                finished(progress, test, seconds[test])
            index += 1
        schedule.count = int(45 * max(clock[0] - STARTUP_S, 0))
        progress.tick(clock[0])
    assert [line.split(" — ")[0] for line in lines] == [f"conformance: 0:{5 * n:02d}" for n in range(1, int(total // 5) + 1)]
    before = [line for line in lines if f" 0 of {len(tests)} tests ended" in line]
    assert before and all("no estimate yet" in line for line in before)  # the plan alone says nothing
    assert all("about " in line for line in lines[len(before):])
    assert lines[0] == f"conformance: 0:05 — 0 requests sent (0.0/s), 0 of {len(tests)} tests ended, " \
                       f"no estimate yet (none of the tests has ended)"
    assert "(from this run's tests alone)" not in "".join(lines)
    for line in lines[len(before):]:  # every estimate within a factor of two (the line's whole seconds: while 2 s are left)
        shown = int(line.split(" — ")[0].split(":")[2]) + 60 * int(line.split(" — ")[0].split(":")[1])
        minutes, secs = line.rsplit("about ", 1)[1].removesuffix(" left").split(":")
        if total - shown > 2:
            assert 0.5 <= (60 * int(minutes) + int(secs) + 0.5) / (total - shown + 0.5) <= 2.0, (line, total - shown)


def test_a_run_leaves_its_tests_times_as_the_next_runs_plan(tmp_path: Path) -> None:
    """progress.json: what the tests took as the controller saw them; the next run prefers
    it to summary.json's deciding phases."""
    earlier, this = tmp_path / "20260301T010000Z-vendor", tmp_path / "20260302T010000Z-vendor"
    earlier.mkdir()
    this.mkdir()
    tests = [("address/test_contract.py::test_a", 12.0), ("address/test_general_paging.py::test_b", 0.02)]
    (earlier / "summary.json").write_text(json.dumps(summary_of(tests, "vendor", "2026-03-01T01:00:00+00:00",
                                                                "2026-03-01T01:00:30+00:00")))
    clock, schedule = [100.0], Schedule()
    run = SimpleNamespace(schedule=lambda service: schedule, report_dir=str(earlier), profile_name="vendor")
    config = SimpleNamespace(option=SimpleNamespace(numprocesses=0))
    progress = Progress(config, run, ["address"], 50.0, clock=lambda: clock[0], write=lambda line: None)  # type: ignore[arg-type]
    progress.selected([test for test, _ in tests])
    progress.start(100.0)
    for test, seconds in [("address/test_contract.py::test_a", 14.5), ("address/test_general_paging.py::test_b", 0.5)]:
        clock[0] += 1.0
        progress.pytest_runtest_logstart(test, None)
        clock[0] += seconds
        finished(progress, test, seconds)
    clock[0] += 2.0  # the run's end: summary, traffic log, matrix
    progress.pytest_terminal_summary()
    saved = json.loads((earlier / "progress.json").read_text())
    assert saved == {"wall_s": 19.0, "startup_s": 1.0, "tests_end_s": 17.0, "workers": 1,
                     "tests": {"address/test_contract.py::test_a": 14.5, "address/test_general_paging.py::test_b": 0.5}}
    plan = previous_plan(this, "vendor", [test for test, _ in tests])
    assert plan is not None and plan.durations == saved["tests"]
    assert (plan.wall_s, plan.startup_s, plan.finish_s) == (19.0, 1.0, 2.0)


class Scripted:
    """An estimate that says what it is told: (time left, the tests' own work left) by time."""

    def __init__(self, said: dict[float, tuple[float, float] | None]) -> None:
        self.said = said

    def left_and_work(self, now: float) -> tuple[float, float] | None:
        return self.said[now]


def test_the_time_left_shown_grows_only_with_the_work_left() -> None:
    """Issue 53: "about 0:13 left", then 2:00. Once shown, the time left counts down from the
    last line; it rises only by what the tests' own work left grew (this run turning out
    slower than its plan said), never for the rest of the estimate."""
    said = {5.0: None, 10.0: (30.0, 25.0), 15.0: (60.0, 25.0), 20.0: (60.0, 40.0), 25.0: (10.0, 8.0),
            30.0: (40.0, 8.0)}
    config = SimpleNamespace(option=SimpleNamespace(numprocesses=2))
    progress = Progress(config, SimpleNamespace(), ["address"], 0.0, write=lambda line: None)  # type: ignore[arg-type]
    shown = [progress._left(Scripted(said), now) for now in sorted(said)]  # type: ignore[arg-type]
    assert shown == [None, 30.0, 25.0, 35.0, 10.0, 5.0]


def test_a_plan_alone_gives_no_estimate_before_a_test_of_the_run_ended() -> None:
    rng = random.Random(7)
    tests = suite(rng)
    events, total = simulate(tests, 2, STARTUP_S)
    estimate = Estimate([test for test, _ in tests], 2, 0.0, previous_run(tests, rng, 1 / 10, 0.0))  # ten times as fast
    first = min(event for event in events if event[1] == "end")
    for at, kind, test in events:
        if (at, kind, test) == first:
            break
        estimate.begin(test, at) if kind == "begin" else estimate.end(test, at)
        assert estimate.left(at) is None
    estimate.end(first[2], first[0])
    assert estimate.left(first[0]) is not None
