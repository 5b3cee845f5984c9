"""General rules of the address API: media types, errors, headers, authentication, limits.

Tests: suites/address/test_general_*.py (one test function per check). Pure check
functions: problem.py, headers.py, hal.py and general.py.

`proven_by` names the mock faults aimed at the rule (the check must fail under each);
`may_fail_under` the faults under which it fails as collateral, mostly because the
response it inspects never has the status it needs (a 200 where an error was due).
"""

from conformance.checks.registry import Severity, define

SUITE = "address"
MUST, SHOULD, OBSERVATION = Severity.MUST, Severity.SHOULD, Severity.OBSERVATION

# Faults that turn one of the error requests of general.ERROR_CASES into a 200 (or 500).
ERROR_STATUS_FAULTS = (
    "address.no_api_key_served",
    "address.invalid_key_served",
    "address.restricted_key_not_enforced",
    "address.not_found_as_200",
    "address.accept_not_negotiated",
    "address.required_params_not_enforced",
    "address.server_error_on_malformed_date",
)


def _define(check_id, title, requirements, severity, feature, proven_by=(), may_fail_under=(), downgrade_reason=""):
    define(
        f"address.{check_id}", title, requirements=requirements, severity=severity, suite=SUITE,
        downgrade_reason=downgrade_reason,
        feature=feature, proven_by=tuple(f"address.{f}" for f in proven_by),
        may_fail_under=tuple(f if f.startswith("address.") else f"address.{f}" for f in may_fail_under),
        observes="exchange" if f"address.{check_id}" in OBSERVED_EXCHANGE else "probe",
    )


# The rules that any one observed exchange can show broken (conformance traffic judges
# them on recorded traffic, suites/passive/): a response speaks for itself.
OBSERVED_EXCHANGE = frozenset({
    "address.media.success_is_hal_json", "address.media.error_is_problem_json", "address.errors.problem_members",
    "address.errors.problem_uri_references", "address.errors.code_matches_status", "address.headers.api_version_present", "address.headers.pagination",
    "address.headers.content_crs", "address.headers.rate_limit_present", "address.ratelimit.headers_on_429",
    "address.ratelimit.problem_body_429", "address.maintenance.problem_body_503",
    "address.maintenance.retry_after_http_date", "address.media.not_acceptable_names_accept_crs",
    "address.hal.self_link_present", "address.hal.self_link_reflects_request", "address.headers.warning_present",
    "address.hal.links_within_base",
})


# --- media types (seed parts 1 and 7) ---------------------------------------------------------
MEDIA = "part 1 / media types"
_define("media.success_is_hal_json", "Success responses of every endpoint are application/hal+json",
        ("ADDR-1.media-type",), MUST, MEDIA, proven_by=("hal_served_as_json",),
        may_fail_under=("restricted_policy_applied_to_all_keys",))
_define("media.error_is_problem_json", "Error responses (400, 401, 403, 404, 406) are application/problem+json",
        ("ADDR-1.media-type", "ADDR-7.errors"), MUST, MEDIA, proven_by=("problem_as_plain_json",),
        may_fail_under=ERROR_STATUS_FAULTS)
_define("media.unsupported_accept_not_acceptable",
        "Accept: application/json or application/xml is answered 406",
        ("ADDR-7.406", "BAGREF-4.12"), MUST, MEDIA, proven_by=("accept_not_negotiated",))
_define("media.not_acceptable_names_accept_crs", "A 406 carries the acceptCrs header (epsg:28992)",
        ("ADDR-4.acceptCrs",), MUST, MEDIA, proven_by=("accept_crs_header_missing_on_406",),
        may_fail_under=("accept_not_negotiated",))
_define("media.hal_json_accepted", "Accept: application/hal+json, alone or first choice in a list, is served (200)",
        ("ADDR-1.media-type", "BAGREF-4.12", "RFC9110-12.5.1"), MUST, MEDIA, proven_by=("accept_exact_match_only",))

