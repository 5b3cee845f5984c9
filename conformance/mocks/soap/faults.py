"""Faults of the SOAP message-service mock: each a single, named deviation.

The checks they prove name them (`proven_by`); a fault that breaks every Fault response
(status, format, faultcode) necessarily makes each rejection check fail too, and those
checks name it under `may_fail_under`, so the meta-test stays strict about everything else.
"""

from __future__ import annotations

from conformance.mocks.faults import Fault, fault

# How a check says its control was refused (conformance/checks/soap/support.py): a fault that
# refuses valid requests blocks every check that starts from one.
_CONTROL_REFUSED = "the unchanged, schema-valid request (control) must be accepted"
_VALID_REFUSED = "a schema-valid request answered with a response, not a Fault"
# How a Fault rule says its bad request got no Fault (SoapSuite.require_fault): a fault that
# answers it with a page or a normal response blocks the rules on a Fault's format.
_FAULT_NEEDED = "must be answered with a SOAP Fault for the Fault rules to judge it"

SOAP_FAULTS: tuple[Fault, ...] = (
    fault("soap.schema_invalid_response", "the response element lacks its required Reactie", shows="Reactie"),
    fault(
        "soap.response_wrong_namespace",
        "the response element is in another namespace (date segment 20080723)", shows="20080723",
    ),
    fault(
        "soap.soap12_content_type",
        "every answer is sent as application/soap+xml (the SOAP 1.2 media type)", shows="application/soap+xml",
    ),
    fault("soap.fault_without_faultcode", "Faults have no faultcode element", shows="faultcode"),
    fault(
        "soap.response_in_latin1",
        "responses are ISO-8859-1, labelled text/xml; charset=iso-8859-1 with a declaration to match (legal XML and "
        "SOAP 1.1; WS-I Basic Profile R1012 asks for UTF-8 or UTF-16)", shows="iso-8859-1",
    ),
    fault("soap.fault_with_http_200", "Faults are sent with HTTP 200", shows="fault"),
    fault("soap.html_error_page", "errors are answered with an HTML error page showing a stack trace", shows="error",
          blocks=(_FAULT_NEEDED,)),
    fault(
        "soap.accepts_schema_invalid_request",
        "requests are not validated against the types schema; invalid ones get HTTP 200", shows="HTTP 200",
    ),
    fault(
        "soap.wrong_soapaction_accepted",
        "a present but wrong SOAPAction is ignored (dispatch on the body element)", shows="bad request was accepted",
    ),
    fault(
        "soap.response_with_external_entity",
        "responses carry a DOCTYPE declaring an external file entity, referenced in the body", shows="DOCTYPE declaring",
    ),
    fault(
        "soap.response_with_entity_bomb",
        "responses carry a billion-laughs DOCTYPE (nested entity expansion)", shows="expansion",
    ),
    fault("soap.oversized_response", "responses are padded beyond the harness's parse limit", shows="limit"),
    fault(
        "soap.missing_soapaction_accepted",
        "a request without a SOAPAction header is answered as if it were valid (HTTP 200)", shows="HTTP 200",
    ),
    fault(
        "soap.non_xml_accepted",
        "a body that is not XML is answered with a normal response (HTTP 200)", shows="HTTP 200",
    ),
    fault("soap.soap12_accepted", "a SOAP 1.2 envelope is answered as if it were SOAP 1.1 (HTTP 200)", shows="HTTP 200"),
    # The Fault-format checks provoke their Fault with a wrong Body element, and one
    # schema mutation moves the request element to another namespace.
    fault(
        "soap.wrong_body_element_accepted",
        "a Body element that is no operation's input is answered with a normal response", shows="bad request was accepted",
        blocks=(_FAULT_NEEDED,),
    ),
    fault("soap.oversized_accepted", "a request above the size limit is read and answered (HTTP 200)", shows="HTTP 200"),
    fault(
        "soap.response_reference_wrong",
        "the response refers to another message id than the request's", shows="BerichtId",
    ),
    # The response-element checks and the negative checks are blocked by the refusal.
    fault(
        "soap.valid_request_refused",
        "schema-valid requests are answered with a Server Fault (HTTP 500)",
        blocks=(_CONTROL_REFUSED, _VALID_REFUSED), shows="schema-valid",
    ),
    # The one failure, under the cause "valid GraafberichtServiceRequest -> HTTP 500
    # Client.Authentication Fault". Every check judging a response element, a refusal
    # or a Fault's format is blocked by it (its valid request or control was refused),
    # never passed and never failed (tests/test_soap_blocked.py).
    fault(
        "soap.every_request_refused",
        "every POST, valid or not, is refused with a soapenv:Client.Authentication Fault "
        "(HTTP 500): the service does not admit the caller, whatever the message",
        blocks=(_CONTROL_REFUSED, _VALID_REFUSED), shows="soapenv:Client.Authentication",
    ),
    fault(
        "soap.response_hangs",
        "the first request of each new connection is answered only after the harness's "
        "response-time limit (a stalled backend)", shows="after",
    ),
    fault(
        "soap.request_dtd_accepted",
        "a request with a DOCTYPE is accepted (HTTP 200) instead of refused", shows="HTTP 200",
    ),
    fault(
        "soap.request_internal_entities_expanded",
        "external entities and parameter entities are refused, but a DOCTYPE with internal "
        "entities is accepted and its entities expanded into the message", shows="expanded",
    ),
    # ------------------------------------------------------------------ envelope rules
    fault(
        "soap.not_an_envelope_accepted",
        "a document whose element is not soap:Envelope is answered as if it were valid (HTTP 200)", shows="soap:Envelope",
    ),
    fault(
        "soap.two_body_children_accepted",
        "a Body with several children is answered for the first one, the others ignored", shows="children",
    ),
    fault(
        "soap.unqualified_body_child_accepted",
        "a Body child without a namespace is taken for the operation's input element of that name", shows="namespace",
    ),
    fault(
        "soap.element_after_body_accepted",
        "elements after soap:Body are ignored (SOAP 1.1 allows them, the Basic Profile does not)", shows="after soap:Body",
    ),
    fault(
        "soap.encoding_style_accepted",
        "soap:encodingStyle on the envelope's elements and the Body child is ignored", shows="soap:encodingStyle",
    ),
    fault(
        "soap.processing_instruction_accepted",
        "processing instructions in the envelope are ignored", shows="processing instruction",
    ),
    # ------------------------------------------------------------------ header entries
    fault(
        "soap.must_understand_ignored",
        "mustUnderstand is never read: a mandatory header entry the service does not understand "
        "is ignored and the message processed", shows="mustUnderstand",
    ),
    fault(
        "soap.must_understand_client_fault",
        "a mandatory header entry the service does not understand gets a Client Fault, not MustUnderstand", shows="MustUnderstand",
    ),
    fault(
        "soap.must_understand_any_actor",
        "mustUnderstand=\"1\" is enforced whatever the entry's actor, entries for other nodes included", shows="mustUnderstand",
    ),
    fault(
        "soap.must_understand_anywhere",
        "a mustUnderstand attribute anywhere below soap:Header counts, not only on the entries", shows="mustUnderstand",
    ),
    # The mandatory entry gets the same Client Fault, not MustUnderstand.
    fault("soap.header_refused", "any header entry, optional or not, gets a Client Fault", shows="Fault"),
    # ------------------------------------------------------------------ character encoding
    fault(
        "soap.response_charset_mislabelled",
        "responses are UTF-8 but labelled text/xml; charset=utf-16", shows="labelled",
    ),
    fault(
        "soap.response_declaration_mismatch",
        "responses declare encoding='ISO-8859-1' while their bytes and charset are UTF-8", shows="declaration",
    ),
    fault(
        "soap.utf16_answer_mislabelled",
        "a UTF-16 request is answered in UTF-16, labelled charset=utf-8", shows="charset",
    ),
    fault("soap.utf16_request_refused", "a request in UTF-16 gets a Client Fault: only UTF-8 is read", shows="UTF-16"),
    # ------------------------------------------------------------------ HTTP binding and Faults
    fault(
        "soap.get_answered",
        "a GET on the endpoint is answered with an HTML page (HTTP 200), not 405", shows="endpoint",
    ),
    fault(
        "soap.unsupported_media_type_accepted",
        "a request's Content-Type is not read: text/plain is processed like text/xml (HTTP 200)", shows="unsupported media",
    ),
    fault(
        "soap.fault_dotted_codes",
        "every faultcode carries a dotted refinement (soapenv:Client.Error)", shows="soapenv:Client.Error",
    ),
)
