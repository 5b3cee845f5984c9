"""The address API's answers, each judged by the rule one exchange can show, and the requests
of the client that sent them (declared here and in conformance/checks/client/).

A rule one exchange can show broken is declared here once (`exchange_rule`): its check, the
answers it applies to, the scenarios that elicit one (conformance/checks/address/elicit.py,
or a request of its own); suites/address/test_exchange_rules.py sends those, and every
exchange of a run and of a capture is judged by it too. The rules below written with `rule`
judge checks declared on a test of their own (suites/address/), which needs a flow (a flood,
a maintenance window) or judges more than one answer can show."""

from __future__ import annotations

from conformance.checks.address import elicit, hal, headers, problem
from conformance.checks.address import general as g
from conformance.checks.address.control import Req, refused_vs_control
from conformance.checks.client import requests as client
from conformance.checks.registry import MUST, SHOULD, check
from conformance.openapi.operations import operation_of_request
from conformance.passive.rules.registry import each, exchange_rule, on_exchange, rule

# Seed part 1 and 7: the statuses whose body is problem+json with the seed's members.
ERRORS = (400, 401, 403, 404, 406, 412, 429, 500, 503)


def answers(traffic, *statuses: int, seed_only: bool = True):
    """The observed address answers with one of `statuses` (all when none is given), to a
    request of one of the seed's operations (a path the seed does not have is no rule's)."""
    return [a for a in traffic.address
            if (not statuses or a.exchange.status in statuses) and (a.operation is not None or not seed_only)]


def problem_with_code(code: str):
    """problem+json with the members of seed part 2 and the code of the status (part 7)."""
    def apply(a):
        problem.is_problem_media_type(a.exchange)
        problem.has_problem_members(a.exchange)
        problem.has_problem_code(a.exchange, code)
    return apply


# The statuses seed part 7 gives one code each (429's and 503's are judged with their bodies:
# address.ratelimit.problem_body_429, address.maintenance.problem_body_503; 412's row names no
# precondition, so what a 412 says is measured, address.errors.precondition_failed_trigger).
ONE_CODE = (401, 403, 404, 406, 500)


def _has_seed_code(a, ctx) -> bool:
    """The answers whose code seed part 7 fixes: those of ONE_CODE, and a 400 to a request
    that shows its condition (no identifying parameter: paramsRequired). A 400's code depends
    on the condition, which only such a request shows."""
    if a.operation is None:
        return False
    status = a.exchange.status
    return status in ONE_CODE or (
        status == 400 and client.lacks_identifying_parameter(a.operation, a.exchange.query))


def _asks_a_crs(ex) -> bool:
    """The request names a CRS (Accept-Crs): a 406 may be about it, rightly or not (whether the
    CRS is supported is the crs checks' question, not the code's)."""
    return ex.request_headers.get("Accept-Crs") is not None


@exchange_rule("address.errors.code_matches_status", MUST, "Each error carries the seed's code: 400 paramsRequired (no identifying parameter), 401 authentication, 403 autorisation, 404 notFound, 406 notAcceptable, 500 serverError",
               requirements=["ADDR-7.400", "ADDR-7.401", "ADDR-7.403", "ADDR-7.404", "ADDR-7.406", "ADDR-7.500",
                             "ADDR-5.4"],
               proven_by=["address.wrong_error_code"],
               may_fail_under=g.ERROR_CASE_COLLATERAL,
               sends=["valid", "refused"],
               feature="part 2, 7 / errors",
               what="400 answers to a request without an identifying parameter, and 401, 403, 404, 406 or 500 answers",
               applies=_has_seed_code,
               elicit={name: elicit.ERRORS[name] for name, case in g.ERROR_CASES.items() if case.code})
def code_matches_status(a, ctx):
    ex = a.exchange
    if ex.status == 400:
        problem.has_problem_code(ex, "paramsRequired")
    elif ex.status == 406 and _asks_a_crs(ex):
        # Seed part 7's notAcceptable is for "an unsupported format requested with Accept";
        # part 4's acceptCrs 406 has no code of its own: the register's is crsNotAcceptable.
        problem.has_problem_code(ex, {"notAcceptable", *problem.PUBLIC_ALTERNATIVES[406]})
    else:
        problem.has_code_of_status(ex)


