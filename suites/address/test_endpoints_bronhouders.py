"""GET /bronhouders (seed part 4: exactly one object identification; the parameter names and
the response are not shown). The parameter names are the deployment's: read from the profile's
description where it describes /bronhouders, else from `services.address.bronhouders_parameters`
(conformance/checks/address/bronhouders.py); the response follows bag-api.md 3.5."""

from __future__ import annotations

import pytest

from conformance.checks.address import bronhouders as B
from conformance.checks.address import endpoints as E
from conformance.checks.address.control import Req, refused_vs_control
from conformance.checks.registry import MUST, SHOULD, check

BRONHOUDERS = "/bronhouders"


@pytest.fixture(scope="module")
def bronhouder_parameters(request, profile) -> dict[str, str]:
    """kind -> the query parameter of its identification: the description's (the schema the
    contract tests load), else the profile key's."""
    raw = request.getfixturevalue("address_schema").raw_schema
    return B.parameter_names(raw, profile.address.bronhouders_parameters)


@pytest.mark.parametrize("kind", B.KINDS)
@check("address.bronhouders.object_identificatie", SHOULD, "The identification of one existing object returns its bronhouder (parameter named by the description or the profile; response from public behaviour)",
       requirements=["ADDR-4.bronhouders", "BAGREF-3.5"],
       proven_by=["address.bronhouder_parameter_renamed"],
       may_fail_under=["address.identifiers_malformed"],
       feature="GET /bronhouders")
def test_object_identificatie(address_api, bronhouder_parameters, kind: str) -> None:
    name = B.parameter_of(bronhouder_parameters, kind)
    E.bronhouders(address_api.get(BRONHOUDERS, [(name, address_api.sample(kind))]))


def _one(address_api, names: dict[str, str]) -> tuple[Req, str]:
    """The control: one nummeraanduiding identification, and its parameter."""
    name = B.parameter_of(names, "nummeraanduiding")
    return Req.of(BRONHOUDERS, [(name, address_api.sample("nummeraanduiding"))]), name


@check("address.bronhouders.none_rejected", MUST, "GET /bronhouders without an identification is refused with 400",
       requirements=["ADDR-4.bronhouders"],
       proven_by=["address.required_params_not_enforced"],
       may_fail_under=["address.bronhouder_parameter_renamed"],
       sends=["refused"],
       feature="GET /bronhouders")
def test_none_rejected(address_api, bronhouder_parameters) -> None:
    control, name = _one(address_api, bronhouder_parameters)
    refused_vs_control(address_api, control, control.without(name), rule="no identification given",
                       names=set(bronhouder_parameters.values()))


@check("address.bronhouders.two_rejected", MUST, "GET /bronhouders with two identifications is refused with 400 (exactly one)",
       requirements=["ADDR-4.bronhouders"],
       proven_by=["address.bronhouders_two_accepted"],
       may_fail_under=["address.bronhouder_parameter_renamed"],
       sends=["refused"],
       feature="GET /bronhouders")
def test_two_rejected(address_api, bronhouder_parameters) -> None:
    # The second identification is a verblijfsobject's, under its own parameter (the same one,
    # sent again, where one parameter serves every kind).
    control, _ = _one(address_api, bronhouder_parameters)
    second = B.parameter_of(bronhouder_parameters, "verblijfsobject")
    changed = control.adding(second, address_api.sample("verblijfsobject"))
    refused_vs_control(address_api, control, changed, rule="two identifications given where exactly one is allowed",
                       names=set(bronhouder_parameters.values()))
