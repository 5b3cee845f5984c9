"""GET /bronhouders (seed part 4: exactly one object identification; the parameter name and
the response are not shown, so they follow bag-api.md 3.5: `objectIdentificatie`)."""

from __future__ import annotations

import pytest

from conformance.checks.address import endpoints as E
from conformance.checks.address.control import Req, refused_vs_control
from conformance.checks.registry import MUST, SHOULD, check

BRONHOUDERS = "/bronhouders"
KINDS = ("woonplaats", "openbareruimte", "nummeraanduiding", "ligplaats", "standplaats", "verblijfsobject", "pand")


@pytest.mark.parametrize("kind", KINDS)
@check("address.bronhouders.object_identificatie", SHOULD, "objectIdentificatie of one existing object returns its bronhouder (parameter name from public behaviour)",
       requirements=["ADDR-4.bronhouders", "BAGREF-3.5"],
       proven_by=["address.bronhouder_parameter_renamed"],
       may_fail_under=["address.identifiers_malformed"],
       feature="GET /bronhouders")
def test_object_identificatie(address_api, kind: str) -> None:
    E.bronhouders(address_api.get(BRONHOUDERS, [("objectIdentificatie", address_api.sample(kind))]))


@check("address.bronhouders.none_rejected", MUST, "GET /bronhouders without an identification is refused with 400",
       requirements=["ADDR-4.bronhouders"],
       proven_by=["address.required_params_not_enforced"],
       may_fail_under=["address.bronhouder_parameter_renamed"],
       sends=["refused"],
       feature="GET /bronhouders")
def test_none_rejected(address_api) -> None:
    control = Req.of(BRONHOUDERS, [("objectIdentificatie", address_api.sample("nummeraanduiding"))])
    refused_vs_control(address_api, control, control.without("objectIdentificatie"), rule="no identification given",
                       names="objectIdentificatie")


@check("address.bronhouders.two_rejected", MUST, "GET /bronhouders with two identifications is refused with 400 (exactly one)",
       requirements=["ADDR-4.bronhouders"],
       proven_by=["address.bronhouders_two_accepted"],
       may_fail_under=["address.bronhouder_parameter_renamed"],
       sends=["refused"],
       feature="GET /bronhouders")
def test_two_rejected(address_api) -> None:
    control = Req.of(BRONHOUDERS, [("objectIdentificatie", address_api.sample("nummeraanduiding"))])
    changed = control.adding("objectIdentificatie", address_api.sample("verblijfsobject"))
    refused_vs_control(address_api, control, changed, rule="two identifications given where exactly one is allowed",
                       names="objectIdentificatie")