@rule("address.ratelimit.headers_on_429", what="429 answers")
def headers_on_429(traffic, ctx):
    return each(answers(traffic, 429), on_exchange(lambda ex: headers.has_rate_limit_headers(ex, ctx.profile.address.header)))


@rule("address.ratelimit.problem_body_429", what="429 answers")
def problem_body_429(traffic, ctx):
    return each(answers(traffic, 429), problem_with_code("tooManyRequests"))


@rule("address.maintenance.problem_body_503", what="503 answers")
def problem_body_503(traffic, ctx):
    return each(answers(traffic, 503), problem_with_code("notAvailable"))


@rule("address.maintenance.retry_after_http_date", what="503 answers with Retry-After")
def retry_after_http_date(traffic, ctx):
    return each([a for a in answers(traffic, 503) if g.header(a.exchange, "Retry-After") is not None],
                on_exchange(g.retry_after_is_http_date))


def _answers_with(*statuses: int):
    """`applies` of an exchange rule: an answer with one of `statuses` to a request of one of
    the seed's operations (a path the seed does not have is no rule's)."""
    return lambda a, ctx: a.exchange.status in statuses and a.operation is not None


@exchange_rule("address.media.success_is_hal_json", MUST, "Success responses of every endpoint are application/hal+json",
               requirements=["ADDR-1.media-type"],
               proven_by=["address.hal_served_as_json"],
               may_fail_under=["address.restricted_policy_applied_to_all_keys"],
               feature="part 1 / media types",
               what="200 answers", applies=_answers_with(200), elicit=elicit.SUCCESS)
def success_is_hal_json(a, ctx):
    headers.is_hal_json(a.exchange)


@exchange_rule("address.media.error_is_problem_json", MUST, "Error responses (400, 401, 403, 404, 406) are application/problem+json",
               requirements=["ADDR-1.media-type", "ADDR-7.errors"],
               proven_by=["address.problem_as_plain_json"],
               may_fail_under=g.ERROR_CASE_COLLATERAL,
               sends=["valid", "refused"],
               feature="part 1 / media types",
               what="400, 401, 403, 404 or 406 answers", applies=_answers_with(400, 401, 403, 404, 406),
               elicit=elicit.ERRORS)
def error_is_problem_json(a, ctx):
    problem.is_problem_media_type(a.exchange)


@exchange_rule("address.errors.problem_members", MUST, "Error bodies carry status (= HTTP status), title and code; type, detail and instance are strings; each invalid-params item of a 400 has type, name, code and reason",
               requirements=["ADDR-2.error", "ADDR-2.invalid-params", "RFC9457-3.1"],
               proven_by=["address.problem_status_mismatch", "address.invalid_params_without_name"],
               may_fail_under=g.ERROR_CASE_COLLATERAL,
               sends=["valid", "refused"],
               feature="part 2, 7 / errors",
               what="error answers", applies=_answers_with(*ERRORS), elicit=elicit.ERRORS)
def problem_members(a, ctx):
    problem.has_problem_members(a.exchange)
    # Seed part 2: "invalid-params | array of objects, on 400 | each has type (URI reference),
    # name (string: the parameter), code (string), reason (string)": wherever a 400 has one
    # (whether it must is params_required_invalid_params' and invalid_params_name_parameter's).
    if a.exchange.status == 400 and "invalid-params" in problem.problem_body(a.exchange):
        problem.invalid_params(a.exchange)


# A 400 (with invalid-params), a 404 and a 400 to a request holding a percent-escape, of the
# run's own: every other error answer of a run is judged by the same rule at its end.
@exchange_rule("address.errors.problem_uri_references", MUST, "An error's type and instance, and each invalid-params type, are URI references (RFC 3986)",
               requirements=["ADDR-2.uri-reference"],
               proven_by=["address.problem_type_not_uri", "address.problem_instance_not_uri",
                          "address.problem_instance_decoded"],
               may_fail_under=g.ERROR_CASE_COLLATERAL,
               sends=["valid", "refused"],
               feature="part 2, 7 / errors",
               what="error answers", applies=_answers_with(*ERRORS),
               elicit={**elicit.only(elicit.ERRORS, "400-malformed-value", "404-unknown-id"), **elicit.ESCAPED_ERROR})
def problem_uri_references(a, ctx):
    problem.uri_references(a.exchange)


