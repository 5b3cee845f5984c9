"""The seed's rules for the requests a client sends to the address API (parts 4, 5 and 8).

Two uses, one set of rules: `client.address.*` judge the requests of a client's observed
traffic, and the harness itself is held to them -- a request of its own that breaks one is
"designed to be refused" by construction (`refusal`), sent only where the profile allows
such requests (safety.negative), and marked as such in every mode (conformance/http/intent.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from datetime import date

from conformance.findings import expect
from conformance.http.exchange import Exchange

_INT_RANGES = {"page": (1, None), "pageSize": (10, 100), "huisnummer": (1, 99999),
               "oppervlakte[min]": (1, 999999), "oppervlakte[max]": (1, 999999)}
_PATTERNS = {"postcode": r"[1-9][0-9]{3} ?[a-zA-Z]{2}", "huisletter": r"[a-zA-Z]",
             "huisnummertoevoeging": r"[0-9a-zA-Z]{1,4}"}
_LENGTHS = {"q": 255, "zoek": 255, "zoekresultaatIdentificatie": 255, "woonplaatsNaam": 80, "openbareRuimteNaam": 80}
BBOX_MAX_AREA_M2 = 250_000


def parameter_violations(query: list[tuple[str, str]]) -> list[str]:
    """What breaks the seed's parameter rules, one line per parameter."""
    out: list[str] = []
    for name, value in query:
        if name in _INT_RANGES:
            low, high = _INT_RANGES[name]
            if not re.fullmatch(r"[0-9]+", value) or int(value) < low or (high is not None and int(value) > high):
                out.append(f"{name}={value!r}: an integer from {low}" + (f" to {high}" if high else " up"))
        elif name in _PATTERNS and not re.fullmatch(_PATTERNS[name], value):
            out.append(f"{name}={value!r}: pattern {_PATTERNS[name]}")
        elif name in _LENGTHS and not 1 <= len(value) <= _LENGTHS[name]:
            out.append(f"{name}: {len(value)} characters, 1 to {_LENGTHS[name]} allowed")
        elif name == "bbox":
            out += _bbox(value)
    return out


# Boolean and date parameters (seed part 4, shared parameters and the operations' own).
_BOOLEANS = ("huidig", "inclusiefEindStatus", "exacteMatch", "geconstateerd", "geheleLvc")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# YYYY-MM-DDThh:mm:ss.sss; seconds and milliseconds may be omitted; more fraction digits are cut.
_DATE_TIME = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?")
CRS = "epsg:28992"
# What `expand` may name per operation (seed part 2 and 4); `true` embeds all.
_EXPAND_OBJECTS = ("heeftAlsHoofdAdres", "heeftAlsNevenAdres", "maaktDeelUitVan")
_EXPAND_ADDRESSES = ("nummeraanduiding", "openbareRuimte", "woonplaats", "adresseerbaarObject", "panden")
TYPES = ("ligplaats", "standplaats", "verblijfsobject")


def _bbox(value: str) -> list[str]:
    parts = value.split(",")
    try:
        x1, y1, x2, y2 = (float(p) for p in parts)
    except ValueError:
        return [f"bbox={value!r}: four comma-separated numbers"]
    if not all(math.isfinite(v) for v in (x1, y1, x2, y2)):  # float() also reads 'nan' and 'inf'
        return [f"bbox={value!r}: four comma-separated numbers"]
    area = abs(x2 - x1) * abs(y2 - y1)
    return [f"bbox={value!r}: {area:.0f} m2, at most {BBOX_MAX_AREA_M2}"] if area > BBOX_MAX_AREA_M2 else []


