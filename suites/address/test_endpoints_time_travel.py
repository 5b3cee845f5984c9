"""geldigOp and beschikbaarOp on each query kind of GET /adresseerbareobjecten (seed parts 1, 4).

The object is the sample adresseerbaarobject_historie; its life cycle (/lvc, read once per
run) gives the dates and moments to travel to and the search keys that find it (see
conformance/checks/address/time_travel.py). Without the sample the checks do not apply.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from conformance.checks.address import endpoints as E
from conformance.checks.address import time_travel as T
from conformance.checks.registry import MUST, check
from conformance.findings import require

OBJECTS = "/adresseerbareobjecten"
# One life cycle read per server and object: three query kinds share it.
_LIFE_CYCLES: dict[tuple[str, str], Any] = {}


def _history(api) -> tuple[str, str, list[dict[str, Any]]]:
    object_id = api.sample("adresseerbaarobject_historie")
    key = (api.base_url, object_id)
    if key not in _LIFE_CYCLES:
        _LIFE_CYCLES[key] = api.get(f"{OBJECTS}/{object_id}/lvc")
    what = f"the sample adresseerbaarobject_historie {object_id}"
    return object_id, what, T.occurrences(_LIFE_CYCLES[key], what)


def _search(api, key: tuple[str, str], travel: str, value: str) -> list[dict[str, Any]]:
    return E.collect(api.get, OBJECTS, [key, (travel, value)], "adresseerbareObjecten")


@pytest.mark.parametrize("kind", T.QUERY_KINDS)
@check("address.adresseerbareobjecten.geldig_op", MUST, "geldigOp on each query kind finds the object in the occurrence valid that day, and not before its first",
       requirements=["ADDR-1.time-travel", "ADDR-4.geldigOp"],
       proven_by=["address.collection_ignores_geldig_op", "address.time_travel_ignored"],
       may_fail_under=["address.identifiers_malformed", "address.time_travel_forbidden", "address.object_wrapper_ambiguous"],
       feature="GET /adresseerbareobjecten")
def test_geldig_op(address_api, kind: str) -> None:
    object_id, what, lvc = _history(address_api)
    key = T.search_key(lvc, kind, what)
    day = date.fromisoformat(address_api.sample("historie_datum"))
    # On historie_datum the object is found in the occurrence valid then ...
    then = T.found_item(_search(address_api, key, "geldigOp", day.isoformat()), object_id,
                        f"the object valid on {day} (geldigOp={day}, {key[0]})")
    E.valid_on(then, day, T.latest_by_validity(lvc, what))
    # ... and the day before its first occurrence began it is valid nowhere.
    before = T.day_before_first(lvc)
    found = _search(address_api, key, "geldigOp", before.isoformat())
    E.excludes(E.object_ids(found), object_id, f"the object not yet valid on {before} (geldigOp={before}, {key[0]})")


@pytest.mark.parametrize("kind", T.QUERY_KINDS)
@check("address.adresseerbareobjecten.beschikbaar_op", MUST, "beschikbaarOp on each query kind finds the object as registered then, and not before its first registration",
       requirements=["ADDR-1.time-travel", "ADDR-4.beschikbaarOp"],
       proven_by=["address.collection_ignores_beschikbaar_op", "address.time_travel_ignored"],
       may_fail_under=["address.identifiers_malformed", "address.time_travel_forbidden", "address.object_wrapper_ambiguous"],
       feature="GET /adresseerbareobjecten")
def test_beschikbaar_op(address_api, kind: str) -> None:
    object_id, what, lvc = _history(address_api)
    key = T.search_key(lvc, kind, what)
    current = T.latest_by_registration(lvc, what)
    moment = T.moment_before(current)
    require(any((m := E.parse_moment(E.voorkomen(i).get("tijdstipRegistratie"))) is not None
                and m.replace(tzinfo=None) <= moment for i in lvc),
            f"an occurrence of {what} registered before its latest one", f"{len(lvc)} occurrences in /lvc")
    # Just before the latest registration the object is available in the occurrence registered then ...
    value = moment.isoformat(timespec="milliseconds")
    then = T.found_item(_search(address_api, key, "beschikbaarOp", value), object_id,
                        f"the object available at {value} (beschikbaarOp, {key[0]})")
    E.registered_before(then, current, moment)
    # ... and just before its first registration it is available nowhere.
    first = T.moment_before_first(lvc)
    found = _search(address_api, key, "beschikbaarOp", first)
    E.excludes(E.object_ids(found), object_id, f"the object not yet registered at {first} (beschikbaarOp, {key[0]})")
