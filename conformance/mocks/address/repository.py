"""Read-only query layer over the address mock's SQLite register (see data.py).

Every method returns plain dicts in the API's field names (bag-api.md section 3) without
`_links`, `_embedded` or paging: the HTTP layer adds those. Keys starting with `_` are
internal hints for the HTTP layer and must not reach a response. Optional fields that
have no value are left out, never written as null.

Matching rules the HTTP layer relies on (docs/design.md, "The address mock"):

* addresses are current: an address is hidden when its nummeraanduiding, openbare
  ruimte, woonplaats or addressable object has an end status, unless
  `inclusief_eind_status`; a query by `pand_id` also hides the addresses of that building
  when it has an end status, and extended addresses hide addresses whose building has one
  (bag-api.md 4.4, 4.5);
* exacteMatch (4.6) applies to the queries with a house number: without it a letter or
  addition the caller left out matches anything; with it the letter and addition must
  equal what was given, absent meaning empty. Both compare case-insensitively;
* free text `q` (4.10): terms split on commas and spaces; each term must match the
  address. Text (street, short name, woonplaats) matches on any part; postcodes on the
  whole postcode, its digits, its letters, or a prefix of at least four characters;
  house number, letter and addition match whole (also written together: `12a`, `12-1`).
  Whole matching keeps a term like `1` from matching every postcode that contains a 1;
* time travel (4.7): `geldig_op` picks the occurrence valid on that date, `beschikbaar_op`
  what was registered at that moment, both together what was known at that moment to be
  valid on that date; occurrences removed from the valid life cycle never come back;
* bbox (4.8): closed intervals on the geometry's bounding box, widened by 0.5 mm.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from conformance.mocks.address.data import (
    END_STATUSES,
    VERBLIJFSOBJECT,
    fold,
    format_timestamp,
)

# A box at most this far outside a geometry still matches it (bag-api.md 4.8: 0.5 mm);
# the tiny extra absorbs floating-point error at exactly 0.5 mm.
BBOX_TOLERANCE = 0.0005 + 1e-7


@dataclass(frozen=True)
class AddressQuery:
    postcode: str | None = None  # normalised by the caller: upper case, no space
    huisnummer: int | None = None
    huisletter: str | None = None
    huisnummertoevoeging: str | None = None
    exacte_match: bool = False
    adresseerbaar_object_id: str | None = None
    woonplaats_naam: str | None = None  # case-insensitive
    openbare_ruimte_naam: str | None = None  # case-insensitive
    pand_id: str | None = None
    q: str | None = None  # free text, see the module docstring
    openbare_ruimte_id: str | None = None
    nummeraanduiding_id: str | None = None  # used for zoekresultaatIdentificatie
    inclusief_eind_status: bool = False


@dataclass(frozen=True)
class ObjectQuery:
    nummeraanduiding_id: str | None = None
    bbox: tuple[float, float, float, float] | None = None  # (minx, miny, maxx, maxy)
    geconstateerd: bool | None = None
    oppervlakte_min: int | None = None
    oppervlakte_max: int | None = None
    gebruiksdoelen: tuple[str, ...] = ()
    type: str | None = None  # "verblijfsobject" | "ligplaats" | "standplaats"
    pand_ids: tuple[str, ...] = ()
    huidig: bool = False
    geldig_op: date | None = None
    beschikbaar_op: datetime | None = None


# --------------------------------------------------------------------------------------
# SQL
# --------------------------------------------------------------------------------------

# One row per address whose addressable object's latest occurrence carries it.
_ADDRESS_SQL = """
SELECT * FROM (
    SELECT na.identificatie AS na_id, na.huisnummer, na.huisletter,
           na.huisnummertoevoeging AS toevoeging, na.postcode, na.zoek_identificatie,
           na.geconstateerd AS na_geconstateerd,
           o.identificatie AS or_id, o.naam AS or_naam, o.naam_lc AS or_naam_lc,
           o.korte_naam, o.geconstateerd AS or_geconstateerd,
           w.identificatie AS wp_id, w.naam AS wp_naam, w.naam_lc AS wp_naam_lc,
           w.geconstateerd AS wp_geconstateerd,
           v.rid, v.identificatie AS ao_id, v.type AS ao_type, aa.nevenadres,
           (na.status IN eindstatus OR o.status IN eindstatus OR w.status IN eindstatus
            OR v.status IN eindstatus) AS eind,
           EXISTS (SELECT 1 FROM ao_pand ap JOIN pand p ON p.identificatie = ap.pand
                   WHERE ap.rid = v.rid AND p.status IN eindstatus) AS pand_eind
    FROM nummeraanduiding na
    JOIN openbare_ruimte o ON o.identificatie = na.openbare_ruimte
    JOIN woonplaats w ON w.identificatie = o.woonplaats
    JOIN ao_adres aa ON aa.nummeraanduiding = na.identificatie
    JOIN ao_voorkomen v ON v.rid = aa.rid AND v.laatste = 1
) AS adres
"""
_ADDRESS_ORDER = (
    " ORDER BY wp_naam, or_naam, huisnummer, coalesce(huisletter, ''), coalesce(toevoeging, ''), na_id"
)

_OBJECT_ID = re.compile(r"[0-9]{4}(01|02|03|10|20|30)[0-9]{10}")
_WOONPLAATS_ID = re.compile(r"[0-9]{4}")
_TABLE_BY_CODE = {
    "01": "ao_voorkomen",
    "02": "ao_voorkomen",
    "03": "ao_voorkomen",
    "10": "pand",
    "20": "nummeraanduiding",
    "30": "openbare_ruimte",
}
_TERM_SEPARATORS = re.compile(r"[,\s]+")


def _in(values: Sequence[Any]) -> str:
    return "(" + ", ".join("?" * len(values)) + ")"


# --------------------------------------------------------------------------------------
# Field builders
# --------------------------------------------------------------------------------------


def adresregel5(korte_naam: str, huisnummer: int, huisletter: str | None, toevoeging: str | None) -> str:
    """NEN 5825 line 5: short name, number, then letter+addition after `-` or a space (3.2)."""
    line = f"{korte_naam} {huisnummer}"
    suffix = f"{huisletter or ''}{toevoeging or ''}"
    if suffix:
        line += ("-" if suffix[0].isdigit() else " ") + suffix
    return line


def adresregel6(postcode: str | None, woonplaats: str) -> str:
    """NEN 5825 line 6: `1234 AB`, two spaces, the woonplaats in upper case (3.2)."""
    if not postcode:
        return woonplaats.upper()
    return f"{postcode[:4]} {postcode[4:]}  {woonplaats.upper()}"


def _voorkomen(row: sqlite3.Row) -> dict[str, Any]:
    result: dict[str, Any] = {
        "tijdstipRegistratie": row["tijdstip_registratie"],
        "versie": row["versie"],
        "beginGeldigheid": row["begin_geldigheid"],
        "tijdstipRegistratieLV": row["tijdstip_registratie_lv"],
    }
    optional = (
        ("eindRegistratie", "eind_registratie"),
        ("eindGeldigheid", "eind_geldigheid"),
        ("tijdstipInactief", "tijdstip_inactief"),
        ("tijdstipEindRegistratieLV", "tijdstip_eind_registratie_lv"),
        ("tijdstipInactiefLV", "tijdstip_inactief_lv"),
    )
    result.update({key: row[column] for key, column in optional if row[column] is not None})
    return result


def _admin(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "status": row["status"],
        "geconstateerd": row["geconstateerd"],
        "documentdatum": row["documentdatum"],
        "documentnummer": row["documentnummer"],
    }


def _address_dict(row: sqlite3.Row, panden: list[str]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "openbareRuimteNaam": row["or_naam"],
        "korteNaam": row["korte_naam"],
        "huisnummer": row["huisnummer"],
    }
    if row["huisletter"]:
        result["huisletter"] = row["huisletter"]
    if row["toevoeging"]:
        result["huisnummertoevoeging"] = row["toevoeging"]
    if row["postcode"]:
        result["postcode"] = row["postcode"]
    result.update(
        {
            "woonplaatsNaam": row["wp_naam"],
            "nummeraanduidingIdentificatie": row["na_id"],
            "openbareRuimteIdentificatie": row["or_id"],
            "woonplaatsIdentificatie": row["wp_id"],
            "adresseerbaarObjectIdentificatie": row["ao_id"],
        }
    )
    if panden:
        result["pandIdentificaties"] = panden
    if row["nevenadres"]:
        result["indicatieNevenadres"] = True
    result["adresregel5"] = adresregel5(
        row["korte_naam"], row["huisnummer"], row["huisletter"], row["toevoeging"]
    )
    result["adresregel6"] = adresregel6(row["postcode"], row["wp_naam"])
    geconstateerd = {
        key: True
        for key, column in (
            ("woonplaats", "wp_geconstateerd"),
            ("openbareRuimte", "or_geconstateerd"),
            ("nummeraanduiding", "na_geconstateerd"),
        )
        if row[column] == "J"
    }
    if geconstateerd:
        result["geconstateerd"] = geconstateerd
    result["_adresseerbaarObjectType"] = row["ao_type"]
    return result


# --------------------------------------------------------------------------------------
# Matching helpers
# --------------------------------------------------------------------------------------


def _terms(text: str) -> list[str]:
    return [fold(term) for term in _TERM_SEPARATORS.split(text) if term]


def _term_matches(term: str, row: sqlite3.Row) -> bool:
    postcode = fold(row["postcode"] or "")
    if postcode and (
        term in (postcode, postcode[:4], postcode[4:]) or (len(term) >= 4 and postcode.startswith(term))
    ):
        return True
    if term in row["wp_naam_lc"] or term in row["or_naam_lc"] or term in fold(row["korte_naam"]):
        return True
    number = str(row["huisnummer"])
    letter = fold(row["huisletter"] or "")
    addition = fold(row["toevoeging"] or "")
    whole = {number, letter, addition, letter + addition, number + letter, number + letter + addition}
    if addition:
        whole.add(f"{number}-{letter}{addition}")
        whole.add(f"{number}{letter}-{addition}")
    return term in whole - {""}


def _matches_free_text(terms: list[str], row: sqlite3.Row) -> bool:
    return bool(terms) and all(_term_matches(term, row) for term in terms)


def _select_occurrence(
    occurrences: Sequence[sqlite3.Row], geldig_op: date | None, beschikbaar_op: datetime | None
) -> sqlite3.Row | None:
    """The occurrence time travel selects; removed occurrences never qualify (4.7)."""
    active = [o for o in occurrences if not o["verwijderd"]]
    if geldig_op is None and beschikbaar_op is None:
        latest = [o for o in active if o["laatste"]]
        return latest[0] if latest else None
    moment = _moment_text(beschikbaar_op) if beschikbaar_op is not None else None
    day = geldig_op.isoformat() if geldig_op is not None else None
    candidates = []
    for occurrence in active:
        if moment is not None and occurrence["tijdstip_registratie"] > moment:
            continue  # not yet registered at that moment
        end = occurrence["eind_geldigheid"]
        ended_at = occurrence["eind_registratie"]
        if moment is not None and ended_at is not None and ended_at > moment:
            end = None  # its end was not yet known at that moment
        if day is None:
            if end is not None:
                continue  # not the open occurrence at that moment
        elif occurrence["begin_geldigheid"] > day or (end is not None and day >= end):
            continue
        candidates.append(occurrence)
    return max(candidates, key=lambda o: o["tijdstip_registratie"]) if candidates else None


def _moment_text(moment: datetime) -> str:
    # Register times are local times without offset; an aware value is taken at face value.
    return format_timestamp(moment.replace(tzinfo=None))


def _is_current(occurrence: sqlite3.Row) -> bool:
    return occurrence["status"] not in END_STATUSES and occurrence["eind_geldigheid"] is None


def _widened(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = box
    return (
        min(x1, x2) - BBOX_TOLERANCE,
        min(y1, y2) - BBOX_TOLERANCE,
        max(x1, x2) + BBOX_TOLERANCE,
        max(y1, y2) + BBOX_TOLERANCE,
    )


def _overlaps(occurrence: sqlite3.Row, box: tuple[float, float, float, float]) -> bool:
    minx, miny, maxx, maxy = box
    return (
        occurrence["maxx"] >= minx
        and occurrence["minx"] <= maxx
        and occurrence["maxy"] >= miny
        and occurrence["miny"] <= maxy
    )


@dataclass(frozen=True)
class _Links:
    """The addresses, buildings and purposes of a set of occurrences, by rid."""

    hoofdadres: dict[int, str]
    nevenadressen: dict[int, list[str]]
    panden: dict[int, list[str]]
    gebruiksdoelen: dict[int, list[str]]


# --------------------------------------------------------------------------------------
# The repository
# --------------------------------------------------------------------------------------


class Repository:
    """Queries over one database file, opened read-only; safe to share between threads."""

    def __init__(self, db_path: Path) -> None:
        path = Path(db_path)
        if not path.is_file():
            raise FileNotFoundError(f"address mock database not found: {path}")
        self._conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        # One connection, one statement at a time: sqlite3 cursors are not thread-safe,
        # and the queries take milliseconds, so a lock costs nothing that matters.
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def _row(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    # addresses -----------------------------------------------------------------------

    def _address_rows(self, q: AddressQuery, *, extended: bool) -> list[sqlite3.Row]:
        clauses: list[str] = []
        params: list[Any] = []

        def where(clause: str, *values: Any) -> None:
            clauses.append(clause)
            params.extend(values)

        if q.postcode is not None:
            where("postcode = ?", q.postcode.replace(" ", "").upper())
        if q.huisnummer is not None:
            where("huisnummer = ?", q.huisnummer)
        letter, addition = q.huisletter or None, q.huisnummertoevoeging or None
        if q.exacte_match and q.huisnummer is not None:
            where("lower(coalesce(huisletter, '')) = lower(?)", letter or "")
            where("lower(coalesce(toevoeging, '')) = lower(?)", addition or "")
        else:
            if letter is not None:
                where("lower(huisletter) = lower(?)", letter)
            if addition is not None:
                where("lower(toevoeging) = lower(?)", addition)
        if q.adresseerbaar_object_id is not None:
            where("ao_id = ?", q.adresseerbaar_object_id)
        if q.woonplaats_naam is not None:
            where("wp_naam_lc = ?", fold(q.woonplaats_naam))
        if q.openbare_ruimte_naam is not None:
            where("or_naam_lc = ?", fold(q.openbare_ruimte_naam))
        if q.openbare_ruimte_id is not None:
            where("or_id = ?", q.openbare_ruimte_id)
        if q.nummeraanduiding_id is not None:
            where("na_id = ?", q.nummeraanduiding_id)
        if q.pand_id is not None:
            where("rid IN (SELECT rid FROM ao_pand WHERE pand = ?)", q.pand_id)
            if not q.inclusief_eind_status:
                where(
                    "NOT EXISTS (SELECT 1 FROM pand WHERE identificatie = ? AND status IN eindstatus)",
                    q.pand_id,
                )
        if not q.inclusief_eind_status:
            where("NOT eind")
            if extended:
                where("NOT pand_eind")
        sql = _ADDRESS_SQL + (" WHERE " + " AND ".join(clauses) if clauses else "") + _ADDRESS_ORDER
        rows = self._rows(sql, params)
        if q.q is not None:
            terms = _terms(q.q)
            rows = [row for row in rows if _matches_free_text(terms, row)]
        return rows

    def find_addresses(self, q: AddressQuery) -> list[dict[str, Any]]:
        rows = self._address_rows(q, extended=False)
        links = self._links([row["rid"] for row in rows])
        return [_address_dict(row, links.panden.get(row["rid"], [])) for row in rows]

    def get_address(
        self, nummeraanduiding_id: str, *, inclusief_eind_status: bool = False
    ) -> dict[str, Any] | None:
        found = self.find_addresses(
            AddressQuery(nummeraanduiding_id=nummeraanduiding_id, inclusief_eind_status=inclusief_eind_status)
        )
        return found[0] if found else None

    def find_extended_addresses(self, q: AddressQuery) -> list[dict[str, Any]]:
        rows = self._address_rows(q, extended=True)
        rids = [row["rid"] for row in rows]
        links = self._links(rids)
        occurrences = {o["rid"]: o for o in self._occurrences_by_rid(rids)}
        buildings = self._buildings({p for rid in rids for p in links.panden.get(rid, [])})
        return [self._extended_dict(row, occurrences[row["rid"]], links, buildings) for row in rows]

    def get_extended_address(
        self, nummeraanduiding_id: str, *, inclusief_eind_status: bool = False
    ) -> dict[str, Any] | None:
        found = self.find_extended_addresses(
            AddressQuery(nummeraanduiding_id=nummeraanduiding_id, inclusief_eind_status=inclusief_eind_status)
        )
        return found[0] if found else None

    @staticmethod
    def _extended_dict(
        row: sqlite3.Row, occurrence: sqlite3.Row, links: _Links, buildings: dict[str, sqlite3.Row]
    ) -> dict[str, Any]:
        rid = row["rid"]
        panden = links.panden.get(rid, [])
        result = _address_dict(row, panden)
        internal = result.pop("_adresseerbaarObjectType")
        geometry = json.loads(occurrence["geometrie"])
        if row["ao_type"] != VERBLIJFSOBJECT:
            geometry = {"vlak": geometry}  # PuntOfVlak: berths and pitches are areas
        result["typeAdresseerbaarObject"] = row["ao_type"].capitalize()
        result["adresseerbaarObjectGeometrie"] = geometry
        result["adresseerbaarObjectStatus"] = occurrence["status"]
        if row["ao_type"] == VERBLIJFSOBJECT:
            result["gebruiksdoelen"] = links.gebruiksdoelen.get(rid, [])
            result["oppervlakte"] = occurrence["oppervlakte"]
        if panden:
            result["oorspronkelijkBouwjaar"] = [str(buildings[p]["oorspronkelijk_bouwjaar"]) for p in panden]
        geconstateerd = dict(result.pop("geconstateerd", {}))
        if occurrence["geconstateerd"] == "J":
            geconstateerd[row["ao_type"]] = True
        if any(buildings[p]["geconstateerd"] == "J" for p in panden):
            geconstateerd["pand"] = True
        if geconstateerd:
            result["geconstateerd"] = geconstateerd
        result["_adresseerbaarObjectType"] = internal
        return result

    def zoek(self, term: str) -> list[dict[str, Any]]:
        """Lightweight results of the deprecated /adressen/zoek, matched like `q`."""
        results = []
        for row in self._address_rows(AddressQuery(q=term), extended=False):
            number = f"{row['huisnummer']}{row['huisletter'] or ''}"
            if row["toevoeging"]:
                number += f"-{row['toevoeging']}"
            place = f"{row['postcode']} {row['wp_naam']}" if row["postcode"] else row["wp_naam"]
            results.append(
                {
                    "identificatie": row["zoek_identificatie"],
                    "omschrijving": f"{row['or_naam']} {number}, {place}",
                    "nummeraanduidingIdentificatie": row["na_id"],
                }
            )
        return results

    def zoekresultaat(self, identificatie: str) -> str | None:
        row = self._row(
            "SELECT identificatie FROM nummeraanduiding WHERE zoek_identificatie = ?", (identificatie,)
        )
        return row["identificatie"] if row else None

    # addressable objects -------------------------------------------------------------

    def get_adresseerbaar_object(
        self,
        object_id: str,
        *,
        huidig: bool = False,
        geldig_op: date | None = None,
        beschikbaar_op: datetime | None = None,
    ) -> dict[str, Any] | None:
        occurrences = self._rows(
            "SELECT * FROM ao_voorkomen WHERE identificatie = ? ORDER BY versie", (object_id,)
        )
        chosen = _select_occurrence(occurrences, geldig_op, beschikbaar_op)
        if chosen is None or (huidig and not _is_current(chosen)):
            return None
        return self._object_dicts([chosen])[0]

    def find_adresseerbare_objecten(self, q: ObjectQuery) -> list[dict[str, Any]]:
        """Matching objects by identificatie, each in the occurrence time travel selects."""
        ids = self._candidate_ids(q)
        if ids is not None and not ids:
            return []
        latest_only = q.geldig_op is None and q.beschikbaar_op is None
        sql = "SELECT * FROM ao_voorkomen WHERE verwijderd = 0"
        params: list[Any] = []
        if latest_only:
            sql += " AND laatste = 1"
        if ids is not None:
            sql += f" AND identificatie IN {_in(ids)}"
            params.extend(ids)
        by_object: dict[str, list[sqlite3.Row]] = {}
        for row in self._rows(sql + " ORDER BY identificatie, versie", params):
            by_object.setdefault(row["identificatie"], []).append(row)
        chosen = [
            occurrence
            for occurrences in by_object.values()
            if (occurrence := _select_occurrence(occurrences, q.geldig_op, q.beschikbaar_op)) is not None
        ]
        links = self._links([o["rid"] for o in chosen])
        return self._object_dicts([o for o in chosen if self._object_matches(o, q, links)], links)

    def _candidate_ids(self, q: ObjectQuery) -> list[str] | None:
        """Objects any occurrence of which meets the search key; None when there is no key."""
        found: list[set[str]] = []
        if q.nummeraanduiding_id is not None:
            found.append(
                self._ids(
                    "SELECT v.identificatie FROM ao_adres a JOIN ao_voorkomen v ON v.rid = a.rid"
                    " WHERE a.nummeraanduiding = ?",
                    (q.nummeraanduiding_id,),
                )
            )
        if q.bbox is not None:
            minx, miny, maxx, maxy = _widened(q.bbox)
            found.append(
                self._ids(
                    "SELECT identificatie FROM ao_voorkomen WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ?",
                    (minx, maxx, miny, maxy),
                )
            )
        if q.pand_ids:
            found.append(
                self._ids(
                    "SELECT v.identificatie FROM ao_pand p JOIN ao_voorkomen v ON v.rid = p.rid"
                    f" WHERE p.pand IN {_in(q.pand_ids)}",
                    q.pand_ids,
                )
            )
        if not found:
            return None
        return sorted(set.intersection(*found))

    def _ids(self, sql: str, params: Sequence[Any]) -> set[str]:
        return {row[0] for row in self._rows(sql, params)}

    @staticmethod
    def _object_matches(occurrence: sqlite3.Row, q: ObjectQuery, links: _Links) -> bool:
        rid = occurrence["rid"]
        checks = (
            q.type is None or occurrence["type"] == q.type.lower(),
            q.geconstateerd is None or occurrence["geconstateerd"] == ("J" if q.geconstateerd else "N"),
            _area_matches(occurrence["oppervlakte"], q.oppervlakte_min, q.oppervlakte_max),
            not q.gebruiksdoelen or bool(set(q.gebruiksdoelen) & set(links.gebruiksdoelen.get(rid, []))),
            not q.huidig or _is_current(occurrence),
            q.bbox is None or _overlaps(occurrence, _widened(q.bbox)),
            q.nummeraanduiding_id is None
            or q.nummeraanduiding_id == links.hoofdadres.get(rid)
            or q.nummeraanduiding_id in links.nevenadressen.get(rid, []),
            not q.pand_ids or bool(set(q.pand_ids) & set(links.panden.get(rid, []))),
        )
        return all(checks)

    def lifecycle(self, object_id: str, *, gehele_lvc: bool) -> list[dict[str, Any]] | None:
        """Occurrences oldest first; removed ones (marked `_verwijderd`) only with gehele_lvc."""
        occurrences = self._rows(
            "SELECT * FROM ao_voorkomen WHERE identificatie = ? ORDER BY versie", (object_id,)
        )
        if not occurrences:
            return None
        return self._object_dicts([o for o in occurrences if gehele_lvc or not o["verwijderd"]])

    def _object_dicts(
        self, occurrences: list[sqlite3.Row], links: _Links | None = None
    ) -> list[dict[str, Any]]:
        links = links or self._links([o["rid"] for o in occurrences])
        return [self._object_dict(o, links) for o in occurrences]

    @staticmethod
    def _object_dict(occurrence: sqlite3.Row, links: _Links) -> dict[str, Any]:
        rid = occurrence["rid"]
        type_ = occurrence["type"]
        result: dict[str, Any] = {
            "type": type_.capitalize(),
            "identificatie": occurrence["identificatie"],
            "domein": f"NL.IMBAG.{type_.capitalize()}",
            "heeftAlsHoofdAdres": links.hoofdadres[rid],
        }
        if links.nevenadressen.get(rid):
            result["heeftAlsNevenAdres"] = links.nevenadressen[rid]
        result["geometrie"] = json.loads(occurrence["geometrie"])
        if type_ == VERBLIJFSOBJECT:
            result["gebruiksdoelen"] = links.gebruiksdoelen.get(rid, [])
            result["oppervlakte"] = occurrence["oppervlakte"]
        result.update(_admin(occurrence))
        if type_ == VERBLIJFSOBJECT:
            result["maaktDeelUitVan"] = links.panden.get(rid, [])
        result["voorkomen"] = _voorkomen(occurrence)
        if occurrence["verwijderd"]:
            result["_verwijderd"] = True
        return result

    def _links(self, rids: Iterable[int]) -> _Links:
        rids = sorted(set(rids))
        links = _Links({}, {}, {}, {})
        if not rids:
            return links
        # Chunks stay far below SQLite's limit on bound parameters.
        for start in range(0, len(rids), 5000):
            chunk = rids[start : start + 5000]
            marks = _in(chunk)
            for row in self._rows(
                f"SELECT rid, nummeraanduiding, nevenadres FROM ao_adres WHERE rid IN {marks}"
                " ORDER BY rid, volgorde",
                chunk,
            ):
                if row["nevenadres"]:
                    links.nevenadressen.setdefault(row["rid"], []).append(row["nummeraanduiding"])
                else:
                    links.hoofdadres[row["rid"]] = row["nummeraanduiding"]
            for row in self._rows(
                f"SELECT rid, pand FROM ao_pand WHERE rid IN {marks} ORDER BY rid, volgorde", chunk
            ):
                links.panden.setdefault(row["rid"], []).append(row["pand"])
            for row in self._rows(
                f"SELECT rid, gebruiksdoel FROM ao_gebruiksdoel WHERE rid IN {marks} ORDER BY rid, volgorde",
                chunk,
            ):
                links.gebruiksdoelen.setdefault(row["rid"], []).append(row["gebruiksdoel"])
        return links

    def _occurrences_by_rid(self, rids: Sequence[int]) -> list[sqlite3.Row]:
        unique = sorted(set(rids))
        rows: list[sqlite3.Row] = []
        for start in range(0, len(unique), 5000):
            chunk = unique[start : start + 5000]
            rows.extend(self._rows(f"SELECT * FROM ao_voorkomen WHERE rid IN {_in(chunk)}", chunk))
        return rows

    def _buildings(self, ids: set[str]) -> dict[str, sqlite3.Row]:
        unique = sorted(ids)
        found: dict[str, sqlite3.Row] = {}
        for start in range(0, len(unique), 5000):
            chunk = unique[start : start + 5000]
            for row in self._rows(f"SELECT * FROM pand WHERE identificatie IN {_in(chunk)}", chunk):
                found[row["identificatie"]] = row
        return found

    # related objects -----------------------------------------------------------------

    def get_nummeraanduiding(self, ident: str) -> dict[str, Any] | None:
        row = self._row("SELECT * FROM nummeraanduiding WHERE identificatie = ?", (ident,))
        if row is None:
            return None
        result: dict[str, Any] = {
            "identificatie": row["identificatie"],
            "domein": "NL.IMBAG.Nummeraanduiding",
            "huisnummer": row["huisnummer"],
        }
        if row["huisletter"]:
            result["huisletter"] = row["huisletter"]
        if row["huisnummertoevoeging"]:
            result["huisnummertoevoeging"] = row["huisnummertoevoeging"]
        if row["postcode"]:
            result["postcode"] = row["postcode"]
        result["typeAdresseerbaarObject"] = row["type_adresseerbaar_object"]
        result.update(_admin(row))
        result["ligtAan"] = row["openbare_ruimte"]
        result["voorkomen"] = _voorkomen(row)
        return result

    def get_openbare_ruimte(self, ident: str) -> dict[str, Any] | None:
        row = self._row("SELECT * FROM openbare_ruimte WHERE identificatie = ?", (ident,))
        if row is None:
            return None
        return {
            "identificatie": row["identificatie"],
            "domein": "NL.IMBAG.Openbareruimte",
            "naam": row["naam"],
            "type": row["type"],
            **_admin(row),
            "ligtIn": row["woonplaats"],
            "voorkomen": _voorkomen(row),
        }

    def get_woonplaats(self, ident: str) -> dict[str, Any] | None:
        row = self._row("SELECT * FROM woonplaats WHERE identificatie = ?", (ident,))
        if row is None:
            return None
        return {
            "identificatie": row["identificatie"],
            "domein": "NL.IMBAG.Woonplaats",
            "naam": row["naam"],
            **_admin(row),
            "voorkomen": _voorkomen(row),
        }

    def get_pand(self, ident: str) -> dict[str, Any] | None:
        row = self._row("SELECT * FROM pand WHERE identificatie = ?", (ident,))
        if row is None:
            return None
        return {
            "identificatie": row["identificatie"],
            "domein": "NL.IMBAG.Pand",
            "geometrie": json.loads(row["geometrie"]),
            "oorspronkelijkBouwjaar": str(row["oorspronkelijk_bouwjaar"]),
            **_admin(row),
            "voorkomen": _voorkomen(row),
        }

    def get_bronhouder(self, object_identificatie: str) -> dict[str, Any] | None:
        """The municipality that holds any object: the id's first 4 digits, or a woonplaats's."""
        code = self._bronhouder_code(object_identificatie)
        if code is None:
            return None
        row = self._row("SELECT * FROM bronhouder WHERE code = ?", (code,))
        if row is None:
            return None
        return {
            "code": row["code"],
            "naam": row["naam"],
            "beginGeldigheid": row["begin_geldigheid"],
            "provincie": {"naam": row["provincie_naam"], "afkorting": row["provincie_afkorting"]},
        }

    def _bronhouder_code(self, ident: str) -> str | None:
        if _WOONPLAATS_ID.fullmatch(ident):
            row = self._row("SELECT gemeente FROM woonplaats WHERE identificatie = ?", (ident,))
            return row["gemeente"] if row else None
        if not _OBJECT_ID.fullmatch(ident):
            return None
        table = _TABLE_BY_CODE[ident[4:6]]
        # The table name comes from a fixed mapping, never from input.
        row = self._row(f"SELECT 1 FROM {table} WHERE identificatie = ? LIMIT 1", (ident,))
        return ident[:4] if row is not None else None


def _area_matches(area: int | None, minimum: int | None, maximum: int | None) -> bool:
    """Berths and pitches have no area, so any area filter excludes them (4.9)."""
    if minimum is None and maximum is None:
        return True
    if area is None:
        return False
    return (minimum is None or area >= minimum) and (maximum is None or area <= maximum)
