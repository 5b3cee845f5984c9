"""Media types and content negotiation (seed parts 1 and 7, part 4 "Response headers")."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import headers, problem
from conformance.checks.address.control import Req, refused_vs_control

NEGATIVE = pytest.mark.negative


def _send(address_api, case: str):
    path, params = g.SUCCESS_CASES[case](address_api)
    return address_api.get(path, params=params)


def _error_cases():
    return [pytest.param(name, marks=[NEGATIVE] if case.negative else [], id=name)
            for name, case in g.ERROR_CASES.items()]


@pytest.mark.check("address.media.success_is_hal_json")
@pytest.mark.parametrize("case", list(g.SUCCESS_CASES))
def test_success_is_hal_json(address_api, case):
    ex = _send(address_api, case)
    g.expect_status(ex, 200)
    headers.is_hal_json(ex)


@pytest.mark.check("address.media.error_is_problem_json")
@pytest.mark.parametrize("case", _error_cases())
def test_error_is_problem_json(address_api, case):
    problem.is_problem_media_type(g.ERROR_CASES[case].error_response(address_api))


@NEGATIVE
@pytest.mark.check("address.media.unsupported_accept_not_acceptable")
@pytest.mark.parametrize("accept", ["application/json", "application/xml"])
@pytest.mark.parametrize("case", ["adressen-id", "adresseerbareobjecten-id", "adressen"])
def test_unsupported_accept_not_acceptable(address_api, case, accept):
    control = Req.of(*g.SUCCESS_CASES[case](address_api)).with_header("Accept", "application/hal+json")
    refused_vs_control(address_api, control, control.with_header("Accept", accept), rule=f"Accept: {accept}",
                       statuses=(406,))


@NEGATIVE
@pytest.mark.check("address.media.not_acceptable_names_accept_crs")
def test_not_acceptable_names_accept_crs(address_api):
    control = Req.of(f"/adressen/{address_api.sample('nummeraanduiding')}").with_header("Accept", "application/hal+json")
    ex = refused_vs_control(address_api, control, control.with_header("Accept", "application/xml"),
                            rule="Accept: application/xml", statuses=(406,))
    g.has_accept_crs_header(ex)


# The plain value (seed part 1) and lists a HAL client sends, with quality values (RFC 9110 12.5.1).
HAL_ACCEPTS = ["application/hal+json", "application/hal+json, application/problem+json",
               "application/json;q=0.5, application/hal+json"]


@pytest.mark.check("address.media.hal_json_accepted")
@pytest.mark.parametrize("accept", HAL_ACCEPTS)
@pytest.mark.parametrize("case", ["adressen-id", "adresseerbareobjecten-id", "adressen"])
def test_hal_json_accepted(address_api, case, accept):
    path, params = g.SUCCESS_CASES[case](address_api)
    g.expect_status(address_api.get(path, params=params, headers={"Accept": accept}), 200)
