"""Generated schema-valid requests (5a) and what the service answers (5b).

Every check here judges the run's valid batch (conformance/checks/soap/support.py): the
schema-valid requests hypothesis draws once from the run's seed, sent once, together. Each
check judges the answer to every one of them; the first that fails is its finding.

The checks on the response element need a response: when the valid request is refused
(a Fault, another status) they are `blocked` under the refusal's cause, and
soap.response.status_ok fails under that same cause. Media type, envelope and DTD are
judged on whatever the answer is.
"""

from __future__ import annotations

import pytest

from conformance.checks.soap import messages
from conformance.checks.soap.support import REFERENCE_PAIRS, Sent, SoapSuite


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@pytest.mark.check("soap.response.status_ok")
def test_valid_request_gets_200(suite: SoapSuite) -> None:
    def judge(sent: Sent) -> None:
        messages.check_status_ok(sent.exchange, cause=suite.refusal_cause(sent.exchange))

    suite.judge_valid(judge)


@pytest.mark.check("soap.response.content_type")
def test_response_is_text_xml_with_charset(suite: SoapSuite) -> None:
    suite.judge_valid(lambda sent: messages.check_content_type(sent.exchange))


@pytest.mark.check("soap.response.envelope")
def test_response_is_a_soap11_envelope(suite: SoapSuite) -> None:
    suite.judge_valid(lambda sent: messages.check_envelope(sent.exchange))


@pytest.mark.check("soap.response.body_element")
def test_body_holds_the_output_element(suite: SoapSuite) -> None:
    assert suite.operation.output_element is not None
    output_element = suite.operation.output_element

    def judge(sent: Sent) -> None:
        suite.require_response(sent.exchange)
        messages.check_body_element(sent.exchange, output_element)

    suite.judge_valid(judge)


@pytest.mark.check("soap.response.schema_valid")
def test_response_is_schema_valid(suite: SoapSuite) -> None:
    def judge(sent: Sent) -> None:
        suite.require_response(sent.exchange)
        messages.check_schema_valid(sent.exchange, suite.contract)

    suite.judge_valid(judge)


@pytest.mark.check("soap.response.refers_to_request")
def test_response_refers_to_the_request(suite: SoapSuite) -> None:
    def judge(sent: Sent) -> None:
        suite.require_response(sent.exchange)
        messages.check_refers_to_request(sent.exchange, sent.request, REFERENCE_PAIRS)

    suite.judge_valid(judge)


@pytest.mark.check("soap.response.no_dtd")
def test_response_has_no_dtd(suite: SoapSuite) -> None:
    suite.judge_valid(lambda sent: messages.check_no_dtd(sent.exchange))
