"""Character encoding (WS-I Basic Profile 1.1 R1012, Simple SOAP Binding Profile 1.0 R1018,
XML 1.0 4.3.3, RFC 3023): the answers' charset against their bytes and XML declaration, and
what the service does with a request in UTF-16.

The charset checks judge whatever the schema-valid requests of the run's valid batch are
answered with. The UTF-16 checks send a request of the batch in UTF-16; the batch's answer
to it in UTF-8 is their control: a refused control makes them `blocked`.
"""

from __future__ import annotations

import pytest

from conformance.checks.soap import charset, messages, probes
from conformance.checks.soap.probes import Probe
from conformance.checks.soap.support import Sent, SoapSuite

# A request's encoding needs no variety in the message: a few requests are enough.
FEW = 3
UTF16_CONTENT_TYPE = "text/xml; charset=utf-16"


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


def _in_utf16(sent: Sent) -> list[Probe]:
    return [Probe("the request in UTF-16", probes.utf16_envelope(sent.request),
                  header_options={"content_type": UTF16_CONTENT_TYPE})]


@pytest.mark.check("soap.response.charset_matches_body")
def test_response_bytes_are_in_their_charset(suite: SoapSuite) -> None:
    suite.judge_valid(lambda sent: charset.check_charset_matches_body(sent.exchange))


@pytest.mark.check("soap.response.encoding_declaration_agrees")
def test_response_declaration_names_the_charset(suite: SoapSuite) -> None:
    suite.judge_valid(lambda sent: charset.check_declaration_agrees(sent.exchange))


@pytest.mark.check("soap.request.utf16_understood")
def test_utf16_request_is_understood_or_refused_with_a_fault(suite: SoapSuite) -> None:
    suite.judge_variants(_in_utf16, lambda exchange, _probe, sent: charset.check_understood(
        exchange, sent.exchange, suite.contract), requests=FEW)


@pytest.mark.check("soap.request.utf16_accepted")
def test_utf16_request_is_processed_like_utf8(suite: SoapSuite) -> None:
    suite.judge_variants(_in_utf16, lambda exchange, _probe, sent: messages.check_processed(
        exchange, sent.exchange, suite.contract, what="a UTF-16 request"), requests=FEW)
