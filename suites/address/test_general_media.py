"""Media types and content negotiation (seed parts 1 and 7, part 4 "Response headers")."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import headers, problem
from conformance.checks.address.control import Req, refused_vs_control
from conformance.checks.registry import MUST, check


def _send(address_api, case: str):
    path, params = g.SUCCESS_CASES[case](address_api)
    return address_api.get(path, params=params)


def _error_cases():
    return [pytest.param(name, id=name) for name in g.ERROR_CASES]


@check("address.media.success_is_hal_json", MUST, "Success responses of every endpoint are application/hal+json",
       requirements=["ADDR-1.media-type"],
       proven_by=["address.hal_served_as_json"],
       may_fail_under=["address.restricted_policy_applied_to_all_keys"],
       observes="exchange",
       feature="part 1 / media types")
@pytest.mark.parametrize("case", list(g.SUCCESS_CASES))
def test_success_is_hal_json(address_api, case):
    ex = _send(address_api, case)
    g.expect_status(ex, 200)
    headers.is_hal_json(ex)


@check("address.media.error_is_problem_json", MUST, "Error responses (400, 401, 403, 404, 406) are application/problem+json",
       requirements=["ADDR-1.media-type", "ADDR-7.errors"],
       proven_by=["address.problem_as_plain_json"],
       may_fail_under=["address.no_api_key_served", "address.invalid_key_served", "address.restricted_key_not_enforced", "address.not_found_as_200", "address.accept_not_negotiated", "address.required_params_not_enforced", "address.server_error_on_malformed_date"],
       sends=["valid", "refused"],
       observes="exchange",
       feature="part 1 / media types")
@pytest.mark.parametrize("case", _error_cases())
def test_error_is_problem_json(address_api, case):
    problem.is_problem_media_type(g.ERROR_CASES[case].error_response(address_api))


@check("address.media.unsupported_accept_not_acceptable", MUST, "Accept: application/json or application/xml is answered 406",
       requirements=["ADDR-7.406", "BAGREF-4.12"],
       proven_by=["address.accept_not_negotiated"],
       sends=["refused"],
       feature="part 1 / media types")
@pytest.mark.parametrize("accept", ["application/json", "application/xml"])
@pytest.mark.parametrize("case", ["adressen-id", "adresseerbareobjecten-id", "adressen"])
def test_unsupported_accept_not_acceptable(address_api, case, accept):
    control = Req.of(*g.SUCCESS_CASES[case](address_api)).with_header("Accept", "application/hal+json")
    refused_vs_control(address_api, control, control.with_header("Accept", accept), rule=f"Accept: {accept}",
                       statuses=(406,))


@check("address.media.not_acceptable_names_accept_crs", MUST, "A 406 carries the acceptCrs header (epsg:28992)",
       requirements=["ADDR-4.acceptCrs"],
       proven_by=["address.accept_crs_header_missing_on_406"],
       may_fail_under=["address.accept_not_negotiated"],
       sends=["refused"],
       observes="exchange",
       feature="part 1 / media types")
def test_not_acceptable_names_accept_crs(address_api):
    control = Req.of(f"/adressen/{address_api.sample('nummeraanduiding')}").with_header("Accept", "application/hal+json")
    ex = refused_vs_control(address_api, control, control.with_header("Accept", "application/xml"),
                            rule="Accept: application/xml", statuses=(406,))
    g.has_accept_crs_header(ex)


# The plain value (seed part 1) and lists a HAL client sends, with quality values (RFC 9110 12.5.1).
HAL_ACCEPTS = ["application/hal+json", "application/hal+json, application/problem+json",
               "application/json;q=0.5, application/hal+json"]


@check("address.media.hal_json_accepted", MUST, "Accept: application/hal+json, alone or first choice in a list, is served (200)",
       requirements=["ADDR-1.media-type", "BAGREF-4.12", "RFC9110-12.5.1"],
       proven_by=["address.accept_exact_match_only"],
       feature="part 1 / media types")
@pytest.mark.parametrize("accept", HAL_ACCEPTS)
@pytest.mark.parametrize("case", ["adressen-id", "adresseerbareobjecten-id", "adressen"])
def test_hal_json_accepted(address_api, case, accept):
    path, params = g.SUCCESS_CASES[case](address_api)
    g.expect_status(address_api.get(path, params=params, headers={"Accept": accept}), 200)
