"""The address mock's data generator and query layer (conformance.mocks.address)."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from conformance.mocks.address import data
from conformance.mocks.address.data import (
    EDGE_CASES,
    END_STATUSES,
    GENERATOR_VERSION,
    WELL_KNOWN,
    default_database_path,
    ensure_database,
    stored_version,
)
from conformance.mocks.address.repository import AddressQuery, ObjectQuery, Repository

# The keys of the "Samples" table in docs/design.md.
DESIGN_SAMPLE_KEYS = {
    "nummeraanduiding",
    "nummeraanduiding_nevenadres",
    "nummeraanduiding_eindstatus",
    "verblijfsobject",
    "verblijfsobject_nevenadres",
    "verblijfsobject_panden",
    "ligplaats",
    "standplaats",
    "adresseerbaarobject_eindstatus",
    "adresseerbaarobject_historie",
    "historie_datum",
    "pand",
    "openbareruimte",
    "woonplaats",
    "bbox",
    "bbox_ligplaats",
    "bbox_standplaats",
    "bbox_verblijfsobject",
    "unknown_adresseerbaarobject",
    "unknown_nummeraanduiding",
}

PATTERNS = {
    "verblijfsobject": re.compile(r"[0-9]{4}01[0-9]{10}"),
    "ligplaats": re.compile(r"[0-9]{4}02[0-9]{10}"),
    "standplaats": re.compile(r"[0-9]{4}03[0-9]{10}"),
    "pand": re.compile(r"[0-9]{4}10[0-9]{10}"),
    "nummeraanduiding": re.compile(r"[0-9]{4}20[0-9]{10}"),
    "openbare_ruimte": re.compile(r"[0-9]{4}30[0-9]{10}"),
    "woonplaats": re.compile(r"(?!0000)[0-9]{4}"),
}
TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}")
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_database(tmp_path_factory.mktemp("address-mock") / "address.sqlite")


@pytest.fixture(scope="module")
def sql(db: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def repo(db: Path) -> Iterator[Repository]:
    repository = Repository(db)
    yield repository
    repository.close()


def scalar(conn: sqlite3.Connection, query: str, *params: Any) -> Any:
    return conn.execute(query, params).fetchone()[0]


def lines(addresses: list[dict[str, Any]]) -> list[str]:
    return sorted(a["adresregel5"] for a in addresses)


def bbox() -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = (float(v) for v in WELL_KNOWN["bbox"].split(","))
    return x1, y1, x2, y2


# --------------------------------------------------------------------------------------
# Building the file
# --------------------------------------------------------------------------------------


def test_build_records_version_and_is_reused(db: Path) -> None:
    assert stored_version(db) == GENERATOR_VERSION
    before = db.stat().st_ino, db.stat().st_mtime_ns
    assert ensure_database(db) == db
    assert (db.stat().st_ino, db.stat().st_mtime_ns) == before
    assert not [p for p in db.parent.iterdir() if p.name.endswith(".tmp")]


def test_stale_file_is_rebuilt_and_unreadable_counts_as_stale(tmp_path: Path, db: Path) -> None:
    stale = tmp_path / "stale.sqlite"
    stale.write_bytes(db.read_bytes())
    with sqlite3.connect(stale) as conn:
        conn.execute("UPDATE meta SET value = 'old' WHERE key = 'generator_version'")
    conn.close()
    assert stored_version(stale) == "old"
    ensure_database(stale)
    assert stored_version(stale) == GENERATOR_VERSION
    # Anything unreadable counts as stale too (ensure_database then rebuilds it as above).
    broken = tmp_path / "broken.sqlite"
    broken.write_text("not a database")
    assert stored_version(broken) is None
    assert stored_version(tmp_path / "missing.sqlite") is None


def test_two_builds_have_identical_content(tmp_path: Path, sql: sqlite3.Connection) -> None:
    other = ensure_database(tmp_path / "again.sqlite")
    conn = sqlite3.connect(other)
    try:
        assert list(conn.iterdump()) == list(sql.iterdump())
    finally:
        conn.close()


def test_concurrent_callers_get_a_complete_file(tmp_path: Path) -> None:
    target = tmp_path / "new" / "folder" / "shared.sqlite"  # folders are created as needed
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: ensure_database(target), range(2)))
    assert results == [target, target]
    assert stored_version(target) == GENERATOR_VERSION
    assert sorted(p.name for p in target.parent.iterdir()) == ["shared.sqlite"]


def test_default_database_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(data.CACHE_DIR_ENV, raising=False)
    default = default_database_path()
    assert default.name == f"address-mock-{GENERATOR_VERSION}.sqlite"
    assert default.parent.name == ".cache"
    assert (default.parent.parent / "conformance" / "mocks" / "address" / "data.py").is_file()
    monkeypatch.setenv(data.CACHE_DIR_ENV, str(tmp_path))
    assert default_database_path() == tmp_path / f"address-mock-{GENERATOR_VERSION}.sqlite"


def test_repository_is_read_only_and_needs_a_file(db: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Repository(tmp_path / "missing.sqlite")
    repository = Repository(db)
    try:
        with pytest.raises(sqlite3.OperationalError):
            repository._rows("DELETE FROM meta")
    finally:
        repository.close()


# --------------------------------------------------------------------------------------
# Counts and coverage
# --------------------------------------------------------------------------------------


def test_counts(sql: sqlite3.Connection) -> None:
    per_type = dict(sql.execute("SELECT type, count(DISTINCT identificatie) FROM ao_voorkomen GROUP BY type"))
    assert sum(per_type.values()) >= 2000
    assert set(per_type) == {"verblijfsobject", "ligplaats", "standplaats"}
    assert per_type["ligplaats"] >= 20 and per_type["standplaats"] >= 20
    current = "SELECT count(*) FROM {} WHERE status NOT IN eindstatus"
    assert scalar(sql, current.format("woonplaats")) >= 3
    assert scalar(sql, current.format("openbare_ruimte")) >= 50
    assert scalar(sql, "SELECT count(*) FROM bronhouder") >= 3
    # Every addressable object has a main address, and every address an object.
    assert (
        scalar(
            sql,
            "SELECT count(*) FROM nummeraanduiding WHERE identificatie NOT IN "
            "(SELECT nummeraanduiding FROM ao_adres)",
        )
        == 0
    )


def test_coverage(sql: sqlite3.Connection) -> None:
    latest = "FROM ao_voorkomen v WHERE v.laatste = 1"
    assert scalar(sql, "SELECT count(DISTINCT rid) FROM ao_adres WHERE nevenadres = 1") >= 10
    assert (
        scalar(
            sql,
            "SELECT max(n) FROM (SELECT count(*) n FROM ao_pand p JOIN ao_voorkomen v "
            "ON v.rid = p.rid AND v.laatste = 1 GROUP BY pand)",
        )
        >= 45
    )
    assert scalar(sql, "SELECT count(*) FROM (SELECT rid FROM ao_pand GROUP BY rid HAVING count(*) > 1)") >= 5
    statuses = {row[0] for row in sql.execute(f"SELECT status {latest}")}
    statuses |= {
        row[0]
        for row in sql.execute(
            "SELECT status FROM pand UNION SELECT status FROM nummeraanduiding "
            "UNION SELECT status FROM openbare_ruimte UNION "
            "SELECT status FROM woonplaats"
        )
    }
    assert statuses >= END_STATUSES
    assert {"Verblijfsobject in gebruik", "Plaats aangewezen", "Pand in gebruik"} <= statuses
    assert scalar(sql, "SELECT count(*) FROM ao_voorkomen WHERE verwijderd = 1") >= 5
    assert (
        scalar(
            sql,
            "SELECT count(*) FROM (SELECT identificatie FROM ao_voorkomen GROUP BY identificatie "
            "HAVING count(*) >= 3)",
        )
        >= 10
    )
    without_purpose = (
        "SELECT count(*) FROM ao_voorkomen WHERE type = 'verblijfsobject' "
        "AND rid NOT IN (SELECT rid FROM ao_gebruiksdoel)"
    )
    assert scalar(sql, without_purpose) == 0
    doelen = {row[0] for row in sql.execute("SELECT gebruiksdoel FROM ao_gebruiksdoel")}
    assert doelen == set(data.GEBRUIKSDOELEN)
    low, high = sql.execute(
        "SELECT min(oppervlakte), max(oppervlakte) FROM ao_voorkomen WHERE verwijderd = 0"
    ).fetchone()
    assert low == 1 and 10_000 < high <= 999_999
    assert (
        scalar(
            sql,
            "SELECT count(*) FROM ao_voorkomen WHERE type != 'verblijfsobject' AND oppervlakte IS NOT NULL",
        )
        == 0
    )
    kinds = {
        row[0] for row in sql.execute(f"SELECT DISTINCT type || ':' || substr(geometrie, 3, 4) {latest}")
    }
    assert kinds == {"verblijfsobject:punt", "verblijfsobject:vlak", "ligplaats:type", "standplaats:type"}
    assert scalar(sql, "SELECT count(*) FROM ao_voorkomen WHERE geconstateerd = 'J'") > 0


def test_geography_is_dutch_and_compact(sql: sqlite3.Connection) -> None:
    for minx, miny, maxx, maxy in sql.execute("SELECT minx, miny, maxx, maxy FROM ao_voorkomen"):
        assert 13000 <= minx <= maxx <= 278000 and 306000 <= miny <= maxy <= 620000
    extents = sql.execute(
        "SELECT o.woonplaats, min(v.minx), min(v.miny), max(v.maxx), max(v.maxy) FROM ao_voorkomen v "
        "JOIN ao_adres a ON a.rid = v.rid AND a.nevenadres = 0 "
        "JOIN nummeraanduiding n ON n.identificatie = a.nummeraanduiding "
        "JOIN openbare_ruimte o ON o.identificatie = n.openbare_ruimte GROUP BY o.woonplaats"
    ).fetchall()
    assert len(extents) >= 3
    for _, minx, miny, maxx, maxy in extents:
        assert maxx - minx < 4000 and maxy - miny < 4000
    for (text,) in sql.execute("SELECT geometrie FROM pand"):
        ring = json.loads(text)["coordinates"][0]
        assert ring[0] == ring[-1] and len(ring) >= 4


# --------------------------------------------------------------------------------------
# Formats
# --------------------------------------------------------------------------------------


def test_identifiers_match_their_patterns(sql: sqlite3.Connection) -> None:
    columns = {
        "woonplaats": [("woonplaats", "identificatie"), ("openbare_ruimte", "woonplaats")],
        "openbare_ruimte": [("openbare_ruimte", "identificatie"), ("nummeraanduiding", "openbare_ruimte")],
        "nummeraanduiding": [("nummeraanduiding", "identificatie"), ("ao_adres", "nummeraanduiding")],
        "pand": [("pand", "identificatie"), ("ao_pand", "pand")],
    }
    for kind, places in columns.items():
        for table, column in places:
            bad = [
                v for (v,) in sql.execute(f"SELECT {column} FROM {table}") if not PATTERNS[kind].fullmatch(v)
            ]
            assert not bad, (table, column, bad[:3])
    for ident, type_ in sql.execute("SELECT DISTINCT identificatie, type FROM ao_voorkomen"):
        assert PATTERNS[type_].fullmatch(ident), ident
    assert all(re.fullmatch(r"[0-9]{4}", c) for (c,) in sql.execute("SELECT code FROM bronhouder"))
    # Every object id starts with the code of a known source holder.
    codes = {c for (c,) in sql.execute("SELECT code FROM bronhouder")}
    assert {i[:4] for (i,) in sql.execute("SELECT identificatie FROM pand")} <= codes
    assert all(
        re.fullmatch(r"adr-[0-9a-f]{32}", z)
        for (z,) in sql.execute("SELECT zoek_identificatie FROM nummeraanduiding")
    )
    for key in ("unknown_adresseerbaarobject", "verblijfsobject"):
        assert re.fullmatch(r"[0-9]{4}(01|02|03)[0-9]{10}", WELL_KNOWN[key])
    assert PATTERNS["nummeraanduiding"].fullmatch(WELL_KNOWN["unknown_nummeraanduiding"])


def test_address_fields_have_api_formats(sql: sqlite3.Connection) -> None:
    rows = sql.execute("SELECT postcode, huisnummer, huisletter, huisnummertoevoeging FROM nummeraanduiding")
    for postcode, number, letter, addition in rows:
        assert postcode is None or re.fullmatch(r"[1-9][0-9]{3}[A-Z]{2}", postcode)
        assert 1 <= number <= 99999
        assert letter is None or re.fullmatch(r"[a-zA-Z]", letter)
        assert addition is None or re.fullmatch(r"[0-9a-zA-Z]{1,4}", addition)
    names = sql.execute("SELECT naam, korte_naam FROM openbare_ruimte").fetchall()
    assert all(1 <= len(n) <= 80 and 1 <= len(k) <= 24 for n, k in names)
    assert any(len(n) > 24 and k != n for n, k in names)
    places = [n for (n,) in sql.execute("SELECT naam FROM woonplaats")]
    assert any("'" in n or "-" in n for n in places)
    assert scalar(sql, "SELECT count(*) FROM nummeraanduiding WHERE postcode IS NULL") >= 1
    assert scalar(sql, "SELECT count(*) FROM nummeraanduiding WHERE huisletter GLOB '[a-z]'") >= 1
    # Postcode + huisnummer combinations with letter and addition variants.
    assert (
        scalar(
            sql,
            "SELECT count(*) FROM (SELECT postcode, huisnummer FROM nummeraanduiding "
            "GROUP BY postcode, huisnummer HAVING count(DISTINCT coalesce(huisletter, '') || '/' "
            "|| coalesce(huisnummertoevoeging, '')) > 1)",
        )
        >= 20
    )


def test_register_times_are_consistent(sql: sqlite3.Connection) -> None:
    for table in ("woonplaats", "openbare_ruimte", "nummeraanduiding", "pand", "ao_voorkomen"):
        for row in sql.execute(
            f"SELECT begin_geldigheid, eind_geldigheid, tijdstip_registratie, eind_registratie, "
            f"tijdstip_registratie_lv, documentdatum FROM {table}"
        ):
            begin, end, registered, ended, lv, documentdatum = row
            assert DAY.fullmatch(begin) and DAY.fullmatch(documentdatum)
            assert TIMESTAMP.fullmatch(registered) and TIMESTAMP.fullmatch(lv) and lv > registered
            assert end is None or (DAY.fullmatch(end) and end > begin)
            assert ended is None or (TIMESTAMP.fullmatch(ended) and ended > registered)
    # In every valid life cycle the occurrences follow each other without gap or overlap.
    chains: dict[str, list[tuple[str, str | None]]] = {}
    for ident, begin, end in sql.execute(
        "SELECT identificatie, begin_geldigheid, eind_geldigheid FROM ao_voorkomen "
        "WHERE verwijderd = 0 ORDER BY identificatie, versie"
    ):
        chains.setdefault(ident, []).append((begin, end))
    for ident, chain in chains.items():
        for (_, end), (next_begin, _) in zip(chain, chain[1:], strict=False):
            assert end == next_begin, ident
        assert chain[-1][1] is None, ident
    assert (
        scalar(sql, "SELECT count(*) FROM ao_voorkomen WHERE verwijderd = 1 AND tijdstip_inactief IS NULL")
        == 0
    )


# --------------------------------------------------------------------------------------
# The samples (docs/design.md, "Samples")
# --------------------------------------------------------------------------------------


def test_well_known_has_exactly_the_design_keys() -> None:
    assert set(WELL_KNOWN) == DESIGN_SAMPLE_KEYS
    assert all(isinstance(v, str) and v for v in WELL_KNOWN.values())
    assert not set(EDGE_CASES) & set(WELL_KNOWN)


def test_sample_nummeraanduiding(repo: Repository) -> None:
    address = repo.get_address(WELL_KNOWN["nummeraanduiding"])
    assert address is not None
    assert "huisletter" not in address and "huisnummertoevoeging" not in address
    assert "indicatieNevenadres" not in address
    siblings = repo.find_addresses(
        AddressQuery(postcode=address["postcode"], huisnummer=address["huisnummer"])
    )
    assert any("huisletter" in a for a in siblings) and any("huisnummertoevoeging" in a for a in siblings)
    exact = repo.find_addresses(
        AddressQuery(postcode=address["postcode"], huisnummer=address["huisnummer"], exacte_match=True)
    )
    assert [a["nummeraanduidingIdentificatie"] for a in exact] == [WELL_KNOWN["nummeraanduiding"]]


def test_sample_nevenadres(repo: Repository) -> None:
    address = repo.get_address(WELL_KNOWN["nummeraanduiding_nevenadres"])
    assert address is not None and address["indicatieNevenadres"] is True
    assert address["adresseerbaarObjectIdentificatie"] == WELL_KNOWN["verblijfsobject"]


def test_sample_nummeraanduiding_eindstatus(repo: Repository) -> None:
    ident = WELL_KNOWN["nummeraanduiding_eindstatus"]
    assert repo.get_nummeraanduiding(ident)["status"] == "Naamgeving ingetrokken"
    assert repo.get_address(ident) is None
    assert repo.get_extended_address(ident) is None
    assert repo.get_address(ident, inclusief_eind_status=True)["nummeraanduidingIdentificatie"] == ident
    assert repo.get_extended_address(ident, inclusief_eind_status=True) is not None
    found = repo.find_addresses(AddressQuery(postcode=data.PC_KERKSTRAAT_EVEN, huisnummer=24))
    assert found == []
    found = repo.find_addresses(
        AddressQuery(postcode=data.PC_KERKSTRAAT_EVEN, huisnummer=24, inclusief_eind_status=True)
    )
    assert [a["nummeraanduidingIdentificatie"] for a in found] == [ident]


def test_sample_verblijfsobject(repo: Repository) -> None:
    obj = repo.get_adresseerbaar_object(WELL_KNOWN["verblijfsobject"], huidig=True)
    assert obj is not None and obj["type"] == "Verblijfsobject"
    assert obj["heeftAlsNevenAdres"] == [WELL_KNOWN["nummeraanduiding_nevenadres"]]
    assert len(obj["maaktDeelUitVan"]) == 2
    assert obj["gebruiksdoelen"] and 1 <= obj["oppervlakte"] <= 999_999
    assert set(obj["geometrie"]) == {"punt"}
    assert repo.get_address(obj["heeftAlsHoofdAdres"]) is not None
    for pand in obj["maaktDeelUitVan"]:
        assert repo.get_pand(pand)["status"] not in END_STATUSES


@pytest.mark.parametrize(("key", "type_"), [("ligplaats", "Ligplaats"), ("standplaats", "Standplaats")])
def test_sample_berth_and_pitch(repo: Repository, key: str, type_: str) -> None:
    obj = repo.get_adresseerbaar_object(WELL_KNOWN[key], huidig=True)
    assert obj is not None and obj["type"] == type_ and obj["status"] == "Plaats aangewezen"
    assert obj["geometrie"]["type"] == "Polygon"
    assert "gebruiksdoelen" not in obj and "oppervlakte" not in obj and "maaktDeelUitVan" not in obj
    assert obj["domein"] == f"NL.IMBAG.{type_}"
    address = repo.get_address(obj["heeftAlsHoofdAdres"])
    assert address["_adresseerbaarObjectType"] == key and "pandIdentificaties" not in address


def test_sample_adresseerbaarobject_eindstatus(repo: Repository) -> None:
    ident = WELL_KNOWN["adresseerbaarobject_eindstatus"]
    obj = repo.get_adresseerbaar_object(ident)
    assert obj["status"] == "Verblijfsobject ingetrokken"
    assert repo.get_adresseerbaar_object(ident, huidig=True) is None
    assert repo.find_addresses(AddressQuery(adresseerbaar_object_id=ident)) == []
    assert (
        len(repo.find_addresses(AddressQuery(adresseerbaar_object_id=ident, inclusief_eind_status=True))) == 1
    )
    # The address itself is current: only the object's status hides it.
    assert repo.get_nummeraanduiding(obj["heeftAlsHoofdAdres"])["status"] == "Naamgeving uitgegeven"


def test_sample_adresseerbaarobject_historie(repo: Repository) -> None:
    ident = WELL_KNOWN["adresseerbaarobject_historie"]
    day = date.fromisoformat(WELL_KNOWN["historie_datum"])
    whole = repo.lifecycle(ident, gehele_lvc=True)
    valid = repo.lifecycle(ident, gehele_lvc=False)
    assert len(valid) >= 3 and len(whole) == len(valid) + 1
    removed = [o for o in whole if o.get("_verwijderd")]
    assert len(removed) == 1 and "tijdstipInactief" in removed[0]["voorkomen"]
    assert not any(o.get("_verwijderd") for o in valid)
    versions = [o["voorkomen"]["versie"] for o in whole]
    assert versions == sorted(versions)
    first, latest = valid[0]["voorkomen"], valid[-1]["voorkomen"]
    assert first["beginGeldigheid"] < WELL_KNOWN["historie_datum"] < latest["beginGeldigheid"]
    then = repo.get_adresseerbaar_object(ident, geldig_op=day)
    now = repo.get_adresseerbaar_object(ident)
    assert then["voorkomen"]["versie"] != now["voorkomen"]["versie"]
    assert (then["oppervlakte"], then["gebruiksdoelen"]) != (now["oppervlakte"], now["gebruiksdoelen"])


def test_sample_pand(repo: Repository) -> None:
    pand = WELL_KNOWN["pand"]
    objects = repo.find_adresseerbare_objecten(ObjectQuery(pand_ids=(pand,)))
    assert len(objects) >= 45 and all(pand in o["maaktDeelUitVan"] for o in objects)
    assert len(repo.find_addresses(AddressQuery(pand_id=pand))) >= 45
    assert len(repo.find_extended_addresses(AddressQuery(pand_id=pand))) >= 45
    assert repo.get_pand(pand)["status"] == "Pand in gebruik"


def test_sample_openbareruimte_and_woonplaats(repo: Repository) -> None:
    space = repo.get_openbare_ruimte(WELL_KNOWN["openbareruimte"])
    assert space["ligtIn"] == WELL_KNOWN["woonplaats"] and space["status"] == "Naamgeving uitgegeven"
    addresses = repo.find_addresses(AddressQuery(openbare_ruimte_id=WELL_KNOWN["openbareruimte"]))
    assert len(addresses) >= 25
    place = repo.get_woonplaats(WELL_KNOWN["woonplaats"])
    assert place["status"] == "Woonplaats aangewezen" and re.fullmatch(r"[0-9]{4}", place["identificatie"])
    by_name = repo.find_addresses(
        AddressQuery(
            woonplaats_naam=place["naam"].upper(),
            openbare_ruimte_naam=space["naam"].lower(),
            huisnummer=data.FLAT_FIRST_NUMBER,
        )
    )
    assert len(by_name) == 1


def test_sample_bbox(repo: Repository) -> None:
    x1, y1, x2, y2 = bbox()
    assert x1 < x2 and y1 < y2 and (x2 - x1) * (y2 - y1) <= 250_000
    objects = repo.find_adresseerbare_objecten(ObjectQuery(bbox=bbox(), huidig=True))
    assert {"Verblijfsobject", "Ligplaats", "Standplaats"} <= {o["type"] for o in objects}
    found = {o["identificatie"] for o in objects}
    assert {WELL_KNOWN["ligplaats"], WELL_KNOWN["standplaats"], WELL_KNOWN["verblijfsobject"]} <= found


def test_unknown_samples_do_not_exist(repo: Repository) -> None:
    obj, address = WELL_KNOWN["unknown_adresseerbaarobject"], WELL_KNOWN["unknown_nummeraanduiding"]
    assert repo.get_adresseerbaar_object(obj) is None and repo.lifecycle(obj, gehele_lvc=True) is None
    assert repo.get_address(address, inclusief_eind_status=True) is None
    assert repo.get_nummeraanduiding(address) is None
    assert repo.get_bronhouder(obj) is None and repo.get_bronhouder(address) is None


# --------------------------------------------------------------------------------------
# exacteMatch (bag-api.md 4.6) on Kerkstraat 12, 12A, 12-1, 12 B2, 14-A and 16 (twice)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "letter", "addition", "loose", "exact"),
    [
        (
            12,
            None,
            None,
            ["Kerkstraat 12", "Kerkstraat 12 A", "Kerkstraat 12 B2", "Kerkstraat 12-1"],
            ["Kerkstraat 12"],
        ),
        (12, "A", None, ["Kerkstraat 12 A"], ["Kerkstraat 12 A"]),
        (12, "a", None, ["Kerkstraat 12 A"], ["Kerkstraat 12 A"]),
        (12, "B", None, ["Kerkstraat 12 B2"], []),
        (12, None, "2", ["Kerkstraat 12 B2"], []),
        (12, "B", "2", ["Kerkstraat 12 B2"], ["Kerkstraat 12 B2"]),
        (12, None, "1", ["Kerkstraat 12-1"], ["Kerkstraat 12-1"]),
        (14, "A", None, [], []),
        (14, None, "a", ["Kerkstraat 14 A"], ["Kerkstraat 14 A"]),
        (16, None, None, ["Kerkstraat 16", "Kerkstraat 16"], ["Kerkstraat 16", "Kerkstraat 16"]),
        (18, "C", None, ["Kerkstraat 18 c"], ["Kerkstraat 18 c"]),
    ],
)
def test_exacte_match(
    repo: Repository,
    number: int,
    letter: str | None,
    addition: str | None,
    loose: list[str],
    exact: list[str],
) -> None:
    base = {
        "postcode": data.PC_KERKSTRAAT_EVEN,
        "huisnummer": number,
        "huisletter": letter,
        "huisnummertoevoeging": addition,
    }
    assert lines(repo.find_addresses(AddressQuery(**base))) == loose
    assert lines(repo.find_addresses(AddressQuery(**base, exacte_match=True))) == exact
    by_name = AddressQuery(
        woonplaats_naam="AMSTELVEER",
        openbare_ruimte_naam="kerkstraat",
        huisnummer=number,
        huisletter=letter,
        huisnummertoevoeging=addition,
        exacte_match=True,
    )
    assert lines(repo.find_addresses(by_name)) == exact


# --------------------------------------------------------------------------------------
# Addresses
# --------------------------------------------------------------------------------------


def test_address_dict_shape(repo: Repository) -> None:
    addresses = repo.find_addresses(
        AddressQuery(openbare_ruimte_id=data.OR_KERKSTRAAT, inclusief_eind_status=True)
    )
    assert addresses
    for address in addresses:
        assert None not in address.values()
        assert {
            "openbareRuimteNaam",
            "korteNaam",
            "huisnummer",
            "woonplaatsNaam",
            "nummeraanduidingIdentificatie",
            "openbareRuimteIdentificatie",
            "woonplaatsIdentificatie",
            "adresseerbaarObjectIdentificatie",
            "adresregel5",
            "adresregel6",
            "_adresseerbaarObjectType",
        } <= set(address)
        assert address.get("indicatieNevenadres", True) is True
    twelve = repo.get_address(WELL_KNOWN["nummeraanduiding"])
    assert twelve["adresregel6"] == "1181 VA  AMSTELVEER"
    assert twelve["pandIdentificaties"] == [data.PAND_KERKSTRAAT_12]


def test_address_lines_and_short_names(repo: Repository) -> None:
    flat = repo.find_addresses(AddressQuery(pand_id=WELL_KNOWN["pand"]))[0]
    assert flat["openbareRuimteNaam"] == "Burgemeester van Nieuwenhuijsenstraat"
    assert flat["korteNaam"] == "Burg v Nieuwenhuijsenstr"
    assert flat["adresregel5"] == f"Burg v Nieuwenhuijsenstr {data.FLAT_FIRST_NUMBER}"
    no_postcode = repo.get_address(EDGE_CASES["nummeraanduiding_zonder_postcode"])
    assert "postcode" not in no_postcode and no_postcode["adresregel6"] == "AMSTELVEER"
    small = repo.get_address(EDGE_CASES["nummeraanduiding_kleine_letter"])
    assert small["huisletter"] == "c" and small["adresregel5"] == "Kerkstraat 18 c"
    heerenbroek = repo.find_addresses(AddressQuery(woonplaats_naam="'S-HEERENBROEK"))
    assert heerenbroek and all(a["adresregel6"].endswith("  'S-HEERENBROEK") for a in heerenbroek)
    assert all(a["woonplaatsNaam"] == "'s-Heerenbroek" for a in heerenbroek)


def test_building_end_status_rules(repo: Repository) -> None:
    ident = EDGE_CASES["nummeraanduiding_pand_eindstatus"]
    demolished, standing = EDGE_CASES["pand_eindstatus"], EDGE_CASES["pand_naast_pand_eindstatus"]
    assert repo.get_address(ident) is not None  # /adressen ignores the building's status
    assert repo.get_extended_address(ident) is None  # /adressenuitgebreid does not
    assert repo.get_extended_address(ident, inclusief_eind_status=True) is not None
    assert repo.find_addresses(AddressQuery(pand_id=demolished)) == []
    assert len(repo.find_addresses(AddressQuery(pand_id=demolished, inclusief_eind_status=True))) == 1
    assert len(repo.find_addresses(AddressQuery(pand_id=standing))) == 1


def test_withdrawn_places_and_spaces_hide_addresses(repo: Repository) -> None:
    place = repo.get_woonplaats(EDGE_CASES["woonplaats_eindstatus"])
    assert place["status"] == "Woonplaats ingetrokken"
    assert repo.find_addresses(AddressQuery(woonplaats_naam=place["naam"])) == []
    assert repo.find_addresses(AddressQuery(woonplaats_naam=place["naam"], inclusief_eind_status=True))
    space = EDGE_CASES["openbareruimte_eindstatus"]
    assert repo.get_openbare_ruimte(space)["status"] == "Naamgeving ingetrokken"
    assert repo.find_addresses(AddressQuery(openbare_ruimte_id=space)) == []
    assert repo.find_addresses(AddressQuery(openbare_ruimte_id=space, inclusief_eind_status=True))


def test_free_text_search(repo: Repository) -> None:
    assert lines(repo.find_addresses(AddressQuery(q="kerkstraat 12"))) == [
        "Kerkstraat 12",
        "Kerkstraat 12 A",
        "Kerkstraat 12 B2",
        "Kerkstraat 12-1",
    ]
    assert lines(repo.find_addresses(AddressQuery(q="Kerkstraat,12a"))) == ["Kerkstraat 12 A"]
    assert lines(repo.find_addresses(AddressQuery(q="1181VA 12 b2"))) == ["Kerkstraat 12 B2"]
    split_postcode = repo.find_addresses(AddressQuery(q="amstelveer,1181 va kerkstraat"))
    assert len(split_postcode) >= 10 and all(a["postcode"] == "1181VA" for a in split_postcode)
    # Text matches any part ("va" is in "van"); digits match whole or as a postcode prefix.
    assert {a["postcode"] for a in repo.find_addresses(AddressQuery(q="1181 va"))} > {"1181VA"}
    compact = [
        f"{a['huisnummer']}{a.get('huisletter', '')}{a.get('huisnummertoevoeging', '')}"
        for a in repo.find_addresses(AddressQuery(q="118"))
    ]
    assert compact and set(compact) == {"118"}  # 118, or 11 with addition 8; no 1181.. postcode
    assert repo.find_addresses(AddressQuery(q="nieuwenhuijsen 101"))[0]["huisnummer"] == 101
    assert repo.find_addresses(AddressQuery(q="zzzz")) == []
    assert repo.find_addresses(AddressQuery(q=" , ")) == []
    # The withdrawn side address is not found without inclusiefEindStatus.
    assert repo.find_addresses(AddressQuery(q="kerkstraat 24")) == []


def test_extended_address(repo: Repository) -> None:
    extended = repo.get_extended_address(WELL_KNOWN["nummeraanduiding_nevenadres"])
    plain = repo.get_address(WELL_KNOWN["nummeraanduiding_nevenadres"])
    assert {k: v for k, v in extended.items() if k in plain} == plain
    assert extended["typeAdresseerbaarObject"] == "Verblijfsobject"
    assert extended["adresseerbaarObjectStatus"] == "Verblijfsobject in gebruik"
    assert set(extended["adresseerbaarObjectGeometrie"]) == {"punt"}
    assert extended["gebruiksdoelen"] == ["winkelfunctie", "woonfunctie"] and extended["oppervlakte"] == 245
    assert len(extended["oorspronkelijkBouwjaar"]) == 2
    assert all(re.fullmatch(r"[0-9]{4}", y) for y in extended["oorspronkelijkBouwjaar"])
    berth = repo.find_extended_addresses(AddressQuery(adresseerbaar_object_id=WELL_KNOWN["ligplaats"]))[0]
    assert berth["typeAdresseerbaarObject"] == "Ligplaats"
    assert berth["adresseerbaarObjectGeometrie"]["vlak"]["type"] == "Polygon"
    assert "gebruiksdoelen" not in berth and "oorspronkelijkBouwjaar" not in berth


def test_zoek_and_zoekresultaat(repo: Repository) -> None:
    results = repo.zoek("kerkstraat 12")
    assert len(results) == 4
    for result in results:
        assert re.fullmatch(r"adr-[0-9a-f]{32}", result["identificatie"])
        assert repo.zoekresultaat(result["identificatie"]) == result["nummeraanduidingIdentificatie"]
    first = next(r for r in results if r["nummeraanduidingIdentificatie"] == WELL_KNOWN["nummeraanduiding"])
    assert first["omschrijving"] == "Kerkstraat 12, 1181VA Amstelveer"
    assert first["identificatie"] == data.zoek_identificatie(WELL_KNOWN["nummeraanduiding"])
    assert {r["omschrijving"] for r in results} >= {
        "Kerkstraat 12A, 1181VA Amstelveer",
        "Kerkstraat 12B-2, 1181VA Amstelveer",
    }
    found = repo.find_addresses(AddressQuery(nummeraanduiding_id=repo.zoekresultaat(first["identificatie"])))
    assert [a["nummeraanduidingIdentificatie"] for a in found] == [WELL_KNOWN["nummeraanduiding"]]
    assert repo.zoek("zzzz") == [] and repo.zoekresultaat("adr-" + "0" * 32) is None


def test_find_addresses_without_criteria_is_deterministic(repo: Repository) -> None:
    first = repo.find_addresses(AddressQuery())
    assert len(first) >= 2000 and first == repo.find_addresses(AddressQuery())
    ids = [a["nummeraanduidingIdentificatie"] for a in first]
    assert len(ids) == len(set(ids))
    assert repo.find_addresses(AddressQuery(postcode="9999ZZ", huisnummer=1)) == []
    assert repo.find_extended_addresses(AddressQuery(postcode="9999ZZ", huisnummer=1)) == []


# --------------------------------------------------------------------------------------
# Addressable objects
# --------------------------------------------------------------------------------------


def test_object_dict_shape(repo: Repository) -> None:
    obj = repo.get_adresseerbaar_object(WELL_KNOWN["verblijfsobject"])
    assert list(obj)[:4] == ["type", "identificatie", "domein", "heeftAlsHoofdAdres"]
    assert (
        obj["geconstateerd"] in {"J", "N"} and DAY.fullmatch(obj["documentdatum"]) and obj["documentnummer"]
    )
    point = obj["geometrie"]["punt"]
    assert point["type"] == "Point" and len(point["coordinates"]) == 3
    voorkomen = obj["voorkomen"]
    assert {"tijdstipRegistratie", "versie", "beginGeldigheid", "tijdstipRegistratieLV"} <= set(voorkomen)
    assert "eindGeldigheid" not in voorkomen
    vlak = repo.get_adresseerbaar_object(EDGE_CASES["verblijfsobject_vlak"])["geometrie"]["vlak"]
    assert vlak["type"] == "Polygon" and vlak["coordinates"][0][0] == vlak["coordinates"][0][-1]


def test_time_travel(repo: Repository) -> None:
    ident = WELL_KNOWN["adresseerbaarobject_historie"]
    cycle = repo.lifecycle(ident, gehele_lvc=True)
    first, removed = cycle[0]["voorkomen"], next(o for o in cycle if o.get("_verwijderd"))["voorkomen"]
    assert repo.get_adresseerbaar_object(ident, geldig_op=date(2000, 1, 1)) is None
    assert (
        repo.get_adresseerbaar_object(ident, geldig_op=date.fromisoformat(first["beginGeldigheid"]))[
            "voorkomen"
        ]["versie"]
        == 1
    )
    # On the removed occurrence's begin date, its correction is what counts.
    on_fix = repo.get_adresseerbaar_object(ident, geldig_op=date.fromisoformat(removed["beginGeldigheid"]))
    assert on_fix["voorkomen"]["versie"] == removed["versie"] + 1 and "_verwijderd" not in on_fix
    registered = datetime.fromisoformat(first["tijdstipRegistratie"])
    assert repo.get_adresseerbaar_object(ident, beschikbaar_op=registered.replace(year=2009)) is None
    assert repo.get_adresseerbaar_object(ident, beschikbaar_op=registered)["voorkomen"]["versie"] == 1
    # Known at the first registration: valid on HISTORIE_DATUM was what v1 said then.
    day = date.fromisoformat(WELL_KNOWN["historie_datum"])
    assert (
        repo.get_adresseerbaar_object(ident, geldig_op=day, beschikbaar_op=registered)["voorkomen"]["versie"]
        == 1
    )
    assert repo.get_adresseerbaar_object(ident, geldig_op=day)["voorkomen"]["versie"] == 2
    assert repo.get_adresseerbaar_object(
        ident, beschikbaar_op=datetime(2030, 1, 1)
    ) == repo.get_adresseerbaar_object(ident)
    listed = repo.find_adresseerbare_objecten(ObjectQuery(pand_ids=(data.PAND_KERKSTRAAT_32,), geldig_op=day))
    assert [o["voorkomen"]["versie"] for o in listed] == [2]
    ended = WELL_KNOWN["adresseerbaarobject_eindstatus"]
    assert repo.get_adresseerbaar_object(ended, geldig_op=date(2015, 1, 1), huidig=False)["status"] == (
        "Verblijfsobject in gebruik"
    )


def test_lifecycle(repo: Repository) -> None:
    single = repo.lifecycle(WELL_KNOWN["ligplaats"], gehele_lvc=False)
    assert len(single) == 1 and single[0]["type"] == "Ligplaats"
    withdrawn = repo.lifecycle(EDGE_CASES["ligplaats_eindstatus"], gehele_lvc=False)
    assert [o["status"] for o in withdrawn] == ["Plaats aangewezen", "Plaats ingetrokken"]
    assert repo.lifecycle(WELL_KNOWN["unknown_adresseerbaarobject"], gehele_lvc=False) is None


def test_find_objects_by_address_and_building(repo: Repository) -> None:
    by_side = repo.find_adresseerbare_objecten(
        ObjectQuery(nummeraanduiding_id=WELL_KNOWN["nummeraanduiding_nevenadres"])
    )
    assert [o["identificatie"] for o in by_side] == [WELL_KNOWN["verblijfsobject"]]
    by_main = repo.find_adresseerbare_objecten(
        ObjectQuery(nummeraanduiding_id=WELL_KNOWN["nummeraanduiding"])
    )
    assert [o["identificatie"] for o in by_main] == [data.VBO_KERKSTRAAT_12]
    ended = ObjectQuery(
        nummeraanduiding_id=repo.get_adresseerbaar_object(WELL_KNOWN["adresseerbaarobject_eindstatus"])[
            "heeftAlsHoofdAdres"
        ]
    )
    assert len(repo.find_adresseerbare_objecten(ended)) == 1
    assert (
        repo.find_adresseerbare_objecten(
            ObjectQuery(nummeraanduiding_id=ended.nummeraanduiding_id, huidig=True)
        )
        == []
    )
    two = repo.find_adresseerbare_objecten(
        ObjectQuery(pand_ids=(data.PAND_KERKSTRAAT_12, data.PAND_KERKSTRAAT_20))
    )
    assert len(two) == 5
    ids = [o["identificatie"] for o in two]
    assert ids == sorted(ids)
    assert repo.find_adresseerbare_objecten(ObjectQuery(pand_ids=("1951109999999999",))) == []
    assert repo.find_adresseerbare_objecten(ObjectQuery(nummeraanduiding_id="1951209999999999")) == []


def test_find_objects_in_bbox_with_filters(repo: Repository) -> None:
    box = bbox()
    everything = repo.find_adresseerbare_objecten(ObjectQuery(bbox=box))
    current = repo.find_adresseerbare_objecten(ObjectQuery(bbox=box, huidig=True))
    assert len(current) < len(everything)
    assert all(o["status"] not in END_STATUSES for o in current)
    berths = repo.find_adresseerbare_objecten(ObjectQuery(bbox=box, type="ligplaats"))
    assert berths and all(o["type"] == "Ligplaats" for o in berths)
    assert (
        repo.find_adresseerbare_objecten(ObjectQuery(bbox=box, type="ligplaats", oppervlakte_max=100)) == []
    )
    sized = repo.find_adresseerbare_objecten(ObjectQuery(bbox=box, oppervlakte_min=100, oppervlakte_max=200))
    assert sized and all(100 <= o["oppervlakte"] <= 200 for o in sized)
    shops = repo.find_adresseerbare_objecten(
        ObjectQuery(bbox=box, gebruiksdoelen=("winkelfunctie", "celfunctie"))
    )
    assert shops and all("winkelfunctie" in o["gebruiksdoelen"] for o in shops)
    other = repo.find_adresseerbare_objecten(
        ObjectQuery(bbox=box, gebruiksdoelen=("overige gebruiksfunctie",))
    )
    assert EDGE_CASES["verblijfsobject_overige_gebruiksfunctie"] in {o["identificatie"] for o in other}
    for flag, letter in ((True, "J"), (False, "N")):
        assert all(
            o["geconstateerd"] == letter
            for o in repo.find_adresseerbare_objecten(ObjectQuery(bbox=box, geconstateerd=flag))
        )
    assert repo.find_adresseerbare_objecten(ObjectQuery(bbox=(14000.0, 307000.0, 14100.0, 307100.0))) == []


def test_bbox_edges(repo: Repository) -> None:
    obj = repo.get_adresseerbaar_object(WELL_KNOWN["verblijfsobject"])
    x, y, _ = obj["geometrie"]["punt"]["coordinates"]

    def hits(box: tuple[float, float, float, float]) -> bool:
        found = repo.find_adresseerbare_objecten(ObjectQuery(bbox=box, type="verblijfsobject"))
        return WELL_KNOWN["verblijfsobject"] in {o["identificatie"] for o in found}

    assert hits((x, y, x + 10, y + 10))  # on the corner
    assert hits((x + 0.0005, y - 5, x + 10, y + 5))  # 0.5 mm beside it
    assert not hits((x + 0.0006, y - 5, x + 10, y + 5))  # 0.6 mm is too far
    assert hits((x + 10, y + 10, x - 10, y - 10))  # corners given the other way round
    berth = repo.get_adresseerbaar_object(WELL_KNOWN["ligplaats"])["geometrie"]["coordinates"][0]
    bx, by = berth[0][0], berth[0][1]
    inside = repo.find_adresseerbare_objecten(
        ObjectQuery(bbox=(bx + 1, by + 1, bx + 2, by + 2), type="ligplaats")
    )
    assert WELL_KNOWN["ligplaats"] in {o["identificatie"] for o in inside}  # a box inside the polygon


# --------------------------------------------------------------------------------------
# Related objects and source holders
# --------------------------------------------------------------------------------------


def test_related_objects(repo: Repository) -> None:
    na = repo.get_nummeraanduiding(data.NA_KERKSTRAAT_12B2)
    assert na["huisletter"] == "B" and na["huisnummertoevoeging"] == "2" and na["postcode"] == "1181VA"
    assert na["typeAdresseerbaarObject"] == "Verblijfsobject" and na["ligtAan"] == data.OR_KERKSTRAAT
    assert na["domein"] == "NL.IMBAG.Nummeraanduiding" and "voorkomen" in na
    space = repo.get_openbare_ruimte(data.OR_KERKGRACHT)
    assert space["type"] == "Water" and space["naam"] == "Kerkgracht"
    pand = repo.get_pand(data.PAND_KERKSTRAAT_20)
    assert pand["geometrie"]["type"] == "Polygon" and pand["oorspronkelijkBouwjaar"] == "1898"
    for getter, value in (
        (repo.get_nummeraanduiding, na),
        (repo.get_openbare_ruimte, space),
        (repo.get_pand, pand),
        (repo.get_woonplaats, repo.get_woonplaats("7101")),
    ):
        assert None not in value.values()
        assert {"status", "geconstateerd", "documentdatum", "documentnummer", "voorkomen"} <= set(value)
        assert getter("0000000000000000") is None


@pytest.mark.parametrize(
    ("ident", "code"),
    [
        (WELL_KNOWN["woonplaats"], "1951"),
        (data.WP_HEERENBROEK, "1952"),
        (data.WP_OUDHAVEN, "1953"),
        (WELL_KNOWN["openbareruimte"], "1951"),
        (WELL_KNOWN["nummeraanduiding"], "1951"),
        (WELL_KNOWN["verblijfsobject"], "1951"),
        (WELL_KNOWN["ligplaats"], "1951"),
        (WELL_KNOWN["standplaats"], "1951"),
        (WELL_KNOWN["pand"], "1951"),
        (data.OR_OUDE_WERFSTRAAT, "1953"),
    ],
)
def test_bronhouder(repo: Repository, ident: str, code: str) -> None:
    holder = repo.get_bronhouder(ident)
    assert holder is not None and holder["code"] == code
    assert set(holder) == {"code", "naam", "beginGeldigheid", "provincie"}
    assert (
        set(holder["provincie"]) == {"naam", "afkorting"} and 1 <= len(holder["provincie"]["afkorting"]) <= 2
    )


@pytest.mark.parametrize("ident", ["9999", "0000", "12345", "1951409999999999", "", "abcd"])
def test_bronhouder_unknown(repo: Repository, ident: str) -> None:
    assert repo.get_bronhouder(ident) is None


def test_concurrent_reads(repo: Repository) -> None:
    query = AddressQuery(openbare_ruimte_id=WELL_KNOWN["openbareruimte"])
    expected = repo.find_addresses(query)
    barrier = threading.Barrier(4)

    def work(_: int) -> list[dict[str, Any]]:
        barrier.wait()
        result: list[dict[str, Any]] = []
        for _ in range(3):
            result = repo.find_addresses(query)
            repo.find_adresseerbare_objecten(ObjectQuery(bbox=bbox()))
        return result

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert all(r == expected for r in pool.map(work, range(4)))
