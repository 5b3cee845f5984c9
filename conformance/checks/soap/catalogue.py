"""Every check of the SOAP message-service suite, with its requirements and severity.

Requirement ids: `SOAP-<part>.<topic>` for the seed (001, part (b)); `SOAP11-<section>` for
SOAP 1.1 (W3C Note, 2000); `WSI-BP11-R<nnnn>` for WS-I Basic Profile 1.1; `RFC<n>-<section>`.
Severity follows docs/design.md: MUST where the seed or a MUST of the protocol it names
requires it; SHOULD where the seed is silent and the check follows common practice (many
servers accept a wrong SOAPAction or skip schema validation: that is reported, as a warning).

Refusals of a request: MUST where SOAP 1.1 or the Basic Profile binds the receiver (R1015,
VersionMismatch, MustUnderstand, SOAP 1.1 4.3.1: every Body entry is mandatory, so one it does
not process or understand must fail the message) or where SOAP 1.1 itself says a message MUST
NOT hold the construct (section 3: a DOCTYPE, a processing instruction); SHOULD where only the
Basic Profile restricts what SOAP 1.1 allows (an element after the Body, soap:encodingStyle):
those rules bind the sender's envelope, and a SOAP 1.1 processor may accept them.
"""

from __future__ import annotations

from conformance.checks.registry import Severity, define

SUITE = "soap"
_WSDL = "part 4 / WSDL"
_RESPONSE = "part 4 / responses to valid requests"
_REJECT = "part 4 / rejection of bad requests"
_FAULT = "SOAP 1.1 Fault"
_HARDENING = "XML hardening"
_ENVELOPE = "SOAP 1.1 / Basic Profile envelope rules"
_HEADERS = "SOAP 1.1 header entries"
_ENCODING = "character encoding"
_HTTP = "SOAP 1.1 HTTP binding"

# --------------------------------------------------------------------------- the WSDL
WSDL_PORT_TYPE_OPERATION = define(
    "soap.wsdl.port_type_operation",
    "The port type RegistryNetbeheerderGraafBerichtServicePortType has the operation "
    "RegistryRequestNetbeheerderServiceResponse with an input and an output",
    requirements=("SOAP-4.port-type", "SOAP-4.operation"),
    severity=Severity.MUST, suite=SUITE, feature=_WSDL,
).id
WSDL_MESSAGE_PARTS = define(
    "soap.wsdl.message_parts",
    "Input and output messages have one part `body` referring by element= to "
    "GraafberichtServiceRequest and GraafberichtServiceResponse",
    requirements=("SOAP-4.input", "SOAP-4.output", "WSI-BP11-R2204", "WSI-BP11-R2210"),
    severity=Severity.MUST, suite=SUITE, feature=_WSDL,
).id
WSDL_BINDING = define(
    "soap.wsdl.binding_document_literal",
    "The binding RegistryNetbeheerderGraafBerichtServiceBinding implements the port type "
    "with SOAP 1.1, document style, literal use and the SOAP/HTTP transport",
    requirements=("SOAP-4.binding", "WSI-BP11-R2702", "WSI-BP11-R2705", "WSI-BP11-R2706", "WSI-BP11-R2201"),
    severity=Severity.MUST, suite=SUITE, feature=_WSDL,
).id
WSDL_SOAP_ACTION = define(
    "soap.wsdl.soap_action",
    "The operation's soapAction is {soap_action_base}/RequestNetbeheerderServiceResponse",
    requirements=("SOAP-4.soapAction",),
    severity=Severity.MUST, suite=SUITE, feature=_WSDL,
).id
WSDL_SERVICE_PORT = define(
    "soap.wsdl.service_port",
    "The service RegistryNetbeheerderGraafBerichtService has the port "
    "RegistryNetbeheerderGraafBerichtServicePort on the binding, at the endpoint address",
    requirements=("SOAP-4.service", "SOAP-4.port"),
    severity=Severity.MUST, suite=SUITE, feature=_WSDL,
).id
WSDL_TYPES_VERSION = define(
    "soap.wsdl.types_version",
    "Both elements are declared in a types namespace with the date segment 20080722, "
    "schema version 1.2",
    requirements=("SOAP-9.types-version", "SOAP-2.message-elements"),
    severity=Severity.MUST, suite=SUITE, feature=_WSDL,
).id

