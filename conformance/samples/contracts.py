"""The contract of every address sample (README "Samples"), verified against the server itself.

A sample misses its contract only when the server answered *about that sample* and the
answer shows what is missing (the address has a letter, the building holds 12 objects, the
id does not exist). An answer that does not allow that judgement -- a 5xx, a 401, a body
that is no JSON, an object other than the one asked for -- says something about the server,
not about the sample: it is `unverifiable` and left to the checks, which judge it.

Verification uses only ordinary read-only queries of seed part 4, through the caller's
`get(path, params) -> Exchange` (the paced, bounded, recording client of the run).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from conformance.checks.address import endpoints as E
from conformance.findings import Finding
from conformance.http.exchange import Exchange

Get = Callable[[str, Sequence[tuple[str, str]]], Exchange]

# bag-api.md 2.4: the statuses that make an object not "huidig".
END_STATUSES = frozenset({
    "Naamgeving ingetrokken", "Woonplaats ingetrokken", "Plaats ingetrokken", "Niet gerealiseerd verblijfsobject",
    "Verblijfsobject ingetrokken", "Verblijfsobject ten onrechte opgevoerd", "Niet gerealiseerd pand",
    "Pand gesloopt", "Pand ten onrechte opgevoerd",
})
PAND_MIN_OBJECTS = 45          # pagination checks walk pages of 10 and 20
OPENBARE_RUIMTE_MIN_ADDRESSES = 25
HISTORY_MIN_OCCURRENCES = 3
BBOX_MAX_AREA_M2 = 250_000     # seed parts 4 and 8
PAGE = 100


class Lacks(Exception):
    """The server answered about the sample, and the sample misses its contract."""


class Unverifiable(Exception):
    """The server's answer does not allow judging the sample (the checks judge the server)."""


class Unanswered(Unverifiable):
    """The server broke HTTP or a limit of the bounded layer (no answer in time, a body over
    the cap...), or refused the key: asking it more would only wait or be refused again, so
    the caller stops."""


class KeyRefused(Unanswered):
    """401: the API key itself is refused (seed part 5.4), whatever the sample."""


@dataclass(frozen=True)
class Verdict:
    name: str
    value: str
    outcome: str  # "verified" | "lacks" | "unverifiable"
    detail: str   # what was verified, what it lacks, or why it could not be judged

    @property
    def ok(self) -> bool:
        return self.outcome == "verified"


# --------------------------------------------------------------------------- reading answers
def _status_line(path: str, ex: Exchange) -> str:
    code = ex.json.get("code") if ex.status >= 400 and isinstance(ex.json, dict) else None
    return f"GET {path} -> {ex.status}" + (f" {code}" if isinstance(code, str) else "")


