"""Envelopes a document/literal SOAP 1.1 service refuses (SOAP 1.1 3 and 4, WS-I Basic
Profile 1.1 envelope rules): each gets a Fault with HTTP 500.

Each test changes one thing of a drawn valid request (conformance/checks/soap/probes.py) and
sends the unchanged request as its control (a request of the run's valid batch, whose answer
is the control: conformance/checks/soap/support.py): a refusal counts only when the control
was accepted; a refused control makes the check `blocked`.
"""

from __future__ import annotations

import pytest

from conformance.checks.registry import MUST, SHOULD, check
from conformance.checks.soap import messages, probes
from conformance.checks.soap.support import SoapSuite

# A rule of the envelope needs no variety in the message: a few requests are enough.
FEW = 3

@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


def _refused(suite: SoapSuite, rule: str, *, codes: tuple[str, ...] = ("Client",)) -> None:
    suite.judge_variants(lambda sent: probes.envelope_probes(sent.request)[rule],
                         lambda exchange, _probe, _sent: messages.check_rejected(exchange, codes=codes),
                         requests=FEW, collect=True)


@check("soap.request.not_an_envelope_rejected", MUST, "A well-formed request whose document element is not soap:Envelope (the request element alone) gets a Fault with HTTP 500",
       requirements=["WSI-BP11-R1015", "SOAP11-6.2"],
       proven_by=["soap.not_an_envelope_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="SOAP 1.1 / Basic Profile envelope rules")
def test_document_element_other_than_envelope_is_rejected(suite: SoapSuite) -> None:
    # BP R1015 asks for "a fault", not which: VersionMismatch is as good as Client here.
    _refused(suite, "not_an_envelope", codes=("Client", "VersionMismatch"))


@check("soap.request.two_body_children_rejected", MUST, "A Body holding the request element twice gets a Client Fault with HTTP 500 (a document/literal Body holds exactly one element, the input part's)",
       requirements=["WSI-BP11-R9981", "SOAP11-4.3.1", "WSI-BP11-R2712", "SOAP11-4.4.1", "SOAP11-6.2"],
       proven_by=["soap.two_body_children_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="SOAP 1.1 / Basic Profile envelope rules")
def test_two_body_children_are_rejected(suite: SoapSuite) -> None:
    _refused(suite, "two_children")


@check("soap.request.unqualified_body_child_rejected", MUST, "A Body child without a namespace (the request element unqualified) gets a Client Fault with HTTP 500",
       requirements=["WSI-BP11-R1014", "SOAP11-4.3.1", "WSI-BP11-R2712", "SOAP11-4.4.1", "SOAP11-6.2"],
       proven_by=["soap.unqualified_body_child_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="SOAP 1.1 / Basic Profile envelope rules")
def test_unqualified_body_child_is_rejected(suite: SoapSuite) -> None:
    _refused(suite, "unqualified")


@check("soap.request.element_after_body_rejected", SHOULD, "A request with an element after soap:Body gets a Client Fault with HTTP 500 (Basic Profile forbids what SOAP 1.1 allows)",
       requirements=["WSI-BP11-R1011", "SOAP11-6.2"],
       proven_by=["soap.element_after_body_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="SOAP 1.1 / Basic Profile envelope rules",
       downgrade_reason="SOAP 1.1 allows elements after the Body; WS-I R1011 constrains the sender's envelope, and the seed names SOAP 1.1, not the Basic Profile")
def test_element_after_body_is_rejected(suite: SoapSuite) -> None:
    _refused(suite, "after_body")


@check("soap.request.encoding_style_rejected", SHOULD, "A request with soap:encodingStyle on soap:Envelope, soap:Body or the Body child (a literal service) gets a Client Fault with HTTP 500",
       requirements=["WSI-BP11-R1005", "WSI-BP11-R1006", "WSI-BP11-R2706", "SOAP11-6.2"],
       proven_by=["soap.encoding_style_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="SOAP 1.1 / Basic Profile envelope rules",
       downgrade_reason="the WS-I rules constrain the sender's envelope, and the seed names SOAP 1.1 document/literal, not the Basic Profile: refusing an encodingStyle is public behaviour")
def test_encoding_style_is_rejected(suite: SoapSuite) -> None:
    _refused(suite, "encoding_style")


@check("soap.request.processing_instruction_rejected", MUST, "A request with a processing instruction in soap:Body gets a Client Fault with HTTP 500",
       requirements=["SOAP11-3", "WSI-BP11-R1009", "SOAP11-6.2"],
       proven_by=["soap.processing_instruction_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="SOAP 1.1 / Basic Profile envelope rules")
def test_processing_instruction_is_rejected(suite: SoapSuite) -> None:
    _refused(suite, "processing_instruction")
