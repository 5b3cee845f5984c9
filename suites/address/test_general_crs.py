"""Accept-Crs and Content-Crs (seed parts 1 and 4): the only CRS is epsg:28992."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address.control import CLIENT_ERROR, Req, control_served, refused_vs_control
from conformance.checks.registry import MUST, OBSERVATION, check

CRS, OTHER = "epsg:28992", "epsg:4326"


# Seed part 4: the endpoints whose parameters list Accept-Crs (the shared parameter "deprecated;
# enum epsg:28992"): each is judged, not one for all (issue 51).
ACCEPT_CRS_REQUESTS = {
    "adresseerbareobjecten": lambda api: Req.of("/adresseerbareobjecten", {"bbox": api.sample("bbox")}),
    "adresseerbaarobject": lambda api: Req.of(f"/adresseerbareobjecten/{api.sample('verblijfsobject')}"),
    "adresseerbaarobject-lvc": lambda api: Req.of(f"/adresseerbareobjecten/{api.sample('verblijfsobject')}/lvc"),
    "adressenuitgebreid": lambda api: Req.of("/adressenuitgebreid", _postcode_query(api)),
    "adressenuitgebreid-id": lambda api: Req.of(f"/adressenuitgebreid/{api.sample('nummeraanduiding')}"),
}


ACCEPT_CRS_ENDPOINTS = tuple(ACCEPT_CRS_REQUESTS)


def _postcode_query(address_api) -> dict[str, str]:
    data = g.sample_address(address_api)
    return {"postcode": str(data["postcode"]), "huisnummer": str(data["huisnummer"])}


def _control(address_api, header: str, endpoint: str = "adresseerbareobjecten") -> Req:
    """The supported CRS is the control; only the header's value changes."""
    return ACCEPT_CRS_REQUESTS[endpoint](address_api).with_header(header, CRS)


CASES = [*(pytest.param("Accept-Crs", e, id=f"Accept-Crs-{e}") for e in ACCEPT_CRS_ENDPOINTS),
         pytest.param("Content-Crs", "adresseerbareobjecten", id="Content-Crs")]


@check("address.crs.supported_crs_accepted", MUST, "Accept-Crs (on every endpoint that takes it) and Content-Crs epsg:28992 are served (200)",
       requirements=["ADDR-1.crs", "ADDR-4.Accept-Crs", "ADDR-4.Content-Crs"],
       proven_by=["address.supported_crs_rejected"],
       may_fail_under=["address.restricted_policy_applied_to_all_keys"],  # it asks /adressenuitgebreid/{id} too
       feature="part 1, 4 / CRS headers")
@pytest.mark.parametrize(("header", "endpoint"), CASES)
def test_supported_crs_accepted(address_api, header, endpoint):
    g.expect_status(_control(address_api, header, endpoint).send(address_api), 200)


def _refused(address_api, header: str, endpoint: str = "adresseerbareobjecten") -> None:
    control = _control(address_api, header, endpoint)
    refused_vs_control(address_api, control, control.with_header(header, OTHER),
                       rule=f"{header} {OTHER} is not supported", statuses=CLIENT_ERROR)


@check("address.crs.unsupported_accept_crs_rejected", MUST, "An Accept-Crs other than epsg:28992 is answered with a 4xx, on every endpoint that takes Accept-Crs",
       requirements=["ADDR-1.crs", "ADDR-4.Accept-Crs"],
       proven_by=["address.accept_crs_not_validated", "address.accept_crs_validated_on_one_endpoint_only"],
       sends=["refused"],
       feature="part 1, 4 / CRS headers")
@pytest.mark.parametrize("endpoint", ACCEPT_CRS_ENDPOINTS)
def test_unsupported_accept_crs_rejected(address_api, endpoint):
    _refused(address_api, "Accept-Crs", endpoint)


@check("address.crs.unsupported_content_crs_rejected", MUST, "A Content-Crs other than epsg:28992 is answered with a 4xx",
       requirements=["ADDR-1.crs", "ADDR-4.Content-Crs"],
       proven_by=["address.content_crs_not_validated"],
       sends=["refused"],
       feature="part 1, 4 / CRS headers")
def test_unsupported_content_crs_rejected(address_api):
    _refused(address_api, "Content-Crs")


@check("address.crs.unsupported_crs_response", OBSERVATION, "Status, code and acceptCrs header of an unsupported Accept-Crs/Content-Crs",
       requirements=["ADDR-4.Accept-Crs", "ADDR-4.Content-Crs", "ADDR-4.acceptCrs", "ADDR-7.not-shown"],
       sends=["refused"],
       feature="part 1, 4 / CRS headers")
def test_unsupported_crs_response(address_api, observe):
    seen = {}
    for header in ("Accept-Crs", "Content-Crs"):
        control = _control(address_api, header)
        control_served(address_api, control)  # else the answer says nothing about the CRS
        ex = control.with_header(header, OTHER).send(address_api)
        body = ex.json if isinstance(ex.json, dict) else {}
        seen[header] = {"status": ex.status, "code": body.get("code"), "acceptCrs": g.header(ex, "acceptCrs")}
    observe(seen)
