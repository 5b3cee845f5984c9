"""The SOAP message service's answers and its clients' requests (seed 001, part b), judged
against the profile's WSDL and types schema (the shipped pair by default).

What one answer shows is judged, as exchange rules declared here: its media type and
charset, the envelope, a DOCTYPE, a 200's Body element and its schema, that a Fault travels
with HTTP 500 and an error is a SOAP Fault. Each judges every answer of a run and of a capture,
and suites/soap/test_exchange_rules.py elicits its scenario. Whether a Fault's code fits the
request's error needs the request to be known bad: that takes an active run.
"""

from __future__ import annotations

from conformance.checks.client import soap as client
from conformance.checks.registry import MUST, SHOULD, check
from conformance.checks.soap import charset, messages
from conformance.passive.rules.registry import each, exchange_rule, on_exchange, rule
from conformance.soap import OPERATION

# Statuses other rules ask for, whatever the body: HTTP authentication, BP R1114 and R1115.
OTHER_STATUSES = (401, 405, 415)


def _answer(item, statuses: tuple[int, ...] = (), fault: bool | None = None) -> bool:
    """An observed SOAP answer with a body and one of `statuses` (any when none), with or
    without a Fault (either when None)."""
    ex = item.exchange
    return bool((not statuses or ex.status in statuses) and ex.body
                and (fault is None or (messages._fault_or_none(ex) is not None) == fault))


# --------------------------------------------------------------------------- the active suite's scenarios
# How suites/soap/test_exchange_rules.py elicits the answers a rule judges: each scenario takes
# the suite's SoapSuite and `judge(exchange, unanswered)`, where `unanswered(exchange)` raises
# Blocked when the answer is none the rule applies to (its cause shared by every check it
# takes down), or is None.
def _valid_batch(suite, judge) -> None:
    """Every answer to the run's valid batch (conformance/checks/soap/support.py), in order: a
    refused one is no response, and blocks under the refusal's cause."""
    suite.judge_valid(lambda sent: judge(sent.exchange, suite.require_response))


def _wrong_body_element(suite, judge) -> None:
    """The answer to a request whose Body holds another element than the operation's input,
    after the run's shared control was accepted (suite.fault_answer)."""
    judge(suite.fault_answer(), suite.require_fault)


VALID_BATCH = {"the valid batch": _valid_batch}
A_FAULT = {"a request with the wrong Body element": _wrong_body_element}


def _rule(check_id, severity, title, *, applies, elicit, **declared):
    return exchange_rule(check_id, severity, title, service="soap", applies=lambda item, ctx: applies(item),
                         elicit=elicit, **declared)


def _valid_answer_rule(check_id, severity, title, *, what="SOAP answers (200 or 500)", applies=None, **declared):
    return _rule(check_id, severity, title, what=what, applies=applies or (lambda item: _answer(item, (200, 500))),
                 elicit=VALID_BATCH, feature=declared.pop("feature", "part 4 / responses to valid requests"),
                 **declared)


@_valid_answer_rule("soap.response.content_type", MUST, "Responses are text/xml",
                    requirements=["SOAP11-6", "RFC3023-3.1"],
                    proven_by=["soap.soap12_content_type"],
                    may_fail_under=["soap.html_error_page"])  # judged on every exchange: its error pages are text/html
def content_type(item, ctx):
    messages.check_content_type(item.exchange)


@_valid_answer_rule("soap.response.utf8_or_utf16", SHOULD, "Responses are in UTF-8 or UTF-16 (the text/xml charset names one)",
                    requirements=["WSI-BP11-R1012"],
                    proven_by=["soap.response_in_latin1"],
                    downgrade_reason=messages.WSI_ONLY)
def utf8_or_utf16(item, ctx):
    messages.check_utf8_or_utf16(item.exchange)


@_valid_answer_rule("soap.response.charset_matches_body", MUST, "The response's bytes are in the encoding its charset names: they decode in it, a UTF-16 body begins with its byte order mark, no NUL characters",
                    requirements=["WSI-SSBP10-R1018", "WSI-BP11-R1012", "XML10-4.3.3"],
                    proven_by=["soap.response_charset_mislabelled"],
                    may_fail_under=["soap.utf16_answer_mislabelled"],  # judged on every exchange: the UTF-16 probe's answer too
                    feature="character encoding")
def charset_matches_body(item, ctx):
    charset.check_charset_matches_body(item.exchange)


@_valid_answer_rule("soap.response.encoding_declaration_agrees", SHOULD, "An XML declaration in the response names the encoding of its charset and bytes",
                    requirements=["XML10-4.3.3", "RFC3023-3.1"],
                    proven_by=["soap.response_declaration_mismatch"],
                    may_fail_under=["soap.response_charset_mislabelled", "soap.utf16_answer_mislabelled"],
                    feature="character encoding",
                    downgrade_reason="the HTTP charset is external information that governs (RFC 3023 3.1), so a declaration that disagrees is not a fatal error under XML 1.0 4.3.3: agreeing is expected, not required")
