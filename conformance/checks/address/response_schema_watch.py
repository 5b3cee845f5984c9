"""The run's watch for address.response.schema_valid and address.response.public_behaviour (conformance/checks/address/response_schema.py),
as a pytest plugin object that the conformance plugin registers in each process of a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.checks.address.response_schema import DIRNAME, JUDGES, flush


class ResponseSchemaWatch:
    """One process's part of the check, as a pytest plugin object (the conformance plugin
    registers it): its tally written after each test and at the end (the check's tests run
    last: conformance/last_tests.py)."""

    def __init__(self, report_dir: str, process: str) -> None:
        from conformance.openapi import responses

        if responses.current() is None:  # a worker; the controller watches since its run started
            responses.start()
        self._responses = responses
        self.report_dir, self.process = report_dir, process
        self.judged = False  # whether this process has the check's test among its items
        flush(responses.current(), report_dir, process)  # the controller's sample validation

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.judged = any(_judges(item) for item in items)

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        # A worker's tally is on disk after each of its tests: the check's test, in another
        # worker, reads it once this worker's lock is released (conformance/last_tests.py).
        # One process ("main", -n 0) writes it just before the check's test instead: after
        # every test it wrote the whole tally again, a tenth of an address run.
        if self.judged and self.process != "main":  # else no check waits for this tally
            flush(self._responses.current(), self.report_dir, self.process)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if self.process == "main" and _judges(item):
            flush(self._responses.current(), self.report_dir, self.process)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        flush(self._responses.current(), self.report_dir, self.process)
        self._responses.stop()
        if self.process == "main":
            import shutil

            shutil.rmtree(Path(self.report_dir) / DIRNAME, ignore_errors=True)


def _judges(item: pytest.Item) -> bool:
    mark = item.get_closest_marker("check")
    return bool(mark and mark.args and mark.args[0] in JUDGES)
