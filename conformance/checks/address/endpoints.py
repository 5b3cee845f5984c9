"""Per-endpoint semantics of the address API (seed part 4): pure checks of one Exchange.

Each function raises a Finding (via `expect`) when the response breaks the rule, and
returns what later steps of a scenario need (items, identifiers). Shapes follow
bag-api.md section 3 where the seed does not show them:

* an addressable object is `{<type>: {<type>: data, _links, _embedded?}, _links}` with
  exactly one `<type>` of ligplaats, standplaats, verblijfsobject (3.4); a server that
  puts the data or `_embedded` one level higher is read as well;
* addresses and extended addresses are flat resources in `_embedded.adressen` (3.2, 3.3).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from conformance.checks.address import hal, problem
from conformance.findings import Finding, expect
from conformance.http.exchange import Exchange

OBJECT_TYPES = ("verblijfsobject", "ligplaats", "standplaats")
# The data fields of an address a query kind selects on (seed part 4 /adressen).
ADDRESS_FIELDS = (
    "postcode", "huisnummer", "huisletter", "huisnummertoevoeging", "woonplaatsNaam",
    "openbareRuimteNaam", "adresseerbaarObjectIdentificatie", "openbareRuimteIdentificatie",
)  # fmt: skip
# bag-api.md 3.3: what an extended address carries beyond an address.
EXTENDED_FIELDS = ("typeAdresseerbaarObject", "adresseerbaarObjectGeometrie", "adresseerbaarObjectStatus")
EXTENDED_VBO_FIELDS = ("gebruiksdoelen", "oppervlakte")
# bbox matching tolerates 0.5 mm (bag-api.md 4.8); a little more absorbs rounding.
BBOX_TOLERANCE_M = 0.001

Box = tuple[float, float, float, float]


# --------------------------------------------------------------------------- statuses
def has_status(ex: Exchange, status: int, why: str = "") -> None:
    expect(ex.status == status, f"expected HTTP {status}{': ' + why if why else ''}",
           expected=status, actual=ex.summary())


def is_ok(ex: Exchange, why: str = "") -> None:
    has_status(ex, 200, why or "a valid request is answered 200")


def is_client_error(ex: Exchange, why: str) -> None:
    expect(400 <= ex.status < 500, f"expected a 4xx error: {why}", expected="4xx", actual=ex.summary())


def rejected(ex: Exchange, names: str | Iterable[str], why: str) -> None:
    """400 whose invalid-params names the faulty parameter (seed parts 2 and 7).

    `names` lists the acceptable spellings (e.g. `oppervlakte`, `oppervlakte[min]`);
    the comparison ignores case, as path parameters are reported in lower case.
    """
    has_status(ex, 400, why)
    wanted = {names.lower()} if isinstance(names, str) else {n.lower() for n in names}
    got = {str(item["name"]).lower() for item in problem.invalid_params(ex)}
    expect(bool(wanted & got), f"invalid-params does not name the faulty parameter ({why})",
           expected=" or ".join(sorted(wanted)), actual=sorted(got))


def is_not_found(ex: Exchange) -> None:
    """404 with code notFound (seed part 7)."""
    has_status(ex, 404, "the resource does not exist")
    problem.has_problem_code(ex, "notFound")


# --------------------------------------------------------------------------- collections
def items(ex: Exchange, name: str) -> list[dict[str, Any]]:
    """The items of a 200 collection; every item is a JSON object."""
    is_ok(ex)
    found = hal.embedded(ex, name)
    bad = [i for i, item in enumerate(found) if not isinstance(item, dict)]
    expect(not bad, f"_embedded.{name} holds items that are not objects", actual=bad[:5])
    return found


def non_empty(found: list[Any], what: str) -> None:
    expect(len(found) > 0, f"no results: {what}", actual=0)


# --------------------------------------------------------------------------- addressable objects
def object_type(item: dict[str, Any]) -> str:
    """The one wrapper key of an addressable object (seed part 4: exactly one of them)."""
    keys = [t for t in OBJECT_TYPES if t in item]
    expect(len(keys) == 1, "an addressable object is not exactly one of ligplaats, standplaats, verblijfsobject",
           expected="one of " + ", ".join(OBJECT_TYPES), actual=keys or sorted(item)[:8])
    expect(isinstance(item[keys[0]], dict), f"{keys[0]} is not an object", actual=type(item[keys[0]]).__name__)
    return keys[0]


def object_data(item: dict[str, Any]) -> dict[str, Any]:
    """The object's own data: `<type>.<type>`, or `<type>` when the server does not nest."""
    kind = object_type(item)
    wrapper = item[kind]
    inner = wrapper.get(kind)
    return inner if isinstance(inner, dict) else wrapper


