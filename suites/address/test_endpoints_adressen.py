"""GET /adressen, /adressen/zoek and /adressen/{id} (seed parts 2, 4, 8), and the
parameter rules /adressenuitgebreid shares with /adressen (`both_endpoints`: one check
id per endpoint, the same cases).

The query values come from the sample address as the server returns it (postcode,
number, names, identifiers), so the checks hold for any register the profile points at.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks.address import endpoints as E
from conformance.checks.address import general as g
from conformance.checks.address import hal, problem
from conformance.checks.address.control import Req, control_served, refused_vs_control, rejected_vs_control
from conformance.checks.registry import MUST, OBSERVATION, SHOULD, Declared, check
from conformance.errors import NotJudged
from conformance.findings import expect, require

ADRESSEN = "/adressen"
ZOEK = "/adressen/zoek"
UITGEBREID = "/adressenuitgebreid"
RELATIONS = ("nummeraanduiding", "openbareRuimte", "woonplaats", "adresseerbaarObject", "panden")


def fetch_address(api, num: str, **params: str) -> dict[str, Any]:
    """GET /adressen/{num}: 200 with that address."""
    ex = api.get(f"{ADRESSEN}/{num}", params or None)
    E.is_ok(ex)
    data = hal.body(ex)
    expect(E.address_id(data) == num, "the address returned is not the one requested", expected=num,
           actual=E.address_id(data))
    return data


def field(address: dict[str, Any], name: str) -> Any:
    if isinstance(address, g.SampleData):  # a sample lacking it blocks the checks that need it
        return address.need(name)
    value = address.get(name)
    expect(value not in (None, ""), f"the sample address has no {name}", actual=E.address_id(address))
    return value


def postcode_query(address: dict[str, Any]) -> list[tuple[str, str]]:
    return [("postcode", str(field(address, "postcode"))), ("huisnummer", str(field(address, "huisnummer")))]


def naam_query(address: dict[str, Any]) -> list[tuple[str, str]]:
    return [(n, str(field(address, n))) for n in ("woonplaatsNaam", "openbareRuimteNaam", "huisnummer")]


def search_all(api, params: list[tuple[str, str]], path: str = ADRESSEN) -> list[dict[str, Any]]:
    return E.collect(api.get, path, params, "adressen")


def body(ex) -> dict[str, Any]:
    E.is_ok(ex)
    return hal.body(ex)


def sample_address(api) -> g.SampleData:
    """The sample address as the server gives it, the source of query values (its own
    identity is checked by address.adres.by_id, not here); a check that cannot get it, or
    a value it needs from it, is blocked with the sample's cause."""
    return g.sample_resource(api, "nummeraanduiding")


def vbo_relations(api) -> tuple[str, str, list[str], list[str]]:
    """(verblijfsobject id, main address, side addresses, buildings) from /adresseerbareobjecten/{id}."""
    data = g.sample_resource(api, "verblijfsobject", "/adresseerbareobjecten/{}",
                             check=lambda ex, value: E.single_object(ex, value))
    main = data.having("heeftAlsHoofdAdres", E.main_address(data))
    return data.value, main, E.side_addresses(data), E.buildings(data)


def expected_embeds(address: dict[str, Any], vbo: str, panden: list[str]) -> dict[str, list[str]]:
    return {
        "nummeraanduiding": [E.address_id(address)],
        "openbareRuimte": [str(field(address, "openbareRuimteIdentificatie"))],
        "woonplaats": [str(field(address, "woonplaatsIdentificatie"))],
        "adresseerbaarObject": [vbo],
        "panden": panden,
    }


def check_address_embeds(address: dict[str, Any], expand: str, related: dict[str, list[str]]) -> None:
    names = RELATIONS if expand == "true" else expand.split(",")
    for relation in names:
        E.embeds(E.address_embedded(address), relation, related[relation], E.address_id(address))


# --------------------------------------------------------------------------- query kinds
@check("address.adressen.by_postcode_huisnummer", MUST, "postcode+huisnummer returns the addresses with that postcode and number, the sample among them",
       requirements=["ADDR-4.adressen.postcode"],
       proven_by=["address.query_filter_ignored"],
       feature="GET /adressen")
def test_by_postcode_huisnummer(address_api) -> None:
    address = sample_address(address_api)
    found = search_all(address_api, postcode_query(address))
    E.addresses_match(found, postcode=address["postcode"], huisnummer=address["huisnummer"])
    E.includes(E.address_ids(found), E.address_id(address), "the sample address")


@pytest.mark.parametrize("part", ["huisletter", "huisnummertoevoeging"])
@check("address.adressen.by_postcode_huisnummer_letter_addition", MUST, "postcode+huisnummer with huisletter or huisnummertoevoeging returns only addresses having it",
       requirements=["ADDR-4.adressen.postcode"],
       proven_by=["address.letter_addition_ignored"],
       may_fail_under=["address.query_filter_ignored"],
       feature="GET /adressen")
def test_by_postcode_huisnummer_letter_addition(address_api, part: str) -> None:
    address = sample_address(address_api)
    variants = [a for a in search_all(address_api, postcode_query(address)) if a.get(part)]
    expect(bool(variants), f"the sample's postcode and number have no variant with a {part}",
           actual=E.address_id(address))
    value = str(variants[0][part])
    found = search_all(address_api, [*postcode_query(address), (part, value)])
    E.addresses_match(found, postcode=address["postcode"], huisnummer=address["huisnummer"], **{part: value})
    E.includes(E.address_ids(found), E.address_id(variants[0]), f"the address with {part} {value}")


@check("address.adressen.by_adresseerbaar_object", MUST, "adresseerbaarObjectIdentificatie returns the object's main and side addresses, and only its addresses",
       requirements=["ADDR-4.adressen.adresseerbaarObjectIdentificatie"],
       proven_by=["address.object_query_drops_side_addresses"],
       feature="GET /adressen")
def test_by_adresseerbaar_object(address_api) -> None:
    vbo, main, sides, _ = vbo_relations(address_api)
    found = search_all(address_api, [("adresseerbaarObjectIdentificatie", vbo)])
    E.addresses_match(found, adresseerbaarObjectIdentificatie=vbo)
    for num in [main, *sides]:
        E.includes(E.address_ids(found), num, f"address {num} of the verblijfsobject")


