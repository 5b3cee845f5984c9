"""Adaptive pacing: the harness reads the server's rate-limit headers and never lets the rate
limit decide a check that is not about it."""

from __future__ import annotations

import pytest
from rate_limited_server import RateLimitedServer

from conformance.findings import Blocked
from conformance.http.client import ApiClient, Pacer, Recorder, retry_after_s
from conformance.http.redaction import Redactor


def client(url: str, pacer: Pacer, *, retry: bool) -> tuple[ApiClient, Recorder]:
    recorder = Recorder()
    return ApiClient(url, redactor=Redactor(), recorder=recorder, pacer=pacer, retry_rate_limited=retry), recorder


def test_paced_at_the_servers_limit_provokes_no_429() -> None:
    # Paced at exactly the server's limit: window edges alone would let some through twice;
    # RateLimit-Remaining reaching 0 holds the next request until RateLimit-Reset.
    with RateLimitedServer(per_second=10) as server:
        api, _ = client(server.url, Pacer(10), retry=True)
        assert all(api.get("/x").status == 200 for _ in range(35))
        assert server.answered.get(429, 0) == 0, server.answered


def test_a_429_is_waited_out_and_sent_again() -> None:
    with RateLimitedServer(per_second=3) as server:
        # Not adaptive, so the server must refuse some; each refusal is waited out and resent.
        api, recorder = client(server.url, Pacer(0, adaptive=False), retry=True)
        statuses = [api.get("/x").status for _ in range(8)]
        assert statuses == [200] * 8  # the rate limit decided none of them
        assert server.answered.get(429, 0) >= 1 and any(ex.status == 429 for ex in recorder.exchanges)


def test_a_flood_client_sees_its_429() -> None:
    with RateLimitedServer(per_second=3) as server:
        api, _ = client(server.url, Pacer(0, adaptive=False), retry=False)
        statuses = [api.get("/x").status for _ in range(10)]
        assert 429 in statuses


def test_a_retry_after_beyond_the_cap_blocks_the_check() -> None:
    with RateLimitedServer(per_second=1, always_429_for=3600) as server:
        api, _ = client(server.url, Pacer(0), retry=True)
        with pytest.raises(Blocked, match="429"):
            api.get("/x")
        assert server.answered == {429: 1}  # not sent again: an hour is past the cap


def test_retry_after_forms() -> None:
    assert retry_after_s("7") == 7 and retry_after_s(None) is None and retry_after_s("soon") is None
    assert retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT") == 0  # in the past


# --------------------------------------------------------------------------- the schedule
class FakeTime:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_remaining_at_zero_holds_until_the_earliest_window_end_read(monkeypatch) -> None:
    from conformance.http import schedule as s

    clock = FakeTime(1000.02)
    monkeypatch.setattr(s.time, "time", clock)
    sched = s.Schedule()
    assert sched.observe(19, 1, None, 60) is None  # first answer of a window: it ends by 1001.02
    clock.now = 1000.97
    wait = sched.observe(0, 1, None, 60)  # Reset is whole seconds: read alone, it would say 1.0 s
    assert wait is not None and abs(wait - 0.05) < 1e-6
    assert sched.reserve(0.05, 0) == 1001.02
    clock.now = 1001.03
    assert sched.observe(19, 1, None, 60) is None  # Remaining went up: a new window, ending by 1002.03
    clock.now = 1001.98
    assert abs(sched.observe(0, 1, None, 60) - 0.05) < 1e-6


def test_a_stale_window_end_is_not_trusted(monkeypatch) -> None:
    from conformance.http import schedule as s

    clock = FakeTime(2000.0)
    monkeypatch.setattr(s.time, "time", clock)
    sched = s.Schedule()
    sched.observe(5, 1, None, 60)
    clock.now = 2003.5  # that window is long over; nothing read since
    assert sched.observe(0, 2, None, 60) == 2  # the whole Reset, the only safe reading