# --- problem details (seed parts 2 and 7) ---------------------------------------------------------
ERRORS = "part 2, 7 / errors"
_define("errors.problem_members",
        "Error bodies carry status (= HTTP status), title and code; type, detail and instance are strings",
        ("ADDR-2.error", "RFC9457-3.1"), MUST, ERRORS, proven_by=("problem_status_mismatch",),
        may_fail_under=ERROR_STATUS_FAULTS)
_define("errors.problem_uri_references",
        "An error's type and instance, and each invalid-params type, are URI references (RFC 3986)",
        ("ADDR-2.uri-reference",), MUST, ERRORS, proven_by=("problem_type_not_uri", "problem_instance_not_uri"),
        may_fail_under=ERROR_STATUS_FAULTS)
_define("errors.code_matches_status",
        "Each error carries the seed's code: 400 paramsRequired (no identifying parameter), "
        "401 authentication, 403 autorisation, 404 notFound, 406 notAcceptable",
        ("ADDR-7.400", "ADDR-7.401", "ADDR-7.403", "ADDR-7.404", "ADDR-7.406", "ADDR-5.4"), MUST, ERRORS,
        proven_by=("wrong_error_code",), may_fail_under=ERROR_STATUS_FAULTS)
_define("errors.invalid_params_name_parameter",
        "A 400 for a faulty parameter lists it in invalid-params, each item with type, name, code and reason",
        ("ADDR-2.invalid-params", "ADDR-7.400"), MUST, ERRORS,
        proven_by=("invalid_params_without_name", "invalid_params_missing"),
        may_fail_under=("page_size_minimum_not_enforced", "boolean_not_validated"))
_define("errors.instance_names_request", "The problem instance names the failing request (path and query)",
        ("BAGREF-5.6", "ADDR-2.error"), SHOULD, ERRORS, proven_by=("problem_instance_without_query",),
        may_fail_under=ERROR_STATUS_FAULTS)
_define("errors.malformed_input_is_client_error",
        "Malformed input (bad dates, huge numbers, non-ASCII digits, empty or repeated values, bad encoding) "
        "is a 4xx problem+json, never a 5xx",
        ("ADDR-7.400", "ADDR-7.500", "ADDR-1.media-type"), MUST, ERRORS,
        proven_by=("server_error_on_malformed_date",),
        may_fail_under=("problem_as_plain_json", "huisnummer_limits_not_enforced", "page_minimum_not_enforced",
                        "postcode_pattern_not_enforced", "bbox_area_not_enforced", "boolean_not_validated",
                        "beschikbaarop_not_validated"))

# --- authentication (seed part 5) ------------------------------------------------------------------
AUTH = "part 5 / authentication"
_define("auth.missing_key_rejected", "Every endpoint answers a request without X-Api-Key with 401",
        ("ADDR-5.1", "ADDR-5.4", "ADDR-7.401"), MUST, AUTH, proven_by=("no_api_key_served",))
_define("auth.invalid_key_rejected", "Every endpoint answers a request with an unknown X-Api-Key with 401",
        ("ADDR-5.1", "ADDR-5.4", "ADDR-7.401"), MUST, AUTH, proven_by=("invalid_key_served",))
_define("auth.key_without_rights_forbidden", "A key without rights for the URL gets 403",
        ("ADDR-5.4", "ADDR-7.403"), MUST, AUTH, proven_by=("restricted_key_not_enforced",))
_define("auth.valid_key_served", "A valid key sent in X-Api-Key is served (200)",
        ("ADDR-5.1", "ADDR-5.2"), MUST, AUTH, proven_by=("restricted_policy_applied_to_all_keys",))

# --- response headers (seed parts 4 and 9) --------------------------------------------------------
HEADERS = "part 4, 9 / response headers"
_define("headers.api_version_present", "api-version is sent on 200, 400, 401, 403, 404 and 406 responses",
        ("ADDR-4.api-version", "ADDR-9.api-version"), MUST, HEADERS, proven_by=("api_version_missing",))
_define("headers.api_version_value", "Value of the api-version header (format not shown)",
        ("ADDR-9.api-version",), OBSERVATION, HEADERS)
_define("headers.warning_present", "200 responses carry a warning header",
        ("ADDR-4.warning",), MUST, HEADERS, proven_by=("warning_header_missing",),
        may_fail_under=("restricted_policy_applied_to_all_keys",))
