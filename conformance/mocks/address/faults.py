"""Faults of the address mock: each one a single, named deviation from the seed.

The app asks `faults.on(X.name)` at the one place where X misbehaves, so a fault changes
only what its name says. `must_trip` is filled in by the lead once the checks exist.
"""

from __future__ import annotations

from conformance.mocks.faults import fault

# --- headers and media types -------------------------------------------------------
API_VERSION_MISSING = fault("address.api_version_missing", "no api-version header on any response")
WARNING_HEADER_MISSING = fault("address.warning_header_missing", "200 responses carry no warning header")
CONTENT_CRS_MISSING = fault(
    "address.content_crs_missing",
    "200 responses of /adresseerbareobjecten carry no Content-Crs header",
)
HAL_SERVED_AS_JSON = fault("address.hal_served_as_json", "200 responses are served as application/json")
PROBLEM_AS_PLAIN_JSON = fault("address.problem_as_plain_json", "error responses are served as application/json")
ACCEPT_NOT_NEGOTIATED = fault(
    "address.accept_not_negotiated",
    "any Accept header is served (application/json gets 200 instead of 406)",
)
ACCEPT_CRS_NOT_VALIDATED = fault(
    "address.accept_crs_not_validated",
    "an unsupported Accept-Crs is served instead of 406 crsNotAcceptable",
)
CONTENT_CRS_NOT_VALIDATED = fault(
    "address.content_crs_not_validated",
    "an unsupported Content-Crs is served instead of 415 crsNotSupported",
)

# --- pagination ----------------------------------------------------------------------
PAGE_SIZE_MINIMUM_NOT_ENFORCED = fault("address.page_size_minimum_not_enforced", "pageSize below 10 (e.g. 9) is accepted")
PAGE_SIZE_MAXIMUM_NOT_ENFORCED = fault("address.page_size_maximum_not_enforced", "pageSize above 100 (e.g. 101) is accepted")
PAGE_MINIMUM_NOT_ENFORCED = fault("address.page_minimum_not_enforced", "page below 1 (e.g. 0) is accepted")
WRONG_LAST_LINK = fault("address.wrong_last_link", "the `last` paging link points one page too far")
PAGING_LINKS_MISSING = fault("address.paging_links_missing", "collections carry no first/previous/next/last links")
PAGINATION_HEADERS_MISSING = fault("address.pagination_headers_missing", "no X-Pagination-Page/X-Pagination-Limit headers")
PAGINATION_HEADERS_WRONG = fault("address.pagination_headers_wrong", "X-Pagination-Limit is always 20")
SELF_LINK_DROPS_QUERY = fault("address.self_link_drops_query", "the top-level self link leaves out the query string")

# --- parameter validation ----------------------------------------------------------------
POSTCODE_PATTERN_NOT_ENFORCED = fault("address.postcode_pattern_not_enforced", "any postcode value is accepted")
HUISNUMMER_LIMITS_NOT_ENFORCED = fault("address.huisnummer_limits_not_enforced", "huisnummer outside 1..99999 is accepted")
LENGTH_LIMITS_NOT_ENFORCED = fault(
    "address.length_limits_not_enforced",
    "over-long woonplaatsNaam/openbareRuimteNaam/q/zoek/zoekresultaatIdentificatie are accepted",
)
BBOX_AREA_NOT_ENFORCED = fault("address.bbox_area_not_enforced", "a bbox larger than 250000 m2 is accepted")
BBOX_ARITY_NOT_ENFORCED = fault("address.bbox_arity_not_enforced", "a bbox with other than 4 numbers is accepted")
OPPERVLAKTE_RANGE_NOT_ENFORCED = fault("address.oppervlakte_range_not_enforced", "oppervlakte[min] > oppervlakte[max] is accepted")
OPPERVLAKTE_LIMITS_NOT_ENFORCED = fault("address.oppervlakte_limits_not_enforced", "oppervlakte outside 1..999999 is accepted")
UNKNOWN_EXPAND_IGNORED = fault("address.unknown_expand_ignored", "unknown expand values are silently ignored")
EXPAND_IGNORED = fault("address.expand_ignored", "expand is accepted but nothing is embedded")
SERVER_ERROR_ON_MALFORMED_DATE = fault("address.server_error_on_malformed_date", "a malformed geldigOp gives 500 instead of 400")
BESCHIKBAAROP_SHORT_FORM_REJECTED = fault(
    "address.beschikbaarop_short_form_rejected",
    "beschikbaarOp without seconds (hh:mm) is rejected with 400",
)
PATH_ID_PATTERN_NOT_ENFORCED = fault(
    "address.path_id_pattern_not_enforced",
    "a malformed identifier in the path is looked up (404) instead of refused with 400 pattern",
)
REQUIRED_PARAMS_NOT_ENFORCED = fault(
    "address.required_params_not_enforced",
    "a query without any identifying parameter gets 200 (empty) instead of 400 paramsRequired",
)
COMBINATION_NOT_ENFORCED = fault(
    "address.combination_not_enforced",
    "an incomplete combination (postcode without huisnummer) gets 200 instead of 400 paramsCombination",
)
UNSUPPORTED_COMBINATION_ACCEPTED = fault(
    "address.unsupported_combination_accepted",
    "conflicting query kinds get 200 instead of 400 unsupportedCombination",
)

