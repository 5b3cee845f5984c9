"""The SOAP 1.1 HTTP binding as WS-I Basic Profile 1.1 refines it: another method than POST
gets 405 (R1114), a media type the WSDL's binding does not allow gets 415 (R1115).

Each test sends a valid request as its control (the GET: the run's shared control; the
text/plain request: a request of the run's valid batch, whose answer is its control): a
refused control makes it `blocked`.
"""

from __future__ import annotations

import pytest

from conformance.checks.registry import SHOULD, check
from conformance.checks.soap import messages
from conformance.checks.soap.probes import Probe
from conformance.checks.soap.support import SoapSuite

# A media type needs no variety in the message: a few requests are enough.
FEW = 3
TEXT_PLAIN = "text/plain; charset=utf-8"

@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@check("soap.http.method_not_allowed", SHOULD, "A GET on the endpoint (not the ?wsdl query) is answered with HTTP 405",
       requirements=["WSI-BP11-R1114", "WSI-BP11-R1132"],
       proven_by=["soap.get_answered"],
       may_fail_under=["soap.fault_with_http_200"],
       sends=["refused"],
       feature="SOAP 1.1 HTTP binding")
def test_get_on_the_endpoint_gets_405(suite: SoapSuite) -> None:
    suite.shared_control()
    messages.check_status(suite.get(), 405, "a GET on the endpoint is not answered with 405 Method Not Allowed")


@check("soap.http.unsupported_media_type", SHOULD, "A valid envelope sent as text/plain (a media type the WSDL's SOAP 1.1 binding does not allow) is answered with HTTP 415",
       requirements=["WSI-BP11-R1115", "SOAP11-6"],
       proven_by=["soap.unsupported_media_type_accepted"],
       may_fail_under=["soap.fault_with_http_200"],
       sends=["refused"],
       feature="SOAP 1.1 HTTP binding")
def test_text_plain_gets_415(suite: SoapSuite) -> None:
    suite.judge_variants(
        lambda sent: [Probe("the request sent as text/plain", sent.body, header_options={"content_type": TEXT_PLAIN})],
        lambda exchange, _probe, _sent: messages.check_status(
            exchange, 415, "a request sent as text/plain is not answered with 415 Unsupported Media Type"),
        requests=FEW,
    )
