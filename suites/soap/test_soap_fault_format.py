"""The format of a Fault, judged on the answer to a request with the wrong Body element.

The run's shared control (a valid request, accepted) comes first: a Fault given to every
request for another reason (the caller not admitted, the service down) is no answer to
this bad request, and the checks are then `blocked`. The bad request is sent once (per
module and process) and its answer judged by all four checks; the first shows it in its
evidence as sent, the others attach it.
"""

from __future__ import annotations

from typing import Any

import pytest
from lxml import etree

from conformance.checks.registry import MUST, SHOULD, check
from conformance.checks.soap import messages
from conformance.checks.soap.support import SoapSuite
from conformance.http.evidence import attach_exchanges
from conformance.http.exchange import Exchange


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@pytest.fixture(scope="module")
def fault_answer(suite: SoapSuite) -> dict[str, Any]:
    # An empty output element as the request: no operation takes it, whatever the schema.
    assert suite.operation.output_element is not None
    suite.shared_control()
    return {"exchange": suite.post(suite.envelope(etree.Element(suite.operation.output_element))), "judged": False}


def _judged(fault_answer: dict[str, Any]) -> Exchange:
    """The bad request's answer for this check: the first check's evidence records it as
    sent, the others attach it."""
    exchange: Exchange = fault_answer["exchange"]
    if fault_answer["judged"]:
        attach_exchanges([exchange])
    fault_answer["judged"] = True
    return exchange


@check("soap.fault.http_500", MUST, "A Fault is sent with HTTP 500, never 200",
       requirements=["SOAP11-6.2", "WSI-BP11-R1126"],
       proven_by=["soap.fault_with_http_200"],
       may_fail_under=["soap.wrong_body_element_accepted"],
       sends=["refused"],
       observes="exchange",
       feature="SOAP 1.1 Fault")
def test_fault_travels_with_http_500(fault_answer: dict[str, Any]) -> None:
    messages.check_fault_http_500(_judged(fault_answer))


@check("soap.fault.soap_envelope", MUST, "An error is answered with a text/xml SOAP 1.1 envelope holding one Fault, never an HTML page or a stack trace",
       requirements=["SOAP11-4.4", "SOAP11-6"],
       proven_by=["soap.html_error_page"],
       may_fail_under=["soap.soap12_content_type", "soap.wrong_body_element_accepted"],
       sends=["refused"],
       observes="exchange",
       feature="SOAP 1.1 Fault")
def test_error_is_a_soap_fault_not_html(fault_answer: dict[str, Any]) -> None:
    messages.check_fault_envelope(_judged(fault_answer))


@check("soap.fault.structure", MUST, "The Fault has a faultcode QName in the SOAP 1.1 namespace and a faultstring, only unqualified standard children, and a detail when the Body could not be processed",
       requirements=["SOAP11-4.4", "SOAP11-4.4.1", "WSI-BP11-R1000", "WSI-BP11-R1001"],
       proven_by=["soap.fault_without_faultcode"],
       may_fail_under=["soap.html_error_page", "soap.soap12_content_type", "soap.wrong_body_element_accepted"],
       sends=["refused"],
       feature="SOAP 1.1 Fault")
def test_fault_has_code_string_and_detail(fault_answer: dict[str, Any]) -> None:
    messages.check_fault_structure(_judged(fault_answer), body_unprocessable=True)


@check("soap.fault.code_without_dot_notation", SHOULD, "The faultcode is not refined with SOAP 1.1's dot notation (soapenv:Client, not soapenv:Client.Validation)",
       requirements=["WSI-BP11-R1031"],
       proven_by=["soap.fault_dotted_codes"],
       # every_request_refused answers with soapenv:Client.Authentication: a dotted code
       may_fail_under=["soap.html_error_page", "soap.soap12_content_type", "soap.wrong_body_element_accepted",
                       "soap.every_request_refused"],
       sends=["refused"],
       observes="exchange",
       feature="SOAP 1.1 Fault")
def test_fault_code_has_no_dot_notation(fault_answer: dict[str, Any]) -> None:
    messages.check_fault_code_undotted(_judged(fault_answer))
