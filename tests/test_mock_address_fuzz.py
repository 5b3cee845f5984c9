"""Fuzzing the address mock: no input, however malformed, may produce a 500.

The app is driven through raw ASGI scopes, so paths, query bytes (bad UTF-8, control
characters, huge values) and header values reach it exactly as generated, without an
HTTP client normalising them first. Every answer must be HAL or a problem document.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette

from conformance.mocks.address import data
from conformance.mocks.address import params as P
from conformance.mocks.address.app import create_app
from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
from conformance.mocks.faults import FaultSet

BASE = "/lvbag/individuelebevragingen/v2"
KEY = "fuzz-key"
W = data.WELL_KNOWN

ENDPOINTS = ["/adresseerbareobjecten", "/adresseerbareobjecten/{id}", "/adresseerbareobjecten/{id}/lvc", "/adressen",
             "/adressen/zoek", "/adressen/{id}", "/adressenuitgebreid", "/adressenuitgebreid/{id}", "/bronhouders"]  # fmt: skip
NAMES = ["page", "pageSize", "expand", "huidig", "geldigOp", "beschikbaarOp", "inclusiefEindStatus", "exacteMatch",
         "nummeraanduidingIdentificatie", "bbox", "geconstateerd", "oppervlakte[min]", "oppervlakte[max]",
         "gebruiksdoelen", "type", "pandIdentificaties", "zoekresultaatIdentificatie", "postcode", "huisnummer",
         "huisnummertoevoeging", "huisletter", "adresseerbaarObjectIdentificatie", "woonplaatsNaam",
         "openbareRuimteNaam", "pandIdentificatie", "openbareRuimteIdentificatie", "q", "zoek", "geheleLvc",
         "objectIdentificatie"]  # fmt: skip
VALUES = ["true", "false", "", "0", "1", "-1", "9" * 400, "1e999", "NaN", "2020-02-30", "2020-01-01T12:30",
          "2020-01-01T12:30:15.1234567", W["bbox"], "119700,480960,119400,480760", "1,2,3", "Kerkstraat 12",
          "heeftAlsHoofdAdres,true", "openbareRuimte.naam", "panden,", "overige gebruiksfunctie", "LIGPLAATS",
          "1181 va", "x" * 10_000, W["nummeraanduiding"], W["verblijfsobject"], W["pand"], W["openbareruimte"],
          "7101", "\x00", "😀", "%", "adr-00000000000000000000000000000000"]  # fmt: skip
IDS = [W["nummeraanduiding"], W["verblijfsobject"], W["ligplaats"], W["unknown_nummeraanduiding"], "0", "%FF", "%2F",
       "%00", "%0A", "x%0D%0Ay", "a" * 3000, ".", ""]  # fmt: skip

value_bytes = st.one_of(
    st.sampled_from(VALUES).map(lambda v: quote(v, safe=",:").encode()),
    st.text(max_size=40).map(lambda v: quote(v, safe="").encode()),
    st.binary(max_size=40).map(lambda b: b.replace(b"&", b"").replace(b"=", b"")),
    st.binary(max_size=20).map(lambda b: "".join(f"%{x:02X}" for x in b).encode()),
)
pair = st.tuples(st.sampled_from(NAMES).map(str.encode) | st.binary(max_size=10), st.one_of(st.none(), value_bytes))
query = st.lists(pair, max_size=6).map(
    lambda pairs: b"&".join(k if v is None else k + b"=" + v for k, v in pairs)
) | st.binary(max_size=60)

path = st.one_of(
    st.tuples(st.sampled_from(ENDPOINTS), st.sampled_from(IDS)).map(lambda t: BASE + t[0].replace("{id}", t[1])),
    st.tuples(st.sampled_from(ENDPOINTS), st.sampled_from(["", "/", "//", "/x"])).map(lambda t: BASE + t[0] + t[1]),
    st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="?#"), max_size=30).map(
        lambda p: "/" + p
    ),
)
header_value = st.sampled_from(
    ["application/hal+json", "application/json", "*/*", "application/hal+json;q=0", "application/*;q=nan",
     "epsg:28992", "epsg:4326", "", ",,,;;;", "text/html, */*;q=0.1"]
) | st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=40)  # fmt: skip
headers = st.fixed_dictionaries(
    {b"x-api-key": st.sampled_from([KEY] * 8 + ["", "wrong"])},
    optional={
        b"accept": header_value,
        b"accept-crs": header_value,
        b"content-crs": header_value,
        b"host": st.sampled_from(["testserver", "127.0.0.1:8000", "[::1]:1"]),
    },
)
method = st.sampled_from(["GET"] * 8 + ["POST", "HEAD", "DELETE", "BREW"])


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Starlette:
    db = data.ensure_database(tmp_path_factory.mktemp("address-fuzz") / "address.sqlite")
    keys = {KEY: KeyPolicy(rate_limit=10**9, day_limit=10**9)}
    return create_app(AddressMockConfig(db_path=Path(db), keys=keys), FaultSet())


def call(app: Starlette, verb: str, raw_path: str, query_string: bytes, sent: dict[bytes, str]) -> tuple[int, dict[str, str], bytes]:
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": verb, "scheme": "http",
        "path": unquote(raw_path), "raw_path": raw_path.encode("ascii"), "query_string": query_string,
        "root_path": "", "server": ("testserver", 80), "client": ("127.0.0.1", 5000),
        "headers": [(k, v.encode("latin-1")) for k, v in sent.items()],
    }  # fmt: skip
    messages: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    asyncio.run(app(scope, receive, send))
    start = next(m for m in messages if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    return start["status"], {k.decode("latin-1"): v.decode("latin-1") for k, v in start["headers"]}, body


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(verb=method, raw_path=path, query_string=query, sent=headers)
def test_no_input_produces_a_server_error(app: Starlette, verb: str, raw_path: str, query_string: bytes, sent: dict[bytes, str]) -> None:
    status, response_headers, body = call(app, verb, raw_path, query_string, sent)
    assert status != 500, (raw_path, query_string, body[:500])
    event(f"status {status}")
    media = response_headers.get("content-type")
    if verb == "HEAD":
        assert media == "application/problem+json" and status in (401, 404, 405, 429, 503)
    elif status == 200:
        assert media == "application/hal+json"
        assert "_links" in json.loads(body)
    else:
        assert media == "application/problem+json"
        problem = json.loads(body)
        assert problem["status"] == status and problem["code"]
        assert ("api-version" in response_headers) == (status != 429)


def _q(pairs: list[tuple[str, Any]]) -> bytes:
    return "&".join(f"{quote(k, safe='[]')}={quote(str(v), safe=',')}" for k, v in pairs if v is not None).encode()


free_text = st.text(max_size=30, alphabet=st.characters(blacklist_categories=("Cs",)))
rd_x, rd_y = st.floats(110_000, 130_000), st.floats(470_000, 490_000)
well_formed = st.one_of(
    st.tuples(st.just("/adressen"), st.builds(lambda t, p: _q([("q", t or "a"), ("page", p)]), free_text, st.integers(1, 3))),
    st.tuples(st.just("/adressen/zoek"), free_text.map(lambda t: _q([("zoek", t or "a")]))),
    st.tuples(
        st.sampled_from(["/adressen", "/adressenuitgebreid"]),
        st.builds(
            lambda w, o, n, letter, exact, expand: _q([("woonplaatsNaam", w or "a"), ("openbareRuimteNaam", o or "b"),
                                                      ("huisnummer", n), ("huisletter", letter), ("exacteMatch", exact),
                                                      ("expand", expand)]),  # fmt: skip
            st.sampled_from(["Amstelveer", "amstelveer", "'s-Heerenbroek"]) | free_text,
            st.sampled_from(["Kerkstraat", "KERKSTRAAT"]) | free_text, st.integers(1, 99999),
            st.none() | st.sampled_from(["a", "B"]), st.none() | st.sampled_from(["true", "false"]),
            st.none() | st.sampled_from(["true", "panden,woonplaats", "adresseerbaarObject"]),
        ),
    ),
    st.tuples(
        st.just("/adresseerbareobjecten"),
        st.builds(
            lambda x, y, w, h, kind, low, doel, day, expand: _q([
                ("bbox", f"{x},{y},{x + w},{y + h}"), ("type", kind), ("oppervlakte[min]", low),
                ("gebruiksdoelen", doel), ("geldigOp", day), ("expand", expand), ("pageSize", 10)]),  # fmt: skip
            rd_x, rd_y, st.floats(0, 500), st.floats(0, 500),
            st.none() | st.sampled_from(["ligplaats", "Standplaats", "verblijfsobject"]),
            st.none() | st.integers(1, 999_999), st.none() | st.sampled_from(P.GEBRUIKSDOELEN),
            st.none() | st.dates().map(str), st.none() | st.sampled_from(["true", "maaktDeelUitVan"]),
        ),
    ),
    st.tuples(
        st.sampled_from([f"/adresseerbareobjecten/{W[k]}" for k in ("verblijfsobject", "ligplaats", "adresseerbaarobject_historie")]),
        st.builds(lambda day, moment, expand: _q([("geldigOp", day), ("beschikbaarOp", moment), ("expand", expand)]),
                  st.none() | st.dates().map(str),
                  st.none() | st.datetimes().map(lambda d: d.isoformat(timespec="milliseconds")),
                  st.none() | st.just("true")),  # fmt: skip
    ),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(request=well_formed)
def test_well_formed_requests_are_answered(app: Starlette, request: tuple[str, bytes]) -> None:
    endpoint, query_string = request
    status, response_headers, body = call(app, "GET", BASE + endpoint, query_string, {b"x-api-key": KEY})
    event(f"status {status}")
    assert status in (200, 400, 404), (endpoint, query_string, body[:500])
    document = json.loads(body)
    assert ("_links" in document) == (status == 200)


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=200))
def test_query_parsing_is_total(raw: bytes) -> None:
    for param in P.parse_query(raw):
        assert isinstance(param.name, str)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60) | st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?", fullmatch=True))
def test_value_converters_are_total(text: str) -> None:
    P.parse_int(text)
    P.parse_number(text)
    P.parse_date(text)
    moment = P.parse_timestamp(text)
    if moment is not None:
        assert moment.microsecond % 1000 == 0  # fractions cut to milliseconds
