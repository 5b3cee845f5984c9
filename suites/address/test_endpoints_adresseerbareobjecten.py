"""GET /adresseerbareobjecten, /adresseerbareobjecten/{id} and /{id}/lvc (seed parts 1, 2, 4, 8).

Sample ids come from the profile; everything else (addresses, buildings, areas, purposes,
registration moments) is read from the server's own responses first.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from conformance.checks.address import endpoints as E
from conformance.checks.address import general as g
from conformance.checks.address import hal, problem
from conformance.checks.address import time_travel as T
from conformance.checks.address.control import (
    CLIENT_ERROR,
    Req,
    control_served,
    refused_vs_control,
    rejected_vs_control,
)
from conformance.checks.registry import MUST, OBSERVATION, SHOULD, check
from conformance.errors import NotJudged
from conformance.findings import Finding, expect, require

OBJECTS = "/adresseerbareobjecten"
# bag-api.md 2.2 (the seed does not show the values of Gebruiksdoel).
GEBRUIKSDOELEN = (
    "woonfunctie", "bijeenkomstfunctie", "celfunctie", "gezondheidszorgfunctie", "industriefunctie",
    "kantoorfunctie", "logiesfunctie", "onderwijsfunctie", "sportfunctie", "winkelfunctie",
    "overige gebruiksfunctie",
)  # fmt: skip
RELATIONS = ("heeftAlsHoofdAdres", "heeftAlsNevenAdres", "maaktDeelUitVan")


def get_object(api, object_id: str, **params: str):
    return api.get(f"{OBJECTS}/{object_id}", params or None)


def sample_object(api, name: str) -> g.SampleData:
    """A sample object a check starts from, as the server renders it: one wrapper and the
    sample's id, else the check is blocked with the sample's one cause."""
    return g.sample_resource(api, name, OBJECTS + "/{}", check=lambda ex, value: E.single_object(ex, value))


def sample_relations(api, name: str) -> tuple[g.SampleData, dict[str, list[str]]]:
    """The sample object (`.value` is its id) and its related ids; it must have a main address."""
    data = sample_object(api, name)
    data.having("heeftAlsHoofdAdres", E.main_address(data))
    return data, relation_ids(data)


def search_all(api, params: list[tuple[str, str]]) -> list[dict[str, Any]]:
    return E.collect(api.get, OBJECTS, params, "adresseerbareObjecten")


def bbox_param(api, name: str = "bbox") -> tuple[E.Box, tuple[str, str]]:
    """A sample bbox (README "Samples": `bbox` holds some object, `bbox_<kind>` that kind)."""
    box = E.parse_bbox(api.sample(name))
    return box, ("bbox", E.format_bbox(box))


def _kind_of(item: dict[str, Any]) -> str | None:
    try:
        return E.object_type(item)
    except Finding:
        return None


def vbo_sample_for(expand: str) -> str:
    """The verblijfsobject sample an expand check starts from: one with a side address
    when heeftAlsNevenAdres is to be embedded, else any."""
    return "verblijfsobject_nevenadres" if "heeftAlsNevenAdres" in expand.split(",") else "verblijfsobject"


def relation_ids(data: dict[str, Any]) -> dict[str, list[str]]:
    main = E.main_address(data)
    expect(main is not None, "the object has no heeftAlsHoofdAdres", actual=E.object_id(data))
    return {"heeftAlsHoofdAdres": [main], "heeftAlsNevenAdres": E.side_addresses(data),
            "maaktDeelUitVan": E.buildings(data)}  # fmt: skip


def check_embedded(item: dict[str, Any], expand: str, related: dict[str, list[str]]) -> None:
    names = [r for r in RELATIONS if related[r]] if expand == "true" else expand.split(",")
    for relation in names:
        if not related[relation]:
            sample = "verblijfsobject_nevenadres" if relation == "heeftAlsNevenAdres" else "verblijfsobject"
            raise NotJudged(f"no sample object with a {relation}", f"name as services.address.samples.{sample} an "
                            "object that has one: `conformance discover --all` looks for one")
        E.embeds(E.object_embedded(item), relation, related[relation], E.object_id(item))


def first_vbo_with(api, attribute) -> dict[str, Any]:
    """A verblijfsobject of the sample box bbox_verblijfsobject for which `attribute(item)` is truthy."""
    _, bbox = bbox_param(api, "bbox_verblijfsobject")
    found = search_all(api, [bbox, ("type", "verblijfsobject")])
    chosen = [i for i in found if E.object_type(i) == "verblijfsobject" and attribute(i)]
    expect(bool(chosen), "the sample box holds no verblijfsobject with the attribute needed", actual=len(found))
    return chosen[0]


# --------------------------------------------------------------------------- /adresseerbareobjecten
@check("address.adresseerbareobjecten.no_parameters_rejected", MUST, "GET /adresseerbareobjecten without any query parameter is answered 400 paramsRequired",
       requirements=["ADDR-4.adresseerbareobjecten", "ADDR-7.400"],
       proven_by=["address.required_params_not_enforced"],
       may_fail_under=["address.wrong_error_code"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_no_parameters_rejected(address_api) -> None:
    control = Req.of(OBJECTS, [("pandIdentificaties", address_api.sample("pand"))])
    ex = refused_vs_control(address_api, control, control.without("pandIdentificaties"), rule="no query kind given")
    problem.has_problem_code(ex, "paramsRequired")


@check("address.adresseerbareobjecten.by_nummeraanduiding", MUST, "nummeraanduidingIdentificatie finds the object whose main or side address it is, and only such objects",
       requirements=["ADDR-4.adresseerbareobjecten.nummeraanduidingIdentificatie"],
       proven_by=["address.nummeraanduiding_side_address_ignored"],
       feature="GET /adresseerbareobjecten")
def test_by_nummeraanduiding(address_api) -> None:
    sample, related = sample_relations(address_api, "verblijfsobject")
    vbo = sample.value
    for num in related["heeftAlsHoofdAdres"] + related["heeftAlsNevenAdres"]:
        found = search_all(address_api, [("nummeraanduidingIdentificatie", num)])
        E.objects_have_address(found, num)
        E.includes(E.object_ids(found), vbo, f"the object with address {num}")


@check("address.adresseerbareobjecten.bbox_results_in_box", MUST, "A bbox query returns objects, each lying in or touching the box",
       requirements=["ADDR-4.adresseerbareobjecten.bbox"],
       proven_by=["address.bbox_filter_ignored"],
       may_fail_under=["address.identifiers_malformed", "address.object_wrapper_ambiguous"],
       feature="GET /adresseerbareobjecten")
def test_bbox_results_in_box(address_api) -> None:
    box, bbox = bbox_param(address_api)
    found = search_all(address_api, [bbox])
    E.non_empty(found, "the sample bbox holds objects")
    E.objects_meet_box(found, box)


@check("address.adresseerbareobjecten.exactly_one_type", MUST, "Each object of a search result is exactly one of ligplaats, standplaats, verblijfsobject",
       requirements=["ADDR-4.adresseerbareobjecten"],
       proven_by=["address.object_wrapper_ambiguous"],
       feature="GET /adresseerbareobjecten")
def test_exactly_one_type(address_api) -> None:
    _, bbox = bbox_param(address_api)
    found = search_all(address_api, [bbox])
    E.non_empty(found, "the sample bbox holds objects")
    for item in found:
        E.object_type(item)


@pytest.mark.parametrize(
    ("height", "accepted"),
    [pytest.param(500.0, True, id="250000m2"), pytest.param(500.1, False, id="250050m2")],
)
@check("address.adresseerbareobjecten.bbox_area_limit", MUST, "A bbox of exactly 250000 m2 is accepted and one just above it is refused with 400 naming bbox",
       requirements=["ADDR-4.adresseerbareobjecten.bbox", "ADDR-8.bbox"],
       proven_by=["address.bbox_area_not_enforced"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       feature="GET /adresseerbareobjecten")
def test_bbox_area_limit(address_api, height: float, accepted: bool) -> None:
    # The box of exactly 250000 m2 is the control of the one just above it.
    control = Req.of(OBJECTS, [("bbox", E.format_bbox(E.square_bbox(address_api.sample("bbox"), 500.0)))])
    changed = control.with_param("bbox", E.format_bbox(E.square_bbox(address_api.sample("bbox"), 500.0, height)))
    if accepted:
        E.is_ok(changed.send(address_api), "a bbox of exactly 250000 m2 is within the limit")
    else:
        rejected_vs_control(address_api, control, changed, "bbox", "a bbox above 250000 m2")


@pytest.mark.parametrize("shape", ["three", "five", "letters"])
@check("address.adresseerbareobjecten.bbox_arity_rejected", MUST, "A bbox of 3 or 5 numbers, or of non-numbers, is refused with 400 naming bbox",
       requirements=["ADDR-4.adresseerbareobjecten.bbox"],
       proven_by=["address.bbox_arity_not_enforced"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_bbox_arity_rejected(address_api, shape: str) -> None:
    x1, y1, x2, y2 = E.format_bbox(E.parse_bbox(address_api.sample("bbox"))).split(",")
    value = {"three": f"{x1},{y1},{x2}", "five": f"{x1},{y1},{x2},{y2},{y2}", "letters": "a,b,c,d"}[shape]
    control = Req.of(OBJECTS, [("bbox", f"{x1},{y1},{x2},{y2}")])
    rejected_vs_control(address_api, control, control.with_param("bbox", value), "bbox", f"bbox {shape}")


@check("address.adresseerbareobjecten.bbox_corner_order", OBSERVATION, "What the server does with a bbox given as upper-left, lower-right (the seed orders lower-left, upper-right)",
       requirements=["ADDR-4.adresseerbareobjecten.bbox", "BAGREF-4.8"],
       feature="GET /adresseerbareobjecten")
def test_bbox_corner_order(address_api, observe) -> None:
    box, bbox = bbox_param(address_api)
    normal = address_api.get(OBJECTS, [bbox, ("pageSize", "100")])
    swapped = E.format_bbox((box[0], box[3], box[2], box[1]))  # upper-left, lower-right
    ex = address_api.get(OBJECTS, [("bbox", swapped), ("pageSize", "100")])
    same = None
    if ex.status == 200 and normal.status == 200:
        try:
            same = sorted(E.object_ids(hal.embedded(ex, "adresseerbareObjecten"))) == sorted(
                E.object_ids(hal.embedded(normal, "adresseerbareObjecten")))
        except Finding:  # unreadable results are other checks' business; this one only measures
            same = None
    code = ex.json.get("code") if isinstance(ex.json, dict) else None
    observe({"status": ex.status, "code": code, "same_results_as_lower_left_first": same})


@pytest.mark.parametrize("kind", E.OBJECT_TYPES)
@check("address.adresseerbareobjecten.type_filter", MUST, "bbox with type returns objects of that type only (each type found in the sample box)",
       requirements=["ADDR-4.adresseerbareobjecten.type"],
       proven_by=["address.type_filter_ignored"],
       may_fail_under=["address.bbox_filter_ignored"],  # its control is the box without type
       feature="GET /adresseerbareobjecten")
def test_type_filter(address_api, kind: str) -> None:
    # Over a box holding the kind, type=kind finds it and nothing else ...
    _, bbox = bbox_param(address_api, f"bbox_{kind}")
    found = search_all(address_api, [bbox, ("type", kind)])
    E.non_empty(found, f"the sample bbox_{kind} holds a {kind}")
    E.objects_of_type(found, kind)
    # ... and over a box whose unfiltered answer (the control) holds another kind, the filter
    # leaves that kind out: where each kind lies apart, as in ordinary data, only this part
    # can tell a filter that works from one that is ignored.
    others = [f"bbox_{k}" for k in E.OBJECT_TYPES if k != kind and address_api.samples.get(f"bbox_{k}")]
    if not others:
        others = " or ".join(k for k in E.OBJECT_TYPES if k != kind)
        raise NotJudged(f"no sample box of a kind other than {kind}",
                        f"name services.address.samples.bbox_<kind> for {others} (a box holding that kind): "
                        "`conformance discover` finds them")
    _, other = bbox_param(address_api, others[0])
    control = search_all(address_api, [other])
    # What kinds the control shows; an item whose kind cannot be read is another check's
    # (exactly_one_type), never this one's.
    require(any(_kind_of(i) not in (kind, None) for i in control),
            f"the control ({others[0]} without type) holds an object other than a {kind}",
            f"GET /adresseerbareobjecten?bbox={other[1]} -> {len(control)} objects, all {kind}")
    E.objects_of_type(search_all(address_api, [other, ("type", kind)]), kind)


@pytest.mark.parametrize("value", ["fout", "pand", "verblijfsobjecten"])
@check("address.adresseerbareobjecten.type_value_validated", MUST, "A type other than ligplaats, standplaats or verblijfsobject is refused with 400 naming type",
       requirements=["ADDR-4.adresseerbareobjecten.type", "ADDR-7.400"],
       proven_by=["address.type_value_not_validated"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_type_value_validated(address_api, value: str) -> None:
    """Seed part 4: "type | TypeAdresseerbaarObject | ligplaats, standplaats or verblijfsobject";
    a value naming none of the three (another kind of object, a plural) is a faulty parameter
    (part 7: "invalid-params lists faulty parameters"). The control names a kind as the seed
    writes it."""
    _, bbox = bbox_param(address_api)
    control = Req.of(OBJECTS, [bbox, ("type", "verblijfsobject")])
    rejected_vs_control(address_api, control, control.with_param("type", value), "type", f"type={value}")


# The list parameters of /adresseerbareobjecten, each "array (at least 1)" (seed part 4), with
# the query its control sends it in.
LISTS = {
    "pandIdentificaties": lambda api: [("pandIdentificaties", api.sample("pand"))],
    "gebruiksdoelen": lambda api: [bbox_param(api)[1], ("gebruiksdoelen", "woonfunctie")],
}


@pytest.mark.parametrize("name", list(LISTS))
@check("address.adresseerbareobjecten.empty_list_rejected", MUST, "An empty pandIdentificaties or gebruiksdoelen (each an array of at least 1) is refused with 400",
       requirements=["ADDR-4.adresseerbareobjecten.pandIdentificaties.items", "ADDR-4.adresseerbareobjecten.gebruiksdoelen",
                     "ADDR-7.400"],
       proven_by=["address.empty_lists_accepted"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_empty_list_rejected(address_api, name: str) -> None:
    # One value is the control; the same parameter without any value is the one change. Its
    # value is empty, so an invalid-params list need not single it out (but must not blame another).
    control = Req.of(OBJECTS, LISTS[name](address_api))
    refused_vs_control(address_api, control, control.with_param(name, ""), rule=f"an empty {name} (at least 1 item)",
                       statuses=(400,), names=name)


@check("address.adresseerbareobjecten.gebruiksdoelen_filter", MUST, "bbox with gebruiksdoelen returns accommodation objects having at least one of the purposes",
       requirements=["ADDR-4.adresseerbareobjecten.gebruiksdoelen"],
       proven_by=["address.gebruiksdoelen_filter_ignored"],
       may_fail_under=["address.identifiers_malformed"],
       feature="GET /adresseerbareobjecten")
def test_gebruiksdoelen_filter(address_api) -> None:
    vbo = first_vbo_with(address_api, E.gebruiksdoelen)
    held = E.gebruiksdoelen(vbo)
    other = next((d for d in GEBRUIKSDOELEN if d not in held), None)
    wanted = [held[0]] + ([other] if other else [])
    _, bbox = bbox_param(address_api, "bbox_verblijfsobject")
    found = search_all(address_api, [bbox, ("gebruiksdoelen", ",".join(wanted))])
    E.objects_have_purpose(found, wanted)
    E.includes(E.object_ids(found), E.object_id(vbo), f"a verblijfsobject with purpose {held[0]}")


@check("address.adresseerbareobjecten.geconstateerd_filter", MUST, "bbox with geconstateerd=true returns exactly the box's established objects (geconstateerd J)",
       requirements=["ADDR-4.adresseerbareobjecten.geconstateerd"],
       proven_by=["address.geconstateerd_filter_ignored"],
       may_fail_under=["address.identifiers_malformed", "address.object_wrapper_ambiguous", "address.bbox_filter_ignored"],
       feature="GET /adresseerbareobjecten")
def test_geconstateerd_filter(address_api) -> None:
    _, bbox = bbox_param(address_api)
    established = {E.object_id(i) for i in search_all(address_api, [bbox]) if E.is_established(i)}
    if not established:
        raise NotJudged("no sample box holding an established (geconstateerd) object",
                        "name as services.address.samples.bbox a box holding one: `conformance discover --all` prefers "
                        "such a box and says when the one it takes lacks it")
    found = search_all(address_api, [bbox, ("geconstateerd", "true")])
    E.same_objects(found, established, "the established objects of the sample bbox")


@pytest.mark.parametrize(
    ("name", "value", "accepted"),
    [
        pytest.param("oppervlakte[min]", "0", False),
        pytest.param("oppervlakte[min]", "1", True),
        pytest.param("oppervlakte[max]", "999999", True),
        pytest.param("oppervlakte[max]", "1000000", False),
    ],
)
@check("address.adresseerbareobjecten.oppervlakte_limits", MUST, "oppervlakte[min] and [max] accept 1 and 999999 and refuse 0 and 1000000 with 400",
       requirements=["ADDR-4.adresseerbareobjecten.oppervlakte", "ADDR-8.oppervlakte"],
       proven_by=["address.oppervlakte_limits_not_enforced"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       feature="GET /adresseerbareobjecten")
def test_oppervlakte_limits(address_api, name: str, value: str, accepted: bool) -> None:
    _, bbox = bbox_param(address_api)
    changed = Req.of(OBJECTS, [bbox, (name, value)])
    if accepted:
        E.is_ok(changed.send(address_api), f"{name}={value} is within 1..999999")
    else:  # the limit itself is the control
        control = changed.with_param(name, "1" if name.endswith("[min]") else "999999")
        rejected_vs_control(address_api, control, changed, (name, "oppervlakte"), f"{name}={value} is outside 1..999999")


@check("address.adresseerbareobjecten.oppervlakte_filter", MUST, "bbox with oppervlakte returns accommodation objects whose area lies in the range",
       requirements=["ADDR-4.adresseerbareobjecten.oppervlakte"],
       proven_by=["address.oppervlakte_filter_ignored"],
       may_fail_under=["address.identifiers_malformed"],
       feature="GET /adresseerbareobjecten")
def test_oppervlakte_filter(address_api) -> None:
    vbo = first_vbo_with(address_api, E.oppervlakte)
    area = E.oppervlakte(vbo)
    assert area is not None
    _, bbox = bbox_param(address_api, "bbox_verblijfsobject")
    for low, high in ((area, area), (area, None), (None, area)):
        params = [bbox] + [(f"oppervlakte[{k}]", str(v)) for k, v in (("min", low), ("max", high)) if v is not None]
        found = search_all(address_api, params)
        E.objects_within_area(found, low, high)
        E.includes(E.object_ids(found), E.object_id(vbo), f"a verblijfsobject of {area} m2")


@check("address.adresseerbareobjecten.oppervlakte_excludes_berths_pitches", MUST, "Berths and pitches are never found with an oppervlakte filter",
       requirements=["ADDR-4.adresseerbareobjecten.oppervlakte"],
       proven_by=["address.oppervlakte_filter_ignored"],
       feature="GET /adresseerbareobjecten")
def test_oppervlakte_excludes_berths_pitches(address_api) -> None:
    for kind in ("ligplaats", "standplaats"):
        _, bbox = bbox_param(address_api, f"bbox_{kind}")
        found = E.items(address_api.get(OBJECTS, [bbox, ("type", kind)]), "adresseerbareObjecten")
        E.non_empty(found, f"the sample bbox_{kind} holds a {kind} (without oppervlakte)")
        found = search_all(address_api, [bbox, ("oppervlakte[min]", "1"), ("oppervlakte[max]", "999999")])
        E.objects_within_area(found, 1, 999999)


def _min_equal_max(address_api) -> Req:
    _, bbox = bbox_param(address_api)
    return Req.of(OBJECTS, [bbox, ("oppervlakte[min]", "100"), ("oppervlakte[max]", "100")])


def _min_above_max(address_api):
    return _min_equal_max(address_api).with_param("oppervlakte[min]", "200").send(address_api)


@check("address.adresseerbareobjecten.oppervlakte_min_above_max_rejected", MUST, "oppervlakte[min] greater than oppervlakte[max] is an error (4xx)",
       requirements=["ADDR-4.adresseerbareobjecten.oppervlakte"],
       proven_by=["address.oppervlakte_range_not_enforced"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_oppervlakte_min_above_max_rejected(address_api) -> None:
    # min = max is the control; raising min above max is the one change.
    control = _min_equal_max(address_api)
    refused_vs_control(address_api, control, control.with_param("oppervlakte[min]", "200"),
                       rule="oppervlakte min greater than max is an error", statuses=CLIENT_ERROR,
                       names=("oppervlakte", "oppervlakte[min]", "oppervlakte[max]"))


@check("address.adresseerbareobjecten.oppervlakte_min_above_max_response", OBSERVATION, "Status, code and invalid-params of the error for oppervlakte[min] > [max] (not shown in the seed)",
       requirements=["ADDR-4.adresseerbareobjecten.oppervlakte", "ADDR-7", "BAGREF-4.9"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_oppervlakte_min_above_max_response(address_api, observe) -> None:
    control_served(address_api, _min_equal_max(address_api))  # else the answer says nothing about the range
    ex = _min_above_max(address_api)
    body = ex.json if isinstance(ex.json, dict) else {}
    params = body.get("invalid-params") if isinstance(body.get("invalid-params"), list) else []
    observe({"status": ex.status, "code": body.get("code"),
             "invalid-params": [(p.get("name"), p.get("code")) for p in params if isinstance(p, dict)]})


@check("address.adresseerbareobjecten.bbox_filter_without_bbox_rejected", MUST, "geconstateerd without bbox is no query kind: 400 paramsRequired",
       requirements=["ADDR-4.adresseerbareobjecten", "ADDR-7.400"],
       proven_by=["address.required_params_not_enforced"],
       may_fail_under=["address.wrong_error_code"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_bbox_filter_without_bbox_rejected(address_api) -> None:
    _, bbox = bbox_param(address_api)
    control = Req.of(OBJECTS, [bbox, ("geconstateerd", "true")])
    ex = refused_vs_control(address_api, control, control.without("bbox"), rule="geconstateerd alone is no query kind")
    problem.has_problem_code(ex, "paramsRequired")


@check("address.adresseerbareobjecten.by_pand", MUST, "pandIdentificaties finds the objects in those buildings, and only those",
       requirements=["ADDR-4.adresseerbareobjecten.pandIdentificaties"],
       proven_by=["address.pand_query_leaks"],
       feature="GET /adresseerbareobjecten")
def test_by_pand(address_api) -> None:
    # One in two buildings also proves a list of pandIdentificaties; data without one still
    # proves the query by a single building.
    data = sample_object(address_api, "verblijfsobject_panden" if address_api.samples.get("verblijfsobject_panden")
                         else "verblijfsobject")
    vbo, panden = data.value, data.having("maaktDeelUitVan", E.buildings(data))
    for chosen in [[p] for p in panden] + ([panden] if len(panden) > 1 else []):
        found = search_all(address_api, [("pandIdentificaties", ",".join(chosen))])
        E.objects_in_buildings(found, chosen)
        E.includes(E.object_ids(found), vbo, f"the verblijfsobject in {','.join(chosen)}")


@pytest.mark.parametrize("case", ["nummeraanduiding_15_digits", "nummeraanduiding_letters", "pand_wrong_type"])
@check("address.adresseerbareobjecten.identifier_patterns_rejected", SHOULD, "Malformed nummeraanduidingIdentificatie / pandIdentificaties values are refused with 400 naming them",
       requirements=["ADDR-4.adresseerbareobjecten", "BAGREF-2.1", "BAGREF-5.4"],
       proven_by=["address.identifier_patterns_not_enforced"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_identifier_patterns_rejected(address_api, case: str) -> None:
    num, vbo = address_api.sample("nummeraanduiding"), address_api.sample("verblijfsobject")
    name, value = {
        "nummeraanduiding_15_digits": ("nummeraanduidingIdentificatie", num[:-1]),
        "nummeraanduiding_letters": ("nummeraanduidingIdentificatie", "a" * len(num)),
        "pand_wrong_type": ("pandIdentificaties", vbo),  # type code 01, not 10
    }[case]
    control = Req.of(OBJECTS, [(name, num if name == "nummeraanduidingIdentificatie" else address_api.sample("pand"))])
    rejected_vs_control(address_api, control, control.with_param(name, value), name, f"malformed {name}")


@pytest.mark.parametrize("kind", T.QUERY_KINDS)
@check("address.adresseerbareobjecten.huidig", MUST, "huidig=true leaves out an object with an end status, by each query kind; huidig=false returns it",
       requirements=["ADDR-1.huidig", "ADDR-4.huidig"],
       proven_by=["address.deleted_objects_returned_with_huidig", "address.collection_ignores_huidig"],
       may_fail_under=["address.identifiers_malformed"],
       feature="GET /adresseerbareobjecten")
def test_huidig(address_api, kind: str) -> None:
    # Each query kind applies huidig: one honoured on the address search alone is no pass.
    sample = sample_object(address_api, "adresseerbaarobject_eindstatus")
    ended = sample.value
    key = T.search_key([sample], kind, f"the sample adresseerbaarobject_eindstatus {ended}")
    for huidig, present in (("false", True), ("true", False)):
        found = search_all(address_api, [key, ("huidig", huidig)])
        check = E.includes if present else E.excludes
        check(E.object_ids(found), ended, f"the object with an end status (huidig={huidig}, {kind})")


@pytest.mark.parametrize("expand", [*RELATIONS, "heeftAlsHoofdAdres,maaktDeelUitVan", "true"])
@check("address.adresseerbareobjecten.expand_embeds", MUST, "expand (heeftAlsHoofdAdres, heeftAlsNevenAdres, maaktDeelUitVan, lists, true) embeds the named relations",
       requirements=["ADDR-1.expand", "ADDR-2.expand", "ADDR-4.expand"],
       proven_by=["address.expand_ignored"],
       feature="GET /adresseerbareobjecten")
def test_expand_embeds(address_api, expand: str) -> None:
    sample, related = sample_relations(address_api, vbo_sample_for(expand))
    vbo = sample.value
    num = related["heeftAlsHoofdAdres"][0]
    found = E.items(address_api.get(OBJECTS, [("nummeraanduidingIdentificatie", num), ("expand", expand)]),
                    "adresseerbareObjecten")
    item = next((i for i in found if E.object_id(i) == vbo), None)
    expect(item is not None, "the verblijfsobject is missing from the results", expected=vbo)
    assert item is not None
    check_embedded(item, expand, related)


@pytest.mark.parametrize("expand", ["bestaatniet", "heeftAlsHoofdAdres,bestaatniet", "woonplaats"])
@check("address.adresseerbareobjecten.expand_unknown_rejected", MUST, "An expand value that is no relation of an addressable object is refused with 400 naming expand",
       requirements=["ADDR-4.expand", "ADDR-7.400"],
       proven_by=["address.unknown_expand_ignored"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_expand_unknown_rejected(address_api, expand: str) -> None:
    control = _expand_control(address_api)
    rejected_vs_control(address_api, control, control.with_param("expand", expand), "expand", f"expand={expand}")


def _expand_control(address_api) -> Req:
    """A query with a known expand value: the control of the unknown and empty ones."""
    num = address_api.sample("nummeraanduiding")
    return Req.of(OBJECTS, [("nummeraanduidingIdentificatie", num), ("expand", "heeftAlsHoofdAdres")])


@check("address.adresseerbareobjecten.expand_empty_rejected", SHOULD, "An empty expand value is refused with 400 naming expand",
       requirements=["ADDR-4.expand.empty", "BAGREF-4.3"],
       proven_by=["address.unknown_expand_ignored"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten")
def test_expand_empty_rejected(address_api) -> None:
    control = _expand_control(address_api)
    rejected_vs_control(address_api, control, control.with_param("expand", ""), "expand", "an empty expand")


# --------------------------------------------------------------------------- /adresseerbareobjecten/{id}
@pytest.mark.parametrize("kind", E.OBJECT_TYPES)
@check("address.adresseerbaarobject.by_id", MUST, "Each of a verblijfsobject, ligplaats and standplaats is returned (200) in exactly one wrapper of its type",
       requirements=["ADDR-4.adresseerbareobjecten.id", "ADDR-1.resources"],
       proven_by=["address.identifiers_malformed"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}")
def test_object_by_id(address_api, kind: str) -> None:
    object_id = address_api.sample(kind, verify=False)  # the lookup is this check's rule
    E.single_object(get_object(address_api, object_id), object_id, kind)


@check("address.adresseerbaarobject.unknown_not_found", MUST, "An unknown addressable object id is answered 404 notFound",
       requirements=["ADDR-4.adresseerbareobjecten.id", "ADDR-7.404"],
       proven_by=["address.not_found_as_200"],
       may_fail_under=["address.wrong_error_code"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}")
def test_object_unknown_not_found(address_api) -> None:
    control = Req.of(f"{OBJECTS}/{address_api.sample('verblijfsobject')}")
    changed = control.with_path(f"{OBJECTS}/{address_api.sample('unknown_adresseerbaarobject')}")
    E.is_not_found(refused_vs_control(address_api, control, changed, rule="an unknown id", statuses=(404,)))


@pytest.mark.parametrize("case", ["10_digits", "letters"])
@check("address.adresseerbaarobject.malformed_id_rejected", SHOULD, "A malformed addressable object id is refused with 400 naming the path parameter",
       requirements=["ADDR-4.adresseerbareobjecten.id", "BAGREF-2.1", "BAGREF-8"],
       proven_by=["address.path_id_pattern_not_enforced"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}")
def test_object_malformed_id_rejected(address_api, case: str) -> None:
    vbo = address_api.sample("verblijfsobject")
    value = vbo[:10] if case == "10_digits" else "a" * len(vbo)
    control = Req.of(f"{OBJECTS}/{vbo}")
    rejected_vs_control(address_api, control, control.with_path(f"{OBJECTS}/{value}"),
                        "adresseerbaarObjectIdentificatie", f"path id {value}")


@pytest.mark.parametrize("expand", ["bestaatniet", "heeftAlsHoofdAdres,bestaatniet", "woonplaats"])
@check("address.adresseerbaarobject.expand_unknown_rejected", MUST, "An expand value on one addressable object that is no relation of it is refused with 400 naming expand",
       requirements=["ADDR-4.adresseerbareobjecten.id", "ADDR-4.expand", "ADDR-7.400"],
       proven_by=["address.adresseerbaarobject_unknown_expand_ignored", "address.unknown_expand_ignored"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}")
def test_object_expand_unknown_rejected(address_api, expand: str) -> None:
    """Seed part 4 gives the lookup "expand (same values as above)": heeftAlsHoofdAdres,
    heeftAlsNevenAdres, maaktDeelUitVan, or true. Another value (an address's relation
    included) is a faulty parameter, answered 400 (part 7 lists it for this endpoint)."""
    control = Req.of(f"{OBJECTS}/{address_api.sample('verblijfsobject')}", [("expand", "heeftAlsHoofdAdres")])
    rejected_vs_control(address_api, control, control.with_param("expand", expand), "expand", f"expand={expand}")


@check("address.adresseerbaarobject.geldig_op", MUST, "geldigOp returns the occurrence valid on that date, earlier than the current one",
       requirements=["ADDR-1.time-travel", "ADDR-4.geldigOp"],
       proven_by=["address.time_travel_ignored"],
       may_fail_under=["address.time_travel_forbidden"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}")
def test_object_geldig_op(address_api) -> None:
    current = sample_object(address_api, "adresseerbaarobject_historie")
    object_id, day = current.value, address_api.sample("historie_datum")
    then = E.single_object(get_object(address_api, object_id, geldigOp=day), object_id)
    E.valid_on(then, date.fromisoformat(day), current)


@check("address.adresseerbaarobject.beschikbaar_op", MUST, "beschikbaarOp before the latest registration returns the occurrence registered then",
       requirements=["ADDR-1.time-travel", "ADDR-4.beschikbaarOp"],
       proven_by=["address.time_travel_ignored"],
       may_fail_under=["address.time_travel_forbidden"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}")
def test_object_beschikbaar_op(address_api) -> None:
    current = sample_object(address_api, "adresseerbaarobject_historie")
    object_id = current.value
    registered = E.parse_moment(E.voorkomen(current).get("tijdstipRegistratie"))
    if registered is None:
        raise NotJudged("no sample object with a readable voorkomen.tijdstipRegistratie",
                        "name as services.address.samples.adresseerbaarobject_historie an object whose "
                        "voorkomen.tijdstipRegistratie is readable: `conformance discover --all` prefers one")
    moment = registered.replace(tzinfo=None) - timedelta(milliseconds=1)
    value = moment.isoformat(timespec="milliseconds")
    then = E.single_object(get_object(address_api, object_id, beschikbaarOp=value), object_id)
    E.registered_before(then, current, moment)


@check("address.adresseerbaarobject.huidig", MUST, "huidig=true on an object with an end status gives 404; huidig=false returns it",
       requirements=["ADDR-1.huidig", "ADDR-4.huidig", "ADDR-7.404"],
       proven_by=["address.deleted_objects_returned_with_huidig"],
       may_fail_under=["address.not_found_as_200", "address.identifiers_malformed"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}")
def test_object_huidig(address_api) -> None:
    ended = address_api.sample("adresseerbaarobject_eindstatus", verify=False)  # its lookup is the rule
    E.has_status(get_object(address_api, ended, huidig="true"), 404, "huidig=true and the object has an end status")
    E.single_object(get_object(address_api, ended, huidig="false"), ended)


@pytest.mark.parametrize(
    ("kind", "expand"),
    [("verblijfsobject", "true"), ("verblijfsobject", "heeftAlsHoofdAdres"), ("verblijfsobject", "heeftAlsNevenAdres"),
     ("verblijfsobject", "maaktDeelUitVan"), ("ligplaats", "true"), ("standplaats", "heeftAlsHoofdAdres")],
)
@check("address.adresseerbaarobject.expand_embeds", MUST, "expand on one object embeds the named relations (true: main address and buildings of a verblijfsobject)",
       requirements=["ADDR-1.expand", "ADDR-2.expand", "ADDR-4.expand"],
       proven_by=["address.expand_ignored"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}")
def test_object_expand_embeds(address_api, kind: str, expand: str) -> None:
    sample, related = sample_relations(address_api, vbo_sample_for(expand) if kind == "verblijfsobject" else kind)
    object_id = sample.value
    if kind == "verblijfsobject" and expand == "true":
        sample.having("maaktDeelUitVan", related["maaktDeelUitVan"])
    data = E.single_object(get_object(address_api, object_id, expand=expand), object_id, kind)
    check_embedded(data, expand, related)


# --------------------------------------------------------------------------- /lvc
def lvc(api, object_id: str, **params: str):
    return api.get(f"{OBJECTS}/{object_id}/lvc", params or None)


@check("address.lvc.gehele_lvc", MUST, "geheleLvc=false (and its default) returns the valid life cycle; true adds the removed occurrences",
       requirements=["ADDR-1.life-cycle", "ADDR-4.lvc.geheleLvc"],
       proven_by=["address.lifecycle_removed_always_included"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}/lvc")
def test_lvc_gehele_lvc(address_api) -> None:
    object_id = address_api.sample("adresseerbaarobject_historie")
    default = E.occurrence_keys(lvc(address_api, object_id))
    valid = E.occurrence_keys(lvc(address_api, object_id, geheleLvc="false"))
    whole = E.occurrence_keys(lvc(address_api, object_id, geheleLvc="true"))
    expect(sorted(default) == sorted(valid), "the default differs from geheleLvc=false",
           expected=sorted(valid), actual=sorted(default))
    E.whole_life_cycle_larger(valid, whole)


@check("address.lvc.unknown_not_found", MUST, "The life cycle of an unknown object is answered 404 notFound",
       requirements=["ADDR-4.lvc", "ADDR-7.404"],
       proven_by=["address.not_found_as_200"],
       may_fail_under=["address.wrong_error_code"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}/lvc")
def test_lvc_unknown_not_found(address_api) -> None:
    control = Req.of(f"{OBJECTS}/{address_api.sample('verblijfsobject')}/lvc")
    changed = control.with_path(f"{OBJECTS}/{address_api.sample('unknown_adresseerbaarobject')}/lvc")
    E.is_not_found(refused_vs_control(address_api, control, changed, rule="an unknown id", statuses=(404,)))


@check("address.lvc.no_paging_links", SHOULD, "A life cycle carries no paging links",
       requirements=["ADDR-4.lvc", "BAGREF-3.4"],
       proven_by=["address.lvc_paging_links"],
       feature="GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}/lvc")
def test_lvc_no_paging_links(address_api) -> None:
    ex = lvc(address_api, address_api.sample("adresseerbaarobject_historie"), geheleLvc="true")
    E.is_ok(ex)
    present = sorted(set(hal.links(hal.body(ex))) & set(hal.PAGING_RELATIONS))
    expect(not present, "a life cycle carries paging links", actual=present)
