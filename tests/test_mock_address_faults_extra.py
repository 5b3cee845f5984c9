"""On/off tests of the address mock's endpoint-semantics faults (the faults that prove the
checks of suites/address/test_endpoints_*.py).

Like FAULT_CASES in test_mock_address_app.py: each case holds without the fault and fails
with it. Every fault of conformance/mocks/address/faults.py has a case here or there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from test_mock_address_app import (
    FAULT_CASES,
    NA,
    VBO,
    Clock,
    TestClient,
    W,
    _keys,
    get,
    items,
    ok,
)

from conformance.mocks.address import data
from conformance.mocks.address import faults as address_faults
from conformance.mocks.address.app import create_app
from conformance.mocks.address.config import AddressMockConfig
from conformance.mocks.faults import Fault, FaultSet

Check = Callable[[TestClient], bool]
OBJECTS, ADRESSEN = "/adresseerbareobjecten", "/adressen"


@pytest.fixture(scope="module")
def make(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., TestClient]:
    db_path = data.ensure_database(tmp_path_factory.mktemp("address-db-extra") / "address.sqlite")

    def build(*faults: str) -> TestClient:
        config = AddressMockConfig(db_path=db_path, keys=_keys(), clock=Clock())
        return TestClient(create_app(config, FaultSet(frozenset(faults))))

    return build


def _found(c: TestClient, path: str, name: str) -> list[dict[str, Any]]:
    return items(ok(get(c, path)), name)


def _objects(path: str, predicate: Callable[[list[dict[str, Any]]], bool]) -> Check:
    return lambda c: predicate(_found(c, path, "adresseerbareObjecten"))


def _addresses(path: str, predicate: Callable[[list[dict[str, Any]]], bool]) -> Check:
    return lambda c: predicate(_found(c, path, "adressen"))


def _status(path: str, status: int) -> Check:
    return lambda c: get(c, path).status_code == status


def _data(item: dict[str, Any]) -> dict[str, Any]:
    """The data of one addressable object of a collection: `<type>.<type>`."""
    kind = next(k for k in item if k != "_links")
    return item[kind][kind]


def _vbo_building(c: TestClient) -> str:
    return ok(get(c, f"{OBJECTS}/{VBO}"))["verblijfsobject"]["verblijfsobject"]["maaktDeelUitVan"][0]


def _pand_objects_only_in_it(c: TestClient) -> bool:
    pand = _vbo_building(c)
    found = _found(c, f"{OBJECTS}?pandIdentificaties={pand}&pageSize=100", "adresseerbareObjecten")
    return bool(found) and all(pand in _data(o).get("maaktDeelUitVan", []) for o in found)


def _pand_addresses_only_in_it(c: TestClient) -> bool:
    pand = _vbo_building(c)
    found = _found(c, f"{ADRESSEN}?pandIdentificatie={pand}&pageSize=100", "adressen")
    return bool(found) and all(pand in a.get("pandIdentificaties", []) for a in found)


def _one_wrapper(found: list[dict[str, Any]]) -> bool:
    types = ("ligplaats", "standplaats", "verblijfsobject")
    return any("ligplaats" in o for o in found) and all(sum(t in o for t in types) == 1 for o in found)


def _zoek_identified(c: TestClient) -> bool:
    found = _found(c, "/adressen/zoek?zoek=" + quote("Kerkstraat 12"), "zoekresultaten")
    return bool(found) and all(isinstance(r.get("identificatie"), str) and r["identificatie"] for r in found)


def _lvc_unpaged(c: TestClient) -> bool:
    links = ok(get(c, f"{OBJECTS}/{W['adresseerbaarobject_historie']}/lvc?geheleLvc=true"))["_links"]
    return set(links) == {"self"}


def _established(item: dict[str, Any]) -> bool:
    kind = next(k for k in ("verblijfsobject", "ligplaats", "standplaats") if k in item)
    return item[kind][kind]["geconstateerd"] == "J"


def _status_of_vbo(c: TestClient) -> bool:
    one = ok(get(c, f"/adressenuitgebreid/{NA}"))
    many = _found(c, f"/adressenuitgebreid?adresseerbaarObjectIdentificatie={VBO}", "adressen")
    return bool(many) and all("adresseerbaarObjectStatus" in a for a in [one, *many])


_BBOX = f"{OBJECTS}?bbox={W['bbox']}&pageSize=100"
_KERKSTRAAT_12 = f"{ADRESSEN}?postcode=1181VA&huisnummer=12"
_NAAM = f"{ADRESSEN}?woonplaatsNaam=Amstelveer&openbareRuimteNaam=Kerkstraat&huisnummer=12&pageSize=100"
_SIDE = W["nummeraanduiding_nevenadres"]

# fault -> a check that holds without the fault and fails with it
def _absent(path: str, identificatie: str) -> Check:
    """A search answered 200 without the object (time travel and huidig on the collection)."""
    return lambda c: (lambda r: r.status_code == 200 and identificatie not in r.text)(get(c, path))


_HISTORIE_PAND = "1951100000000109"  # the building of adresseerbaarobject_historie
_EINDSTATUS_PAND = "1951100000000108"  # the building of adresseerbaarobject_eindstatus

EXTRA_FAULT_CASES: dict[str, Check] = {
    # Before the object existed it is not found; with huidig=true an object with an end status is not.
    "collection_ignores_geldig_op": _absent(f"{OBJECTS}?pandIdentificaties={_HISTORIE_PAND}&geldigOp=1900-01-01",
                                            data.WELL_KNOWN["adresseerbaarobject_historie"]),
    "collection_ignores_beschikbaar_op": _absent(
        f"{OBJECTS}?pandIdentificaties={_HISTORIE_PAND}&beschikbaarOp=1900-01-01T00:00:00",
        data.WELL_KNOWN["adresseerbaarobject_historie"]),
    "collection_ignores_huidig": _absent(f"{OBJECTS}?pandIdentificaties={_EINDSTATUS_PAND}&huidig=true",
                                         data.WELL_KNOWN["adresseerbaarobject_eindstatus"]),
    # With inclusiefEindStatus=true the end-status address is found by its id.
    "end_status_flag_ignored": lambda c: _status(
        f"/adressen/{data.WELL_KNOWN['nummeraanduiding_eindstatus']}?inclusiefEindStatus=true", 200)(c),
    "nummeraanduiding_side_address_ignored": _objects(
        f"{OBJECTS}?nummeraanduidingIdentificatie={_SIDE}",
        lambda found: any(_SIDE in _data(o).get("heeftAlsNevenAdres", []) for o in found)),
    "pand_query_leaks": lambda c: _pand_objects_only_in_it(c) and _pand_addresses_only_in_it(c),
    "object_wrapper_ambiguous": _objects(_BBOX, _one_wrapper),
    "gebruiksdoelen_filter_ignored": _objects(
        f"{_BBOX}&gebruiksdoelen=woonfunctie",
        lambda found: bool(found) and all("woonfunctie" in _data(o)["gebruiksdoelen"] for o in found)),
    "oppervlakte_filter_ignored": _objects(
        f"{_BBOX}&oppervlakte[max]=100",
        lambda found: bool(found) and all(_data(o).get("oppervlakte", 10**6) <= 100 for o in found)),
    "letter_addition_ignored": _addresses(
        f"{_KERKSTRAAT_12}&huisnummertoevoeging=1",
        lambda found: bool(found) and all(a.get("huisnummertoevoeging") == "1" for a in found)),
    "object_query_drops_side_addresses": _addresses(
        f"{ADRESSEN}?adresseerbaarObjectIdentificatie={VBO}",
        lambda found: any(a.get("indicatieNevenadres") for a in found)),
    "openbare_ruimte_query_ignored": _addresses(
        f"{ADRESSEN}?openbareRuimteIdentificatie={W['openbareruimte']}&pageSize=100",
        lambda found: bool(found) and all(a["openbareRuimteIdentificatie"] == W["openbareruimte"] for a in found)),
    "q_ignored": _addresses(
        f"{ADRESSEN}?q=1181VA&pageSize=100", lambda found: bool(found) and all(a.get("postcode") == "1181VA" for a in found)),
    "name_query_ignores_street": _addresses(
        _NAAM, lambda found: bool(found) and all(a["openbareRuimteNaam"] == "Kerkstraat" for a in found)),
    "letter_addition_patterns_not_enforced": lambda c: (
        _status(f"{_KERKSTRAAT_12}&huisletter=bb", 400)(c)
        and _status(f"{_KERKSTRAAT_12}&huisnummertoevoeging=1a2b3", 400)(c)),
    "postcode_forms_rejected": lambda c: all(
        _status(f"{ADRESSEN}?postcode={pc}&huisnummer=12", 200)(c) for pc in ("1181%20VA", "1181va", "1181+va")),
    "zoek_results_without_identificatie": _zoek_identified,
    "bronhouders_two_accepted": _status(f"/bronhouders?objectIdentificatie={NA}&objectIdentificatie={VBO}", 400),
    "identifier_patterns_not_enforced": lambda c: all(
        _status(f"{OBJECTS}?{query}", 400)(c)
        for query in (f"nummeraanduidingIdentificatie={NA[:-1]}", f"nummeraanduidingIdentificatie={'a' * 16}",
                      f"pandIdentificaties={VBO}")),
    "extended_fields_missing": _status_of_vbo,
    "geconstateerd_filter_ignored": _objects(
        f"{OBJECTS}?bbox={W['bbox']}&geconstateerd=true&pageSize=100",
        lambda found: bool(found) and all(_established(o) for o in found)),
    "expand_field_rejected": _status(f"{ADRESSEN}/{NA}?expand=woonplaats.naam", 200),
    "lvc_paging_links": _lvc_unpaged,
    "bronhouder_parameter_renamed": _status(f"/bronhouders?objectIdentificatie={VBO}", 200),
}  # fmt: skip


def test_every_fault_of_the_address_module_has_a_case() -> None:
    declared = {f.name.removeprefix("address.") for f in vars(address_faults).values() if isinstance(f, Fault)}
    assert not set(FAULT_CASES) & set(EXTRA_FAULT_CASES)
    assert declared == set(FAULT_CASES) | set(EXTRA_FAULT_CASES)


@pytest.mark.parametrize("name", sorted(EXTRA_FAULT_CASES))
def test_fault_changes_what_it_names(make: Callable[..., TestClient], name: str) -> None:
    check = EXTRA_FAULT_CASES[name]
    assert check(make()), "conforming without the fault"
    assert not check(make(f"address.{name}")), "fault had no effect"


# Requests near each fault that it must leave alone (it changes only what its name says).
UNTOUCHED: dict[str, list[str]] = {
    "nummeraanduiding_side_address_ignored": [f"{OBJECTS}?nummeraanduidingIdentificatie={NA}"],
    "object_wrapper_ambiguous": [f"{_BBOX}&type=ligplaats", f"{OBJECTS}/{W['ligplaats']}"],
    "letter_addition_ignored": [f"{_KERKSTRAAT_12}&huisnummertoevoeging=1&exacteMatch=true"],
    "object_query_drops_side_addresses": [f"/adressenuitgebreid?adresseerbaarObjectIdentificatie={VBO}"],
    "postcode_forms_rejected": [f"{_KERKSTRAAT_12}&pageSize=100"],
    "identifier_patterns_not_enforced": [f"{ADRESSEN}?pandIdentificatie={VBO}"],
    "bronhouders_two_accepted": [f"/bronhouders?objectIdentificatie={VBO}"],
    "q_ignored": ["/adressen/zoek?zoek=1181VA"],
    # The paging sample's building has no neighbour differing in the last digit only.
    "pand_query_leaks": [f"{ADRESSEN}?pandIdentificatie={W['pand']}&pageSize=100"],
}


@pytest.mark.parametrize("name", sorted(EXTRA_FAULT_CASES))
def test_fault_leaves_other_requests_alone(make: Callable[..., TestClient], name: str) -> None:
    clean, faulty = make(), make(f"address.{name}")
    paths = [f"{ADRESSEN}/{NA}", f"{OBJECTS}/{VBO}", *UNTOUCHED.get(name, [])]
    if name != "lvc_paging_links":
        paths.append(f"{OBJECTS}/{VBO}/lvc")
    for path in paths:
        want, got = get(clean, path), get(faulty, path)
        assert (got.status_code, got.json()) == (want.status_code, want.json()), path

