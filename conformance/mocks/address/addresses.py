"""Handlers of the address endpoints: /adressen, /adressen/zoek, /adressen/{id},
/adressenuitgebreid and /adressenuitgebreid/{id} (seed part 4; bag-api.md 4.4 to 4.6,
4.10, 4.11).

A search first validates every value (paramsValidation), then decides which one query
kind the identifying parameters form: none is paramsRequired, an incomplete kind is
paramsCombination, two kinds are unsupportedCombination.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from conformance.mocks.address import faults as F
from conformance.mocks.address import faults_params as FP
from conformance.mocks.address import params as P
from conformance.mocks.address import problems, q_parts, resources
from conformance.mocks.address.context import DEFAULT_PAGE_SIZE, Context, HalResult
from conformance.mocks.address.hal import Link, Paging
from conformance.mocks.address.problems import ProblemError
from conformance.mocks.address.repository import AddressQuery
from conformance.mocks.faults import fault, variant

_COMMON = frozenset(
    {
        "postcode", "huisnummer", "huisnummertoevoeging", "huisletter", "exacteMatch",
        "adresseerbaarObjectIdentificatie", "woonplaatsNaam", "openbareRuimteNaam", "q",
        "pandIdentificatie", "inclusiefEindStatus", "page", "pageSize",
    }
)  # fmt: skip
ADRESSEN_PARAMS = _COMMON | {"zoekresultaatIdentificatie", "openbareRuimteIdentificatie", "expand"}
UITGEBREID_PARAMS = _COMMON

# Query kinds: the parameter that selects the kind, in the order a kind is preferred
# when the fault unsupported_combination_accepted lets two of them through.
_SINGLE_KINDS = (
    ("zoekresultaatIdentificatie", "zoekresultaat"),
    ("adresseerbaarObjectIdentificatie", "object"),
    ("pandIdentificatie", "pand"),
    ("q", "q"),
    ("openbareRuimteIdentificatie", "openbareRuimte"),
)
_ADDRESS_PARTS = ("huisletter", "huisnummertoevoeging")
# Fault postcode_forms_rejected: only the canonical form (no space, upper case) passes.
_STRICT_POSTCODE = r"^[1-9][0-9]{3}[A-Z]{2}$"
# Faults letter_pattern_length_only and addition_pattern_length_only: the length is all
# that is checked, any character passes.
_ANY_LETTER = r"^.{1}$"
_ANY_ADDITION = r"^.{1,4}$"


@dataclass(frozen=True)
class _Search:
    values: dict[str, Any]
    kind: str | None  # None: answer with an empty collection (a fault let it through)
    expand: frozenset[str]
    paging: Paging


def _validate(
    ctx: Context, known: frozenset[str], *, extended: bool = False
) -> tuple[P.Query, dict[str, Any], frozenset[str] | None, Paging]:
    q = ctx.query(known)
    v = P.Validator(q)
    # Fault uitgebreid_params_not_validated: /adressenuitgebreid checks none of these rules.
    checked = not (extended and ctx.on(FP.UITGEBREID_PARAMS_NOT_VALIDATED))
    lengths = checked and not ctx.on(F.LENGTH_LIMITS_NOT_ENFORCED)
    limits = checked and not ctx.on(F.HUISNUMMER_LIMITS_NOT_ENFORCED)
    parts = checked and not ctx.on(F.LETTER_ADDITION_PATTERNS_NOT_ENFORCED)
    postcode = _STRICT_POSTCODE if ctx.on(F.POSTCODE_FORMS_REJECTED) else P.POSTCODE
    letter = _ANY_LETTER if ctx.on(FP.LETTER_PATTERN_LENGTH_ONLY) else P.HUISLETTER
    addition = _ANY_ADDITION if ctx.on(FP.ADDITION_PATTERN_LENGTH_ONLY) else P.HUISNUMMERTOEVOEGING
    values: dict[str, Any] = {
        "zoekresultaatIdentificatie": v.text("zoekresultaatIdentificatie", 255, enforce=lengths),
        "postcode": v.pattern("postcode", postcode,
                              enforce=checked and not ctx.on(F.POSTCODE_PATTERN_NOT_ENFORCED)),
        "huisnummer": v.integer("huisnummer", 1, 99999, enforce_min=limits, enforce_max=limits),
        "huisletter": v.pattern("huisletter", letter, enforce=parts),
        "adresseerbaarObjectIdentificatie": v.pattern(
            "adresseerbaarObjectIdentificatie", P.ADRESSEERBAAR_OBJECT_ID
        ),
        "woonplaatsNaam": v.text("woonplaatsNaam", 80, enforce=lengths),
        "openbareRuimteNaam": v.text("openbareRuimteNaam", 80, enforce=lengths),
        "pandIdentificatie": v.pattern("pandIdentificatie", P.PAND_ID),
        "openbareRuimteIdentificatie": v.pattern("openbareRuimteIdentificatie", P.OPENBARE_RUIMTE_ID),
        "q": v.text("q", 255, enforce=lengths),
        "exacteMatch": v.boolean("exacteMatch"),
        "inclusiefEindStatus": v.boolean("inclusiefEindStatus"),
    }
    sent = q.get("huisnummertoevoeging")
    if parts and sent is not None and sent.value and len(sent.value) > 4:
        v.fail(sent.position, "huisnummertoevoeging", "maxLength", 4)  # before the pattern (F: `tegenover`)
    else:
        values["huisnummertoevoeging"] = v.pattern("huisnummertoevoeging", addition, enforce=parts)
    # By pandIdentificatie or openbareRuimteIdentificatie expand is not supported and is
    # ignored, value and all (seed part 4; bag-api.md 4.3).
    expand = None
    if q.has("expand") and not (q.has("pandIdentificatie") or q.has("openbareRuimteIdentificatie")):
        expand = ctx.expand(v, resources.ADDRESS_EXPAND)
    paging = ctx.paging(v)
    v.finish()
    return q, values, expand, paging


# A search by the street's names that lacks its huisnummer is served (every address of the
# street), where seed part 4's third kind of query needs all three.
NAME_QUERY_WITHOUT_NUMBER_ACCEPTED = fault(
    "address.name_query_without_number_accepted",
    "woonplaatsNaam + openbareRuimteNaam without huisnummer is served (200, every address of the street)", shows="openbareRuimteNaam",
)


def _choose_kind(
    ctx: Context, present: set[str], values: dict[str, Any], kinds_allowed: set[str], *, extended: bool = False
) -> str | None:
    kinds = [kind for name, kind in _SINGLE_KINDS if name in present and kind in kinds_allowed]
    if "postcode" in present:
        kinds.append("postcode")
    if present & {"woonplaatsNaam", "openbareRuimteNaam"}:
        kinds.append("naam")
    if "huisnummer" in present and not present & {"postcode", "woonplaatsNaam", "openbareRuimteNaam"}:
        kinds.append("huisnummer")  # an address kind without its postcode or names
    if not kinds:
        if ctx.on(F.REQUIRED_PARAMS_NOT_ENFORCED) or (extended and ctx.on(FP.UITGEBREID_PARAMS_NOT_VALIDATED)):
            return None
        names = [n for n, k in _SINGLE_KINDS if k in kinds_allowed] + [
            "postcode",
            "huisnummer",
            "woonplaatsNaam",
            "openbareRuimteNaam",
        ]
        raise problems.required(names)

    conflicts: list[str] = []
    if len(kinds) > 1:
        conflicts = sorted(present - {"exacteMatch", "inclusiefEindStatus", "expand", "page", "pageSize"})
    elif kinds[0] not in ("postcode", "naam", "huisnummer") and present & set(_ADDRESS_PARTS):
        conflicts = sorted(present & {*_ADDRESS_PARTS, *(n for n, _ in _SINGLE_KINDS)})
    elif kinds[0] == "q" and values.get("exacteMatch"):
        conflicts = ["exacteMatch", "q"]  # bag-api.md 4.6
    if conflicts and not ctx.on(F.UNSUPPORTED_COMBINATION_ACCEPTED):
        raise problems.unsupported(conflicts)
    kind = kinds[0]

    missing = {
        "postcode": [n for n in ("huisnummer",) if n not in present],
        "naam": [n for n in ("woonplaatsNaam", "openbareRuimteNaam", "huisnummer") if n not in present],
        "huisnummer": ["postcode"],
    }.get(kind, [])
    if missing:
        if ctx.on(F.COMBINATION_NOT_ENFORCED) or (missing == ["huisnummer"] and kind == "naam"
                                                  and ctx.on(NAME_QUERY_WITHOUT_NUMBER_ACCEPTED)):
            return None
        raise problems.required(missing, code="paramsCombination")
    return kind


def _search(ctx: Context, known: frozenset[str], kinds_allowed: set[str], *, extended: bool) -> _Search:
    """A search of /adressen or (`extended`) /adressenuitgebreid, which has no expand."""
    q, values, expand, paging = _validate(ctx, known, extended=extended)
    kind = _choose_kind(ctx, q.names(), values, kinds_allowed, extended=extended)
    chosen = expand if not extended and expand is not None and not ctx.on(F.EXPAND_IGNORED) else frozenset()
    return _Search(values, kind, chosen, paging)


def _with_end_status(ctx: Context, asked: Any) -> bool:
    """Whether addresses with an end status are included: inclusiefEindStatus, as the faults bend it."""
    if ctx.on(F.END_STATUS_ADDRESSES_RETURNED):
        return True
    return bool(asked) and not ctx.on(F.END_STATUS_FLAG_IGNORED)


def _address_query(ctx: Context, search: _Search, nummeraanduiding_id: str | None = None) -> AddressQuery:
    v = search.values
    eind = _with_end_status(ctx, v["inclusiefEindStatus"])
    exact = bool(v["exacteMatch"]) and not ctx.on(F.EXACTE_MATCH_IGNORED)
    parts = {"huisletter": v["huisletter"], "huisnummertoevoeging": v.get("huisnummertoevoeging")}
    if not v["exacteMatch"] and ctx.on(F.LETTER_ADDITION_IGNORED):
        parts = {"huisletter": None, "huisnummertoevoeging": None}
    kind = search.kind
    if kind == "postcode":
        postcode = str(v["postcode"]).replace(" ", "").upper()
        if ctx.on(F.QUERY_FILTER_IGNORED):
            postcode = None  # the house number alone: other postcodes come along
        return AddressQuery(
            postcode=postcode,
            huisnummer=v["huisnummer"],
            exacte_match=exact,
            inclusief_eind_status=eind,
            **parts,
        )
    if kind == "naam":
        street = None if ctx.on(F.NAME_QUERY_IGNORES_STREET) else v["openbareRuimteNaam"]
        return AddressQuery(
            woonplaats_naam=v["woonplaatsNaam"],
            openbare_ruimte_naam=street,
            huisnummer=v["huisnummer"],
            exacte_match=exact,
            inclusief_eind_status=eind,
            **parts,
        )
    fields = {
        "zoekresultaat": {"nummeraanduiding_id": nummeraanduiding_id},
        "object": {"adresseerbaar_object_id": v["adresseerbaarObjectIdentificatie"]},
        "pand": {"pand_id": v["pandIdentificatie"]},
        "q": {} if ctx.on(F.Q_IGNORED) else {"q": v["q"]},
        "openbareRuimte": (
            {} if ctx.on(F.OPENBARE_RUIMTE_QUERY_IGNORED) else {"openbare_ruimte_id": v["openbareRuimteIdentificatie"]}
        ),
    }[str(kind)]
    return AddressQuery(inclusief_eind_status=eind, **fields)


def _find(ctx: Context, search: _Search, *, extended: bool) -> list[dict[str, Any]]:
    """The addresses of a search; under the fault pand_query_leaks a building query also
    returns the addresses of buildings whose id differs only in the last digit, under the
    faults q_ignores_<part> a q search leaves that part unsearched, under q_first_term_only
    it searches the first term alone."""
    find = ctx.repo.find_extended_addresses if extended else ctx.repo.find_addresses
    query = _address_query(ctx, search)
    if search.kind == "q" and query.q is not None and ctx.on(FP.Q_FIRST_TERM_ONLY):
        query = replace(query, q=q_parts.first_term(query.q))
    ignored = [part for part, fault in FP.Q_PART_FAULTS.items() if ctx.on(fault)]
    if search.kind == "q" and query.q is not None and ignored:
        return q_parts.searched(query.q, find(query), ignored)
    if search.kind != "pand" or not ctx.on(F.PAND_QUERY_LEAKS):
        return find(query)
    found: dict[tuple[Any, Any], dict[str, Any]] = {}
    for pand_id in ctx.building_ids((str(query.pand_id),)):
        for a in find(replace(query, pand_id=pand_id)):
            found.setdefault((a["nummeraanduidingIdentificatie"], a["adresseerbaarObjectIdentificatie"]), a)
    return list(found.values())


# A search that finds nothing answered as if a resource were missing: 404 notFound, a status
# seed part 7 lists for none of /adressen, /adressen/zoek and /adressenuitgebreid.
NOTHING_FOUND_AS_404 = fault(
    "address.nothing_found_as_404",
    "a search of /adressen, /adressen/zoek or /adressenuitgebreid that finds nothing is answered 404 notFound "
    "(instead of 200 with an empty collection)", shows="empty collection",
)


def _found_or_404(ctx: Context, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not items and ctx.on(NOTHING_FOUND_AS_404):
        raise ProblemError("notFound")
    return items


def search(ctx: Context) -> HalResult:
    """GET /adressen."""
    kinds = {"zoekresultaat", "object", "pand", "q", "openbareRuimte"}
    s = _search(ctx, ADRESSEN_PARAMS, kinds, extended=False)
    items: list[dict[str, Any]] = []
    if s.kind == "zoekresultaat":
        if ctx.on(F.ZOEK_RESULTS_NOT_RESOLVABLE):
            raise ProblemError("notFound")
        found = ctx.repo.zoekresultaat(s.values["zoekresultaatIdentificatie"])
        if found is not None:
            items = ctx.repo.find_addresses(_address_query(ctx, s, found))
    elif s.kind is not None:
        items = _find(ctx, s, extended=False)
        if s.kind == "object" and ctx.on(F.OBJECT_QUERY_DROPS_SIDE_ADDRESSES):
            items = [a for a in items if not a.get("indicatieNevenadres")]
    items = _found_or_404(ctx, items)
    return ctx.collection("adressen", items, s.paging, lambda a: resources.address(ctx, a, s.expand))


def search_extended(ctx: Context) -> HalResult:
    """GET /adressenuitgebreid (no expand, no zoekresultaat, no openbareRuimteIdentificatie)."""
    s = _search(ctx, UITGEBREID_PARAMS, {"object", "pand", "q"}, extended=True)
    items = _found_or_404(ctx, _find(ctx, s, extended=True) if s.kind is not None else [])
    return ctx.collection("adressen", items, s.paging, lambda a: _extended(ctx, a))


def _extended(ctx: Context, data: dict[str, Any], self_link: Link | None = None) -> dict[str, Any]:
    body = resources.extended_address(ctx, data, self_link)
    if ctx.on(F.EXTENDED_FIELDS_MISSING):
        body.pop("adresseerbaarObjectStatus", None)
    return body


def zoek(ctx: Context) -> HalResult:
    """GET /adressen/zoek (deprecated): light results whose `identificatie` is a
    zoekresultaatIdentificatie for /adressen."""
    q = ctx.query(frozenset({"zoek", "page", "pageSize"}))
    v = P.Validator(q)
    term = v.text("zoek", 255, enforce=not ctx.on(F.LENGTH_LIMITS_NOT_ENFORCED))
    paging = ctx.paging(v)
    v.finish()
    items: list[dict[str, Any]] = []
    if term is not None:
        items = _found_or_404(ctx, ctx.repo.zoek(term))
    elif not ctx.on(F.REQUIRED_PARAMS_NOT_ENFORCED):
        raise problems.required(["zoek"])

    def render(found: dict[str, Any]) -> dict[str, Any]:
        result = resources.zoekresultaat(ctx, found)
        if ctx.on(F.ZOEK_RESULTS_WITHOUT_IDENTIFICATIE):
            del result["identificatie"]
        return result

    result = ctx.collection("zoekresultaten", items, paging, render)
    result.deprecated = True
    return result


_GET_ONE_PARAMS = frozenset({"expand", "inclusiefEindStatus"})
_GET_EXTENDED_PARAMS = frozenset({"inclusiefEindStatus"})
_ONE_PAGE = Paging(1, DEFAULT_PAGE_SIZE)  # X-Pagination-* are listed for a single address's 200 too
# Issue 51: the headers are listed for one address's 200, their values are not.
SINGLE_ADDRESS_PAGE_OF_ONE = variant(
    "address.variant.single_address_page_of_one",
    "/adressen/{id} answers X-Pagination-Page: 1 and X-Pagination-Limit: 1 (a page of the one address)",
    allowed_by="seed part 4, Response headers: 'X-Pagination-Page, X-Pagination-Limit | 200 of ..., "
               "/adressen/{nummeraanduidingIdentificatie}, ...' says where they are sent, not their values there")


# The lookup of one address reads expand leniently, where the search refuses an unknown value.
ADRES_UNKNOWN_EXPAND_IGNORED = fault(
    "address.adres_unknown_expand_ignored",
    "/adressen/{id} ignores expand values that are no relation of an address (200, nothing embedded for them); "
    "/adressen still refuses them", shows="adressen",
)


def get_one(ctx: Context) -> HalResult:
    """GET /adressen/{nummeraanduidingIdentificatie}."""
    q = ctx.query(_GET_ONE_PARAMS)
    v = P.Validator(q)
    num_id = ctx.path_id(v, "nummeraanduidingIdentificatie", P.NUMMERAANDUIDING_ID)
    eind = v.boolean("inclusiefEindStatus")
    expand = ctx.expand(v, resources.ADDRESS_EXPAND, lenient=ctx.on(ADRES_UNKNOWN_EXPAND_IGNORED))
    v.finish()
    eind = _with_end_status(ctx, eind)
    found = ctx.repo.get_address(num_id, inclusief_eind_status=eind)
    paging = Paging(1, 1) if ctx.on(SINGLE_ADDRESS_PAGE_OF_ONE) else _ONE_PAGE
    if found is None:
        return ctx.not_found(paging)
    chosen = expand if expand is not None and not ctx.on(F.EXPAND_IGNORED) else frozenset()
    return HalResult(resources.address(ctx, found, chosen, ctx.info.self_link()), paging=paging)


def get_extended(ctx: Context) -> HalResult:
    """GET /adressenuitgebreid/{nummeraanduidingIdentificatie}."""
    q = ctx.query(_GET_EXTENDED_PARAMS)
    v = P.Validator(q)
    num_id = ctx.path_id(v, "nummeraanduidingIdentificatie", P.NUMMERAANDUIDING_ID)
    eind = v.boolean("inclusiefEindStatus")
    v.finish()
    eind = _with_end_status(ctx, eind)
    found = ctx.repo.get_extended_address(num_id, inclusief_eind_status=eind)
    if found is None:
        return ctx.not_found()
    return HalResult(_extended(ctx, found, ctx.info.self_link()))