_define("headers.warning_content", "Content of the warning header (meaning not shown)",
        ("ADDR-4.warning.content",), OBSERVATION, HEADERS)
_define("headers.content_crs", "200 responses of /adresseerbareobjecten carry Content-Crs: epsg:28992",
        ("ADDR-4.Content-Crs", "ADDR-1.crs"), MUST, HEADERS, proven_by=("content_crs_missing",))
_define("headers.pagination",
        "200 responses of the paginated operations carry X-Pagination-Page/-Limit matching the request",
        ("ADDR-4.X-Pagination",), MUST, HEADERS,
        proven_by=("pagination_headers_missing", "pagination_headers_wrong"),
        may_fail_under=("page_size_maximum_exclusive", "default_page_size_wrong"))
_define("headers.rate_limit_present", "200 responses carry the six rate-limit headers as integers",
        ("ADDR-4.rate-limit", "ADDR-8.quota"), MUST, HEADERS, proven_by=("rate_limit_headers_missing",),
        may_fail_under=("restricted_policy_applied_to_all_keys",))
_define("headers.rate_limit_values", "Values of DayLimit, RateLimit-Limit and RateLimit-Reset (not shown)",
        ("ADDR-8.quota", "ADDR-4.rate-limit", "ADDR-8.quota-values"), OBSERVATION, HEADERS)
_define("headers.rate_limit_remaining_decreases", "RateLimit-Remaining decreases from one request to the next",
        ("BAGREF-6",), SHOULD, HEADERS, proven_by=("rate_limit_remaining_not_decremented",),
        may_fail_under=("rate_limit_headers_missing",))

# --- rate limit and daily quota (seed parts 4, 7, 8) ---------------------------------------------------
LIMITS = "part 4, 7, 8 / rate limit and quota"
_define("ratelimit.limit_exceeded_429", "Exceeding the rate limit is answered 429",
        ("ADDR-7.429", "ADDR-4.rate-limit"), MUST, LIMITS, proven_by=("rate_limit_not_enforced",))
_define("ratelimit.problem_body_429",
        "A 429 is problem+json (ExtendedProblemDetails) with the problem members and code tooManyRequests",
        ("ADDR-7.429", "ADDR-2.error"), MUST, LIMITS,
        proven_by=("wrong_error_code", "problem_as_plain_json", "problem_status_mismatch"),
        may_fail_under=("rate_limit_not_enforced",))
_define("ratelimit.headers_on_429", "A 429 carries the six rate-limit headers as integers",
        ("ADDR-4.rate-limit",), MUST, LIMITS, proven_by=("rate_limit_headers_missing_on_429",),
        may_fail_under=("rate_limit_not_enforced",))
_define("ratelimit.api_version_on_429", "Whether a 429 carries api-version (the seed exempts 429)",
        ("ADDR-4.api-version",), OBSERVATION, LIMITS,
        downgrade_reason="the row 'api-version | every response except 429' exempts 429: whether a 429 carries "
                         "the header is left open")
_define("ratelimit.day_quota_exceeded", "Exhausting the daily quota is answered 429 with DayLimit-Remaining 0",
        ("ADDR-8.quota", "ADDR-7.429"), MUST, LIMITS, proven_by=("day_quota_not_enforced",),
        may_fail_under=("rate_limit_headers_missing_on_429",))

# --- maintenance (seed parts 4 and 7) -------------------------------------------------------------------
MAINTENANCE = "part 7 / maintenance"
_define("maintenance.not_available_503", "During maintenance requests are answered 503",
        ("ADDR-7.503",), MUST, MAINTENANCE, proven_by=("maintenance_ignored",))
_define("maintenance.problem_body_503", "A 503 is problem+json with the problem members and code notAvailable",
        ("ADDR-7.503", "ADDR-2.error"), MUST, MAINTENANCE,
        proven_by=("wrong_error_code", "problem_as_plain_json", "problem_status_mismatch"),
        may_fail_under=("maintenance_ignored",))
