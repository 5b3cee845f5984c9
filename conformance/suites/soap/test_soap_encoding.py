"""Character encoding (WS-I Basic Profile 1.1 R1012, Simple SOAP Binding Profile 1.0 R1018,
XML 1.0 4.3.3, RFC 3023): the answers' charset against their bytes and XML declaration, and
what the service does with a request in UTF-16.

The charset checks judge whatever a schema-valid request is answered with. The UTF-16 checks
send the drawn request in UTF-8 first as their control: a refused control makes them
`blocked`.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.checks.soap import charset, messages, probes
from conformance.checks.soap.support import SoapSuite, suite_settings

SETTINGS = suite_settings()
FEW = settings(SETTINGS, max_examples=min(3, SETTINGS.max_examples))
UTF16_CONTENT_TYPE = "text/xml; charset=utf-16"


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@pytest.mark.check("soap.response.charset_matches_body")
@SETTINGS
@given(data=st.data())
def test_response_bytes_are_in_their_charset(suite: SoapSuite, data: st.DataObject) -> None:
    charset.check_charset_matches_body(suite.post(suite.envelope(data.draw(suite.valid_requests(), label="request"))))


@pytest.mark.check("soap.response.encoding_declaration_agrees")
@SETTINGS
@given(data=st.data())
def test_response_declaration_names_the_charset(suite: SoapSuite, data: st.DataObject) -> None:
    charset.check_declaration_agrees(suite.post(suite.envelope(data.draw(suite.valid_requests(), label="request"))))


@pytest.mark.check("soap.request.utf16_understood")
@FEW
@given(data=st.data())
def test_utf16_request_is_understood_or_refused_with_a_fault(suite: SoapSuite, data: st.DataObject) -> None:
    request = data.draw(suite.valid_requests(), label="request")
    control = suite.control(suite.envelope(request))
    exchange = suite.post(probes.utf16_envelope(request), content_type=UTF16_CONTENT_TYPE)
    charset.check_understood(exchange, control, suite.contract)


@pytest.mark.check("soap.request.utf16_accepted")
@FEW
@given(data=st.data())
def test_utf16_request_is_processed_like_utf8(suite: SoapSuite, data: st.DataObject) -> None:
    request = data.draw(suite.valid_requests(), label="request")
    control = suite.control(suite.envelope(request))
    exchange = suite.post(probes.utf16_envelope(request), content_type=UTF16_CONTENT_TYPE)
    messages.check_processed(exchange, control, suite.contract, what="a UTF-16 request")