def _json(get: Get, path: str, params: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """A 200 JSON object. 404 and 400 answer about the sample itself (it does not exist, or
    is malformed): the sample lacks. Anything else is the server's business."""
    try:
        ex = get(path, list(params))
    except Finding as finding:  # the bounded layer: the server broke HTTP or a limit
        raise Unanswered(f"GET {path}: {finding.message}") from None
    if ex.status == 401:
        raise KeyRefused(_status_line(path, ex))
    if ex.status == 404:
        raise Lacks(f"does not exist ({_status_line(path, ex)})")
    if ex.status == 400:
        raise Lacks(f"is refused as malformed ({_status_line(path, ex)})")
    if ex.status != 200:
        raise Unverifiable(_status_line(path, ex))
    data = ex.json
    if not isinstance(data, dict):
        raise Unverifiable(f"GET {path} -> 200 without a JSON object")
    return data


def items(get: Get, path: str, params: list[tuple[str, str]], name: str, pages: int = 1) -> list[dict[str, Any]]:
    """The items of a collection, up to `pages` pages of PAGE."""
    found: list[dict[str, Any]] = []
    for page in range(1, pages + 1):
        data = _json(get, path, [*params, ("pageSize", str(PAGE)), ("page", str(page))])
        emb = data.get("_embedded") or {}
        batch = emb.get(name, []) if isinstance(emb, dict) else None
        if not isinstance(batch, list) or not all(isinstance(i, dict) for i in batch):
            raise Unverifiable(f"GET {path}: _embedded.{name} is not a list of objects")
        found.extend(batch)
        if len(batch) < PAGE:
            break
    return found


def _read(what: str, fn: Callable[[], Any]) -> Any:
    """A value read with the checks' own readers; a shape they cannot read is the server's."""
    try:
        return fn()
    except Finding as finding:
        raise Unverifiable(f"{what}: {finding.message}") from None


def address(get: Get, value: str, **params: str) -> dict[str, Any]:
    path = f"/adressen/{value}"
    data = _json(get, path, list(params.items()))
    got = data.get("nummeraanduidingIdentificatie")
    if got != value:
        raise Unverifiable(f"GET {path} answered about another address ({got!r})")
    return data


def addressable_object(get: Get, value: str) -> tuple[str, dict[str, Any]]:
    path = f"/adresseerbareobjecten/{value}"
    data = _json(get, path)
    kind = _read(f"GET {path}", lambda: E.object_type(data))
    got = _read(f"GET {path}", lambda: E.object_id(data))
    if got != value:
        raise Unverifiable(f"GET {path} answered about another object ({got!r})")
    return kind, data


def life_cycle(get: Get, value: str, whole: bool) -> list[dict[str, Any]]:
    path = f"/adresseerbareobjecten/{value}/lvc"
    found = items(get, path, [("geheleLvc", "true" if whole else "false")], "voorkomens")
    others = [i for i in found if _read(f"GET {path}", lambda i=i: E.object_id(i)) != value]
    if others:
        raise Unverifiable(f"GET {path} holds occurrences of another object")
    return found


def status_of(item: dict[str, Any]) -> str:
    return str(E.object_data(item).get("status", ""))


def is_current(item: dict[str, Any]) -> bool:
    return status_of(item) not in END_STATUSES and not E.voorkomen(item).get("eindGeldigheid")


def begin_dates(occurrences: list[dict[str, Any]]) -> list[date]:
    days = [E.parse_day(E.voorkomen(i).get("beginGeldigheid")) for i in occurrences]
    if any(d is None for d in days):
        raise Unverifiable("an occurrence without a readable voorkomen.beginGeldigheid")
    return sorted(d for d in days if d is not None)


# --------------------------------------------------------------------------- the contracts
def _nummeraanduiding(get: Get, value: str, samples: dict[str, str]) -> str:
    a = address(get, value)
    wrong = [f"{f} {a[f]!r}" for f in ("huisletter", "huisnummertoevoeging") if a.get(f)]
    if a.get("indicatieNevenadres") is True:
        wrong.append("indicatieNevenadres true (a side address)")
    if wrong:
        raise Lacks("is not a main address without letter or addition: it has " + ", ".join(wrong))
    postcode, number = a.get("postcode"), a.get("huisnummer")
    if not postcode or number is None:
        raise Unverifiable(f"GET /adressen/{value} shows no postcode and huisnummer")
    found = items(get, "/adressen", [("postcode", str(postcode)), ("huisnummer", str(number))], "adressen", 3)
    letters = sorted({str(x["huisletter"]) for x in found if x.get("huisletter")})
    additions = sorted({str(x["huisnummertoevoeging"]) for x in found if x.get("huisnummertoevoeging")})
    missing = [w for w, got in (("a letter", letters), ("an addition", additions)) if not got]
    if missing:
        raise Lacks(f"{postcode} {number} has no variant with " + " and no variant with ".join(missing))
    return (f"current main address {postcode} {number} without letter or addition; variants with "
            f"letter {letters[0]} and addition {additions[0]}")


def _nevenadres(get: Get, value: str, samples: dict[str, str]) -> str:
    a = address(get, value)
    if a.get("indicatieNevenadres") is not True:
        raise Lacks("is not a side address (indicatieNevenadres is not true)")
    return "a current side address (indicatieNevenadres true)"


def _address_eindstatus(get: Get, value: str, samples: dict[str, str]) -> str:
    try:
        address(get, value)
    except Lacks:
        pass  # not returned without inclusiefEindStatus: what the contract wants
    else:
        raise Lacks("is returned without inclusiefEindStatus=true, so it has no end status")
    address(get, value, inclusiefEindStatus="true")
    return "returned only with inclusiefEindStatus=true (an end status)"


def _current_object(get: Get, value: str, kind: str) -> dict[str, Any]:
    got, data = addressable_object(get, value)
    if got != kind:
        raise Lacks(f"is a {got}, not a {kind}")
    if not is_current(data):
        raise Lacks(f"is not current (status {status_of(data)!r})")
    return data


def _object_of_kind(kind: str) -> Callable[[Get, str, dict[str, str]], str]:
    def verify(get: Get, value: str, samples: dict[str, str]) -> str:
        return f"a current {kind} (status {status_of(_current_object(get, value, kind))})"
    return verify


def _vbo_summary(data: dict[str, Any]) -> str:
    side, panden = len(E.side_addresses(data)), len(E.buildings(data))
    return (f"a current verblijfsobject (status {status_of(data)}) with a main address, {side} side address(es), "
            f"in {panden} building(s)")


def _verblijfsobject(get: Get, value: str, samples: dict[str, str]) -> str:
    data = _current_object(get, value, "verblijfsobject")
    if not E.main_address(data):
        raise Lacks("has no main address (heeftAlsHoofdAdres)")
    return _vbo_summary(data)


def _verblijfsobject_with(what: str, count: Callable[[dict[str, Any]], int], least: int
                          ) -> Callable[[Get, str, dict[str, str]], str]:
    """A current verblijfsobject with a main address and at least `least` of `what`."""
    def verify(get: Get, value: str, samples: dict[str, str]) -> str:
        data = _current_object(get, value, "verblijfsobject")
        if not E.main_address(data):
            raise Lacks("has no main address (heeftAlsHoofdAdres)")
        if count(data) < least:
            raise Lacks(f"has {count(data)} {what}, fewer than {least}")
        return _vbo_summary(data)
    return verify


def _object_eindstatus(get: Get, value: str, samples: dict[str, str]) -> str:
    _, data = addressable_object(get, value)
    if status_of(data) not in END_STATUSES:
        raise Lacks(f"has no end status (status {status_of(data)!r})")
    return f"end status {status_of(data)!r}"


def _historie(get: Get, value: str, samples: dict[str, str]) -> str:
    whole, valid = life_cycle(get, value, True), life_cycle(get, value, False)
    if len(whole) < HISTORY_MIN_OCCURRENCES:
        raise Lacks(f"has {len(whole)} occurrences in its whole life cycle, fewer than {HISTORY_MIN_OCCURRENCES}")
    if len(whole) <= len(valid):
        raise Lacks("has no occurrence removed from the valid life cycle "
                    f"(geheleLvc=true: {len(whole)}, geheleLvc=false: {len(valid)})")
    return f"{len(whole)} occurrences, {len(whole) - len(valid)} removed from the valid life cycle"


def _historie_datum(get: Get, value: str, samples: dict[str, str]) -> str:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise Lacks("is not a date YYYY-MM-DD") from None
    subject = samples.get("adresseerbaarobject_historie")
    if not subject:
        raise Lacks("needs the sample adresseerbaarobject_historie, whose history it dates")
    begins = begin_dates(life_cycle(get, subject, False))
    if len(begins) < 2 or not (begins[0] <= day < begins[-1]):
        raise Lacks(f"does not lie between the first ({begins[0] if begins else '-'}) and the latest "
                    f"({begins[-1] if begins else '-'}) occurrence of {subject}")
    return f"between the first ({begins[0]}) and the latest ({begins[-1]}) occurrence of {subject}"


def _pand(get: Get, value: str, samples: dict[str, str]) -> str:
    found = items(get, "/adresseerbareobjecten", [("pandIdentificaties", value)], "adresseerbareObjecten")
    strangers = [i for i in found if value not in _read("pandIdentificaties", lambda i=i: E.buildings(i))]
    if strangers:
        raise Unverifiable(f"GET /adresseerbareobjecten?pandIdentificaties={value} returns objects of other buildings")
    if len(found) < PAND_MIN_OBJECTS:
        raise Lacks(f"holds {len(found)} addressable objects, fewer than {PAND_MIN_OBJECTS}")
    return f"holds {'at least ' if len(found) >= PAGE else ''}{len(found)} addressable objects"


def _openbareruimte(get: Get, value: str, samples: dict[str, str]) -> str:
    found = items(get, "/adressen", [("openbareRuimteIdentificatie", value)], "adressen")
    if any(a.get("openbareRuimteIdentificatie") not in (None, value) for a in found):
        raise Unverifiable(f"GET /adressen?openbareRuimteIdentificatie={value} returns addresses of other public spaces")
    if len(found) < OPENBARE_RUIMTE_MIN_ADDRESSES:
        raise Lacks(f"has {len(found)} addresses, fewer than {OPENBARE_RUIMTE_MIN_ADDRESSES}")
    return f"has {'at least ' if len(found) >= PAGE else ''}{len(found)} addresses"


def _woonplaats(get: Get, value: str, samples: dict[str, str]) -> str:
    if not re.fullmatch(r"\d{4}", value):
        raise Lacks("is not a residence place id of 4 digits")
    return "4 digits (the seed has no lookup of a residence place to verify more)"


def _box(value: str) -> float:
    """The area of a well-formed bbox of at most 250000 m2 (else the sample lacks)."""
    try:
        x1, y1, x2, y2 = (float(v) for v in value.split(","))
    except ValueError:
        raise Lacks("is not x1,y1,x2,y2") from None
    if x2 <= x1 or y2 <= y1:
        raise Lacks("does not run from lower left to upper right")
    area = (x2 - x1) * (y2 - y1)
    if area > BBOX_MAX_AREA_M2:
        raise Lacks(f"covers {area:.0f} m2, more than {BBOX_MAX_AREA_M2}")
    return area


def _bbox_holding(kind: str | None) -> Callable[[Get, str, dict[str, str]], str]:
    """A bbox of at most 250000 m2 with an object of `kind` (any kind: None); for
    verblijfsobject, one with gebruiksdoelen and oppervlakte (the filters' checks need it)."""
    def verify(get: Get, value: str, samples: dict[str, str]) -> str:
        area = _box(value)
        # No type filter: a check judges that filter, so a sample must not depend on it.
        found = items(get, "/adresseerbareobjecten", [("bbox", value)], "adresseerbareObjecten", pages=10)
        kinds = [_read("bbox", lambda i=i: E.object_type(i)) for i in found]
        if kind == "verblijfsobject":
            found = [i for i, k in zip(found, kinds, strict=True)
                     if k == kind and E.gebruiksdoelen(i) and E.oppervlakte(i) is not None]
            if not found:
                raise Lacks("holds no verblijfsobject with gebruiksdoelen and oppervlakte")
        elif kind is not None and kind not in kinds:
            raise Lacks(f"holds no {kind}")
        elif not found:
            raise Lacks("holds no addressable object")
        held = ", ".join(f"{n} {k}" for k, n in sorted(Counter(kinds).items()))
        return f"{area:.0f} m2 holding {held}"
    return verify


def _unknown(path: str, id_field: Callable[[dict[str, Any]], Any]) -> Callable[[Get, str, dict[str, str]], str]:
    def verify(get: Get, value: str, samples: dict[str, str]) -> str:
        try:
            ex = get(path.format(value), [])
        except Finding as finding:
            raise Unanswered(f"GET {path.format(value)}: {finding.message}") from None
        if ex.status == 401:
            raise KeyRefused(_status_line(path.format(value), ex))
        if ex.status == 404:
            return f"well-formed and unknown ({_status_line(path.format(value), ex)})"
        if ex.status == 400:
            raise Lacks(f"is not well-formed ({_status_line(path.format(value), ex)})")
        data = ex.json
        if ex.status == 200 and isinstance(data, dict):
            try:
                got = id_field(data)
            except Finding:
                got = None
            if got == value:
                raise Lacks("exists")
        raise Unverifiable(_status_line(path.format(value), ex) + " about another object or none")
    return verify


CONTRACTS: dict[str, Callable[[Get, str, dict[str, str]], str]] = {
    "nummeraanduiding": _nummeraanduiding,
    "nummeraanduiding_nevenadres": _nevenadres,
    "nummeraanduiding_eindstatus": _address_eindstatus,
    "verblijfsobject": _verblijfsobject,
    "verblijfsobject_nevenadres": _verblijfsobject_with("side address(es)", lambda d: len(E.side_addresses(d)), 1),
    "verblijfsobject_panden": _verblijfsobject_with("building(s)", lambda d: len(E.buildings(d)), 2),
    "ligplaats": _object_of_kind("ligplaats"),
    "standplaats": _object_of_kind("standplaats"),
    "adresseerbaarobject_eindstatus": _object_eindstatus,
    "adresseerbaarobject_historie": _historie,
    "historie_datum": _historie_datum,
    "pand": _pand,
    "openbareruimte": _openbareruimte,
    "woonplaats": _woonplaats,
    "bbox": _bbox_holding(None),
    "bbox_ligplaats": _bbox_holding("ligplaats"),
    "bbox_standplaats": _bbox_holding("standplaats"),
    "bbox_verblijfsobject": _bbox_holding("verblijfsobject"),
    "unknown_adresseerbaarobject": _unknown("/adresseerbareobjecten/{}", E.object_id),
    "unknown_nummeraanduiding": _unknown("/adressen/{}", lambda d: d.get("nummeraanduidingIdentificatie")),
}


def verify(get: Get, name: str, value: str, samples: dict[str, str]) -> Verdict:
    """One sample against its contract. `samples`: all of them (historie_datum dates
    adresseerbaarobject_historie). Raises Unanswered when the server breaks HTTP or a limit."""
    try:
        return Verdict(name, value, "verified", CONTRACTS[name](get, value, samples))
    except Lacks as lacks:
        return Verdict(name, value, "lacks", str(lacks))
    except Unanswered:
        raise
    except Unverifiable as why:
        return Verdict(name, value, "unverifiable", str(why))




# --------------------------------------------------------------------------- properties beyond the contract
# What some checks need of a sample beyond its contract: without it they are not judged
# (their reason names the property). `conformance discover` prefers candidates that have them
# and reports what the samples it writes still lack. Each property is asked as its checks ask
# it (conformance/checks/address/time_travel.py search_key, the geconstateerd filter's test).
@dataclass(frozen=True)
class Missing:
    """One property a sample lacks, in the words of the not-judged reason it causes."""

    what: str
    checks: tuple[str, ...]  # the checks (with their case) that stay not judged


def _search_keys(found: list[dict[str, Any]], what: str, checks: Callable[[str], tuple[str, ...]]) -> list[Missing]:
    from conformance.checks.address import time_travel as T
    from conformance.errors import NotJudged

    missing = []
    for kind in T.QUERY_KINDS:
        try:
            T.search_key(found, kind, what)
        except NotJudged as why:
            missing.append(Missing(why.what, checks(kind)))
    return missing


def _historie_properties(get: Get, value: str) -> list[Missing]:
    what = f"the sample adresseerbaarobject_historie {value}"
    valid = life_cycle(get, value, False)
    missing = _search_keys(valid, what, lambda kind: (f"address.adresseerbareobjecten.geldig_op [{kind}]",
                                                      f"address.adresseerbareobjecten.beschikbaar_op [{kind}]"))
    _, data = addressable_object(get, value)
    if E.parse_moment(E.voorkomen(data).get("tijdstipRegistratie")) is None:
        missing.append(Missing("no sample object with a readable voorkomen.tijdstipRegistratie",
                               ("address.adresseerbaarobject.beschikbaar_op",)))
    return missing


def _eindstatus_properties(get: Get, value: str) -> list[Missing]:
    _, data = addressable_object(get, value)
    return _search_keys([data], f"the sample adresseerbaarobject_eindstatus {value}",
                        lambda kind: (f"address.adresseerbareobjecten.huidig [{kind}]",))


def _bbox_properties(get: Get, value: str) -> list[Missing]:
    found = items(get, "/adresseerbareobjecten", [("bbox", value)], "adresseerbareObjecten", pages=10)
    if any(_read("bbox", lambda i=i: E.is_established(i)) for i in found):
        return []
    return [Missing("no sample box holding an established (geconstateerd) object",
                    ("address.adresseerbareobjecten.geconstateerd_filter",))]


PROPERTIES: dict[str, Callable[[Get, str], list[Missing]]] = {
    "adresseerbaarobject_historie": _historie_properties,
    "adresseerbaarobject_eindstatus": _eindstatus_properties,
    "bbox": _bbox_properties,
}
# What each sample of PROPERTIES must have beyond its contract, as the README says it.
PROPERTY_TEXT = {
    "adresseerbaarobject_historie": "its valid occurrences share one main address and one building, each has "
                                    "coordinates, all within 250000 m2, and its voorkomen.tijdstipRegistratie is readable",
    "adresseerbaarobject_eindstatus": "it has a main address, a building and coordinates",
    "bbox": "it holds an established (geconstateerd) object",
}


def missing_properties(get: Get, name: str, value: str) -> list[Missing] | None:
    """What checks need of the sample beyond its contract and it lacks ([]: nothing), or None
    when the server's answers do not allow the judgement. Raises Unanswered like `verify`."""
    judge = PROPERTIES.get(name)
    if judge is None:
        return []
    try:
        return judge(get, value)
    except Unanswered:
        raise
    except (Lacks, Unverifiable, Finding):
        return None
