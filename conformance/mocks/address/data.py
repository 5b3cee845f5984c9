"""Deterministic generator of the address mock's SQLite register.

The database is built from code, never downloaded or committed: `ensure_database(path)`
writes it once per GENERATOR_VERSION. It has two parts:

* fixtures: hand-made objects with fixed identifiers. They carry the samples of
  WELL_KNOWN (docs/design.md, "Samples") and the edge cases of EDGE_CASES, so every
  promise about them holds by construction, not by discovery after generation;
* bulk: streets of houses, shops, flats, berths and pitches drawn from
  `random.Random(SEED)`, so the same version always yields the same content.

The geography is fictional but lies in RD New (EPSG:28992) at realistic Dutch
coordinates, each woonplaats within a few kilometres. Statuses, gebruiksdoelen and
identifier formats follow shared/reference/bag-api.md section 2.

Two data sets come from the same generator, chosen per mock instance (the profile's
`services.address.mock_data`), each cached in its own file:

* "full" (FULL): every sample of WELL_KNOWN, edge cases included; some accommodation
  objects lie in two buildings, and the showcase's BBOX holds objects of all three kinds;
* "ordinary" (ORDINARY): what a deployment with ordinary data looks like. It draws the
  same random stream, so it holds the same objects with the same identifiers and
  attributes, with two differences: every accommodation object lies in exactly one
  building (its first; the other building stays in the register without accommodation
  objects), and berths and pitches lie a kilometre or more from every accommodation
  object and from each other (berths north-west or west of a place's streets, pitches
  south-east or east), so no box of at most 250 000 m2 holds an object of each kind.
  `well_known(ORDINARY)` (ORDINARY_WELL_KNOWN) gives its samples: no
  `verblijfsobject_panden`, and a box per kind.

Next to the register's tables, the file holds the indexes the mock's queries use
(`_write_search_index`): `adres`, the addresses the API lists, one row each, numbered in
the order answers list them; `adres_term` and the FTS5 table `adres_tekst` for free text
(`q`, /adressen/zoek); the R*Tree `ao_extent` for bbox; and indexes for every other query
kind.

Bump GENERATOR_VERSION whenever the generated content or the schema changes: cached
databases are rebuilt when their `meta` table holds another version (an ordinary database
also records `data_set`; a file without that row holds the full set).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from conformance.paths import CACHE_DIR_ENV, cache_dir  # noqa: F401 - CACHE_DIR_ENV: tests set it

GENERATOR_VERSION = "2"  # 2: the search index (`_write_search_index`)
SEED = 289922092

# The data sets (see the module docstring); the profile's services.address.mock_data.
FULL = "full"
ORDINARY = "ordinary"
DATA_SETS: tuple[str, ...] = (FULL, ORDINARY)


def _check_data_set(data_set: str) -> str:
    if data_set not in DATA_SETS:
        raise ValueError(f"unknown address mock data set {data_set!r} (one of {', '.join(DATA_SETS)})")
    return data_set


# --------------------------------------------------------------------------------------
# Enumerations (bag-api.md 2.2, 2.4)
# --------------------------------------------------------------------------------------

WOONFUNCTIE = "woonfunctie"
BIJEENKOMSTFUNCTIE = "bijeenkomstfunctie"
CELFUNCTIE = "celfunctie"
GEZONDHEIDSZORGFUNCTIE = "gezondheidszorgfunctie"
INDUSTRIEFUNCTIE = "industriefunctie"
KANTOORFUNCTIE = "kantoorfunctie"
LOGIESFUNCTIE = "logiesfunctie"
ONDERWIJSFUNCTIE = "onderwijsfunctie"
SPORTFUNCTIE = "sportfunctie"
WINKELFUNCTIE = "winkelfunctie"
OVERIGE_GEBRUIKSFUNCTIE = "overige gebruiksfunctie"
GEBRUIKSDOELEN: tuple[str, ...] = (
    WOONFUNCTIE,
    BIJEENKOMSTFUNCTIE,
    CELFUNCTIE,
    GEZONDHEIDSZORGFUNCTIE,
    INDUSTRIEFUNCTIE,
    KANTOORFUNCTIE,
    LOGIESFUNCTIE,
    ONDERWIJSFUNCTIE,
    SPORTFUNCTIE,
    WINKELFUNCTIE,
    OVERIGE_GEBRUIKSFUNCTIE,
)

VBO_GEVORMD = "Verblijfsobject gevormd"
VBO_NIET_GEREALISEERD = "Niet gerealiseerd verblijfsobject"
VBO_IN_GEBRUIK_NIET_INGEMETEN = "Verblijfsobject in gebruik (niet ingemeten)"
VBO_IN_GEBRUIK = "Verblijfsobject in gebruik"
VBO_VERBOUWING = "Verbouwing verblijfsobject"
VBO_INGETROKKEN = "Verblijfsobject ingetrokken"
VBO_BUITEN_GEBRUIK = "Verblijfsobject buiten gebruik"
VBO_TEN_ONRECHTE = "Verblijfsobject ten onrechte opgevoerd"
PLAATS_AANGEWEZEN = "Plaats aangewezen"
PLAATS_INGETROKKEN = "Plaats ingetrokken"
PAND_BOUWVERGUNNING = "Bouwvergunning verleend"
PAND_NIET_GEREALISEERD = "Niet gerealiseerd pand"
PAND_BOUW_GESTART = "Bouw gestart"
PAND_IN_GEBRUIK_NIET_INGEMETEN = "Pand in gebruik (niet ingemeten)"
PAND_IN_GEBRUIK = "Pand in gebruik"
PAND_VERBOUWING = "Verbouwing pand"
PAND_SLOOPVERGUNNING = "Sloopvergunning verleend"
PAND_GESLOOPT = "Pand gesloopt"
PAND_BUITEN_GEBRUIK = "Pand buiten gebruik"
PAND_TEN_ONRECHTE = "Pand ten onrechte opgevoerd"
NAAMGEVING_UITGEGEVEN = "Naamgeving uitgegeven"
NAAMGEVING_INGETROKKEN = "Naamgeving ingetrokken"
WOONPLAATS_AANGEWEZEN = "Woonplaats aangewezen"
WOONPLAATS_INGETROKKEN = "Woonplaats ingetrokken"

# Statuses that make an object not "huidig" (bag-api.md 2.4).
END_STATUSES: frozenset[str] = frozenset(
    {
        NAAMGEVING_INGETROKKEN,
        WOONPLAATS_INGETROKKEN,
        PLAATS_INGETROKKEN,
        VBO_NIET_GEREALISEERD,
        VBO_INGETROKKEN,
        VBO_TEN_ONRECHTE,
        PAND_NIET_GEREALISEERD,
        PAND_GESLOOPT,
        PAND_TEN_ONRECHTE,
    }
)

VERBLIJFSOBJECT = "verblijfsobject"
LIGPLAATS = "ligplaats"
STANDPLAATS = "standplaats"
OBJECT_TYPES: tuple[str, ...] = (VERBLIJFSOBJECT, LIGPLAATS, STANDPLAATS)
TYPE_CODES: dict[str, str] = {
    VERBLIJFSOBJECT: "01",
    LIGPLAATS: "02",
    STANDPLAATS: "03",
    "pand": "10",
    "nummeraanduiding": "20",
    "openbareruimte": "30",
}
OBJECT_TYPE_BY_CODE: dict[str, str] = {"01": VERBLIJFSOBJECT, "02": LIGPLAATS, "03": STANDPLAATS}

# Serial numbers below this value are reserved for fixtures with fixed identifiers.
BULK_SERIAL_START = 10_001
# The last day the generated history reaches; nothing begins after it.
_LAST_DAY = date(2024, 6, 28)


def ident(gemeente: str, type_code: str, serial: int) -> str:
    """A 16-digit BAG identifier: municipality code, type code, 10-digit serial (2.1)."""
    return f"{gemeente}{type_code}{serial:010d}"


def fold(text: str) -> str:
    """The case folding used for case-insensitive name matching (stored and queried)."""
    return text.casefold()


def zoek_identificatie(nummeraanduiding_id: str) -> str:
    """The stable `adr-<32 hex>` id of an address in /adressen/zoek results."""
    digest = hashlib.md5(f"registry-conformance:{nummeraanduiding_id}".encode()).hexdigest()
    return f"adr-{digest}"


# --------------------------------------------------------------------------------------
# Source holders, places and fixed identifiers
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gemeente:
    code: str
    naam: str
    begin_geldigheid: str
    provincie_naam: str
    provincie_afkorting: str


AMSTELVEER = Gemeente("1951", "Amstelveer", "1998-01-01", "Noord-Holland", "NH")
HEERENBROEK = Gemeente("1952", "'s-Heerenbroek", "1996-01-01", "Noord-Brabant", "NB")
ZUIDERHAVEN = Gemeente("1953", "Zuiderhaven", "2001-01-01", "Zuid-Holland", "ZH")
GEMEENTEN: tuple[Gemeente, ...] = (AMSTELVEER, HEERENBROEK, ZUIDERHAVEN)

WP_AMSTELVEER = "7101"
WP_HEERENBROEK = "7102"
WP_ZUIDERHAVEN = "7103"
WP_OUDHAVEN = "7104"  # withdrawn (merged into Zuiderhaven): every address in it is hidden

_A = AMSTELVEER.code


def _vbo(serial: int) -> str:
    return ident(_A, "01", serial)


def _na(serial: int) -> str:
    return ident(_A, "20", serial)


def _pand(serial: int) -> str:
    return ident(_A, "10", serial)


# Fixture streets in Amstelveer (the "showcase" quarter north of the bulk streets).
OR_KERKSTRAAT = ident(_A, "30", 1)
OR_BURGEMEESTER = ident(_A, "30", 2)  # long name: korteNaam differs
OR_KERKGRACHT = ident(_A, "30", 3)
OR_DE_BRINK = ident(_A, "30", 4)
OR_MARKTPLEIN = ident(_A, "30", 5)
OR_OUDE_WERFSTRAAT = ident(ZUIDERHAVEN.code, "30", 1)  # withdrawn public space

PC_KERKSTRAAT_EVEN = "1181VA"
PC_KERKGRACHT = "1181VB"
PC_DE_BRINK = "1181VC"
PC_MARKTPLEIN = "1181VD"
PC_FLAT_LOW = "1181VE"
PC_FLAT_HIGH = "1181VF"

# Kerkstraat 12 and its variants: the exacteMatch family (bag-api.md 4.6).
NA_KERKSTRAAT_12 = _na(101)
NA_KERKSTRAAT_12A = _na(102)
NA_KERKSTRAAT_12_1 = _na(103)
NA_KERKSTRAAT_12B2 = _na(104)
NA_KERKSTRAAT_14_A = _na(105)  # "A" is an addition here, not a letter
NA_KERKSTRAAT_16 = _na(106)
NA_KERKSTRAAT_16_DUPLICAAT = _na(107)  # a genuine duplicate of Kerkstraat 16
NA_KERKSTRAAT_18C = _na(108)  # lower-case letter, kept as registered
NA_KERKSTRAAT_20 = _na(109)
NA_MARKTPLEIN_3 = _na(110)  # side address of Kerkstraat 20
NA_KERKSTRAAT_26 = _na(111)
NA_KERKSTRAAT_24 = _na(112)  # side address of Kerkstraat 26, withdrawn
NA_KERKSTRAAT_28 = _na(113)  # its object is withdrawn
NA_KERKSTRAAT_28A = _na(114)
NA_KERKSTRAAT_32 = _na(115)
NA_KERKSTRAAT_34 = _na(116)  # object in a current and a demolished building
NA_KERKSTRAAT_36 = _na(117)
NA_KERKSTRAAT_38 = _na(118)
NA_DE_BRINK_5 = ident(_A, "20", 405)  # no postcode

VBO_KERKSTRAAT_12 = _vbo(101)
VBO_KERKSTRAAT_20 = _vbo(109)
VBO_KERKSTRAAT_26 = _vbo(110)
VBO_KERKSTRAAT_28 = _vbo(111)
VBO_KERKSTRAAT_28A = _vbo(112)
VBO_KERKSTRAAT_32 = _vbo(113)
VBO_KERKSTRAAT_34 = _vbo(114)
VBO_KERKSTRAAT_36 = _vbo(115)  # polygon (vlak) geometry
VBO_KERKSTRAAT_38 = _vbo(116)  # overige gebruiksfunctie, oppervlakte 1
LIG_KERKGRACHT_1 = ident(_A, "02", 101)
LIG_KERKGRACHT_6 = ident(_A, "02", 106)  # Plaats ingetrokken
STA_DE_BRINK_1 = ident(_A, "03", 101)

PAND_KERKSTRAAT_12 = _pand(101)
PAND_KERKSTRAAT_20 = _pand(105)
PAND_KERKSTRAAT_20_ACHTER = _pand(106)
PAND_KERKSTRAAT_32 = _pand(109)  # the history sample's building
PAND_KERKSTRAAT_34_ANNEX = _pand(110)  # Pand gesloopt
PAND_KERKSTRAAT_34 = _pand(111)
PAND_FLAT = _pand(120)  # 48 accommodation objects

FLAT_FIRST_NUMBER = 101
FLAT_SIZE = 48

HISTORIE_DATUM = "2015-01-01"

# The showcase quarter's origin (RD metres); every fixture is placed relative to it.
_SX, _SY = 119000.0, 480800.0
BBOX = f"{_SX + 400:.0f},{_SY - 40:.0f},{_SX + 700:.0f},{_SY + 160:.0f}"  # 300 m x 200 m

WELL_KNOWN: dict[str, str] = {
    "nummeraanduiding": NA_KERKSTRAAT_12,
    "nummeraanduiding_nevenadres": NA_MARKTPLEIN_3,
    "nummeraanduiding_eindstatus": NA_KERKSTRAAT_24,
    "verblijfsobject": VBO_KERKSTRAAT_20,
    "verblijfsobject_nevenadres": VBO_KERKSTRAAT_20,
    "verblijfsobject_panden": VBO_KERKSTRAAT_20,
    "ligplaats": LIG_KERKGRACHT_1,
    "standplaats": STA_DE_BRINK_1,
    "adresseerbaarobject_eindstatus": VBO_KERKSTRAAT_28,
    "adresseerbaarobject_historie": VBO_KERKSTRAAT_32,
    "historie_datum": HISTORIE_DATUM,
    "pand": PAND_FLAT,
    "openbareruimte": OR_BURGEMEESTER,
    "woonplaats": WP_AMSTELVEER,
    "bbox": BBOX,
    "bbox_ligplaats": BBOX,
    "bbox_standplaats": BBOX,
    "bbox_verblijfsobject": BBOX,
    "unknown_adresseerbaarobject": ident(_A, "01", 9_999_999_999),
    "unknown_nummeraanduiding": ident(_A, "20", 9_999_999_999),
}

# Where the showcase's berths and pitches lie (lower left of the first; RD metres): in the
# full data set inside BBOX, next to Kerkstraat; in the ordinary one a kilometre west and
# a kilometre east (and 1.8 km south) of every accommodation object of Amstelveer.
_FIXTURE_BERTHS = {FULL: (_SX + 400, _SY + 44), ORDINARY: (_SX - 1540, _SY + 44)}
_FIXTURE_PITCHES = {FULL: (_SX + 440, _SY + 75), ORDINARY: (_SX + 1680, _SY - 1800)}

# The ordinary data set's boxes per kind (300 m x 200 m each). BBOX itself then holds
# accommodation objects only (Kerkstraat 12-38, the samples among them).
ORDINARY_BBOX_LIGPLAATS = f"{_SX - 1600:.0f},{_SY - 50:.0f},{_SX - 1300:.0f},{_SY + 150:.0f}"
ORDINARY_BBOX_STANDPLAATS = f"{_SX + 1600:.0f},{_SY - 1900:.0f},{_SX + 1900:.0f},{_SY - 1700:.0f}"


def well_known(data_set: str = FULL) -> dict[str, str]:
    """The samples a user would discover in a data set (a fresh dict).

    Full: WELL_KNOWN. Ordinary: the same identifiers (Kerkstraat 20 is the
    `verblijfsobject` still, now in one building), no `verblijfsobject_panden` (no object
    lies in two buildings), BBOX holding accommodation objects, and a box per kind."""
    samples = dict(WELL_KNOWN)
    if _check_data_set(data_set) == ORDINARY:
        samples.pop("verblijfsobject_panden", None)
        samples["bbox"] = BBOX
        samples["bbox_verblijfsobject"] = BBOX
        samples["bbox_ligplaats"] = ORDINARY_BBOX_LIGPLAATS
        samples["bbox_standplaats"] = ORDINARY_BBOX_STANDPLAATS
    return samples


ORDINARY_WELL_KNOWN: dict[str, str] = well_known(ORDINARY)

# Further fixed objects for the mock's own tests and for scenario authors; not part of
# the design's sample table, so profiles need not repeat them.
EDGE_CASES: dict[str, str] = {
    "nummeraanduiding_letter": NA_KERKSTRAAT_12A,
    "nummeraanduiding_toevoeging": NA_KERKSTRAAT_12_1,
    "nummeraanduiding_letter_toevoeging": NA_KERKSTRAAT_12B2,
    "nummeraanduiding_toevoeging_a": NA_KERKSTRAAT_14_A,
    "nummeraanduiding_duplicaat": NA_KERKSTRAAT_16_DUPLICAAT,
    "nummeraanduiding_kleine_letter": NA_KERKSTRAAT_18C,
    "nummeraanduiding_zonder_postcode": NA_DE_BRINK_5,
    "nummeraanduiding_object_eindstatus": NA_KERKSTRAAT_28,
    "nummeraanduiding_pand_eindstatus": NA_KERKSTRAAT_34,
    "pand_eindstatus": PAND_KERKSTRAAT_34_ANNEX,
    "pand_naast_pand_eindstatus": PAND_KERKSTRAAT_34,
    "verblijfsobject_vlak": VBO_KERKSTRAAT_36,
    "verblijfsobject_overige_gebruiksfunctie": VBO_KERKSTRAAT_38,
    "ligplaats_eindstatus": LIG_KERKGRACHT_6,
    "openbareruimte_eindstatus": OR_OUDE_WERFSTRAAT,
    "woonplaats_eindstatus": WP_OUDHAVEN,
    "woonplaats_apostrof": WP_HEERENBROEK,
}

# NEN 5825 short names (at most 24 characters) of the names longer than 24 characters.
KORTE_NAMEN: dict[str, str] = {
    "Burgemeester van Nieuwenhuijsenstraat": "Burg v Nieuwenhuijsenstr",
    "Gouverneur van Lamsweerde tot Rijckholtstraat": "Gouv v Lamsweerde t Rstr",
    "Prins Willem-Alexanderlaan": "Pr Willem-Alexanderln",
    "Burgemeester Hoffmannplein": "Burg Hoffmannpln",
    "Spoorlijn Zuiderhaven-Oudhaven": "Spoorl Zuiderh-Oudhaven",
    "Woonwagencentrum De Vliert": "Wwc De Vliert",
    "Woonwagenpark Hoge Werf": "Wwp Hoge Werf",
}


@dataclass(frozen=True)
class _PlacePlan:
    identificatie: str
    naam: str
    gemeente: Gemeente
    centre: tuple[float, float]
    postcode_digits: int  # street i uses digits + i // 3
    streets: tuple[str, ...]
    water: tuple[str, ...] = ()
    terrain: tuple[str, ...] = ()
    unaddressed: tuple[tuple[str, str], ...] = ()  # (naam, type) without addresses
    status: str = WOONPLAATS_AANGEWEZEN
    begin: date = date(2009, 7, 1)


_PLACES: tuple[_PlacePlan, ...] = (
    _PlacePlan(
        WP_AMSTELVEER,
        "Amstelveer",
        AMSTELVEER,
        (119500.0, 479500.0),
        1182,
        (
            "Dorpsstraat",
            "Molenweg",
            "Schoolstraat",
            "Julianalaan",
            "Beatrixstraat",
            "Lindenlaan",
            "Eikenlaan",
            "Beukenlaan",
            "Populierenweg",
            "Tulpstraat",
            "Narcissenstraat",
            "Hyacintenlaan",
            "Van 't Hoffstraat",
            "Belgiëlaan",
            "Curaçaostraat",
            "Stationsweg",
            "Prinses Margrietlaan",
            "Amstelkade",
        ),
        unaddressed=(("Amstelveerbrug", "Kunstwerk"), ("Polder De Veer", "Landschappelijk gebied")),
    ),
    _PlacePlan(
        WP_HEERENBROEK,
        "'s-Heerenbroek",
        HEERENBROEK,
        (149500.0, 411500.0),
        5211,
        (
            "Markt",
            "Hinthamerstraat",
            "Vughterweg",
            "Orthenseweg",
            "Koninginnelaan",
            "Parklaan",
            "Brugstraat",
            "Kruisstraat",
            "Torenstraat",
            "Wilhelminastraat",
            "Emmaplein",
            "Sint-Janssingel",
            "Papenhulst",
            "Zuid-Willemsvaartkade",
            "Graaf van Solmsweg",
            "Vlijmenseweg",
            "Gouverneur van Lamsweerde tot Rijckholtstraat",
            "Jeroen Boschplein",
        ),
        water=("Dieze",),
        terrain=("Woonwagencentrum De Vliert",),
        unaddressed=(("Citadelbrug", "Kunstwerk"),),
        begin=date(2009, 9, 1),
    ),
    _PlacePlan(
        WP_ZUIDERHAVEN,
        "Zuiderhaven",
        ZUIDERHAVEN,
        (91500.0, 436500.0),
        3011,
        (
            "Havenstraat",
            "Scheepmakerij",
            "Vissersdijk",
            "Zeemanstraat",
            "Ankerstraat",
            "Ruiterstraat",
            "Lange Haven",
            "Nieuwstraat",
            "Kerkplein",
            "Sluisweg",
            "Dijkstraat",
            "Admiraal de Ruijterweg",
            "Prins Willem-Alexanderlaan",
            "Burgemeester Hoffmannplein",
            "Westzeedijk",
            "Kade",
            "Boompjes",
        ),
        water=("Oude Haven", "Binnenhaven"),
        terrain=("Woonwagenpark Hoge Werf",),
        unaddressed=(
            ("Spoorlijn Zuiderhaven-Oudhaven", "Spoorbaan"),
            ("Havengebied", "Administratief gebied"),
        ),
        begin=date(2010, 1, 1),
    ),
    _PlacePlan(
        WP_OUDHAVEN,
        "Oudhaven",
        ZUIDERHAVEN,
        (95200.0, 439800.0),
        3040,
        ("Dorpsweg", "Kerkewijk"),
        status=WOONPLAATS_INGETROKKEN,
        begin=date(2016, 1, 1),
    ),
)

# --------------------------------------------------------------------------------------
# Records collected before writing
# --------------------------------------------------------------------------------------

Ring = list[tuple[float, float]]


@dataclass
class Voorkomen:
    """One occurrence's registration times; the end fields are filled in when superseded."""

    versie: int
    begin_geldigheid: date
    tijdstip_registratie: datetime
    tijdstip_registratie_lv: datetime
    eind_geldigheid: date | None = None
    eind_registratie: datetime | None = None
    tijdstip_eind_registratie_lv: datetime | None = None
    tijdstip_inactief: datetime | None = None
    tijdstip_inactief_lv: datetime | None = None


