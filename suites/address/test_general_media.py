"""Media types and content negotiation (seed parts 1 and 7, part 4 "Response headers")."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address.control import Req, refused_vs_control
from conformance.checks.registry import MUST, check


@check("address.media.unsupported_accept_not_acceptable", MUST, "Accept: application/json or application/xml is answered 406",
       requirements=["ADDR-7.406", "BAGREF-4.12"],
       proven_by=["address.accept_not_negotiated"],
       sends=["refused"],
       feature="part 1 / media types")
@pytest.mark.parametrize("accept", ["application/json", "application/xml"])
@pytest.mark.parametrize("case", ["adressen-id", "adresseerbareobjecten-id", "adressen"])
def test_unsupported_accept_not_acceptable(address_api, case, accept):
    control = Req.of(*g.SUCCESS_CASES[case](address_api)).with_header("Accept", "application/hal+json")
    refused_vs_control(address_api, control, control.with_header("Accept", accept), rule=f"Accept: {accept}",
                       statuses=(406,))


# The plain value (seed part 1) and lists a HAL client sends, with quality values (RFC 9110 12.5.1).
HAL_ACCEPTS = ["application/hal+json", "application/hal+json, application/problem+json",
               "application/json;q=0.5, application/hal+json"]


@check("address.media.hal_json_accepted", MUST, "Accept: application/hal+json, alone or first choice in a list, is served (200)",
       requirements=["ADDR-1.media-type", "BAGREF-4.12", "RFC9110-12.5.1"],
       proven_by=["address.accept_exact_match_only"],
       feature="part 1 / media types")
@pytest.mark.parametrize("accept", HAL_ACCEPTS)
@pytest.mark.parametrize("case", ["adressen-id", "adresseerbareobjecten-id", "adressen"])
def test_hal_json_accepted(address_api, case, accept):
    path, params = g.SUCCESS_CASES[case](address_api)
    g.expect_status(address_api.get(path, params=params, headers={"Accept": accept}), 200)
