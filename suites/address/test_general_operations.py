"""Operations and versioning: the API is read-only (seed part 1) and versioned in its base
address (seed part 9)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from conformance.checks.address import general as g
from conformance.checks.address.control import CLIENT_ERROR, Req, control_served, refused_vs_control
from conformance.checks.registry import MUST, check
from conformance.findings import expect

WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")


@check("address.operations.write_methods_refused", MUST, "POST, PUT, PATCH and DELETE on a collection and a resource are refused with a 4xx, and the resource is unchanged",
       requirements=["ADDR-1.read-only"],
       proven_by=["address.write_methods_served"],
       sends=["refused"],
       feature="part 1, 9 / operations and versioning")
@pytest.mark.parametrize("target", ["collection", "resource"])
@pytest.mark.parametrize("method", WRITE_METHODS)
def test_write_methods_refused(address_api, method: str, target: str) -> None:
    # "All operations are HTTP GET and read-only": any other method must be refused (405 is
    # the natural answer, RFC 9110 15.5.6; the seed names none, so any 4xx passes), and the
    # resource must read the same afterwards.
    # The GET is the control. A 401 or 403 refuses the write too (a key may lack rights to
    # write), so only a rate limit is no answer about the method.
    num = address_api.sample("nummeraanduiding")
    control = (Req.of("/adresseerbareobjecten", {"nummeraanduidingIdentificatie": num}) if target == "collection"
               else Req.of(f"/adressen/{num}"))
    before = control_served(address_api, control)
    refused_vs_control(address_api, control, control.with_method(method), rule=f"{method} on a read-only API",
                       statuses=CLIENT_ERROR, unrelated={429: "rate limit"})
    after = control.send(address_api)
    g.expect_status(after, 200)
    g.same_data(before, after)


@check("address.versioning.base_path_major_version", MUST, "The base address the API answers at ends in the major version segment v2",
       requirements=["ADDR-9.base-path"],
       proven_by=["address.unversioned_base_path"],
       feature="part 1, 9 / operations and versioning")
def test_base_path_major_version(address_api) -> None:
    segments = [s for s in urlsplit(address_api.base_url).path.split("/") if s]
    expect(segments[-1:] == ["v2"], "the base address does not end in the major version segment v2",
           expected=".../v2", actual=urlsplit(address_api.base_url).path or "/")
    # ... and the API answers there: the segment is the one it serves, not a profile typo.
    g.expect_status(address_api.get(f"/adressen/{address_api.sample('nummeraanduiding')}"), 200)
