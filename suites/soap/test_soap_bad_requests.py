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

from conformance.checks.soap import messages, probes
from conformance.checks.soap.probes import Probe
from conformance.checks.soap.support import Sent, SoapSuite
from conformance.errors import NotApplicable
from conformance.findings import Finding
from conformance.http.exchange import Exchange
from conformance.soap import OPERATION

# A protocol violation needs no variety in the message: a few requests are enough.
FEW = 3

pytestmark = pytest.mark.negative


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


def _rejected(exchange: Exchange, _probe: Probe, _sent: Sent) -> None:
    messages.check_rejected(exchange)


@pytest.mark.check("soap.request.schema_invalid_rejected")
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


@pytest.mark.check("soap.request.missing_soapaction_rejected")
def test_missing_soapaction_is_rejected(suite: SoapSuite) -> None:
    suite.judge_variants(lambda sent: [Probe("no SOAPAction header", sent.body,
                                             header_options={"action": suite.without_action})],
                         _rejected, requests=FEW)


@pytest.mark.check("soap.request.wrong_soapaction_rejected")
def test_wrong_soapaction_is_rejected(suite: SoapSuite, soap_service) -> None:
    # The operation name where the action's last segment belongs: a classic mix-up.
    wrong = f"{soap_service.soap_action_base.rstrip('/')}/{OPERATION}"
    assert wrong != suite.operation.soap_action
    suite.judge_variants(lambda sent: [Probe(f"SOAPAction {wrong!r}", sent.body, header_options={"action": wrong})],
                         _rejected, requests=FEW)


@pytest.mark.check("soap.request.non_xml_rejected")
def test_non_xml_body_is_rejected(suite: SoapSuite) -> None:
    suite.shared_control()
    messages.check_rejected(suite.post(b"this is not XML <Envelope"), allow_400=True)


@pytest.mark.check("soap.request.soap12_envelope_rejected")
def test_soap12_envelope_gets_version_mismatch(suite: SoapSuite) -> None:
    def judge(exchange: Exchange, _probe: Probe, _sent: Sent) -> None:
        messages.check_rejected(exchange, codes=("VersionMismatch",))

    suite.judge_variants(lambda sent: [Probe("a SOAP 1.2 envelope", suite.soap12_envelope(sent.request))],
                         judge, requests=FEW)


@pytest.mark.check("soap.request.wrong_body_element_rejected")
def test_wrong_body_element_is_rejected(suite: SoapSuite) -> None:
    # A schema-valid *response* element sent in place of the request.
    elements: list[etree._Element] = suite.draw(suite.valid_responses(), FEW)

    def wrong_element(sent: Sent) -> list[Probe]:
        element = elements[sent.index % len(elements)]
        return [Probe("a response element in place of the request", suite.envelope(element))]

    suite.judge_variants(wrong_element, _rejected, requests=FEW)


@pytest.mark.check("soap.request.oversized_rejected")
def test_oversized_body_is_rejected(suite: SoapSuite) -> None:
    suite.judge_variants(lambda sent: [Probe("an oversized request", suite.oversized_envelope(sent.request))],
                         _rejected, requests=1)


@pytest.mark.check("soap.request.doctype_rejected")
def test_doctype_of_any_kind_is_rejected(suite: SoapSuite) -> None:
    # Every kind of DOCTYPE, each made from one valid request (the control). A marker shows
    # an expanded entity in any answer, a refusal included; it is looked for first.
    def judge(exchange: Exchange, probe: Probe, _sent: Sent) -> None:
        messages.check_not_expanded(exchange, probe.markers)
        messages.check_rejected(exchange)

    suite.judge_variants(lambda sent: probes.doctype_probes(sent.request), judge, requests=FEW, collect=True)
