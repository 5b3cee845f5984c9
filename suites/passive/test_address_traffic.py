"""The address API's answers in recorded traffic, each judged by the rule one exchange can show
(conformance/checks/address/catalogue_general.py, OBSERVED_EXCHANGE), and the requests of
the client that sent them (conformance/checks/client/catalogue.py).

A rule that no observed exchange applies to is `not_applicable` ("the traffic holds no
429"): what the traffic does not show, it does not judge.
"""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import hal, headers, problem
from conformance.checks.client import requests as client

# Seed part 1 and 7: the statuses whose body is problem+json with the seed's members.
ERRORS = (400, 401, 403, 404, 406, 412, 429, 500, 503)


def answers(traffic, *statuses: int, seed_only: bool = True):
    """The observed address answers with one of `statuses` (all when none is given), to a
    request of one of the seed's operations (a path the seed does not have is no rule's)."""
    return [a for a in traffic.address
            if (not statuses or a.exchange.status in statuses) and (a.operation is not None or not seed_only)]


@pytest.mark.check("address.media.success_is_hal_json")
def test_success_is_hal_json(observed_traffic, judge):
    judge(answers(observed_traffic, 200), headers.is_hal_json, what="200 answers")


@pytest.mark.check("address.media.error_is_problem_json")
def test_error_is_problem_json(observed_traffic, judge):
    judge(answers(observed_traffic, 400, 401, 403, 404, 406), problem.is_problem_media_type,
          what="400, 401, 403, 404 or 406 answers")


@pytest.mark.check("address.errors.problem_members")
def test_problem_members(observed_traffic, judge):
    judge(answers(observed_traffic, *ERRORS), problem.has_problem_members, what="error answers")


@pytest.mark.check("address.errors.code_matches_status")
def test_code_matches_status(observed_traffic, judge):
    # 400's code depends on the condition (paramsRequired only without an identifying
    # parameter), which one answer does not show: judged for the statuses with one code.
    judge(answers(observed_traffic, 401, 403, 404, 406), lambda ex: problem.has_code_of_status(ex, allow_public=True),
          what="401, 403, 404 or 406 answers")


@pytest.mark.check("address.headers.api_version_present")
def test_api_version_present(observed_traffic, judge):
    judge(answers(observed_traffic, 200, 400, 401, 403, 404, 406), headers.has_api_version,
          what="200, 400, 401, 403, 404 or 406 answers")


@pytest.mark.check("address.headers.pagination")
def test_pagination(observed_traffic, judge):
    paged = [a for a in answers(observed_traffic, 200) if headers.is_paginated_operation(a.relative)]

    def rule(ex):
        page, limit = headers.requested_paging(ex)
        headers.has_pagination_headers(ex, page=page, limit=limit)

    judge(paged, rule, what="200 answers of a paginated operation")


@pytest.mark.check("address.headers.content_crs")
def test_content_crs(observed_traffic, judge):
    judge([a for a in answers(observed_traffic, 200) if a.relative.rstrip("/") == "/adresseerbareobjecten"],
          headers.has_content_crs, what="200 answers of /adresseerbareobjecten")


@pytest.mark.check("address.headers.rate_limit_present")
def test_rate_limit_present(observed_traffic, judge, profile):
    judge(answers(observed_traffic, 200), lambda ex: g.rate_limit_values(ex, profile.address.header),
          what="200 answers")


@pytest.mark.check("address.ratelimit.headers_on_429")
def test_headers_on_429(observed_traffic, judge, profile):
    judge(answers(observed_traffic, 429), lambda ex: headers.has_rate_limit_headers(ex, profile.address.header),
          what="429 answers")


def problem_with_code(code: str):
    """problem+json with the members of seed part 2 and the code of the status (part 7)."""
    def rule(ex):
        problem.is_problem_media_type(ex)
        problem.has_problem_members(ex)
        problem.has_problem_code(ex, code)
    return rule


@pytest.mark.check("address.ratelimit.problem_body_429")
def test_problem_body_429(observed_traffic, judge):
    judge(answers(observed_traffic, 429), problem_with_code("tooManyRequests"), what="429 answers")


@pytest.mark.check("address.maintenance.problem_body_503")
def test_problem_body_503(observed_traffic, judge):
    judge(answers(observed_traffic, 503), problem_with_code("notAvailable"), what="503 answers")


@pytest.mark.check("address.maintenance.retry_after_http_date")
def test_retry_after_http_date(observed_traffic, judge):
    judge([a for a in answers(observed_traffic, 503) if g.header(a.exchange, "Retry-After") is not None],
          g.retry_after_is_http_date, what="503 answers with Retry-After")


@pytest.mark.check("address.media.not_acceptable_names_accept_crs")
def test_not_acceptable_names_accept_crs(observed_traffic, judge):
    # The seed's 406 for an Accept-Crs it cannot serve; a 406 for a media type says nothing of CRS.
    judge([a for a in answers(observed_traffic, 406) if a.exchange.request_headers.get("Accept-Crs")],
          g.has_accept_crs_header, what="406 answers to a request with Accept-Crs")


@pytest.mark.check("address.hal.self_link_present")
def test_self_link_present(observed_traffic, judge):
    judge(answers(observed_traffic, 200), g.has_self_link, what="200 answers")


@pytest.mark.check("address.hal.self_link_reflects_request")
def test_self_link_reflects_request(observed_traffic, judge):
    judge(answers(observed_traffic, 200), lambda a: hal.self_link_reflects_request(a.exchange, below_base=a.relative),
          what="200 answers", whole=True)


@pytest.mark.check("address.headers.warning_present")
def test_warning_present(observed_traffic, judge):
    judge(answers(observed_traffic, 200), lambda ex: g.has_header(ex, "warning"), what="200 answers")


# --------------------------------------------------------------------------- the client's requests
@pytest.mark.check("client.address.api_key_sent")
def test_client_sends_the_api_key(observed_traffic, judge, profile):
    judge(answers(observed_traffic, seed_only=False), lambda ex: client.api_key_sent(ex, profile.address.api_key_header),
          what="requests to the address API")


@pytest.mark.check("client.address.get_only")
def test_client_sends_only_get(observed_traffic, judge):
    judge(answers(observed_traffic, seed_only=False), client.get_only, what="requests to the address API")


@pytest.mark.check("client.address.parameters_within_limits")
def test_client_parameters_within_limits(observed_traffic, judge):
    judge(answers(observed_traffic, seed_only=False), client.parameters_within_limits,
          what="requests to the address API")