@dataclass
class Admin:
    """Administrative fields every registered object carries."""

    geconstateerd: str
    documentdatum: date
    documentnummer: str
    voorkomen: Voorkomen


@dataclass(frozen=True)
class WoonplaatsRecord:
    identificatie: str
    naam: str
    status: str
    gemeente: str
    admin: Admin


@dataclass(frozen=True)
class OpenbareRuimteRecord:
    identificatie: str
    naam: str
    korte_naam: str
    type: str
    status: str
    woonplaats: str
    admin: Admin


@dataclass(frozen=True)
class NummeraanduidingRecord:
    identificatie: str
    huisnummer: int
    huisletter: str | None
    toevoeging: str | None
    postcode: str | None
    type_adresseerbaar_object: str
    status: str
    openbare_ruimte: str
    admin: Admin


@dataclass(frozen=True)
class PandRecord:
    identificatie: str
    bouwjaar: int
    status: str
    ring: Ring
    admin: Admin


@dataclass(frozen=True)
class AoState:
    """What one occurrence of an addressable object says."""

    status: str
    begin: date
    oppervlakte: int | None = None
    gebruiksdoelen: tuple[str, ...] = ()
    removed: bool = False  # later removed from the valid life cycle


@dataclass
class AoRecord:
    identificatie: str
    type: str
    hoofdadres: str
    nevenadressen: tuple[str, ...]
    panden: tuple[str, ...]
    geometrie: dict[str, Any]
    extent: tuple[float, float, float, float]
    geconstateerd: str
    states: list[AoState]
    occurrences: list[tuple[Voorkomen, date, str]] = field(default_factory=list)