_define("maintenance.api_version_503", "A 503 carries api-version",
        ("ADDR-4.api-version", "ADDR-9.api-version"), MUST, MAINTENANCE, proven_by=("api_version_missing",),
        may_fail_under=("maintenance_ignored",))
_define("maintenance.retry_after_present", "A 503 carries Retry-After (the seed: may be sent)",
        ("ADDR-7.503", "ADDR-4.Retry-After"), SHOULD, MAINTENANCE, proven_by=("retry_after_missing",),
        may_fail_under=("maintenance_ignored",),
        downgrade_reason="the 503 row says 'Retry-After may be sent': optional in the seed; the public service sends it")
_define("maintenance.retry_after_http_date", "Retry-After on a 503, when sent, is an HTTP date (IMF-fixdate)",
        ("ADDR-4.Retry-After", "RFC9110-5.6.7", "RFC9110-10.2.3"), MUST, MAINTENANCE,
        proven_by=("retry_after_in_seconds",),
        may_fail_under=("maintenance_ignored",))

# --- pagination (seed parts 4 and 8; bag-api.md 4.1) -------------------------------------------------------
PAGING = "part 4, 8 / pagination"
_define("pagination.page_size_below_minimum_rejected", "pageSize 9 is answered 400",
        ("ADDR-4.pageSize", "ADDR-8.pageSize"), MUST, PAGING, proven_by=("page_size_minimum_not_enforced",))
_define("pagination.page_size_above_maximum_rejected", "pageSize 101 is answered 400",
        ("ADDR-4.pageSize", "ADDR-8.pageSize"), MUST, PAGING, proven_by=("page_size_maximum_not_enforced",))
_define("pagination.page_below_minimum_rejected", "page 0 is answered 400",
        ("ADDR-4.page", "ADDR-8.page"), MUST, PAGING, proven_by=("page_minimum_not_enforced",))
_define("pagination.limits_accepted", "pageSize 10 and 100 and page 1 are served (200)",
        ("ADDR-4.page", "ADDR-4.pageSize", "ADDR-8.pageSize"), MUST, PAGING, proven_by=("page_size_maximum_exclusive",))
_define("pagination.default_page_size", "Without pageSize a page holds 20 results and X-Pagination-Limit is 20",
        ("ADDR-4.pageSize", "ADDR-8.pageSize"), MUST, PAGING,
        proven_by=("default_page_size_wrong", "pagination_headers_missing"))
_define("pagination.links_apply", "Paging links appear only where they apply and point to the right pages",
        ("BAGREF-4.1",), SHOULD, PAGING, proven_by=("paging_links_missing", "wrong_last_link"),
        may_fail_under=("page_size_ignored", "page_ignored", "pages_overlap"))  # its walk by number goes astray
_define("pagination.last_page",
        "The last link is ceil(total/pageSize) and leads to a non-empty page without next",
        ("BAGREF-4.1",), SHOULD, PAGING, proven_by=("wrong_last_link", "paging_links_missing"),
        may_fail_under=("page_size_ignored",))  # its last page is empty then
_define("pagination.beyond_last_page", "Answer to a page beyond the last (200 empty or 400)",
        ("BAGREF-4.1", "ADDR-4.page"), OBSERVATION, PAGING)

# --- HAL (seed part 1; bag-api.md 4.2) ---------------------------------------------------------------------
HAL = "part 1 / HAL links"
_define("hal.self_link_present", "Every 200 resource carries _links.self", ("ADDR-1.hal",), SHOULD, HAL,
        proven_by=("self_link_missing",), may_fail_under=("restricted_policy_applied_to_all_keys",))
_define("hal.self_link_reflects_request", "_links.self reflects the request path and query",
        ("BAGREF-4.2",), SHOULD, HAL, proven_by=("self_link_drops_query",),
        may_fail_under=("self_link_missing", "restricted_policy_applied_to_all_keys"))
_define("hal.links_within_base", "Every link of an answer (self, paging, embedded resources) stays below the base URL",
        ("ADDR-1.base",), MUST, HAL, proven_by=("links_to_other_origin",))
_define("hal.embedded_self_links", "Collection items and expanded resources carry their own self link",
        ("BAGREF-4.2",), SHOULD, HAL, proven_by=("embedded_self_link_missing",),
        may_fail_under=("expand_ignored",))

