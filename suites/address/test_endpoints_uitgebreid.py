"""GET /adressenuitgebreid and /adressenuitgebreid/{id} (seed part 4; bag-api.md 3.3).

Query values are read from the sample address and objects as the server returns them.
The parameter rules it shares with /adressen are judged in test_endpoints_adressen.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.address import endpoints as E
from conformance.checks.address import general as g
from conformance.checks.address import hal
from conformance.checks.registry import MUST, OBSERVATION, SHOULD, check
from conformance.findings import expect

UITGEBREID = "/adressenuitgebreid"


def fetch(api, path: str, **params: str) -> dict[str, Any]:
    ex = api.get(path, params or None)
    E.is_ok(ex)
    return hal.body(ex)


def value(address: dict[str, Any], name: str) -> str:
    if isinstance(address, g.SampleData):  # a sample lacking it blocks the checks that need it
        return str(address.need(name))
    found = address.get(name)
    expect(found not in (None, ""), f"the sample address has no {name}", actual=address.get("nummeraanduidingIdentificatie"))
    return str(found)


def search_all(api, params: list[tuple[str, str]], **options: int) -> list[dict[str, Any]]:
    return E.collect(api.get, UITGEBREID, params, "adressen", **options)


def vbo_relations(api) -> tuple[str, str, list[str]]:
    data = g.sample_resource(api, "verblijfsobject", "/adresseerbareobjecten/{}",
                             check=lambda ex, value: E.single_object(ex, value))
    main = data.having("heeftAlsHoofdAdres", E.main_address(data))
    return data.value, main, E.buildings(data)


@pytest.mark.parametrize("kind", ["postcode", "adresseerbaarObject", "naam", "q", "pand"])
@check("address.adressenuitgebreid.query_kinds", MUST, "Each query kind of /adressenuitgebreid returns the matching extended addresses",
       requirements=["ADDR-4.adressenuitgebreid"],
       proven_by=["address.query_filter_ignored"],
       may_fail_under=["address.pand_query_leaks", "address.q_ignored", "address.name_query_ignores_street", "address.q_ignores_number"],
       feature="GET /adressenuitgebreid")
def test_query_kinds(address_api, kind: str) -> None:
    address = g.sample_resource(address_api, "nummeraanduiding")
    num = address.value
    if kind in ("postcode", "naam"):
        names = ("postcode", "huisnummer") if kind == "postcode" else ("woonplaatsNaam", "openbareRuimteNaam", "huisnummer")
        params = [(n, value(address, n)) for n in names]
        found = search_all(address_api, params)
        E.addresses_match(found, **dict(params))
    elif kind == "q":
        q = f"{value(address, 'postcode')} {value(address, 'huisnummer')}"
        found = search_all(address_api, [("q", q)], max_pages=3)
        E.q_terms_matched(found, q)
    else:
        vbo, num, panden = vbo_relations(address_api)
        if kind == "adresseerbaarObject":
            found = search_all(address_api, [("adresseerbaarObjectIdentificatie", vbo)])
            E.addresses_match(found, adresseerbaarObjectIdentificatie=vbo)
        else:
            expect(bool(panden), "the sample verblijfsobject lies in no building", actual=vbo)
            found = search_all(address_api, [("pandIdentificatie", panden[0])])
            E.addresses_in_building(found, panden[0])
    E.includes(E.address_ids(found), num, f"the address expected for the {kind} query")


@pytest.mark.parametrize("kind", E.OBJECT_TYPES)
@check("address.adressenuitgebreid.extended_fields", SHOULD, "Extended addresses carry the object's type, geometry and status (and purposes and area of a verblijfsobject)",
       requirements=["ADDR-4.adressenuitgebreid", "BAGREF-3.3"],
       proven_by=["address.extended_fields_missing"],
       feature="GET /adressenuitgebreid")
def test_extended_fields(address_api, kind: str) -> None:
    found = search_all(address_api, [("adresseerbaarObjectIdentificatie", address_api.sample(kind))])
    E.non_empty(found, f"the sample {kind} has an address")
    E.extended_fields(found)


@check("address.adressenuitgebreid.exacte_match", MUST, "exacteMatch=true on /adressenuitgebreid returns only the address without letter or addition",
       requirements=["ADDR-4.adressenuitgebreid", "ADDR-4.exacteMatch"],
       proven_by=["address.exacte_match_ignored"],
       may_fail_under=["address.query_filter_ignored"],
       feature="GET /adressenuitgebreid")
def test_exacte_match(address_api) -> None:
    address = g.sample_resource(address_api, "nummeraanduiding")
    num = address.value
    params = [(n, value(address, n)) for n in ("postcode", "huisnummer")]
    exact = search_all(address_api, [*params, ("exacteMatch", "true")])
    E.addresses_match(exact, **dict(params))
    E.addresses_exact(exact)
    E.includes(E.address_ids(exact), num, "the sample address (exacteMatch=true)")


@check("address.adressenuitgebreid.inclusief_eind_status", MUST, "An end-status address is left out of /adressenuitgebreid by default and returned with inclusiefEindStatus=true",
       requirements=["ADDR-4.adressenuitgebreid", "ADDR-4.inclusiefEindStatus"],
       proven_by=["address.end_status_addresses_returned"],
       may_fail_under=["address.not_found_as_200", "address.end_status_flag_ignored", "address.nothing_found_as_404"],
       feature="GET /adressenuitgebreid")
def test_inclusief_eind_status(address_api) -> None:
    address = g.sample_resource(address_api, "nummeraanduiding_eindstatus", params={"inclusiefEindStatus": "true"})
    ended = address.value
    names = ("postcode", "huisnummer") if address.get("postcode") else ("woonplaatsNaam", "openbareRuimteNaam", "huisnummer")
    query = [(n, value(address, n)) for n in names]
    for extra, present in (([], False), ([("inclusiefEindStatus", "true")], True)):
        ids = E.address_ids(search_all(address_api, [*query, *extra]))
        check = E.includes if present else E.excludes
        check(ids, ended, f"the address with an end status ({extra or 'default'})")


@check("address.adressenuitgebreid.expand_given", OBSERVATION, "What /adressenuitgebreid does with an expand parameter (it has none)",
       requirements=["ADDR-4.adressenuitgebreid"],
       feature="GET /adressenuitgebreid")
def test_expand_given(address_api, observe) -> None:
    address = g.sample_resource(address_api, "nummeraanduiding")
    ex = address_api.get(UITGEBREID, [("postcode", value(address, "postcode")),
                                      ("huisnummer", value(address, "huisnummer")), ("expand", "true")])
    found = hal.embedded(ex, "adressen") if ex.status == 200 else []
    code = ex.json.get("code") if isinstance(ex.json, dict) else None
    observe({"status": ex.status, "code": code,
             "embedded": any(isinstance(a, dict) and a.get("_embedded") for a in found)})


@check("address.adressenuitgebreid.by_id", MUST, "GET /adressenuitgebreid/{id} returns that extended address (200)",
       requirements=["ADDR-4.adressenuitgebreid.id"],
       proven_by=["address.identifiers_malformed"],
       may_fail_under=["address.restricted_policy_applied_to_all_keys"],
       feature="GET /adressenuitgebreid/{nummeraanduidingIdentificatie}")
def test_by_id(address_api) -> None:
    num = address_api.sample("nummeraanduiding")
    data = fetch(address_api, f"{UITGEBREID}/{num}")
    expect(E.address_id(data) == num, "the extended address returned is not the one requested", expected=num,
           actual=E.address_id(data))


@check("address.adressenuitgebreid.by_id_inclusief_eind_status", MUST, "An end-status address is not returned by /adressenuitgebreid/{id} by default, but is with inclusiefEindStatus=true",
       requirements=["ADDR-4.adressenuitgebreid.id", "ADDR-4.inclusiefEindStatus"],
       proven_by=["address.end_status_addresses_returned"],
       may_fail_under=["address.not_found_as_200", "address.identifiers_malformed", "address.end_status_flag_ignored", "address.restricted_policy_applied_to_all_keys"],
       feature="GET /adressenuitgebreid/{nummeraanduidingIdentificatie}")
def test_by_id_inclusief_eind_status(address_api) -> None:
    ended = address_api.sample("nummeraanduiding_eindstatus")
    ex = address_api.get(f"{UITGEBREID}/{ended}")
    expect(ex.status != 200, "the end-status address is returned without inclusiefEindStatus=true",
           expected="not 200", actual=ex.summary())
    data = fetch(address_api, f"{UITGEBREID}/{ended}", inclusiefEindStatus="true")
    expect(E.address_id(data) == ended, "the extended address returned is not the one requested", expected=ended,
           actual=E.address_id(data))


@check("address.adressenuitgebreid.unknown_id", OBSERVATION, "The status of /adressenuitgebreid/{id} for an unknown id (the seed lists no 404 there)",
       requirements=["ADDR-7", "BAGREF-4.13"],
       feature="GET /adressenuitgebreid/{nummeraanduidingIdentificatie}")
def test_unknown_id(address_api, observe) -> None:
    ex = address_api.get(f"{UITGEBREID}/{address_api.sample('unknown_nummeraanduiding')}")
    observe({"status": ex.status, "code": ex.json.get("code") if isinstance(ex.json, dict) else None})
