"""Faults of the address mock: each one a single, named deviation from the seed.

The app asks `faults.on(X.name)` at the one place where X misbehaves, so a fault changes
only what its name says. `must_trip` is filled in by the lead once the checks exist.
"""

from __future__ import annotations

from conformance.mocks.faults import fault

# --- headers and media types -------------------------------------------------------
API_VERSION_MISSING = fault("address.api_version_missing", "no api-version header on any response", shows="api-version")
WARNING_HEADER_MISSING = fault("address.warning_header_missing", "200 responses carry no warning header", shows="warning")
CONTENT_CRS_MISSING = fault(
    "address.content_crs_missing",
    "200 responses of /adresseerbareobjecten carry no Content-Crs header", shows="Content-Crs",
)
HAL_SERVED_AS_JSON = fault("address.hal_served_as_json", "200 responses are served as application/json", shows="application/json")
PROBLEM_AS_PLAIN_JSON = fault("address.problem_as_plain_json", "error responses are served as application/json", shows="application/json")
ACCEPT_NOT_NEGOTIATED = fault(
    "address.accept_not_negotiated",
    "any Accept header is served (application/json gets 200 instead of 406)", shows="application/json",
)
ACCEPT_CRS_NOT_VALIDATED = fault(
    "address.accept_crs_not_validated",
    "an unsupported Accept-Crs is served instead of 406 crsNotAcceptable", shows="Accept-Crs",
)
CONTENT_CRS_NOT_VALIDATED = fault(
    "address.content_crs_not_validated",
    "an unsupported Content-Crs is served instead of 415 crsNotSupported", shows="Content-Crs",
)

# --- pagination ----------------------------------------------------------------------
PAGE_SIZE_MINIMUM_NOT_ENFORCED = fault("address.page_size_minimum_not_enforced", "pageSize below 10 (e.g. 9) is accepted", shows="pageSize")
PAGE_SIZE_MAXIMUM_NOT_ENFORCED = fault("address.page_size_maximum_not_enforced", "pageSize above 100 (e.g. 101) is accepted", shows="pageSize")
PAGE_MINIMUM_NOT_ENFORCED = fault("address.page_minimum_not_enforced", "page below 1 (e.g. 0) is accepted", shows="page=0")
WRONG_LAST_LINK = fault("address.wrong_last_link", "the `last` paging link points one page too far", shows="last")
PAGING_LINKS_MISSING = fault("address.paging_links_missing", "collections carry no first/previous/next/last links", shows=("last link", "paging links"))
PAGINATION_HEADERS_MISSING = fault("address.pagination_headers_missing", "no X-Pagination-Page/X-Pagination-Limit headers", shows="pagination")
PAGINATION_HEADERS_WRONG = fault("address.pagination_headers_wrong", "X-Pagination-Limit is always 20", shows="X-Pagination-Limit")
SELF_LINK_DROPS_QUERY = fault("address.self_link_drops_query", "the top-level self link leaves out the query string", shows="self link")

