"""Authentication with the X-Api-Key header (seed part 5).

Each refusal is judged against the same request with the valid key (its control): a
server that refuses that one too shows nothing about keys, and the check is blocked.
"""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address.control import Req, control_served, refused_vs_control, stated_reason
from conformance.findings import expect, require

ENDPOINTS = list(g.SUCCESS_CASES)


def _request(address_api, case: str) -> Req:
    return Req.of(*g.SUCCESS_CASES[case](address_api))


@pytest.mark.negative
@pytest.mark.check("address.auth.missing_key_rejected")
@pytest.mark.parametrize("case", ENDPOINTS)
def test_missing_key_rejected(address_api, case):
    control = _request(address_api, case)
    refused_vs_control(address_api, control, control.with_key("none"), rule="no X-Api-Key", statuses=(401,))


@pytest.mark.negative
@pytest.mark.check("address.auth.invalid_key_rejected")
@pytest.mark.parametrize("case", ENDPOINTS)
def test_invalid_key_rejected(address_api, case):
    control = _request(address_api, case)
    refused_vs_control(address_api, control, control.with_key("invalid"), rule="an unknown X-Api-Key",
                       statuses=(401,))


# Negative: it sends requests designed to be refused (a key on paths it has no rights for),
# so a run whose profile forbids negative requests (production) does not send them.
@pytest.mark.negative
@pytest.mark.check("address.auth.key_without_rights_forbidden")
def test_key_without_rights_forbidden(address_api):
    # Which paths the restricted key may not use is a deployment fact: the profile's
    # services.address.restricted_paths. The key itself must work where it has rights,
    # or a 403 (or 401) would say nothing about rights.
    permitted = g.permitted_cases(address_api)
    if permitted:
        ex = _request(address_api, permitted[0]).with_key("restricted").send(address_api)
        require(ex.status == 200, "the restricted key is served where it has rights",
                f"restricted key on {g.SUCCESS_PATHS[permitted[0]]} -> {ex.status}")
    wrong = []
    for case in g.restricted_cases(address_api):
        control = _request(address_api, case)
        control_served(address_api, control)
        ex = control.with_key("restricted").send(address_api)
        if ex.status != 403:
            wrong.append(f"{g.SUCCESS_PATHS[case]} -> {stated_reason(ex)}")
    expect(not wrong, "a key without rights for the path is not answered 403", expected="403 on every restricted path",
           actual=wrong)


@pytest.mark.check("address.auth.valid_key_served")
@pytest.mark.parametrize("case", ENDPOINTS)
def test_valid_key_served(address_api, case):
    g.expect_status(_request(address_api, case).send(address_api), 200)