def encoding_declaration_agrees(item, ctx):
    charset.check_declaration_agrees(item.exchange)


@_valid_answer_rule("soap.response.no_dtd", MUST, "Responses carry no DOCTYPE or entity; the harness refuses one without expanding it",
                    requirements=["SOAP11-3", "WSI-BP11-R1008"],
                    proven_by=["soap.response_with_entity_bomb", "soap.response_with_external_entity"],
                    may_fail_under=["soap.html_error_page"],  # judged on every exchange: its error pages open with <!DOCTYPE html>
                    what="SOAP answers", applies=_answer, feature="XML hardening")
def no_dtd(item, ctx):
    messages.check_no_dtd(item.exchange)


@_valid_answer_rule("soap.response.envelope", MUST, "The response is a well-formed SOAP 1.1 envelope (optional Header, then Body, nothing after it), within the harness's size limit",
                    requirements=["SOAP11-4.1.1", "SOAP11-4.1.2", "SOAP11-4.3", "WSI-BP11-R1009", "WSI-BP11-R1011"],
                    proven_by=["soap.oversized_response"],
                    may_fail_under=["soap.response_with_entity_bomb", "soap.response_with_external_entity"],
                    what="200 SOAP answers", applies=lambda item: _answer(item, (200,)))
def envelope(item, ctx):
    messages.check_envelope(item.exchange)


@_valid_answer_rule("soap.response.body_element", MUST, "The Body holds exactly one element: the WSDL output element GraafberichtServiceResponse in the types namespace",
                    requirements=["SOAP-4.output", "WSI-BP11-R2712", "WSI-BP11-R1014"],
                    proven_by=["soap.response_wrong_namespace"],
                    may_fail_under=["soap.oversized_response", "soap.response_with_entity_bomb", "soap.response_with_external_entity"],
                    what="200 SOAP answers without a Fault", applies=lambda item: _answer(item, (200,), fault=False))
def body_element(item, ctx):
    messages.check_body_element(item.exchange, ctx.soap_contract.operations[OPERATION].output_element)


@_valid_answer_rule("soap.response.schema_valid", MUST, "The response element is valid against the types schema",
                    requirements=["SOAP-4.output", "SOAP-9.types-version", "WSI-BP11-R2712"],
                    proven_by=["soap.schema_invalid_response"],
                    # accepts_schema_invalid_request: judged on every exchange, it meets the answer built from a bad request
                    may_fail_under=["soap.oversized_response", "soap.response_with_entity_bomb", "soap.response_with_external_entity",
                                    "soap.response_wrong_namespace", "soap.accepts_schema_invalid_request"],
                    what="200 SOAP answers without a Fault", applies=lambda item: _answer(item, (200,), fault=False))
def schema_valid(item, ctx):
    messages.check_schema_valid(item.exchange, ctx.soap_contract)


def _fault_rule(check_id, severity, title, *, what="SOAP answers holding a Fault", applies=None, **declared):
    return _rule(check_id, severity, title, what=what, applies=applies or (lambda item: _answer(item, fault=True)),
                 elicit=A_FAULT, sends=["refused"], feature="SOAP 1.1 Fault", **declared)


# A Fault travels with HTTP 500, never 200; the statuses the Basic Profile itself asks for
# (405, 415) or HTTP authentication sends (401) are not SOAP processing errors.
@_fault_rule("soap.fault.http_500", MUST, "A Fault is sent with HTTP 500, never 200",
             requirements=["SOAP11-6.2", "WSI-BP11-R1126"],
             proven_by=["soap.fault_with_http_200"],
             applies=lambda item: _answer(item, fault=True) and item.exchange.status not in OTHER_STATUSES)
def fault_http_500(item, ctx):
    messages.check_fault_http_500(item.exchange)


# An HTTP 500 is an error's answer whatever it holds; a Fault is one whatever its status.
@_fault_rule("soap.fault.soap_envelope", MUST, "An error is answered with a text/xml SOAP 1.1 envelope holding one Fault, never an HTML page or a stack trace",
             requirements=["SOAP11-4.4", "SOAP11-6"],
             proven_by=["soap.html_error_page"],
             may_fail_under=["soap.soap12_content_type"],
             what="SOAP answers with HTTP 500 or holding a Fault",
             applies=lambda item: _answer(item, (500,)) or _answer(item, fault=True))
def fault_soap_envelope(item, ctx):
    messages.check_fault_envelope(item.exchange)


@_fault_rule("soap.fault.code_without_dot_notation", SHOULD, "The faultcode is not refined with SOAP 1.1's dot notation (soapenv:Client, not soapenv:Client.Validation)",
             requirements=["WSI-BP11-R1031"],
             proven_by=["soap.fault_dotted_codes"],
             # every_request_refused answers with soapenv:Client.Authentication: a dotted code
             may_fail_under=["soap.soap12_content_type", "soap.every_request_refused"])
def fault_code_without_dot_notation(item, ctx):
    messages.check_fault_code_undotted(item.exchange)


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
