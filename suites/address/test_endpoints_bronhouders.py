"""GET /bronhouders (seed part 4: exactly one object identification; the parameter name and
the response are not shown, so they follow bag-api.md 3.5: `objectIdentificatie`)."""

from __future__ import annotations

import pytest

from conformance.checks.address import endpoints as E
from conformance.checks.address.control import Req, refused_vs_control

BRONHOUDERS = "/bronhouders"
KINDS = ("woonplaats", "openbareruimte", "nummeraanduiding", "ligplaats", "standplaats", "verblijfsobject", "pand")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.check("address.bronhouders.object_identificatie")
def test_object_identificatie(address_api, kind: str) -> None:
    E.bronhouders(address_api.get(BRONHOUDERS, [("objectIdentificatie", address_api.sample(kind))]))


@pytest.mark.negative
@pytest.mark.check("address.bronhouders.none_rejected")
def test_none_rejected(address_api) -> None:
    control = Req.of(BRONHOUDERS, [("objectIdentificatie", address_api.sample("nummeraanduiding"))])
    refused_vs_control(address_api, control, control.without("objectIdentificatie"), rule="no identification given",
                       names="objectIdentificatie")


@pytest.mark.negative
@pytest.mark.check("address.bronhouders.two_rejected")
def test_two_rejected(address_api) -> None:
    control = Req.of(BRONHOUDERS, [("objectIdentificatie", address_api.sample("nummeraanduiding"))])
    changed = control.adding("objectIdentificatie", address_api.sample("verblijfsobject"))
    refused_vs_control(address_api, control, changed, rule="two identifications given where exactly one is allowed",
                       names="objectIdentificatie")
