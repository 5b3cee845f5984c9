"""Progress of a long run against a real deployment, on the console: the requests sent of
the planned estimate, the rate achieved and the time left, and at the end the rate achieved
as a share of the profile's limit.

The controller's plugin object; the counts are the run's shared schedules' (every request of
every worker reserves its place there: conformance/http/schedule.py). The estimate is the
requests sent so far scaled by the tests not yet finished (the fuzzing, which sends most,
goes first: conformance/xdist_order.py, so it starts high and comes down). Runs of loopback
mocks only, and the first seconds of any run, print nothing.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance.reporting.console import progress_line, rate_line

EVERY_S = 10.0  # the first line after this long, then at most one this often


class Progress:
    def __init__(self, config: pytest.Config, run: Any, services: list[str], rate_per_s: float) -> None:
        self.config = config
        self.run = run
        self.services = services
        self.rate_per_s = rate_per_s
        self.total = 0
        self.finished = 0
        self.started = 0.0
        self.shown_at = 0.0

    def sent(self) -> int:
        return sum(self.run.schedule(service).sent() for service in self.services if self.run.schedule(service))

    # The tests of the run: the controller's own (-n 0), or what the first worker collected.
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = len(session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.total = self.total or len(ids)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self) -> None:
        self.started = self.shown_at = time.monotonic()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        self.finished += 1
        now = time.monotonic()
        if now - self.shown_at < EVERY_S or not self.total:
            return
        self.shown_at = now
        self._write(progress_line(self.sent(), self.finished, self.total, now - self.started))

    def pytest_terminal_summary(self) -> None:
        if self.started:
            self._write(rate_line(self.sent(), time.monotonic() - self.started, self.rate_per_s))

    def _write(self, line: str) -> None:
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        if reporter is None:
            print(line, flush=True)
        else:  # on a line of its own: pytest's progress dots leave the cursor mid-line
            if reporter._tw.width_of_current_line:
                reporter.write("\n")
            reporter.write_line(line)


def install(config: pytest.Config, run: Any, state: Any, profile: Any) -> None:
    """Show progress when the run sends to a real service (the probe measured its latency)."""
    services = [name for name in state.urls if name in state.latency_s]
    if not services or state.traffic:
        return
    config.pluginmanager.register(Progress(config, run, services, profile.limits.requests_per_second),
                                  "conformance-progress")