# --------------------------------------------------------------------------------------
# Geometry and time helpers
# --------------------------------------------------------------------------------------


def _rect(x: float, y: float, width: float, height: float) -> Ring:
    """A closed, counter-clockwise rectangle ring from its lower-left corner."""
    x0, y0, x1, y1 = round(x, 3), round(y, 3), round(x + width, 3), round(y + height, 3)
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]


def polygon_json(ring: Ring) -> dict[str, Any]:
    return {"type": "Polygon", "coordinates": [[[x, y, 0.0] for x, y in ring]]}


def point_json(x: float, y: float) -> dict[str, Any]:
    return {"type": "Point", "coordinates": [round(x, 3), round(y, 3), 0.0]}


def _ring_extent(ring: Ring) -> tuple[float, float, float, float]:
    xs = [p[0] for p in ring]
    ys = [p[1] for p in ring]
    return min(xs), min(ys), max(xs), max(ys)


def _inside(rng: random.Random, ring: Ring) -> tuple[float, float]:
    """A point well inside a rectangle ring (where the accommodation object is drawn)."""
    minx, miny, maxx, maxy = _ring_extent(ring)
    return (
        round(minx + (maxx - minx) * rng.uniform(0.25, 0.75), 3),
        round(miny + (maxy - miny) * rng.uniform(0.25, 0.75), 3),
    )


