"""Every answer of the run checked against the response schema of its operation (seed parts 2
and 4): one cross-cutting check, fed by all the address API's answers of the run, judged
after every other test of the address suite (conformance/checks/address/response_schema.py)."""

from __future__ import annotations

import pytest

from conformance.checks.address import response_schema as rs
from conformance.http import evidence
from conformance.openapi import responses


@pytest.mark.check(rs.CHECK_ID)
def test_every_answer_matches_its_response_schema(request, address_api, conformance_state) -> None:
    worker = getattr(request.config, "workerinput", {})
    process = worker.get("workerid", "main")
    rs.flush(responses.current(), conformance_state.report_dir, process)
    if worker:  # the other workers' tests: the check runs last, and waits for them to end
        rs.wait_for_workers(conformance_state.report_dir, process, int(worker["workercount"]))
    tally = rs.gather(conformance_state.report_dir)
    # The offending answers as evidence, once each (they are in traffic.har already).
    offending = [ex for v in rs.ordered(tally) if (ex := v.first_exchange()) is not None]
    evidence.attach_exchanges(offending)
    evidence.attach_observation({"validated": tally.validated, "offending": tally.offending,
                                       "not_validated": dict(tally.skipped),
                                       "violations": [rs.describe(v) for v in rs.ordered(tally)]})
    rs.judge(tally)
