"""The run's own bounds, piece by piece: requests sent together, the bound on requests in
flight, the circuit breaker, the run deadline and its stop file, and the verdict a stopped
run gets (conformance/http/concurrency.py, conformance/http/stops.py, summary.py)."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

import pytest
from misbehaving_server import MisbehavingServer

from conformance.errors import ExitCode
from conformance.http.client import ApiClient, Pacer, Recorder, ServiceBounds
from conformance.http.concurrency import Slots, concurrently
from conformance.http.limits import HttpViolation
from conformance.http.redaction import Redactor
from conformance.http.schedule import Schedule, SharedSchedule
from conformance.http.stops import Breaker, RunStop, Stopped
from conformance.reporting.summary import Entry, Summary


# --------------------------------------------------------------------------- concurrently
def test_results_come_in_the_calls_order_and_run_together() -> None:
    inside, most = [0], [0]
    lock = threading.Lock()
    all_in = threading.Barrier(3, timeout=5)  # three calls in flight at once, or the barrier breaks

    def call(n: int):
        def run() -> int:
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            all_in.wait()
            with lock:
                inside[0] -= 1
            return n
        return run

    assert concurrently([call(n) for n in range(3)], limit=3) == [0, 1, 2]
    assert most[0] == 3


def test_the_first_error_in_order_is_raised_after_every_call_ended() -> None:
    ended: list[int] = []

    def call(n: int):
        def run() -> int:
            ended.append(n)
            if n in (1, 2):
                raise ValueError(f"call {n}")
            return n
        return run

    with pytest.raises(ValueError, match="call 1"):
        concurrently([call(n) for n in range(4)], limit=2)
    assert sorted(ended) == [0, 1, 2, 3]


def test_limit_one_is_the_serial_run_that_stops_at_the_first_error() -> None:
    ended: list[int] = []

    def call(n: int):
        def run() -> int:
            ended.append(n)
            if n == 1:
                raise ValueError("call 1")
            return n
        return run

    with pytest.raises(ValueError):
        concurrently([call(n) for n in range(4)], limit=1)
    assert ended == [0, 1]


# --------------------------------------------------------------------------- slots
def test_slots_bound_the_requests_in_flight_across_processes(tmp_path: Path) -> None:
    """Two held slots of a bound of two: every slot file is locked, as another process sees it."""
    slots = Slots(2, tmp_path, "soap")
    entered = threading.Barrier(3, timeout=5)
    release = threading.Event()

    def hold() -> None:
        with slots.held():
            entered.wait()
            release.wait(5)

    threads = [threading.Thread(target=hold) for _ in range(2)]
    for t in threads:
        t.start()
    entered.wait()
    busy = []
    for i in range(2):
        fd = os.open(tmp_path / f"soap.slot{i}", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            busy.append(False)
        except BlockingIOError:
            busy.append(True)
        finally:
            os.close(fd)
    release.set()
    for t in threads:
        t.join(5)
    assert busy == [True, True]
    with slots.held():  # released: a slot is free again
        pass


# --------------------------------------------------------------------------- breaker
def _violation(kind: str) -> HttpViolation:
    return HttpViolation(kind, f"a {kind} violation")


def _pacer(breaker: Breaker, schedule: Schedule | None = None) -> Pacer:
    return Pacer(schedule=schedule or Schedule(), bounds=ServiceBounds(breaker=breaker))


def test_a_run_of_failures_trips_the_breaker_and_one_answer_restarts_the_count() -> None:
    pacer = _pacer(Breaker("address API", limit=5, deadline_s=30))
    for _ in range(4):
        pacer.ended(_violation("deadline"))
    pacer.ended(None)  # one complete answer: the service still answers
    for _ in range(4):
        pacer.ended(_violation("deadline"))
    pacer.acquire()  # not tripped: never five in a row
    pacer.ended(_violation("deadline"))
    with pytest.raises(Stopped) as stopped:
        pacer.acquire()
    assert stopped.value.stop == "the address API stopped answering within 30 s after 5 requests"
    assert stopped.value.unreachable is False  # the head of each answer had come


def test_a_wrong_but_complete_answer_is_no_transport_failure() -> None:
    pacer = _pacer(Breaker("address API", limit=2))
    for _ in range(5):
        pacer.ended(_violation("encoding"))  # invalid UTF-8: the server answered
    pacer.acquire()


def test_a_service_that_never_answered_at_all_is_unreachable() -> None:
    pacer = _pacer(Breaker("SOAP message service", limit=3, deadline_s=30))
    for _ in range(3):
        pacer.ended(_violation("reset"))
    with pytest.raises(Stopped) as stopped:
        pacer.acquire()
    assert stopped.value.unreachable is True
    assert stopped.value.stop == ("the SOAP message service broke 3 requests in a row (a reset violation), "
                                  "and never answered at all")


def test_the_breaker_is_the_runs_across_processes(tmp_path: Path) -> None:
    """Two processes' pacers on one shared schedule: failures count together, and the
    trip one of them meets stops the other."""
    reason_file = tmp_path / "address.stopped"
    one = _pacer(Breaker("address API", 4, 30, reason_file), SharedSchedule(tmp_path / "address"))
    two = _pacer(Breaker("address API", 4, 30, reason_file), SharedSchedule(tmp_path / "address"))
    for pacer in (one, two, one, two):
        pacer.ended(_violation("no_answer"))
    with pytest.raises(Stopped, match="stopped answering within 30 s after 4 requests, and never answered at all"):
        two.acquire()
    with pytest.raises(Stopped):
        one.acquire()


def test_every_request_of_a_client_counts_for_its_services_breaker() -> None:
    """Through the HTTP layer: a server that resets every connection stops its service after
    the bound, and its checks are blocked without another request."""
    with MisbehavingServer(mode="reset", limit_s=10) as server:
        client = ApiClient(f"http://127.0.0.1:{server.port}", redactor=Redactor(), recorder=Recorder(),
                           pacer=_pacer(Breaker("address API", limit=3)))
        for _ in range(3):
            with pytest.raises(HttpViolation):
                client.get("/x")
        sent = len(server.requests)
        with pytest.raises(Stopped, match="the address API broke 3 requests in a row"):
            client.get("/x")
        assert len(server.requests) == sent
        client.close()


# --------------------------------------------------------------------------- run stop
def test_the_run_deadline_stops_a_request_in_flight_as_a_stop_not_a_finding() -> None:
    stop = RunStop(deadline_at=time.time() + 1.0, deadline_s=1.0)
    with MisbehavingServer(mode="hang", limit_s=10) as server:
        client = ApiClient(f"http://127.0.0.1:{server.port}", redactor=Redactor(), recorder=Recorder(),
                           pacer=Pacer(bounds=ServiceBounds(stop=stop)))
        started = time.monotonic()
        with pytest.raises(Stopped, match="run deadline of 1 s reached"):
            client.get("/x")  # the request's own deadline is 30 s
        assert time.monotonic() - started < 5
        with pytest.raises(Stopped):
            client.get("/x")
        client.close()


def test_a_stop_asked_in_one_process_reaches_the_others_and_the_first_reason_stays(tmp_path: Path) -> None:
    here, there = RunStop(stop_file=tmp_path / "stop"), RunStop(stop_file=tmp_path / "stop")
    there.check()
    here.ask("run interrupted by SIGTERM")
    here.ask("run interrupted by SIGINT")
    with pytest.raises(Stopped, match="run interrupted by SIGTERM"):
        there.check()



def test_a_stop_is_never_read_without_its_reason(tmp_path: Path) -> None:
    """The stop file appears with its reason in it: a process reading it while another asks
    never takes it for a stop without one (seen under load: one check blocked by "run
    stopped" in a run interrupted by SIGTERM). The reader polls while the asks race."""
    seen: set[str] = set()
    for attempt in range(200):
        stop_file = tmp_path / f"stop-{attempt}"
        reader, asker = RunStop(stop_file=stop_file), RunStop(stop_file=stop_file)
        done = threading.Event()

        def read(reader: RunStop = reader, done: threading.Event = done) -> None:
            while not done.is_set():
                if (reason := reader.reason()) is not None:
                    seen.add(reason)
                    return

        thread = threading.Thread(target=read)
        thread.start()
        asker.ask("run interrupted by SIGTERM")
        done.set()
        thread.join()
    assert seen <= {"run interrupted by SIGTERM"}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"stop-{i}" for i in range(200))  # no draft left


