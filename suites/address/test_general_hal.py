"""HAL links of 200 responses (seed part 1; bag-api.md 4.2)."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.registry import SHOULD, check


def _ok(address_api, path: str, params):
    ex = address_api.get(path, params=params)
    g.expect_status(ex, 200)
    return ex


EMBEDDING = {
    "adresseerbareobjecten-items": lambda api: ("/adresseerbareobjecten", {"pandIdentificaties": api.sample("pand")}),
    "adressen-items": lambda api: ("/adressen", {"pandIdentificatie": api.sample("pand")}),
    "adressenuitgebreid-items": lambda api: ("/adressenuitgebreid", {"pandIdentificatie": api.sample("pand")}),
    "adressen-id-expand": lambda api: (f"/adressen/{api.sample('nummeraanduiding')}", {"expand": "true"}),
    "adresseerbareobjecten-id-expand": lambda api: (
        f"/adresseerbareobjecten/{api.sample('verblijfsobject')}", {"expand": "true"}),
}


@check("address.hal.embedded_self_links", SHOULD, "Collection items and expanded resources carry their own self link",
       requirements=["BAGREF-4.2"],
       proven_by=["address.embedded_self_link_missing"],
       may_fail_under=["address.expand_ignored"],
       feature="part 1 / HAL links")
@pytest.mark.parametrize("case", list(EMBEDDING))
def test_embedded_self_links(address_api, case):
    g.embedded_have_self_links(_ok(address_api, *EMBEDDING[case](address_api)))