def value_violations(query: Iterable[tuple[str, str]]) -> list[str]:
    """Booleans, dates, `type`, `oppervlakte` and list parameters against the seed's rules."""
    out: list[str] = []
    pairs = list(query)
    for name, value in pairs:
        if name in _BOOLEANS and value not in ("true", "false"):
            out.append(f"{name}={value!r}: a boolean (true or false)")
        elif name == "geldigOp" and not _valid_date(value):
            out.append(f"geldigOp={value!r}: a date YYYY-MM-DD")
        elif name == "beschikbaarOp" and not _valid_date_time(value):
            out.append(f"beschikbaarOp={value!r}: a date-time YYYY-MM-DDThh:mm:ss.sss")
        elif name == "type" and value not in TYPES:
            out.append(f"type={value!r}: one of {', '.join(TYPES)}")
        elif name in ("pandIdentificaties", "gebruiksdoelen") and not all(v for v in value.split(",")):
            out.append(f"{name}={value!r}: at least one value, none empty")
        elif name == "oppervlakte":
            out.append("oppervlakte: deepObject style, oppervlakte[min] and oppervlakte[max]")
    bounds = {n: v for n, v in pairs if n in ("oppervlakte[min]", "oppervlakte[max]")}
    if all(re.fullmatch(r"[0-9]+", v or "") for v in bounds.values()) and len(bounds) == 2 \
            and int(bounds["oppervlakte[min]"]) > int(bounds["oppervlakte[max]"]):
        out.append("oppervlakte[min] greater than oppervlakte[max]")
    return out


def _valid_date(value: str) -> bool:
    if not _DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _valid_date_time(value: str) -> bool:
    found = _DATE_TIME.fullmatch(value)
    return bool(found) and _valid_date(found.group(1))


def expand_violations(operation: str | None, query: Iterable[tuple[str, str]]) -> list[str]:
    """`expand` against what the operation can embed (seed parts 2 and 4)."""
    values = [v for n, v in query if n == "expand"]
    if not values:
        return []
    allowed = {"zoekAdresseerbareObjecten": _EXPAND_OBJECTS, "bevragenAdresseerbaarObject": _EXPAND_OBJECTS,
               "bevraagAdressen": _EXPAND_ADDRESSES, "bevraagAdressenMetNumId": _EXPAND_ADDRESSES}.get(operation or "")
    if allowed is None:
        return [f"expand on an operation without it ({operation})"] if operation else []
    out = []
    for value in values:
        parts = value.split(",")
        if value != "true" and not all(p.split(".", 1)[0] in allowed and p for p in parts):
            out.append(f"expand={value!r}: {', '.join(allowed)} (a field as resource.field), or true")
    if operation == "bevraagAdressen" and any(n in ("pandIdentificatie", "openbareRuimteIdentificatie")
                                               for n, _ in query):
        out.append("expand beside pandIdentificatie or openbareRuimteIdentificatie (not supported there)")
    return out


# The kinds of query of the search operations (seed part 4): each is a set of parameters that
# must all be present; a request names at least one kind.
_KINDS = {
    "bevraagAdressen": (("postcode", "huisnummer"), ("adresseerbaarObjectIdentificatie",),
                        ("woonplaatsNaam", "openbareRuimteNaam", "huisnummer"), ("pandIdentificatie",), ("q",),
                        ("openbareRuimteIdentificatie",), ("zoekresultaatIdentificatie",)),
    "zoekAdresUitgebreid": (("postcode", "huisnummer"), ("adresseerbaarObjectIdentificatie",),
                            ("woonplaatsNaam", "openbareRuimteNaam", "huisnummer"), ("q",), ("pandIdentificatie",)),
    "zoekAdresseerbareObjecten": (("nummeraanduidingIdentificatie",), ("bbox",), ("pandIdentificaties",)),
    "zoek": (("zoek",),),
}


def query_kind_violations(operation: str | None, query: Iterable[tuple[str, str]]) -> list[str]:
    """A search without a complete kind of query (seed part 7: "no required/identifying
    parameter given" is 400 paramsRequired): postcode without huisnummer, a street name
    without its place or number, nothing at all."""
    kinds = _KINDS.get(operation or "")
    if kinds is None:
        return []
    given = {n for n, _ in query}
    if any(all(p in given for p in kind) for kind in kinds):
        return []
    return [f"no complete kind of query of {operation} (seed part 4): one of "
            + "; ".join(" + ".join(kind) for kind in kinds)]