def object_id(item: dict[str, Any]) -> str:
    ident = object_data(item).get("identificatie")
    expect(isinstance(ident, str) and ident != "", "addressable object without identificatie",
           actual=ident)
    return ident


def object_ids(found: list[dict[str, Any]]) -> list[str]:
    return [object_id(item) for item in found]


def is_established(item: dict[str, Any]) -> bool:
    """geconstateerd of an addressable object: "J" in the register's data, true as a boolean."""
    value = object_data(item).get("geconstateerd")
    return value is True or (isinstance(value, str) and value.upper() in ("J", "TRUE"))


def same_objects(found: list[dict[str, Any]], wanted: set[str], what: str) -> None:
    """The result holds exactly the wanted objects: none missing, none extra."""
    got = set(object_ids(found))
    expect(got == wanted, f"the result is not exactly {what}",
           expected=f"{len(wanted)} objects", actual={"missing": sorted(wanted - got)[:5], "extra": sorted(got - wanted)[:5]})


def single_object(ex: Exchange, expected_id: str, expected_type: str | None = None) -> dict[str, Any]:
    """GET /adresseerbareobjecten/{id}: 200, one wrapper (of the expected type), that id."""
    is_ok(ex)
    data = hal.body(ex)
    kind = object_type(data)
    if expected_type is not None:
        expect(kind == expected_type, "the object has the wrong type wrapper", expected=expected_type, actual=kind)
    expect(object_id(data) == expected_id, "the object returned is not the one requested",
           expected=expected_id, actual=object_id(data))
    return data


def _id_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def main_address(item: dict[str, Any]) -> str | None:
    ids = _id_list(object_data(item).get("heeftAlsHoofdAdres"))
    return ids[0] if ids else None


def side_addresses(item: dict[str, Any]) -> list[str]:
    return _id_list(object_data(item).get("heeftAlsNevenAdres"))


def buildings(item: dict[str, Any]) -> list[str]:
    return _id_list(object_data(item).get("maaktDeelUitVan"))


def objects_have_address(found: list[dict[str, Any]], nummeraanduiding: str) -> None:
    """Query kind 1: every object has the address as its main or a side address."""
    bad = [object_id(i) for i in found if nummeraanduiding != main_address(i) and nummeraanduiding not in side_addresses(i)]
    expect(not bad, f"objects returned that do not have {nummeraanduiding} as main or side address", actual=bad[:5])


def objects_in_buildings(found: list[dict[str, Any]], panden: Iterable[str]) -> None:
    """Query kind 3: every object lies in (maaktDeelUitVan) one of the buildings."""
    wanted = set(panden)
    bad = [object_id(i) for i in found if not wanted & set(buildings(i))]
    expect(not bad, f"objects returned that lie in none of the buildings {sorted(wanted)}", actual=bad[:5])


def objects_of_type(found: list[dict[str, Any]], kind: str) -> None:
    bad = sorted({object_type(i) for i in found} - {kind})
    expect(not bad, f"type={kind} returned objects of another type", expected=kind, actual=bad)


def includes(ids: Iterable[str], wanted: str, what: str) -> None:
    ids = list(ids)
    expect(wanted in ids, f"{what} is missing from the results", expected=wanted, actual=ids[:10])


def excludes(ids: Iterable[str], unwanted: str, what: str) -> None:
    ids = list(ids)
    expect(unwanted not in ids, f"{what} is in the results", actual=unwanted)


def gebruiksdoelen(item: dict[str, Any]) -> list[str]:
    value = object_data(item).get("gebruiksdoelen")
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def oppervlakte(item: dict[str, Any]) -> int | None:
    value = object_data(item).get("oppervlakte")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def objects_have_purpose(found: list[dict[str, Any]], doelen: Iterable[str]) -> None:
    """gebruiksdoelen filter: every accommodation object has at least one listed purpose."""
    wanted = set(doelen)
    bad = [(object_id(i), gebruiksdoelen(i)) for i in found
           if object_type(i) == "verblijfsobject" and not wanted & set(gebruiksdoelen(i))]
    expect(not bad, f"objects returned without any of the purposes {sorted(wanted)}", actual=bad[:5])


