"""Authentication with the X-Api-Key header (seed part 5)."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g

ENDPOINTS = list(g.SUCCESS_CASES)


def _send(address_api, case: str, key: str):
    path, params = g.SUCCESS_CASES[case](address_api)
    return address_api.get(path, params=params, key=key)


@pytest.mark.negative
@pytest.mark.check("address.auth.missing_key_rejected")
@pytest.mark.parametrize("case", ENDPOINTS)
def test_missing_key_rejected(address_api, case):
    g.expect_status(_send(address_api, case, "none"), 401)


@pytest.mark.negative
@pytest.mark.check("address.auth.invalid_key_rejected")
@pytest.mark.parametrize("case", ENDPOINTS)
def test_invalid_key_rejected(address_api, case):
    g.expect_status(_send(address_api, case, "invalid"), 401)


@pytest.mark.check("address.auth.key_without_rights_forbidden")
@pytest.mark.parametrize("case", ["adressenuitgebreid-id", "adressenuitgebreid"])
def test_key_without_rights_forbidden(address_api, case):
    g.expect_status(_send(address_api, case, "restricted"), 403)


@pytest.mark.check("address.auth.valid_key_served")
@pytest.mark.parametrize("case", ENDPOINTS)
def test_valid_key_served(address_api, case):
    g.expect_status(_send(address_api, case, "valid"), 200)
