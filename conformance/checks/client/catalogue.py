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