def objects_within_area(found: list[dict[str, Any]], low: int | None, high: int | None) -> None:
    """oppervlakte filter: only accommodation objects (berths and pitches have no area),
    each with an area inside [low, high] (seed part 4)."""
    berths = [object_id(i) for i in found if object_type(i) != "verblijfsobject"]
    expect(not berths, "berths or pitches were found with an oppervlakte filter", actual=berths[:5])
    bad = [(object_id(i), oppervlakte(i)) for i in found
           if oppervlakte(i) is None
           or (low is not None and oppervlakte(i) < low)  # type: ignore[operator]
           or (high is not None and oppervlakte(i) > high)]  # type: ignore[operator]
    expect(not bad, f"objects returned with an area outside [{low}, {high}]", actual=bad[:5])


# --------------------------------------------------------------------------- geometry
def parse_bbox(text: str) -> Box:
    """`x1,y1,x2,y2` in any corner order -> (min x, min y, max x, max y)."""
    x1, y1, x2, y2 = (float(v) for v in text.split(","))
    return min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)


def format_bbox(box: Box) -> str:
    return ",".join(str(int(v)) if float(v).is_integer() else repr(float(v)) for v in box)


def square_bbox(sample: str, side: float, height: float | None = None) -> Box:
    """A box of side x height metres whose lower-left corner is the sample's, on whole
    metres so that the area is exact in floating point."""
    x, y, _, _ = parse_bbox(sample)
    x0, y0 = float(int(x)), float(int(y))
    return x0, y0, x0 + side, y0 + (side if height is None else height)


def _positions(value: Any, out: list[tuple[float, float]]) -> None:
    if isinstance(value, list) and len(value) >= 2 and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        out.append((float(value[0]), float(value[1])))
    elif isinstance(value, list):
        for item in value:
            _positions(item, out)


