"""Handlers of the addressable-object endpoints and /bronhouders (seed part 4;
bag-api.md 4.4, 4.7 to 4.9).

/adresseerbareobjecten has three query kinds (nummeraanduidingIdentificatie, bbox with
its filters, pandIdentificaties); exactly one must be given, and the bbox filters only go
with bbox.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from conformance.mocks.address import faults as F
from conformance.mocks.address import params as P
from conformance.mocks.address import problems, resources
from conformance.mocks.address.context import Context, HalResult
from conformance.mocks.address.hal import TimeTravel
from conformance.mocks.address.problems import ProblemError
from conformance.mocks.address.repository import ObjectQuery
from conformance.mocks.faults import fault

SEARCH_PARAMS = frozenset(
    {
        "nummeraanduidingIdentificatie", "bbox", "geconstateerd", "oppervlakte[min]",
        "oppervlakte[max]", "gebruiksdoelen", "type", "pandIdentificaties", "huidig",
        "geldigOp", "beschikbaarOp", "expand", "page", "pageSize",
    }
)  # fmt: skip
_KINDS = ("nummeraanduidingIdentificatie", "bbox", "pandIdentificaties")
_BBOX_FILTERS = ("geconstateerd", "oppervlakte[min]", "oppervlakte[max]", "gebruiksdoelen", "type")
_TYPES = {"ligplaats": "ligplaats", "standplaats": "standplaats", "verblijfsobject": "verblijfsobject"}

MAX_BBOX_AREA = 250_000  # m2 (seed part 8)
# Extent of epsg:28992 (RD New); coordinates outside it are not RD (bag-api.md 4.8).
_RD_X = (-7_000.0, 300_000.0)
_RD_Y = (289_000.0, 629_000.0)
# Fault bbox_filter_ignored: the box handed to the repository grows by this much.
_FAULTY_MARGIN = 5_000.0


def _time_travel(ctx: Context, v: P.Validator) -> tuple[bool | None, date | None, datetime | None]:
    """huidig, geldigOp, beschikbaarOp, with the date and time-travel faults applied."""
    huidig = v.boolean("huidig")
    geldig = v.date("geldigOp")
    if geldig is None and v.query.has("geldigOp") and ctx.on(F.SERVER_ERROR_ON_MALFORMED_DATE):
        raise ProblemError("serverError")
    beschikbaar = v.timestamp("beschikbaarOp", allow_short=not ctx.on(F.BESCHIKBAAROP_SHORT_FORM_REJECTED))
    return huidig, geldig, beschikbaar


def _check_huidig(ctx: Context, huidig: bool | None, q: P.Query) -> None:
    """huidig=true with time travel is an unsupported combination (bag-api.md 4.4)."""
    travel = [n for n in ("geldigOp", "beschikbaarOp") if q.has(n)]
    if huidig and travel and not ctx.on(F.UNSUPPORTED_COMBINATION_ACCEPTED):
        raise problems.unsupported(["huidig", *travel])


def _repo_time(
    ctx: Context, huidig: bool | None, geldig: date | None, beschikbaar: datetime | None
) -> dict[str, Any]:
    if ctx.on(F.TIME_TRAVEL_IGNORED):
        geldig, beschikbaar = None, None
    return {
        "huidig": bool(huidig) and not ctx.on(F.DELETED_OBJECTS_RETURNED_WITH_HUIDIG),
        "geldig_op": geldig,
        "beschikbaar_op": beschikbaar,
    }


def _links_time_travel(q: P.Query) -> TimeTravel:
    geldig, beschikbaar = q.get("geldigOp"), q.get("beschikbaarOp")
    return TimeTravel(geldig.value if geldig else None, beschikbaar.value if beschikbaar else None)


def _bbox(ctx: Context, v: P.Validator) -> tuple[float, float, float, float] | None:
    param = v.query.get("bbox")
    numbers = v.numbers("bbox")
    if param is None or numbers is None:
        return None
    if len(numbers) != 4:
        if not ctx.on(F.BBOX_ARITY_NOT_ENFORCED):
            v.fail(param.position, "bbox", "minItems" if len(numbers) < 4 else "maxItems", 4)
            return None
        while len(numbers) < 4:  # x from x, y from y
            numbers.append(numbers[-2] if len(numbers) >= 2 else numbers[0])
    x1, y1, x2, y2 = numbers[:4]
    # Corners in any order: the public service normalises them (bag-api.md 4.8).
    box = (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))
    ok = True
    if (box[2] - box[0]) * (box[3] - box[1]) > MAX_BBOX_AREA and not ctx.on(F.BBOX_AREA_NOT_ENFORCED):
        v.fail(param.position, "bbox", "surfaceMaximum")
        ok = False
    if not (_RD_X[0] <= box[0] and box[2] <= _RD_X[1] and _RD_Y[0] <= box[1] and box[3] <= _RD_Y[1]):
        v.fail(param.position, "bbox", "geometryMismatch")
        ok = False
    return box if ok else None


def _oppervlakte(ctx: Context, v: P.Validator) -> tuple[int | None, int | None]:
    limits = not ctx.on(F.OPPERVLAKTE_LIMITS_NOT_ENFORCED)
    low = v.integer("oppervlakte[min]", 1, 999_999, enforce_min=limits, enforce_max=limits)
    high = v.integer("oppervlakte[max]", 1, 999_999, enforce_min=limits, enforce_max=limits)
    if low is not None and high is not None and low > high and not ctx.on(F.OPPERVLAKTE_RANGE_NOT_ENFORCED):
        positions = [
            p.position for p in (v.query.get("oppervlakte[min]"), v.query.get("oppervlakte[max]")) if p
        ]
        v.fail(max(positions), "oppervlakte", "range")
    return low, high


# `type` read leniently: a value that names none of the three kinds filters nothing.
TYPE_VALUE_NOT_VALIDATED = fault(
    "address.type_value_not_validated",
    "a type other than ligplaats, standplaats or verblijfsobject (e.g. type=fout) is ignored: the bbox "
    "search is served unfiltered (200) instead of refused", shows="bbox",
)
# The two list parameters read an empty value as an empty list, where seed part 4 gives
# each "array (at least 1)".
_LISTS = frozenset({"pandIdentificaties", "gebruiksdoelen"})
EMPTY_LISTS_ACCEPTED = fault(
    "address.empty_lists_accepted",
    "an empty pandIdentificaties is a search for no building (200, nothing found) and an empty gebruiksdoelen "
    "no filter (200), instead of refused (each is an array of at least 1)", shows="least",
)


def _sent_empty(q: P.Query, name: str) -> bool:
    param = q.get(name)
    return param is not None and not param.value


def search(ctx: Context) -> HalResult:
    """GET /adresseerbareobjecten."""
    # pandIdentificaties sent twice is a combination error (bag-api.md 4.8).
    q = ctx.query(SEARCH_PARAMS, duplicate_codes={"pandIdentificaties": "unsupportedCombination"},
                  empty_allowed=_LISTS if ctx.on(EMPTY_LISTS_ACCEPTED) else frozenset())
    v = P.Validator(q)
    ids_checked = not ctx.on(F.IDENTIFIER_PATTERNS_NOT_ENFORCED)
    num_id = v.pattern("nummeraanduidingIdentificatie", P.NUMMERAANDUIDING_ID, enforce=ids_checked)
    box = _bbox(ctx, v)
    geconstateerd = v.boolean("geconstateerd")
    low, high = _oppervlakte(ctx, v)
    # Empty lists reach here only under the fault empty_lists_accepted (else Query refused them).
    doelen = None if _sent_empty(q, "gebruiksdoelen") else v.enum_list("gebruiksdoelen", P.GEBRUIKSDOELEN)
    sent_type = q.get("type")
    unknown_type = sent_type is not None and (sent_type.value or "").lower() not in _TYPES
    kind = None if unknown_type and ctx.on(TYPE_VALUE_NOT_VALIDATED) else v.enum("type", _TYPES, ignore_case=True)
    no_buildings = _sent_empty(q, "pandIdentificaties")
    pand_ids = () if no_buildings else v.pattern_list("pandIdentificaties", P.PAND_ID, enforce=ids_checked)
    huidig, geldig, beschikbaar = _time_travel(ctx, v)
    expand = ctx.expand(v, resources.OBJECT_EXPAND)
    paging = ctx.paging(v)
    v.finish()

    kinds = [k for k in _KINDS if q.has(k)]
    filters = [f for f in _BBOX_FILTERS if q.has(f)]
    chosen = kinds[0] if kinds else None
    if not kinds and not ctx.on(F.REQUIRED_PARAMS_NOT_ENFORCED):
        raise problems.required(list(_KINDS))
    if not ctx.on(F.UNSUPPORTED_COMBINATION_ACCEPTED):
        if len(kinds) > 1:
            raise problems.unsupported(kinds)
        if kinds and chosen != "bbox" and filters:
            raise problems.unsupported([*kinds, *filters])
    _check_huidig(ctx, huidig, q)

    items: list[dict[str, Any]] = []
    if chosen is not None:
        if chosen == "bbox" and box is not None and ctx.on(F.BBOX_FILTER_IGNORED):
            m = _FAULTY_MARGIN
            box = (box[0] - m, box[1] - m, box[2] + m, box[3] + m)
        if ctx.on(F.OPPERVLAKTE_FILTER_IGNORED):
            low, high = None, None
        if ctx.on(F.GEBRUIKSDOELEN_FILTER_IGNORED):
            doelen = None
        # The collection's own time-travel faults; /{id} (get_one) is untouched by them.
        if ctx.on(F.COLLECTION_IGNORES_GELDIG_OP):
            geldig = None
        if ctx.on(F.COLLECTION_IGNORES_BESCHIKBAAR_OP):
            beschikbaar = None
        if chosen != "nummeraanduidingIdentificatie" and ctx.on(F.COLLECTION_IGNORES_HUIDIG):
            huidig = False
        query = ObjectQuery(
            nummeraanduiding_id=num_id if chosen == "nummeraanduidingIdentificatie" else None,
            bbox=box if chosen == "bbox" else None,
            geconstateerd=geconstateerd if chosen == "bbox" and not ctx.on(F.GECONSTATEERD_FILTER_IGNORED) else None,
            oppervlakte_min=low if chosen == "bbox" else None,
            oppervlakte_max=high if chosen == "bbox" else None,
            gebruiksdoelen=tuple(doelen or ()) if chosen == "bbox" else (),
            type=kind if chosen == "bbox" and not ctx.on(F.TYPE_FILTER_IGNORED) else None,
            pand_ids=ctx.building_ids(pand_ids) if chosen == "pandIdentificaties" else (),
            **_repo_time(ctx, huidig, geldig, beschikbaar),
        )
        # An empty building list (fault empty_lists_accepted) finds nothing, not every object.
        items = [] if chosen == "pandIdentificaties" and no_buildings else ctx.repo.find_adresseerbare_objecten(query)
        if chosen == "nummeraanduidingIdentificatie" and ctx.on(F.NUMMERAANDUIDING_SIDE_ADDRESS_IGNORED):
            items = [o for o in items if o.get("heeftAlsHoofdAdres") == num_id]
    travel = _links_time_travel(q)
    embed = expand if expand is not None and not ctx.on(F.EXPAND_IGNORED) else frozenset()
    ambiguous = chosen == "bbox" and kind is None and ctx.on(F.OBJECT_WRAPPER_AMBIGUOUS)

    def render(obj: dict[str, Any]) -> dict[str, Any]:
        outer = ctx.info.link(f"/adresseerbareobjecten/{obj.get('identificatie')}", travel.self_query())
        item = resources.adresseerbaar_object(ctx, obj, embed, outer, travel)
        if ambiguous and "ligplaats" in item:
            item["standplaats"] = item["ligplaats"]  # a second type wrapper
        return item

    result = ctx.collection("adresseerbareObjecten", items, paging, render)
    result.content_crs = True
    return result


# The lookup of one object reads expand leniently, where the search refuses an unknown value.
ADRESSEERBAAROBJECT_UNKNOWN_EXPAND_IGNORED = fault(
    "address.adresseerbaarobject_unknown_expand_ignored",
    "/adresseerbareobjecten/{id} ignores expand values that are no relation of an addressable object (200, "
    "nothing embedded for them); /adresseerbareobjecten still refuses them", shows="adresseerbareobjecten",
)


def get_one(ctx: Context) -> HalResult:
    """GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}."""
    q = ctx.query(frozenset({"geldigOp", "beschikbaarOp", "expand", "huidig"}))
    v = P.Validator(q)
    object_id = ctx.path_id(v, "adresseerbaarObjectIdentificatie", P.ADRESSEERBAAR_OBJECT_ID)
    huidig, geldig, beschikbaar = _time_travel(ctx, v)
    expand = ctx.expand(v, resources.OBJECT_EXPAND, lenient=ctx.on(ADRESSEERBAAROBJECT_UNKNOWN_EXPAND_IGNORED))
    v.finish()
    _check_huidig(ctx, huidig, q)
    found = ctx.repo.get_adresseerbaar_object(object_id, **_repo_time(ctx, huidig, geldig, beschikbaar))
    if found is None:
        return ctx.not_found()
    embed = expand if expand is not None and not ctx.on(F.EXPAND_IGNORED) else frozenset()
    body = resources.adresseerbaar_object(ctx, found, embed, ctx.info.self_link(), _links_time_travel(q))
    return HalResult(body)


def lifecycle(ctx: Context) -> HalResult:
    """GET /adresseerbareobjecten/{id}/lvc: no paging, no expand (bag-api.md 3.4, 4.3)."""
    q = ctx.query(frozenset({"geheleLvc"}))
    v = P.Validator(q)
    object_id = ctx.path_id(v, "adresseerbaarObjectIdentificatie", P.ADRESSEERBAAR_OBJECT_ID)
    gehele = v.boolean("geheleLvc")
    v.finish()
    gehele = bool(gehele) or ctx.on(F.LIFECYCLE_REMOVED_ALWAYS_INCLUDED)
    found = ctx.repo.lifecycle(object_id, gehele_lvc=gehele)
    if found is None:
        return ctx.not_found()
    voorkomens = [resources.voorkomen(ctx, item) for item in found]
    links = {"self": ctx.info.self_link()}
    if ctx.on(F.LVC_PAGING_LINKS):
        links.update(next=ctx.info.page_link(2), last=ctx.info.page_link(2))
    return HalResult({"_links": links, "_embedded": {"voorkomens": voorkomens}})


def bronhouders(ctx: Context) -> HalResult:
    """GET /bronhouders?objectIdentificatie=: exactly one object identification."""
    name = "identificatie" if ctx.on(F.BRONHOUDER_PARAMETER_RENAMED) else "objectIdentificatie"
    first_wins = frozenset({name}) if ctx.on(F.BRONHOUDERS_TWO_ACCEPTED) else frozenset()
    q = ctx.query(frozenset({name, "geldigOp", "beschikbaarOp"}), first_wins=first_wins)
    v = P.Validator(q)
    object_id = v.pattern(name, P.OBJECT_ID)
    _time_travel(ctx, v)  # validated; the source holder does not change with time here
    v.finish()
    items: list[dict[str, Any]] = []
    if object_id is not None:
        found = ctx.repo.get_bronhouder(object_id)
        if found:
            items = [resources.bronhouder(ctx, found, object_id)]
    elif not ctx.on(F.REQUIRED_PARAMS_NOT_ENFORCED):
        raise problems.required([name])
    return HalResult({"_links": {"self": ctx.info.self_link()}, "_embedded": {"bronhouders": items}})
