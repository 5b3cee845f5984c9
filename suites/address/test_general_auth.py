"""Authentication with the X-Api-Key header (seed part 5).

Each refusal is judged against the same request with the valid key (its control): a
server that refuses that one too shows nothing about keys, and the check is blocked.
"""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address.control import Req, control_served, refused_vs_control, stated_reason
from conformance.checks.registry import MUST, check
from conformance.findings import expect, require

ENDPOINTS = list(g.SUCCESS_CASES)


def _request(address_api, case: str) -> Req:
    return Req.of(*g.SUCCESS_CASES[case](address_api))


@check("address.auth.missing_key_rejected", MUST, "Every endpoint answers a request without X-Api-Key with 401",
       requirements=["ADDR-5.1", "ADDR-5.4", "ADDR-7.401"],
       proven_by=["address.no_api_key_served"],
       sends=["refused"],
       feature="part 5 / authentication")
@pytest.mark.parametrize("case", ENDPOINTS)
def test_missing_key_rejected(address_api, case):
    control = _request(address_api, case)
    refused_vs_control(address_api, control, control.with_key("none"), rule="no X-Api-Key", statuses=(401,))


@check("address.auth.invalid_key_rejected", MUST, "Every endpoint answers a request with an unknown X-Api-Key with 401",
       requirements=["ADDR-5.1", "ADDR-5.4", "ADDR-7.401"],
       proven_by=["address.invalid_key_served"],
       sends=["refused"],
       feature="part 5 / authentication")
@pytest.mark.parametrize("case", ENDPOINTS)
def test_invalid_key_rejected(address_api, case):
    control = _request(address_api, case)
    refused_vs_control(address_api, control, control.with_key("invalid"), rule="an unknown X-Api-Key",
                       statuses=(401,))


# Negative: it sends requests designed to be refused (a key on paths it has no rights for),
# so a run whose profile forbids negative requests (production) does not send them.
@check("address.auth.key_without_rights_forbidden", MUST, "A key without rights for the URL gets 403",
       requirements=["ADDR-5.4", "ADDR-7.403"],
       proven_by=["address.restricted_key_not_enforced"],
       sends=["refused"],
       feature="part 5 / authentication")
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


@check("address.auth.valid_key_served", MUST, "A valid key sent in X-Api-Key is served (200)",
       requirements=["ADDR-5.1", "ADDR-5.2"],
       proven_by=["address.restricted_policy_applied_to_all_keys"],
       feature="part 5 / authentication")
@pytest.mark.parametrize("case", ENDPOINTS)
def test_valid_key_served(address_api, case):
    g.expect_status(_request(address_api, case).send(address_api), 200)