def format_timestamp(moment: datetime) -> str:
    """`YYYY-MM-DDThh:mm:ss.sss` without offset, as the API writes register times."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def _moment(rng: random.Random, day: date) -> datetime:
    """A registration moment on a working hour shortly after the given day."""
    when = day + timedelta(days=rng.randint(0, 6))
    clock = time(rng.randint(8, 16), rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999) * 1000)
    return datetime.combine(when, clock)


def _lv_moment(rng: random.Random, registered: datetime) -> datetime:
    """The national register (LV) receives a mutation seconds to hours after the source."""
    return registered + timedelta(seconds=rng.randint(20, 7200), milliseconds=rng.randint(0, 999))


def _later(rng: random.Random, day: date) -> date:
    later = min(day + timedelta(days=rng.randint(200, 3000)), _LAST_DAY)
    return later if later > day + timedelta(days=13) else day + timedelta(days=14)


def _bag_start(rng: random.Random, bouwjaar: int) -> date:
    """When an object entered the register: the 2009-2011 conversion, or its build year."""
    if bouwjaar < 2009:
        return date(2009, 1, 1) + timedelta(days=rng.randint(0, 800))
    if bouwjaar >= 2024:
        return date(2024, rng.randint(1, 4), rng.randint(1, 28))
    return date(bouwjaar, rng.randint(1, 12), rng.randint(1, 28))


def _document(rng: random.Random, begin: date, prefix: str) -> tuple[date, str]:
    documentdatum = begin - timedelta(days=rng.randint(0, 20))
    return documentdatum, f"{prefix}{documentdatum.year}-{rng.randint(1, 99999):05d}"


def _chain(rng: random.Random, states: list[AoState]) -> list[Voorkomen]:
    """Registration times for a life cycle; a removed occurrence is followed by its fix.

    Registering an occurrence ends the open one (eindGeldigheid = new begin,
    eindRegistratie = new registration). The correction of a removed occurrence instead
    marks it inactive (tijdstipInactief) and becomes the open occurrence itself.
    """
    result: list[Voorkomen] = []
    open_vk: Voorkomen | None = None
    for versie, state in enumerate(states, start=1):
        corrects = versie > 1 and states[versie - 2].removed
        if corrects:
            registered = result[-1].tijdstip_registratie + timedelta(
                days=rng.randint(3, 30), seconds=rng.randint(0, 20000)
            )
        else:
            registered = _moment(rng, state.begin)
            if result and registered <= result[-1].tijdstip_registratie:
                registered = result[-1].tijdstip_registratie + timedelta(hours=1)
        lv = _lv_moment(rng, registered)
        vk = Voorkomen(versie, state.begin, registered, lv)
        if corrects:
            result[-1].tijdstip_inactief = registered
            result[-1].tijdstip_inactief_lv = lv
        elif open_vk is not None:
            open_vk.eind_geldigheid = state.begin
            open_vk.eind_registratie = registered
            open_vk.tijdstip_eind_registratie_lv = lv
        open_vk = None if state.removed else vk
        result.append(vk)
    if states and states[-1].removed:
        raise ValueError("a removed occurrence must be followed by its correction")
    return result


# --------------------------------------------------------------------------------------
# The world under construction
# --------------------------------------------------------------------------------------

# Letters for bulk postcodes; leaving out S avoids the unused SA, SD and SS series.
_POSTCODE_LETTERS = "ABCDEFGHJKLMNPRTVWXZ"


class _World:
    """Collects records; allocates bulk identifiers and postcodes deterministically."""

    def __init__(self, rng: random.Random, data_set: str = FULL) -> None:
        self.rng = rng
        self.data_set = _check_data_set(data_set)
        # The ordinary data set: one building per accommodation object, and berths and
        # pitches far from the rest. The random stream is the same for both data sets.
        self.ordinary = data_set == ORDINARY
        self.woonplaatsen: list[WoonplaatsRecord] = []
        self.openbare_ruimten: list[OpenbareRuimteRecord] = []
        self.nummeraanduidingen: list[NummeraanduidingRecord] = []
        self.panden: list[PandRecord] = []
        self.objects: list[AoRecord] = []
        self._serials: dict[tuple[str, str], int] = {}
        self._postcode_counters: dict[int, int] = {}
        self._seen: set[str] = set()

    # identifiers ---------------------------------------------------------------------

    def _claim(self, identificatie: str) -> str:
        if identificatie in self._seen:
            raise ValueError(f"identifier {identificatie} generated twice")
        self._seen.add(identificatie)
        return identificatie

    def new_id(self, gemeente: str, type_code: str) -> str:
        serial = self._serials.get((gemeente, type_code), BULK_SERIAL_START)
        self._serials[(gemeente, type_code)] = serial + 1
        return ident(gemeente, type_code, serial)

    def new_postcode(self, digits: int) -> str:
        index = self._postcode_counters.get(digits, 0)
        self._postcode_counters[digits] = index + 1
        first, second = divmod(index, len(_POSTCODE_LETTERS))
        return f"{digits}{_POSTCODE_LETTERS[first]}{_POSTCODE_LETTERS[second]}"

    def admin(self, begin: date, prefix: str, *, geconstateerd: bool | None = None) -> Admin:
        rng = self.rng
        registered = _moment(rng, begin)
        documentdatum, documentnummer = _document(rng, begin, prefix)
        if geconstateerd is None:
            geconstateerd = rng.random() < 0.02
        return Admin(
            "J" if geconstateerd else "N",
            documentdatum,
            documentnummer,
            Voorkomen(1, begin, registered, _lv_moment(rng, registered)),
        )

    # records -------------------------------------------------------------------------

    def add_woonplaats(self, plan: _PlacePlan) -> None:
        self.woonplaatsen.append(
            WoonplaatsRecord(
                self._claim(plan.identificatie),
                plan.naam,
                plan.status,
                plan.gemeente.code,
                self.admin(plan.begin, "WP", geconstateerd=False),
            )
        )

    def add_openbare_ruimte(
        self,
        gemeente: str,
        naam: str,
        type_: str,
        woonplaats: str,
        begin: date,
        *,
        identificatie: str | None = None,
        status: str = NAAMGEVING_UITGEGEVEN,
    ) -> str:
        korte = KORTE_NAMEN.get(naam, naam)
        if len(korte) > 24 or len(naam) > 80:
            raise ValueError(f"no NEN 5825 short name for {naam!r}")
        record = OpenbareRuimteRecord(
            self._claim(identificatie or self.new_id(gemeente, "30")),
            naam,
            korte,
            type_,
            status,
            woonplaats,
            self.admin(begin, "OR"),
        )
        self.openbare_ruimten.append(record)
        return record.identificatie

    def add_nummeraanduiding(
        self,
        gemeente: str,
        openbare_ruimte: str,
        huisnummer: int,
        postcode: str | None,
        type_object: str,
        begin: date,
        *,
        huisletter: str | None = None,
        toevoeging: str | None = None,
        status: str = NAAMGEVING_UITGEGEVEN,
        identificatie: str | None = None,
    ) -> str:
        record = NummeraanduidingRecord(
            self._claim(identificatie or self.new_id(gemeente, "20")),
            huisnummer,
            huisletter,
            toevoeging,
            postcode,
            type_object.capitalize(),
            status,
            openbare_ruimte,
            self.admin(begin, "NA"),
        )
        self.nummeraanduidingen.append(record)
        return record.identificatie

    def add_pand(
        self,
        gemeente: str,
        ring: Ring,
        bouwjaar: int,
        status: str,
        *,
        identificatie: str | None = None,
    ) -> str:
        begin = _bag_start(self.rng, bouwjaar)
        record = PandRecord(
            self._claim(identificatie or self.new_id(gemeente, "10")),
            bouwjaar,
            status,
            ring,
            self.admin(begin, "BV"),
        )
        self.panden.append(record)
        return record.identificatie

    def add_object(
        self,
        gemeente: str,
        type_: str,
        hoofdadres: str,
        states: list[AoState],
        *,
        point: tuple[float, float] | None = None,
        ring: Ring | None = None,
        panden: tuple[str, ...] = (),
        nevenadressen: tuple[str, ...] = (),
        identificatie: str | None = None,
    ) -> str:
        geometrie, extent = _object_geometry(type_, point, ring)
        record = AoRecord(
            self._claim(identificatie or self.new_id(gemeente, TYPE_CODES[type_])),
            type_,
            hoofdadres,
            nevenadressen,
            panden,
            geometrie,
            extent,
            "J" if self.rng.random() < 0.02 else "N",
            states,
        )
        prefix = {VERBLIJFSOBJECT: "VB", LIGPLAATS: "LP", STANDPLAATS: "SP"}[type_]
        record.occurrences = [
            (vk, *_document(self.rng, vk.begin_geldigheid, prefix)) for vk in _chain(self.rng, states)
        ]
        self.objects.append(record)
        return record.identificatie


def _object_geometry(
    type_: str, point: tuple[float, float] | None, ring: Ring | None
) -> tuple[dict[str, Any], tuple[float, float, float, float]]:
    """VBO: {"punt": Point} or {"vlak": Polygon}; berth and pitch: a bare Polygon (3.4)."""
    if type_ == VERBLIJFSOBJECT and point is not None:
        return {"punt": point_json(*point)}, (point[0], point[1], point[0], point[1])
    if ring is None:
        raise ValueError(f"a {type_} needs a polygon")
    polygon = polygon_json(ring)
    return ({"vlak": polygon} if type_ == VERBLIJFSOBJECT else polygon), _ring_extent(ring)


# --------------------------------------------------------------------------------------
# Fixtures: the samples and edge cases, with fixed identifiers
# --------------------------------------------------------------------------------------


def _in_use(area: int, *doelen: str) -> list[AoState]:
    """A single occurrence: in use since the 2009 conversion to the register."""
    return [AoState(VBO_IN_GEBRUIK, date(2009, 10, 1), area, doelen)]


def _fixture_vbo(
    world: _World,
    serial: int,
    hoofdadres: str,
    panden: tuple[str, ...],
    ring: Ring,
    states: list[AoState],
    *,
    nevenadressen: tuple[str, ...] = (),
    vlak: bool = False,
) -> str:
    return world.add_object(
        _A,
        VERBLIJFSOBJECT,
        hoofdadres,
        states,
        point=None if vlak else _inside(world.rng, ring),
        ring=ring,
        panden=panden,
        nevenadressen=nevenadressen,
        identificatie=_vbo(serial),
    )


def _build_fixture_streets(world: _World) -> None:
    begin = date(2009, 7, 1)
    wp = WP_AMSTELVEER
    world.add_openbare_ruimte(_A, "Kerkstraat", "Weg", wp, begin, identificatie=OR_KERKSTRAAT)
    world.add_openbare_ruimte(
        _A, "Burgemeester van Nieuwenhuijsenstraat", "Weg", wp, begin, identificatie=OR_BURGEMEESTER
    )
    world.add_openbare_ruimte(_A, "Kerkgracht", "Water", wp, begin, identificatie=OR_KERKGRACHT)
    world.add_openbare_ruimte(_A, "Woonwagenpark De Brink", "Terrein", wp, begin, identificatie=OR_DE_BRINK)
    world.add_openbare_ruimte(_A, "Marktplein", "Weg", wp, begin, identificatie=OR_MARKTPLEIN)


def _build_kerkstraat(world: _World) -> None:
    """Kerkstraat's even side: exacteMatch variants, side addresses, end statuses, history."""
    begin = date(2009, 7, 1)
    y0, depth = _SY - 20, 12.0

    def na(
        serial: int,
        number: int,
        letter: str | None = None,
        addition: str | None = None,
        *,
        street: str = OR_KERKSTRAAT,
        postcode: str = PC_KERKSTRAAT_EVEN,
        status: str = NAAMGEVING_UITGEGEVEN,
    ) -> str:
        return world.add_nummeraanduiding(
            _A,
            street,
            number,
            postcode,
            VERBLIJFSOBJECT,
            begin,
            huisletter=letter,
            toevoeging=addition,
            status=status,
            identificatie=_na(serial),
        )

    def pand(
        serial: int,
        x: float,
        width: float,
        *,
        status: str = PAND_IN_GEBRUIK,
        bouwjaar: int = 1910,
        y: float = y0,
        height: float = depth,
    ) -> tuple[str, Ring]:
        ring = _rect(_SX + x, y, width, height)
        return world.add_pand(_A, ring, bouwjaar, status, identificatie=_pand(serial)), ring

    # Kerkstraat 12, 12A, 12-1 and 12 B2 share one postcode and house number.
    p12, r12 = pand(101, 420, 14)
    for serial, letter, addition, area in (
        (101, None, None, 85),
        (102, "A", None, 62),
        (103, None, "1", 55),
        (104, "B", "2", 48),
    ):
        _fixture_vbo(world, serial, na(serial, 12, letter, addition), (p12,), r12, _in_use(area, WOONFUNCTIE))
    p14, r14 = pand(102, 434, 8)
    _fixture_vbo(world, 105, na(105, 14, None, "A"), (p14,), r14, _in_use(90, WOONFUNCTIE))
    p16, r16 = pand(103, 442, 10)
    _fixture_vbo(world, 106, na(106, 16), (p16,), r16, _in_use(70, WOONFUNCTIE))
    _fixture_vbo(world, 107, na(107, 16), (p16,), r16, _in_use(72, WOONFUNCTIE))
    p18, r18 = pand(104, 452, 8)
    _fixture_vbo(world, 108, na(108, 18, "c"), (p18,), r18, _in_use(120, WINKELFUNCTIE))

    # The `verblijfsobject` sample: main and side address, two buildings.
    p20, r20 = pand(105, 460, 12, bouwjaar=1898)
    p20b, _ = pand(106, 472, 8, bouwjaar=1964)
    neven = na(110, 3, street=OR_MARKTPLEIN, postcode=PC_MARKTPLEIN)
    _fixture_vbo(
        world,
        109,
        na(109, 20),
        (p20,) if world.ordinary else (p20, p20b),
        r20,
        _in_use(245, WINKELFUNCTIE, WOONFUNCTIE),
        nevenadressen=(neven,),
    )

    # A current office whose side address Kerkstraat 24 was withdrawn.
    p26, r26 = pand(107, 480, 10)
    withdrawn = na(112, 24, status=NAAMGEVING_INGETROKKEN)
    _fixture_vbo(
        world, 110, na(111, 26), (p26,), r26, _in_use(180, KANTOORFUNCTIE), nevenadressen=(withdrawn,)
    )

    # A withdrawn object (merged into 28A) whose address and building are still current.
    p28, r28 = pand(108, 490, 10)
    _fixture_vbo(
        world,
        111,
        na(113, 28),
        (p28,),
        r28,
        [
            AoState(VBO_IN_GEBRUIK, date(2009, 11, 2), 70, (WOONFUNCTIE,)),
            AoState(VBO_INGETROKKEN, date(2021, 3, 1), 70, (WOONFUNCTIE,)),
        ],
    )
    _fixture_vbo(world, 112, na(114, 28, "A"), (p28,), r28, _in_use(75, WOONFUNCTIE))

    # The history sample: five occurrences, the third removed from the valid life cycle;
    # on HISTORIE_DATUM it was 112 m2 living space, now 128 m2 living and office space.
    p32, r32 = pand(109, 500, 10, bouwjaar=2010)
    _fixture_vbo(
        world,
        113,
        na(115, 32),
        (p32,),
        r32,
        [
            AoState(VBO_GEVORMD, date(2010, 3, 15), 112, (WOONFUNCTIE,)),
            AoState(VBO_IN_GEBRUIK, date(2011, 1, 10), 112, (WOONFUNCTIE,)),
            AoState(VBO_VERBOUWING, date(2018, 6, 1), 1120, (WOONFUNCTIE,), removed=True),
            AoState(VBO_VERBOUWING, date(2018, 6, 1), 128, (WOONFUNCTIE,)),
            AoState(VBO_IN_GEBRUIK, date(2019, 4, 1), 128, (WOONFUNCTIE, KANTOORFUNCTIE)),
        ],
    )

    # A current object in a current building and a demolished annex.
    p34, r34 = pand(111, 510, 10)
    annex, _ = pand(110, 510, 10, status=PAND_GESLOOPT, bouwjaar=1955, y=y0 - 12, height=12)
    _fixture_vbo(
        world, 114, na(116, 34), (p34,) if world.ordinary else (p34, annex), r34, _in_use(140, WOONFUNCTIE)
    )

    # Polygon geometry, and the smallest area with `overige gebruiksfunctie`.
    p36, r36 = pand(112, 520, 15, bouwjaar=1932)
    _fixture_vbo(world, 115, na(117, 36), (p36,), r36, _in_use(310, BIJEENKOMSTFUNCTIE), vlak=True)
    p38, r38 = pand(113, 535, 3, bouwjaar=1987, y=y0 + 9, height=3)
    _fixture_vbo(world, 116, na(118, 38), (p38,), r38, _in_use(1, OVERIGE_GEBRUIKSFUNCTIE))


