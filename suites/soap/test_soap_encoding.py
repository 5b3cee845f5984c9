"""Character encoding (WS-I Basic Profile 1.1 R1012, Simple SOAP Binding Profile 1.0 R1018,
XML 1.0 4.3.3, RFC 3023): the answers' charset against their bytes and XML declaration, and
what the service does with a request in UTF-16.

The charset rules judge whatever the schema-valid requests of the run's valid batch are
answered with, as exchange rules (conformance/passive/rules/soap.py, suites/soap/
test_exchange_rules.py). The UTF-16 checks send a request of the batch in UTF-16; the batch's answer
to it in UTF-8 is their control: a refused control makes them `blocked`.
"""

from __future__ import annotations

import pytest

from conformance.checks.registry import MUST, SHOULD, check
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


@check("soap.request.utf16_understood", MUST, "A schema-valid request in UTF-16 (byte order mark, text/xml; charset=utf-16) is answered with a schema-valid response or a SOAP 1.1 Fault, in a readable envelope whose bytes match its charset: never garbage",
       requirements=["XML10-4.3.3", "WSI-BP11-R1012", "SOAP11-6.2", "WSI-SSBP10-R1018"],
       proven_by=["soap.utf16_answer_mislabelled"],
       may_fail_under=["soap.response_charset_mislabelled"],
       feature="character encoding")
def test_utf16_request_is_understood_or_refused_with_a_fault(suite: SoapSuite) -> None:
    suite.judge_variants(_in_utf16, lambda exchange, _probe, sent: charset.check_understood(
        exchange, sent.exchange, suite.contract), requests=FEW)


@check("soap.request.utf16_accepted", SHOULD, "A schema-valid request in UTF-16 is processed like its UTF-8 original: HTTP 200 and a schema-valid response",
       requirements=["XML10-4.3.3", "WSI-BP11-R1012"],
       proven_by=["soap.utf16_request_refused"],
       feature="character encoding",
       downgrade_reason="that a UTF-16 request is understood is the MUST check soap.request.utf16_understood; processing it exactly like its UTF-8 original goes beyond what XML 1.0 and WS-I R1012 state")
def test_utf16_request_is_processed_like_utf8(suite: SoapSuite) -> None:
    suite.judge_variants(_in_utf16, lambda exchange, _probe, sent: messages.check_processed(
        exchange, sent.exchange, suite.contract, what="a UTF-16 request"), requests=FEW)
