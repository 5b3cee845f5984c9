"""Every answer of the run checked against the response schema of its operation (seed parts 2
and 4): one cross-cutting check for the seed's constraints and one (SHOULD) for those the
description marks public behaviour, both fed by all the address API's answers of the run,
judged after every other test of the address suite (conformance/checks/address/response_schema.py)."""

from __future__ import annotations

import pytest

from conformance.checks.address import response_schema as rs
from conformance.http import evidence
from conformance.openapi import responses


def _gathered(request, conformance_state) -> responses.Tally:
    worker = getattr(request.config, "workerinput", {})
    process = worker.get("workerid", "main")
    rs.flush(responses.current(), conformance_state.report_dir, process)
    if worker:  # the other workers' tests: the check runs last, and waits for them to end
        rs.release_running(process)
        rs.wait_for_workers(conformance_state.report_dir, process, int(worker["workercount"]))
    return rs.gather(conformance_state.report_dir)


def _judged(tally: responses.Tally, *, public: bool) -> None:
    violations = [v for v in rs.ordered(tally) if v.public == public]
    # The offending answers as evidence, once each (they are in traffic.har already).
    evidence.attach_exchanges([ex for v in violations if (ex := v.first_exchange()) is not None])
    evidence.attach_observation({"validated": tally.validated,
                                 "offending": tally.offending_public if public else tally.offending,
                                 "not_validated": dict(tally.skipped),
                                 "violations": [rs.describe(v) for v in violations]})
    rs.judge(tally, public=public)


@pytest.mark.check(rs.CHECK_ID)
def test_every_answer_matches_its_response_schema(request, address_api, conformance_state) -> None:
    _judged(_gathered(request, conformance_state), public=False)


@pytest.mark.check(rs.PUBLIC_CHECK_ID)
def test_every_answer_follows_the_public_behaviour_of_its_schema(request, address_api, conformance_state) -> None:
    _judged(_gathered(request, conformance_state), public=True)
