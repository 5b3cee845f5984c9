"""Every answer of the run checked against the response schema of its operation (seed parts 2
and 4): one cross-cutting check for the seed's constraints and one (SHOULD) for those the
description marks public behaviour, both fed by all the address API's answers of the run,
judged after every other test of the address suite (conformance/checks/address/response_schema.py)."""

from __future__ import annotations

from conformance import last_tests
from conformance.checks.address import response_schema as rs
from conformance.checks.registry import MUST, SHOULD, check
from conformance.http import evidence
from conformance.openapi import responses


def _gathered(request, conformance_state) -> responses.Tally:
    process = getattr(request.config, "workerinput", {}).get("workerid", "main")
    rs.flush(responses.current(), conformance_state.report_dir, process)
    # The other workers' tests: the check runs last, and waits for them to end.
    last_tests.after_the_others(request.config, conformance_state.report_dir)
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


# The description marks the constraints the seed does not state (identifier formats, the HAL
# resources' fields and links: seed part 2 "not shown") with `x-conformance-source: public`
# (conformance/openapi/seed_view.py). A violation of those only is the SHOULD check's; a
# violation of the rest (the Error members, invalid-params, one wrapper per object, a result's
# identificatie, hyperlinks on every resource) the MUST check's. The faults under which they may
# fail change the shape of answers beyond the description's schemas: the checks see them in
# every answer they touch, as they should, besides the checks aimed at them.
@check(rs.CHECK_ID, MUST, "Every answer of the run (checks, fuzzing, sample validation) matches the seed's "
       "constraints of the response schema of its operation and status",
       requirements=["ADDR-2.schemas", "ADDR-2.error", "ADDR-2.invalid-params", "ADDR-4"],
       proven_by=["address.invalid_params_without_name"],
       may_fail_under=["address.object_wrapper_ambiguous",  # an object is exactly one of the three kinds
                       "address.zoek_results_without_identificatie"],  # a result's identificatie is passed on
       sends=["nothing"], feature="response schemas")
def test_every_answer_matches_its_response_schema(request, address_api, conformance_state) -> None:
    _judged(_gathered(request, conformance_state), public=False)


# Seed part 2: "Fields of the HAL resources and their embedded parts: not shown beyond the
# schema names above." and "Formats of the identifier types ...: not shown."
@check(rs.PUBLIC_CHECK_ID, SHOULD, "Every answer of the run follows the public-behaviour constraints of its "
       "response schema (identifier formats, HAL fields and links: x-conformance-source: public)",
       requirements=["ADDR-2.fields", "BAGREF-2.1", "BAGREF-3", "BAGREF-4.2"],
       proven_by=["address.huisnummer_as_string", "address.identifiers_malformed"],
       may_fail_under=["address.embedded_self_link_missing", "address.self_link_missing",
                       "address.object_wrapper_ambiguous"],
       sends=["nothing"], feature="response schemas")
def test_every_answer_follows_the_public_behaviour_of_its_schema(request, address_api, conformance_state) -> None:
    _judged(_gathered(request, conformance_state), public=True)