# --------------------------------------------------------------------------- verdict
def _entry(check: str, outcome: str, *, stop: str | None = None, unreachable: bool = False) -> Entry:
    return Entry(check=check, requirements=["R"], severity="MUST", suite="address", title=check, test=check,
                 outcome=outcome, stop=stop, unreachable=unreachable)


def test_a_stopped_run_could_not_judge_even_after_a_must_failure() -> None:
    summary = Summary(profile="p")
    summary.add(_entry("a", "failed"))
    summary.add(_entry("b", "blocked", stop="run deadline of 60 s reached"))
    summary.add(_entry("c", "blocked", stop="run deadline of 60 s reached"))
    assert summary.verdict() == (ExitCode.COULD_NOT_JUDGE, "could not judge: run deadline of 60 s reached "
                                                           "(2 checks not run); 1 MUST check failed before")


def test_a_service_stopped_before_it_ever_answered_is_unreachable() -> None:
    summary = Summary(profile="p")
    summary.add(_entry("a", "blocked", stop="the address API stopped answering within 30 s after 5 requests, "
                                            "and never answered at all", unreachable=True))
    code, reason = summary.verdict()
    assert code is ExitCode.UNREACHABLE and reason is not None and reason.startswith("unreachable: the address API")


def test_a_tripped_service_leaves_the_others_running(tmp_path: Path) -> None:
    from conformance.run_control import service_bounds

    stop = RunStop(stop_file=tmp_path / "stop")
    made = {name: service_bounds(stop, str(tmp_path), True, name, f"{name} service", concurrency=2,
                                 breaker_failures=2, deadline_s=30) for name in ("address", "soap")}
    address = Pacer(schedule=SharedSchedule(tmp_path / "address"), bounds=made["address"])
    soap = Pacer(schedule=SharedSchedule(tmp_path / "soap"), bounds=made["soap"])
    for _ in range(2):
        address.ended(_violation("deadline"))
    with pytest.raises(Stopped, match="the address service stopped answering"):
        address.acquire()
    soap.acquire()
    assert soap.concurrency == 2


def test_a_waiter_takes_the_first_slot_that_frees(tmp_path: Path) -> None:
    """With every slot held, a waiter of another process gets whichever slot frees first,
    not one it chose to wait for (they piled on the first slots and were served in a row)."""
    held = Slots(2, tmp_path, "soap")
    releases = [threading.Event(), threading.Event()]
    entered = [threading.Event(), threading.Event()]

    def hold(i: int) -> None:
        with held.held():
            entered[i].set()
            releases[i].wait(10)

    holders = []
    for i in range(2):  # the first takes slot 0, the second slot 1
        holders.append(threading.Thread(target=hold, args=(i,)))
        holders[-1].start()
        assert entered[i].wait(5)
    got = threading.Event()

    def wait_for_a_slot() -> None:
        with Slots(2, tmp_path, "soap").held():  # another process's bound of the same service
            got.set()

    waiter = threading.Thread(target=wait_for_a_slot)
    waiter.start()
    releases[0].set()  # slot 0 frees; slot 1 stays held
    assert got.wait(5)
    releases[1].set()
    for t in [*holders, waiter]:
        t.join(5)
