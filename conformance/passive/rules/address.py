"""The address API's answers, each judged by the rule one exchange can show (the checks with
`observes="exchange"` where they are declared, in suites/address/), and the requests of the
client that sent them (declared here and in conformance/checks/client/)."""

from __future__ import annotations

from conformance.checks.address import general as g
from conformance.checks.address import hal, headers, problem
from conformance.checks.client import requests as client
from conformance.checks.registry import MUST, check
from conformance.passive.rules.registry import each, on_exchange, rule

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


@rule("address.media.success_is_hal_json", what="200 answers")
def success_is_hal_json(traffic, ctx):
    return each(answers(traffic, 200), on_exchange(headers.is_hal_json))


@rule("address.media.error_is_problem_json", what="400, 401, 403, 404 or 406 answers")
def error_is_problem_json(traffic, ctx):
    return each(answers(traffic, 400, 401, 403, 404, 406), on_exchange(problem.is_problem_media_type))


@rule("address.errors.problem_members", what="error answers")
def problem_members(traffic, ctx):
    return each(answers(traffic, *ERRORS), on_exchange(problem.has_problem_members))


@rule("address.errors.problem_uri_references", what="error answers")
def problem_uri_references(traffic, ctx):
    return each(answers(traffic, *ERRORS), on_exchange(problem.uri_references))


@rule("address.errors.code_matches_status", what="401, 403, 404 or 406 answers")
def code_matches_status(traffic, ctx):
    # 400's code depends on the condition (paramsRequired only without an identifying
    # parameter), which one answer does not show: judged for the statuses with one code.
    return each(answers(traffic, 401, 403, 404, 406), on_exchange(lambda ex: problem.has_code_of_status(ex, allow_public=True)))


@rule("address.headers.api_version_present", what="200, 400, 401, 403, 404 or 406 answers")
def api_version_present(traffic, ctx):
    return each(answers(traffic, 200, 400, 401, 403, 404, 406), on_exchange(headers.has_api_version))


@rule("address.headers.pagination", what="200 answers of a paginated operation")
def pagination(traffic, ctx):
    return each([a for a in answers(traffic, 200) if headers.is_paginated_operation(a.relative)],
                lambda a: headers.pagination_headers(a.exchange, a.relative))


@rule("address.headers.content_crs", what="200 answers of /adresseerbareobjecten")
def content_crs(traffic, ctx):
    return each([a for a in answers(traffic, 200) if a.relative.rstrip("/") == "/adresseerbareobjecten"],
                on_exchange(headers.has_content_crs))


@rule("address.headers.rate_limit_present", what="200 answers")
def rate_limit_present(traffic, ctx):
    return each(answers(traffic, 200), on_exchange(lambda ex: g.rate_limit_values(ex, ctx.profile.address.header)))


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


@rule("address.media.not_acceptable_names_accept_crs", what="406 answers to a request with Accept-Crs")
def not_acceptable_names_accept_crs(traffic, ctx):
    # The seed's 406 for an Accept-Crs it cannot serve; a 406 for a media type says nothing of CRS.
    return each([a for a in answers(traffic, 406) if a.exchange.request_headers.get("Accept-Crs")],
                on_exchange(g.has_accept_crs_header))


@rule("address.hal.self_link_present", what="200 answers")
def self_link_present(traffic, ctx):
    return each(answers(traffic, 200), on_exchange(g.has_self_link))


@rule("address.hal.self_link_reflects_request", what="200 answers")
def self_link_reflects_request(traffic, ctx):
    return each(answers(traffic, 200), lambda a: hal.self_link_reflects_request(a.exchange, below_base=a.relative))


@rule("address.hal.links_within_base", what="200 answers")
def links_within_base(traffic, ctx):
    def apply(a):
        # The base URL the answer was asked below: its URL without the part below the base.
        url = a.exchange.url.split("?", 1)[0].split("#", 1)[0]
        base = url[: len(url) - len(a.relative.rstrip("/"))] if a.relative.rstrip("/") else url
        hal.links_within_base(a.exchange, base)
    return each(answers(traffic, 200), apply)


@rule("address.headers.warning_present", what="200 answers")
def warning_present(traffic, ctx):
    return each(answers(traffic, 200), on_exchange(lambda ex: g.has_header(ex, "warning")))


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
