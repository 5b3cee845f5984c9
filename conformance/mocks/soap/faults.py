"""Faults of the SOAP message-service mock: each names the check(s) it exists to trip.

A fault that breaks every Fault response (status, format, faultcode) necessarily makes
each rejection check fail too; those are listed under `may_trip`, so the meta-test stays
strict about everything else.
"""

from __future__ import annotations

from conformance.checks.soap import catalogue as c
from conformance.mocks.faults import Fault, fault

# Every check judging a refusal: a fault that breaks every Fault fails them all.
_REJECTIONS = c.REJECTION_CHECKS | c.ENVELOPE_CHECKS | {c.HEADER_MUST_UNDERSTAND, c.HEADER_MUST_UNDERSTAND_TRUE}
# A response the harness refuses to parse fails every check that reads the response body.
_BODY_READERS = frozenset(
    {c.RESPONSE_STATUS_OK, c.RESPONSE_ENVELOPE, c.RESPONSE_BODY_ELEMENT, c.RESPONSE_SCHEMA_VALID,
     c.RESPONSE_REFERS_TO_REQUEST}
)  # fmt: skip

SOAP_FAULTS: tuple[Fault, ...] = (
    fault(
        "soap.schema_invalid_response",
        "the response element lacks its required Reactie",
        must_trip={c.RESPONSE_SCHEMA_VALID},
    ),
    fault(
        "soap.response_wrong_namespace",
        "the response element is in another namespace (date segment 20080723)",
        must_trip={c.RESPONSE_BODY_ELEMENT},
        may_trip={c.RESPONSE_SCHEMA_VALID, c.RESPONSE_REFERS_TO_REQUEST},
    ),
    fault(
        "soap.soap12_content_type",
        "every answer is sent as application/soap+xml (the SOAP 1.2 media type)",
        must_trip={c.RESPONSE_CONTENT_TYPE},
        may_trip={c.FAULT_SOAP_ENVELOPE, c.FAULT_STRUCTURE, c.FAULT_CODE_UNDOTTED} | _REJECTIONS,
    ),
    fault(
        "soap.fault_without_faultcode",
        "Faults have no faultcode element",
        must_trip={c.FAULT_STRUCTURE},
        may_trip=_REJECTIONS,
    ),
    fault(
        "soap.fault_with_http_200",
        "Faults are sent with HTTP 200",
        must_trip={c.FAULT_HTTP_500},
        may_trip=_REJECTIONS | c.HTTP_CHECKS,  # the 405 and 415 answers are Faults too
    ),
    fault(
        "soap.html_error_page",
        "errors are answered with an HTML error page showing a stack trace",
        must_trip={c.FAULT_SOAP_ENVELOPE},
        may_trip={c.FAULT_STRUCTURE, c.FAULT_CODE_UNDOTTED} | _REJECTIONS,
    ),
    fault(
        "soap.accepts_schema_invalid_request",
        "requests are not validated against the types schema; invalid ones get HTTP 200",
        must_trip={c.REJECT_SCHEMA_INVALID},
    ),
    fault(
        "soap.wrong_soapaction_accepted",
        "a present but wrong SOAPAction is ignored (dispatch on the body element)",
        must_trip={c.REJECT_WRONG_SOAP_ACTION},
    ),
    fault(
        "soap.response_with_external_entity",
        "responses carry a DOCTYPE declaring an external file entity, referenced in the body",
        must_trip={c.RESPONSE_NO_DTD},
        may_trip=_BODY_READERS,
    ),
    fault(
        "soap.response_with_entity_bomb",
        "responses carry a billion-laughs DOCTYPE (nested entity expansion)",
        must_trip={c.RESPONSE_NO_DTD},
        may_trip=_BODY_READERS,
    ),
    fault(
        "soap.oversized_response",
        "responses are padded beyond the harness's parse limit",
        must_trip={c.RESPONSE_ENVELOPE},
        may_trip=_BODY_READERS - {c.RESPONSE_ENVELOPE},
    ),
    fault(
        "soap.missing_soapaction_accepted",
        "a request without a SOAPAction header is answered as if it were valid (HTTP 200)",
        must_trip={c.REJECT_MISSING_SOAP_ACTION},
    ),
    fault(
        "soap.non_xml_accepted",
        "a body that is not XML is answered with a normal response (HTTP 200)",
        must_trip={c.REJECT_NON_XML},
    ),
    fault(
        "soap.soap12_accepted",
        "a SOAP 1.2 envelope is answered as if it were SOAP 1.1 (HTTP 200)",
        must_trip={c.REJECT_SOAP12},
    ),
    fault(
        "soap.wrong_body_element_accepted",
        "a Body element that is no operation's input is answered with a normal response",
        must_trip={c.REJECT_WRONG_BODY_ELEMENT},
        # The Fault-format checks provoke their Fault with a wrong Body element, and one
        # schema mutation moves the request element to another namespace.
        may_trip=c.FAULT_CHECKS | {c.REJECT_SCHEMA_INVALID},
    ),
    fault(
        "soap.oversized_accepted",
        "a request above the size limit is read and answered (HTTP 200)",
        must_trip={c.REJECT_OVERSIZED},
    ),
    fault(
        "soap.response_reference_wrong",
        "the response refers to another message id than the request's",
        must_trip={c.RESPONSE_REFERS_TO_REQUEST},
    ),
    fault(
        "soap.valid_request_refused",
        "schema-valid requests are answered with a Server Fault (HTTP 500)",
        # The response-element checks and the negative checks are blocked by the refusal.
        must_trip={c.RESPONSE_STATUS_OK},
    ),
    fault(
        "soap.every_request_refused",
        "every POST, valid or not, is refused with a soapenv:Client.Authentication Fault "
        "(HTTP 500): the service does not admit the caller, whatever the message",
        # The one failure, under the cause "valid GraafberichtServiceRequest -> HTTP 500
        # Client.Authentication Fault". Every check judging a response element, a refusal
        # or a Fault's format is blocked by it (its valid request or control was refused),
        # never passed and never failed (tests/test_soap_blocked.py).
        must_trip={c.RESPONSE_STATUS_OK},
    ),
    fault(
        "soap.response_hangs",
        "the first request of each new connection is answered only after the harness's "
        "response-time limit (a stalled backend)",
        must_trip={c.RESPONSE_IN_TIME},
    ),
    fault(
        "soap.request_dtd_accepted",
        "a request with a DOCTYPE is accepted (HTTP 200) instead of refused",
        must_trip={c.REJECT_DOCTYPE},
    ),
    fault(
        "soap.request_internal_entities_expanded",
        "external entities and parameter entities are refused, but a DOCTYPE with internal "
        "entities is accepted and its entities expanded into the message",
        must_trip={c.REJECT_DOCTYPE},
    ),
    # ------------------------------------------------------------------ envelope rules
    fault(
        "soap.not_an_envelope_accepted",
        "a document whose element is not soap:Envelope is answered as if it were valid (HTTP 200)",
        must_trip={c.REJECT_NOT_AN_ENVELOPE},
    ),
    fault(
        "soap.two_body_children_accepted",
        "a Body with several children is answered for the first one, the others ignored",
        must_trip={c.REJECT_TWO_BODY_CHILDREN},
    ),
    fault(
        "soap.unqualified_body_child_accepted",
        "a Body child without a namespace is taken for the operation's input element of that name",
        must_trip={c.REJECT_UNQUALIFIED_BODY_CHILD},
    ),
    fault(
        "soap.element_after_body_accepted",
        "elements after soap:Body are ignored (SOAP 1.1 allows them, the Basic Profile does not)",
        must_trip={c.REJECT_AFTER_BODY},
    ),
    fault(
        "soap.encoding_style_accepted",
        "soap:encodingStyle on the envelope's elements and the Body child is ignored",
        must_trip={c.REJECT_ENCODING_STYLE},
    ),
    fault(
        "soap.processing_instruction_accepted",
        "processing instructions in the envelope are ignored",
        must_trip={c.REJECT_PROCESSING_INSTRUCTION},
    ),
    # ------------------------------------------------------------------ header entries
    fault(
        "soap.must_understand_ignored",
        "mustUnderstand is never read: a mandatory header entry the service does not understand "
        "is ignored and the message processed",
        must_trip={c.HEADER_MUST_UNDERSTAND, c.HEADER_MUST_UNDERSTAND_TRUE},
    ),
    fault(
        "soap.must_understand_client_fault",
        "a mandatory header entry the service does not understand gets a Client Fault, not MustUnderstand",
        must_trip={c.HEADER_MUST_UNDERSTAND},
    ),
    fault(
        "soap.must_understand_any_actor",
        "mustUnderstand=\"1\" is enforced whatever the entry's actor, entries for other nodes included",
        must_trip={c.HEADER_OTHER_ACTOR_IGNORED},
    ),
    fault(
        "soap.must_understand_anywhere",
        "a mustUnderstand attribute anywhere below soap:Header counts, not only on the entries",
        must_trip={c.HEADER_NESTED_ATTRIBUTE_IGNORED},
    ),
    fault(
        "soap.header_refused",
        "any header entry, optional or not, gets a Client Fault",
        must_trip={c.HEADER_OPTIONAL_IGNORED, c.HEADER_OTHER_ACTOR_IGNORED, c.HEADER_NESTED_ATTRIBUTE_IGNORED},
        # The mandatory entry gets the same Client Fault, not MustUnderstand.
        may_trip={c.HEADER_MUST_UNDERSTAND},
    ),
    # ------------------------------------------------------------------ character encoding
    fault(
        "soap.response_charset_mislabelled",
        "responses are UTF-8 but labelled text/xml; charset=utf-16",
        must_trip={c.RESPONSE_CHARSET_MATCHES},
        may_trip={c.RESPONSE_DECLARATION_AGREES, c.REQUEST_UTF16_UNDERSTOOD},
    ),
    fault(
        "soap.response_declaration_mismatch",
        "responses declare encoding='ISO-8859-1' while their bytes and charset are UTF-8",
        must_trip={c.RESPONSE_DECLARATION_AGREES},
    ),
    fault(
        "soap.utf16_answer_mislabelled",
        "a UTF-16 request is answered in UTF-16, labelled charset=utf-8",
        must_trip={c.REQUEST_UTF16_UNDERSTOOD},
    ),
    fault(
        "soap.utf16_request_refused",
        "a request in UTF-16 gets a Client Fault: only UTF-8 is read",
        must_trip={c.REQUEST_UTF16_ACCEPTED},
    ),
    # ------------------------------------------------------------------ HTTP binding and Faults
    fault(
        "soap.get_answered",
        "a GET on the endpoint is answered with an HTML page (HTTP 200), not 405",
        must_trip={c.HTTP_METHOD_NOT_ALLOWED},
    ),
    fault(
        "soap.unsupported_media_type_accepted",
        "a request's Content-Type is not read: text/plain is processed like text/xml (HTTP 200)",
        must_trip={c.HTTP_UNSUPPORTED_MEDIA_TYPE},
    ),
    fault(
        "soap.fault_dotted_codes",
        "every faultcode carries a dotted refinement (soapenv:Client.Error)",
        must_trip={c.FAULT_CODE_UNDOTTED},
    ),
)
