"""Schema-invalid requests and protocol violations: each gets a SOAP 1.1 Fault, HTTP 500.

Each test changes one thing of a valid request and sends the unchanged request first as
its control (conformance/checks/soap/support.py): a refusal counts only when the control
was accepted; a refused control makes the check `blocked`, never passed.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.checks.finding import Finding
from conformance.checks.soap import messages, probes
from conformance.checks.soap.probes import Probe
from conformance.checks.soap.support import SoapSuite, suite_settings
from conformance.errors import NotApplicable
from conformance.http.exchange import Exchange
from conformance.soap import OPERATION

SETTINGS = suite_settings()
# A protocol violation needs no variety in the message: a few requests are enough.
FEW = settings(SETTINGS, max_examples=min(3, SETTINGS.max_examples))

pytestmark = pytest.mark.negative


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@pytest.mark.check("soap.request.schema_invalid_rejected")
@SETTINGS
@given(data=st.data())
def test_schema_invalid_request_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    # Every kind of mutation the schema offers, in each example (drawing a kind would
    # let hypothesis favour the first one), all made from one valid request: the control.
    mutants = data.draw(suite.invalid_request_sets(), label="mutants")
    if not mutants:
        raise NotApplicable("the request schema offers no site to break")
    assert mutants[0].original is not None
    suite.control(suite.envelope(mutants[0].original))
    for mutant in mutants:
        exchange = suite.post(suite.envelope(mutant.element))
        try:
            messages.check_rejected(exchange)
        except Finding as finding:
            raise Finding(f"{mutant.detail} at {mutant.target}: {finding.message}",
                          expected=finding.expected, actual=finding.actual) from None


@pytest.mark.check("soap.request.missing_soapaction_rejected")
@FEW
@given(data=st.data())
def test_missing_soapaction_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    body = suite.envelope(data.draw(suite.valid_requests(), label="request"))
    suite.control(body)
    messages.check_rejected(suite.post(body, action=suite.without_action))


@pytest.mark.check("soap.request.wrong_soapaction_rejected")
@FEW
@given(data=st.data())
def test_wrong_soapaction_is_rejected(suite: SoapSuite, data: st.DataObject, soap_service) -> None:
    # The operation name where the action's last segment belongs: a classic mix-up.
    wrong = f"{soap_service.soap_action_base.rstrip('/')}/{OPERATION}"
    assert wrong != suite.operation.soap_action
    body = suite.envelope(data.draw(suite.valid_requests(), label="request"))
    suite.control(body)
    messages.check_rejected(suite.post(body, action=wrong))


@pytest.mark.check("soap.request.non_xml_rejected")
def test_non_xml_body_is_rejected(suite: SoapSuite) -> None:
    suite.shared_control()
    messages.check_rejected(suite.post(b"this is not XML <Envelope"), allow_400=True)


@pytest.mark.check("soap.request.soap12_envelope_rejected")
@FEW
@given(data=st.data())
def test_soap12_envelope_gets_version_mismatch(suite: SoapSuite, data: st.DataObject) -> None:
    request = data.draw(suite.valid_requests(), label="request")
    suite.control(suite.envelope(request))
    messages.check_rejected(suite.post(suite.soap12_envelope(request)), codes=("VersionMismatch",))


@pytest.mark.check("soap.request.wrong_body_element_rejected")
@FEW
@given(data=st.data())
def test_wrong_body_element_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    # A schema-valid *response* element sent in place of the request.
    suite.control(suite.envelope(data.draw(suite.valid_requests(), label="request")))
    element = data.draw(suite.valid_responses(), label="response element")
    messages.check_rejected(suite.post(suite.envelope(element)))


@pytest.mark.check("soap.request.oversized_rejected")
@settings(SETTINGS, max_examples=1)
@given(data=st.data())
def test_oversized_body_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    request = data.draw(suite.valid_requests(), label="request")
    suite.control(suite.envelope(request))
    messages.check_rejected(suite.post(suite.oversized_envelope(request)))


@pytest.mark.check("soap.request.doctype_rejected")
@FEW
@given(data=st.data())
def test_doctype_of_any_kind_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    # Every kind of DOCTYPE, each made from one valid request (the control). A marker shows
    # an expanded entity in any answer, a refusal included; it is looked for first.
    request = data.draw(suite.valid_requests(), label="request")
    suite.control(suite.envelope(request))

    def judge(exchange: Exchange, probe: Probe) -> None:
        messages.check_not_expanded(exchange, probe.markers)
        messages.check_rejected(exchange)

    suite.judge_each(probes.doctype_probes(request), judge)