# --- problem bodies --------------------------------------------------------------------
INVALID_PARAMS_WITHOUT_NAME = fault("address.invalid_params_without_name", "invalid-params items have no `name`")
INVALID_PARAMS_MISSING = fault("address.invalid_params_missing", "400 responses have no invalid-params")
PROBLEM_STATUS_MISMATCH = fault("address.problem_status_mismatch", "the problem body's status differs from the HTTP status")
WRONG_ERROR_CODE = fault("address.wrong_error_code", "problem `code` values are misspelled (e.g. 404 `notfound`)")
NOT_FOUND_AS_200 = fault("address.not_found_as_200", "an unknown id gets 200 with an empty body instead of 404")

# --- data semantics ----------------------------------------------------------------------
DELETED_OBJECTS_RETURNED_WITH_HUIDIG = fault(
    "address.deleted_objects_returned_with_huidig",
    "huidig=true still returns objects with an end status",
)
END_STATUS_ADDRESSES_RETURNED = fault(
    "address.end_status_addresses_returned",
    "addresses with an end status are returned without inclusiefEindStatus=true",
)
END_STATUS_FLAG_IGNORED = fault(
    "address.end_status_flag_ignored",
    "inclusiefEindStatus=true is ignored: addresses with an end status are never returned",
)
TIME_TRAVEL_IGNORED = fault("address.time_travel_ignored", "geldigOp and beschikbaarOp are validated but ignored")
# The collection's own time travel and huidig: /{id} honours them, the searches do not.
COLLECTION_IGNORES_GELDIG_OP = fault(
    "address.collection_ignores_geldig_op",
    "the searches of /adresseerbareobjecten validate geldigOp but ignore it (/{id} honours it)",
)
COLLECTION_IGNORES_BESCHIKBAAR_OP = fault(
    "address.collection_ignores_beschikbaar_op",
    "the searches of /adresseerbareobjecten validate beschikbaarOp but ignore it (/{id} honours it)",
)
COLLECTION_IGNORES_HUIDIG = fault(
    "address.collection_ignores_huidig",
    "huidig=true is ignored on the bbox and pandIdentificaties searches of /adresseerbareobjecten "
    "(honoured on nummeraanduidingIdentificatie and /{id})",
)
LIFECYCLE_REMOVED_ALWAYS_INCLUDED = fault(
    "address.lifecycle_removed_always_included",
    "/lvc returns occurrences removed from the valid life cycle even with geheleLvc=false",
)
EXACTE_MATCH_IGNORED = fault("address.exacte_match_ignored", "exacteMatch=true returns letter/addition variants too")
QUERY_FILTER_IGNORED = fault(
    "address.query_filter_ignored",
    "a postcode+huisnummer query also returns addresses of other postcodes",
)
BBOX_FILTER_IGNORED = fault("address.bbox_filter_ignored", "a bbox query also returns objects outside the box")
TYPE_FILTER_IGNORED = fault("address.type_filter_ignored", "the `type` filter of a bbox query is ignored")
IDENTIFIERS_MALFORMED = fault(
    "address.identifiers_malformed",
    "16-digit identifiers in response data lose their last digit",
    blocks=("as the server renders it",),  # every sample, read back by its identifier
)
ZOEK_RESULTS_NOT_RESOLVABLE = fault(
    "address.zoek_results_not_resolvable",
    "a zoekresultaatIdentificatie from /adressen/zoek gives 404 on /adressen",
)

