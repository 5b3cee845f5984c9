"""The SOAP message service's answers and its clients' requests (seed 001, part b), judged
against the profile's WSDL and types schema (the shipped pair by default).

What one answer shows is judged: its media type and charset, the envelope, a DOCTYPE, a
200's Body element and its schema, that a Fault travels with HTTP 500 and an HTTP 500 holds
a Fault. Whether a Fault's code fits the request's error needs the request to be known bad:
that takes an active run.
"""

from __future__ import annotations

from conformance.checks.client import soap as client
from conformance.checks.registry import MUST, check
from conformance.checks.soap import charset, messages
from conformance.passive.rules.registry import each, on_exchange, rule
from conformance.soap import OPERATION

# Statuses other rules ask for, whatever the body: HTTP authentication, BP R1114 and R1115.
OTHER_STATUSES = (401, 405, 415)


def answers(traffic, *statuses: int, fault: bool | None = None):
    """The observed SOAP answers with one of `statuses` (any when none), with or without a Fault."""
    return [s for s in traffic.soap if (not statuses or s.exchange.status in statuses) and s.exchange.body
            and (fault is None or (messages._fault_or_none(s.exchange) is not None) == fault)]


@rule("soap.response.content_type", what="SOAP answers (200 or 500)")
def content_type(traffic, ctx):
    return each(answers(traffic, 200, 500), on_exchange(messages.check_content_type))


@rule("soap.response.utf8_or_utf16", what="SOAP answers (200 or 500)")
def utf8_or_utf16(traffic, ctx):
    return each(answers(traffic, 200, 500), on_exchange(messages.check_utf8_or_utf16))


@rule("soap.response.charset_matches_body", what="SOAP answers (200 or 500)")
def charset_matches_body(traffic, ctx):
    return each(answers(traffic, 200, 500), on_exchange(charset.check_charset_matches_body))


@rule("soap.response.encoding_declaration_agrees", what="SOAP answers (200 or 500)")
def encoding_declaration_agrees(traffic, ctx):
    return each(answers(traffic, 200, 500), on_exchange(charset.check_declaration_agrees))


@rule("soap.response.no_dtd", what="SOAP answers")
def no_dtd(traffic, ctx):
    return each(answers(traffic), on_exchange(messages.check_no_dtd))


@rule("soap.response.envelope", what="200 SOAP answers")
def envelope(traffic, ctx):
    return each(answers(traffic, 200), on_exchange(messages.check_envelope))


@rule("soap.response.body_element", what="200 SOAP answers without a Fault")
def body_element(traffic, ctx):
    items = answers(traffic, 200, fault=False)
    expected = ctx.soap_contract.operations[OPERATION].output_element if items else None
    return each(items, on_exchange(lambda ex: messages.check_body_element(ex, expected)))


@rule("soap.response.schema_valid", what="200 SOAP answers without a Fault")
def schema_valid(traffic, ctx):
    return each(answers(traffic, 200, fault=False), on_exchange(lambda ex: messages.check_schema_valid(ex, ctx.soap_contract)))


@rule("soap.fault.http_500", what="SOAP answers holding a Fault")
def fault_http_500(traffic, ctx):
    # A Fault travels with HTTP 500, never 200; the statuses the Basic Profile itself asks
    # for (405, 415) or HTTP authentication sends (401) are not SOAP processing errors.
    return each([s for s in answers(traffic, fault=True) if s.exchange.status not in OTHER_STATUSES],
                on_exchange(messages.check_fault_http_500))


@rule("soap.fault.soap_envelope", what="HTTP 500 SOAP answers")
def fault_soap_envelope(traffic, ctx):
    return each(answers(traffic, 500), on_exchange(messages.check_fault_envelope))


@rule("soap.fault.code_without_dot_notation", what="SOAP answers holding a Fault")
def fault_code_without_dot_notation(traffic, ctx):
    return each(answers(traffic, fault=True), on_exchange(messages.check_fault_code_undotted))


# --------------------------------------------------------------------------- the client's requests
def requests(traffic):
    return [s for s in traffic.soap if s.exchange.method == "POST" and s.exchange.request_body]


@rule(check("client.soap.soap_action", MUST, "SOAP requests carry the WSDL's soapAction, quoted, in the SOAPAction header",
           requirements=["SOAP-4.soapAction", "SOAP11-6.1.1", "WSI-BP11-R2744"],
           sends=["nothing"],
           observes="exchange",
           feature="SOAP message service client (seed 001, part b)"),
      what="SOAP requests")
def soap_action(traffic, ctx):
    return each(requests(traffic), on_exchange(lambda ex: client.soap_action(ex, ctx.soap_contract)))


@rule(check("client.soap.request_valid", MUST, "SOAP requests are POSTed as text/xml (utf-8 or utf-16) SOAP 1.1 envelopes whose Body holds the WSDL's input element GraafberichtServiceRequest, valid against the types schema",
           requirements=["SOAP-4.input", "SOAP11-6", "WSI-BP11-R2712", "WSI-BP11-R1012"],
           sends=["nothing"],
           observes="exchange",
           feature="SOAP message service client (seed 001, part b)"),
      what="SOAP requests")
def request_valid(traffic, ctx):
    return each(requests(traffic), on_exchange(lambda ex: client.request_valid(ex, ctx.soap_contract)))
