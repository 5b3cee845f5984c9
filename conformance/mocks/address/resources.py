"""HAL shapes of the address API's resources (bag-api.md 3.2 to 3.5, 4.2, 4.3).

The repository returns plain dicts in API field names; keys starting with "_" are internal
and never leave the mock. These functions add `_links` (absolute, under the base URL) and,
with expand, one level of `_embedded`: embedded resources carry their own links but are
never expanded further.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from conformance.mocks.address.context import Context
from conformance.mocks.address.hal import TYPE_PATHS, Link, TimeTravel, encode_query

Data = dict[str, Any]


def public(data: Data) -> Data:
    """The data without internal keys."""
    return {k: v for k, v in data.items() if not k.startswith("_")}


def _ids(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


# --- addresses (3.2, 3.3) -------------------------------------------------------------
ADDRESS_EXPAND = {
    "nummeraanduiding": "nummeraanduiding",
    "openbareruimte": "openbareRuimte",
    "woonplaats": "woonplaats",
    "adresseerbaarobject": "adresseerbaarObject",
    "panden": "panden",
}


def _object_path(kind: Any, identificatie: str) -> str:
    segment = TYPE_PATHS.get(str(kind).capitalize(), "adresseerbareobjecten")
    return f"/{segment}/{identificatie}"


def _address_links(ctx: Context, address: Data, self_path: str) -> dict[str, Any]:
    info = ctx.info
    links: dict[str, Any] = {"self": info.link(self_path)}
    num_id = address.get("nummeraanduidingIdentificatie")
    if num_id:
        links["nummeraanduiding"] = info.link(f"/nummeraanduidingen/{num_id}")
    if address.get("openbareRuimteIdentificatie"):
        links["openbareRuimte"] = info.link(f"/openbareruimten/{address['openbareRuimteIdentificatie']}")
    if address.get("woonplaatsIdentificatie"):
        links["woonplaats"] = info.link(f"/woonplaatsen/{address['woonplaatsIdentificatie']}")
    object_id = address.get("adresseerbaarObjectIdentificatie")
    if object_id:
        kind = address.get("_adresseerbaarObjectType") or address.get("typeAdresseerbaarObject")
        links["adresseerbaarObject"] = info.link(_object_path(kind, object_id))
    panden = _ids(address.get("pandIdentificaties"))
    if panden:
        links["panden"] = [info.link(f"/panden/{p}") for p in panden]
    return links


def address(ctx: Context, data: Data, expand: frozenset[str], self_link: Link | None = None) -> Data:
    """AdresIOHal: data, `_links`, and `_embedded` for the expanded relations."""
    body = public(data)
    body["_links"] = _address_links(ctx, data, f"/adressen/{data.get('nummeraanduidingIdentificatie')}")
    if self_link is not None:
        body["_links"]["self"] = self_link
    embedded = _address_embedded(ctx, data, expand)
    if embedded:
        body["_embedded"] = embedded
    return body


def extended_address(ctx: Context, data: Data, self_link: Link | None = None) -> Data:
    """AdresUitgebreidHal: the links of an address, no `_embedded`."""
    body = public(data)
    num_id = data.get("nummeraanduidingIdentificatie")
    body["_links"] = _address_links(ctx, data, f"/adressenuitgebreid/{num_id}")
    if self_link is not None:
        body["_links"]["self"] = self_link
    return body


def _address_embedded(ctx: Context, data: Data, expand: frozenset[str]) -> Data:
    repo = ctx.repo
    embedded: Data = {}
    if "nummeraanduiding" in expand and data.get("nummeraanduidingIdentificatie"):
        found = repo.get_nummeraanduiding(data["nummeraanduidingIdentificatie"])
        if found:
            embedded["nummeraanduiding"] = nummeraanduiding(ctx, found)
    if "openbareRuimte" in expand and data.get("openbareRuimteIdentificatie"):
        found = repo.get_openbare_ruimte(data["openbareRuimteIdentificatie"])
        if found:
            embedded["openbareRuimte"] = openbare_ruimte(ctx, found)
    if "woonplaats" in expand and data.get("woonplaatsIdentificatie"):
        found = repo.get_woonplaats(data["woonplaatsIdentificatie"])
        if found:
            embedded["woonplaats"] = woonplaats(ctx, found)
    if "adresseerbaarObject" in expand and data.get("adresseerbaarObjectIdentificatie"):
        object_id = data["adresseerbaarObjectIdentificatie"]
        found = repo.get_adresseerbaar_object(object_id)
        if found:
            outer = ctx.info.link(f"/adresseerbareobjecten/{object_id}")
            embedded["adresseerbaarObject"] = adresseerbaar_object(
                ctx, found, frozenset(), outer, TimeTravel()
            )
    if "panden" in expand:
        panden = [repo.get_pand(p) for p in _ids(data.get("pandIdentificaties"))]
        if any(panden):
            embedded["panden"] = [pand(ctx, p) for p in panden if p]
    return embedded


# --- the resources addresses and objects refer to -------------------------------------------
def nummeraanduiding(ctx: Context, data: Data, query: str = "") -> Data:
    info = ctx.info
    links: dict[str, Any] = {"self": info.link(f"/nummeraanduidingen/{data.get('identificatie')}", query)}
    for rel in ("ligtAan", "openbareRuimteIdentificatie"):
        if isinstance(data.get(rel), str):
            links["ligtAan"] = info.link(f"/openbareruimten/{data[rel]}", query)
            break
    for rel in ("ligtIn", "woonplaatsIdentificatie"):
        if isinstance(data.get(rel), str):
            links["ligtIn"] = info.link(f"/woonplaatsen/{data[rel]}", query)
            break
    return {"nummeraanduiding": public(data), "_links": links}


def openbare_ruimte(ctx: Context, data: Data) -> Data:
    info = ctx.info
    links: dict[str, Any] = {"self": info.link(f"/openbareruimten/{data.get('identificatie')}")}
    for rel in ("ligtIn", "woonplaatsIdentificatie"):
        if isinstance(data.get(rel), str):
            links["ligtIn"] = info.link(f"/woonplaatsen/{data[rel]}")
            break
    return {"openbareRuimte": public(data), "_links": links}


def woonplaats(ctx: Context, data: Data) -> Data:
    return {
        "woonplaats": public(data),
        "_links": {"self": ctx.info.link(f"/woonplaatsen/{data.get('identificatie')}")},
    }


def pand(ctx: Context, data: Data, query: str = "") -> Data:
    return {
        "pand": public(data),
        "_links": {"self": ctx.info.link(f"/panden/{data.get('identificatie')}", query)},
    }


# --- addressable objects (3.4) -----------------------------------------------------------
OBJECT_EXPAND = {
    "heeftalshoofdadres": "heeftAlsHoofdAdres",
    "heeftalsnevenadres": "heeftAlsNevenAdres",
    "maaktdeeluitvan": "maaktDeelUitVan",
}


def _split(data: Data) -> tuple[str, Data, Any]:
    """(wrapper key, public data, inonderzoek): the 3.4 wrapper holds `inonderzoek`
    next to the data, not inside it."""
    kind = str(data.get("type") or "Verblijfsobject")
    body = public(data)
    inonderzoek = body.pop("inonderzoek", None) if isinstance(body.get("inonderzoek"), list) else None
    return kind.lower(), body, inonderzoek


def adresseerbaar_object(
    ctx: Context, data: Data, expand: frozenset[str], outer_self: Link, time_travel: TimeTravel
) -> Data:
    """AdresseerbaarObjectIOHal: `{<type>: {<type>: data, inonderzoek?, _links, _embedded?}, _links}`."""
    info = ctx.info
    key, body, inonderzoek = _split(data)
    related = time_travel.related_query(info.moment)
    links: dict[str, Any] = {
        "self": info.link(_object_path(key, body.get("identificatie", "")), time_travel.self_query())
    }
    _relation_links(data, links, lambda path: info.link(path, related))
    inner: Data = {key: body}
    if inonderzoek:
        inner["inonderzoek"] = inonderzoek
    inner["_links"] = links
    embedded = _object_embedded(ctx, data, expand, related)
    if embedded:
        inner["_embedded"] = embedded
    return {key: inner, "_links": {"self": outer_self}}


def _relation_links(data: Data, links: dict[str, Any], make: Any, suffix: str = "") -> None:
    hoofd = _ids(data.get("heeftAlsHoofdAdres"))
    if hoofd:
        links["heeftAlsHoofdAdres"] = make(f"/nummeraanduidingen/{hoofd[0]}{suffix}")
    neven = _ids(data.get("heeftAlsNevenAdres"))
    if neven:
        links["heeftAlsNevenAdres"] = [make(f"/nummeraanduidingen/{n}{suffix}") for n in neven]
    panden = _ids(data.get("maaktDeelUitVan"))
    if panden:
        links["maaktDeelUitVan"] = [make(f"/panden/{p}{suffix}") for p in panden]


def _object_embedded(ctx: Context, data: Data, expand: frozenset[str], query: str) -> Data:
    repo = ctx.repo
    embedded: Data = {}
    if "heeftAlsHoofdAdres" in expand:
        found = [repo.get_nummeraanduiding(n) for n in _ids(data.get("heeftAlsHoofdAdres"))]
        if found and found[0]:
            embedded["heeftAlsHoofdAdres"] = nummeraanduiding(ctx, found[0], query)
    if "heeftAlsNevenAdres" in expand:
        found = [repo.get_nummeraanduiding(n) for n in _ids(data.get("heeftAlsNevenAdres"))]
        if any(found):
            embedded["heeftAlsNevenAdres"] = [nummeraanduiding(ctx, n, query) for n in found if n]
    if "maaktDeelUitVan" in expand:
        found = [repo.get_pand(p) for p in _ids(data.get("maaktDeelUitVan"))]
        if any(found):
            embedded["maaktDeelUitVan"] = [pand(ctx, p, query) for p in found if p]
    return embedded


def voorkomen(ctx: Context, data: Data) -> Data:
    """One occurrence of a life cycle (3.4): self is /{type}/{id}/{versie}/{epoch ms of
    tijdstipRegistratieLV}; related links point to the related life cycles."""
    info = ctx.info
    key, body, inonderzoek = _split(data)
    occurrence = body.get("voorkomen") if isinstance(body.get("voorkomen"), dict) else {}
    versie = occurrence.get("versie", 1)
    stamp = _epoch_ms(occurrence.get("tijdstipRegistratieLV") or occurrence.get("tijdstipRegistratie"))
    self_link = info.link(f"{_object_path(key, body.get('identificatie', ''))}/{versie}/{stamp}")
    links: dict[str, Any] = {"self": self_link}
    _relation_links(data, links, info.link, suffix="/lvc")
    inner: Data = {key: body}
    if inonderzoek:
        inner["inonderzoek"] = inonderzoek
    inner["_links"] = links
    return {key: inner, "_links": {"self": self_link}}


def _epoch_ms(value: Any) -> int:
    if not isinstance(value, str):
        return 0
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


# --- search results and source holders (3.5) ---------------------------------------------------
def zoekresultaat(ctx: Context, data: Data) -> Data:
    link = ctx.info.link(
        "/adressen", encode_query([("zoekresultaatIdentificatie", str(data.get("identificatie")))])
    )
    return {
        "omschrijving": data.get("omschrijving"),
        "identificatie": data.get("identificatie"),
        "_links": {"adres": link},
    }


def bronhouder(ctx: Context, data: Data, object_id: str) -> Data:
    link = ctx.info.link("/bronhouders", encode_query([("objectIdentificatie", object_id)]))
    return {"bronhouder": public(data), "_links": {"self": link}}
