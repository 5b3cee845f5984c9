"""Schema-invalid requests and protocol violations: each gets a SOAP 1.1 Fault, HTTP 500."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.checks.finding import Finding
from conformance.checks.soap import messages
from conformance.checks.soap.support import SoapSuite, suite_settings
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
    # let hypothesis favour the first one).
    for mutant in data.draw(suite.invalid_request_sets(), label="mutants"):
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
    request = data.draw(suite.valid_requests(), label="request")
    messages.check_rejected(suite.post(suite.envelope(request), action=suite.without_action))


@pytest.mark.check("soap.request.wrong_soapaction_rejected")
@FEW
@given(data=st.data())
def test_wrong_soapaction_is_rejected(suite: SoapSuite, data: st.DataObject, soap_service) -> None:
    # The operation name where the action's last segment belongs: a classic mix-up.
    wrong = f"{soap_service.soap_action_base.rstrip('/')}/{OPERATION}"
    assert wrong != suite.operation.soap_action
    request = data.draw(suite.valid_requests(), label="request")
    messages.check_rejected(suite.post(suite.envelope(request), action=wrong))


@pytest.mark.check("soap.request.non_xml_rejected")
def test_non_xml_body_is_rejected(suite: SoapSuite) -> None:
    messages.check_rejected(suite.post(b"this is not XML <Envelope", ), allow_400=True)


@pytest.mark.check("soap.request.soap12_envelope_rejected")
@FEW
@given(data=st.data())
def test_soap12_envelope_gets_version_mismatch(suite: SoapSuite, data: st.DataObject) -> None:
    request = data.draw(suite.valid_requests(), label="request")
    messages.check_rejected(suite.post(suite.soap12_envelope(request)), codes=("VersionMismatch",))


@pytest.mark.check("soap.request.wrong_body_element_rejected")
@FEW
@given(data=st.data())
def test_wrong_body_element_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    # A schema-valid *response* element sent as the request.
    element = data.draw(suite.valid_responses(), label="response element")
    messages.check_rejected(suite.post(suite.envelope(element)))


@pytest.mark.check("soap.request.oversized_rejected")
@settings(SETTINGS, max_examples=1)
@given(data=st.data())
def test_oversized_body_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    request = data.draw(suite.valid_requests(), label="request")
    messages.check_rejected(suite.post(suite.oversized_envelope(request)))


@pytest.mark.check("soap.request.doctype_rejected")
@FEW
@given(data=st.data())
def test_doctype_with_external_entity_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    request = data.draw(suite.valid_requests(), label="request")
    exchange = suite.post(suite.xxe_envelope(request))
    messages.check_no_leak(exchange)
    messages.check_rejected(exchange)