def lacks_identifying_parameter(operation: str | None, query: Iterable[tuple[str, str]]) -> bool:
    """Seed part 7's condition of 400 paramsRequired ("no required/identifying parameter
    given"), read from the request alone: a search (seed part 4's kinds of query, or
    /bronhouders' identification) sent with no parameter at all. A request that also carries
    another parameter may be refused for that one (a malformed `type`: paramsValidation), and
    the seed does not say which condition wins, so it is left out."""
    return (operation in _KINDS or operation == "zoekBronhouder") and not list(query)


# /bronhouders' parameters besides the identification (seed part 4's shared ones).
_SHARED = frozenset({"page", "pagesize", "expand", "huidig", "geldigop", "beschikbaarop", "inclusiefeindstatus",
                     "exactematch"})


def bronhouder_violations(operation: str | None, query: Iterable[tuple[str, str]]) -> list[str]:
    """Seed part 4: "Exactly one identification of a woonplaats, openbare ruimte,
    nummeraanduiding, ligplaats, standplaats, verblijfsobject or pand must be specified." The
    names are not shown, so every parameter but the shared ones counts as one."""
    if operation != "zoekBronhouder":
        return []
    given = [n for n, _ in query if n.lower() not in _SHARED]
    if len(given) == 1:
        return []
    return [f"{len(given)} object identifications on /bronhouders (seed part 4: exactly one)"]


def refusal(method: str, operation: str | None, query: list[tuple[str, str]], headers: Mapping[str, str], *,
            key: str = "valid", restricted: bool = False) -> str | None:
    """Why a request to the address API is one a conforming server refuses, by the seed's
    rules for the client (parts 4, 5, 7 and 8), or None for a request it serves. `operation`:
    the seed operation the path belongs to (None: not one of the seed's); `key`: which key it
    carries ("none", "invalid", "restricted", ...); `restricted`: the path is one the
    restricted key has no rights for."""
    if key == "none":
        return "no API key (seed part 5: 401)"
    if key == "invalid":
        return "a wrong API key (seed part 5: 401)"
    if key == "restricted" and restricted:
        return "the restricted key on a path it has no rights for (seed part 5: 403)"
    if method.upper() != "GET":
        return f"{method.upper()}, not GET (seed part 1: every operation is a read-only GET)"
    lowered = {k.lower(): v for k, v in headers.items()}
    if "accept" in lowered and not accepts_hal(lowered["accept"]):
        return f"Accept: {lowered['accept']} (seed part 7: 406)"
    for name in ("accept-crs", "content-crs"):
        if name in lowered and lowered[name].strip().lower() != CRS:
            return f"{name}: {lowered[name]} (seed part 4: only {CRS})"
    bad = [*parameter_violations(query), *value_violations(query), *expand_violations(operation, query),
           *query_kind_violations(operation, query), *bronhouder_violations(operation, query)]
    names = [n for n, _ in query]
    bad += [f"{n} given twice" for n in sorted({n for n in names if names.count(n) > 1}) if n != "expand"]
    return "; ".join(bad) if bad else None


def accepts_hal(accept: str) -> bool:
    """Whether an Accept header admits application/hal+json (RFC 9110 12.5.1)."""
    for item in accept.split(","):
        media, _, params = item.strip().partition(";")
        media = media.strip().lower()
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0 and media in ("application/hal+json", "application/*", "*/*"):
            return True
    return False


def parameters_within_limits(ex: Exchange) -> None:
    bad = parameter_violations(ex.query) + value_violations(ex.query)
    expect(not bad, "outside the seed's rules: " + "; ".join(bad), actual=bad)


def api_key_sent(ex: Exchange, header: str) -> None:
    value = ex.request_headers.get(header)
    expect(bool(value and value.strip()), f"no {header} header", actual=[k for k, _ in ex.request_headers.items()])


def get_only(ex: Exchange) -> None:
    expect(ex.method == "GET", "a method other than GET", expected="GET", actual=ex.method)
