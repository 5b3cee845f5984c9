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

from conformance.checks.registry import MUST, SHOULD, check
from conformance.checks.soap import messages
from conformance.checks.soap.support import REFERENCE_PAIRS, WSI_ONLY, Sent, SoapSuite


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


@check("soap.response.content_type", MUST, "Responses are text/xml",
       requirements=["SOAP11-6", "RFC3023-3.1"],
       proven_by=["soap.soap12_content_type"],
       may_fail_under=["soap.html_error_page"],  # judged on every exchange: its error pages are text/html
       observes="exchange",
       feature="part 4 / responses to valid requests")
def test_response_is_text_xml_with_charset(suite: SoapSuite) -> None:
    suite.judge_valid(lambda sent: messages.check_content_type(sent.exchange))


@check("soap.response.utf8_or_utf16", SHOULD, "Responses are in UTF-8 or UTF-16 (the text/xml charset names one)",
       requirements=["WSI-BP11-R1012"],
       proven_by=["soap.response_in_latin1"],
       observes="exchange",
       feature="part 4 / responses to valid requests",
       downgrade_reason=WSI_ONLY)
def test_response_is_utf8_or_utf16(suite: SoapSuite) -> None:
    suite.judge_valid(lambda sent: messages.check_utf8_or_utf16(sent.exchange))


@check("soap.response.envelope", MUST, "The response is a well-formed SOAP 1.1 envelope (optional Header, then Body, nothing after it), within the harness's size limit",
       requirements=["SOAP11-4.1.1", "SOAP11-4.1.2", "SOAP11-4.3", "WSI-BP11-R1009", "WSI-BP11-R1011"],
       proven_by=["soap.oversized_response"],
       may_fail_under=["soap.response_with_entity_bomb", "soap.response_with_external_entity"],
       observes="exchange",
       feature="part 4 / responses to valid requests")
def test_response_is_a_soap11_envelope(suite: SoapSuite) -> None:
    suite.judge_valid(lambda sent: messages.check_envelope(sent.exchange))


@check("soap.response.body_element", MUST, "The Body holds exactly one element: the WSDL output element GraafberichtServiceResponse in the types namespace",
       requirements=["SOAP-4.output", "WSI-BP11-R2712", "WSI-BP11-R1014"],
       proven_by=["soap.response_wrong_namespace"],
       may_fail_under=["soap.oversized_response", "soap.response_with_entity_bomb", "soap.response_with_external_entity"],
       observes="exchange",
       feature="part 4 / responses to valid requests")
def test_body_holds_the_output_element(suite: SoapSuite) -> None:
    assert suite.operation.output_element is not None
    output_element = suite.operation.output_element

    def judge(sent: Sent) -> None:
        suite.require_response(sent.exchange)
        messages.check_body_element(sent.exchange, output_element)

    suite.judge_valid(judge)


@check("soap.response.schema_valid", MUST, "The response element is valid against the types schema",
       requirements=["SOAP-4.output", "SOAP-9.types-version", "WSI-BP11-R2712"],
       proven_by=["soap.schema_invalid_response"],
       # accepts_schema_invalid_request: judged on every exchange, it meets the answer built from a bad request
       may_fail_under=["soap.oversized_response", "soap.response_with_entity_bomb", "soap.response_with_external_entity", "soap.response_wrong_namespace",
                       "soap.accepts_schema_invalid_request"],
       observes="exchange",
       feature="part 4 / responses to valid requests")
def test_response_is_schema_valid(suite: SoapSuite) -> None:
    def judge(sent: Sent) -> None:
        suite.require_response(sent.exchange)
        messages.check_schema_valid(sent.exchange, suite.contract)

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


@check("soap.response.no_dtd", MUST, "Responses carry no DOCTYPE or entity; the harness refuses one without expanding it",
       requirements=["SOAP11-3", "WSI-BP11-R1008"],
       proven_by=["soap.response_with_entity_bomb", "soap.response_with_external_entity"],
       may_fail_under=["soap.html_error_page"],  # judged on every exchange: its error pages open with <!DOCTYPE html>
       observes="exchange",
       feature="XML hardening")
def test_response_has_no_dtd(suite: SoapSuite) -> None:
    suite.judge_valid(lambda sent: messages.check_no_dtd(sent.exchange))