def _build_flat(world: _World) -> None:
    """The `pand` sample: a 1970s block of 48 flats on a street with a long name."""
    ring = _rect(_SX + 420, _SY + 96, 80, 16)
    flat = world.add_pand(_A, ring, 1972, PAND_IN_GEBRUIK, identificatie=PAND_FLAT)
    for offset in range(FLAT_SIZE):
        number = FLAT_FIRST_NUMBER + offset
        postcode = PC_FLAT_LOW if offset < FLAT_SIZE // 2 else PC_FLAT_HIGH
        address = world.add_nummeraanduiding(
            _A,
            OR_BURGEMEESTER,
            number,
            postcode,
            VERBLIJFSOBJECT,
            date(2009, 7, 1),
            identificatie=_na(201 + offset),
        )
        area = world.rng.randint(48, 110)
        world.add_object(
            _A,
            VERBLIJFSOBJECT,
            address,
            [AoState(VBO_IN_GEBRUIK, date(2009, 8, 3), area, (WOONFUNCTIE,))],
            point=_inside(world.rng, ring),
            panden=(flat,),
            identificatie=_vbo(201 + offset),
        )


def _build_berths_and_pitches(world: _World) -> None:
    """Kerkgracht's berths 1-6 (6 withdrawn) and De Brink's pitches 1-5 (5 without postcode)."""
    berth_x, berth_y = _FIXTURE_BERTHS[world.data_set]
    pitch_x, pitch_y = _FIXTURE_PITCHES[world.data_set]
    for number in range(1, 7):
        address = world.add_nummeraanduiding(
            _A,
            OR_KERKGRACHT,
            number,
            PC_KERKGRACHT,
            LIGPLAATS,
            date(2009, 7, 1),
            identificatie=ident(_A, "20", 300 + number),
        )
        states = [AoState(PLAATS_AANGEWEZEN, date(2009, 12, 1))]
        if number == 6:
            states.append(AoState(PLAATS_INGETROKKEN, date(2020, 5, 4)))
        world.add_object(
            _A,
            LIGPLAATS,
            address,
            states,
            ring=_rect(berth_x + (number - 1) * 24, berth_y, 20, 5.5),
            identificatie=ident(_A, "02", 100 + number),
        )
    for number in range(1, 6):
        address = world.add_nummeraanduiding(
            _A,
            OR_DE_BRINK,
            number,
            None if number == 5 else PC_DE_BRINK,
            STANDPLAATS,
            date(2009, 7, 1),
            identificatie=ident(_A, "20", 400 + number),
        )
        world.add_object(
            _A,
            STANDPLAATS,
            address,
            [AoState(PLAATS_AANGEWEZEN, date(2010, 2, 1))],
            ring=_rect(pitch_x + (number - 1) * 18, pitch_y, 12, 8),
            identificatie=ident(_A, "03", 100 + number),
        )


def _build_fixtures(world: _World) -> None:
    _build_fixture_streets(world)
    _build_kerkstraat(world)
    _build_flat(world)
    _build_berths_and_pitches(world)
    # Ordinary neighbours around the fixtures, so the showcase is not a sterile island.
    _build_side(world, _Side(_A, OR_KERKSTRAAT, 1181, _SY, 1, 1, _SX + 300, 1930), 21)
    _build_side(world, _Side(_A, OR_BURGEMEESTER, 1181, _SY + 120, 1, 1, _SX + 300, 1972), 16)
    _build_side(world, _Side(_A, OR_MARKTPLEIN, 1181, _SY + 200, 5, 1, _SX + 600, 1890), 8)


# --------------------------------------------------------------------------------------
# Bulk: ordinary streets
# --------------------------------------------------------------------------------------


@dataclass
class _Side:
    """One side of a street being filled with plots (odd numbers north, even south)."""

    gemeente: str
    openbare_ruimte: str
    postcode_digits: int
    street_y: float
    number: int
    direction: int  # +1 north of the street line, -1 south
    x: float
    era: int  # typical build year of the street
    postcode: str | None = None
    numbers_in_postcode: int = 0

    def take_postcode(self, world: _World, count: int) -> str:
        # A postcode covers about a dozen consecutive numbers on one side of a street.
        if self.postcode is None or self.numbers_in_postcode >= 12:
            self.postcode = world.new_postcode(self.postcode_digits)
            self.numbers_in_postcode = 0
        self.numbers_in_postcode += count
        return self.postcode

    def ring(self, width: float, depth: float, *, offset: float = 0.0) -> Ring:
        y = self.street_y + 8 if self.direction > 0 else self.street_y - 8 - depth
        return _rect(self.x + offset, y, width, depth)


@dataclass(frozen=True)
class _Fate:
    pand_status: str
    bouwjaar: int
    vbo_status: str | None  # None: drawn per object


def _pand_fate(rng: random.Random, era: int) -> _Fate:
    year = min(era + rng.randint(0, 6), 2022)
    r = rng.random()
    if r < 0.015:
        return _Fate(PAND_GESLOOPT, year, VBO_INGETROKKEN)
    if r < 0.02:
        return _Fate(PAND_NIET_GEREALISEERD, 2021, VBO_NIET_GEREALISEERD)
    if r < 0.025:
        return _Fate(PAND_TEN_ONRECHTE, year, VBO_TEN_ONRECHTE)
    if r < 0.04:
        return _Fate(PAND_BOUW_GESTART, 2024, VBO_GEVORMD)
    if r < 0.05:
        return _Fate(PAND_BOUWVERGUNNING, 2024, VBO_GEVORMD)
    if r < 0.06:
        return _Fate(PAND_VERBOUWING, year, VBO_VERBOUWING)
    if r < 0.065:
        return _Fate(PAND_SLOOPVERGUNNING, year, None)
    if r < 0.07:
        return _Fate(PAND_BUITEN_GEBRUIK, year, VBO_BUITEN_GEBRUIK)
    if r < 0.10:
        return _Fate(PAND_IN_GEBRUIK_NIET_INGEMETEN, year, None)
    return _Fate(PAND_IN_GEBRUIK, year, None)


def _vbo_status(rng: random.Random, fate: _Fate) -> str:
    if fate.vbo_status is not None:
        return fate.vbo_status
    r = rng.random()
    if r < 0.03:
        return VBO_IN_GEBRUIK_NIET_INGEMETEN
    if r < 0.04:
        return VBO_BUITEN_GEBRUIK
    if r < 0.055:
        return VBO_INGETROKKEN
    if r < 0.07:
        return VBO_VERBOUWING
    return VBO_IN_GEBRUIK


# Statuses an object reaches after having been in use: its life cycle shows both.
_AFTER_USE = frozenset({VBO_INGETROKKEN, VBO_BUITEN_GEBRUIK, VBO_TEN_ONRECHTE, VBO_VERBOUWING})


def _vbo_states(
    rng: random.Random, status: str, area: int, doelen: tuple[str, ...], bouwjaar: int
) -> list[AoState]:
    start = _bag_start(rng, bouwjaar)
    if status == VBO_GEVORMD:
        return [AoState(VBO_GEVORMD, start, area, doelen)]
    if status == VBO_NIET_GEREALISEERD:
        return [AoState(VBO_GEVORMD, start, area, doelen), AoState(status, _later(rng, start), area, doelen)]
    states: list[AoState] = []
    if bouwjaar >= 2010:
        states.append(AoState(VBO_GEVORMD, start - timedelta(days=rng.randint(200, 500)), area, doelen))
    if status in _AFTER_USE:
        states.append(AoState(VBO_IN_GEBRUIK, start, area, doelen))
        states.append(AoState(status, _later(rng, start), area, doelen))
    elif rng.random() < 0.2:
        # Remeasured later: the area changes between occurrences.
        first_area = max(1, round(area * rng.uniform(0.85, 0.97)))
        states.append(AoState(status, start, first_area, doelen))
        states.append(AoState(status, _later(rng, start), area, doelen))
    else:
        states.append(AoState(status, start, area, doelen))
    if len(states) >= 2 and rng.random() < 0.03:
        # A mistyped area, registered and then removed from the valid life cycle.
        last = states[-1]
        wrong = area * 10 if area * 10 <= 999_999 else area + 1
        states.insert(-1, replace(last, oppervlakte=wrong, removed=True))
    return states


