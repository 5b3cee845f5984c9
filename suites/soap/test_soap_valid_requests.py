"""Generated schema-valid requests (5a) and what the service answers (5b).

Every check here judges the run's valid batch (conformance/checks/soap/support.py): the
schema-valid requests hypothesis draws once from the run's seed, sent once, together. Each
check judges the answer to every one of them; the first that fails is its finding. The rules
one answer can show broken (media type, charset, envelope, DTD, the response element and its
schema) are exchange rules: conformance/passive/rules/soap.py, suites/soap/test_exchange_rules.py.

The reference to the request needs a response: when the valid request is refused (a Fault,
another status) it is `blocked` under the refusal's cause, and soap.response.status_ok fails
under that same cause.
"""

from __future__ import annotations

import pytest

from conformance.checks.registry import MUST, SHOULD, check
from conformance.checks.soap import messages
from conformance.checks.soap.support import REFERENCE_PAIRS, Sent, SoapSuite


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@check("soap.response.status_ok", MUST, "A schema-valid request is answered with HTTP 200 and no Fault",
       requirements=["SOAP-4.operation", "SOAP11-6.2", "WSI-BP11-R1111"],
       proven_by=["soap.every_request_refused", "soap.valid_request_refused"],
       may_fail_under=["soap.oversized_response", "soap.response_with_entity_bomb", "soap.response_with_external_entity"],
       feature="part 4 / responses to valid requests")
def test_valid_request_gets_200(suite: SoapSuite) -> None:
    def judge(sent: Sent) -> None:
        messages.check_status_ok(sent.exchange, cause=suite.refusal_cause(sent.exchange))

    suite.judge_valid(judge)


@check("soap.response.refers_to_request", SHOULD, "The response (5b) refers to its request (5a): the request's BerichtId and MeldingNummer",
       requirements=["SOAP-1.message-exchange"],
       proven_by=["soap.response_reference_wrong"],
       may_fail_under=["soap.oversized_response", "soap.response_with_entity_bomb", "soap.response_with_external_entity", "soap.response_wrong_namespace"],
       feature="part 4 / responses to valid requests")
def test_response_refers_to_the_request(suite: SoapSuite) -> None:
    def judge(sent: Sent) -> None:
        suite.require_response(sent.exchange)
        messages.check_refers_to_request(sent.exchange, sent.request, REFERENCE_PAIRS)

    suite.judge_valid(judge)