@exchange_rule("address.headers.api_version_present", MUST, "api-version is sent on every response but a 429",
               requirements=["ADDR-4.api-version", "ADDR-9.api-version"],
               proven_by=["address.api_version_missing"],
               sends=["valid", "refused"],
               feature="part 4, 9 / response headers",
               # Seed part 4's response headers: "api-version | every response except 429".
               what="answers other than 429",
               applies=lambda a, ctx: a.exchange.status != 429 and operation_of_request(a.relative) is not None,
               elicit={"200": elicit.SUCCESS["adressen-id"], **elicit.ERROR_TRIGGERS})
def api_version_present(a, ctx):
    headers.has_api_version(a.exchange)


@exchange_rule("address.headers.pagination", MUST, "200 responses of the paginated operations carry X-Pagination-Page/-Limit matching the request",
               requirements=["ADDR-4.X-Pagination"],
               proven_by=["address.pagination_headers_missing", "address.pagination_headers_wrong"],
               may_fail_under=["address.page_size_maximum_exclusive", "address.default_page_size_wrong"],
               feature="part 4, 9 / response headers",
               what="200 answers of a paginated operation",
               applies=lambda a, ctx: a.exchange.status == 200 and a.operation is not None
               and headers.is_paginated_operation(a.relative),
               elicit=elicit.PAGES)
def pagination(a, ctx):
    headers.pagination_headers(a.exchange, a.relative)


@exchange_rule("address.headers.content_crs", MUST, "200 responses of /adresseerbareobjecten carry Content-Crs: epsg:28992",
               requirements=["ADDR-4.Content-Crs", "ADDR-1.crs"],
               proven_by=["address.content_crs_missing"],
               feature="part 4, 9 / response headers",
               what="200 answers of /adresseerbareobjecten",
               applies=lambda a, ctx: a.exchange.status == 200 and a.relative.rstrip("/") == "/adresseerbareobjecten",
               elicit=elicit.CONTENT_CRS)
def content_crs(a, ctx):
    headers.has_content_crs(a.exchange)


@exchange_rule("address.headers.rate_limit_present", MUST, "200 responses carry the six rate-limit headers as integers",
               requirements=["ADDR-4.rate-limit", "ADDR-8.quota"],
               proven_by=["address.rate_limit_headers_missing"],
               may_fail_under=["address.restricted_policy_applied_to_all_keys"],
               feature="part 4, 9 / response headers",
               what="200 answers", applies=_answers_with(200),
               elicit=elicit.only(elicit.SUCCESS, "adressen-id", "adresseerbareobjecten", "adressenuitgebreid-id"))
def rate_limit_present(a, ctx):
    g.rate_limit_values(a.exchange, ctx.profile.address.header)


def _refused_media_type(api):
    """A 406 for a media type the API does not serve, its control served with hal+json."""
    control = Req.of(f"/adressen/{api.sample('nummeraanduiding')}").with_header("Accept", "application/hal+json")
    return refused_vs_control(api, control, control.with_header("Accept", "application/xml"),
                              rule="Accept: application/xml", statuses=(406,))


@exchange_rule("address.media.not_acceptable_names_accept_crs", MUST, "A 406 carries the acceptCrs header (epsg:28992)",
               requirements=["ADDR-4.acceptCrs"],
               proven_by=["address.accept_crs_header_missing_on_406"],
               may_fail_under=["address.accept_not_negotiated"],
               sends=["refused"],
               feature="part 1 / media types",
               # Seed part 4's response headers: "acceptCrs | 406", every 406 (the test of its own
               # judged a 406 for a media type, the rule of traffic only one for an Accept-Crs:
               # written twice, they had drifted apart).
               what="406 answers", applies=_answers_with(406),
               elicit={"accept-xml": _refused_media_type})
def not_acceptable_names_accept_crs(a, ctx):
    g.has_accept_crs_header(a.exchange)


@exchange_rule("address.hal.self_link_present", SHOULD, "Every 200 resource carries _links.self",
               requirements=["ADDR-1.hal"],
               proven_by=["address.self_link_missing"],
               may_fail_under=["address.restricted_policy_applied_to_all_keys", "address.not_found_as_200"],
               feature="part 1 / HAL links",
               what="200 answers", applies=_answers_with(200), elicit=elicit.SUCCESS)