# --- shared parameters (seed part 4) ------------------------------------------------------------------------
PARAMS = "part 4 / shared parameters"
_define("params.boolean_values_validated", "huidig, inclusiefEindStatus and exacteMatch other than a boolean: 400",
        ("ADDR-4.huidig", "ADDR-4.inclusiefEindStatus", "ADDR-4.exacteMatch"), MUST, PARAMS,
        proven_by=("boolean_not_validated",))
_define("params.geldig_op_malformed_rejected", "A malformed geldigOp is answered 400 naming geldigOp",
        ("ADDR-4.geldigOp", "ADDR-2.invalid-params"), MUST, PARAMS,
        proven_by=("server_error_on_malformed_date", "invalid_params_without_name", "invalid_params_missing"))
_define("params.beschikbaar_op_forms_accepted",
        "beschikbaarOp is served in full, without seconds, without milliseconds and with more than 3 digits",
        ("ADDR-4.beschikbaarOp",), MUST, PARAMS, proven_by=("beschikbaarop_short_form_rejected", "time_travel_forbidden"))
_define("params.beschikbaar_op_forms_equivalent", "Equivalent beschikbaarOp forms give the same result",
        ("ADDR-4.beschikbaarOp",), MUST, PARAMS,
        proven_by=("beschikbaarop_short_form_rejected", "beschikbaarop_short_form_misread"))
_define("params.beschikbaar_op_malformed_rejected", "A malformed beschikbaarOp is answered 400",
        ("ADDR-4.beschikbaarOp",), MUST, PARAMS, proven_by=("beschikbaarop_not_validated",))
_define("params.huidig_with_time_travel_rejected", "huidig=true with geldigOp or beschikbaarOp is answered 400",
        ("BAGREF-4.4",), SHOULD, PARAMS, proven_by=("unsupported_combination_accepted",))

# --- coordinate reference systems (seed parts 1 and 4) ------------------------------------------------------
CRS = "part 1, 4 / CRS headers"
_define("crs.supported_crs_accepted", "Accept-Crs and Content-Crs epsg:28992 are served (200)",
        ("ADDR-1.crs", "ADDR-4.Accept-Crs", "ADDR-4.Content-Crs"), MUST, CRS, proven_by=("supported_crs_rejected",))
_define("crs.unsupported_accept_crs_rejected", "An Accept-Crs other than epsg:28992 is answered with a 4xx",
        ("ADDR-1.crs", "ADDR-4.Accept-Crs"), MUST, CRS, proven_by=("accept_crs_not_validated",))
_define("crs.unsupported_content_crs_rejected", "A Content-Crs other than epsg:28992 is answered with a 4xx",
        ("ADDR-1.crs", "ADDR-4.Content-Crs"), MUST, CRS, proven_by=("content_crs_not_validated",))
_define("crs.unsupported_crs_response", "Status, code and acceptCrs header of an unsupported Accept-Crs/Content-Crs",
        ("ADDR-4.Accept-Crs", "ADDR-4.Content-Crs", "ADDR-4.acceptCrs", "ADDR-7.not-shown"), OBSERVATION, CRS)

_define("errors.precondition_failed_trigger",
        "What a conditional GET with a non-matching If-Match gets: the seed lists 412 but names no precondition",
        ("ADDR-7.412",), OBSERVATION, ERRORS,
        downgrade_reason="the row '412 | preconditionFailed | a precondition failed' names no precondition: "
                         "what triggers 412 is measured, not judged")

# --- operations and versioning (seed parts 1 and 9) ----------------------------------------------
OPERATIONS = "part 1, 9 / operations and versioning"
_define("operations.write_methods_refused",
        "POST, PUT, PATCH and DELETE on a collection and a resource are refused with a 4xx, and the resource is unchanged",
        ("ADDR-1.read-only",), MUST, OPERATIONS, proven_by=("write_methods_served",))
_define("versioning.base_path_major_version",
        "The base address the API answers at ends in the major version segment v2",
        ("ADDR-9.base-path",), MUST, OPERATIONS, proven_by=("unversioned_base_path",))