@check("address.adressen.by_woonplaats_straat_huisnummer", MUST, "woonplaatsNaam+openbareRuimteNaam+huisnummer returns matching addresses, the sample among them",
       requirements=["ADDR-4.adressen.woonplaatsNaam"],
       proven_by=["address.name_query_ignores_street"],
       feature="GET /adressen")
def test_by_woonplaats_straat_huisnummer(address_api) -> None:
    address = sample_address(address_api)
    found = search_all(address_api, naam_query(address))
    E.addresses_match(found, **{name: value for name, value in naam_query(address)})
    E.includes(E.address_ids(found), E.address_id(address), "the sample address")


@check("address.adressen.by_pand", MUST, "pandIdentificatie returns the addresses in that building, the verblijfsobject's among them",
       requirements=["ADDR-4.adressen.pandIdentificatie"],
       proven_by=["address.pand_query_leaks"],
       feature="GET /adressen")
def test_by_pand(address_api) -> None:
    _, main, _, panden = vbo_relations(address_api)
    expect(bool(panden), "the sample verblijfsobject lies in no building", actual=main)
    found = search_all(address_api, [("pandIdentificatie", panden[0])])
    E.addresses_in_building(found, panden[0])
    E.includes(E.address_ids(found), main, "the main address of the verblijfsobject in the building")


@check("address.adressen.by_q", MUST, "q (postcode and number) finds the address; every result matches a search term",
       requirements=["ADDR-4.adressen.q"],
       proven_by=["address.q_ignored"],
       may_fail_under=["address.q_ignores_number"],
       feature="GET /adressen")
def test_by_q(address_api) -> None:
    address = sample_address(address_api)
    q = f"{field(address, 'postcode')} {field(address, 'huisnummer')}"
    found = E.collect(address_api.get, ADRESSEN, [("q", q)], "adressen", max_pages=3)
    E.includes(E.address_ids(found), E.address_id(address), f"the sample address (q={q!r})")
    E.q_terms_matched(found, q)


def _variants(api, address: dict[str, Any], part: str) -> list[dict[str, Any]]:
    """The addresses of the sample's postcode and number that have a `part` (letter or
    addition), first those whose value is not also part of the street or place name: such a
    term would find the address even where that part is not searched."""
    same = {"postcode": address["postcode"], "huisnummer": address["huisnummer"]}
    variants = [a for a in search_all(api, postcode_query(address))
                if a.get(part) and all(a.get(k) == v for k, v in same.items())]
    require(bool(variants), f"the sample's postcode and number have a variant with a {part}",
            f"sample nummeraanduiding {E.address_id(address)}: no address with a {part} at its postcode and number")
    names = " ".join(str(address.get(n, "")) for n in ("woonplaatsNaam", "openbareRuimteNaam")).casefold()
    return sorted(variants, key=lambda a: str(a[part]).casefold() in names)


def q_for_part(api, address: dict[str, Any], part: str) -> tuple[dict[str, Any], str]:
    """(the address to find, a q that names its `part` with just enough context to be specific)."""
    postcode, number = field(address, "postcode"), field(address, "huisnummer")
    if part == "woonplaatsNaam":
        return address, f"{postcode} {field(address, 'woonplaatsNaam')}"
    if part == "openbareRuimteNaam":
        return address, f"{postcode} {field(address, 'openbareRuimteNaam')}"
    if part == "huisnummer":  # without the postcode: by_q has that combination
        return address, f"{field(address, 'openbareRuimteNaam')} {number} {field(address, 'woonplaatsNaam')}"
    variant = _variants(api, address, part)[0]
    return variant, f"{postcode} {number} {variant[part]}"


@pytest.mark.parametrize("part", ["woonplaatsNaam", "openbareRuimteNaam", "huisnummer", "huisletter",
                                  "huisnummertoevoeging"])
@check("address.adressen.q_searches_each_part", MUST, "q naming the sample's woonplaats, street, house number, or a variant's letter or addition (with its postcode or names for context) finds that address",
       requirements=["ADDR-4.adressen.q"],
       proven_by=["address.q_ignores_woonplaats", "address.q_ignores_street", "address.q_ignores_number", "address.q_ignores_letter", "address.q_ignores_addition", "address.q_ignored"],
       feature="GET /adressen")
def test_q_searches_each_part(address_api, part: str) -> None:
    """Seed part 4: q searches "on postcode, woonplaats, street name, house number, letter, addition"."""
    target, q = q_for_part(address_api, sample_address(address_api), part)
    found = E.collect(address_api.get, ADRESSEN, [("q", q)], "adressen", max_pages=3)
    E.includes(E.address_ids(found), E.address_id(target), f"the address whose {part} q names (q={q!r})")


def _term_in(term: str, address: dict[str, Any]) -> bool:
    """Whether `term` may match `address` however a server matches terms (generous on
    purpose: a substring of a name or the postcode, a prefix of the house number written
    with its letter and addition, or of the letter and addition)."""
    t = term.casefold()
    names = [address.get(f) for f in ("woonplaatsNaam", "openbareRuimteNaam", "korteNaam", "postcode")]
    if any(t in str(n).casefold().replace(" ", "") for n in names if n):
        return True
    number, letter, addition = (str(address.get(f) or "").casefold()
                                for f in ("huisnummer", "huisletter", "huisnummertoevoeging"))
    return any(w.startswith(t) for w in (number + letter + addition, letter + addition, addition) if w)


def q_term_and_context(api, address: dict[str, Any], part: str) -> tuple[list[str], str]:
    """(the terms that may name `part`, the other terms of the q): the context is chosen so
    that the term is the one telling the sample apart (a house number beside names, not
    beside a postcode whose digits may contain it)."""
    street, place = field(address, "openbareRuimteNaam"), field(address, "woonplaatsNaam")
    number = str(field(address, "huisnummer"))
    if part == "huisnummer":
        return [number], f"{street} {place}"
    if part == "openbareRuimteNaam":
        return [str(street)], f"{number} {place}"
    if part == "woonplaatsNaam":
        return [str(place)], number  # a street name may be unique to its place
    return [str(v[part]) for v in _variants(api, address, part)], f"{field(address, 'postcode')} {number}"