def _address_status(rng: random.Random, object_status: str) -> str:
    if object_status in END_STATUSES and rng.random() < 0.6:
        return NAAMGEVING_INGETROKKEN
    return NAAMGEVING_UITGEGEVEN


def _add_vbo(
    world: _World,
    side: _Side,
    fate: _Fate,
    panden: tuple[str, ...],
    ring: Ring,
    number: int,
    postcode: str,
    area: int,
    doelen: tuple[str, ...],
    *,
    letter: str | None = None,
    addition: str | None = None,
    neven_number: int | None = None,
) -> None:
    rng = world.rng
    status = _vbo_status(rng, fate)
    begin = _bag_start(rng, fate.bouwjaar)
    address_status = _address_status(rng, status)

    def address(n: int, let: str | None, add: str | None) -> str:
        return world.add_nummeraanduiding(
            side.gemeente,
            side.openbare_ruimte,
            n,
            postcode,
            VERBLIJFSOBJECT,
            begin,
            huisletter=let,
            toevoeging=add,
            status=address_status,
        )

    hoofd = address(number, letter, addition)
    neven = (address(neven_number, None, None),) if neven_number is not None else ()
    vlak = rng.random() < 0.005
    world.add_object(
        side.gemeente,
        VERBLIJFSOBJECT,
        hoofd,
        _vbo_states(rng, status, area, doelen, fate.bouwjaar),
        point=None if vlak else _inside(rng, ring),
        ring=ring,
        panden=panden,
        nevenadressen=neven,
    )


def _plot_house(world: _World, side: _Side) -> tuple[float, int]:
    rng = world.rng
    width = rng.uniform(5.4, 8.0)
    ring = side.ring(width, rng.uniform(8.0, 11.0))
    fate = _pand_fate(rng, side.era)
    pand = world.add_pand(side.gemeente, ring, fate.bouwjaar, fate.pand_status)
    postcode = side.take_postcode(world, 1)
    _add_vbo(world, side, fate, (pand,), ring, side.number, postcode, rng.randint(55, 180), (WOONFUNCTIE,))
    return width, 1


def _plot_shop_with_upstairs(world: _World, side: _Side) -> tuple[float, int]:
    rng = world.rng
    width = rng.uniform(7.0, 10.0)
    ring = side.ring(width, rng.uniform(10.0, 14.0))
    fate = _pand_fate(rng, side.era)
    pand = world.add_pand(side.gemeente, ring, fate.bouwjaar, fate.pand_status)
    postcode = side.take_postcode(world, 1)
    _add_vbo(world, side, fate, (pand,), ring, side.number, postcode, rng.randint(40, 250), (WINKELFUNCTIE,))
    upstairs = rng.randint(1, 2)
    by_letter = rng.random() < 0.5
    for i in range(upstairs):
        if by_letter:
            letter = "AB"[i] if rng.random() > 0.05 else "ab"[i]
            _add_vbo(
                world,
                side,
                fate,
                (pand,),
                ring,
                side.number,
                postcode,
                rng.randint(45, 110),
                (WOONFUNCTIE,),
                letter=letter,
            )
        else:
            _add_vbo(
                world,
                side,
                fate,
                (pand,),
                ring,
                side.number,
                postcode,
                rng.randint(45, 110),
                (WOONFUNCTIE,),
                addition=str(i + 1),
            )
    return width, 1


def _plot_flats(world: _World, side: _Side) -> tuple[float, int]:
    rng = world.rng
    width = rng.uniform(14.0, 24.0)
    ring = side.ring(width, rng.uniform(12.0, 16.0))
    fate = _pand_fate(rng, side.era)
    pand = world.add_pand(side.gemeente, ring, fate.bouwjaar, fate.pand_status)
    postcode = side.take_postcode(world, 1)
    count = rng.randint(4, 12)
    by_letter = count <= 6 and rng.random() < 0.4
    for i in range(count):
        letter, addition = ("ABCDEF"[i], None) if by_letter else (None, str(i + 1))
        if not by_letter and rng.random() < 0.1:
            addition = f"{i + 1}H"  # e.g. "3H": an alphanumeric addition
        _add_vbo(
            world,
            side,
            fate,
            (pand,),
            ring,
            side.number,
            postcode,
            rng.randint(40, 110),
            (WOONFUNCTIE,),
            letter=letter,
            addition=addition,
        )
    return width, 1


def _plot_office(world: _World, side: _Side) -> tuple[float, int]:
    rng = world.rng
    width = rng.uniform(12.0, 30.0)
    ring = side.ring(width, rng.uniform(12.0, 25.0))
    fate = _pand_fate(rng, side.era)
    pand = world.add_pand(side.gemeente, ring, fate.bouwjaar, fate.pand_status)
    corner = rng.random() < 0.3  # a corner building also has a side address
    postcode = side.take_postcode(world, 2 if corner else 1)
    area = rng.randint(10_000, 60_000) if rng.random() < 0.05 else rng.randint(150, 4000)
    _add_vbo(
        world,
        side,
        fate,
        (pand,),
        ring,
        side.number,
        postcode,
        area,
        (KANTOORFUNCTIE,),
        neven_number=side.number + 2 if corner else None,
    )
    return width, 2 if corner else 1


_SPECIAL_DOELEN: tuple[tuple[str, int, int], ...] = (
    (BIJEENKOMSTFUNCTIE, 80, 1500),
    (CELFUNCTIE, 400, 9000),
    (GEZONDHEIDSZORGFUNCTIE, 60, 20000),
    (INDUSTRIEFUNCTIE, 500, 250000),
    (LOGIESFUNCTIE, 100, 6000),
    (ONDERWIJSFUNCTIE, 300, 8000),
    (SPORTFUNCTIE, 200, 5000),
    (OVERIGE_GEBRUIKSFUNCTIE, 2, 400),
)


def _plot_special(world: _World, side: _Side) -> tuple[float, int]:
    rng = world.rng
    width = rng.uniform(10.0, 30.0)
    ring = side.ring(width, rng.uniform(10.0, 30.0))
    fate = _pand_fate(rng, side.era)
    pand = world.add_pand(side.gemeente, ring, fate.bouwjaar, fate.pand_status)
    doel, low, high = rng.choice(_SPECIAL_DOELEN)
    doelen: tuple[str, ...] = (doel,)
    if rng.random() < 0.3:
        extra = rng.choice(GEBRUIKSDOELEN)
        if extra != doel:
            doelen = (doel, extra)
    corner = rng.random() < 0.3
    postcode = side.take_postcode(world, 2 if corner else 1)
    _add_vbo(
        world,
        side,
        fate,
        (pand,),
        ring,
        side.number,
        postcode,
        rng.randint(low, high),
        doelen,
        neven_number=side.number + 2 if corner else None,
    )
    return width, 2 if corner else 1


def _plot_across_two_buildings(world: _World, side: _Side) -> tuple[float, int]:
    """A shop that broke through the wall into the neighbouring building."""
    rng = world.rng
    widths = (rng.uniform(5.5, 8.0), rng.uniform(5.5, 8.0))
    depth = rng.uniform(9.0, 12.0)
    fate = _pand_fate(rng, side.era)
    first = side.ring(widths[0], depth)
    second = side.ring(widths[1], depth, offset=widths[0])
    pand_a = world.add_pand(side.gemeente, first, fate.bouwjaar, fate.pand_status)
    pand_b = world.add_pand(side.gemeente, second, fate.bouwjaar, fate.pand_status)
    postcode = side.take_postcode(world, 1)
    _add_vbo(
        world,
        side,
        fate,
        (pand_a,) if world.ordinary else (pand_a, pand_b),
        first,
        side.number,
        postcode,
        rng.randint(150, 400),
        (WINKELFUNCTIE, WOONFUNCTIE),
    )
    return widths[0] + widths[1], 1


_PLOT_KINDS = (
    (0.70, _plot_house),
    (0.78, _plot_shop_with_upstairs),
    (0.88, _plot_flats),
    (0.92, _plot_office),
    (0.97, _plot_special),
    (1.00, _plot_across_two_buildings),
)


def _build_side(world: _World, side: _Side, plots: int) -> None:
    for _ in range(plots):
        draw = world.rng.random()
        builder = next(kind for limit, kind in _PLOT_KINDS if draw < limit)
        width, numbers = builder(world, side)
        side.x += width + world.rng.choice((0.0, 0.0, 1.5))
        side.number += 2 * numbers


def _build_berths(world: _World, gemeente: str, water: str, digits: int, x0: float, y: float) -> None:
    rng = world.rng
    postcode = world.new_postcode(digits)
    for number in range(1, rng.randint(18, 26) + 1):
        if number % 13 == 0:
            postcode = world.new_postcode(digits)
        start = _bag_start(rng, 2000)
        states = [AoState(PLAATS_AANGEWEZEN, start)]
        draw = rng.random()
        if draw < 0.05:
            states.append(AoState(PLAATS_INGETROKKEN, _later(rng, start)))
        elif draw < 0.15:
            states.append(AoState(PLAATS_AANGEWEZEN, _later(rng, start)))  # a redrawn berth
        status = NAAMGEVING_INGETROKKEN if states[-1].status in END_STATUSES else NAAMGEVING_UITGEGEVEN
        address = world.add_nummeraanduiding(
            gemeente, water, number, postcode, LIGPLAATS, start, status=status
        )
        ring = _rect(
            x0 + (number - 1) * 24 + rng.uniform(0, 2), y + 2, rng.uniform(15, 22), rng.uniform(4.5, 7)
        )
        world.add_object(gemeente, LIGPLAATS, address, states, ring=ring)


