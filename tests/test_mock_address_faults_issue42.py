"""On/off tests of the address mock's faults of issue 42 (declared beside the behaviour they
change: problems.py, addresses.py, objects.py, context.py, app.py).

Like FAULT_CASES in test_mock_address_app.py: each case holds without the fault and fails with
it, and the request a fault does not name is answered as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_mock_address_app import BASE, NA, PAND, VBO, Clock, TestClient, W, _keys, get

from conformance.mocks.address import data
from conformance.mocks.address.app import create_app
from conformance.mocks.address.config import AddressMockConfig
from conformance.mocks.faults import FaultSet, catalogue

Check = Callable[[TestClient], bool]
BBOX = W["bbox"]


@pytest.fixture(scope="module")
def make(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., TestClient]:
    db_path = data.ensure_database(tmp_path_factory.mktemp("address-db-issue42") / "address.sqlite")

    def build(*faults: str) -> TestClient:
        config = AddressMockConfig(db_path=db_path, keys=_keys(), clock=Clock())
        return TestClient(create_app(config, FaultSet(frozenset(faults))))

    return build


def _status(path: str, status: int) -> Check:
    return lambda c: get(c, path).status_code == status


def _lists_invalid_params(path: str) -> Check:
    def check(c: TestClient) -> bool:
        r = get(c, path)
        return r.status_code == 400 and isinstance(r.json().get("invalid-params"), list)
    return check


def _instance_of(path: str) -> Check:
    return lambda c: get(c, path).json()["instance"].endswith(path)


# fault -> what holds without it and not with it (the request that shows it)
CASES: dict[str, Check] = {
    "params_required_without_invalid_params": _lists_invalid_params("/adressen/zoek"),
    "nothing_found_as_404": _status("/adressen/zoek?zoek=qxqxqxqx", 200),
    "object_booleans_not_validated": _status(f"/adresseerbareobjecten?bbox={BBOX}&geconstateerd=ja", 400),
    "type_value_not_validated": _status(f"/adresseerbareobjecten?bbox={BBOX}&type=fout", 400),
    "empty_lists_accepted": _status("/adresseerbareobjecten?pandIdentificaties=", 400),
    "adres_unknown_expand_ignored": _status(f"/adressen/{NA}?expand=bestaatniet", 400),
    "adresseerbaarobject_unknown_expand_ignored": _status(f"/adresseerbareobjecten/{VBO}?expand=bestaatniet", 400),
    "problem_instance_constant": _instance_of(f"/adressen/{W['unknown_nummeraanduiding']}"),
}


def test_every_case_is_a_fault_of_the_catalogue() -> None:
    declared = {f.name.removeprefix("address.") for f in catalogue("address")}
    assert set(CASES) <= declared


@pytest.mark.parametrize("name", sorted(CASES))
def test_fault_changes_what_it_names(make: Callable[..., TestClient], name: str) -> None:
    check = CASES[name]
    assert check(make()), "conforming without the fault"
    assert not check(make(f"address.{name}")), "fault had no effect"


# What each fault leaves alone: the neighbouring rule it does not name.
NEIGHBOURS: dict[str, Check] = {
    # the 400 of a faulty value keeps its list
    "params_required_without_invalid_params": _lists_invalid_params("/adressen?postcode=1181VA&huisnummer=a"),
    # a search that finds something is still served
    "nothing_found_as_404": _status("/adressen?postcode=1181VA&huisnummer=12", 200),
    # huidig is still validated
    "object_booleans_not_validated": _status(f"/adresseerbareobjecten/{VBO}?huidig=ja", 400),
    # a valid type still filters (and is served)
    "type_value_not_validated": _status(f"/adresseerbareobjecten?bbox={BBOX}&type=ligplaats", 200),
    # an empty nummeraanduidingIdentificatie is still refused
    "empty_lists_accepted": _status("/adresseerbareobjecten?nummeraanduidingIdentificatie=", 400),
    # the searches still refuse an unknown expand
    "adres_unknown_expand_ignored": _status("/adressen?postcode=1181VA&huisnummer=12&expand=bestaatniet", 400),
    "adresseerbaarobject_unknown_expand_ignored": _status(
        f"/adresseerbareobjecten?pandIdentificaties={PAND}&expand=bestaatniet", 400),
    # the instance is still a URI reference (the base path)
    "problem_instance_constant": lambda c: get(c, "/adressen").json()["instance"].startswith("/"),
}


@pytest.mark.parametrize("name", sorted(NEIGHBOURS))
def test_fault_leaves_its_neighbour_alone(make: Callable[..., TestClient], name: str) -> None:
    assert NEIGHBOURS[name](make(f"address.{name}"))


def _found(c: TestClient, path: str) -> list[dict[str, Any]]:
    r = get(c, path)
    assert r.status_code == 200, r.text
    return r.json()["_embedded"]["adresseerbareObjecten"]


def test_empty_lists_read_as_nothing_and_as_no_filter(make: Callable[..., TestClient]) -> None:
    c = make("address.empty_lists_accepted")
    assert _found(c, "/adresseerbareobjecten?pandIdentificaties=") == []  # no building: nothing, not everything
    assert len(_found(c, f"/adresseerbareobjecten?bbox={BBOX}&gebruiksdoelen=&pageSize=100")) == len(
        _found(c, f"/adresseerbareobjecten?bbox={BBOX}&pageSize=100"))  # no filter


def test_a_constant_instance_is_the_base_path(make: Callable[..., TestClient]) -> None:
    c = make("address.problem_instance_constant")
    assert {get(c, p).json()["instance"] for p in ("/adressen", f"/adressen/{W['unknown_nummeraanduiding']}")} == {BASE}
