"""Tests of the address mock's HTTP layer (conformance/mocks/address/app.py and friends).

In-process with Starlette's TestClient over a database built by data.ensure_database.
Each rule of seed part 4 is tested on both sides of its boundary; each fault is shown to
change what it names (off: conforming, on: not).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():  # starlette suggests httpx2; httpx is what the project uses
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

from conformance.mocks.address import data
from conformance.mocks.address.app import accept_ok, create_app
from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
from conformance.mocks.faults import FaultSet, catalogue

BASE = "/lvbag/individuelebevragingen/v2"
ORIGIN = "http://testserver"
KEY, RESTRICTED, LIMITED, QUOTA = "key-valid", "key-restricted", "key-limited", "key-quota"
W = data.WELL_KNOWN
E = data.EDGE_CASES
NA, VBO, PAND = W["nummeraanduiding"], W["verblijfsobject"], W["pand"]
PROBLEM_MEMBERS = {"type", "title", "status", "detail", "instance", "code"}
RATE_HEADERS = (
    "Registry-RateLimit-DayLimit", "Registry-RateLimit-DayLimit-Remaining", "Registry-RateLimit-DayLimit-Reset",
    "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
)  # fmt: skip


class Clock:
    def __init__(self, start: datetime = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def _keys() -> dict[str, KeyPolicy]:
    return {
        KEY: KeyPolicy(),
        RESTRICTED: KeyPolicy(forbidden_prefixes=("/adressenuitgebreid",)),
        LIMITED: KeyPolicy(rate_limit=2, rate_window_s=10),
        QUOTA: KeyPolicy(day_limit=3),
    }


@pytest.fixture(scope="session")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return data.ensure_database(tmp_path_factory.mktemp("address-db") / "address.sqlite")


Factory = Callable[..., TestClient]


@pytest.fixture(scope="session")
def make(db_path: Path) -> Factory:
    def build(*faults: str, maintenance: bool = False, clock: Clock | None = None) -> TestClient:
        config = AddressMockConfig(db_path=db_path, keys=_keys(), maintenance=maintenance, clock=clock or Clock())
        return TestClient(create_app(config, FaultSet(frozenset(faults))))

    return build


@pytest.fixture(scope="session")
def client(make: Factory) -> TestClient:
    return make()


def get(c: TestClient, path: str, *, key: str | None = KEY, **headers: str) -> httpx.Response:
    sent = {k.replace("_", "-"): v for k, v in headers.items()}
    if key is not None:
        sent["X-Api-Key"] = key
    return c.get(BASE + path, headers=sent)


def problem(r: httpx.Response, status: int, code: str, invalid: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert body.keys() >= PROBLEM_MEMBERS
    assert (body["status"], body["code"]) == (status, code)
    if invalid is not None:
        assert [(p["name"], p["code"]) for p in body["invalid-params"]] == invalid
    return body


def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/hal+json"
    return r.json()


def items(body: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return body["_embedded"][name]


# ------------------------------------------------------------------ auth, maintenance, limits


def test_missing_and_unknown_keys_get_401(client: TestClient) -> None:
    for key in (None, "nope"):
        r = get(client, f"/adressen/{NA}", key=key)
        problem(r, 401, "authentication")
        assert r.headers["api-version"] == "2.9.2"
        assert "RateLimit-Limit" not in r.headers


def test_restricted_key_gets_403_on_forbidden_prefix_only(client: TestClient) -> None:
    problem(get(client, f"/adressenuitgebreid/{NA}", key=RESTRICTED), 403, "autorisation")
    problem(get(client, "/adressenuitgebreid?q=Kerkstraat", key=RESTRICTED), 403, "autorisation")
    ok(get(client, f"/adressen/{NA}", key=RESTRICTED))  # whole segments: /adressen is not /adressenuitgebreid


def test_maintenance_answers_503_with_retry_after_after_authentication(make: Factory) -> None:
    clock = Clock()
    c = make(maintenance=True, clock=clock)
    r = get(c, f"/adressen/{NA}")
    problem(r, 503, "notAvailable")
    assert parsedate_to_datetime(r.headers["Retry-After"]) == clock.now + timedelta(seconds=600)
    assert r.headers["api-version"] == "2.9.2"
    problem(get(c, f"/adressen/{NA}", key=None), 401, "authentication")


def test_rate_limit_window(make: Factory) -> None:
    clock = Clock(datetime(2024, 5, 1, 12, 0, 3, tzinfo=UTC))
    c = make(clock=clock)
    get(c, f"/adressen/{NA}", key=None)  # unauthenticated requests are not counted
    first = get(c, f"/adressen/{NA}", key=LIMITED)
    assert (first.headers["RateLimit-Limit"], first.headers["RateLimit-Remaining"]) == ("2", "1")
    assert first.headers["RateLimit-Reset"] == "7"  # window 12:00:00-12:00:10
    get(c, "/adressen/1951209999999999", key=LIMITED)  # a 404 counts too
    r = get(c, f"/adressen/{NA}", key=LIMITED)
    body = problem(r, 429, "tooManyRequests")
    assert "api-version" not in r.headers
    assert all(h in r.headers for h in RATE_HEADERS)
    assert r.headers["RateLimit-Remaining"] == "0"
    assert body["retryAfter"] == 7
    clock.advance(seconds=7)
    assert get(c, f"/adressen/{NA}", key=LIMITED).status_code == 200
    ok(get(c, f"/adressen/{NA}", key=KEY))  # limits are per key


def test_daily_quota_resets_at_utc_midnight(make: Factory) -> None:
    clock = Clock(datetime(2024, 5, 1, 23, 0, 0, tzinfo=UTC))
    c = make(clock=clock)
    remaining = [get(c, f"/adressen/{NA}", key=QUOTA).headers["Registry-RateLimit-DayLimit-Remaining"] for _ in range(3)]
    assert remaining == ["2", "1", "0"]
    r = get(c, f"/adressen/{NA}", key=QUOTA)
    problem(r, 429, "tooManyRequests")
    assert r.headers["Registry-RateLimit-DayLimit-Remaining"] == "0"
    assert r.headers["Registry-RateLimit-DayLimit-Reset"] == "3600"
    clock.advance(hours=1)
    r = ok_response = get(c, f"/adressen/{NA}", key=QUOTA)
    assert ok_response.status_code == 200 and r.headers["Registry-RateLimit-DayLimit"] == "3"


# ------------------------------------------------------------------ routing and negotiation


@pytest.mark.parametrize(
    "path", ["/adressen/", f"/adressen/{NA}/", "", "/", "/onbekend", f"/adresseerbareobjecten/{VBO}/lvc/", "/../adressen"]
)
def test_unknown_paths_and_trailing_slashes_are_404(client: TestClient, path: str) -> None:
    problem(get(client, path), 404, "notFound")


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_other_methods_get_405(client: TestClient, method: str) -> None:
    r = client.request(method, f"{BASE}/adressen/{NA}", headers={"X-Api-Key": KEY})
    problem(r, 405, "methodNotAllowed")
    assert r.headers["Allow"] == "GET"
    assert r.headers["api-version"] == "2.9.2"


@pytest.mark.parametrize(
    "accept, served",
    [
        ("application/hal+json", True), ("*/*", True), ("application/*", True), ("application/problem+json", True),
        ("text/html, application/hal+json;q=0.5", True), ("application/json", False), ("application/xml", False),
        ("application/hal+json;q=0", False), ("text/html", False),
    ],
)  # fmt: skip
def test_accept_negotiation(client: TestClient, accept: str, served: bool) -> None:
    r = get(client, f"/adressen/{NA}", accept=accept)
    if served:
        ok(r)
    else:
        problem(r, 406, "notAcceptable")
        assert r.headers["acceptCrs"] == "epsg:28992"
    ok(get(client, "/adressen/zoek?zoek=Kerkstraat", accept=accept))  # no 406 listed for /adressen/zoek


def test_missing_accept_is_served(client: TestClient) -> None:
    assert accept_ok(None) and accept_ok("")
    ok(get(client, f"/adressen/{NA}"))


def test_accept_crs(client: TestClient) -> None:
    ok(get(client, f"/adresseerbareobjecten/{VBO}", accept_crs="epsg:28992"))
    for path in (f"/adresseerbareobjecten/{VBO}", f"/adresseerbareobjecten/{VBO}/lvc", f"/adressenuitgebreid/{NA}"):
        r = get(client, path, accept_crs="epsg:4326")
        problem(r, 406, "crsNotAcceptable")
        assert r.headers["acceptCrs"] == "epsg:28992"
    ok(get(client, f"/adressen/{NA}", accept_crs="epsg:4326"))  # /adressen takes no Accept-Crs


def test_content_crs(client: TestClient) -> None:
    path = f"/adresseerbareobjecten?bbox={W['bbox']}"
    r = get(client, path, content_crs="epsg:28992")
    ok(r)
    assert r.headers["Content-Crs"] == "epsg:28992"
    problem(get(client, path, content_crs="epsg:4326"), 415, "crsNotSupported")


# ------------------------------------------------------------------ headers and bodies


PAGED = ["/adresseerbareobjecten?bbox=" + W["bbox"], f"/adressen?pandIdentificatie={PAND}", "/adressen/zoek?zoek=Kerkstraat",
         f"/adressen/{NA}", "/adressenuitgebreid?q=Kerkstraat"]  # fmt: skip
UNPAGED = [f"/adresseerbareobjecten/{VBO}", f"/adresseerbareobjecten/{VBO}/lvc", f"/adressenuitgebreid/{NA}",
           "/bronhouders?objectIdentificatie=7101"]  # fmt: skip


@pytest.mark.parametrize("path", PAGED + UNPAGED)
def test_success_headers(client: TestClient, path: str) -> None:
    r = get(client, path)
    ok(r)
    assert r.headers["api-version"] == "2.9.2"
    # RFC 7234 5.5: warn-code, warn-agent (the versioned base URL), quoted warn-text.
    assert re.fullmatch(r'299 http://testserver/lvbag/individuelebevragingen/v2 "[^"]+"', r.headers["warning"])
    assert all(h in r.headers for h in RATE_HEADERS)
    assert ("X-Pagination-Page" in r.headers) == (path in PAGED)
    assert ("X-Pagination-Limit" in r.headers) == (path in PAGED)
    assert ("Content-Crs" in r.headers) == path.startswith("/adresseerbareobjecten?")
    assert ("deprecated" in r.headers["warning"]) == path.startswith("/adressen/zoek")


def test_problem_instance_is_path_and_query_as_sent(client: TestClient) -> None:
    r = client.get(f"{BASE}/adressen?postcode=1234aa&huisnummer=a&x=%20y", headers={"X-Api-Key": KEY})
    body = problem(r, 400, "paramsValidation", [("huisnummer", "integer")])
    assert body["instance"] == f"{BASE}/adressen?postcode=1234aa&huisnummer=a&x=%20y"
    assert body["title"] == "Een of meerdere parameters zijn niet correct."
    item = body["invalid-params"][0]
    assert item["reason"] == "Waarde is geen geldige integer." and item["type"].startswith("https://")


# ------------------------------------------------------------------ parameter rules


def _pand(extra: str) -> str:
    return f"/adressen?pandIdentificatie={PAND}&{extra}"


def _bbox(extra: str = "", box: str = W["bbox"]) -> str:
    return f"/adresseerbareobjecten?bbox={box}" + (f"&{extra}" if extra else "")


def _pc(extra: str) -> str:
    return f"/adressen?postcode=1181VA&{extra}"


VALIDATION = [
    # (path, expected invalid-params or None for 200)
    (_pand("page=0"), [("page", "minimum")]), (_pand("page=1"), None), (_pand("page=a"), [("page", "integer")]),
    (_pand("pageSize=9"), [("pageSize", "minimum")]), (_pand("pageSize=10"), None),
    (_pand("pageSize=100"), None), (_pand("pageSize=101"), [("pageSize", "maximum")]),
    (_pc("huisnummer=0"), [("huisnummer", "minimum")]), (_pc("huisnummer=1"), None),
    (_pc("huisnummer=99999"), None), (_pc("huisnummer=100000"), [("huisnummer", "maximum")]),
    (_pc("huisnummer=" + "9" * 5000), [("huisnummer", "maximum")]), (_pc("huisnummer=1.5"), [("huisnummer", "integer")]),
    ("/adressen?postcode=1181%20va&huisnummer=12", None), ("/adressen?postcode=0181VA&huisnummer=1", [("postcode", "pattern")]),
    ("/adressen?postcode=1181%20%20VA&huisnummer=1", [("postcode", "pattern")]),
    ("/adressen?postcode=1181VA%0A&huisnummer=1", [("postcode", "pattern")]),
    (_pc("huisnummer=12&huisletter=a"), None), (_pc("huisnummer=12&huisletter=AA"), [("huisletter", "pattern")]),
    (_pc("huisnummer=12&huisnummertoevoeging=1ab4"), None),
    (_pc("huisnummer=12&huisnummertoevoeging=tegenover"), [("huisnummertoevoeging", "maxLength")]),
    (_pc("huisnummer=12&huisnummertoevoeging=1-"), [("huisnummertoevoeging", "pattern")]),
    ("/adressen?huisnummer=999999&huisletter=AA&postcode=1234AA", [("huisnummer", "maximum"), ("huisletter", "pattern")]),
    ("/adressen?postcode=1234AA&huisnummer=a&huisletter=3", [("huisnummer", "integer")]),
    ("/adresseerbareobjecten?nummeraanduidingIdentificatie=" + NA + "&geldigOp=23-04-2019&beschikbaarOp=23-04-2019T00:00:00",
     [("geldigOp", "date")]),
    (f"/adressen?woonplaatsNaam={'a' * 80}&openbareRuimteNaam=x&huisnummer=1", None),
    (f"/adressen?woonplaatsNaam={'a' * 81}&openbareRuimteNaam={'b' * 81}&huisnummer=1",
     [("woonplaatsNaam", "maxLength"), ("openbareRuimteNaam", "maxLength")]),
    (f"/adressen?q={'a' * 255}", None), (f"/adressen?q={'a' * 256}", [("q", "maxLength")]),
    (f"/adressen?q={'a' * 10000}", [("q", "maxLength")]), ("/adressen?q=a%00b", [("q", "notAllowedCharacter")]),
    ("/adressen?q=%FF%FE", [("q", "notAllowedCharacter")]),
    (f"/adressen/zoek?zoek={'a' * 255}", None), (f"/adressen/zoek?zoek={'a' * 256}", [("zoek", "maxLength")]),
    (f"/adressen?zoekresultaatIdentificatie={'a' * 255}", None),
    (f"/adressen?zoekresultaatIdentificatie={'a' * 256}", [("zoekresultaatIdentificatie", "maxLength")]),
    (_bbox(box="119400,480760,119900,481260"), None),  # exactly 250000 m2
    (_bbox(box="119400,480760,119900,481260.01"), [("bbox", "surfaceMaximum")]),
    (_bbox(box="134647,457842,137512,455907"), [("bbox", "surfaceMaximum")]),
    (_bbox(box="119700,480960,119400,480760"), None),  # corners in any order
    (_bbox(box="119400,480760,119700"), [("bbox", "minItems")]),
    (_bbox(box="119400,480760,119700,480960,1"), [("bbox", "maxItems")]),
    (_bbox(box="119400,480760,119700,NaN"), [("bbox", "number")]), (_bbox(box="a,b,c,d"), [("bbox", "number")]),
    (_bbox(box="1e999,480760,119700,480960"), [("bbox", "number")]),
    (_bbox(box="52.10540,5.09861,52.10500,5.09887"), [("bbox", "geometryMismatch")]),
    (_bbox("oppervlakte%5Bmin%5D=1&oppervlakte%5Bmax%5D=999999"), None),
    (_bbox("oppervlakte[min]=0"), [("oppervlakte[min]", "minimum")]),
    (_bbox("oppervlakte[max]=1000000"), [("oppervlakte[max]", "maximum")]),
    (_bbox("oppervlakte[min]=50&oppervlakte[max]=50"), None),
    (_bbox("oppervlakte[min]=200&oppervlakte[max]=100"), [("oppervlakte", "range")]),
    (_bbox("gebruiksdoelen=woonfunctie,overige%20gebruiksfunctie"), None),
    (_bbox("gebruiksdoelen=overige+gebruiksfunctie"), None),
    (_bbox("gebruiksdoelen=woonfunctie,bad"), [("gebruiksdoelen", "enum")]),
    (_bbox("type=Ligplaats"), None), (_bbox("type=STANDPLAATS"), None), (_bbox("type=verblijfsobject"), None),
    (_bbox("type=fout"), [("type", "enum")]),
    (_bbox("geconstateerd=false"), None), (_bbox("geconstateerd=Nee"), [("geconstateerd", "boolean")]),
    (_bbox("huidig=True"), [("huidig", "boolean")]), (_bbox("huidig=1"), [("huidig", "boolean")]),
    (_bbox("geldigOp=2020-02-29"), None), (_bbox("geldigOp=1983-05-00"), [("geldigOp", "date")]),
    (_bbox("geldigOp=2020-1-01"), [("geldigOp", "date")]),
    (_bbox("beschikbaarOp=2020-01-01T12:30"), None), (_bbox("beschikbaarOp=2020-01-01T12:30:15"), None),
    (_bbox("beschikbaarOp=2020-01-01T12:30:15.123456"), None),
    (_bbox("beschikbaarOp=2020-01-01T12:30.123"), [("beschikbaarOp", "timestamp")]),
    (_bbox("beschikbaarOp=2020-01-01"), [("beschikbaarOp", "timestamp")]),
    (_bbox("beschikbaarOp=2020-01-01T12:30:15Z"), [("beschikbaarOp", "timestamp")]),
    (_bbox("beschikbaarOp=2020-01-01T24:00"), [("beschikbaarOp", "timestamp")]),
    ("/adresseerbareobjecten?pandIdentificaties=" + PAND + ",1951100000000101", None),
    ("/adresseerbareobjecten?pandIdentificaties=" + PAND + ",123,456", [("pandIdentificaties", "pattern")] * 2),
    ("/adresseerbareobjecten?nummeraanduidingIdentificatie=" + VBO, [("nummeraanduidingIdentificatie", "pattern")]),
    (f"/adressen?adresseerbaarObjectIdentificatie={PAND}", [("adresseerbaarObjectIdentificatie", "pattern")]),
    ("/adressen?openbareRuimteIdentificatie=1951300000000001", None),
    ("/bronhouders?objectIdentificatie=0000", [("objectIdentificatie", "pattern")]),
    ("/bronhouders?objectIdentificatie=7101&geldigOp=2020-01-01", None),
    (f"/adresseerbareobjecten/{VBO}/lvc?geheleLvc=ja", [("geheleLvc", "boolean")]),
    (f"/adressen/{NA}?inclusiefEindStatus=yes", [("inclusiefEindStatus", "boolean")]),
    (_pc("huisnummer=12&exacteMatch=TRUE"), [("exacteMatch", "boolean")]),
    (f"/adresseerbareobjecten/{PAND}", [("adresseerbaarobjectidentificatie", "pattern")]),
    ("/adresseerbareobjecten/0599040000", [("adresseerbaarobjectidentificatie", "pattern")]),
    ("/adressen/0599010000165822", [("nummeraanduidingidentificatie", "pattern")]),
    (f"/adressenuitgebreid/{VBO}", [("nummeraanduidingidentificatie", "pattern")]),
    (_pand("onbekend=1&onbekend=2&leeg="), None),  # unknown parameters are ignored
]  # fmt: skip


@pytest.mark.parametrize("path, invalid", VALIDATION)
def test_parameter_validation(client: TestClient, path: str, invalid: list[tuple[str, str]] | None) -> None:
    r = get(client, path)
    if invalid is None:
        ok(r)
    else:
        body = problem(r, 400, "paramsValidation", invalid)
        assert body["title"] == "Een of meerdere parameters zijn niet correct."


COMBINATIONS = [
    # (path, code)
    ("/adressen", "paramsRequired"), ("/adresseerbareobjecten", "paramsRequired"),
    ("/adressen?huisletter=A&huisnummertoevoeging=1", "paramsRequired"), ("/adressen?page=1&expand=true", "paramsRequired"),
    ("/adresseerbareobjecten?gebruiksdoelen=woonfunctie&geconstateerd=false&oppervlakte[min]=50&oppervlakte[max]=80",
     "paramsRequired"),
    ("/adressen/zoek", "paramsRequired"), ("/adressen/zoek?zoek=", "paramsRequired"), ("/bronhouders", "paramsRequired"),
    ("/adressen?q=", "paramsRequired"), ("/adressen?q", "paramsRequired"),
    ("/adressen?q=Kerkstraat&q=12", "paramsRequired"), (_pc("huisnummer=12&huisnummer=12"), "paramsRequired"),
    ("/adressen?postcode=2391PH", "paramsCombination"), ("/adressen?huisnummer=1", "paramsCombination"),
    ("/adressen?postcode=1181VA&huisletter=A", "paramsCombination"),
    ("/adressen?woonplaatsNaam=Amstelveer&huisnummer=12", "paramsCombination"),
    ("/adressenuitgebreid?openbareRuimteNaam=Kerkstraat", "paramsCombination"),
    (f"/adressen?pandIdentificatie={PAND}&postcode=4904AM", "unsupportedCombination"),
    (f"/adressen?pandIdentificatie={PAND}&huisnummer=1", "unsupportedCombination"),
    (f"/adressen?pandIdentificatie={PAND}&adresseerbaarObjectIdentificatie={VBO}", "unsupportedCombination"),
    ("/adressen?q=Brink&postcode=2391PH&huisnummer=1", "unsupportedCombination"),
    ("/adressen?q=Kerkstraat&exacteMatch=true", "unsupportedCombination"),
    ("/adressen?zoekresultaatIdentificatie=adr-1&postcode=1181VA&huisnummer=12", "unsupportedCombination"),
    (_pc("huisnummer=12&woonplaatsNaam=Amstelveer&openbareRuimteNaam=Kerkstraat"), "unsupportedCombination"),
    ("/adressen?q=Kerkstraat&huisletter=A", "unsupportedCombination"),
    (f"/adresseerbareobjecten?nummeraanduidingIdentificatie={NA}&geconstateerd=true", "unsupportedCombination"),
    (f"/adresseerbareobjecten?pandIdentificaties={PAND}&type=ligplaats", "unsupportedCombination"),
    (f"/adresseerbareobjecten?nummeraanduidingIdentificatie={NA}&pandIdentificaties={PAND}", "unsupportedCombination"),
    (_bbox(f"pandIdentificaties={PAND}"), "unsupportedCombination"),
    (f"/adresseerbareobjecten?pandIdentificaties={PAND}&pandIdentificaties={PAND}", "unsupportedCombination"),
    (f"/adresseerbareobjecten?nummeraanduidingIdentificatie={NA}&huidig=true&geldigOp=2020-01-01", "unsupportedCombination"),
    (f"/adresseerbareobjecten/{VBO}?huidig=true&beschikbaarOp=2020-01-01T00:00", "unsupportedCombination"),
]  # fmt: skip


@pytest.mark.parametrize("path, code", COMBINATIONS)
def test_required_and_combined_parameters(client: TestClient, path: str, code: str) -> None:
    body = problem(get(client, path), 400, code)
    assert body["invalid-params"] and all({"type", "name", "code", "reason"} <= p.keys() for p in body["invalid-params"])


@pytest.mark.parametrize(
    "path",
    [f"/adresseerbareobjecten?nummeraanduidingIdentificatie={NA}&huidig=false&geldigOp=2020-01-01",
     f"/adresseerbareobjecten/{VBO}?huidig=true", _pc("huisnummer=12&exacteMatch=false"),
     "/adressen?q=Kerkstraat&exacteMatch=false"],
)  # fmt: skip
def test_allowed_combinations(client: TestClient, path: str) -> None:
    ok(get(client, path))


def test_invalid_params_codes_and_reasons(client: TestClient) -> None:
    body = problem(get(client, _pc("huisnummer=100000")), 400, "paramsValidation")
    assert body["invalid-params"][0]["reason"] == "Waarde is hoger dan maximum 99999."
    body = problem(get(client, f"/adressen/{VBO}"), 400, "paramsValidation")
    assert body["invalid-params"][0]["reason"] == "Waarde voldoet niet aan patroon ^[0-9]{4}20[0-9]{10}$."
    body = problem(get(client, "/adressen"), 400, "paramsRequired")
    assert body["title"] == "Ten minste één parameter moet worden opgegeven."
    assert {p["code"] for p in body["invalid-params"]} == {"required"}


# ------------------------------------------------------------------ expand


def test_expand_values(client: TestClient) -> None:
    body = ok(get(client, f"/adressen/{NA}?expand=true"))
    assert set(body["_embedded"]) == {"nummeraanduiding", "openbareRuimte", "woonplaats", "adresseerbaarObject", "panden"}
    assert all("_embedded" not in (v[0] if isinstance(v, list) else v) for v in body["_embedded"].values())
    body = ok(get(client, f"/adressen/{NA}?expand=OPENBARERUIMTE,woonplaats"))
    assert set(body["_embedded"]) == {"openbareRuimte", "woonplaats"}
    body = ok(get(client, f"/adressen/{NA}?expand=openbareRuimte.naam"))
    assert set(body["_embedded"]) == {"openbareRuimte"}
    assert "_embedded" not in ok(get(client, f"/adressen/{NA}"))
    body = ok(get(client, f"/adresseerbareobjecten/{VBO}?expand=heeftalshoofdadres,maaktDeelUitVan"))
    assert set(body["verblijfsobject"]["_embedded"]) == {"heeftAlsHoofdAdres", "maaktDeelUitVan"}
    body = ok(get(client, f"/adresseerbareobjecten/{W['ligplaats']}?expand=true"))
    assert set(body["ligplaats"]["_embedded"]) == {"heeftAlsHoofdAdres"}  # a berth is in no building


def test_bad_expand_values(client: TestClient) -> None:
    r = get(client, "/adressen?zoekresultaatIdentificatie=adr-1&expand=bestaatniet,bestaatookniet")
    body = problem(r, 400, "paramsValidation", [("expand", "expand"), ("expand", "expand")])
    assert body["invalid-params"][0]["reason"] == "Deel van de parameterwaarde is niet correct: bestaatniet."
    problem(get(client, f"/adressen/{NA}?expand="), 400, "paramsValidation", [("expand", "expand")])
    problem(get(client, f"/adressen/{NA}?expand=heeftAlsHoofdAdres"), 400, "paramsValidation", [("expand", "expand")])
    problem(get(client, f"/adresseerbareobjecten/{VBO}?expand=adressen"), 400, "paramsValidation", [("expand", "expand")])
    problem(get(client, f"/adressen/{NA}?expand=true&expand=true"), 400, "paramsRequired")


def test_expand_is_ignored_where_unsupported(client: TestClient) -> None:
    for path in (_pand("expand=true"), f"/adressen?openbareRuimteIdentificatie={W['openbareruimte']}&expand=bestaatniet",
                 "/adressenuitgebreid?q=Kerkstraat&expand=true"):  # fmt: skip
        assert all("_embedded" not in a for a in items(ok(get(client, path)), "adressen"))


# ------------------------------------------------------------------ HAL, links, paging


def test_address_collection_paging(client: TestClient) -> None:
    path = f"/adressen?pandIdentificatie={PAND}&pageSize=10"  # 48 addresses: 5 pages
    first = ok(get(client, path))
    assert set(first["_links"]) == {"self", "next", "last"}
    assert first["_links"]["self"]["href"] == ORIGIN + BASE + path
    assert first["_links"]["next"]["href"] == ORIGIN + BASE + path + "&page=2"
    assert first["_links"]["last"]["href"] == ORIGIN + BASE + path + "&page=5"
    middle = get(client, path.replace("?", "?page=3&"))
    assert set(ok(middle)["_links"]) == {"self", "first", "previous", "next", "last"}
    assert ok(middle)["_links"]["previous"]["href"] == ORIGIN + BASE + path.replace("?", "?page=2&")
    assert (middle.headers["X-Pagination-Page"], middle.headers["X-Pagination-Limit"]) == ("3", "10")
    last = ok(get(client, path + "&page=5"))
    assert set(last["_links"]) == {"self", "first", "previous"} and len(items(last, "adressen")) == 8
    beyond = ok(get(client, path + "&page=6"))
    assert items(beyond, "adressen") == [] and "next" not in beyond["_links"]
    default = ok(get(client, f"/adressen?pandIdentificatie={PAND}"))
    assert len(items(default, "adressen")) == 20
    assert default["_links"]["last"]["href"] == ORIGIN + BASE + f"/adressen?pandIdentificatie={PAND}&page=3"
    single = ok(get(client, f"/adressen?pandIdentificatie={PAND}&pageSize=100"))
    assert set(single["_links"]) == {"self"} and len(items(single, "adressen")) == 48


def test_zero_results_have_only_self_and_an_empty_collection(client: TestClient) -> None:
    body = ok(get(client, "/adressen?postcode=9999ZZ&huisnummer=1&page=2"))
    assert body == {"_links": {"self": {"href": ORIGIN + BASE + "/adressen?postcode=9999ZZ&huisnummer=1&page=2"}},
                    "_embedded": {"adressen": []}}  # fmt: skip


def test_object_wrapper_and_links(client: TestClient) -> None:
    path = f"/adresseerbareobjecten/{VBO}?geldigOp=2024-01-01&expand=true"
    body = ok(get(client, path))
    assert set(body) == {"verblijfsobject", "_links"}
    assert body["_links"]["self"]["href"] == ORIGIN + BASE + path
    wrapper = body["verblijfsobject"]
    assert wrapper["verblijfsobject"]["identificatie"] == VBO
    assert not any(k.startswith("_") for k in wrapper["verblijfsobject"])
    links = wrapper["_links"]
    assert links["self"]["href"] == f"{ORIGIN}{BASE}/verblijfsobjecten/{VBO}?geldigOp=2024-01-01"
    assert links["heeftAlsHoofdAdres"]["href"].startswith(f"{ORIGIN}{BASE}/nummeraanduidingen/")
    assert "beschikbaarOp=" in links["heeftAlsHoofdAdres"]["href"]  # the other one filled in (4.2)
    assert all(link["href"].startswith(f"{ORIGIN}{BASE}/panden/") for link in links["maaktDeelUitVan"])


def test_collection_item_links_carry_time_travel_but_not_expand(client: TestClient) -> None:
    path = f"/adresseerbareobjecten?pandIdentificaties={PAND}&beschikbaarOp=2024-01-01T00:00&expand=true&pageSize=10"
    first = items(ok(get(client, path)), "adresseerbareObjecten")[0]
    outer = first["_links"]["self"]["href"]
    assert re.fullmatch(rf"{ORIGIN}{BASE}/adresseerbareobjecten/[0-9]{{16}}\?beschikbaarOp=2024-01-01T00:00", outer)
    plain = items(ok(get(client, f"/adresseerbareobjecten?pandIdentificaties={PAND}")), "adresseerbareObjecten")[0]
    assert "?" not in plain["_links"]["self"]["href"]
    assert "geldigOp" not in plain["verblijfsobject"]["_links"]["heeftAlsHoofdAdres"]["href"]


def test_lifecycle(client: TestClient) -> None:
    historie = W["adresseerbaarobject_historie"]
    valid = ok(get(client, f"/adresseerbareobjecten/{historie}/lvc"))
    whole = ok(get(client, f"/adresseerbareobjecten/{historie}/lvc?geheleLvc=true"))
    assert set(valid["_links"]) == {"self"} and set(valid["_embedded"]) == {"voorkomens"}
    assert len(items(whole, "voorkomens")) > len(items(valid, "voorkomens")) >= 3
    self_href = items(valid, "voorkomens")[0]["verblijfsobject"]["_links"]["self"]["href"]
    assert re.fullmatch(rf"{ORIGIN}{BASE}/verblijfsobjecten/{historie}/1/[0-9]{{13}}", self_href)
    problem(get(client, f"/adresseerbareobjecten/{W['unknown_adresseerbaarobject']}/lvc"), 404, "notFound")


def test_time_travel_and_huidig(client: TestClient) -> None:
    historie = W["adresseerbaarobject_historie"]
    now = ok(get(client, f"/adresseerbareobjecten/{historie}"))["verblijfsobject"]["verblijfsobject"]
    then = ok(get(client, f"/adresseerbareobjecten/{historie}?geldigOp={W['historie_datum']}"))
    assert then["verblijfsobject"]["verblijfsobject"]["voorkomen"]["versie"] < now["voorkomen"]["versie"]
    eind = W["adresseerbaarobject_eindstatus"]
    ok(get(client, f"/adresseerbareobjecten/{eind}"))
    problem(get(client, f"/adresseerbareobjecten/{eind}?huidig=true"), 404, "notFound")


def test_addresses_end_status_and_exact_match(client: TestClient) -> None:
    eind = W["nummeraanduiding_eindstatus"]
    problem(get(client, f"/adressen/{eind}"), 404, "notFound")
    assert ok(get(client, f"/adressen/{eind}?inclusiefEindStatus=true"))["nummeraanduidingIdentificatie"] == eind
    problem(get(client, f"/adressenuitgebreid/{eind}"), 404, "notFound")
    loose = items(ok(get(client, _pc("huisnummer=12"))), "adressen")
    exact = items(ok(get(client, _pc("huisnummer=12&exacteMatch=true"))), "adressen")
    assert len(loose) > 1 and [a["nummeraanduidingIdentificatie"] for a in exact] == [NA]


def test_zoek_results_resolve_on_adressen(client: TestClient) -> None:
    results = items(ok(get(client, "/adressen/zoek?zoek=Kerkstraat%2012")), "zoekresultaten")
    assert results and {"identificatie", "omschrijving", "_links"} <= results[0].keys()
    href = results[0]["_links"]["adres"]["href"]
    assert href.startswith(ORIGIN + BASE + "/adressen?zoekresultaatIdentificatie=")
    found = items(ok(get(client, href.removeprefix(ORIGIN + BASE))), "adressen")
    assert [a["nummeraanduidingIdentificatie"] for a in found] == [NA]
    assert items(ok(get(client, "/adressen?zoekresultaatIdentificatie=adr-onbekend")), "adressen") == []


def test_bronhouders_and_extended_addresses(client: TestClient) -> None:
    body = ok(get(client, f"/bronhouders?objectIdentificatie={VBO}"))
    assert items(body, "bronhouders")[0]["bronhouder"]["code"] == VBO[:4]
    assert items(ok(get(client, "/bronhouders?objectIdentificatie=9999")), "bronhouders") == []
    extended = ok(get(client, f"/adressenuitgebreid/{NA}"))
    assert extended["typeAdresseerbaarObject"] == "Verblijfsobject" and "_embedded" not in extended
    assert not any(k.startswith("_") and k != "_links" for k in extended)


def test_unknown_ids_are_404(client: TestClient) -> None:
    for path in (f"/adressen/{W['unknown_nummeraanduiding']}", f"/adressenuitgebreid/{W['unknown_nummeraanduiding']}",
                 f"/adresseerbareobjecten/{W['unknown_adresseerbaarobject']}"):  # fmt: skip
        body = problem(get(client, path), 404, "notFound")
        assert "invalid-params" not in body


def test_bbox_filters(client: TestClient) -> None:
    for kind in ("ligplaats", "standplaats", "verblijfsobject"):
        found = items(ok(get(client, _bbox(f"type={kind}&pageSize=100"))), "adresseerbareObjecten")
        assert found and all(set(o) == {kind, "_links"} for o in found)
    assert items(ok(get(client, _bbox("type=Ligplaats&oppervlakte[max]=100"))), "adresseerbareObjecten") == []


# ------------------------------------------------------------------ faults


def _status(path: str, status: int, **kw: Any) -> Callable[[TestClient], bool]:
    return lambda c: get(c, path, **kw).status_code == status


def _header(path: str, name: str, value: str | None = None, **kw: Any) -> Callable[[TestClient], bool]:
    def check(c: TestClient) -> bool:
        r = get(c, path, **kw)
        return name in r.headers and (value is None or r.headers[name] == value)

    return check


def _body(path: str, predicate: Callable[[dict[str, Any]], bool], **kw: Any) -> Callable[[TestClient], bool]:
    return lambda c: predicate(get(c, path, **kw).json())


def _twice(key: str, check: Callable[[httpx.Response], bool]) -> Callable[[TestClient], bool]:
    return lambda c: check([get(c, f"/adressen/{NA}", key=key) for _ in range(4)][-1])


def _within(box: tuple[float, float, float, float], obj: dict[str, Any]) -> bool:
    data_ = next(iter(obj.values()))
    data_ = next(v for k, v in data_.items() if not k.startswith("_"))
    geometry = data_["geometrie"]
    shape = geometry.get("punt") or geometry.get("vlak") or geometry
    flat = re.findall(r"-?[0-9.]+, -?[0-9.]+", str(shape["coordinates"]))
    points = [tuple(map(float, p.split(", "))) for p in flat]
    return any(box[0] - 1 <= x <= box[2] + 1 and box[1] - 1 <= y <= box[3] + 1 for x, y in points) or (
        min(x for x, _ in points) <= box[2] and max(x for x, _ in points) >= box[0]
        and min(y for _, y in points) <= box[3] and max(y for _, y in points) >= box[1]
    )  # fmt: skip


SMALL_BOX = (119400.0, 480760.0, 119500.0, 480860.0)
_LIFECYCLE = f"/adresseerbareobjecten/{W['adresseerbaarobject_historie']}/lvc"


def _lifecycle_valid_only(c: TestClient) -> bool:
    return len(get(c, _LIFECYCLE).json()["_embedded"]["voorkomens"]) < len(
        get(c, _LIFECYCLE + "?geheleLvc=true").json()["_embedded"]["voorkomens"]
    )


def _zoek_resolves(c: TestClient) -> bool:
    result = get(c, "/adressen/zoek?zoek=Kerkstraat%2012").json()["_embedded"]["zoekresultaten"][0]
    return get(c, f"/adressen?zoekresultaatIdentificatie={result['identificatie']}").status_code == 200


_PAGED_PAND = f"/adressen?pandIdentificatie={PAND}&pageSize=10"
_HISTORIE = f"/adresseerbareobjecten/{W['adresseerbaarobject_historie']}?geldigOp={W['historie_datum']}"

# fault -> (maintenance mode, check that holds without the fault and fails with it)
FAULT_CASES: dict[str, tuple[bool, Callable[[TestClient], bool]]] = {
    "api_version_missing": (False, _header(f"/adressen/{NA}", "api-version", "2.9.2")),
    "problem_as_plain_json": (False, _header("/adressen", "content-type", "application/problem+json")),
    "page_size_minimum_not_enforced": (False, _status(_pand("pageSize=9"), 400)),
    "page_size_maximum_not_enforced": (False, _status(_pand("pageSize=101"), 400)),
    "page_minimum_not_enforced": (False, _status(_pand("page=0"), 400)),
    "postcode_pattern_not_enforced": (False, _status("/adressen?postcode=0000XX&huisnummer=1", 400)),
    "huisnummer_limits_not_enforced": (False, _status(_pc("huisnummer=100000"), 400)),
    "length_limits_not_enforced": (False, _status(f"/adressen?q={'a' * 256}", 400)),
    "bbox_area_not_enforced": (False, _status(_bbox(box="119000,480000,120000,481000"), 400)),
    "bbox_arity_not_enforced": (False, _status(_bbox(box="119400,480760,119700"), 400)),
    "oppervlakte_range_not_enforced": (False, _status(_bbox("oppervlakte[min]=80&oppervlakte[max]=50"), 400)),
    "oppervlakte_limits_not_enforced": (False, _status(_bbox("oppervlakte[min]=0"), 400)),
    "unknown_expand_ignored": (False, _status(f"/adressen/{NA}?expand=bestaatniet", 400)),
    "expand_ignored": (False, _body(f"/adressen/{NA}?expand=true", lambda b: "_embedded" in b)),
    "wrong_last_link": (False, _body(_PAGED_PAND, lambda b: b["_links"]["last"]["href"].endswith("page=5"))),
    "paging_links_missing": (False, _body(_PAGED_PAND, lambda b: "next" in b["_links"])),
    "pagination_headers_missing": (False, _header(_PAGED_PAND, "X-Pagination-Page", "1")),
    "pagination_headers_wrong": (False, _header(_PAGED_PAND, "X-Pagination-Limit", "10")),
    "server_error_on_malformed_date": (False, _status(f"/adresseerbareobjecten/{VBO}?geldigOp=2020-13-01", 400)),
    "no_api_key_served": (False, _status(f"/adressen/{NA}", 401, key=None)),
    "invalid_key_served": (False, _status(f"/adressen/{NA}", 401, key="wrong")),
    "restricted_key_not_enforced": (False, _status(f"/adressenuitgebreid/{NA}", 403, key=RESTRICTED)),
    "self_link_drops_query": (False, _body(_PAGED_PAND, lambda b: b["_links"]["self"]["href"].endswith(_PAGED_PAND))),
    "rate_limit_headers_missing_on_429": (False, _twice(LIMITED, lambda r: r.status_code == 429 and "RateLimit-Limit" in r.headers)),
    "rate_limit_not_enforced": (False, _twice(LIMITED, lambda r: r.status_code == 429)),
    "day_quota_not_enforced": (False, _twice(QUOTA, lambda r: r.status_code == 429)),
    "rate_limit_headers_missing": (False, _header(f"/adressen/{NA}", "RateLimit-Remaining")),
    "invalid_params_without_name": (False, _body(_pc("huisnummer=a"), lambda b: b["invalid-params"][0].get("name") == "huisnummer")),
    "invalid_params_missing": (False, _body(_pc("huisnummer=a"), lambda b: "invalid-params" in b)),
    "problem_status_mismatch": (False, _body(f"/adressen/{W['unknown_nummeraanduiding']}", lambda b: b["status"] == 404)),
    "wrong_error_code": (False, _body(f"/adressen/{W['unknown_nummeraanduiding']}", lambda b: b["code"] == "notFound")),
    "deleted_objects_returned_with_huidig": (False, _status(f"/adresseerbareobjecten/{W['adresseerbaarobject_eindstatus']}?huidig=true", 404)),
    "end_status_addresses_returned": (False, _status(f"/adressen/{W['nummeraanduiding_eindstatus']}", 404)),
    "time_travel_ignored": (False, _body(_HISTORIE, lambda b: b["verblijfsobject"]["verblijfsobject"]["voorkomen"]["beginGeldigheid"] <= W["historie_datum"])),
    "beschikbaarop_short_form_rejected": (False, _status(f"/adresseerbareobjecten/{VBO}?beschikbaarOp=2024-01-01T12:00", 200)),
    "lifecycle_removed_always_included": (False, _lifecycle_valid_only),
    "exacte_match_ignored": (False, _body(_pc("huisnummer=12&exacteMatch=true"), lambda b: len(b["_embedded"]["adressen"]) == 1)),
    "query_filter_ignored": (False, _body(_pc("huisnummer=12&pageSize=100"), lambda b: {a["postcode"] for a in b["_embedded"]["adressen"]} == {"1181VA"})),
    "bbox_filter_ignored": (False, _body(_bbox("pageSize=100", ",".join(f"{v:.0f}" for v in SMALL_BOX)), lambda b: all(_within(SMALL_BOX, o) for o in b["_embedded"]["adresseerbareObjecten"]))),
    "type_filter_ignored": (False, _body(_bbox("type=ligplaats&pageSize=100"), lambda b: all("ligplaats" in o for o in b["_embedded"]["adresseerbareObjecten"]))),
    "path_id_pattern_not_enforced": (False, _status(f"/adressen/{NA[:-1]}", 400)),
    "required_params_not_enforced": (False, _status("/adressen", 400)),
    "combination_not_enforced": (False, _status("/adressen?postcode=1181VA", 400)),
    "unsupported_combination_accepted": (False, _status("/adressen?q=Kerkstraat&postcode=1181VA&huisnummer=12", 400)),
    "not_found_as_200": (False, _status(f"/adressen/{W['unknown_nummeraanduiding']}", 404)),
    "accept_not_negotiated": (False, _status(f"/adressen/{NA}", 406, accept="application/json")),
    "content_crs_missing": (False, _header(_bbox(), "Content-Crs", "epsg:28992")),
    "accept_crs_not_validated": (False, _status(f"/adresseerbareobjecten/{VBO}", 406, accept_crs="epsg:4326")),
    "content_crs_not_validated": (False, _status(_bbox(), 415, content_crs="epsg:4326")),
    "hal_served_as_json": (False, _header(f"/adressen/{NA}", "content-type", "application/hal+json")),
    "warning_header_missing": (False, _header(f"/adressen/{NA}", "warning")),
    "maintenance_ignored": (True, _status(f"/adressen/{NA}", 503)),
    "identifiers_malformed": (False, _body(f"/adressen/{NA}", lambda b: b["nummeraanduidingIdentificatie"] == NA)),
    "zoek_results_not_resolvable": (False, _zoek_resolves),
}  # fmt: skip


def test_every_address_fault_has_a_case() -> None:
    # The faults of the endpoint checks have their cases in test_mock_address_faults_extra.py,
    # which also checks that every fault of conformance/mocks/address/faults.py has one.
    declared = {f.name.removeprefix("address.") for f in catalogue("address")}
    assert set(FAULT_CASES) <= declared
    assert all(f.description for f in catalogue("address"))


@pytest.mark.parametrize("name", sorted(FAULT_CASES))
def test_fault_changes_what_it_names(make: Factory, name: str) -> None:
    maintenance, check = FAULT_CASES[name]
    assert check(make(maintenance=maintenance)), "conforming without the fault"
    assert not check(make(f"address.{name}", maintenance=maintenance)), "fault had no effect"


def test_faults_leave_a_plain_request_alone(make: Factory) -> None:
    # A fault that acts far from its name would show up as a changed ordinary answer.
    baseline = get(make(), f"/adresseerbareobjecten/{VBO}/lvc").json()
    harmless = set(FAULT_CASES) - {"identifiers_malformed", "lifecycle_removed_always_included", "hal_served_as_json",
                                   "api_version_missing", "warning_header_missing", "rate_limit_headers_missing"}  # fmt: skip
    for name in sorted(harmless):
        r = get(make(f"address.{name}"), f"/adresseerbareobjecten/{VBO}/lvc")
        assert r.status_code == 200 and r.json() == baseline, name


def test_encoded_path_and_self_link_round_trip(client: TestClient) -> None:
    path = f"/adressen?q={quote('Kerkstraat 12')}&pageSize=10"
    assert ok(get(client, path))["_links"]["self"]["href"] == ORIGIN + BASE + path
