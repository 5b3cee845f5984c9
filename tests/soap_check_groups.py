"""The SOAP suite's checks in the groups the project's tests reason about (what a fault that
breaks every Fault response takes down, which checks a refusal blocks). Test expectations,
not a catalogue: each id is declared where it is judged (suites/soap/), and
`test_the_groups_name_declared_checks` keeps these names true to the registry."""

from __future__ import annotations

from conformance.catalogue import registered_checks


def _by_feature(feature: str) -> frozenset[str]:
    return frozenset(c.id for c in registered_checks("soap") if c.feature == feature)


REJECTION_CHECKS = _by_feature("part 4 / rejection of bad requests") | {"soap.request.doctype_rejected"}
ENVELOPE_CHECKS = _by_feature("SOAP 1.1 / Basic Profile envelope rules")
HEADER_CHECKS = _by_feature("SOAP 1.1 header entries")
ENCODING_CHECKS = _by_feature("character encoding")
HTTP_CHECKS = _by_feature("SOAP 1.1 HTTP binding")
FAULT_CHECKS = _by_feature("SOAP 1.1 Fault")
WSDL_CHECKS = _by_feature("part 4 / WSDL")
AUTH_CHECKS = _by_feature("part 5 / authentication")
RESPONSE_CHECKS = _by_feature("part 4 / responses to valid requests") | {"soap.response.no_dtd",
                                                                         "soap.response.answered_in_time"}
ALL_CHECKS = frozenset(c.id for c in registered_checks("soap"))

RESPONSE_STATUS_OK = "soap.response.status_ok"
RESPONSE_ENVELOPE = "soap.response.envelope"
RESPONSE_BODY_ELEMENT = "soap.response.body_element"
RESPONSE_SCHEMA_VALID = "soap.response.schema_valid"
RESPONSE_REFERS_TO_REQUEST = "soap.response.refers_to_request"
REQUEST_UTF16_UNDERSTOOD = "soap.request.utf16_understood"
REQUEST_UTF16_ACCEPTED = "soap.request.utf16_accepted"
