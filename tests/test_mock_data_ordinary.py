"""The address mock's "ordinary" data set (conformance.mocks.address.data, ORDINARY).

What makes it ordinary: no accommodation object lies in two buildings, and no box of at
most 250 000 m2 holds a berth, a pitch and an accommodation object together; a box per
kind still finds that kind. Everything else is the full data set's: same identifiers,
same samples (but `verblijfsobject_panden`), same addresses.
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.mocks.address import data
from conformance.mocks.address.data import (
    BBOX,
    END_STATUSES,
    FULL,
    GENERATOR_VERSION,
    ORDINARY,
    ORDINARY_WELL_KNOWN,
    WELL_KNOWN,
    default_database_path,
    ensure_database,
    stored_data_set,
    stored_version,
    well_known,
)
from conformance.mocks.address.repository import AddressQuery, ObjectQuery, Repository

MAX_AREA = 250_000  # m2, the API's largest bbox (bag-api.md 4.8)
SQUARE_DIAGONAL = math.sqrt(2 * MAX_AREA)  # ~707 m: the farthest two points of one square apart
TOLERANCE = 0.001  # a bbox is widened by 0.5 mm on each side
EVERYWHERE = (0.0, 300_000.0, 300_000.0, 700_000.0)  # the repository itself sets no area limit
KINDS = ("verblijfsobject", "ligplaats", "standplaats")
Extent = tuple[float, float, float, float]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private cache directory (CONFORMANCE_CACHE_DIR) for the module's tests."""
    folder = tmp_path_factory.mktemp("ordinary-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(data.CACHE_DIR_ENV, str(folder))
        yield folder


@pytest.fixture(scope="module")
def db(cache: Path) -> Path:
    started = time.perf_counter()
    path = ensure_database(default_database_path(ORDINARY), ORDINARY)
    print(f"ordinary address database generated in {time.perf_counter() - started:.2f} s")
    return path


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


def box_of(value: str) -> Extent:
    x1, y1, x2, y2 = (float(v) for v in value.split(","))
    return x1, y1, x2, y2


def area(box: Extent) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def gap(a_low: float, a_high: float, b_low: float, b_high: float) -> float:
    """How far apart two closed intervals are (0 when they meet)."""
    return max(0.0, b_low - a_high, a_low - b_high)


def extents(sql: sqlite3.Connection) -> dict[str, list[Extent]]:
    """Every occurrence's extent per kind: a bbox query may travel to any occurrence."""
    found: dict[str, list[Extent]] = {kind: [] for kind in KINDS}
    for kind, *extent in sql.execute("SELECT type, minx, miny, maxx, maxy FROM ao_voorkomen"):
        found[kind].append(tuple(extent))
    return found


# --------------------------------------------------------------------------------------
# The file: its own name, its own meta row, never mixed with the full data set
# --------------------------------------------------------------------------------------


def test_ordinary_database_has_its_own_file(cache: Path, db: Path, tmp_path: Path) -> None:
    assert db == cache / f"address-mock-{GENERATOR_VERSION}-ordinary.sqlite"
    assert (
        default_database_path()
        == default_database_path(FULL)
        == cache / f"address-mock-{GENERATOR_VERSION}.sqlite"
    )
    assert stored_version(db) == GENERATOR_VERSION and stored_data_set(db) == ORDINARY
    before = db.stat().st_ino, db.stat().st_mtime_ns
    assert ensure_database(db, ORDINARY) == db  # reused
    assert (db.stat().st_ino, db.stat().st_mtime_ns) == before
    # A file of the other data set counts as stale: it is rebuilt, never served as is.
    other = tmp_path / "mixed.sqlite"
    other.write_bytes(db.read_bytes())
    ensure_database(other, FULL)
    assert stored_data_set(other) == FULL and stored_version(other) == GENERATOR_VERSION
    with pytest.raises(ValueError, match="unknown address mock data set"):
        default_database_path("sparse")
    with pytest.raises(ValueError, match="unknown address mock data set"):
        well_known("sparse")


def test_same_register_but_buildings_and_places(db: Path, tmp_path: Path) -> None:
    """Same addresses, spaces, places, buildings and object identifiers as the full set;
    only berths' and pitches' geometry and second buildings differ."""
    full = ensure_database(tmp_path / "full.sqlite")
    conn = sqlite3.connect(db)
    try:
        conn.execute("ATTACH DATABASE ? AS f", (str(full),))
        for table in (
            "woonplaats",
            "openbare_ruimte",
            "nummeraanduiding",
            "pand",
            "ao_adres",
            "ao_gebruiksdoel",
        ):
            assert conn.execute(
                f"SELECT count(*) FROM (SELECT * FROM main.{table} EXCEPT SELECT * FROM f.{table})"
            ).fetchone() == (0,), table
            assert (
                conn.execute(f"SELECT count(*) FROM main.{table}").fetchone()
                == conn.execute(f"SELECT count(*) FROM f.{table}").fetchone()
            ), table
        # Occurrences: everything but geometry and extent, and those of accommodation objects whole.
        columns = [r[1] for r in conn.execute("PRAGMA table_info(ao_voorkomen)")]
        kept = ", ".join(c for c in columns if c not in {"geometrie", "minx", "miny", "maxx", "maxy"})
        for query in (
            f"SELECT {kept} FROM {{}}.ao_voorkomen",
            "SELECT * FROM {}.ao_voorkomen WHERE type = 'verblijfsobject'",
        ):
            mine, theirs = (set(conn.execute(query.format(s)).fetchall()) for s in ("main", "f"))
            assert mine == theirs
        # Each object keeps its first building; the full set's second ones are gone.
        assert conn.execute(
            "SELECT count(*) FROM (SELECT * FROM main.ao_pand EXCEPT SELECT * FROM f.ao_pand WHERE volgorde = 0)"
        ).fetchone() == (0,)
        assert conn.execute(
            "SELECT count(*) FROM (SELECT * FROM f.ao_pand WHERE volgorde = 0 EXCEPT SELECT * FROM main.ao_pand)"
        ).fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM f.ao_pand WHERE volgorde > 0").fetchone()[0] >= 5
    finally:
        conn.close()


# --------------------------------------------------------------------------------------
# Property 1: one building per accommodation object
# --------------------------------------------------------------------------------------


def test_every_verblijfsobject_has_exactly_one_building(sql: sqlite3.Connection, repo: Repository) -> None:
    counts = sql.execute(
        "SELECT v.rid, count(p.pand) FROM ao_voorkomen v LEFT JOIN ao_pand p ON p.rid = v.rid"
        " WHERE v.type = 'verblijfsobject' GROUP BY v.rid"
    ).fetchall()
    assert counts and {n for _, n in counts} == {1}
    assert sql.execute(
        "SELECT count(*) FROM ao_pand p JOIN ao_voorkomen v ON v.rid = p.rid WHERE v.type != 'verblijfsobject'"
    ).fetchone() == (0,)
    # As the repository shows them, in every occurrence (time travel included).
    everything = repo.find_adresseerbare_objecten(ObjectQuery(bbox=EVERYWHERE))
    vbos = [o for o in everything if o["type"] == "Verblijfsobject"]
    assert len(vbos) >= 2000
    assert all(len(o["maaktDeelUitVan"]) == 1 for o in vbos)
    assert all(
        len(o["maaktDeelUitVan"]) == 1 for o in repo.lifecycle(data.VBO_KERKSTRAAT_32, gehele_lvc=True)
    )


def test_building_queries_agree_with_the_objects(repo: Repository) -> None:
    everything = repo.find_adresseerbare_objecten(ObjectQuery(bbox=EVERYWHERE))
    by_building: dict[str, set[str]] = {}
    for obj in everything:
        for pand in obj.get("maaktDeelUitVan", []):
            by_building.setdefault(pand, set()).add(obj["identificatie"])
    # The former two-building fixtures keep their first building only.
    assert repo.get_adresseerbaar_object(WELL_KNOWN["verblijfsobject"])["maaktDeelUitVan"] == [
        data.PAND_KERKSTRAAT_20
    ]
    assert repo.get_adresseerbaar_object(data.VBO_KERKSTRAAT_34)["maaktDeelUitVan"] == [
        data.PAND_KERKSTRAAT_34
    ]
    # The buildings they left are still registered, holding no accommodation object.
    for pand in (data.PAND_KERKSTRAAT_20_ACHTER, data.PAND_KERKSTRAAT_34_ANNEX):
        assert repo.get_pand(pand) is not None and pand not in by_building
        assert repo.find_adresseerbare_objecten(ObjectQuery(pand_ids=(pand,))) == []
        assert repo.find_addresses(AddressQuery(pand_id=pand, inclusief_eind_status=True)) == []
    # Queries by building find exactly the objects naming it (a spread of buildings).
    sample = sorted(by_building)[::40] + [
        data.PAND_KERKSTRAAT_20,
        data.PAND_KERKSTRAAT_34,
        WELL_KNOWN["pand"],
    ]
    for pand in sample:
        found = repo.find_adresseerbare_objecten(ObjectQuery(pand_ids=(pand,)))
        assert {o["identificatie"] for o in found} == by_building[pand], pand
        assert all(o["maaktDeelUitVan"] == [pand] for o in found)
    pair = repo.find_adresseerbare_objecten(
        ObjectQuery(pand_ids=(data.PAND_KERKSTRAAT_12, data.PAND_KERKSTRAAT_20))
    )
    assert len(pair) == 5  # four in Kerkstraat 12, one in 20: no object counted twice
    # Addresses say the same (pandIdentificaties).
    for address in repo.find_addresses(AddressQuery(adresseerbaar_object_id=WELL_KNOWN["verblijfsobject"])):
        assert address["pandIdentificaties"] == [data.PAND_KERKSTRAAT_20]
    flat = repo.find_addresses(AddressQuery(pand_id=WELL_KNOWN["pand"]))
    assert len(flat) >= 45 and all(a["pandIdentificaties"] == [WELL_KNOWN["pand"]] for a in flat)


# --------------------------------------------------------------------------------------
# Property 2: no box of at most 250 000 m2 holds all three kinds
# --------------------------------------------------------------------------------------


def test_no_small_box_holds_a_berth_and_a_pitch(sql: sqlite3.Connection) -> None:
    """Any box meeting a berth and a pitch spans at least their gaps in x and in y; that
    area exceeds 250 000 m2 for every pair, so no such box of any shape holds all three."""
    found = extents(sql)
    assert len(found["ligplaats"]) >= 20 and len(found["standplaats"]) >= 20
    for berth in found["ligplaats"]:
        for pitch in found["standplaats"]:
            dx = gap(berth[0], berth[2], pitch[0], pitch[2]) - TOLERANCE
            dy = gap(berth[1], berth[3], pitch[1], pitch[3]) - TOLERANCE
            assert dx > 0 and dy > 0 and dx * dy > MAX_AREA, (berth, pitch)


def test_the_kinds_lie_far_apart(sql: sqlite3.Connection) -> None:
    """No 500 m x 500 m square reaches two objects of different kinds: they are more than
    its diagonal apart (in fact a kilometre or more)."""
    found = extents(sql)
    nearest: dict[tuple[str, str], float] = {}
    for i, first in enumerate(KINDS):
        for second in KINDS[i + 1 :]:
            nearest[(first, second)] = min(
                math.hypot(gap(a[0], a[2], b[0], b[2]), gap(a[1], a[3], b[1], b[3]))
                for a in found[first]
                for b in found[second]
            )
    assert all(d > SQUARE_DIAGONAL + TOLERANCE for d in nearest.values()), nearest
    assert all(d >= 1000 for d in nearest.values()), nearest


def test_no_square_around_any_place_holds_all_kinds(repo: Repository) -> None:
    """Through the repository: the 500 m square centred on every berth and pitch."""
    everything = repo.find_adresseerbare_objecten(ObjectQuery(bbox=EVERYWHERE, huidig=True))
    places = [o for o in everything if o["type"] in ("Ligplaats", "Standplaats")]
    assert len(places) >= 40
    for place in places:
        xs = [p[0] for p in place["geometrie"]["coordinates"][0]]
        ys = [p[1] for p in place["geometrie"]["coordinates"][0]]
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
        square = (cx - 250, cy - 250, cx + 250, cy + 250)
        kinds = {o["type"] for o in repo.find_adresseerbare_objecten(ObjectQuery(bbox=square))}
        assert kinds == {place["type"]}, (place["identificatie"], kinds)


# --------------------------------------------------------------------------------------
# The samples of the ordinary data set
# --------------------------------------------------------------------------------------


def test_ordinary_samples_are_the_full_ones_but_panden_and_boxes() -> None:
    assert well_known(FULL) == WELL_KNOWN and well_known() is not WELL_KNOWN
    assert well_known(ORDINARY) == ORDINARY_WELL_KNOWN
    assert "verblijfsobject_panden" not in ORDINARY_WELL_KNOWN
    assert set(ORDINARY_WELL_KNOWN) == set(WELL_KNOWN) - {"verblijfsobject_panden"}
    assert {"bbox", "bbox_ligplaats", "bbox_standplaats", "bbox_verblijfsobject"} <= set(ORDINARY_WELL_KNOWN)
    boxes = {k for k in ORDINARY_WELL_KNOWN if k.startswith("bbox")}
    same = {k: v for k, v in ORDINARY_WELL_KNOWN.items() if k not in boxes}
    assert same == {k: v for k, v in WELL_KNOWN.items() if k not in boxes | {"verblijfsobject_panden"}}
    assert ORDINARY_WELL_KNOWN["bbox"] == BBOX


@pytest.mark.parametrize("key", ["bbox", "bbox_ligplaats", "bbox_standplaats", "bbox_verblijfsobject"])
def test_ordinary_boxes_hold_what_they_promise(repo: Repository, key: str) -> None:
    box = box_of(ORDINARY_WELL_KNOWN[key])
    assert box[0] < box[2] and box[1] < box[3] and area(box) <= MAX_AREA
    objects = repo.find_adresseerbare_objecten(ObjectQuery(bbox=box, huidig=True))
    kinds = {o["type"].lower() for o in objects}
    assert objects and len(kinds) < 3
    ids = {o["identificatie"] for o in objects}
    if key == "bbox_ligplaats":
        assert kinds == {"ligplaats"} and WELL_KNOWN["ligplaats"] in ids
    elif key == "bbox_standplaats":
        assert kinds == {"standplaats"} and WELL_KNOWN["standplaats"] in ids
    else:  # bbox and bbox_verblijfsobject: the showcase's accommodation objects
        assert kinds == {"verblijfsobject"} and WELL_KNOWN["verblijfsobject"] in ids
        assert any(o["gebruiksdoelen"] and o["oppervlakte"] is not None for o in objects)


def test_other_samples_still_hold(repo: Repository) -> None:
    w = ORDINARY_WELL_KNOWN
    main = repo.get_address(w["nummeraanduiding"])
    siblings = repo.find_addresses(AddressQuery(postcode=main["postcode"], huisnummer=main["huisnummer"]))
    assert any("huisletter" in a for a in siblings) and any("huisnummertoevoeging" in a for a in siblings)
    side = repo.get_address(w["nummeraanduiding_nevenadres"])
    assert (
        side["indicatieNevenadres"] is True
        and side["adresseerbaarObjectIdentificatie"] == w["verblijfsobject"]
    )
    assert repo.get_address(w["nummeraanduiding_eindstatus"]) is None
    assert repo.get_address(w["nummeraanduiding_eindstatus"], inclusief_eind_status=True) is not None
    for key in ("verblijfsobject", "verblijfsobject_nevenadres"):
        obj = repo.get_adresseerbaar_object(w[key], huidig=True)
        assert obj["type"] == "Verblijfsobject" and obj["gebruiksdoelen"] and obj["oppervlakte"]
        assert obj["heeftAlsNevenAdres"] and len(obj["maaktDeelUitVan"]) == 1
        assert repo.get_pand(obj["maaktDeelUitVan"][0])["status"] not in END_STATUSES
    for key in ("ligplaats", "standplaats"):
        obj = repo.get_adresseerbaar_object(w[key], huidig=True)
        assert obj["type"] == key.capitalize() and obj["status"] == "Plaats aangewezen"
    assert repo.get_adresseerbaar_object(w["adresseerbaarobject_eindstatus"], huidig=True) is None
    assert repo.get_adresseerbaar_object(w["adresseerbaarobject_eindstatus"])["status"] in END_STATUSES
    history = repo.lifecycle(w["adresseerbaarobject_historie"], gehele_lvc=False)
    assert len(history) >= 3
    assert (
        history[0]["voorkomen"]["beginGeldigheid"]
        < w["historie_datum"]
        < history[-1]["voorkomen"]["beginGeldigheid"]
    )
    assert len(repo.find_adresseerbare_objecten(ObjectQuery(pand_ids=(w["pand"],)))) >= 45
    assert len(repo.find_addresses(AddressQuery(openbare_ruimte_id=w["openbareruimte"]))) >= 25
    assert repo.get_woonplaats(w["woonplaats"])["status"] == "Woonplaats aangewezen"
    assert repo.get_adresseerbaar_object(w["unknown_adresseerbaarobject"]) is None
    assert repo.get_nummeraanduiding(w["unknown_nummeraanduiding"]) is None
    # Side addresses remain ordinary: more objects than the sample have one.
    everything = repo.find_adresseerbare_objecten(ObjectQuery(bbox=EVERYWHERE, huidig=True))
    assert sum(1 for o in everything if o.get("heeftAlsNevenAdres")) >= 10


def test_places_stay_compact(sql: sqlite3.Connection) -> None:
    """Berths and pitches moved, but every woonplaats still fits in 4 km x 4 km."""
    extents_by_place = sql.execute(
        "SELECT o.woonplaats, min(v.minx), min(v.miny), max(v.maxx), max(v.maxy) FROM ao_voorkomen v "
        "JOIN ao_adres a ON a.rid = v.rid AND a.nevenadres = 0 "
        "JOIN nummeraanduiding n ON n.identificatie = a.nummeraanduiding "
        "JOIN openbare_ruimte o ON o.identificatie = n.openbare_ruimte GROUP BY o.woonplaats"
    ).fetchall()
    assert len(extents_by_place) >= 3
    for _, minx, miny, maxx, maxy in extents_by_place:
        assert maxx - minx < 4000 and maxy - miny < 4000
        assert 13000 <= minx <= maxx <= 278000 and 306000 <= miny <= maxy <= 620000


# --------------------------------------------------------------------------------------
# The launcher: services.address.mock_data = "ordinary"
# --------------------------------------------------------------------------------------


def test_launcher_serves_the_ordinary_data_set(cache: Path, db: Path) -> None:
    from conformance.mocks.launcher import MockCluster
    from conformance.profiles import load_profile
    from conformance.samples import contracts as C
    from conformance.samples.session import address_api, getter

    base = load_profile("local-mock")
    assert base.address is not None
    profile = replace(base, address=replace(base.address, mock_data=ORDINARY), soap=None, auth=None)
    with MockCluster(profile) as cluster:
        url = cluster.urls["address"]
        key = cluster.secrets[profile.address.secret_env["api_key"]]
        samples = cluster.samples["address"]

        def get(path: str) -> dict[str, Any]:
            r = httpx.get(f"{url}{path}", headers={"X-Api-Key": key}, trust_env=False, timeout=10)
            assert r.status_code == 200, r.text
            return r.json()

        vbo = get(f"/adresseerbareobjecten/{samples['verblijfsobject']}")["verblijfsobject"][
            "verblijfsobject"
        ]
        held = {
            name: {
                next(iter(k for k in item if k != "_links"))
                for item in get(f"/adresseerbareobjecten?bbox={samples[name]}")["_embedded"][
                    "adresseerbareObjecten"
                ]
            }
            for name in ("bbox", "bbox_ligplaats", "bbox_standplaats", "bbox_verblijfsobject")
        }
        # The harness's own sample contracts (what a run validates at its start) accept
        # every sample handed over, and confirm no object lies in two buildings.
        contract_get = getter(address_api(profile, url, cluster.secrets))
        verdicts = {name: C.verify(contract_get, name, value, samples) for name, value in samples.items()}
        panden = C.verify(contract_get, "verblijfsobject_panden", samples["verblijfsobject"], samples)
    assert {name: v.outcome for name, v in verdicts.items() if v.outcome != "verified"} == {}
    assert panden.outcome == "lacks" and "1 building(s)" in panden.detail
    assert samples == ORDINARY_WELL_KNOWN
    assert vbo["maaktDeelUitVan"] == [data.PAND_KERKSTRAAT_20]
    assert held == {
        "bbox": {"verblijfsobject"},
        "bbox_ligplaats": {"ligplaats"},
        "bbox_standplaats": {"standplaats"},
        "bbox_verblijfsobject": {"verblijfsobject"},
    }
    # It used the cached ordinary file and built no full one.
    assert sorted(p.name for p in cache.iterdir() if p.suffix == ".sqlite") == [db.name]


def test_launcher_defaults_to_the_full_data_set() -> None:
    from conformance.mocks.launcher import MockCluster
    from conformance.profiles import load_profile

    base = load_profile("local-mock")
    assert base.address is not None and base.address.mock_data == FULL
    assert MockCluster(base)._address_data_set() == FULL

    # A profile object without the field (an older AddressService) counts as full too.
    class Bare:
        mock = True

    assert MockCluster(replace(base, address=Bare()))._address_data_set() == FULL  # type: ignore[arg-type]
