"""HAL links of 200 responses (seed part 1; bag-api.md 4.2)."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import hal
from conformance.checks.registry import MUST, SHOULD, check

CASES = list(g.SUCCESS_CASES)


def _ok(address_api, path: str, params):
    ex = address_api.get(path, params=params)
    g.expect_status(ex, 200)
    return ex


@check("address.hal.self_link_present", SHOULD, "Every 200 resource carries _links.self",
       requirements=["ADDR-1.hal"],
       proven_by=["address.self_link_missing"],
       may_fail_under=["address.restricted_policy_applied_to_all_keys", "address.not_found_as_200"],
       observes="exchange",
       feature="part 1 / HAL links")
@pytest.mark.parametrize("case", CASES)
def test_self_link_present(address_api, case):
    g.has_self_link(_ok(address_api, *g.SUCCESS_CASES[case](address_api)))


@check("address.hal.self_link_reflects_request", SHOULD, "_links.self reflects the request path and query",
       requirements=["BAGREF-4.2"],
       proven_by=["address.self_link_drops_query"],
       may_fail_under=["address.self_link_missing", "address.restricted_policy_applied_to_all_keys",
                       "address.not_found_as_200"],
       observes="exchange",
       feature="part 1 / HAL links")
@pytest.mark.parametrize("case", CASES)
def test_self_link_reflects_request(address_api, case):
    hal.self_link_reflects_request(_ok(address_api, *g.SUCCESS_CASES[case](address_api)))


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


# Answers with every kind of link: paging links, related resources, embedded resources.
LINKING = {
    "adressen-paged": lambda api: g.SUCCESS_CASES["adressen"](api),
    "adressen-id-expand": EMBEDDING["adressen-id-expand"],
    "adresseerbareobjecten-id-expand": EMBEDDING["adresseerbareobjecten-id-expand"],
}


@check("address.hal.links_within_base", MUST, "Every link of an answer (self, paging, embedded resources) stays below the base URL",
       requirements=["ADDR-1.base"],
       proven_by=["address.links_to_other_origin"],
       observes="exchange",
       feature="part 1 / HAL links")
@pytest.mark.parametrize("case", list(LINKING))
def test_links_within_base(address_api, case):
    hal.links_within_base(_ok(address_api, *LINKING[case](address_api)), address_api.base_url)
