"""GET /bronhouders (seed part 4: exactly one object identification; the parameter name and
the response are not shown, so they follow bag-api.md 3.5: `objectIdentificatie`)."""

from __future__ import annotations

import pytest

from conformance.checks.address import endpoints as E

BRONHOUDERS = "/bronhouders"
KINDS = ("woonplaats", "openbareruimte", "nummeraanduiding", "ligplaats", "standplaats", "verblijfsobject", "pand")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.check("address.bronhouders.object_identificatie")
def test_object_identificatie(address_api, kind: str) -> None:
    E.bronhouders(address_api.get(BRONHOUDERS, [("objectIdentificatie", address_api.sample(kind))]))


@pytest.mark.negative
@pytest.mark.check("address.bronhouders.none_rejected")
def test_none_rejected(address_api) -> None:
    E.has_status(address_api.get(BRONHOUDERS), 400, "no identification given")


@pytest.mark.negative
@pytest.mark.check("address.bronhouders.two_rejected")
def test_two_rejected(address_api) -> None:
    ids = [address_api.sample("nummeraanduiding"), address_api.sample("verblijfsobject")]
    ex = address_api.get(BRONHOUDERS, [("objectIdentificatie", i) for i in ids])
    E.has_status(ex, 400, "two identifications given where exactly one is allowed")
