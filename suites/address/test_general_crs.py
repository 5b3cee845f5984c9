"""Accept-Crs and Content-Crs (seed parts 1 and 4): the only CRS is epsg:28992."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address.control import CLIENT_ERROR, Req, control_served, refused_vs_control
from conformance.checks.registry import MUST, OBSERVATION, check

CRS, OTHER = "epsg:28992", "epsg:4326"


def _accept_crs(address_api, value: str):
    return address_api.get(f"/adresseerbareobjecten/{address_api.sample('verblijfsobject')}",
                           headers={"Accept-Crs": value})


def _content_crs(address_api, value: str):
    return address_api.get("/adresseerbareobjecten", params={"bbox": address_api.sample("bbox")},
                           headers={"Content-Crs": value})


SEND = {"Accept-Crs": _accept_crs, "Content-Crs": _content_crs}


@check("address.crs.supported_crs_accepted", MUST, "Accept-Crs and Content-Crs epsg:28992 are served (200)",
       requirements=["ADDR-1.crs", "ADDR-4.Accept-Crs", "ADDR-4.Content-Crs"],
       proven_by=["address.supported_crs_rejected"],
       feature="part 1, 4 / CRS headers")
@pytest.mark.parametrize("header", list(SEND))
def test_supported_crs_accepted(address_api, header):
    g.expect_status(SEND[header](address_api, CRS), 200)


def _control(address_api, header: str) -> Req:
    """The supported CRS is the control; only the header's value changes."""
    if header == "Accept-Crs":
        control = Req.of(f"/adresseerbareobjecten/{address_api.sample('verblijfsobject')}")
    else:
        control = Req.of("/adresseerbareobjecten", {"bbox": address_api.sample("bbox")})
    return control.with_header(header, CRS)


def _refused(address_api, header: str) -> None:
    control = _control(address_api, header)
    refused_vs_control(address_api, control, control.with_header(header, OTHER),
                       rule=f"{header} {OTHER} is not supported", statuses=CLIENT_ERROR)


@check("address.crs.unsupported_accept_crs_rejected", MUST, "An Accept-Crs other than epsg:28992 is answered with a 4xx",
       requirements=["ADDR-1.crs", "ADDR-4.Accept-Crs"],
       proven_by=["address.accept_crs_not_validated"],
       sends=["refused"],
       feature="part 1, 4 / CRS headers")
def test_unsupported_accept_crs_rejected(address_api):
    _refused(address_api, "Accept-Crs")


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
    for header in SEND:
        control = _control(address_api, header)
        control_served(address_api, control)  # else the answer says nothing about the CRS
        ex = control.with_header(header, OTHER).send(address_api)
        body = ex.json if isinstance(ex.json, dict) else {}
        seen[header] = {"status": ex.status, "code": body.get("code"), "acceptCrs": g.header(ex, "acceptCrs")}
    observe(seen)
