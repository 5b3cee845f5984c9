"""Accept-Crs and Content-Crs (seed parts 1 and 4): the only CRS is epsg:28992."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g

CRS, OTHER = "epsg:28992", "epsg:4326"


def _accept_crs(address_api, value: str):
    return address_api.get(f"/adresseerbareobjecten/{address_api.sample('verblijfsobject')}",
                           headers={"Accept-Crs": value})


def _content_crs(address_api, value: str):
    return address_api.get("/adresseerbareobjecten", params={"bbox": address_api.sample("bbox")},
                           headers={"Content-Crs": value})


SEND = {"Accept-Crs": _accept_crs, "Content-Crs": _content_crs}


@pytest.mark.check("address.crs.supported_crs_accepted")
@pytest.mark.parametrize("header", list(SEND))
def test_supported_crs_accepted(address_api, header):
    g.expect_status(SEND[header](address_api, CRS), 200)


@pytest.mark.negative
@pytest.mark.check("address.crs.unsupported_accept_crs_rejected")
def test_unsupported_accept_crs_rejected(address_api):
    g.is_client_error(_accept_crs(address_api, OTHER))


@pytest.mark.negative
@pytest.mark.check("address.crs.unsupported_content_crs_rejected")
def test_unsupported_content_crs_rejected(address_api):
    g.is_client_error(_content_crs(address_api, OTHER))


@pytest.mark.negative
@pytest.mark.check("address.crs.unsupported_crs_response")
def test_unsupported_crs_response(address_api, observe):
    seen = {}
    for header, send in SEND.items():
        ex = send(address_api, OTHER)
        body = ex.json if isinstance(ex.json, dict) else {}
        seen[header] = {"status": ex.status, "code": body.get("code"), "acceptCrs": g.header(ex, "acceptCrs")}
    observe(seen)