# --- parameter validation ----------------------------------------------------------------
POSTCODE_PATTERN_NOT_ENFORCED = fault("address.postcode_pattern_not_enforced", "any postcode value is accepted", shows="postcode")
HUISNUMMER_LIMITS_NOT_ENFORCED = fault("address.huisnummer_limits_not_enforced", "huisnummer outside 1..99999 is accepted", shows="outside 1..99999")
LENGTH_LIMITS_NOT_ENFORCED = fault(
    "address.length_limits_not_enforced",
    "over-long woonplaatsNaam/openbareRuimteNaam/q/zoek/zoekresultaatIdentificatie are accepted", shows="characters is longer than",
)
BBOX_AREA_NOT_ENFORCED = fault("address.bbox_area_not_enforced", "a bbox larger than 250000 m2 is accepted", shows="250000 m2")
BBOX_ARITY_NOT_ENFORCED = fault("address.bbox_arity_not_enforced", "a bbox with other than 4 numbers is accepted", shows="bbox")
OPPERVLAKTE_RANGE_NOT_ENFORCED = fault("address.oppervlakte_range_not_enforced", "oppervlakte[min] > oppervlakte[max] is accepted", shows="oppervlakte min")
OPPERVLAKTE_LIMITS_NOT_ENFORCED = fault("address.oppervlakte_limits_not_enforced", "oppervlakte outside 1..999999 is accepted", shows="outside 1..999999")
UNKNOWN_EXPAND_IGNORED = fault("address.unknown_expand_ignored", "unknown expand values are silently ignored", shows="expand")
EXPAND_IGNORED = fault("address.expand_ignored", "expand is accepted but nothing is embedded", shows="embedded")
SERVER_ERROR_ON_MALFORMED_DATE = fault("address.server_error_on_malformed_date", "a malformed geldigOp gives 500 instead of 400", shows="geldigOp")
BESCHIKBAAROP_SHORT_FORM_REJECTED = fault(
    "address.beschikbaarop_short_form_rejected",
    "beschikbaarOp without seconds (hh:mm) is rejected with 400", shows="beschikbaarOp",
)
PATH_ID_PATTERN_NOT_ENFORCED = fault(
    "address.path_id_pattern_not_enforced",
    "a malformed identifier in the path is looked up (404) instead of refused with 400 pattern", shows="path id",
)
REQUIRED_PARAMS_NOT_ENFORCED = fault(
    "address.required_params_not_enforced",
    "a query without any identifying parameter gets 200 (empty) instead of 400 paramsRequired", shows="200",
)
COMBINATION_NOT_ENFORCED = fault(
    "address.combination_not_enforced",
    "an incomplete combination (postcode without huisnummer) gets 200 instead of 400 paramsCombination", shows="huisnummer",
)
UNSUPPORTED_COMBINATION_ACCEPTED = fault(
    "address.unsupported_combination_accepted",
    "conflicting query kinds get 200 instead of 400 unsupportedCombination", shows="200",
)

# --- problem bodies --------------------------------------------------------------------
INVALID_PARAMS_WITHOUT_NAME = fault("address.invalid_params_without_name", "invalid-params items have no `name`", shows="invalid-params")
INVALID_PARAMS_MISSING = fault("address.invalid_params_missing", "400 responses have no invalid-params", shows="invalid-params")
PROBLEM_STATUS_MISMATCH = fault("address.problem_status_mismatch", "the problem body's status differs from the HTTP status", shows="status differs")
WRONG_ERROR_CODE = fault("address.wrong_error_code", "problem `code` values are misspelled (e.g. 404 `notfound`)", shows="problem code")
NOT_FOUND_AS_200 = fault("address.not_found_as_200", "an unknown id gets 200 with an empty body instead of 404", shows="unknown id")

