"""What one process of a run shares between the suites' fixtures: the recorder, the run's
schedule, pacer and bounds per service, the local mocks, the budget of real-time waits and
the environment's clock hook.

One `RunContext` per process, made by the pytest plugin and handed to the suites through the
`run_context` fixture: a service's fixtures (suites/<service>/conftest.py) build their clients
from it and never import the plugin. Nothing here is module state: a later run in the same
process (tests call `conformance.cli.main`) starts afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conformance.http.client import Pacer, Recorder
from conformance.http.redaction import Redactor
from conformance.profiles import Profile
from conformance.run_setup import SERVICE_TITLES, RunState


class RunContext:
    def __init__(self, state: RunState, profile: Profile, recorder: Recorder, *, cluster: Any = None,
                 countdown: Callable[[float], None] | None = None, process: str = "main") -> None:
        self.state = state
        self.process = process  # "main", or the xdist worker's id
        self.profile = profile
        self.recorder = recorder
        self._cluster = cluster  # the controller's mocks; a worker has none (mock_cluster starts its own)
        self._countdown = countdown
        self._schedules: dict[str, Any] = {}
        self._wait_budget: Any = None
        self.hook_clock: Any = None  # one clock hook per process (conformance/auth/session.py)
        self._traffic_log: Any = None
        # This process's one redactor: every client of the suites masks through it and it
        # learns every secret they see, so the failure texts it masks too (the plugin's
        # report hook) know the tokens and codes of this process's exchanges.
        self.redactor = Redactor([*state.secrets.values(), *state.reference.get("secrets", {}).values()])

    def traffic_log(self):
        """This process's part of the run's traffic.har (redacted exchanges, as attached)."""
        if self._traffic_log is None:
            from conformance.passive.har import TrafficLog

            # A passive run sent nothing: its evidence is the input's, not new traffic.
            self._traffic_log = TrafficLog(self.state.report_dir, self.process) if not self.state.traffic else _NoLog()
        return self._traffic_log

    def preflight_recorder(self) -> Recorder:
        """For the requests the run sends before its checks (the credentials, the base URL,
        the samples): straight into this process's part of traffic.har, as they are recorded."""
        return _LogRecorder(self.traffic_log())

    def schedule(self, service: str):
        """This process's handle on the run's schedule of a service (one per process): shared
        through a locked file with the other xdist workers, or in memory when the run is this
        one process (a lock and two file operations per request saved)."""
        from conformance.http.schedule import Schedule, SharedSchedule

        if not self.state.schedule_dir:
            return None
        if service not in self._schedules:
            self._schedules[service] = (SharedSchedule(Path(self.state.schedule_dir) / service)
                                        if self.state.shared_schedule else Schedule())
        return self._schedules[service]

    def bounds(self, service: str, profile: Profile | None = None):
        """The service's bounds (concurrency, circuit breaker, the run's stop) by the limits of
        `profile` (a comparison's reference has its own), else of the run's profile."""
        from conformance.http.concurrency import in_flight_bound
        from conformance.run_control import run_stop, service_bounds

        limits = (profile or self.profile).limits
        # The run's own services: the bound the preparation derived from the observed latency.
        in_flight = (None if profile is not None else self.state.in_flight.get(service)) \
            or in_flight_bound(limits.concurrency, limits.requests_per_second, None)
        stop = run_stop(self.state.schedule_dir, self.state.deadline_at or None, self.state.deadline_s or None)
        return service_bounds(stop, self.state.schedule_dir, self.state.shared_schedule, service,
                              SERVICE_TITLES.get(service, service), concurrency=in_flight,
                              breaker_failures=limits.breaker_failures, deadline_s=limits.deadline_s)

    def pacer(self, service: str) -> Pacer:
        """A pacer that keeps the profile's rate and request budget for the whole run, shared
        with the other xdist workers."""
        limits = self.profile.limits
        return Pacer(limits.requests_per_second, limits.request_budget, schedule=self.schedule(service),
                     bounds=self.bounds(service))

    def wait_budget(self):
        """One budget of real-time waits per process (safety.max_wait_s)."""
        from conformance.auth.flows import WaitBudget

        if self._wait_budget is None:
            self._wait_budget = WaitBudget(self.profile.safety.max_wait_s)
        return self._wait_budget

    def countdown(self, seconds_left: float) -> None:
        """The countdown of a real-time wait, on the terminal past pytest's output capture."""
        if self._countdown is not None:
            self._countdown(seconds_left)

    @contextmanager
    def mock_cluster(self) -> Iterator[Any]:
        """The run's local mocks, or in an xdist worker, which has none, a private cluster with
        the run's keys, faults and JWKS publisher, stopped when the block ends."""
        if self._cluster is not None:
            yield self._cluster
            return
        from conformance.mocks import faults
        from conformance.mocks.launcher import MockCluster

        cluster = MockCluster(self.profile, faults.FaultSet(frozenset(self.state.faults)),
                              jwks_base=self.state.samples.get("auth", {}).get("jwks_base"))
        cluster.secrets.update(self.state.secrets)
        try:
            yield cluster
        finally:
            cluster.stop()


class _LogRecorder(Recorder):
    def __init__(self, log: Any) -> None:
        super().__init__()
        self._log = log

    def record(self, exchange: Any) -> None:
        self._log.write([exchange])


def terminal_countdown(config: Any):
    """The countdown of a real-time wait, past pytest's output capture, on the terminal."""
    from conformance.reporting.console import wait_progress

    capture = config.pluginmanager.getplugin("capturemanager")

    def show(seconds_left: float) -> None:
        if capture is None:
            wait_progress(seconds_left)
            return
        with capture.global_and_fixture_disabled():
            wait_progress(seconds_left)

    return show


class _NoLog:
    def write(self, exchanges: object) -> None:
        return None
