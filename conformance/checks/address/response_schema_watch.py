"""The run's watch for address.response.schema_valid and address.response.public_behaviour (conformance/checks/address/response_schema.py),
as a pytest plugin object that the conformance plugin registers in each process of a run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.checks.address.response_schema import DIRNAME, JUDGES, flush
from conformance.paths import SUITES_DIR


class ResponseSchemaWatch:
    """One process's part of the check, as a pytest plugin object (the conformance plugin
    registers it): its tally written before the tests that wait for the others and at the end
    (the check's tests run last: conformance/last_tests.py)."""

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

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        # The check's test reads every process's tally once their locks are released
        # (conformance/last_tests.py): a worker releases its lock in the first of its tests
        # that waits for the others (the check's, the passive rules'), so its tally is written
        # just before such a test, and at its end. (Written after each test, it cost a run
        # hundreds of writes of the whole tally.) One process ("main", -n 0) writes it just
        # before the check's test.
        if _judges(item) or (self.judged and self.process != "main" and _waits_for_the_others(item)):
            flush(self._responses.current(), self.report_dir, self.process)

    @pytest.hookimpl(tryfirst=True)  # before the worker's lock is released (last_tests.LastTests)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        flush(self._responses.current(), self.report_dir, self.process)
        self._responses.stop()
        if self.process == "main":
            import shutil

            shutil.rmtree(Path(self.report_dir) / DIRNAME, ignore_errors=True)


_PASSIVE = f"{(SUITES_DIR / 'passive').resolve()}{os.sep}"


def _waits_for_the_others(item: pytest.Item) -> bool:
    """A test that judges what the whole run sent: a passive rule's (suites/passive)."""
    return str(item.path).startswith(_PASSIVE)


def _judges(item: pytest.Item) -> bool:
    mark = item.get_closest_marker("check")
    return bool(mark and mark.args and mark.args[0] in JUDGES)
