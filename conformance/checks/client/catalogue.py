"""Checks of a client's requests, judged from observed traffic (`conformance traffic`).

The seeds state rules for what a caller sends, not only for what the server answers: the
API key on every request, GET only, parameters within their limits. A conforming client
never breaks them; these checks read the requests of a HAR capture (suites/passive/).
Severity: MUST where the seed states the rule for the request.
"""

from conformance.checks.registry import Severity, define

SUITE = "client"
_ADDRESS = "address API client (seed 000)"

API_KEY_SENT = define(
    "client.address.api_key_sent",
    "Every request to the address API carries the API key in X-Api-Key (the profile's header name)",
    requirements=("ADDR-5.1", "ADDR-5.2"), severity=Severity.MUST, suite=SUITE, feature=_ADDRESS,
    observes="exchange",
).id
GET_ONLY = define(
    "client.address.get_only",
    "The client sends only GET to the address API (every operation is a read-only GET)",
    requirements=("ADDR-1.read-only",), severity=Severity.MUST, suite=SUITE, feature=_ADDRESS,
    observes="exchange",
).id
PARAMETERS_WITHIN_LIMITS = define(
    "client.address.parameters_within_limits",
    "Query parameters keep the seed's rules: page at least 1, pageSize 10 to 100, huisnummer 1 to 99999, "
    "the postcode, huisletter and huisnummertoevoeging patterns, the lengths of q, zoek and the names, "
    "a bbox of four numbers and at most 250000 m2",
    requirements=("ADDR-4.page", "ADDR-4.pageSize", "ADDR-8.pageSize", "ADDR-8.page", "ADDR-8.huisnummer",
                  "ADDR-4.adressen.postcode", "ADDR-4.adressen.huisletter", "ADDR-4.adressen.huisnummertoevoeging",
                  "ADDR-8.length", "ADDR-8.bbox"),
    severity=Severity.MUST, suite=SUITE, feature=_ADDRESS, observes="exchange",
).id

_AUTH = "authorization server client (seed 001, part a)"
PKCE_S256 = define(
    "client.auth.pkce_s256",
    "Authorization requests carry a code_challenge with code_challenge_method S256",
    requirements=("AUTH-2.authorization-request", "AUTH-5.2"), severity=Severity.MUST, suite=SUITE, feature=_AUTH,
    observes="exchange",
).id
AUTHORIZATION_REQUEST = define(
    "client.auth.authorization_request",
    "Authorization requests carry response_type=code and a client_id, state, scope, redirect_uri and nonce",
    requirements=("AUTH-2.authorization-request", "RFC6749-4.1"), severity=Severity.MUST, suite=SUITE,
    feature=_AUTH, observes="exchange",
).id
VERIFIER_SYNTAX = define(
    "client.auth.verifier_syntax",
    "A code_verifier is 43 to 128 characters of A-Z a-z 0-9 - . _ ~",
    requirements=("AUTH-2.code-verifier",), severity=Severity.MUST, suite=SUITE, feature=_AUTH, observes="exchange",
).id
VERIFIER_MATCHES_CHALLENGE = define(
    "client.auth.verifier_matches_challenge",
    "The code_verifier sent with a code is the one whose S256 transform was the challenge of the "
    "authorization request that code answered",
    requirements=("AUTH-2.code-challenge",), severity=Severity.MUST, suite=SUITE, feature=_AUTH, observes="flow",
).id
TOKEN_REQUEST_FORM = define(
    "client.auth.token_request_form",
    "Token requests are POSTed as application/x-www-form-urlencoded",
    requirements=("AUTH-4.token-request",), severity=Severity.MUST, suite=SUITE, feature=_AUTH, observes="exchange",
).id
ASSERTION_FORM = define(
    "client.auth.assertion_form",
    "A client assertion is a jwt-bearer JWT with typ JWT, alg RS256 and a kid; iss and sub equal; aud in the "
    "seed's form (or the profile's audience); exp in the future when sent; a jti",
    requirements=("AUTH-2.assertion.header", "AUTH-2.assertion.iss-sub", "AUTH-2.assertion.aud",
                  "AUTH-2.assertion.exp", "AUTH-2.assertion.jti", "AUTH-5.3"),
    severity=Severity.MUST, suite=SUITE, feature=_AUTH, observes="exchange",
).id
ASSERTION_SHORT_EXPIRY = define(
    "client.auth.assertion_short_expiry",
    "A client assertion expires within a few minutes (at most 10) of being sent",
    requirements=("AUTH-2.assertion.exp",), severity=Severity.SHOULD, suite=SUITE, feature=_AUTH, observes="exchange",
    downgrade_reason="the seed: 'a short expiry of a few minutes is recommended': a recommendation, not a rule",
).id
JTI_NOT_REUSED = define(
    "client.auth.jti_not_reused",
    "No assertion's jti is sent again before that assertion expired (each JWT is used once)",
    requirements=("AUTH-2.assertion.jti", "AUTH-8.assertion-single-use"), severity=Severity.MUST, suite=SUITE,
    feature=_AUTH, observes="flow",
).id
BEARER_ON_API_REQUESTS = define(
    "client.auth.bearer_on_api_requests",
    "Every request to the filing and inquiry APIs carries Authorization: Bearer",
    requirements=("AUTH-5.1",), severity=Severity.MUST, suite=SUITE, feature=_AUTH, observes="exchange",
).id

_SOAP = "SOAP message service client (seed 001, part b)"
SOAP_ACTION = define(
    "client.soap.soap_action",
    "SOAP requests carry the WSDL's soapAction, quoted, in the SOAPAction header",
    requirements=("SOAP-4.soapAction", "SOAP11-6.1.1", "WSI-BP11-R2744"), severity=Severity.MUST, suite=SUITE,
    feature=_SOAP, observes="exchange",
).id
SOAP_REQUEST_VALID = define(
    "client.soap.request_valid",
    "SOAP requests are POSTed as text/xml (utf-8 or utf-16) SOAP 1.1 envelopes whose Body holds the "
    "WSDL's input element GraafberichtServiceRequest, valid against the types schema",
    requirements=("SOAP-4.input", "SOAP11-6", "WSI-BP11-R2712", "WSI-BP11-R1012"), severity=Severity.MUST,
    suite=SUITE, feature=_SOAP, observes="exchange",
).id