def _build_pitches(world: _World, gemeente: str, terrain: str, digits: int, x0: float, y0: float) -> None:
    rng = world.rng
    postcode = world.new_postcode(digits)
    for number in range(1, 21):
        row, column = divmod(number - 1, 5)
        start = _bag_start(rng, 2005)
        states = [AoState(PLAATS_AANGEWEZEN, start)]
        if rng.random() < 0.05:
            states.append(AoState(PLAATS_INGETROKKEN, _later(rng, start)))
        address = world.add_nummeraanduiding(gemeente, terrain, number, postcode, STANDPLAATS, start)
        ring = _rect(x0 + column * 18, y0 + row * 14, rng.uniform(10, 13), rng.uniform(7, 9))
        world.add_object(gemeente, STANDPLAATS, address, states, ring=ring)


def _build_streets(world: _World, plan: _PlacePlan) -> None:
    """The bulk of a woonplaats: a grid of streets, then its waters and terrains."""
    rng = world.rng
    code = plan.gemeente.code
    cx, cy = plan.centre
    for index, naam in enumerate(plan.streets):
        street = world.add_openbare_ruimte(code, naam, "Weg", plan.identificatie, plan.begin)
        y = cy - 800 + index * 85
        x0 = cx - 900 + (index % 3) * 300
        digits = plan.postcode_digits + index // 3
        era = rng.randint(1880, 2016)
        plots = rng.randint(13, 19)
        _build_side(world, _Side(code, street, digits, y, 1, 1, x0, era), plots)
        _build_side(world, _Side(code, street, digits, y, 2, -1, x0, era), plots + rng.randint(-2, 2))
    digits = plan.postcode_digits + 7
    # The streets' plots lie within about cx-900..cx+400, cy-840..cy+690. Full: berths
    # and pitches just north of them. Ordinary: berths north-west, pitches south-east,
    # each a kilometre or more from the plots and from each other.
    if world.ordinary:
        (berth_x, berth_y), (pitch_x, pitch_y) = (cx - 1300, cy + 1700), (cx + 300, cy - 1950)
    else:
        (berth_x, berth_y), (pitch_x, pitch_y) = (cx - 600, cy + 800), (cx + 300, cy + 1000)
    for index, naam in enumerate(plan.water):
        water = world.add_openbare_ruimte(code, naam, "Water", plan.identificatie, plan.begin)
        _build_berths(world, code, water, digits, berth_x, berth_y + index * 70)
    for index, naam in enumerate(plan.terrain):
        terrain = world.add_openbare_ruimte(code, naam, "Terrein", plan.identificatie, plan.begin)
        _build_pitches(world, code, terrain, digits, pitch_x + index * 150, pitch_y)
    for naam, type_ in plan.unaddressed:
        world.add_openbare_ruimte(code, naam, type_, plan.identificatie, plan.begin)


def _build_withdrawn_street(world: _World) -> None:
    """A public space of Zuiderhaven withdrawn in 2017; its addresses are hidden."""
    code = ZUIDERHAVEN.code
    street = world.add_openbare_ruimte(
        code,
        "Oude Werfstraat",
        "Weg",
        WP_ZUIDERHAVEN,
        date(2010, 1, 1),
        identificatie=OR_OUDE_WERFSTRAAT,
        status=NAAMGEVING_INGETROKKEN,
    )
    _build_side(world, _Side(code, street, 3019, 435500.0, 1, 1, 90500.0, 1905), 6)


def _build_world(seed: int = SEED, data_set: str = FULL) -> _World:
    world = _World(random.Random(seed), data_set)
    for plan in _PLACES:
        world.add_woonplaats(plan)
    _build_fixtures(world)
    for plan in _PLACES:
        _build_streets(world, plan)
    _build_withdrawn_street(world)
    return world


# --------------------------------------------------------------------------------------
# Writing SQLite
# --------------------------------------------------------------------------------------

_VK_COLUMNS = (
    "versie INTEGER NOT NULL, begin_geldigheid TEXT NOT NULL, eind_geldigheid TEXT,"
    " tijdstip_registratie TEXT NOT NULL, eind_registratie TEXT,"
    " tijdstip_registratie_lv TEXT NOT NULL, tijdstip_eind_registratie_lv TEXT,"
    " tijdstip_inactief TEXT, tijdstip_inactief_lv TEXT"
)
_ADMIN_COLUMNS = "geconstateerd TEXT NOT NULL, documentdatum TEXT NOT NULL, documentnummer TEXT NOT NULL"

SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE eindstatus (status TEXT PRIMARY KEY);
CREATE TABLE bronhouder (
    code TEXT PRIMARY KEY, naam TEXT NOT NULL, begin_geldigheid TEXT NOT NULL,
    provincie_naam TEXT NOT NULL, provincie_afkorting TEXT NOT NULL);
CREATE TABLE woonplaats (
    identificatie TEXT PRIMARY KEY, naam TEXT NOT NULL, naam_lc TEXT NOT NULL,
    status TEXT NOT NULL, gemeente TEXT NOT NULL REFERENCES bronhouder(code),
    {_ADMIN_COLUMNS}, {_VK_COLUMNS});
CREATE TABLE openbare_ruimte (
    identificatie TEXT PRIMARY KEY, naam TEXT NOT NULL, naam_lc TEXT NOT NULL,
    korte_naam TEXT NOT NULL, type TEXT NOT NULL, status TEXT NOT NULL,
    woonplaats TEXT NOT NULL REFERENCES woonplaats(identificatie),
    {_ADMIN_COLUMNS}, {_VK_COLUMNS});
CREATE TABLE nummeraanduiding (
    identificatie TEXT PRIMARY KEY, huisnummer INTEGER NOT NULL, huisletter TEXT,
    huisnummertoevoeging TEXT, postcode TEXT, type_adresseerbaar_object TEXT NOT NULL,
    status TEXT NOT NULL, openbare_ruimte TEXT NOT NULL REFERENCES openbare_ruimte(identificatie),
    zoek_identificatie TEXT NOT NULL UNIQUE,
    {_ADMIN_COLUMNS}, {_VK_COLUMNS});
CREATE TABLE pand (
    identificatie TEXT PRIMARY KEY, oorspronkelijk_bouwjaar INTEGER NOT NULL,
    status TEXT NOT NULL, geometrie TEXT NOT NULL,
    {_ADMIN_COLUMNS}, {_VK_COLUMNS});
-- One row per occurrence (voorkomen) of a verblijfsobject, ligplaats or standplaats.
-- laatste = 1 marks the latest occurrence of the valid life cycle.
CREATE TABLE ao_voorkomen (
    rid INTEGER PRIMARY KEY, identificatie TEXT NOT NULL, type TEXT NOT NULL,
    status TEXT NOT NULL, oppervlakte INTEGER, geometrie TEXT NOT NULL,
    minx REAL NOT NULL, miny REAL NOT NULL, maxx REAL NOT NULL, maxy REAL NOT NULL,
    verwijderd INTEGER NOT NULL, laatste INTEGER NOT NULL,
    {_ADMIN_COLUMNS}, {_VK_COLUMNS}, UNIQUE (identificatie, versie));
CREATE TABLE ao_adres (
    rid INTEGER NOT NULL REFERENCES ao_voorkomen(rid),
    nummeraanduiding TEXT NOT NULL REFERENCES nummeraanduiding(identificatie),
    nevenadres INTEGER NOT NULL, volgorde INTEGER NOT NULL, PRIMARY KEY (rid, nummeraanduiding));
CREATE TABLE ao_pand (
    rid INTEGER NOT NULL REFERENCES ao_voorkomen(rid),
    pand TEXT NOT NULL REFERENCES pand(identificatie),
    volgorde INTEGER NOT NULL, PRIMARY KEY (rid, pand));
CREATE TABLE ao_gebruiksdoel (
    rid INTEGER NOT NULL REFERENCES ao_voorkomen(rid), gebruiksdoel TEXT NOT NULL,
    volgorde INTEGER NOT NULL, PRIMARY KEY (rid, gebruiksdoel));
