"""Unit tests of conformance/checks/address/endpoints.py: every check passes a conforming
Exchange and raises a Finding for a deviating one (each proven both ways)."""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

import pytest

from conformance.checks.address import endpoints as E
from conformance.findings import Finding
from conformance.http.exchange import Exchange, Headers

BASE = "http://127.0.0.1:1/lvbag/individuelebevragingen/v2"
NUM, NUM2, NUM3 = "0001200000000001", "0001200000000002", "0001200000000003"
VBO, LIG, STA = "0001010000000001", "0001020000000001", "0001030000000001"
PAND, PAND2 = "0001100000000001", "0001100000000002"


def exchange(body: Any = None, status: int = 200, path: str = "/adressen", media: str | None = None) -> Exchange:
    media = media or ("application/hal+json" if status < 400 else "application/problem+json")
    raw = b"" if body is None else json.dumps(body).encode()
    return Exchange("GET", BASE + path, Headers([]), b"", status, Headers([("Content-Type", media)]), raw)


def problem(status: int, code: str, params: list[tuple[str, str]] | None = None) -> Exchange:
    body: dict[str, Any] = {"status": status, "title": "t", "code": code, "instance": "/x"}
    if params is not None:
        body["invalid-params"] = [{"type": "u", "name": n, "code": c, "reason": "r"} for n, c in params]
    return exchange(body, status)


def obj(kind: str = "verblijfsobject", ident: str = VBO, nested: bool = True, **data: Any) -> dict[str, Any]:
    inner = {"identificatie": ident, **data}
    wrapper = {kind: inner, "_links": {"self": {"href": "x"}}} if nested else {**inner, "_links": {}}
    return {kind: wrapper, "_links": {"self": {"href": "x"}}}


def collection(name: str, found: list[Any], status: int = 200) -> Exchange:
    return exchange({"_links": {"self": {"href": "x"}}, "_embedded": {name: found}}, status)


def fails(call, *args: Any, **kwargs: Any) -> Finding:
    with pytest.raises(Finding) as info:
        call(*args, **kwargs)
    return info.value


# --------------------------------------------------------------------------- statuses
def test_status_checks() -> None:
    E.has_status(exchange({}, 200), 200)
    fails(E.has_status, exchange({}, 201), 200)
    E.is_ok(exchange({}))
    fails(E.is_ok, problem(400, "paramsValidation"))
    E.is_client_error(problem(422, "x"), "why")
    fails(E.is_client_error, exchange({}, 200), "why")
    fails(E.is_client_error, problem(500, "serverError"), "why")


def test_rejected() -> None:
    E.rejected(problem(400, "paramsValidation", [("bbox", "surfaceMaximum")]), "bbox", "why")
    E.rejected(problem(400, "paramsValidation", [("adresseerbaarobjectidentificatie", "pattern")]),
               "adresseerbaarObjectIdentificatie", "case is ignored")
    E.rejected(problem(400, "paramsValidation", [("oppervlakte", "range")]), ("oppervlakte[min]", "oppervlakte"), "w")
    fails(E.rejected, exchange({}, 200), "bbox", "accepted")
    fails(E.rejected, problem(400, "paramsValidation", [("page", "minimum")]), "bbox", "other parameter")
    fails(E.rejected, problem(400, "paramsValidation"), "bbox", "no invalid-params")
    fails(E.rejected, problem(404, "notFound"), "bbox", "wrong status")


def test_is_not_found() -> None:
    E.is_not_found(problem(404, "notFound"))
    fails(E.is_not_found, exchange({}, 200))
    fails(E.is_not_found, problem(404, "notfound"))
    fails(E.is_not_found, problem(400, "notFound"))


# --------------------------------------------------------------------------- collections
def test_items() -> None:
    assert E.items(collection("adressen", [{"a": 1}]), "adressen") == [{"a": 1}]
    assert E.items(exchange({"_links": {}}), "adressen") == []  # no _embedded: no results
    fails(E.items, collection("adressen", [{"a": 1}], status=400), "adressen")
    fails(E.items, collection("adressen", [1, "x"]), "adressen")
    fails(E.items, exchange(None), "adressen")
    E.non_empty([1], "x")
    fails(E.non_empty, [], "x")


def test_collect_pages_until_a_short_page() -> None:
    pages = {1: [{"n": i} for i in range(2)], 2: [{"n": 2}]}
    calls: list[list[tuple[str, str]]] = []

    def get(path: str, params: list[tuple[str, str]]) -> Exchange:
        calls.append(params)
        return collection("adressen", pages.get(int(dict(params)["page"]), []))

    assert len(E.collect(get, "/adressen", [("q", "x")], "adressen", page_size=2)) == 3
    assert [dict(c)["page"] for c in calls] == ["1", "2"]
    assert dict(calls[0])["pageSize"] == "2" and ("q", "x") in calls[0]


