"""Schema-invalid requests and protocol violations: each gets a SOAP 1.1 Fault, HTTP 500.

Each test changes one thing of a valid request and sends the unchanged request as its
control (conformance/checks/soap/support.py): the valid requests are the run's valid batch,
whose answers are the controls. A refusal counts only when the control was accepted; a
refused control makes the check `blocked`, never passed. The changed requests of one check
are sent together.
"""

from __future__ import annotations

import pytest
from lxml import etree

from conformance.checks.registry import MUST, SHOULD, check
from conformance.checks.soap import messages, probes
from conformance.checks.soap.probes import Probe
from conformance.checks.soap.support import Sent, SoapSuite, another_element_cause
from conformance.errors import NotApplicable
from conformance.findings import Finding
from conformance.http.exchange import Exchange
from conformance.soap import OPERATION

# A protocol violation needs no variety in the message: a few requests are enough.
FEW = 3

@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


def _rejected(exchange: Exchange, _probe: Probe, _sent: Sent) -> None:
    messages.check_rejected(exchange)


@check("soap.request.schema_invalid_rejected", SHOULD, "Schema-invalid requests (required element dropped, pattern broken, enumeration outside its set, range or length exceeded, wrong namespace) get a Client Fault with HTTP 500",
       requirements=["SOAP11-4.4.1", "SOAP11-6.2", "WSI-BP11-R1126"],
       proven_by=["soap.accepts_schema_invalid_request"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type", "soap.wrong_body_element_accepted"],
       sends=["refused"],
       feature="part 4 / rejection of bad requests",
       downgrade_reason="the seed leaves the messages' content \"not shown\" and does not say the service validates requests against the types schema; a Client Fault for a schema-invalid request is public behaviour")
def test_schema_invalid_request_is_rejected(suite: SoapSuite) -> None:
    # Every kind of mutation the schema offers, for each request of the batch (drawing a
    # kind would let hypothesis favour the first one), each made from that valid request:
    # the control. A break already sent (the same change at the same place, made from an
    # earlier request) is not sent again: it shows nothing new.
    sent_breaks: set[str] = set()

    def mutants(sent: Sent) -> list[Probe]:
        if not sent.mutants:
            raise NotApplicable("the request schema offers no site to break")
        made = [Probe(f"{mutant.detail} at {mutant.target}", suite.envelope(mutant.element))
                for mutant in sent.mutants if f"{mutant.detail} at {mutant.target}" not in sent_breaks]
        sent_breaks.update(probe.variant for probe in made)
        return made

    def judge(exchange: Exchange, probe: Probe, _sent: Sent) -> None:
        try:
            messages.check_rejected(exchange)
        except Finding as finding:
            raise Finding(f"{probe.variant}: {finding.message}", expected=finding.expected,
                          actual=finding.actual) from None

    suite.judge_variants(mutants, judge)


@check("soap.request.missing_soapaction_rejected", SHOULD, "A request without SOAPAction header gets a Client Fault with HTTP 500",
       requirements=["SOAP11-6.1.1", "WSI-BP11-R2744"],
       proven_by=["soap.missing_soapaction_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="part 4 / rejection of bad requests")
def test_missing_soapaction_is_rejected(suite: SoapSuite) -> None:
    suite.judge_variants(lambda sent: [Probe("no SOAPAction header", sent.body,
                                             header_options={"action": suite.without_action})],
                         _rejected, requests=FEW)


@check("soap.request.wrong_soapaction_rejected", SHOULD, "A request whose SOAPAction is not the WSDL's soapAction gets a Client Fault with HTTP 500",
       requirements=["SOAP-4.soapAction", "WSI-BP11-R2744"],
       proven_by=["soap.wrong_soapaction_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="part 4 / rejection of bad requests")
def test_wrong_soapaction_is_rejected(suite: SoapSuite, soap_service) -> None:
    # The operation name where the action's last segment belongs: a classic mix-up.
    wrong = f"{soap_service.soap_action_base.rstrip('/')}/{OPERATION}"
    assert wrong != suite.operation.soap_action
    suite.judge_variants(lambda sent: [Probe(f"SOAPAction {wrong!r}", sent.body, header_options={"action": wrong})],
                         _rejected, requests=FEW)


@check("soap.request.non_xml_rejected", MUST, "A body that is not XML gets a Client Fault with HTTP 500 (HTTP 400 accepted), never 200",
       requirements=["SOAP11-4.4.1", "SOAP11-6.2", "WSI-BP11-R1126"],
       proven_by=["soap.non_xml_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="part 4 / rejection of bad requests")
def test_non_xml_body_is_rejected(suite: SoapSuite) -> None:
    suite.shared_control()
    messages.check_rejected(suite.post(b"this is not XML <Envelope"), allow_400=True)


@check("soap.request.soap12_envelope_rejected", MUST, "A SOAP 1.2 envelope gets a SOAP 1.1 VersionMismatch Fault with HTTP 500",
       requirements=["SOAP11-4.1.2", "SOAP11-4.4.1", "WSI-BP11-R1126"],
       proven_by=["soap.soap12_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="part 4 / rejection of bad requests")
def test_soap12_envelope_gets_version_mismatch(suite: SoapSuite) -> None:
    def judge(exchange: Exchange, _probe: Probe, _sent: Sent) -> None:
        messages.check_rejected(exchange, codes=("VersionMismatch",))

    suite.judge_variants(lambda sent: [Probe("a SOAP 1.2 envelope", suite.soap12_envelope(sent.request))],
                         judge, requests=FEW)


@check("soap.request.wrong_body_element_rejected", MUST, "A Body holding another element than GraafberichtServiceRequest gets a Client Fault with HTTP 500",
       requirements=["WSI-BP11-R2712", "SOAP11-4.4.1", "SOAP11-6.2"],
       proven_by=["soap.wrong_body_element_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="part 4 / rejection of bad requests")
def test_wrong_body_element_is_rejected(suite: SoapSuite) -> None:
    # A schema-valid *response* element sent in place of the request.
    elements: list[etree._Element] = suite.draw(suite.valid_responses(), FEW)

    def wrong_element(sent: Sent) -> list[Probe]:
        element = elements[sent.index % len(elements)]
        return [Probe("a response element in place of the request", suite.envelope(element))]

    def rejected(exchange: Exchange, _probe: Probe, _sent: Sent) -> None:
        # Accepted, it is the cause the Fault rules are blocked under (SoapSuite.require_fault).
        messages.check_rejected(exchange, accepted_cause=another_element_cause(exchange))

    suite.judge_variants(wrong_element, rejected, requests=FEW)


@check("soap.request.oversized_rejected", SHOULD, "An oversized request body gets a Client Fault with HTTP 500, not a hang or a crash",
       requirements=["SOAP11-6.2", "WSI-BP11-R1126"],
       proven_by=["soap.oversized_accepted"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="part 4 / rejection of bad requests",
       downgrade_reason="no clause sets a size limit; a Client Fault for an oversized body (rather than a hang or a crash) is the public behaviour of a bounded service")
def test_oversized_body_is_rejected(suite: SoapSuite) -> None:
    suite.judge_variants(lambda sent: [Probe("an oversized request", suite.oversized_envelope(sent.request))],
                         _rejected, requests=1)


@check("soap.request.doctype_rejected", MUST, "A request with a DOCTYPE of any kind (none declared, an external DTD, internal general entities, a parameter entity, an external entity) gets a Client Fault, and nothing it declares ever appears in the answer (the entities are never expanded)",
       requirements=["SOAP11-3", "WSI-BP11-R1008", "SOAP11-4.4.1"],
       proven_by=["soap.request_dtd_accepted", "soap.request_internal_entities_expanded"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="XML hardening")
def test_doctype_of_any_kind_is_rejected(suite: SoapSuite) -> None:
    # Every kind of DOCTYPE, each made from one valid request (the control). A marker shows
    # an expanded entity in any answer, a refusal included; it is looked for first.
    def judge(exchange: Exchange, probe: Probe, _sent: Sent) -> None:
        messages.check_not_expanded(exchange, probe.markers)
        messages.check_rejected(exchange)

    suite.judge_variants(lambda sent: probes.doctype_probes(sent.request), judge, requests=FEW, collect=True)