@pytest.mark.parametrize("part", ["huisnummer", "huisletter", "huisnummertoevoeging", "openbareRuimteNaam",
                                  "woonplaatsNaam"])
@check("address.adressen.q_each_term_used", SHOULD, "Each term of a q narrows the answer: with the term, no address comes back that the term does not match",
       requirements=["BAGREF-4.10"],
       proven_by=["address.q_first_term_only"],
       feature="GET /adressen")
def test_q_each_term_used(address_api, part: str) -> None:
    """bag-api.md 4.10: terms are separated by a comma or a space (`snoekstraat 1`) and each
    one searches; the seed says what q searches on, not how its terms combine (hence SHOULD).
    The control is the q without the term: it must hold addresses the term does not match,
    or this sample cannot show the rule (not judged)."""
    terms, context = q_term_and_context(address_api, sample_address(address_api), part)
    without = E.collect(address_api.get, ADRESSEN, [("q", context)], "adressen", max_pages=3)
    term = next((t for t in terms if any(not _term_in(t, a) for a in without)), None)
    if term is None:
        raise NotJudged(f"q={context!r} finds no address that a {part} ({', '.join(terms)}) leaves out",
                        "a sample address whose street or place has addresses with other values")
    with_term = f"{context} {term}"
    found = E.collect(address_api.get, ADRESSEN, [("q", with_term)], "adressen", max_pages=3)
    stray = [E.address_id(a) for a in found if not _term_in(term, a)]
    expect(not stray, f"q={with_term!r} answers addresses that its term {term!r} ({part}) does not match: "
                      "the term was not used", actual=stray[:5])


@check("address.adressen.by_openbare_ruimte", MUST, "openbareRuimteIdentificatie returns the addresses on that public space only",
       requirements=["ADDR-4.adressen.openbareRuimteIdentificatie"],
       proven_by=["address.openbare_ruimte_query_ignored"],
       feature="GET /adressen")
def test_by_openbare_ruimte(address_api) -> None:
    address = sample_address(address_api)
    own = str(field(address, "openbareRuimteIdentificatie"))
    found = search_all(address_api, [("openbareRuimteIdentificatie", own)])
    E.addresses_match(found, openbareRuimteIdentificatie=own)
    E.includes(E.address_ids(found), E.address_id(address), "the sample address on its public space")
    public_space = address_api.sample("openbareruimte")
    found = search_all(address_api, [("openbareRuimteIdentificatie", public_space)])
    E.non_empty(found, "the sample public space has addresses")
    E.addresses_match(found, openbareRuimteIdentificatie=public_space)


# --------------------------------------------------------------------------- parameter formats and limits
@pytest.mark.parametrize("form", ["space", "lower", "space_lower"])
@check("address.adressen.postcode_forms_accepted", MUST, "A postcode with a space and/or in lower case is accepted and finds the same addresses",
       requirements=["ADDR-4.adressen.postcode"],
       proven_by=["address.postcode_forms_rejected"],
       feature="GET /adressen")
def test_postcode_forms_accepted(address_api, form: str) -> None:
    address = sample_address(address_api)
    canonical = E.normal_postcode(field(address, "postcode"))
    spaced = f"{canonical[:4]} {canonical[4:]}"
    value = {"space": spaced, "lower": canonical.lower(), "space_lower": spaced.lower()}[form]
    number = ("huisnummer", str(address["huisnummer"]))
    want = sorted(E.address_ids(search_all(address_api, [("postcode", canonical), number])))
    got = sorted(E.address_ids(search_all(address_api, [("postcode", value), number])))
    expect(got == want, f"postcode {value!r} finds other addresses than {canonical!r}", expected=want, actual=got)


def both_endpoints(adressen: Declared, uitgebreid: Declared) -> list[Any]:
    """The rule judged on /adressen and, as its own check, on /adressenuitgebreid: seed part
    4 gives the latter "Parameters and their rules are those of GET /adressen for postcode,
    huisnummer, huisnummertoevoeging, huisletter, ..., woonplaatsNaam, openbareRuimteNaam, q"."""
    return [pytest.param(ADRESSEN, marks=adressen.mark, id="adressen"),
            pytest.param(UITGEBREID, marks=uitgebreid.mark, id="adressenuitgebreid")]


