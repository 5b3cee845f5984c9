"""Generated schema-valid requests (5a) and what the service answers (5b).

The checks on the response element need a response: when the valid request is refused
(a Fault, another status) they are `blocked` under the refusal's cause, and
soap.response.status_ok fails under that same cause. Media type, envelope and DTD are
judged on whatever the answer is.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from conformance.checks.soap import messages
from conformance.checks.soap.support import REFERENCE_PAIRS, SoapSuite, suite_settings
from conformance.http.exchange import Exchange

SETTINGS = suite_settings()


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


def _send_valid(suite: SoapSuite, data: st.DataObject) -> tuple[etree._Element, Exchange]:
    request = data.draw(suite.valid_requests(), label="request")
    return request, suite.post(suite.envelope(request))


@pytest.mark.check("soap.response.status_ok")
@SETTINGS
@given(data=st.data())
def test_valid_request_gets_200(suite: SoapSuite, data: st.DataObject) -> None:
    _, exchange = _send_valid(suite, data)
    messages.check_status_ok(exchange, cause=suite.refusal_cause(exchange))


@pytest.mark.check("soap.response.content_type")
@SETTINGS
@given(data=st.data())
def test_response_is_text_xml_with_charset(suite: SoapSuite, data: st.DataObject) -> None:
    _, exchange = _send_valid(suite, data)
    messages.check_content_type(exchange)


@pytest.mark.check("soap.response.envelope")
@SETTINGS
@given(data=st.data())
def test_response_is_a_soap11_envelope(suite: SoapSuite, data: st.DataObject) -> None:
    _, exchange = _send_valid(suite, data)
    messages.check_envelope(exchange)


@pytest.mark.check("soap.response.body_element")
@SETTINGS
@given(data=st.data())
def test_body_holds_the_output_element(suite: SoapSuite, data: st.DataObject) -> None:
    _, exchange = _send_valid(suite, data)
    suite.require_response(exchange)
    assert suite.operation.output_element is not None
    messages.check_body_element(exchange, suite.operation.output_element)


@pytest.mark.check("soap.response.schema_valid")
@SETTINGS
@given(data=st.data())
def test_response_is_schema_valid(suite: SoapSuite, data: st.DataObject) -> None:
    _, exchange = _send_valid(suite, data)
    suite.require_response(exchange)
    messages.check_schema_valid(exchange, suite.contract)


@pytest.mark.check("soap.response.refers_to_request")
@SETTINGS
@given(data=st.data())
def test_response_refers_to_the_request(suite: SoapSuite, data: st.DataObject) -> None:
    request, exchange = _send_valid(suite, data)
    suite.require_response(exchange)
    messages.check_refers_to_request(exchange, request, REFERENCE_PAIRS)


@pytest.mark.check("soap.response.no_dtd")
@SETTINGS
@given(data=st.data())
def test_response_has_no_dtd(suite: SoapSuite, data: st.DataObject) -> None:
    _, exchange = _send_valid(suite, data)
    messages.check_no_dtd(exchange)