# --- authentication, limits, availability -------------------------------------------------
NO_API_KEY_SERVED = fault("address.no_api_key_served", "requests without X-Api-Key are served instead of 401")
INVALID_KEY_SERVED = fault(
    "address.invalid_key_served",
    "requests with an unknown X-Api-Key are served instead of 401",
)
RESTRICTED_KEY_NOT_ENFORCED = fault("address.restricted_key_not_enforced", "a key's forbidden paths are served (no 403)")
RATE_LIMIT_NOT_ENFORCED = fault("address.rate_limit_not_enforced", "the per-window rate limit never answers 429")
DAY_QUOTA_NOT_ENFORCED = fault("address.day_quota_not_enforced", "the daily quota never answers 429")
RATE_LIMIT_HEADERS_MISSING = fault("address.rate_limit_headers_missing", "200 responses carry no rate-limit headers")
RATE_LIMIT_HEADERS_MISSING_ON_429 = fault("address.rate_limit_headers_missing_on_429", "429 responses carry no rate-limit headers")
MAINTENANCE_IGNORED = fault("address.maintenance_ignored", "maintenance mode serves requests instead of 503")

# --- endpoint semantics (checks in suites/address/test_endpoints_*.py) ------------------------
NUMMERAANDUIDING_SIDE_ADDRESS_IGNORED = fault(
    "address.nummeraanduiding_side_address_ignored",
    "/adresseerbareobjecten?nummeraanduidingIdentificatie finds only objects with that main address",
)
PAND_QUERY_LEAKS = fault(
    "address.pand_query_leaks",
    "pandIdentificaties/pandIdentificatie match all but the last digit: other buildings' objects and addresses come along",
)
OBJECT_WRAPPER_AMBIGUOUS = fault(
    "address.object_wrapper_ambiguous",
    "ligplaats items of bbox search results without a type filter carry a second (standplaats) wrapper",
)
GEBRUIKSDOELEN_FILTER_IGNORED = fault(
    "address.gebruiksdoelen_filter_ignored",
    "the gebruiksdoelen filter of a bbox query is ignored",
)
OPPERVLAKTE_FILTER_IGNORED = fault(
    "address.oppervlakte_filter_ignored",
    "the oppervlakte[min]/[max] filter of a bbox query is validated but ignored",
)
LETTER_ADDITION_IGNORED = fault(
    "address.letter_addition_ignored",
    "huisletter and huisnummertoevoeging are ignored when exacteMatch is not true",
)
OBJECT_QUERY_DROPS_SIDE_ADDRESSES = fault(
    "address.object_query_drops_side_addresses",
    "/adressen?adresseerbaarObjectIdentificatie returns only the object's main address",
)
OPENBARE_RUIMTE_QUERY_IGNORED = fault(
    "address.openbare_ruimte_query_ignored",
    "/adressen?openbareRuimteIdentificatie ignores the value and returns addresses of every public space",
)
Q_IGNORED = fault("address.q_ignored", "the q search ignores its terms and returns unrelated addresses")
NAME_QUERY_IGNORES_STREET = fault(
    "address.name_query_ignores_street",
    "woonplaatsNaam+openbareRuimteNaam+huisnummer ignores openbareRuimteNaam",
)
LETTER_ADDITION_PATTERNS_NOT_ENFORCED = fault(
    "address.letter_addition_patterns_not_enforced",
    "a huisletter of 2 letters and a huisnummertoevoeging of 5 characters are accepted",
)
POSTCODE_FORMS_REJECTED = fault(
    "address.postcode_forms_rejected",
    "a postcode with a space or in lower case is refused with 400 pattern",
)
ZOEK_RESULTS_WITHOUT_IDENTIFICATIE = fault(
    "address.zoek_results_without_identificatie",
    "/adressen/zoek results carry no identificatie",
)
BRONHOUDERS_TWO_ACCEPTED = fault(
    "address.bronhouders_two_accepted",
    "/bronhouders with objectIdentificatie sent twice gets 200 (the first value is used)",
)
IDENTIFIER_PATTERNS_NOT_ENFORCED = fault(
    "address.identifier_patterns_not_enforced",
    "malformed nummeraanduidingIdentificatie/pandIdentificaties on /adresseerbareobjecten give 200 (empty)",
)
EXTENDED_FIELDS_MISSING = fault("address.extended_fields_missing", "extended addresses carry no adresseerbaarObjectStatus")
LVC_PAGING_LINKS = fault("address.lvc_paging_links", "/lvc responses carry next and last paging links")
BRONHOUDER_PARAMETER_RENAMED = fault(
    "address.bronhouder_parameter_renamed",
    "/bronhouders knows `identificatie` instead of objectIdentificatie (objectIdentificatie alone gets 400)",
)
GECONSTATEERD_FILTER_IGNORED = fault(
    "address.geconstateerd_filter_ignored",
    "bbox with geconstateerd=true returns every object of the box, established or not",
)
EXPAND_FIELD_REJECTED = fault(
    "address.expand_field_rejected",
    "expand written resource.field (seed part 4) is refused with 400 like an unknown value",
)