# --------------------------------------------------------------------------- valid requests
RESPONSE_STATUS_OK = define(
    "soap.response.status_ok",
    "A schema-valid request is answered with HTTP 200 and no Fault",
    requirements=("SOAP-4.operation", "SOAP11-6.2", "WSI-BP11-R1111"),
    severity=Severity.MUST, suite=SUITE, feature=_RESPONSE,
).id
RESPONSE_CONTENT_TYPE = define(
    "soap.response.content_type",
    "Responses are text/xml with a charset of utf-8 or utf-16",
    requirements=("SOAP11-6", "WSI-BP11-R1012", "RFC3023-3.1"),
    severity=Severity.MUST, suite=SUITE, feature=_RESPONSE,
    observes="exchange",
).id
RESPONSE_ENVELOPE = define(
    "soap.response.envelope",
    "The response is a well-formed SOAP 1.1 envelope (optional Header, then Body, nothing "
    "after it), within the harness's size limit",
    requirements=("SOAP11-4.1.1", "SOAP11-4.1.2", "SOAP11-4.3", "WSI-BP11-R1009", "WSI-BP11-R1011"),
    severity=Severity.MUST, suite=SUITE, feature=_RESPONSE,
    observes="exchange",
).id
RESPONSE_BODY_ELEMENT = define(
    "soap.response.body_element",
    "The Body holds exactly one element: the WSDL output element GraafberichtServiceResponse "
    "in the types namespace",
    requirements=("SOAP-4.output", "WSI-BP11-R2712", "WSI-BP11-R1014"),
    severity=Severity.MUST, suite=SUITE, feature=_RESPONSE,
    observes="exchange",
).id
RESPONSE_SCHEMA_VALID = define(
    "soap.response.schema_valid",
    "The response element is valid against the types schema",
    requirements=("SOAP-4.output", "SOAP-9.types-version", "WSI-BP11-R2712"),
    severity=Severity.MUST, suite=SUITE, feature=_RESPONSE,
    observes="exchange",
).id
RESPONSE_REFERS_TO_REQUEST = define(
    "soap.response.refers_to_request",
    "The response (5b) refers to its request (5a): the request's BerichtId and MeldingNummer",
    requirements=("SOAP-1.message-exchange",),
    severity=Severity.SHOULD, suite=SUITE, feature=_RESPONSE,
).id
RESPONSE_NO_DTD = define(
    "soap.response.no_dtd",
    "Responses carry no DOCTYPE or entity; the harness refuses one without expanding it",
    requirements=("WSI-BP11-R1008",),
    severity=Severity.MUST, suite=SUITE, feature=_HARDENING,
    observes="exchange",
).id

RESPONSE_IN_TIME = define(
    "soap.response.answered_in_time",
    "A schema-valid request is answered within the profile's response-time limit "
    "(services.soap.response_time_s); a time-out is a finding, reported with the time waited",
    requirements=("SOAP-8.response-time",),
    severity=Severity.SHOULD, suite=SUITE, feature=_HARDENING,
).id

# --------------------------------------------------------------------------- authentication
AUTH_CREDENTIALS_REQUIRED = define(
    "soap.auth.credentials_required",
    "Does the endpoint answer a schema-valid request sent without credentials (no HTTP "
    "basic credentials, no client certificate)? Measured, with the profile's auth kind",
    requirements=("SOAP-5.5",),
    severity=Severity.OBSERVATION, suite=SUITE, feature="part 5 / authentication",
).id