def envelope(geometry: Any) -> Box | None:
    """The bounding box of every `coordinates` member under `geometry` (GeoJSON, or the
    `{punt: ...}` / `{vlak: ...}` forms); None when there are none."""
    points: list[tuple[float, float]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "coordinates":
                    _positions(value, points)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(geometry)
    if not points:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def boxes_meet(a: Box, b: Box, tolerance: float = BBOX_TOLERANCE_M) -> bool:
    return a[0] <= b[2] + tolerance and b[0] <= a[2] + tolerance and a[1] <= b[3] + tolerance and b[1] <= a[3] + tolerance


def objects_meet_box(found: list[dict[str, Any]], box: Box) -> None:
    """Query kind 2: every object lies in or touches the box. An object whose geometry's
    envelope misses the box cannot overlap it, so this never fails a correct server."""
    bad: list[Any] = []
    for item in found:
        env = envelope(object_data(item).get("geometrie"))
        if env is None:
            raise Finding("an object of a bbox result has no geometrie coordinates", actual=object_id(item))
        if not boxes_meet(env, box):
            bad.append((object_id(item), [round(v, 3) for v in env]))
    expect(not bad, f"objects returned outside the box {format_bbox(box)}", actual=bad[:5])


# --------------------------------------------------------------------------- embedding
def _values(node: Any) -> set[str]:
    """Every string value in a JSON tree, links excluded."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key != "_links":
                found |= _values(value)
    elif isinstance(node, list):
        for value in node:
            found |= _values(value)
    elif isinstance(node, str):
        found.add(node)
    return found


def object_embedded(item: dict[str, Any]) -> dict[str, Any]:
    """`_embedded` of an addressable object: in its type wrapper (3.4) or beside it."""
    kind = object_type(item)
    for holder in (item[kind], item):
        value = holder.get("_embedded")
        if isinstance(value, dict):
            return value
    return {}


def address_embedded(address: dict[str, Any]) -> dict[str, Any]:
    value = address.get("_embedded")
    return value if isinstance(value, dict) else {}


def embeds(embedded: dict[str, Any], relation: str, ids: Iterable[str], owner: str) -> None:
    """`_embedded.<relation>` is present, non-empty, and carries each related identifier."""
    value = embedded.get(relation)
    expect(isinstance(value, dict | list) and len(value) > 0, f"{owner}: relation {relation} is not embedded",
           expected=relation, actual=sorted(embedded) or "(no _embedded)")
    missing = sorted(set(ids) - _values(value))
    expect(not missing, f"{owner}: embedded {relation} does not carry the related identification",
           expected=missing, actual=sorted(_values(value))[:10])


# --------------------------------------------------------------------------- time travel and life cycle
def voorkomen(resource: dict[str, Any]) -> dict[str, Any]:
    value = object_data(resource).get("voorkomen")
    expect(isinstance(value, dict), "addressable object without voorkomen", actual=type(value).__name__)
    return value


def parse_moment(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.replace(tzinfo=None) if moment.tzinfo is None else moment


def parse_day(value: Any) -> date | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def valid_on(resource: dict[str, Any], day: date, current: dict[str, Any]) -> None:
    """geldigOp=day: the occurrence returned was valid on that day and is an earlier one
    than the current occurrence (seed parts 1 and 4: time travel)."""
    then, now = voorkomen(resource), voorkomen(current)
    begin, end = parse_day(then.get("beginGeldigheid")), parse_day(then.get("eindGeldigheid"))
    now_begin = parse_day(now.get("beginGeldigheid"))
    expect(begin is not None and now_begin is not None, "voorkomen without a readable beginGeldigheid",
           actual=[then.get("beginGeldigheid"), now.get("beginGeldigheid")])
    assert begin is not None and now_begin is not None
    expect(begin < now_begin, "geldigOp did not return an earlier occurrence than the current one",
           expected=f"beginGeldigheid before {now_begin}", actual=then.get("beginGeldigheid"))
    expect(begin <= day and (end is None or day < end), f"the occurrence returned was not valid on {day}",
           actual=[then.get("beginGeldigheid"), then.get("eindGeldigheid")])


def registered_before(resource: dict[str, Any], current: dict[str, Any], moment: datetime) -> None:
    """beschikbaarOp=moment: the occurrence returned was registered by then, earlier than
    the current one (seed parts 1 and 4)."""
    then = parse_moment(voorkomen(resource).get("tijdstipRegistratie"))
    now = parse_moment(voorkomen(current).get("tijdstipRegistratie"))
    expect(then is not None and now is not None, "voorkomen without a readable tijdstipRegistratie",
           actual=[voorkomen(resource).get("tijdstipRegistratie"), voorkomen(current).get("tijdstipRegistratie")])
    assert then is not None and now is not None
    expect(then < now and then <= moment, "beschikbaarOp did not return the occurrence registered at that moment",
           expected=f"tijdstipRegistratie at or before {moment.isoformat()}", actual=voorkomen(resource).get("tijdstipRegistratie"))


def occurrence_keys(ex: Exchange) -> list[tuple[str, str]]:
    """/lvc: (versie, tijdstipRegistratie) of each occurrence in `_embedded.voorkomens`."""
    keys: list[tuple[str, str]] = []
    for item in items(ex, "voorkomens"):
        occ = voorkomen(item)
        keys.append((str(occ.get("versie")), str(occ.get("tijdstipRegistratie"))))
    return keys


def whole_life_cycle_larger(valid: list[tuple[str, str]], whole: list[tuple[str, str]]) -> None:
    """geheleLvc: the whole life cycle holds every valid occurrence plus removed ones."""
    missing = sorted(set(valid) - set(whole))
    expect(not missing, "geheleLvc=true lacks occurrences of the valid life cycle", actual=missing[:5])
    expect(len(whole) > len(valid), "geheleLvc=true returned no occurrence removed from the valid life cycle "
           "(geheleLvc=false may include them)", expected=f"more than {len(valid)}", actual=len(whole))


# --------------------------------------------------------------------------- addresses
def normal_postcode(value: Any) -> str:
    return str(value).replace(" ", "").upper()


def _same(field: str, got: Any, want: Any) -> bool:
    if field == "postcode":
        return got is not None and normal_postcode(got) == normal_postcode(want)
    if field in ("huisletter", "huisnummertoevoeging", "woonplaatsNaam", "openbareRuimteNaam"):
        return got is not None and str(got).casefold() == str(want).casefold()
    if field == "huisnummer":
        return str(got) == str(want)
    return got == want


def address_id(address: dict[str, Any]) -> str:
    ident = address.get("nummeraanduidingIdentificatie")
    expect(isinstance(ident, str) and ident != "", "address without nummeraanduidingIdentificatie", actual=ident)
    return ident


def address_ids(found: list[dict[str, Any]]) -> list[str]:
    return [address_id(a) for a in found]


def addresses_match(found: list[dict[str, Any]], **criteria: Any) -> None:
    """Every address has the given field values (postcode without space, letters in any case)."""
    bad = [(address_id(a), {f: a.get(f) for f in criteria})
           for a in found if not all(_same(f, a.get(f), v) for f, v in criteria.items())]
    expect(not bad, f"addresses returned that do not match {criteria}", actual=bad[:5])


def addresses_in_building(found: list[dict[str, Any]], pand: str) -> None:
    bad = [address_id(a) for a in found if pand not in _id_list(a.get("pandIdentificaties"))]
    expect(not bad, f"addresses returned that do not lie in building {pand}", actual=bad[:5])


def addresses_exact(found: list[dict[str, Any]], huisletter: str | None = None, toevoeging: str | None = None) -> None:
    """exacteMatch=true: letter and addition equal what was given; absent means none."""
    def same(got: Any, want: str | None) -> bool:
        return (not got) if want is None else (got is not None and str(got).casefold() == want.casefold())

    bad = [(address_id(a), a.get("huisletter"), a.get("huisnummertoevoeging"))
           for a in found if not (same(a.get("huisletter"), huisletter) and same(a.get("huisnummertoevoeging"), toevoeging))]
    expect(not bad, "exacteMatch=true returned addresses whose letter or addition differ",
           expected=(huisletter, toevoeging), actual=bad[:5])


def has_variants(found: list[dict[str, Any]]) -> None:
    """exacteMatch=false on an address with letter/addition variants also returns them."""
    variants = [address_id(a) for a in found if a.get("huisletter") or a.get("huisnummertoevoeging")]
    expect(bool(variants), "exacteMatch=false returned no letter or addition variant of the address",
           actual=address_ids(found)[:10])


def q_terms_matched(found: list[dict[str, Any]], q: str) -> None:
    """q searches postcode, woonplaats, street, number, letter, addition: every result
    matches at least one term of the search."""
    terms = [t.casefold() for t in q.replace(",", " ").split() if t]
    fields = ("postcode", "woonplaatsNaam", "openbareRuimteNaam", "huisnummer", "huisletter", "huisnummertoevoeging")

    def matches(a: dict[str, Any]) -> bool:
        values = [str(a.get(f)).casefold() for f in fields if a.get(f) is not None]
        return any(t in v for t in terms for v in values)

    bad = [address_id(a) for a in found if not matches(a)]
    expect(not bad, f"addresses returned that match no term of q={q!r}", actual=bad[:5])


def extended_fields(found: list[dict[str, Any]]) -> None:
    """bag-api.md 3.3: an extended address carries the object's type, geometry and status,
    and for an accommodation object its purposes and area."""
    bad: list[Any] = []
    for a in found:
        missing = [f for f in EXTENDED_FIELDS if a.get(f) in (None, "", [], {})]
        if str(a.get("typeAdresseerbaarObject", "")).lower() == "verblijfsobject":
            missing += [f for f in EXTENDED_VBO_FIELDS if a.get(f) in (None, "", [])]
        if missing:
            bad.append((a.get("nummeraanduidingIdentificatie"), missing))
    expect(not bad, "extended addresses lack extended fields", expected=list(EXTENDED_FIELDS), actual=bad[:5])


# --------------------------------------------------------------------------- search results and source holders
def zoek_ids(found: list[dict[str, Any]]) -> list[str]:
    """/adressen/zoek: every result has an identificatie of 1 to 255 characters."""
    bad = [r for r in found if not (isinstance(r.get("identificatie"), str) and 1 <= len(r["identificatie"]) <= 255)]
    expect(not bad, "search results without a usable identificatie (1 to 255 characters)", actual=bad[:3])
    return [r["identificatie"] for r in found]


def bronhouders(ex: Exchange) -> list[dict[str, Any]]:
    """/bronhouders: a 200 with at least one `bronhouder` (bag-api.md 3.5)."""
    found = items(ex, "bronhouders")
    non_empty(found, "no bronhouder for an existing object")
    bad = [b for b in found if not (isinstance(b.get("bronhouder"), dict) and b["bronhouder"])]
    expect(not bad, "bronhouders items without bronhouder data", actual=bad[:3])
    return found


# --------------------------------------------------------------------------- scenario helper
def collect(get: Any, path: str, params: list[tuple[str, str]], name: str, *, page_size: int = 100,
            max_pages: int = 10) -> list[dict[str, Any]]:
    """Every item of a paged collection, page by page (`get(path, params) -> Exchange`).

    Stops at a short page; a non-200 for a page after the first ends the walk, since
    the public service answers a page beyond the last either empty or with 400
    (bag-api.md 4.1), and the last full page may have been the last one.
    """
    found: list[dict[str, Any]] = []
    for page in range(1, max_pages + 1):
        ex = get(path, [*params, ("pageSize", str(page_size)), ("page", str(page))])
        if page > 1 and ex.status != 200:
            break
        batch = items(ex, name)
        found.extend(batch)
        if len(batch) < page_size:
            break
    return found