def self_link_present(a, ctx):
    g.has_self_link(a.exchange)


@exchange_rule("address.hal.self_link_reflects_request", SHOULD, "_links.self reflects the request path and query",
               requirements=["BAGREF-4.2"],
               proven_by=["address.self_link_drops_query"],
               may_fail_under=["address.self_link_missing", "address.restricted_policy_applied_to_all_keys",
                               "address.not_found_as_200"],
               feature="part 1 / HAL links",
               what="200 answers", applies=_answers_with(200), elicit=elicit.SUCCESS)
def self_link_reflects_request(a, ctx):
    hal.self_link_reflects_request(a.exchange, below_base=a.relative)


@exchange_rule("address.hal.links_within_base", MUST, "Every link of an answer (self, paging, embedded resources) stays below the base URL",
               requirements=["ADDR-1.base"],
               proven_by=["address.links_to_other_origin"],
               feature="part 1 / HAL links",
               what="200 answers", applies=_answers_with(200), elicit=elicit.LINKING)
def links_within_base(a, ctx):
    # The base URL the answer was asked below: its URL without the part below the base.
    url = a.exchange.url.split("?", 1)[0].split("#", 1)[0]
    base = url[: len(url) - len(a.relative.rstrip("/"))] if a.relative.rstrip("/") else url
    hal.links_within_base(a.exchange, base)


@exchange_rule("address.headers.warning_present", MUST, "200 responses carry a warning header",
               requirements=["ADDR-4.warning"],
               proven_by=["address.warning_header_missing"],
               may_fail_under=["address.restricted_policy_applied_to_all_keys"],
               feature="part 4, 9 / response headers",
               what="200 answers", applies=_answers_with(200), elicit=elicit.SUCCESS)
def warning_present(a, ctx):
    g.has_header(a.exchange, "warning")


# --------------------------------------------------------------------------- the client's requests
@rule(check("client.address.api_key_sent", MUST, "Every request to the address API carries the API key in X-Api-Key (the profile's header name)",
           requirements=["ADDR-5.1", "ADDR-5.2"],
           sends=["nothing"],
           observes="exchange",
           feature="address API client (seed 000)"),
      what="requests to the address API")
def api_key_sent(traffic, ctx):
    return each(answers(traffic, seed_only=False), on_exchange(lambda ex: client.api_key_sent(ex, ctx.profile.address.api_key_header)))


@rule(check("client.address.get_only", MUST, "The client sends only GET to the address API (every operation is a read-only GET)",
           requirements=["ADDR-1.read-only"],
           sends=["nothing"],
           observes="exchange",
           feature="address API client (seed 000)"),
      what="requests to the address API")
def get_only(traffic, ctx):
    return each(answers(traffic, seed_only=False), on_exchange(client.get_only))


@rule(check("client.address.parameters_within_limits", MUST, "Query parameters keep the seed's rules: page at least 1, pageSize 10 to 100, huisnummer 1 to 99999, the postcode, huisletter and huisnummertoevoeging patterns, the lengths of q, zoek and the names, a bbox of four numbers and at most 250000 m2; booleans true or false, geldigOp a date, beschikbaarOp a date-time, type one of the three kinds, non-empty lists, oppervlakte as [min] and [max] with min not above max",
           requirements=["ADDR-4.page", "ADDR-4.pageSize", "ADDR-8.pageSize", "ADDR-8.page", "ADDR-8.huisnummer", "ADDR-4.adressen.postcode", "ADDR-4.adressen.huisletter", "ADDR-4.adressen.huisnummertoevoeging", "ADDR-8.length", "ADDR-8.bbox",
                         "ADDR-4.geldigOp", "ADDR-4.beschikbaarOp", "ADDR-4.adresseerbareobjecten.type",
                         "ADDR-4.adresseerbareobjecten.oppervlakte", "ADDR-4.adresseerbareobjecten.pandIdentificaties.items",
                         "ADDR-4.adresseerbareobjecten.gebruiksdoelen"],
           sends=["nothing"],
           observes="exchange",
           feature="address API client (seed 000)"),
      what="requests to the address API")
def parameters_within_limits(traffic, ctx):
    return each(answers(traffic, seed_only=False), on_exchange(client.parameters_within_limits))