# --------------------------------------------------------------------------- bad requests
REJECT_SCHEMA_INVALID = define(
    "soap.request.schema_invalid_rejected",
    "Schema-invalid requests (required element dropped, pattern broken, enumeration outside "
    "its set, range or length exceeded, wrong namespace) get a Client Fault with HTTP 500",
    requirements=("SOAP11-4.4.1", "SOAP11-6.2", "WSI-BP11-R1126"),
    severity=Severity.SHOULD, suite=SUITE, feature=_REJECT,
    downgrade_reason='the seed leaves the messages\' content "not shown" and does not say the service validates requests against the types schema; a Client Fault for a schema-invalid request is public behaviour',
).id
REJECT_MISSING_SOAP_ACTION = define(
    "soap.request.missing_soapaction_rejected",
    "A request without SOAPAction header gets a Client Fault with HTTP 500",
    requirements=("SOAP11-6.1.1", "WSI-BP11-R2744"),
    severity=Severity.SHOULD, suite=SUITE, feature=_REJECT,
).id
REJECT_WRONG_SOAP_ACTION = define(
    "soap.request.wrong_soapaction_rejected",
    "A request whose SOAPAction is not the WSDL's soapAction gets a Client Fault with HTTP 500",
    requirements=("SOAP-4.soapAction", "WSI-BP11-R2744"),
    severity=Severity.SHOULD, suite=SUITE, feature=_REJECT,
).id
REJECT_NON_XML = define(
    "soap.request.non_xml_rejected",
    "A body that is not XML gets a Client Fault with HTTP 500 (HTTP 400 accepted), never 200",
    requirements=("SOAP11-4.4.1", "SOAP11-6.2", "WSI-BP11-R1126"),
    severity=Severity.MUST, suite=SUITE, feature=_REJECT,
).id
REJECT_SOAP12 = define(
    "soap.request.soap12_envelope_rejected",
    "A SOAP 1.2 envelope gets a SOAP 1.1 VersionMismatch Fault with HTTP 500",
    requirements=("SOAP11-4.1.2", "SOAP11-4.4.1", "WSI-BP11-R1126"),
    severity=Severity.MUST, suite=SUITE, feature=_REJECT,
).id
REJECT_WRONG_BODY_ELEMENT = define(
    "soap.request.wrong_body_element_rejected",
    "A Body holding another element than GraafberichtServiceRequest gets a Client Fault "
    "with HTTP 500",
    requirements=("WSI-BP11-R2712", "SOAP11-4.4.1", "SOAP11-6.2"),
    severity=Severity.MUST, suite=SUITE, feature=_REJECT,
).id
REJECT_OVERSIZED = define(
    "soap.request.oversized_rejected",
    "An oversized request body gets a Client Fault with HTTP 500, not a hang or a crash",
    requirements=("SOAP11-6.2", "WSI-BP11-R1126"),
    severity=Severity.SHOULD, suite=SUITE, feature=_REJECT,
    downgrade_reason='no clause sets a size limit; a Client Fault for an oversized body (rather than a hang or a crash) is the public behaviour of a bounded service',
).id
REJECT_DOCTYPE = define(
    "soap.request.doctype_rejected",
    "A request with a DOCTYPE of any kind (none declared, an external DTD, internal general "
    "entities, a parameter entity, an external entity) gets a Client Fault, and nothing it "
    "declares ever appears in the answer (the entities are never expanded)",
    requirements=("SOAP11-3", "WSI-BP11-R1008", "SOAP11-4.4.1"),
    severity=Severity.MUST, suite=SUITE, feature=_HARDENING,
).id
REJECT_NOT_AN_ENVELOPE = define(
    "soap.request.not_an_envelope_rejected",
    "A well-formed request whose document element is not soap:Envelope (the request element "
    "alone) gets a Fault with HTTP 500",
    requirements=("WSI-BP11-R1015", "SOAP11-6.2"),
    severity=Severity.MUST, suite=SUITE, feature=_ENVELOPE,
).id
REJECT_TWO_BODY_CHILDREN = define(
    "soap.request.two_body_children_rejected",
    "A Body holding the request element twice gets a Client Fault with HTTP 500 (a "
    "document/literal Body holds exactly one element, the input part's)",
    requirements=("WSI-BP11-R9981", "SOAP11-4.3.1", "WSI-BP11-R2712", "SOAP11-4.4.1", "SOAP11-6.2"),
    severity=Severity.MUST, suite=SUITE, feature=_ENVELOPE,
).id
REJECT_UNQUALIFIED_BODY_CHILD = define(
    "soap.request.unqualified_body_child_rejected",
    "A Body child without a namespace (the request element unqualified) gets a Client Fault "
    "with HTTP 500",
    requirements=("WSI-BP11-R1014", "SOAP11-4.3.1", "WSI-BP11-R2712", "SOAP11-4.4.1", "SOAP11-6.2"),
    severity=Severity.MUST, suite=SUITE, feature=_ENVELOPE,
).id
REJECT_AFTER_BODY = define(
    "soap.request.element_after_body_rejected",
    "A request with an element after soap:Body gets a Client Fault with HTTP 500 (Basic Profile "
    "forbids what SOAP 1.1 allows)",
    requirements=("WSI-BP11-R1011", "SOAP11-6.2"),
    severity=Severity.SHOULD, suite=SUITE, feature=_ENVELOPE,
    downgrade_reason="SOAP 1.1 allows elements after the Body; WS-I R1011 constrains the sender's envelope, and the seed names SOAP 1.1, not the Basic Profile",
).id
REJECT_ENCODING_STYLE = define(
    "soap.request.encoding_style_rejected",
    "A request with soap:encodingStyle on soap:Envelope, soap:Body or the Body child (a literal "
    "service) gets a Client Fault with HTTP 500",
    requirements=("WSI-BP11-R1005", "WSI-BP11-R1006", "WSI-BP11-R2706", "SOAP11-6.2"),
    severity=Severity.SHOULD, suite=SUITE, feature=_ENVELOPE,
    downgrade_reason="the WS-I rules constrain the sender's envelope, and the seed names SOAP 1.1 document/literal, not the Basic Profile: refusing an encodingStyle is public behaviour",
).id
REJECT_PROCESSING_INSTRUCTION = define(
    "soap.request.processing_instruction_rejected",
    "A request with a processing instruction in soap:Body gets a Client Fault with HTTP 500",
    requirements=("SOAP11-3", "WSI-BP11-R1009", "SOAP11-6.2"),
    severity=Severity.MUST, suite=SUITE, feature=_ENVELOPE,
).id