def test_workers_share_one_budget_and_one_hold(tmp_path) -> None:
    from conformance.http.schedule import BudgetSpent, SharedSchedule

    first, second = SharedSchedule(tmp_path / "address"), SharedSchedule(tmp_path / "address")
    for _ in range(3):
        first.reserve(0.0, 5)
    second.reserve(0.0, 5)
    first.reserve(0.0, 5, paced=False)  # a flood counts against the budget too
    with pytest.raises(BudgetSpent):
        second.reserve(0.0, 5)
    third = SharedSchedule(tmp_path / "hold")
    other = SharedSchedule(tmp_path / "hold")
    third.hold(30)
    import time

    assert other.reserve(0.0, 0) >= time.time() + 29  # what one worker was told holds the other
    assert other.reserve(0.0, 0, paced=False) < time.time() + 1  # but not a flood


def test_a_client_says_before_a_test_starts_that_it_would_send_nothing(tmp_path) -> None:
    """`refusing` raises what the next request would: a fuzzing test whose every example is a
    request is not judged before it starts, under the reason its first request would give."""
    from conformance.http.client import BudgetExhausted
    from conformance.http.schedule import SharedSchedule
    from conformance.http.stops import RunStop, Stopped

    pacer = Pacer(0, 2, schedule=SharedSchedule(tmp_path / "address"))
    pacer.refusing()
    pacer.acquire()
    pacer.refusing()  # one request left: nothing raised, nothing reserved
    pacer.acquire()
    with pytest.raises(BudgetExhausted) as before:
        pacer.refusing()
    with pytest.raises(BudgetExhausted) as sending:
        pacer.acquire()
    assert str(before.value) == str(sending.value)
    assert "request budget of 2 used up" in str(before.value)
    stop = RunStop(stop_file=tmp_path / "stop")
    stop.ask("run interrupted by SIGTERM")
    from conformance.http.client import ServiceBounds

    with pytest.raises(Stopped, match="SIGTERM"):
        Pacer(0, 0, bounds=ServiceBounds(stop=stop)).refusing()


def test_a_rate_shared_by_workers_is_the_profiles_rate(tmp_path) -> None:
    from conformance.http.schedule import SharedSchedule

    a, b = SharedSchedule(tmp_path / "s"), SharedSchedule(tmp_path / "s")
    starts = sorted([a.reserve(0.1, 0), b.reserve(0.1, 0), a.reserve(0.1, 0), b.reserve(0.1, 0)])
    gaps = [round(y - x, 3) for x, y in zip(starts, starts[1:], strict=False)]
    assert all(g >= 0.099 for g in gaps), gaps  # 10/s for the run, not 10/s each


def test_a_run_of_one_process_keeps_its_schedule_in_memory_and_a_parallel_run_shares_a_file(tmp_path) -> None:
    from types import SimpleNamespace

    from conformance.http.schedule import SharedSchedule
    from conformance.profiles import load_profile
    from conformance.run_context import RunContext
    from conformance.run_setup import RunState, runs_workers

    def run_schedule(state, service):  # one RunContext per run, as the plugin makes it
        if id(state) not in contexts:
            contexts[id(state)] = RunContext(state, profile, recorder=None)
        return contexts[id(state)].schedule(service)

    profile, contexts = load_profile("local-mock"), {}
    serial = RunState("p", [], "r", 1, schedule_dir=str(tmp_path / "serial"), shared_schedule=False)
    address = run_schedule(serial, "address")
    assert not isinstance(address, SharedSchedule)
    assert run_schedule(serial, "address") is address  # one per service for the whole run
    assert run_schedule(serial, "auth") is not address
    address.reserve(0.0, 1)
    later = RunState("p", [], "r", 1, schedule_dir=str(tmp_path / "later"), shared_schedule=False)
    run_schedule(later, "address").reserve(0.0, 1)  # a later run in the same process starts afresh

    (tmp_path / "parallel").mkdir()
    parallel = RunState.from_json(RunState("p", [], "r", 1, schedule_dir=str(tmp_path / "parallel")).to_json())
    assert isinstance(run_schedule(parallel, "address"), SharedSchedule)

    def options(**kw):
        return SimpleNamespace(option=SimpleNamespace(**kw))

    assert runs_workers(options(numprocesses=2, dist="load"))
    assert runs_workers(options(numprocesses="auto", dist="load"))
    assert not runs_workers(options(numprocesses=0, dist="no"))
    assert not runs_workers(options())  # -p no:xdist
