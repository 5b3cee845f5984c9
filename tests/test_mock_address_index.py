"""The address mock's indexes and caches answer as the plain rules do.

The free-text index (adres_term + the FTS5 trigram table), the R*Tree for bbox, the
in-memory index by nummeraanduiding and the cached serialisation (KnownJson and the links
cut around the base URL) are checked against brute force over the register's own tables,
and answers against a plain re-encoding of themselves.
"""

from __future__ import annotations

import json
import random
import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():  # starlette suggests httpx2; httpx is what the project uses
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

from conformance.mocks.address import data
from conformance.mocks.address.app import create_app
from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
from conformance.mocks.address.data import WELL_KNOWN, fold
from conformance.mocks.address.problems import KnownJson, json_bytes
from conformance.mocks.address.repository import AddressQuery, ObjectQuery, Repository
from conformance.mocks.faults import FaultSet

BASE = "/lvbag/individuelebevragingen/v2"
KEY = "key-valid"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return data.ensure_database(tmp_path_factory.mktemp("address-index") / "address.sqlite")


@pytest.fixture(scope="module")
def repo(db: Path) -> Iterator[Repository]:
    repository = Repository(db)
    yield repository
    repository.close()


@pytest.fixture(scope="module")
def rows(db: Path) -> list[sqlite3.Row]:
    """Every listed address in answer order, from the register's tables (not the index)."""
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(data._ADDRESS_ROWS).fetchall()
    finally:
        conn.close()


# --- free text: the rule of repository.py's docstring, by brute force ------------------------
class _Address:
    """One address as the free-text rule reads it."""

    def __init__(self, row: sqlite3.Row) -> None:
        self.na_id, self.eind, self.pand_eind = row["na_id"], row["eind"], row["pand_eind"]
        self.postcode = fold(row["postcode"] or "")
        self.names = (row["wp_naam_lc"], row["or_naam_lc"], fold(row["korte_naam"]))
        number = str(row["huisnummer"])
        letter = fold(row["huisletter"] or "")
        addition = fold(row["toevoeging"] or "")
        whole = {number, letter, addition, letter + addition, number + letter, number + letter + addition}
        if addition:
            whole.add(f"{number}-{letter}{addition}")
            whole.add(f"{number}{letter}-{addition}")
        self.whole = whole - {""}

    def matches(self, term: str) -> bool:
        postcode = self.postcode
        if postcode and (
            term in (postcode, postcode[:4], postcode[4:]) or (len(term) >= 4 and postcode.startswith(term))
        ):
            return True
        return any(term in name for name in self.names) or term in self.whole


def _brute_force(addresses: list[_Address], text: str) -> list[_Address]:
    terms = [fold(t) for t in text.replace(",", " ").split() if t]
    return [a for a in addresses if terms and all(a.matches(t) for t in terms)]


def _ids(addresses: list[_Address], *, with_end_status: bool = False, pand_eind: bool = True) -> list[str]:
    return [a.na_id for a in addresses if (with_end_status or not a.eind) and (pand_eind or not a.pand_eind)]


def _free_texts(rows: list[sqlite3.Row]) -> list[str]:
    rng = random.Random(4)
    texts = [
        "kerkstraat", "Kerkstraat 12", "kerkstraat,12", "1181VA", "1181va 12", "1181", "VA", "12a", "12-1",
        "12B2", "12b-2", "14-a", "a", "e", "ker", "KERK", "amstelveer", "'s-heerenbroek", "brink 5", "xyz",
        "1181V", "1181VAX", "1", "18c", "de", "straat", 'kerk"straat', '"', "kerk*", "NEAR", "a:b", "ß",
        "STRASSE",
        "İ", "i̇", "K", "12 12", "  ", ",", "kerkstraat amstelveer 12 a",
    ]  # fmt: skip
    word = "kerkstraat"  # more different terms than go into one query: matched one by one
    parts = sorted({word[i:j] for i in range(len(word)) for j in range(i + 1, len(word) + 1)})
    texts += [" ".join(parts), " ".join([*parts, "12"]), " ".join([*parts, "zz"]), " ".join(parts[:16])]
    for row in rng.sample(rows, 120):
        name = row["or_naam"]
        start = rng.randrange(len(name))
        pieces = [
            name[start : start + rng.randint(1, 7)],
            str(row["huisnummer"]),
            f"{row['huisnummer']}{row['huisletter'] or ''}",
            f"{row['huisnummer']}-{row['toevoeging'] or ''}",
            (row["postcode"] or "")[: rng.randint(2, 6)],
            row["wp_naam"][rng.randrange(len(row["wp_naam"])) :],
            row["korte_naam"].split(" ")[-1],
        ]
        rng.shuffle(pieces)
        texts.append(" ".join(p for p in pieces[: rng.randint(1, 3)] if p) or "x")
    return texts