CREATE INDEX nummeraanduiding_postcode ON nummeraanduiding (postcode, huisnummer);
CREATE INDEX nummeraanduiding_openbare_ruimte ON nummeraanduiding (openbare_ruimte);
CREATE INDEX openbare_ruimte_woonplaats ON openbare_ruimte (woonplaats);
CREATE INDEX ao_voorkomen_laatste ON ao_voorkomen (laatste, identificatie);
CREATE INDEX ao_voorkomen_extent ON ao_voorkomen (minx, maxx);
CREATE INDEX ao_adres_nummeraanduiding ON ao_adres (nummeraanduiding);
CREATE INDEX ao_pand_pand ON ao_pand (pand);
"""


def _day(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


def _ts(value: datetime | None) -> str | None:
    return format_timestamp(value) if value is not None else None


def _vk_values(vk: Voorkomen) -> tuple[Any, ...]:
    return (
        vk.versie,
        _day(vk.begin_geldigheid),
        _day(vk.eind_geldigheid),
        _ts(vk.tijdstip_registratie),
        _ts(vk.eind_registratie),
        _ts(vk.tijdstip_registratie_lv),
        _ts(vk.tijdstip_eind_registratie_lv),
        _ts(vk.tijdstip_inactief),
        _ts(vk.tijdstip_inactief_lv),
    )


def _admin_values(admin: Admin) -> tuple[Any, ...]:
    return (
        admin.geconstateerd,
        admin.documentdatum.isoformat(),
        admin.documentnummer,
        *_vk_values(admin.voorkomen),
    )


def _placeholders(count: int) -> str:
    return ", ".join("?" * count)


def _insert(conn: sqlite3.Connection, table: str, rows: Iterable[tuple[Any, ...]]) -> None:
    rows = list(rows)
    if rows:
        conn.executemany(f"INSERT INTO {table} VALUES ({_placeholders(len(rows[0]))})", rows)


def _geometry_text(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"))


def _write_objects(conn: sqlite3.Connection, objects: list[AoRecord]) -> None:
    occurrences: list[tuple[Any, ...]] = []
    addresses: list[tuple[Any, ...]] = []
    buildings: list[tuple[Any, ...]] = []
    purposes: list[tuple[Any, ...]] = []
    rid = 0
    for record in objects:
        latest = max(vk.versie for vk, _, _ in record.occurrences if not record.states[vk.versie - 1].removed)
        geometry = _geometry_text(record.geometrie)
        for (vk, documentdatum, documentnummer), state in zip(record.occurrences, record.states, strict=True):
            rid += 1
            occurrences.append(
                (
                    rid,
                    record.identificatie,
                    record.type,
                    state.status,
                    state.oppervlakte,
                    geometry,
                    *record.extent,
                    int(state.removed),
                    int(vk.versie == latest),
                    record.geconstateerd,
                    documentdatum.isoformat(),
                    documentnummer,
                    *_vk_values(vk),
                )
            )
            addresses.append((rid, record.hoofdadres, 0, 0))
            addresses.extend((rid, neven, 1, i) for i, neven in enumerate(record.nevenadressen, start=1))
            buildings.extend((rid, pand, i) for i, pand in enumerate(record.panden))
            purposes.extend((rid, doel, i) for i, doel in enumerate(state.gebruiksdoelen))
    _insert(conn, "ao_voorkomen", occurrences)
    _insert(conn, "ao_adres", addresses)
    _insert(conn, "ao_pand", buildings)
    _insert(conn, "ao_gebruiksdoel", purposes)


def _write(conn: sqlite3.Connection, world: _World) -> None:
    conn.executescript(SCHEMA)
    meta = [("generator_version", GENERATOR_VERSION), ("seed", str(SEED))]
    if world.data_set != FULL:  # the full set's file stays as it always was
        meta.append(("data_set", world.data_set))
    _insert(conn, "meta", meta)
    _insert(conn, "eindstatus", [(s,) for s in sorted(END_STATUSES)])
    _insert(
        conn,
        "bronhouder",
        [(g.code, g.naam, g.begin_geldigheid, g.provincie_naam, g.provincie_afkorting) for g in GEMEENTEN],
    )
    _insert(
        conn,
        "woonplaats",
        [
            (w.identificatie, w.naam, fold(w.naam), w.status, w.gemeente, *_admin_values(w.admin))
            for w in world.woonplaatsen
        ],
    )
    _insert(
        conn,
        "openbare_ruimte",
        [
            (
                o.identificatie,
                o.naam,
                fold(o.naam),
                o.korte_naam,
                o.type,
                o.status,
                o.woonplaats,
                *_admin_values(o.admin),
            )
            for o in world.openbare_ruimten
        ],
    )
    _insert(
        conn,
        "nummeraanduiding",
        [
            (
                n.identificatie,
                n.huisnummer,
                n.huisletter,
                n.toevoeging,
                n.postcode,
                n.type_adresseerbaar_object,
                n.status,
                n.openbare_ruimte,
                zoek_identificatie(n.identificatie),
                *_admin_values(n.admin),
            )
            for n in world.nummeraanduidingen
        ],
    )
    _insert(
        conn,
        "pand",
        [
            (
                p.identificatie,
                p.bouwjaar,
                p.status,
                _geometry_text(polygon_json(p.ring)),
                *_admin_values(p.admin),
            )
            for p in world.panden
        ],
    )
    _write_objects(conn, world.objects)
    _write_search_index(conn)


# --------------------------------------------------------------------------------------
# The search index
# --------------------------------------------------------------------------------------

# The addresses the API lists: one row per address whose addressable object's latest
# occurrence carries it, with whether it, its public space, woonplaats or object has an
# end status (`eind`) and whether a building of that object has one (`pand_eind`).
_ADDRESS_ROWS = """
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
ORDER BY wp_naam, or_naam, huisnummer, coalesce(huisletter, ''), coalesce(toevoeging, ''), na_id
"""

# `volgorde` numbers the addresses in the order above, the order of every answer that
# lists addresses; `korte_naam_lc` is the short name folded (`fold`) like the other names.
SEARCH_SCHEMA = """
CREATE TABLE adres (
    volgorde INTEGER PRIMARY KEY, na_id TEXT NOT NULL, huisnummer INTEGER NOT NULL,
    huisletter TEXT, toevoeging TEXT, postcode TEXT, zoek_identificatie TEXT NOT NULL,
    na_geconstateerd TEXT NOT NULL, or_id TEXT NOT NULL, or_naam TEXT NOT NULL,
    or_naam_lc TEXT NOT NULL, korte_naam TEXT NOT NULL, korte_naam_lc TEXT NOT NULL,
    or_geconstateerd TEXT NOT NULL, wp_id TEXT NOT NULL, wp_naam TEXT NOT NULL,
    wp_naam_lc TEXT NOT NULL, wp_geconstateerd TEXT NOT NULL, rid INTEGER NOT NULL,
    ao_id TEXT NOT NULL, ao_type TEXT NOT NULL, nevenadres INTEGER NOT NULL,
    eind INTEGER NOT NULL, pand_eind INTEGER NOT NULL);
CREATE INDEX adres_na ON adres (na_id);
CREATE INDEX adres_postcode ON adres (postcode, huisnummer);
CREATE INDEX adres_namen ON adres (wp_naam_lc, or_naam_lc, huisnummer);
CREATE INDEX adres_huisnummer ON adres (huisnummer);
CREATE INDEX adres_ao ON adres (ao_id);
CREATE INDEX adres_or ON adres (or_id);
CREATE INDEX adres_rid ON adres (rid);
-- Free text, whole terms: every folded term that matches an address as a whole (its
-- postcode forms and house number forms, see free_text_terms).
CREATE TABLE adres_term (
    term TEXT NOT NULL, volgorde INTEGER NOT NULL, PRIMARY KEY (term, volgorde)) WITHOUT ROWID;
-- Free text, parts of names: the folded woonplaats, street and short name of each
-- address (rowid = volgorde), as trigrams: a term of three or more characters is found
-- where it is part of one of them.
CREATE VIRTUAL TABLE adres_tekst USING fts5(
    woonplaats, openbare_ruimte, korte_naam, content = '', tokenize = 'trigram case_sensitive 1');
-- The bounding box of every occurrence (id = rid). An R*Tree stores 32-bit floats rounded
-- outwards, so it finds a superset that a query narrows with the exact columns.
CREATE VIRTUAL TABLE ao_extent USING rtree(id, minx, maxx, miny, maxy);
"""


def free_text_terms(
    postcode: str | None, huisnummer: int, huisletter: str | None, toevoeging: str | None
) -> set[str]:
    """The folded free-text terms (bag-api.md 4.10) that match an address as a whole: its
    postcode, the postcode's digits, its letters, or a prefix of at least four characters;
    the house number, letter and addition, also written together (`12a`, `12-1`)."""
    terms: set[str] = set()
    code = fold(postcode or "")
    if code:
        terms.update({code, code[:4], code[4:]})
        terms.update(code[:length] for length in range(4, len(code) + 1))
    number = str(huisnummer)
    letter = fold(huisletter or "")
    addition = fold(toevoeging or "")
    terms.update({number, letter, addition, letter + addition, number + letter, number + letter + addition})
    if addition:
        terms.add(f"{number}-{letter}{addition}")
        terms.add(f"{number}{letter}-{addition}")
    terms.discard("")
    return terms


def _write_search_index(conn: sqlite3.Connection) -> None:
    conn.executescript(SEARCH_SCHEMA)
    cursor = conn.execute(_ADDRESS_ROWS)
    names = [column[0] for column in cursor.description]
    addresses: list[dict[str, Any]] = []
    terms: list[tuple[str, int]] = []
    texts: list[tuple[Any, ...]] = []
    for volgorde, values in enumerate(cursor.fetchall(), start=1):
        row = dict(zip(names, values, strict=True))
        row.update(volgorde=volgorde, korte_naam_lc=fold(row["korte_naam"]))
        addresses.append(row)
        found = free_text_terms(row["postcode"], row["huisnummer"], row["huisletter"], row["toevoeging"])
        terms.extend((term, volgorde) for term in sorted(found))
        texts.append((volgorde, row["wp_naam_lc"], row["or_naam_lc"], row["korte_naam_lc"]))
    if addresses:
        columns = list(addresses[0])
        conn.executemany(
            f"INSERT INTO adres ({', '.join(columns)}) VALUES ({', '.join(':' + c for c in columns)})",
            addresses,
        )
    _insert(conn, "adres_term", terms)
    conn.executemany(
        "INSERT INTO adres_tekst (rowid, woonplaats, openbare_ruimte, korte_naam) VALUES (?, ?, ?, ?)", texts
    )
    conn.execute("INSERT INTO ao_extent SELECT rid, minx, maxx, miny, maxy FROM ao_voorkomen")


def build_database(path: Path, data_set: str = FULL) -> Path:
    """Write a fresh database of `data_set` to `path` (which must not hold another database)."""
    world = _build_world(data_set=data_set)
    conn = sqlite3.connect(path)
    try:
        # A throw-away build: durability buys nothing, speed matters.
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        with conn:
            _write(conn, world)
    finally:
        conn.close()
    return path


def _stored_meta(path: Path) -> dict[str, str] | None:
    """The `meta` table of a database file, or None if unreadable."""
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def stored_version(path: Path) -> str | None:
    """The generator version recorded in a database file, or None if unreadable."""
    meta = _stored_meta(path)
    return meta.get("generator_version") if meta is not None else None


def stored_data_set(path: Path) -> str | None:
    """The data set a database file holds (no `data_set` row: FULL), or None if unreadable."""
    meta = _stored_meta(path)
    return meta.get("data_set", FULL) if meta is not None else None


def ensure_database(path: Path, data_set: str = FULL) -> Path:
    """Build the database at `path` unless it holds `data_set` at GENERATOR_VERSION; return `path`.

    The file is written under a temporary name in the same folder and renamed into place,
    so a concurrent caller sees either the old file, no file, or the complete new one.
    """
    path = Path(path)
    _check_data_set(data_set)
    meta = _stored_meta(path) or {}
    if meta.get("generator_version") == GENERATOR_VERSION and meta.get("data_set", FULL) == data_set:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        build_database(Path(temporary), data_set)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return path


def default_database_path(data_set: str = FULL) -> Path:
    """`address-mock-<version>.sqlite` (full) or `address-mock-<version>-<data set>.sqlite`
    in the cache directory (conformance.paths.cache_dir): the data sets never share a file."""
    suffix = "" if _check_data_set(data_set) == FULL else f"-{data_set}"
    return cache_dir() / f"address-mock-{GENERATOR_VERSION}{suffix}.sqlite"
