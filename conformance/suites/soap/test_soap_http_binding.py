"""The SOAP 1.1 HTTP binding as WS-I Basic Profile 1.1 refines it: another method than POST
gets 405 (R1114), a media type the WSDL's binding does not allow gets 415 (R1115).

Each test sends a valid request first as its control: a refused control makes it `blocked`.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.checks.soap import messages
from conformance.checks.soap.support import SoapSuite, suite_settings

FEW = settings(suite_settings(), max_examples=min(3, suite_settings().max_examples))

pytestmark = pytest.mark.negative


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@pytest.mark.check("soap.http.method_not_allowed")
def test_get_on_the_endpoint_gets_405(suite: SoapSuite) -> None:
    suite.shared_control()
    messages.check_status(suite.get(), 405, "a GET on the endpoint is not answered with 405 Method Not Allowed")


@pytest.mark.check("soap.http.unsupported_media_type")
@FEW
@given(data=st.data())
def test_text_plain_gets_415(suite: SoapSuite, data: st.DataObject) -> None:
    body = suite.envelope(data.draw(suite.valid_requests(), label="request"))
    suite.control(body)
    messages.check_status(suite.post(body, content_type="text/plain; charset=utf-8"), 415,
                          "a request sent as text/plain is not answered with 415 Unsupported Media Type")