def test_free_text_finds_what_the_rule_finds(repo: Repository, rows: list[sqlite3.Row]) -> None:
    addresses = [_Address(row) for row in rows]
    for text in _free_texts(rows):
        matched = _brute_force(addresses, text)
        for with_end_status in (False, True):
            found = repo.find_addresses(AddressQuery(q=text, inclusief_eind_status=with_end_status))
            expected = _ids(matched, with_end_status=with_end_status)
            assert [a["nummeraanduidingIdentificatie"] for a in found] == expected, text
        zoek = [z["nummeraanduidingIdentificatie"] for z in repo.zoek(text)]
        assert zoek == _ids(matched), text


def test_free_text_extended_hides_addresses_of_ended_buildings(
    repo: Repository, rows: list[sqlite3.Row]
) -> None:
    addresses = [_Address(row) for row in rows]
    for text in ("kerkstraat", "1181VA 34", "34"):
        found = repo.find_extended_addresses(AddressQuery(q=text))
        expected = _ids(_brute_force(addresses, text), pand_eind=False)
        assert [a["nummeraanduidingIdentificatie"] for a in found] == expected


def test_lookup_by_id_answers_as_the_query_by_id(repo: Repository, rows: list[sqlite3.Row]) -> None:
    for row in rows[::7]:
        for with_end_status in (False, True):
            query = AddressQuery(nummeraanduiding_id=row["na_id"], inclusief_eind_status=with_end_status)
            found = repo.find_addresses(query)
            assert repo.get_address(row["na_id"], inclusief_eind_status=with_end_status) == (
                found[0] if found else None
            )
            extended = repo.find_extended_addresses(query)
            assert repo.get_extended_address(row["na_id"], inclusief_eind_status=with_end_status) == (
                extended[0] if extended else None
            )
    assert repo.get_address("1951209999999999") is None


def test_bbox_finds_what_the_extents_say(repo: Repository, db: Path) -> None:
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True)
    try:
        extents = conn.execute("SELECT identificatie, minx, miny, maxx, maxy FROM ao_voorkomen").fetchall()
    finally:
        conn.close()
    rng = random.Random(8)
    boxes = [tuple(float(v) for v in WELL_KNOWN["bbox"].split(","))]
    for _, minx, miny, maxx, maxy in rng.sample(extents, 40):
        for delta in (0.0004, 0.0006, -0.0004, -0.0006):  # around the 0.5 mm tolerance
            boxes.append((maxx + delta, maxy + delta, maxx + delta + 3, maxy + delta + 3))
            boxes.append((minx - delta - 3, miny - delta - 3, minx - delta, miny - delta))
        boxes.append((minx, miny, minx, miny))  # a point
    for box in boxes:
        x1, y1, x2, y2 = box[0] - 0.0005001, box[1] - 0.0005001, box[2] + 0.0005001, box[3] + 0.0005001
        expected = sorted({i for i, a, b, c, d in extents if c >= x1 and a <= x2 and d >= y1 and b <= y2})
        assert repo._candidate_ids(ObjectQuery(bbox=box)) == expected, box


def test_known_json_encodes_as_json_dumps() -> None:
    members = {"a": 1, "b": 'tekst " \\ \n é', "c": [1.5, None, True], "d": {"e": []}}
    plain = json.dumps(members, ensure_ascii=False, separators=(",", ":")).encode()
    body = KnownJson(members, json.dumps(members, ensure_ascii=False, separators=(",", ":"))[1:-1])
    assert json_bytes(body) == plain
    body["_links"] = {"self": {"href": "x"}}
    assert json_bytes(body) == json_bytes(dict(body))
    body["a"] = 2  # a member changes: the known text is forgotten
    assert json_bytes(body) == json_bytes(dict(body)) and b'"a":2' in json_bytes(body)
    body = KnownJson(members, "")
    body.pop("b")
    assert json_bytes(body) == json_bytes(dict(body))


@pytest.mark.parametrize("host", ["mock.test:8123", 'a"b', "x\\y", "tab\there"])
@pytest.mark.parametrize(
    "path",
    [
        f"/adressen/{WELL_KNOWN['nummeraanduiding']}",
        f"/adressen/{WELL_KNOWN['nummeraanduiding']}?expand=true",
        f"/adressenuitgebreid/{WELL_KNOWN['nummeraanduiding']}",
        "/adressen?q=kerkstraat&pageSize=10",
        f"/adresseerbareobjecten/{WELL_KNOWN['verblijfsobject']}?expand=true",
    ],
)
def test_answers_are_plain_json(db: Path, host: str, path: str) -> None:
    """What the mock sends is what json.dumps of the same members sends, whatever the host."""
    config = AddressMockConfig(db_path=db, keys={KEY: KeyPolicy()})
    client = TestClient(create_app(config, FaultSet()))
    for _ in range(2):  # built, then from what is kept
        response = client.get(BASE + path, headers={"X-Api-Key": KEY, "Host": host})
        assert response.status_code == 200
        parsed: Any = json.loads(response.content)
        assert response.content == json.dumps(parsed, ensure_ascii=False, separators=(",", ":")).encode()
        assert json.dumps(f"http://{host}{BASE}/", ensure_ascii=False)[1:-1] in response.text