# --- data semantics ----------------------------------------------------------------------
DELETED_OBJECTS_RETURNED_WITH_HUIDIG = fault(
    "address.deleted_objects_returned_with_huidig",
    "huidig=true still returns objects with an end status", shows="end status",
)
END_STATUS_ADDRESSES_RETURNED = fault(
    "address.end_status_addresses_returned",
    "addresses with an end status are returned without inclusiefEindStatus=true", shows=("end status", "end-status", "404"),
)
END_STATUS_FLAG_IGNORED = fault(
    "address.end_status_flag_ignored",
    "inclusiefEindStatus=true is ignored: addresses with an end status are never returned", shows="inclusiefEindStatus",
)
TIME_TRAVEL_IGNORED = fault("address.time_travel_ignored", "geldigOp and beschikbaarOp are validated but ignored", shows=("beschikbaarOp", "geldigOp"))
# The collection's own time travel and huidig: /{id} honours them, the searches do not.
COLLECTION_IGNORES_GELDIG_OP = fault(
    "address.collection_ignores_geldig_op",
    "the searches of /adresseerbareobjecten validate geldigOp but ignore it (/{id} honours it)", shows="geldigOp",
)
COLLECTION_IGNORES_BESCHIKBAAR_OP = fault(
    "address.collection_ignores_beschikbaar_op",
    "the searches of /adresseerbareobjecten validate beschikbaarOp but ignore it (/{id} honours it)", shows="beschikbaarOp",
)
COLLECTION_IGNORES_HUIDIG = fault(
    "address.collection_ignores_huidig",
    "huidig=true is ignored on the bbox and pandIdentificaties searches of /adresseerbareobjecten "
    "(honoured on nummeraanduidingIdentificatie and /{id})", shows="huidig",
)
LIFECYCLE_REMOVED_ALWAYS_INCLUDED = fault(
    "address.lifecycle_removed_always_included",
    "/lvc returns occurrences removed from the valid life cycle even with geheleLvc=false", shows="life cycle",
)
EXACTE_MATCH_IGNORED = fault("address.exacte_match_ignored", "exacteMatch=true returns letter/addition variants too", shows="exacteMatch")
QUERY_FILTER_IGNORED = fault(
    "address.query_filter_ignored",
    "a postcode+huisnummer query also returns addresses of other postcodes", shows="do not match",
)
BBOX_FILTER_IGNORED = fault("address.bbox_filter_ignored", "a bbox query also returns objects outside the box", shows="outside")
TYPE_FILTER_IGNORED = fault("address.type_filter_ignored", "the `type` filter of a bbox query is ignored", shows="type")
IDENTIFIERS_MALFORMED = fault(
    "address.identifiers_malformed",
    "16-digit identifiers in response data lose their last digit",
    shows=("not the one requested", "(pattern;"), blocks=("as the server renders it",),  # every sample, read back by its identifier
)
ZOEK_RESULTS_NOT_RESOLVABLE = fault(
    "address.zoek_results_not_resolvable",
    "a zoekresultaatIdentificatie from /adressen/zoek gives 404 on /adressen", shows="zoekresultaatIdentificatie",
)

# --- authentication, limits, availability -------------------------------------------------
NO_API_KEY_SERVED = fault("address.no_api_key_served", "requests without X-Api-Key are served instead of 401", shows="X-Api-Key")
INVALID_KEY_SERVED = fault(
    "address.invalid_key_served",
    "requests with an unknown X-Api-Key are served instead of 401", shows="unknown X-Api-Key",
)
RESTRICTED_KEY_NOT_ENFORCED = fault("address.restricted_key_not_enforced", "a key's forbidden paths are served (no 403)", shows="restricted")
RATE_LIMIT_NOT_ENFORCED = fault("address.rate_limit_not_enforced", "the per-window rate limit never answers 429", shows="limit")
DAY_QUOTA_NOT_ENFORCED = fault("address.day_quota_not_enforced", "the daily quota never answers 429", shows="429")
RATE_LIMIT_HEADERS_MISSING = fault("address.rate_limit_headers_missing", "200 responses carry no rate-limit headers", shows="limit")
RATE_LIMIT_HEADERS_MISSING_ON_429 = fault("address.rate_limit_headers_missing_on_429", "429 responses carry no rate-limit headers", shows="limit")
MAINTENANCE_IGNORED = fault("address.maintenance_ignored", "maintenance mode serves requests instead of 503", shows="503")

