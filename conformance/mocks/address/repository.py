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

Every query kind reads an index of the file (data.py, "The search index"): `adres` for
the addresses, `adres_term` and the FTS5 table `adres_tekst` for free text, the R*Tree
`ao_extent` for bbox. The file never changes, so what an answer is built from (an
address, an occurrence of an object, a related object) is built once and kept: the dicts
returned are shared and must not be changed.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
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

# The addresses of data.py's `adres` index, in the order answers list them.
_ADDRESS_KEYS = "SELECT volgorde FROM adres"
_ADDRESS_ORDER = " ORDER BY volgorde"
# Free text: a term matches as a whole (adres_term) or as part of a name; a term of three
# or more characters is found in the trigram index, a shorter one by reading the names.
_TERM_LONG = (
    "volgorde IN (SELECT volgorde FROM adres_term WHERE term = ?"
    " UNION SELECT rowid FROM adres_tekst WHERE adres_tekst MATCH ?)"
)
_TERM_SHORT = (
    "(volgorde IN (SELECT volgorde FROM adres_term WHERE term = ?)"
    " OR instr(wp_naam_lc, ?) OR instr(or_naam_lc, ?) OR instr(korte_naam_lc, ?))"
)
_TRIGRAM = 3
# Up to this many different terms go into the query as above; more (SQLite bounds the depth
# of an expression) are matched one by one and their addresses intersected.
_INLINE_TERMS = 16
_TERM_LONG_KEYS = (
    "SELECT volgorde FROM adres_term WHERE term = ?"
    " UNION SELECT rowid FROM adres_tekst WHERE adres_tekst MATCH ?"
)
_TERM_SHORT_KEYS = (
    "SELECT volgorde FROM adres_term WHERE term = ? UNION SELECT volgorde FROM adres"
    " WHERE instr(wp_naam_lc, ?) OR instr(or_naam_lc, ?) OR instr(korte_naam_lc, ?)"
)
# bbox: the R*Tree finds a superset (32-bit floats rounded outwards), the columns decide.
_BBOX_IDS = (
    "SELECT v.identificatie FROM ao_extent e JOIN ao_voorkomen v ON v.rid = e.id"
    " WHERE e.maxx >= ? AND e.minx <= ? AND e.maxy >= ? AND e.miny <= ?"
    " AND v.maxx >= ? AND v.minx <= ? AND v.maxy >= ? AND v.miny <= ?"
)
_CHUNK = 5000  # bound parameters per statement, far below SQLite's limit

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


def _phrase(term: str) -> str:
    """An FTS5 query for `term` as it is: one string, its double quotes doubled."""
    return '"' + term.replace('"', '""') + '"'


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