# --------------------------------------------------------------------------- header entries
HEADER_MUST_UNDERSTAND = define(
    "soap.header.must_understand_fault",
    "A header entry the service does not understand, marked mustUnderstand=\"1\" for it (no actor, "
    "or the actor .../soap/actor/next), gets a soapenv:MustUnderstand Fault with HTTP 500 and "
    "no detail",
    requirements=("SOAP11-4.2.3", "WSI-BP11-R1027", "SOAP11-4.4.1", "SOAP11-4.4", "SOAP11-6.2"),
    severity=Severity.MUST, suite=SUITE, feature=_HEADERS,
).id
HEADER_MUST_UNDERSTAND_TRUE = define(
    "soap.header.must_understand_true_refused",
    "A header entry marked mustUnderstand=\"true\" (not a SOAP 1.1 value) is not processed as if "
    "it were optional: a MustUnderstand or Client Fault with HTTP 500",
    requirements=("SOAP11-4.2.3", "WSI-BP11-R1013"),
    severity=Severity.SHOULD, suite=SUITE, feature=_HEADERS,
    downgrade_reason='SOAP 1.1 4.2.3 and WS-I R1013 fix the values a sender may write ("0" and "1"); what a recipient does with "true" they leave open: refusing it is the public behaviour of SOAP stacks',
).id
HEADER_OPTIONAL_IGNORED = define(
    "soap.header.optional_ignored",
    "An optional header entry (mustUnderstand=\"0\", or no mustUnderstand; with or without the "
    "actor .../next) does not change the answer: HTTP 200 and a schema-valid response",
    requirements=("SOAP11-2", "SOAP11-4.2.3"),
    severity=Severity.SHOULD, suite=SUITE, feature=_HEADERS,
    downgrade_reason='SOAP 1.1 4.2.3 lets a recipient process an optional header entry it understands; an answer unchanged by an entry it does not know is expected, not required',
).id
HEADER_OTHER_ACTOR_IGNORED = define(
    "soap.header.other_actor_ignored",
    "A header entry marked mustUnderstand=\"1\" for another actor (neither .../next nor the "
    "ultimate receiver) is not processed by the service: HTTP 200 and a schema-valid response",
    requirements=("SOAP11-2", "SOAP11-4.2.2"),
    severity=Severity.MUST, suite=SUITE, feature=_HEADERS,
).id
HEADER_NESTED_ATTRIBUTE_IGNORED = define(
    "soap.header.nested_attribute_ignored",
    "A mustUnderstand=\"1\" below an optional header entry (not on an immediate child of "
    "soap:Header) is ignored: HTTP 200 and a schema-valid response",
    requirements=("SOAP11-4.2.1",),
    severity=Severity.MUST, suite=SUITE, feature=_HEADERS,
).id

