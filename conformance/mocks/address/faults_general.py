"""Address mock faults that prove the general checks (headers, paging, CRS, negotiation).

Each one a single, named deviation, asked for with `faults.on(X.name)` at the one place
where it misbehaves; the checks they prove name them in `proven_by`
(suites/address/test_general_*.py).
"""

from conformance.mocks.faults import fault

# --- media types and problem bodies ------------------------------------------------------
ACCEPT_CRS_HEADER_MISSING_ON_406 = fault("address.accept_crs_header_missing_on_406", "406 responses carry no acceptCrs header", shows="acceptCrs")
ACCEPT_EXACT_MATCH_ONLY = fault(
    "address.accept_exact_match_only",
    "only Accept exactly application/hal+json (or none) is served; lists, wildcards and q-values get 406", shows="406",
)
PROBLEM_INSTANCE_WITHOUT_QUERY = fault(
    "address.problem_instance_without_query",
    "the problem instance is the request path without its query", shows="instance",
)

PROBLEM_TYPE_NOT_URI = fault(
    "address.problem_type_not_uri",
    "the problem type and each invalid-params type are phrases with spaces (e.g. \"params required error\"), "
    "not URI references", shows="URI references",
)
PROBLEM_INSTANCE_NOT_URI = fault(
    "address.problem_instance_not_uri",
    "the problem instance is the request line (\"GET /path?query\"), not a URI reference", shows="URI reference",
)

# --- HAL links ------------------------------------------------------------------------------
SELF_LINK_MISSING = fault("address.self_link_missing", "200 bodies have no top-level _links.self", shows="links.self")
EMBEDDED_SELF_LINK_MISSING = fault(
    "address.embedded_self_link_missing",
    "collection items and expanded (embedded) resources have no _links.self", shows="embedded resources",
)

LINKS_TO_OTHER_ORIGIN = fault(
    "address.links_to_other_origin",
    "links (self, paging, related and embedded resources) name the gateway's internal host "
    "http://gateway.internal:8080 instead of the host the request was sent to", shows="http://gateway.internal:8080",
)
# The origin such links name (nothing answers there; the harness never sends to it).
OTHER_ORIGIN = "http://gateway.internal:8080"

# --- pagination -----------------------------------------------------------------------------
PAGE_SIZE_MAXIMUM_EXCLUSIVE = fault(
    "address.page_size_maximum_exclusive",
    "pageSize=100 without page is answered 400 (maximum taken as exclusive) on /adresseerbareobjecten, "
    "/adressen and /adressenuitgebreid (not on the deprecated /adressen/zoek)", shows="pageSize",
)
DEFAULT_PAGE_SIZE_WRONG = fault("address.default_page_size_wrong", "without pageSize a page holds 10 results (not 20)", shows="pageSize")

# --- shared parameters ------------------------------------------------------------------------
BOOLEAN_NOT_VALIDATED = fault(
    "address.boolean_not_validated",
    "a non-boolean huidig/inclusiefEindStatus/exacteMatch is read as false instead of 400", shows="400",
)
BESCHIKBAAROP_NOT_VALIDATED = fault(
    "address.beschikbaarop_not_validated",
    "a malformed beschikbaarOp is ignored (served as if not sent) instead of 400", shows="beschikbaarOp",
)
BESCHIKBAAROP_SHORT_FORM_MISREAD = fault(
    "address.beschikbaarop_short_form_misread",
    "omitted beschikbaarOp seconds/milliseconds become :59/.999, digits after the third are rounded", shows="beschikbaarOp",
)

# --- headers, CRS, limits, availability, keys ------------------------------------------------
RATE_LIMIT_REMAINING_NOT_DECREMENTED = fault(
    "address.rate_limit_remaining_not_decremented",
    "RateLimit-Remaining on 200 responses stays at the limit", shows="RateLimit-Remaining",
)
SUPPORTED_CRS_REJECTED = fault(
    "address.supported_crs_rejected",
    "Accept-Crs / Content-Crs epsg:28992 is refused like an unsupported CRS",
    shows="expected: 200", blocks=("-> 406 crsNotAcceptable", "-> 415 crsNotSupported"),  # every CRS check's control sends epsg:28992
)
RETRY_AFTER_IN_SECONDS = fault(
    "address.retry_after_in_seconds",
    "Retry-After on a 503 is delay-seconds (600), not an HTTP date", shows="Retry-After",
)
# The endpoint checks that fetch /adressenuitgebreid/{id} with the valid key cannot pass:
# they are declared here, not in catalogue_endpoints.py, since this fault is about keys.
RESTRICTED_POLICY_APPLIED_TO_ALL_KEYS = fault(
    "address.restricted_policy_applied_to_all_keys",
    "every key, the valid one too, gets the restricted key's 403 on /adressenuitgebreid/{id}",
    shows="403", blocks=("/adressenuitgebreid/", "-> 403 autorisation"),  # a control asking /adressenuitgebreid/{id}
)

# --- a refusal for an unrelated reason (only a control reveals it) ----------------------------
# The positive time-travel checks fail; the negative ones (malformed dates, huidig with
# time travel) must be blocked by their refused control, never passed
# (tests/test_address_blocked.py).
TIME_TRAVEL_FORBIDDEN = fault(
    "address.time_travel_forbidden",
    "every request with geldigOp or beschikbaarOp, valid or not, is answered 403 autorisation (as if the "
    "key had no rights for time travel): a malformed date is refused, but not because it is malformed",
    shows="beschikbaarOp", blocks=("-> 403 autorisation",),  # a control with a valid geldigOp or beschikbaarOp
)

# --- operations and versioning (seed parts 1 and 9) ------------------------------------------
WRITE_METHODS_SERVED = fault(
    "address.write_methods_served",
    "POST, PUT, PATCH and DELETE are answered like GET (200) instead of being refused", shows="200",
)
UNVERSIONED_BASE_PATH = fault(
    "address.unversioned_base_path",
    "the API is served at /lvbag/individuelebevragingen, without the major version segment v2", shows="lvbag/individuelebevragingen",
)
