"""Fixtures of the SOAP suite: the run's valid batch is one per run, across xdist workers.

The schema-valid requests every valid-request check judges and every negative check takes
its controls from (conformance/checks/soap/support.py) are sent once: in a run with workers,
by the first worker that needs them, its answers kept in the run's shared directory for the
others.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _one_valid_batch_per_run(soap_service, conformance_state) -> None:
    if conformance_state.shared_schedule and conformance_state.schedule_dir:
        soap_service.shared_dir = conformance_state.schedule_dir