@pytest.mark.parametrize("case", ["leading_zero", "three_letters", "two_spaces"])
@pytest.mark.parametrize("path", both_endpoints(
    check("address.adressen.postcode_pattern_rejected", MUST, "A postcode breaking the pattern (leading 0, three letters, two spaces) is refused with 400 naming postcode",
        requirements=["ADDR-4.adressen.postcode"],
        proven_by=["address.postcode_pattern_not_enforced"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
        sends=["refused"],
        feature="GET /adressen"),
    check("address.adressenuitgebreid.postcode_pattern_rejected", MUST, "A postcode breaking the pattern (leading 0, three letters, two spaces) is refused on /adressenuitgebreid with 400 naming postcode",
        requirements=["ADDR-4.adressenuitgebreid.params", "ADDR-4.adressen.postcode"],
        proven_by=["address.uitgebreid_params_not_validated", "address.postcode_pattern_not_enforced"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
        sends=["refused"],
        feature="GET /adressenuitgebreid")))
def test_postcode_pattern_rejected(address_api, path: str, case: str) -> None:
    address = sample_address(address_api)
    pc = E.normal_postcode(field(address, "postcode"))
    value = {"leading_zero": "0" + pc[1:], "three_letters": pc + "A", "two_spaces": f"{pc[:4]}  {pc[4:]}"}[case]
    control = Req.of(path, [("postcode", pc), ("huisnummer", str(field(address, "huisnummer")))])
    rejected_vs_control(address_api, control, control.with_param("postcode", value), "postcode", f"postcode {value!r}")


def _bounds(name: str, cases: list[tuple[str, bool]]) -> list[Any]:
    return [pytest.param(v, ok, id=f"{name}={v}" if v else f"{name}=empty")
            for v, ok in cases]


@pytest.mark.parametrize(("value", "accepted"),
                         _bounds("huisnummer", [("0", False), ("1", True), ("99999", True), ("100000", False)]))
@pytest.mark.parametrize("path", both_endpoints(
    check("address.adressen.huisnummer_limits", MUST, "huisnummer 1 and 99999 are accepted; 0 and 100000 are refused with 400 naming huisnummer",
        requirements=["ADDR-4.adressen.huisnummer", "ADDR-8.huisnummer"],
        proven_by=["address.huisnummer_limits_not_enforced"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.nothing_found_as_404"],
        sends=["valid", "refused"],
        feature="GET /adressen"),
    check("address.adressenuitgebreid.huisnummer_limits", MUST, "huisnummer 1 and 99999 are accepted on /adressenuitgebreid; 0 and 100000 are refused with 400 naming it",
        requirements=["ADDR-4.adressenuitgebreid.params", "ADDR-4.adressen.huisnummer", "ADDR-8.huisnummer"],
        proven_by=["address.uitgebreid_params_not_validated", "address.huisnummer_limits_not_enforced"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.nothing_found_as_404"],
        sends=["valid", "refused"],
        feature="GET /adressenuitgebreid")))
def test_huisnummer_limits(address_api, path: str, value: str, accepted: bool) -> None:
    postcode = str(field(sample_address(address_api), "postcode"))
    changed = Req.of(path, [("postcode", postcode), ("huisnummer", value)])
    if accepted:
        E.is_ok(changed.send(address_api), f"huisnummer {value} is within 1..99999")
    else:  # the nearest limit is the control
        control = changed.with_param("huisnummer", "1" if value == "0" else "99999")
        rejected_vs_control(address_api, control, changed, "huisnummer", f"huisnummer {value} is outside 1..99999")


def _pattern_case(address_api, path: str, name: str, value: str, valid: str, accepted: bool) -> None:
    changed = Req.of(path, [*postcode_query(sample_address(address_api)), (name, value)])
    if accepted:
        E.is_ok(changed.send(address_api), f"{name}={value!r} fits its pattern")
    else:  # the longest value that fits is the control
        rejected_vs_control(address_api, changed.with_param(name, valid), changed, name,
                            f"{name}={value!r} breaks its pattern")


# The patterns by length (one character too many) and by character (the right length, a
# character the pattern does not allow): a server that counts characters only fails the latter.
@pytest.mark.parametrize(("value", "accepted"), _bounds("huisnummertoevoeging", [
    ("1a2b", True), ("1a2b3", False), ("a-b", False), ("!", False)]))
@pytest.mark.parametrize("path", both_endpoints(
    check("address.adressen.huisnummertoevoeging_pattern", MUST, "huisnummertoevoeging of 4 characters is accepted; 5 characters, 'a-b' and '!' are refused with 400",
        requirements=["ADDR-4.adressen.huisnummertoevoeging"],
        proven_by=["address.letter_addition_patterns_not_enforced", "address.addition_pattern_length_only"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.nothing_found_as_404"],
        sends=["valid", "refused"],
        feature="GET /adressen"),
    check("address.adressenuitgebreid.huisnummertoevoeging_pattern", MUST, "huisnummertoevoeging of 4 characters is accepted on /adressenuitgebreid; 5 characters, 'a-b' and '!' are refused with 400",
        requirements=["ADDR-4.adressenuitgebreid.params", "ADDR-4.adressen.huisnummertoevoeging"],
        proven_by=["address.uitgebreid_params_not_validated", "address.letter_addition_patterns_not_enforced", "address.addition_pattern_length_only"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.nothing_found_as_404"],
        sends=["valid", "refused"],
        feature="GET /adressenuitgebreid")))
def test_huisnummertoevoeging_pattern(address_api, path: str, value: str, accepted: bool) -> None:
    _pattern_case(address_api, path, "huisnummertoevoeging", value, "1a2b", accepted)


@pytest.mark.parametrize(("value", "accepted"), _bounds("huisletter", [
    ("b", True), ("bb", False), ("1", False), ("-", False)]))
@pytest.mark.parametrize("path", both_endpoints(
    check("address.adressen.huisletter_pattern", MUST, "huisletter of 1 letter is accepted; 2 letters, a digit and '-' are refused with 400",
        requirements=["ADDR-4.adressen.huisletter"],
        proven_by=["address.letter_addition_patterns_not_enforced", "address.letter_pattern_length_only"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
        sends=["valid", "refused"],
        feature="GET /adressen"),
    check("address.adressenuitgebreid.huisletter_pattern", MUST, "huisletter of 1 letter is accepted on /adressenuitgebreid; 2 letters, a digit and '-' are refused with 400",
        requirements=["ADDR-4.adressenuitgebreid.params", "ADDR-4.adressen.huisletter"],
        proven_by=["address.uitgebreid_params_not_validated", "address.letter_addition_patterns_not_enforced", "address.letter_pattern_length_only"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
        sends=["valid", "refused"],
        feature="GET /adressenuitgebreid")))
def test_huisletter_pattern(address_api, path: str, value: str, accepted: bool) -> None:
    _pattern_case(address_api, path, "huisletter", value, "b", accepted)


@pytest.mark.parametrize(
    ("name", "length"),
    [pytest.param(n, length)
     for n in ("woonplaatsNaam", "openbareRuimteNaam") for length in (80, 81, 0)],
)
@pytest.mark.parametrize("path", both_endpoints(
    check("address.adressen.name_lengths", MUST, "woonplaatsNaam and openbareRuimteNaam of 80 characters are accepted; 81 and empty are refused with 400",
        requirements=["ADDR-4.adressen.woonplaatsNaam", "ADDR-8.length"],
        proven_by=["address.length_limits_not_enforced", "address.empty_text_accepted"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.nothing_found_as_404"],
        sends=["valid", "refused"],
        feature="GET /adressen"),
    check("address.adressenuitgebreid.name_lengths", MUST, "woonplaatsNaam and openbareRuimteNaam of 80 characters are accepted on /adressenuitgebreid; 81 and empty are refused with 400",
        requirements=["ADDR-4.adressenuitgebreid.params", "ADDR-4.adressen.woonplaatsNaam", "ADDR-8.length"],
        proven_by=["address.uitgebreid_params_not_validated", "address.length_limits_not_enforced", "address.empty_text_accepted"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.nothing_found_as_404"],
        sends=["valid", "refused"],
        feature="GET /adressenuitgebreid")))
def test_name_lengths(address_api, path: str, name: str, length: int) -> None:
    changed = Req.of(path, naam_query(sample_address(address_api))).with_param(name, "a" * length)
    control = changed.with_param(name, "a" * 80)  # the longest name within 1..80
    if length == 80:
        E.is_ok(changed.send(address_api), f"{name} of {length} characters is within 1..80")
    elif length == 0:  # empty: no value, so an invalid-params list need not single it out
        refused_vs_control(address_api, control, changed, rule=f"an empty {name}", names=name)
    else:
        rejected_vs_control(address_api, control, changed, name, f"{name} of {length} characters is longer than 80")


def _length_case(api, path: str, name: str, char: str, length: int, maximum: int) -> None:
    """`name` of `length` times `char`; a refused length is judged against `maximum` (the control)."""
    changed = Req.of(path, [(name, char * length)])
    if not 1 <= length <= maximum:
        control = changed.with_param(name, char * maximum)
        if length == 0:  # empty: no value, so an invalid-params list need not single it out
            refused_vs_control(api, control, changed, rule=f"an empty {name}", names=name)
        else:
            rejected_vs_control(api, control, changed, name, f"{name} of {length} characters is longer than {maximum}")
        return
    ex = changed.send(api)
    if length == 1 and ex.status == 400 and isinstance(ex.json, dict) and ex.json.get("code") == "tooManyResults":
        return  # a one-character search may find too much (bag-api.md 5.2): not a length verdict
    E.is_ok(ex, f"{name} of {length} characters is within 1..{maximum}")


LENGTHS_255 = [pytest.param(n) for n in (255, 256, 0)]


@pytest.mark.parametrize("length", LENGTHS_255)
@pytest.mark.parametrize("path", both_endpoints(
    check("address.adressen.q_length", MUST, "q of 255 characters is accepted; 256 characters and an empty q are refused with 400",
        requirements=["ADDR-4.adressen.q", "ADDR-8.length"],
        proven_by=["address.length_limits_not_enforced", "address.empty_text_accepted"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.nothing_found_as_404"],
        sends=["valid", "refused"],
        feature="GET /adressen"),
    check("address.adressenuitgebreid.q_length", MUST, "q of 255 characters is accepted on /adressenuitgebreid; 256 characters and an empty q are refused with 400",
        requirements=["ADDR-4.adressenuitgebreid.params", "ADDR-4.adressen.q", "ADDR-8.length"],
        proven_by=["address.uitgebreid_params_not_validated", "address.length_limits_not_enforced", "address.empty_text_accepted"],
        may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.nothing_found_as_404"],
        sends=["valid", "refused"],
        feature="GET /adressenuitgebreid")))
def test_q_length(address_api, path: str, length: int) -> None:
    _length_case(address_api, path, "q", "a", length, 255)


@pytest.mark.parametrize("path", both_endpoints(
    check("address.adressen.no_parameters_rejected", MUST, "GET /adressen without an identifying parameter is answered 400 paramsRequired",
        requirements=["ADDR-4.adressen", "ADDR-7.400"],
        proven_by=["address.required_params_not_enforced"],
        may_fail_under=["address.wrong_error_code"],
        sends=["refused"],
        feature="GET /adressen"),
    check("address.adressenuitgebreid.no_parameters_rejected", MUST, "GET /adressenuitgebreid without an identifying parameter is answered 400 paramsRequired",
        requirements=["ADDR-4.adressenuitgebreid.params", "ADDR-4.adressenuitgebreid", "ADDR-7.400"],
        proven_by=["address.uitgebreid_params_not_validated", "address.required_params_not_enforced"],
        may_fail_under=["address.wrong_error_code"],
        sends=["refused"],
        feature="GET /adressenuitgebreid")))
def test_no_parameters_rejected(address_api, path: str) -> None:
    """Seed part 7: "400 | paramsRequired | no required/identifying parameter given"."""
    control = Req.of(path, postcode_query(sample_address(address_api)))
    ex = refused_vs_control(address_api, control, Req.of(path), rule="no query kind given")
    problem.has_problem_code(ex, "paramsRequired")


@check("address.adressen.postcode_without_huisnummer_rejected", MUST, "postcode without huisnummer is refused with 400",
       requirements=["ADDR-4.adressen.postcode", "ADDR-7.400"],
       proven_by=["address.combination_not_enforced"],
       sends=["refused"],
       feature="GET /adressen")
def test_postcode_without_huisnummer_rejected(address_api) -> None:
    control = Req.of(ADRESSEN, postcode_query(sample_address(address_api)))
    refused_vs_control(address_api, control, control.without("huisnummer"),
                       rule="postcode without huisnummer is no complete query kind", names=("postcode", "huisnummer"))


@check("address.adressen.name_query_without_huisnummer_rejected", MUST,
       "woonplaatsNaam and openbareRuimteNaam without huisnummer are refused with 400",
       requirements=["ADDR-4.adressen", "ADDR-7.400"],
       proven_by=["address.name_query_without_number_accepted"],
       may_fail_under=["address.combination_not_enforced"],
       sends=["refused"],
       feature="GET /adressen")
def test_name_query_without_huisnummer_rejected(address_api) -> None:
    """Seed part 4, kind 3: "woonplaatsNaam + openbareRuimteNaam + huisnummer"; without the
    number it is no complete kind of query (seed part 7: 400 paramsRequired)."""
    control = Req.of(ADRESSEN, naam_query(sample_address(address_api)))
    refused_vs_control(address_api, control, control.without("huisnummer"),
                       rule="woonplaatsNaam and openbareRuimteNaam without huisnummer is no complete query kind",
                       names=("huisnummer",))


@check("address.adressen.postcode_without_huisnummer_code", OBSERVATION, "The code of the 400 for postcode without huisnummer (public: paramsCombination)",
       requirements=["ADDR-7", "BAGREF-4.11"],
       sends=["refused"],
       feature="GET /adressen")
def test_postcode_without_huisnummer_code(address_api, observe) -> None:
    control = control_served(address_api, Req.of(ADRESSEN, postcode_query(sample_address(address_api))))
    ex = Req.of(ADRESSEN, [("postcode", control.query[0][1])]).send(address_api)
    observe({"status": ex.status, "code": ex.json.get("code") if isinstance(ex.json, dict) else None})


# --------------------------------------------------------------------------- switches
@pytest.mark.parametrize("kind", ["postcode", "naam"])
@check("address.adressen.exacte_match", MUST, "exacteMatch=true returns only the address without other letter/addition; false also the variants",
       requirements=["ADDR-4.exacteMatch"],
       proven_by=["address.exacte_match_ignored"],
       may_fail_under=["address.query_filter_ignored", "address.name_query_ignores_street"],
       feature="GET /adressen")
def test_exacte_match(address_api, kind: str) -> None:
    address = sample_address(address_api)
    base = postcode_query(address) if kind == "postcode" else naam_query(address)
    criteria = {name: value for name, value in base}
    exact = search_all(address_api, [*base, ("exacteMatch", "true")])
    E.addresses_match(exact, **criteria)
    E.addresses_exact(exact)
    E.includes(E.address_ids(exact), E.address_id(address), "the sample address (exacteMatch=true)")
    loose = search_all(address_api, [*base, ("exacteMatch", "false")])
    E.addresses_match(loose, **criteria)
    E.has_variants(loose)
    E.includes(E.address_ids(loose), E.address_id(address), "the sample address (exacteMatch=false)")


def end_status_query(api) -> tuple[str, list[tuple[str, str]]]:
    """The end-status address and a query kind that selects it (postcode if it has one)."""
    address = g.sample_resource(api, "nummeraanduiding_eindstatus", params={"inclusiefEindStatus": "true"})
    return address.value, postcode_query(address) if address.get("postcode") else naam_query(address)


@check("address.adressen.inclusief_eind_status", MUST, "An address with an end status is left out by default and returned with inclusiefEindStatus=true",
       requirements=["ADDR-4.inclusiefEindStatus"],
       proven_by=["address.end_status_addresses_returned"],
       may_fail_under=["address.not_found_as_200", "address.end_status_flag_ignored", "address.nothing_found_as_404"],
       feature="GET /adressen")
def test_inclusief_eind_status(address_api) -> None:
    ended, query = end_status_query(address_api)
    for extra, present in (([], False), ([("inclusiefEindStatus", "false")], False),
                           ([("inclusiefEindStatus", "true")], True)):
        ids = E.address_ids(search_all(address_api, [*query, *extra]))
        check = E.includes if present else E.excludes
        check(ids, ended, f"the address with an end status ({extra or 'default'})")


# --------------------------------------------------------------------------- expand
EXPANDS = [*RELATIONS, "openbareRuimte,woonplaats", "true"]


@pytest.mark.parametrize("expand", EXPANDS)
@check("address.adressen.expand_embeds", MUST, "expand (nummeraanduiding, openbareRuimte, woonplaats, adresseerbaarObject, panden, true) embeds them",
       requirements=["ADDR-1.expand", "ADDR-2.expand", "ADDR-4.expand"],
       proven_by=["address.expand_ignored"],
       feature="GET /adressen")
def test_expand_embeds(address_api, expand: str) -> None:
    vbo, main, _, panden = vbo_relations(address_api)
    ex = address_api.get(ADRESSEN, [("adresseerbaarObjectIdentificatie", vbo), ("expand", expand)])
    found = E.items(ex, "adressen")
    E.includes(E.address_ids(found), main, "the main address of the verblijfsobject")
    for address in found:
        check_address_embeds(address, expand, expected_embeds(address, vbo, panden))


@pytest.mark.parametrize("kind", ["pandIdentificatie", "openbareRuimteIdentificatie"])
@check("address.adressen.expand_against_relation", OBSERVATION, "What expand does with pandIdentificatie or openbareRuimteIdentificatie (seed: not supported)",
       requirements=["ADDR-4.adressen.pandIdentificatie", "ADDR-4.adressen.openbareRuimteIdentificatie", "BAGREF-4.3"],
       feature="GET /adressen")
def test_expand_against_relation(address_api, observe, kind: str) -> None:
    value = vbo_relations(address_api)[3][0] if kind == "pandIdentificatie" else address_api.sample("openbareruimte")
    ex = address_api.get(ADRESSEN, [(kind, value), ("expand", "true")])
    found = hal.embedded(ex, "adressen") if ex.status == 200 else []
    code = ex.json.get("code") if isinstance(ex.json, dict) else None
    observe({"query": kind, "status": ex.status, "code": code,
             "embedded": any(isinstance(a, dict) and a.get("_embedded") for a in found)})


@pytest.mark.parametrize("expand", ["bestaatniet", "woonplaats,bestaatniet", "heeftAlsHoofdAdres"])
@check("address.adressen.expand_unknown_rejected", MUST, "An expand value that is no relation of an address is refused with 400 naming expand",
       requirements=["ADDR-4.expand", "ADDR-7.400"],
       proven_by=["address.unknown_expand_ignored"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adressen")
def test_expand_unknown_rejected(address_api, expand: str) -> None:
    control = _expand_control(address_api)
    rejected_vs_control(address_api, control, control.with_param("expand", expand), "expand", f"expand={expand}")


def _expand_control(address_api) -> Req:
    """The sample's postcode query with a known expand value: the control of the others."""
    return Req.of(ADRESSEN, [*postcode_query(sample_address(address_api)), ("expand", "woonplaats")])


@check("address.adressen.expand_empty_rejected", SHOULD, "An empty expand value on /adressen is refused with 400 naming expand",
       requirements=["ADDR-4.expand.empty", "BAGREF-4.3"],
       proven_by=["address.unknown_expand_ignored"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adressen")
def test_expand_empty_rejected(address_api) -> None:
    control = _expand_control(address_api)
    rejected_vs_control(address_api, control, control.with_param("expand", ""), "expand", "an empty expand")


# --------------------------------------------------------------------------- searches that find nothing
# A /adressen/zoek term no address can match: no postcode, place, street, number, letter or
# addition holds "qx" (the search matches parts of those, seed part 4 and bag-api.md 4.10).
NOTHING_TERM = "qxqxqxqx"
LETTERS = "zyxwvutsrqponmlkjihgfedcba"


def _nothing_found(api, path: str) -> tuple[Req, Req, str]:
    """(control that finds something, the same search changed so it surely finds nothing, the
    collection's name). On /adressen and /adressenuitgebreid: the sample's postcode and number
    with exacteMatch (the sample itself is the control's result), and a huisletter that none of
    that number's addresses has, asked for first: exactly that letter and no addition matches none."""
    address = sample_address(api)
    if path == ZOEK:
        control = Req.of(ZOEK, [("zoek", str(field(address, "postcode")))])
        return control, control.with_param("zoek", NOTHING_TERM), "zoekresultaten"
    query = postcode_query(address)
    letters = {str(a.get("huisletter") or "").lower() for a in search_all(api, query)}
    letter = next(c for c in LETTERS if c not in letters)
    control = Req.of(path, [*query, ("exacteMatch", "true")])
    return control, control.with_param("huisletter", letter), "adressen"


@pytest.mark.parametrize("path", [pytest.param(ADRESSEN, id="adressen"), pytest.param(UITGEBREID, id="adressenuitgebreid"),
                                  pytest.param(ZOEK, id="adressen-zoek")])
@check("address.searches.nothing_found_200", MUST, "A search of /adressen, /adressenuitgebreid or /adressen/zoek that finds nothing is answered 200 with an empty collection (the seed lists no 404 for them)",
       requirements=["ADDR-7", "ADDR-4.adressen", "ADDR-4.adressenuitgebreid", "ADDR-4.zoek", "BAGREF-4.1"],
       proven_by=["address.nothing_found_as_404"],
       feature="part 4, 7 / searches")
def test_nothing_found_200(address_api, path: str) -> None:
    """Seed part 7, "Statuses per endpoint": /adressen, /adressen/zoek and /adressenuitgebreid
    have no 404 (their 200 is a collection: a search that finds nothing finds an empty one);
    bag-api.md 4.1 and 4.10: an empty `_embedded` array or none, with the self link."""
    control, changed, name = _nothing_found(address_api, path)
    found = E.items(control_served(address_api, control), name)
    require(bool(found), f"the unchanged search of {path} finds something",
            f"{control.label} -> 200 with no results")
    ex = changed.send(address_api)
    expect(ex.status != 404, f"a search of {path} that finds nothing is answered 404 (seed part 7 lists no 404 "
           "for it)", expected="200 with an empty collection", actual=ex.summary())
    E.is_ok(ex, "a search that finds nothing")
    left = g.collection_items(ex)
    require(not left, f"a search of {path} that finds nothing", f"{ex.method} {ex.path} -> 200 with {len(left)} results")


# --------------------------------------------------------------------------- zoek and zoekresultaatIdentificatie
def zoek_results(api, term: str) -> list[dict[str, Any]]:
    return E.items(api.get(ZOEK, [("zoek", term), ("pageSize", "100")]), "zoekresultaten")


@check("address.adressen.zoekresultaat_resolves", MUST, "A zoekresultaatIdentificatie from /adressen/zoek resolves on /adressen to the address searched for",
       requirements=["ADDR-4.adressen.zoekresultaatIdentificatie", "ADDR-4.zoek"],
       proven_by=["address.zoek_results_not_resolvable"],
       may_fail_under=["address.zoek_results_without_identificatie"],
       feature="GET /adressen")
def test_zoekresultaat_resolves(address_api) -> None:
    address = sample_address(address_api)
    term = f"{field(address, 'postcode')} {field(address, 'huisnummer')}"
    ids = E.zoek_ids(zoek_results(address_api, term))
    E.non_empty(ids, f"/adressen/zoek finds the sample address (zoek={term!r})")
    resolved: list[str] = []
    for ident in ids[:10]:
        found = E.items(address_api.get(ADRESSEN, [("zoekresultaatIdentificatie", ident)]), "adressen")
        E.non_empty(found, f"zoekresultaatIdentificatie {ident} resolves to an address")
        resolved += E.address_ids(found)
    E.includes(resolved, E.address_id(address), "the sample address among the resolved search results")


@pytest.mark.parametrize("length", LENGTHS_255)
@check("address.adressen.zoekresultaat_length", MUST, "zoekresultaatIdentificatie of 255 characters is accepted; 256 and an empty one are refused with 400",
       requirements=["ADDR-4.adressen.zoekresultaatIdentificatie", "ADDR-8.length"],
       proven_by=["address.length_limits_not_enforced", "address.empty_text_accepted"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.zoek_results_not_resolvable", "address.nothing_found_as_404"],
       feature="GET /adressen")
def test_zoekresultaat_length(address_api, length: int) -> None:
    _length_case(address_api, ADRESSEN, "zoekresultaatIdentificatie", "x", length, 255)


@check("address.zoek.zoek_required", MUST, "GET /adressen/zoek without zoek is refused with 400",
       requirements=["ADDR-4.zoek"],
       proven_by=["address.required_params_not_enforced"],
       sends=["refused"],
       feature="GET /adressen/zoek")
def test_zoek_required(address_api) -> None:
    control = Req.of(ZOEK, [("zoek", str(field(sample_address(address_api), "postcode")))])
    refused_vs_control(address_api, control, control.without("zoek"), rule="zoek is required", names="zoek")


@pytest.mark.parametrize("length", [pytest.param(1), *LENGTHS_255])
@check("address.zoek.zoek_length", MUST, "zoek of 1 and 255 characters is accepted; 256 characters and an empty zoek are refused with 400",
       requirements=["ADDR-4.zoek", "ADDR-8.length"],
       proven_by=["address.length_limits_not_enforced", "address.empty_text_accepted"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name", "address.nothing_found_as_404"],
       feature="GET /adressen/zoek")
def test_zoek_length(address_api, length: int) -> None:
    _length_case(address_api, ZOEK, "zoek", "1", length, 255)


@check("address.zoek.results_identified", MUST, "Search results each carry an identificatie of 1 to 255 characters",
       requirements=["ADDR-4.zoek"],
       proven_by=["address.zoek_results_without_identificatie"],
       feature="GET /adressen/zoek")
def test_zoek_results_identified(address_api) -> None:
    postcode = str(field(sample_address(address_api), "postcode"))
    found = zoek_results(address_api, postcode)
    E.non_empty(found, f"/adressen/zoek finds the sample postcode {postcode}")
    E.zoek_ids(found)


@check("address.zoek.deprecation_signal", OBSERVATION, "The warning header of the deprecated /adressen/zoek (its content is not shown in the seed)",
       requirements=["ADDR-4.zoek", "ADDR-9.deprecation"],
       feature="GET /adressen/zoek")
def test_zoek_deprecation_signal(address_api, observe) -> None:
    postcode = str(field(sample_address(address_api), "postcode"))
    zoek = address_api.get(ZOEK, [("zoek", postcode)])
    other = address_api.get(ADRESSEN, postcode_query(sample_address(address_api)))
    observe({"status": zoek.status, "warning": zoek.response_headers.get_all("warning"),
             "warning_of_/adressen": other.response_headers.get_all("warning")})


# --------------------------------------------------------------------------- /adressen/{id}
@check("address.adres.by_id", MUST, "GET /adressen/{id} returns that address (200)",
       requirements=["ADDR-4.adressen.id"],
       proven_by=["address.identifiers_malformed"],
       feature="GET /adressen/{nummeraanduidingIdentificatie}")
def test_adres_by_id(address_api) -> None:
    fetch_address(address_api, address_api.sample("nummeraanduiding", verify=False))  # the lookup is the rule


@check("address.adres.unknown_not_found", MUST, "An unknown nummeraanduiding id is answered 404 notFound",
       requirements=["ADDR-4.adressen.id", "ADDR-7.404"],
       proven_by=["address.not_found_as_200"],
       may_fail_under=["address.wrong_error_code"],
       feature="GET /adressen/{nummeraanduidingIdentificatie}")
def test_adres_unknown_not_found(address_api) -> None:
    control = Req.of(f"{ADRESSEN}/{address_api.sample('nummeraanduiding')}")
    changed = control.with_path(f"{ADRESSEN}/{address_api.sample('unknown_nummeraanduiding')}")
    E.is_not_found(refused_vs_control(address_api, control, changed, rule="an unknown id", statuses=(404,)))


@pytest.mark.parametrize("case", ["15_digits", "letters"])
@check("address.adres.malformed_id_rejected", SHOULD, "A malformed nummeraanduiding id is refused with 400 naming the path parameter",
       requirements=["ADDR-4.adressen.id", "BAGREF-2.1"],
       proven_by=["address.path_id_pattern_not_enforced"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adressen/{nummeraanduidingIdentificatie}")
def test_adres_malformed_id_rejected(address_api, case: str) -> None:
    num = address_api.sample("nummeraanduiding")
    value = num[:-1] if case == "15_digits" else "a" * len(num)
    control = Req.of(f"{ADRESSEN}/{num}")
    rejected_vs_control(address_api, control, control.with_path(f"{ADRESSEN}/{value}"),
                        "nummeraanduidingIdentificatie", f"path id {value}")


@check("address.adres.inclusief_eind_status", MUST, "An address with an end status gives 404 by default and 200 with inclusiefEindStatus=true",
       requirements=["ADDR-4.inclusiefEindStatus", "ADDR-7.404"],
       proven_by=["address.end_status_addresses_returned", "address.end_status_flag_ignored"],
       may_fail_under=["address.not_found_as_200", "address.wrong_error_code", "address.identifiers_malformed"],
       feature="GET /adressen/{nummeraanduidingIdentificatie}")
def test_adres_inclusief_eind_status(address_api) -> None:
    ended = address_api.sample("nummeraanduiding_eindstatus", verify=False)  # its lookup is the rule
    E.is_not_found(address_api.get(f"{ADRESSEN}/{ended}"))
    E.is_not_found(address_api.get(f"{ADRESSEN}/{ended}", {"inclusiefEindStatus": "false"}))
    fetch_address(address_api, ended, inclusiefEindStatus="true")


@pytest.mark.parametrize("expand", EXPANDS)
@check("address.adres.expand_embeds", MUST, "expand on one address embeds the named relations",
       requirements=["ADDR-1.expand", "ADDR-2.expand", "ADDR-4.expand"],
       proven_by=["address.expand_ignored"],
       feature="GET /adressen/{nummeraanduidingIdentificatie}")
def test_adres_expand_embeds(address_api, expand: str) -> None:
    vbo, main, _, panden = vbo_relations(address_api)
    address = fetch_address(address_api, main, expand=expand)
    check_address_embeds(address, expand, expected_embeds(address, vbo, panden))


@pytest.mark.parametrize("expand", ["bestaatniet", "woonplaats,bestaatniet", "heeftAlsHoofdAdres"])
@check("address.adres.expand_unknown_rejected", MUST, "An expand value on one address that is no relation of an address is refused with 400 naming expand",
       requirements=["ADDR-4.adressen.id", "ADDR-4.expand", "ADDR-7.400"],
       proven_by=["address.adres_unknown_expand_ignored", "address.unknown_expand_ignored"],
       may_fail_under=["address.invalid_params_missing", "address.invalid_params_without_name"],
       sends=["refused"],
       feature="GET /adressen/{nummeraanduidingIdentificatie}")
def test_adres_expand_unknown_rejected(address_api, expand: str) -> None:
    """Seed part 4 gives the lookup "Query expand (values as for /adressen)": nummeraanduiding,
    openbareRuimte, woonplaats, adresseerbaarObject, panden, or true. Another value (an
    addressable object's relation included) is a faulty parameter, answered 400 (part 7 lists it
    for this endpoint)."""
    control = Req.of(f"{ADRESSEN}/{address_api.sample('nummeraanduiding')}", [("expand", "woonplaats")])
    rejected_vs_control(address_api, control, control.with_param("expand", expand), "expand", f"expand={expand}")


@check("address.adres.expand_field", MUST, "expand written resource.field (woonplaats.naam) is accepted and embeds that field of the resource",
       requirements=["ADDR-4.expand"],
       proven_by=["address.expand_field_rejected"],
       may_fail_under=["address.expand_ignored"],
       feature="GET /adressen/{nummeraanduidingIdentificatie}")
def test_adres_expand_field(address_api) -> None:
    # Seed part 4: "a field of a resource is written resource.field". The public service
    # embeds the whole resource (bag-api.md 4.3); either way the field must be there.
    main = vbo_relations(address_api)[1]
    plain = fetch_address(address_api, main)
    name = str(field(plain, "woonplaatsNaam"))
    address = fetch_address(address_api, main, expand="woonplaats.naam")
    E.embeds(E.address_embedded(address), "woonplaats", [name], E.address_id(address))