# --------------------------------------------------------------------------- encodings
RESPONSE_CHARSET_MATCHES = define(
    "soap.response.charset_matches_body",
    "The response's bytes are in the encoding its charset names: they decode in it, a UTF-16 "
    "body begins with its byte order mark, no NUL characters",
    requirements=("WSI-SSBP10-R1018", "WSI-BP11-R1012", "XML10-4.3.3"),
    severity=Severity.MUST, suite=SUITE, feature=_ENCODING,
    observes="exchange",
).id
RESPONSE_DECLARATION_AGREES = define(
    "soap.response.encoding_declaration_agrees",
    "An XML declaration in the response names the encoding of its charset and bytes",
    requirements=("XML10-4.3.3", "RFC3023-3.1"),
    severity=Severity.SHOULD, suite=SUITE, feature=_ENCODING,
    downgrade_reason='the HTTP charset is external information that governs (RFC 3023 3.1), so a declaration that disagrees is not a fatal error under XML 1.0 4.3.3: agreeing is expected, not required',
    observes="exchange",
).id
REQUEST_UTF16_UNDERSTOOD = define(
    "soap.request.utf16_understood",
    "A schema-valid request in UTF-16 (byte order mark, text/xml; charset=utf-16) is answered with "
    "a schema-valid response or a SOAP 1.1 Fault, in a readable envelope whose bytes match its "
    "charset: never garbage",
    requirements=("WSI-BP11-R1012", "SOAP11-6.2", "WSI-SSBP10-R1018"),
    severity=Severity.MUST, suite=SUITE, feature=_ENCODING,
).id
REQUEST_UTF16_ACCEPTED = define(
    "soap.request.utf16_accepted",
    "A schema-valid request in UTF-16 is processed like its UTF-8 original: HTTP 200 and a "
    "schema-valid response",
    requirements=("XML10-4.3.3", "WSI-BP11-R1012"),
    severity=Severity.SHOULD, suite=SUITE, feature=_ENCODING,
    downgrade_reason='that a UTF-16 request is understood is the MUST check soap.request.utf16_understood; processing it exactly like its UTF-8 original goes beyond what XML 1.0 and WS-I R1012 state',
).id

# --------------------------------------------------------------------------- the HTTP binding
HTTP_METHOD_NOT_ALLOWED = define(
    "soap.http.method_not_allowed",
    "A GET on the endpoint (not the ?wsdl query) is answered with HTTP 405",
    requirements=("WSI-BP11-R1114", "WSI-BP11-R1132"),
    severity=Severity.SHOULD, suite=SUITE, feature=_HTTP,
).id
HTTP_UNSUPPORTED_MEDIA_TYPE = define(
    "soap.http.unsupported_media_type",
    "A valid envelope sent as text/plain (a media type the WSDL's SOAP 1.1 binding does not allow) "
    "is answered with HTTP 415",
    requirements=("WSI-BP11-R1115", "SOAP11-6"),
    severity=Severity.SHOULD, suite=SUITE, feature=_HTTP,
).id

