"""Time travel and huidig on the searches of GET /adresseerbareobjecten (seed parts 1, 4).

The collection takes huidig, geldigOp and beschikbaarOp like /{id} does; each of its three
query kinds (nummeraanduidingIdentificatie, bbox, pandIdentificaties) must apply them. A
check finds one object by each kind, so the search key must find that object whatever
occurrence the server picks: the main address and buildings every occurrence of its valid
life cycle shares, the box around all their geometries.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from conformance.checks.address import endpoints as E
from conformance.errors import NotJudged
from conformance.findings import Blocked, Finding
from conformance.http.exchange import Exchange

QUERY_KINDS = ("nummeraanduidingIdentificatie", "bbox", "pandIdentificaties")
# A box this much wider than the geometries (metres) holds them for any reading of the 0.5 mm
# tolerance, and is still far below the 250000 m2 limit for any building-sized object.
BOX_MARGIN_M = 1.0
MAX_BOX_AREA = 250_000.0


def occurrences(ex: Exchange, what: str) -> list[dict[str, Any]]:
    """The valid life cycle (/lvc) as the server renders it; unreadable: the check is blocked."""
    try:
        found = E.items(ex, "voorkomens")
        for item in found:
            E.voorkomen(item)
    except Finding as finding:
        raise Blocked(f"the life cycle of {what}", f"{ex.summary()}: {finding.message}") from None
    if not found:
        raise Blocked(f"the life cycle of {what}", f"{ex.summary()}: no occurrences")
    return found


def _day(item: dict[str, Any], member: str) -> date | None:
    return E.parse_day(E.voorkomen(item).get(member))


def _moment(item: dict[str, Any]) -> datetime | None:
    return E.parse_moment(E.voorkomen(item).get("tijdstipRegistratie"))


def latest_by_validity(found: list[dict[str, Any]], what: str) -> dict[str, Any]:
    dated = [(d, i) for i in found if (d := _day(i, "beginGeldigheid")) is not None]
    if not dated:
        raise Blocked(f"the life cycle of {what}", "no occurrence with a readable beginGeldigheid")
    return max(dated, key=lambda pair: pair[0])[1]


def latest_by_registration(found: list[dict[str, Any]], what: str) -> dict[str, Any]:
    dated = [(m.replace(tzinfo=None), i) for i in found if (m := _moment(i)) is not None]
    if not dated:
        raise Blocked(f"the life cycle of {what}", "no occurrence with a readable tijdstipRegistratie")
    return max(dated, key=lambda pair: pair[0])[1]


def day_before_first(found: list[dict[str, Any]]) -> date:
    """The day before the object's first beginGeldigheid: on it the object was valid nowhere."""
    return min(d for i in found if (d := _day(i, "beginGeldigheid")) is not None) - timedelta(days=1)


def moment_before_first(found: list[dict[str, Any]]) -> str:
    """beschikbaarOp 1 ms before the object's first registration: then it was in no register."""
    first = min(m.replace(tzinfo=None) for i in found if (m := _moment(i)) is not None)
    return (first - timedelta(milliseconds=1)).isoformat(timespec="milliseconds")


def moment_before(item: dict[str, Any]) -> datetime:
    moment = _moment(item)
    assert moment is not None
    return moment.replace(tzinfo=None) - timedelta(milliseconds=1)


# What the sample's data lacks is material, not the server's failure: the check is not judged.
_SAMPLE_HOW = ("name as that sample an object whose valid occurrences share one main address and one building, each "
               "with coordinates, all within 250000 m2 (services.address.samples.adresseerbaarobject_historie or "
               "adresseerbaarobject_eindstatus): `conformance discover --all` prefers such objects and lists the sample "
               "properties still lacking")


def search_key(found: list[dict[str, Any]], kind: str, what: str) -> tuple[str, str]:
    """The query parameter of `kind` that finds the object in each of the occurrences given;
    not judged when the sample's own data holds none (a fact of the data, not of the server)."""
    if kind == "nummeraanduidingIdentificatie":
        mains = {E.main_address(i) for i in found}
        if len(mains) != 1 or None in mains:
            raise NotJudged(f"no main address of {what} in every occurrence (main addresses {sorted(map(str, mains))})",
                            _SAMPLE_HOW)
        main = mains.pop()
        assert main is not None
        return kind, main
    if kind == "pandIdentificaties":
        shared = set.intersection(*(set(E.buildings(i)) for i in found))
        if not shared:
            raise NotJudged(f"no building (maaktDeelUitVan) of {what} in every occurrence", _SAMPLE_HOW)
        return kind, sorted(shared)[0]
    envelopes = [e for i in found if (e := E.envelope(E.object_data(i).get("geometrie"))) is not None]
    if len(envelopes) < len(found):
        raise NotJudged(f"an occurrence of {what} without coordinates", _SAMPLE_HOW)
    m = BOX_MARGIN_M
    box = (round(min(e[0] for e in envelopes) - m, 3), round(min(e[1] for e in envelopes) - m, 3),
           round(max(e[2] for e in envelopes) + m, 3), round(max(e[3] for e in envelopes) + m, 3))
    if (box[2] - box[0]) * (box[3] - box[1]) > MAX_BOX_AREA:
        raise NotJudged(f"no bbox of at most 250000 m2 around every occurrence of {what} ({E.format_bbox(box)})",
                        _SAMPLE_HOW)
    return "bbox", E.format_bbox(box)


def found_item(found: list[dict[str, Any]], object_id: str, what: str) -> dict[str, Any]:
    """The object among the search results, else a Finding that it is missing."""
    E.includes(E.object_ids(found), object_id, what)
    return next(i for i in found if E.object_id(i) == object_id)