def test_collect_stops_at_a_refused_later_page_but_not_a_refused_first_page() -> None:
    def get(path: str, params: list[tuple[str, str]]) -> Exchange:
        if dict(params)["page"] == "1":
            return collection("adressen", [{"n": 1}, {"n": 2}])
        return problem(400, "paramsValidation", [("page", "page")])

    assert len(E.collect(get, "/adressen", [], "adressen", page_size=2)) == 2
    fails(E.collect, lambda path, params: problem(400, "paramsRequired"), "/adressen", [], "adressen")


# --------------------------------------------------------------------------- addressable objects
def test_object_type_and_data() -> None:
    assert E.object_type(obj("ligplaats", LIG)) == "ligplaats"
    assert E.object_id(obj("standplaats", STA)) == STA
    assert E.object_id(obj(nested=False)) == VBO  # data directly in the wrapper is read too
    fails(E.object_type, {"verblijfsobject": {}, "ligplaats": {}})
    fails(E.object_type, {"_links": {}})
    fails(E.object_type, {"ligplaats": "x"})
    fails(E.object_id, obj(ident=""))


def test_single_object() -> None:
    E.single_object(exchange(obj()), VBO, "verblijfsobject")
    fails(E.single_object, exchange(obj()), VBO, "ligplaats")
    fails(E.single_object, exchange(obj(ident=VBO[:-1])), VBO)
    fails(E.single_object, problem(404, "notFound"), VBO)


def test_objects_have_address() -> None:
    found = [obj(heeftAlsHoofdAdres=NUM), obj(ident=LIG, heeftAlsHoofdAdres=NUM2, heeftAlsNevenAdres=[NUM])]
    E.objects_have_address(found, NUM)
    fails(E.objects_have_address, [*found, obj(ident=STA, heeftAlsHoofdAdres=NUM3)], NUM)


def test_objects_in_buildings_and_of_type() -> None:
    E.objects_in_buildings([obj(maaktDeelUitVan=[PAND, PAND2])], [PAND2])
    fails(E.objects_in_buildings, [obj(maaktDeelUitVan=[PAND2]), obj(ident=LIG)], [PAND2])
    E.objects_of_type([obj(), obj()], "verblijfsobject")
    fails(E.objects_of_type, [obj(), obj("ligplaats", LIG)], "verblijfsobject")


def test_includes_excludes() -> None:
    E.includes([VBO, LIG], LIG, "x")
    fails(E.includes, [VBO], LIG, "x")
    E.excludes([VBO], LIG, "x")
    fails(E.excludes, [VBO, LIG], LIG, "x")


def test_objects_have_purpose() -> None:
    found = [obj(gebruiksdoelen=["woonfunctie", "winkelfunctie"]), obj(ident=VBO[:-1] + "2", gebruiksdoelen=["celfunctie"])]
    E.objects_have_purpose(found, ["winkelfunctie", "celfunctie"])
    fails(E.objects_have_purpose, found, ["winkelfunctie"])
    fails(E.objects_have_purpose, [obj()], ["winkelfunctie"])  # no purposes at all


def test_objects_within_area() -> None:
    E.objects_within_area([obj(oppervlakte=50), obj(oppervlakte=80)], 50, 80)
    E.objects_within_area([obj(oppervlakte=50)], None, 50)
    fails(E.objects_within_area, [obj(oppervlakte=81)], 50, 80)
    fails(E.objects_within_area, [obj(oppervlakte=49)], 50, None)
    fails(E.objects_within_area, [obj()], 1, 999999)  # no area
    fails(E.objects_within_area, [obj("ligplaats", LIG)], 1, 999999)  # a berth never matches
    fails(E.objects_within_area, [obj(oppervlakte=True)], 1, 999999)


# --------------------------------------------------------------------------- geometry
def test_bbox_helpers() -> None:
    assert E.parse_bbox("10,20,5,4") == (5.0, 4.0, 10.0, 20.0)
    assert E.format_bbox((1.0, 2.0, 3.5, 4.0)) == "1,2,3.5,4"
    assert E.format_bbox((119400.0, 480760.0, 119900.0, 481260.0)) == "119400,480760,119900,481260"
    box = E.square_bbox("119400.7,480760.2,119700,480960", 500.0)
    assert box == (119400.0, 480760.0, 119900.0, 481260.0)
    assert (box[2] - box[0]) * (box[3] - box[1]) == 250000.0
    taller = E.square_bbox("119400,480760,119700,480960", 500.0, 500.1)
    assert (taller[2] - taller[0]) * (taller[3] - taller[1]) > 250000.0