# --------------------------------------------------------------------------- faults
FAULT_HTTP_500 = define(
    "soap.fault.http_500",
    "A Fault is sent with HTTP 500, never 200",
    requirements=("SOAP11-6.2", "WSI-BP11-R1126"),
    severity=Severity.MUST, suite=SUITE, feature=_FAULT,
    observes="exchange",
).id
FAULT_SOAP_ENVELOPE = define(
    "soap.fault.soap_envelope",
    "An error is answered with a text/xml SOAP 1.1 envelope holding one Fault, never an HTML "
    "page or a stack trace",
    requirements=("SOAP11-4.4", "SOAP11-6"),
    severity=Severity.MUST, suite=SUITE, feature=_FAULT,
    observes="exchange",
).id
FAULT_STRUCTURE = define(
    "soap.fault.structure",
    "The Fault has a faultcode QName in the SOAP 1.1 namespace and a faultstring, only "
    "unqualified standard children, and a detail when the Body could not be processed",
    requirements=("SOAP11-4.4", "SOAP11-4.4.1", "WSI-BP11-R1000", "WSI-BP11-R1001"),
    severity=Severity.MUST, suite=SUITE, feature=_FAULT,
).id

FAULT_CODE_UNDOTTED = define(
    "soap.fault.code_without_dot_notation",
    "The faultcode is not refined with SOAP 1.1's dot notation (soapenv:Client, not "
    "soapenv:Client.Validation)",
    requirements=("WSI-BP11-R1031",),
    severity=Severity.SHOULD, suite=SUITE, feature=_FAULT,
    observes="exchange",
).id

REJECTION_CHECKS = frozenset(
    {
        REJECT_SCHEMA_INVALID, REJECT_MISSING_SOAP_ACTION, REJECT_WRONG_SOAP_ACTION, REJECT_NON_XML,
        REJECT_SOAP12, REJECT_WRONG_BODY_ELEMENT, REJECT_OVERSIZED, REJECT_DOCTYPE,
    }
)  # fmt: skip
# Requests breaking an envelope rule: refused with a Fault like the rejections above.
ENVELOPE_CHECKS = frozenset(
    {
        REJECT_NOT_AN_ENVELOPE, REJECT_TWO_BODY_CHILDREN, REJECT_UNQUALIFIED_BODY_CHILD, REJECT_AFTER_BODY,
        REJECT_ENCODING_STYLE, REJECT_PROCESSING_INSTRUCTION,
    }
)  # fmt: skip
HEADER_CHECKS = frozenset(
    {
        HEADER_MUST_UNDERSTAND, HEADER_MUST_UNDERSTAND_TRUE, HEADER_OPTIONAL_IGNORED, HEADER_OTHER_ACTOR_IGNORED,
        HEADER_NESTED_ATTRIBUTE_IGNORED,
    }
)  # fmt: skip
ENCODING_CHECKS = frozenset(
    {RESPONSE_CHARSET_MATCHES, RESPONSE_DECLARATION_AGREES, REQUEST_UTF16_UNDERSTOOD, REQUEST_UTF16_ACCEPTED}
)
HTTP_CHECKS = frozenset({HTTP_METHOD_NOT_ALLOWED, HTTP_UNSUPPORTED_MEDIA_TYPE})
RESPONSE_CHECKS = frozenset(
    {
        RESPONSE_STATUS_OK, RESPONSE_CONTENT_TYPE, RESPONSE_ENVELOPE, RESPONSE_BODY_ELEMENT,
        RESPONSE_SCHEMA_VALID, RESPONSE_REFERS_TO_REQUEST, RESPONSE_NO_DTD, RESPONSE_IN_TIME,
    }
)  # fmt: skip
AUTH_CHECKS = frozenset({AUTH_CREDENTIALS_REQUIRED})
FAULT_CHECKS = frozenset({FAULT_HTTP_500, FAULT_SOAP_ENVELOPE, FAULT_STRUCTURE, FAULT_CODE_UNDOTTED})
WSDL_CHECKS = frozenset(
    {
        WSDL_PORT_TYPE_OPERATION, WSDL_MESSAGE_PARTS, WSDL_BINDING, WSDL_SOAP_ACTION,
        WSDL_SERVICE_PORT, WSDL_TYPES_VERSION,
    }
)  # fmt: skip
ALL_CHECKS = (
    REJECTION_CHECKS | ENVELOPE_CHECKS | HEADER_CHECKS | ENCODING_CHECKS | HTTP_CHECKS | RESPONSE_CHECKS
    | FAULT_CHECKS | WSDL_CHECKS | AUTH_CHECKS
)