@dataclass(frozen=True)
class _RidLinks:
    """The addresses, buildings and purposes of one occurrence."""

    hoofdadres: str | None
    nevenadressen: list[str]
    panden: list[str]
    gebruiksdoelen: list[str]


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
        # and the queries take microseconds, so a lock costs nothing that matters.
        self._lock = threading.Lock()
        # What answers are built from, built on first use and kept (the file never
        # changes; only what exists is kept, so no request can grow these beyond the data).
        self._addresses: dict[int, dict[str, Any]] = {}  # volgorde -> find_addresses item
        self._extended: dict[int, dict[str, Any]] = {}  # volgorde -> find_extended_addresses item
        self._zoek: dict[int, dict[str, Any]] = {}  # volgorde -> zoek item
        self._objects: dict[int, dict[str, Any]] = {}  # rid -> object occurrence
        self._rid_links: dict[int, _RidLinks] = {}
        self._occurrences: dict[str, list[sqlite3.Row]] = {}  # identificatie -> by versie
        self._object_ids: list[str] | None = None  # every object's identificatie, sorted
        self._related: dict[tuple[str, str], dict[str, Any]] = {}  # (kind, id) -> resource
        # na_id -> (volgorde, eind, pand_eind) of its addresses: lookups by id skip SQL.
        self._by_id: dict[str, list[tuple[int, int, int]]] | None = None

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def _row(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    def _chunked_rows(self, sql: str, values: Sequence[Any]) -> list[sqlite3.Row]:
        """`sql` with `{}` for an IN list, run over `values` in chunks."""
        rows: list[sqlite3.Row] = []
        for start in range(0, len(values), _CHUNK):
            chunk = values[start : start + _CHUNK]
            rows.extend(self._rows(sql.format(_in(chunk)), chunk))
        return rows

    # addresses -----------------------------------------------------------------------

    def _address_keys(self, q: AddressQuery, *, extended: bool) -> list[int]:
        """The `volgorde` of every address the query finds, in answer order."""
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
        if q.q is not None:
            terms = list(dict.fromkeys(_terms(q.q)))
            if not terms:
                where("0")  # nothing to match: no address matches
            elif len(terms) <= _INLINE_TERMS:
                for term in terms:
                    if len(term) >= _TRIGRAM:
                        where(_TERM_LONG, term, _phrase(term))
                    else:
                        where(_TERM_SHORT, term, term, term, term)
            else:
                found = self._free_text_keys(terms)
                where("volgorde IN (SELECT value FROM json_each(?))", json.dumps(sorted(found)))
        sql = _ADDRESS_KEYS + (" WHERE " + " AND ".join(clauses) if clauses else "") + _ADDRESS_ORDER
        return [row[0] for row in self._rows(sql, params)]

    def _free_text_keys(self, terms: list[str]) -> set[int]:
        """The addresses every one of `terms` matches (whatever their status)."""
        found: set[int] | None = None
        for term in terms:
            if len(term) >= _TRIGRAM:
                rows = self._rows(_TERM_LONG_KEYS, (term, _phrase(term)))
            else:
                rows = self._rows(_TERM_SHORT_KEYS, (term, term, term, term))
            keys = {row[0] for row in rows}
            found = keys if found is None else found & keys
            if not found:
                break
        return found or set()

    def _address_rows(self, keys: Sequence[int]) -> list[sqlite3.Row]:
        return self._chunked_rows("SELECT * FROM adres WHERE volgorde IN {}", keys)

    def _keys_by_id(self, nummeraanduiding_id: str, *, with_end_status: bool, extended: bool) -> list[int]:
        """`_address_keys` of a query by nummeraanduiding_id alone, from an index in memory."""
        index = self._by_id
        if index is None:
            index = {}
            for row in self._rows("SELECT na_id, volgorde, eind, pand_eind FROM adres ORDER BY volgorde"):
                index.setdefault(row[0], []).append((row[1], row[2], row[3]))
            self._by_id = index
        return [
            volgorde
            for volgorde, eind, pand_eind in index.get(nummeraanduiding_id, ())
            if with_end_status or not (eind or (extended and pand_eind))
        ]

    def find_addresses(self, q: AddressQuery) -> list[dict[str, Any]]:
        return self._address_items(self._address_keys(q, extended=False))

    def _address_items(self, keys: list[int]) -> list[dict[str, Any]]:
        cache = self._addresses
        missing = [key for key in keys if key not in cache]
        if missing:
            rows = self._address_rows(missing)
            links = self._links([row["rid"] for row in rows])
            for row in rows:
                cache[row["volgorde"]] = _address_dict(row, links.panden.get(row["rid"], []))
        return [cache[key] for key in keys]

    def get_address(
        self, nummeraanduiding_id: str, *, inclusief_eind_status: bool = False
    ) -> dict[str, Any] | None:
        keys = self._keys_by_id(nummeraanduiding_id, with_end_status=inclusief_eind_status, extended=False)
        found = self._address_items(keys)
        return found[0] if found else None

    def find_extended_addresses(self, q: AddressQuery) -> list[dict[str, Any]]:
        return self._extended_items(self._address_keys(q, extended=True))

    def _extended_items(self, keys: list[int]) -> list[dict[str, Any]]:
        cache = self._extended
        missing = [key for key in keys if key not in cache]
        if missing:
            rows = self._address_rows(missing)
            rids = [row["rid"] for row in rows]
            links = self._links(rids)
            occurrences = {o["rid"]: o for o in self._occurrences_by_rid(rids)}
            buildings = self._buildings({p for rid in rids for p in links.panden.get(rid, [])})
            for row in rows:
                cache[row["volgorde"]] = self._extended_dict(row, occurrences[row["rid"]], links, buildings)
        return [cache[key] for key in keys]

    def get_extended_address(
        self, nummeraanduiding_id: str, *, inclusief_eind_status: bool = False
    ) -> dict[str, Any] | None:
        keys = self._keys_by_id(nummeraanduiding_id, with_end_status=inclusief_eind_status, extended=True)
        found = self._extended_items(keys)
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
        keys = self._address_keys(AddressQuery(q=term), extended=False)
        cache = self._zoek
        missing = [key for key in keys if key not in cache]
        for row in self._address_rows(missing) if missing else ():
            number = f"{row['huisnummer']}{row['huisletter'] or ''}"
            if row["toevoeging"]:
                number += f"-{row['toevoeging']}"
            place = f"{row['postcode']} {row['wp_naam']}" if row["postcode"] else row["wp_naam"]
            cache[row["volgorde"]] = {
                "identificatie": row["zoek_identificatie"],
                "omschrijving": f"{row['or_naam']} {number}, {place}",
                "nummeraanduidingIdentificatie": row["na_id"],
            }
        return [cache[key] for key in keys]

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
        chosen = _select_occurrence(self._occurrences_of(object_id), geldig_op, beschikbaar_op)
        if chosen is None or (huidig and not _is_current(chosen)):
            return None
        return self._object_dicts([chosen])[0]

    def _occurrences_of(self, object_id: str) -> list[sqlite3.Row]:
        """Every occurrence of one object, removed ones included, by versie."""
        found = self._occurrences.get(object_id)
        if found is None:
            found = self._rows(
                "SELECT * FROM ao_voorkomen WHERE identificatie = ? ORDER BY versie", (object_id,)
            )
            if found:
                self._occurrences[object_id] = found
        return found

    def _occurrences_of_all(self, object_ids: Sequence[str]) -> list[list[sqlite3.Row]]:
        """`_occurrences_of` for each of `object_ids` (objects that exist), in one go."""
        cache = self._occurrences
        missing = [i for i in object_ids if i not in cache]
        if missing:
            found: dict[str, list[sqlite3.Row]] = {}
            sql = "SELECT * FROM ao_voorkomen WHERE identificatie IN {} ORDER BY identificatie, versie"
            for row in self._chunked_rows(sql, missing):
                found.setdefault(row["identificatie"], []).append(row)
            cache.update(found)
        return [cache.get(i, []) for i in object_ids]

    def _all_object_ids(self) -> list[str]:
        if self._object_ids is None:
            rows = self._rows("SELECT DISTINCT identificatie FROM ao_voorkomen ORDER BY identificatie")
            self._object_ids = [row[0] for row in rows]
        return self._object_ids

    def find_adresseerbare_objecten(self, q: ObjectQuery) -> list[dict[str, Any]]:
        """Matching objects by identificatie, each in the occurrence time travel selects."""
        ids = self._candidate_ids(q)
        if ids is not None and not ids:
            return []
        latest_only = q.geldig_op is None and q.beschikbaar_op is None
        if ids is None:
            ids = self._all_object_ids()
        by_object: list[list[sqlite3.Row]] = []
        for occurrences in self._occurrences_of_all(ids):
            kept = [o for o in occurrences if not o["verwijderd"] and (o["laatste"] or not latest_only)]
            if kept:
                by_object.append(kept)
        chosen = [
            occurrence
            for occurrences in by_object
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
            found.append(self._ids(_BBOX_IDS, (minx, maxx, miny, maxy) * 2))
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
        occurrences = self._occurrences_of(object_id)
        if not occurrences:
            return None
        return self._object_dicts([o for o in occurrences if gehele_lvc or not o["verwijderd"]])

    def _object_dicts(
        self, occurrences: list[sqlite3.Row], links: _Links | None = None
    ) -> list[dict[str, Any]]:
        cache = self._objects
        missing = [o for o in occurrences if o["rid"] not in cache]
        if missing:
            if links is None:
                links = self._links([o["rid"] for o in missing])
            for occurrence in missing:
                cache[occurrence["rid"]] = self._object_dict(occurrence, links)
        return [cache[o["rid"]] for o in occurrences]

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
        known = self._rid_links
        missing = [rid for rid in rids if rid not in known]
        if missing:
            hoofdadres: dict[int, str] = {}
            nevenadressen: dict[int, list[str]] = {}
            panden: dict[int, list[str]] = {}
            doelen: dict[int, list[str]] = {}
            sql = (
                "SELECT rid, nummeraanduiding, nevenadres FROM ao_adres WHERE rid IN {}"
                " ORDER BY rid, volgorde"
            )
            for row in self._chunked_rows(sql, missing):
                if row["nevenadres"]:
                    nevenadressen.setdefault(row["rid"], []).append(row["nummeraanduiding"])
                else:
                    hoofdadres[row["rid"]] = row["nummeraanduiding"]
            sql = "SELECT rid, pand FROM ao_pand WHERE rid IN {} ORDER BY rid, volgorde"
            for row in self._chunked_rows(sql, missing):
                panden.setdefault(row["rid"], []).append(row["pand"])
            sql = "SELECT rid, gebruiksdoel FROM ao_gebruiksdoel WHERE rid IN {} ORDER BY rid, volgorde"
            for row in self._chunked_rows(sql, missing):
                doelen.setdefault(row["rid"], []).append(row["gebruiksdoel"])
            for rid in missing:
                known[rid] = _RidLinks(
                    hoofdadres.get(rid), nevenadressen.get(rid, []), panden.get(rid, []), doelen.get(rid, [])
                )
        links = _Links({}, {}, {}, {})
        for rid in rids:
            entry = known[rid]
            if entry.hoofdadres is not None:
                links.hoofdadres[rid] = entry.hoofdadres
            if entry.nevenadressen:
                links.nevenadressen[rid] = entry.nevenadressen
            if entry.panden:
                links.panden[rid] = entry.panden
            if entry.gebruiksdoelen:
                links.gebruiksdoelen[rid] = entry.gebruiksdoelen
        return links

    def _occurrences_by_rid(self, rids: Sequence[int]) -> list[sqlite3.Row]:
        return self._chunked_rows("SELECT * FROM ao_voorkomen WHERE rid IN {}", sorted(set(rids)))

    def _buildings(self, ids: set[str]) -> dict[str, sqlite3.Row]:
        rows = self._chunked_rows("SELECT * FROM pand WHERE identificatie IN {}", sorted(ids))
        return {row["identificatie"]: row for row in rows}

    # related objects -----------------------------------------------------------------

    def _kept(
        self, kind: str, ident: str, build: Callable[[str], dict[str, Any] | None]
    ) -> dict[str, Any] | None:
        """A related resource, built once; one that does not exist is not kept."""
        found = self._related.get((kind, ident))
        if found is None:
            found = build(ident)
            if found is not None:
                self._related[(kind, ident)] = found
        return found

    def get_nummeraanduiding(self, ident: str) -> dict[str, Any] | None:
        return self._kept("nummeraanduiding", ident, self._nummeraanduiding)

    def get_openbare_ruimte(self, ident: str) -> dict[str, Any] | None:
        return self._kept("openbare_ruimte", ident, self._openbare_ruimte)

    def get_woonplaats(self, ident: str) -> dict[str, Any] | None:
        return self._kept("woonplaats", ident, self._woonplaats)

    def get_pand(self, ident: str) -> dict[str, Any] | None:
        return self._kept("pand", ident, self._pand)

    def get_bronhouder(self, object_identificatie: str) -> dict[str, Any] | None:
        """The municipality that holds any object: the id's first 4 digits, or a woonplaats's."""
        return self._kept("bronhouder", object_identificatie, self._bronhouder)

    def _nummeraanduiding(self, ident: str) -> dict[str, Any] | None:
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

    def _openbare_ruimte(self, ident: str) -> dict[str, Any] | None:
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

    def _woonplaats(self, ident: str) -> dict[str, Any] | None:
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

    def _pand(self, ident: str) -> dict[str, Any] | None:
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

    def _bronhouder(self, object_identificatie: str) -> dict[str, Any] | None:
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