def test_envelope() -> None:
    point = {"punt": {"type": "Point", "coordinates": [1.0, 2.0, 0.0]}}
    polygon = {"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 3], [0, 0]]]}
    assert E.envelope(point) == (1.0, 2.0, 1.0, 2.0)
    assert E.envelope(polygon) == (0.0, 0.0, 4.0, 3.0)
    assert E.envelope({"vlak": polygon}) == (0.0, 0.0, 4.0, 3.0)
    assert E.envelope(None) is None
    assert E.envelope({"type": "Point"}) is None


def test_boxes_meet() -> None:
    box = (0.0, 0.0, 10.0, 10.0)
    assert E.boxes_meet((5, 5, 5, 5), box)
    assert E.boxes_meet((10, 10, 12, 12), box)  # touching
    assert E.boxes_meet((10.0005, 0, 11, 1), box)  # 0.5 mm outside
    assert not E.boxes_meet((10.002, 0, 11, 1), box)
    assert not E.boxes_meet((-5, 11, -1, 12), box)


def test_objects_meet_box() -> None:
    inside = obj(geometrie={"punt": {"type": "Point", "coordinates": [5, 5]}})
    outside = obj(ident=LIG, geometrie={"type": "Point", "coordinates": [50, 5]})
    E.objects_meet_box([inside], (0, 0, 10, 10))
    fails(E.objects_meet_box, [inside, outside], (0, 0, 10, 10))
    fails(E.objects_meet_box, [obj()], (0, 0, 10, 10))  # no geometry to judge


# --------------------------------------------------------------------------- embedding
def test_embeds() -> None:
    embedded = {"heeftAlsHoofdAdres": {"nummeraanduiding": {"identificatie": NUM}, "_links": {}},
                "maaktDeelUitVan": [{"pand": {"identificatie": PAND}}, {"pand": {"identificatie": PAND2}}]}
    E.embeds(embedded, "heeftAlsHoofdAdres", [NUM], "o")
    E.embeds(embedded, "maaktDeelUitVan", [PAND, PAND2], "o")
    fails(E.embeds, embedded, "heeftAlsNevenAdres", [NUM2], "o")
    fails(E.embeds, {"maaktDeelUitVan": []}, "maaktDeelUitVan", [PAND], "o")
    fails(E.embeds, embedded, "maaktDeelUitVan", [PAND, "0001100000000009"], "o")
    only_link = {"heeftAlsHoofdAdres": {"nummeraanduiding": {}, "_links": {"self": {"href": NUM}}}}
    fails(E.embeds, only_link, "heeftAlsHoofdAdres", [NUM], "o")


def test_object_and_address_embedded() -> None:
    inner = obj()
    inner["verblijfsobject"]["_embedded"] = {"a": 1}
    assert E.object_embedded(inner) == {"a": 1}
    outer = obj()
    outer["_embedded"] = {"b": 2}
    assert E.object_embedded(outer) == {"b": 2}
    assert E.object_embedded(obj()) == {}
    assert E.address_embedded({"_embedded": {"c": 3}}) == {"c": 3}
    assert E.address_embedded({"_embedded": []}) == {}


# --------------------------------------------------------------------------- time travel and life cycle
def occurrence(begin: str, end: str | None = None, registered: str = "2020-01-01T00:00:00.000", versie: int = 1):
    voorkomen = {"beginGeldigheid": begin, "tijdstipRegistratie": registered, "versie": versie}
    if end:
        voorkomen["eindGeldigheid"] = end
    return obj(voorkomen=voorkomen)


def test_valid_on() -> None:
    current = occurrence("2021-06-01")
    E.valid_on(occurrence("2019-01-01", "2021-06-01"), date(2020, 5, 1), current)
    fails(E.valid_on, current, date(2020, 5, 1), current)  # time travel ignored
    fails(E.valid_on, occurrence("2019-01-01", "2020-01-01"), date(2020, 5, 1), current)  # ended before the day
    fails(E.valid_on, occurrence("2020-06-01"), date(2020, 5, 1), current)  # begins after the day
    fails(E.valid_on, obj(), date(2020, 5, 1), current)  # no voorkomen


def test_registered_before() -> None:
    current = occurrence("2021-06-01", registered="2021-06-02T10:00:00.000")
    moment = datetime(2021, 6, 2, 9, 59, 59, 999000)
    E.registered_before(occurrence("2019-01-01", registered="2019-01-02T08:00:00"), current, moment)
    fails(E.registered_before, current, current, moment)
    fails(E.registered_before, occurrence("2019-01-01", registered="nonsense"), current, moment)
    assert E.parse_moment("2021-06-02T10:00:00Z") is not None and E.parse_day("x") is None


def test_life_cycle() -> None:
    def lvc(*versions: int) -> Exchange:
        return collection("voorkomens", [occurrence("2020-01-01", versie=v) for v in versions])

    valid, whole = E.occurrence_keys(lvc(1, 3)), E.occurrence_keys(lvc(1, 2, 3))
    assert valid == [("1", "2020-01-01T00:00:00.000"), ("3", "2020-01-01T00:00:00.000")]
    E.whole_life_cycle_larger(valid, whole)
    fails(E.whole_life_cycle_larger, whole, whole)  # removed occurrences always (or never) included
    fails(E.whole_life_cycle_larger, valid, E.occurrence_keys(lvc(2, 3, 4)))  # a valid one missing
    fails(E.occurrence_keys, collection("voorkomens", [obj()]))


# --------------------------------------------------------------------------- addresses
def address(num: str = NUM, **fields: Any) -> dict[str, Any]:
    return {"nummeraanduidingIdentificatie": num, "postcode": "1181VA", "huisnummer": 12, **fields}


def test_addresses_match() -> None:
    E.addresses_match([address(), address(NUM2)], postcode="1181 va", huisnummer="12")
    E.addresses_match([address(huisletter="a")], huisletter="A")
    fails(E.addresses_match, [address(), address(NUM2, postcode="1181VB")], postcode="1181VA")
    fails(E.addresses_match, [address()], huisletter="A")
    fails(E.addresses_match, [address()], adresseerbaarObjectIdentificatie=VBO)
    assert E.address_ids([address(), address(NUM2)]) == [NUM, NUM2]
    fails(E.address_ids, [{"postcode": "1181VA"}])


def test_addresses_in_building() -> None:
    E.addresses_in_building([address(pandIdentificaties=[PAND, PAND2])], PAND2)
    fails(E.addresses_in_building, [address(pandIdentificaties=[PAND]), address(NUM2)], PAND)


def test_exact_and_variants() -> None:
    plain, letter, addition = address(), address(NUM2, huisletter="A"), address(NUM3, huisnummertoevoeging="1")
    E.addresses_exact([plain])
    E.addresses_exact([letter], huisletter="a")
    fails(E.addresses_exact, [plain, letter])
    fails(E.addresses_exact, [plain, addition])
    fails(E.addresses_exact, [letter], huisletter="B")
    E.has_variants([plain, letter])
    fails(E.has_variants, [plain])


def test_q_terms_matched() -> None:
    E.q_terms_matched([address(), address(NUM2, postcode="1181VB", huisnummer=12)], "1181VA 12")
    E.q_terms_matched([address(openbareRuimteNaam="Kerkstraat")], "kerkstraat,99")
    fails(E.q_terms_matched, [address(), address(NUM2, postcode="9999ZZ", huisnummer=3)], "1181VA 12")


def test_extended_fields() -> None:
    full = {"typeAdresseerbaarObject": "Verblijfsobject", "adresseerbaarObjectGeometrie": {"punt": {}},
            "adresseerbaarObjectStatus": "Verblijfsobject in gebruik", "gebruiksdoelen": ["woonfunctie"],
            "oppervlakte": 80}
    E.extended_fields([address(**full)])
    berth = {k: v for k, v in full.items() if k not in ("gebruiksdoelen", "oppervlakte")}
    E.extended_fields([address(**{**berth, "typeAdresseerbaarObject": "Ligplaats"})])
    fails(E.extended_fields, [address(**berth)])  # a verblijfsobject without purposes and area
    fails(E.extended_fields, [address()])


def test_zoek_ids_and_bronhouders() -> None:
    assert E.zoek_ids([{"identificatie": "adr-1"}]) == ["adr-1"]
    fails(E.zoek_ids, [{"identificatie": ""}])
    fails(E.zoek_ids, [{"identificatie": "x" * 256}])
    fails(E.zoek_ids, [{"omschrijving": "x"}])
    E.bronhouders(collection("bronhouders", [{"bronhouder": {"code": "0001"}}]))
    fails(E.bronhouders, collection("bronhouders", []))
    fails(E.bronhouders, collection("bronhouders", [{"bronhouder": {}}]))
    fails(E.bronhouders, problem(400, "paramsRequired"))