# --- endpoint semantics (checks in suites/address/test_endpoints_*.py) ------------------------
NUMMERAANDUIDING_SIDE_ADDRESS_IGNORED = fault(
    "address.nummeraanduiding_side_address_ignored",
    "/adresseerbareobjecten?nummeraanduidingIdentificatie finds only objects with that main address", shows="missing from the results",
)
PAND_QUERY_LEAKS = fault(
    "address.pand_query_leaks",
    "pandIdentificaties/pandIdentificatie match all but the last digit: other buildings' objects and addresses come along", shows="building",
)
OBJECT_WRAPPER_AMBIGUOUS = fault(
    "address.object_wrapper_ambiguous",
    "ligplaats items of bbox search results without a type filter carry a second (standplaats) wrapper", shows="standplaats",
)
GEBRUIKSDOELEN_FILTER_IGNORED = fault(
    "address.gebruiksdoelen_filter_ignored",
    "the gebruiksdoelen filter of a bbox query is ignored", shows="purposes",
)
OPPERVLAKTE_FILTER_IGNORED = fault(
    "address.oppervlakte_filter_ignored",
    "the oppervlakte[min]/[max] filter of a bbox query is validated but ignored", shows="oppervlakte filter",
)
LETTER_ADDITION_IGNORED = fault(
    "address.letter_addition_ignored",
    "huisletter and huisnummertoevoeging are ignored when exacteMatch is not true", shows="do not match",
)
OBJECT_QUERY_DROPS_SIDE_ADDRESSES = fault(
    "address.object_query_drops_side_addresses",
    "/adressen?adresseerbaarObjectIdentificatie returns only the object's main address", shows="missing from the results",
)
OPENBARE_RUIMTE_QUERY_IGNORED = fault(
    "address.openbare_ruimte_query_ignored",
    "/adressen?openbareRuimteIdentificatie ignores the value and returns addresses of every public space", shows="openbareRuimteIdentificatie",
)
Q_IGNORED = fault("address.q_ignored", "the q search ignores its terms and returns unrelated addresses", shows="missing from the results")
NAME_QUERY_IGNORES_STREET = fault(
    "address.name_query_ignores_street",
    "woonplaatsNaam+openbareRuimteNaam+huisnummer ignores openbareRuimteNaam", shows="openbareRuimteNaam",
)
LETTER_ADDITION_PATTERNS_NOT_ENFORCED = fault(
    "address.letter_addition_patterns_not_enforced",
    "a huisletter of 2 letters and a huisnummertoevoeging of 5 characters are accepted", shows="breaks its pattern",
)
POSTCODE_FORMS_REJECTED = fault(
    "address.postcode_forms_rejected",
    "a postcode with a space or in lower case is refused with 400 pattern", shows="postcode",
)
ZOEK_RESULTS_WITHOUT_IDENTIFICATIE = fault(
    "address.zoek_results_without_identificatie",
    "/adressen/zoek results carry no identificatie", shows="identificatie",
)
BRONHOUDERS_TWO_ACCEPTED = fault(
    "address.bronhouders_two_accepted",
    "/bronhouders with objectIdentificatie sent twice gets 200 (the first value is used)", shows="objectIdentificatie",
)
IDENTIFIER_PATTERNS_NOT_ENFORCED = fault(
    "address.identifier_patterns_not_enforced",
    "malformed nummeraanduidingIdentificatie/pandIdentificaties on /adresseerbareobjecten give 200 (empty)", shows=("Identificatie", "Schema-violating request accepted"),
)
EXTENDED_FIELDS_MISSING = fault("address.extended_fields_missing", "extended addresses carry no adresseerbaarObjectStatus", shows="adresseerbaarObjectStatus")
LVC_PAGING_LINKS = fault("address.lvc_paging_links", "/lvc responses carry next and last paging links", shows="paging links")
BRONHOUDER_PARAMETER_RENAMED = fault(
    "address.bronhouder_parameter_renamed",
    "/bronhouders knows `identificatie` instead of objectIdentificatie (objectIdentificatie alone gets 400)", shows="objectIdentificatie",
)
GECONSTATEERD_FILTER_IGNORED = fault(
    "address.geconstateerd_filter_ignored",
    "bbox with geconstateerd=true returns every object of the box, established or not", shows="established",
)
EXPAND_FIELD_REJECTED = fault(
    "address.expand_field_rejected",
    "expand written resource.field (seed part 4) is refused with 400 like an unknown value", shows="expand",
)
