"""HAL shapes of the address API's resources (bag-api.md 3.2 to 3.5, 4.2, 4.3).

The repository returns plain dicts in API field names; keys starting with "_" are internal
and never leave the mock. These functions add `_links` (absolute, under the base URL) and,
with expand, one level of `_embedded`: embedded resources carry their own links but are
never expanded further.
"""

from __future__ import annotations

from datetime import UTC, datetime
from json.encoder import encode_basestring
from typing import Any

from conformance.mocks.address.context import Context
from conformance.mocks.address.hal import TYPE_PATHS, Link, TimeTravel, encode_query
from conformance.mocks.address.problems import KnownJson, json_text

Data = dict[str, Any]


def public(data: Data) -> Data:
    """The data without internal keys."""
    return {k: v for k, v in data.items() if not k.startswith("_")}


class _Prepared:
    """What the answers about one address share, whoever asks: its public part and that
    part's JSON, its links less `self` (the base URL plus a path of the address), and the
    last base URL's links with their JSON."""

    __slots__ = ("data", "members", "text", "paths", "under")

    def __init__(self, data: Data) -> None:
        self.data = data
        self.members = public(data)
        self.text = json_text(self.members)[1:-1]  # between the braces
        self.paths = _address_paths(data)  # (relation, path or list of paths)
        self.under: tuple[str, Data, str] | None = None  # (base URL, its links, their JSON)

    def links_under(self, base: str) -> tuple[Data, str]:
        """The links less `self` under `base`, and their JSON between the braces."""
        under = self.under
        if under is None or under[0] != base:
            links = {
                rel: {"href": base + path} if isinstance(path, str) else [{"href": base + p} for p in path]
                for rel, path in self.paths
            }
            under = (base, links, json_text(links)[1:-1])
            self.under = under  # one tuple, replaced whole: threads see one base's or another's
        return under[1], under[2]


# id(address) -> what it prepares. The repository's dicts are built once and never change,
# so neither does any of this: it is made once per dict. An entry holds its dict, so no
# other object can take that id while the entry exists.
_PREPARED: dict[int, _Prepared] = {}
_PREPARED_LIMIT = 8192


def _prepared(data: Data) -> _Prepared:
    """What the answers about an address share (made on first use, then kept)."""
    entry = _PREPARED.get(id(data))
    if entry is None or entry.data is not data:
        entry = _Prepared(data)
        if len(_PREPARED) >= _PREPARED_LIMIT:
            _PREPARED.clear()
        _PREPARED[id(data)] = entry
    return entry


def _public_body(prepared: _Prepared) -> KnownJson:
    """public(data), its JSON known already (json_bytes then encodes only what is added)."""
    return KnownJson(prepared.members, prepared.text)


def _links(ctx: Context, prepared: _Prepared, self_link: Link) -> dict[str, Any]:
    """`self`, then the links of the address under the base URL, their JSON known already.
    The links are shared between answers, as the data is: they are never changed."""
    rest, rest_text = prepared.links_under(ctx.info.base_url)
    links = {"self": self_link, **rest}
    href = self_link.get("href") if type(self_link) is dict and len(self_link) == 1 else None
    if type(href) is str:  # what json_text(self_link) makes of {"href": ...}
        known = '"self":{"href":' + encode_basestring(href) + "}"
    else:
        known = '"self":' + json_text(self_link)
    if rest:
        known += "," + rest_text
    return KnownJson(links, known)


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


def _address_paths(address: Data) -> list[tuple[str, Any]]:
    """The relations of an address and their paths (its links less `self`)."""
    paths: list[tuple[str, Any]] = []
    num_id = address.get("nummeraanduidingIdentificatie")
    if num_id:
        paths.append(("nummeraanduiding", f"/nummeraanduidingen/{num_id}"))
    if address.get("openbareRuimteIdentificatie"):
        paths.append(("openbareRuimte", f"/openbareruimten/{address['openbareRuimteIdentificatie']}"))
    if address.get("woonplaatsIdentificatie"):
        paths.append(("woonplaats", f"/woonplaatsen/{address['woonplaatsIdentificatie']}"))
    object_id = address.get("adresseerbaarObjectIdentificatie")
    if object_id:
        kind = address.get("_adresseerbaarObjectType") or address.get("typeAdresseerbaarObject")
        paths.append(("adresseerbaarObject", _object_path(kind, object_id)))
    panden = _ids(address.get("pandIdentificaties"))
    if panden:
        paths.append(("panden", [f"/panden/{p}" for p in panden]))
    return paths


def address(ctx: Context, data: Data, expand: frozenset[str], self_link: Link | None = None) -> Data:
    """AdresIOHal: data, `_links`, and `_embedded` for the expanded relations."""
    prepared = _prepared(data)
    body = _public_body(prepared)
    if self_link is None:
        self_link = ctx.info.link(f"/adressen/{data.get('nummeraanduidingIdentificatie')}")
    body["_links"] = _links(ctx, prepared, self_link)
    embedded = _address_embedded(ctx, data, expand)
    if embedded:
        body["_embedded"] = embedded
    return body


def extended_address(ctx: Context, data: Data, self_link: Link | None = None) -> Data:
    """AdresUitgebreidHal: the links of an address, no `_embedded`."""
    prepared = _prepared(data)
    body = _public_body(prepared)
    if self_link is None:
        self_link = ctx.info.link(f"/adressenuitgebreid/{data.get('nummeraanduidingIdentificatie')}")
    body["_links"] = _links(ctx, prepared, self_link)
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
