"""The SOAP message service's answers in recorded traffic, and its clients' requests (seed 001,
part b), judged against the profile's WSDL and types schema (the shipped pair by default).

What one answer shows is judged: its media type and charset, the envelope, a DOCTYPE, a
200's Body element and its schema, that a Fault travels with HTTP 500 and an HTTP 500 holds
a Fault. Whether a Fault's code fits the request's error needs the request to be known bad:
that takes an active run.
"""

from __future__ import annotations

import pytest

from conformance.checks.client import soap as client
from conformance.checks.soap import charset, messages
from conformance.soap import OPERATION

# Statuses other rules ask for, whatever the body: HTTP authentication, BP R1114 and R1115.
OTHER_STATUSES = (401, 405, 415)


def answers(traffic, *statuses: int, fault: bool | None = None):
    """The observed SOAP answers with one of `statuses` (any when none), with or without a Fault."""
    return [s for s in traffic.soap if (not statuses or s.exchange.status in statuses) and s.exchange.body
            and (fault is None or (messages._fault_or_none(s.exchange) is not None) == fault)]


@pytest.mark.check("soap.response.content_type")
def test_content_type(observed_traffic, judge):
    judge(answers(observed_traffic, 200, 500), messages.check_content_type, what="SOAP answers (200 or 500)")


@pytest.mark.check("soap.response.charset_matches_body")
def test_charset_matches_body(observed_traffic, judge):
    judge(answers(observed_traffic, 200, 500), charset.check_charset_matches_body, what="SOAP answers (200 or 500)")


@pytest.mark.check("soap.response.encoding_declaration_agrees")
def test_encoding_declaration_agrees(observed_traffic, judge):
    judge(answers(observed_traffic, 200, 500), charset.check_declaration_agrees, what="SOAP answers (200 or 500)")


@pytest.mark.check("soap.response.no_dtd")
def test_no_dtd(observed_traffic, judge):
    judge(answers(observed_traffic), messages.check_no_dtd, what="SOAP answers")


@pytest.mark.check("soap.response.envelope")
def test_envelope(observed_traffic, judge):
    judge(answers(observed_traffic, 200), messages.check_envelope, what="200 SOAP answers")


@pytest.mark.check("soap.response.body_element")
def test_body_element(observed_traffic, judge, soap_contract):
    expected = soap_contract.operations[OPERATION].output_element
    judge(answers(observed_traffic, 200, fault=False), lambda ex: messages.check_body_element(ex, expected),
          what="200 SOAP answers without a Fault")


@pytest.mark.check("soap.response.schema_valid")
def test_schema_valid(observed_traffic, judge, soap_contract):
    judge(answers(observed_traffic, 200, fault=False), lambda ex: messages.check_schema_valid(ex, soap_contract),
          what="200 SOAP answers without a Fault")


@pytest.mark.check("soap.fault.http_500")
def test_fault_http_500(observed_traffic, judge):
    # A Fault travels with HTTP 500, never 200; the statuses the Basic Profile itself asks
    # for (405, 415) or HTTP authentication sends (401) are not SOAP processing errors.
    judge([s for s in answers(observed_traffic, fault=True) if s.exchange.status not in OTHER_STATUSES],
          messages.check_fault_http_500, what="SOAP answers holding a Fault")


@pytest.mark.check("soap.fault.soap_envelope")
def test_fault_soap_envelope(observed_traffic, judge):
    judge(answers(observed_traffic, 500), messages.check_fault_envelope, what="HTTP 500 SOAP answers")


@pytest.mark.check("soap.fault.code_without_dot_notation")
def test_fault_code_without_dot_notation(observed_traffic, judge):
    judge(answers(observed_traffic, fault=True), messages.check_fault_code_undotted, what="SOAP answers holding a Fault")


# --------------------------------------------------------------------------- the client's requests
def requests(traffic):
    return [s for s in traffic.soap if s.exchange.method == "POST" and s.exchange.request_body]


@pytest.mark.check("client.soap.soap_action")
def test_client_soap_action(observed_traffic, judge, soap_contract):
    judge(requests(observed_traffic), lambda ex: client.soap_action(ex, soap_contract), what="SOAP requests")


@pytest.mark.check("client.soap.request_valid")
def test_client_request_valid(observed_traffic, judge, soap_contract):
    judge(requests(observed_traffic), lambda ex: client.request_valid(ex, soap_contract), what="SOAP requests")
