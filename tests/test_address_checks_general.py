"""The general address checks (conformance/checks/address/general.py), each proven both ways
on hand-built Exchanges, plus the catalogue's consistency with the suites and the faults."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from conformance.catalogue import registered_checks
from conformance.checks.address import general as g
from conformance.checks.address import hal, headers
from conformance.checks.registry import Severity
from conformance.findings import Blocked, Finding
from conformance.http.exchange import Exchange, Headers

BASE = "http://127.0.0.1:8000/lvbag/individuelebevragingen/v2"
HAL, PROBLEM = "application/hal+json", "application/problem+json"
RATE = {
    "Registry-RateLimit-DayLimit": "25", "Registry-RateLimit-DayLimit-Remaining": "20",
    "Registry-RateLimit-DayLimit-Reset": "3600", "RateLimit-Limit": "5", "RateLimit-Remaining": "4",
    "RateLimit-Reset": "60",
}


def ex(status: int = 200, body: Any = None, *, url: str = BASE + "/adressen", media: str | None = None,
       **headers: str) -> Exchange:
    media = media or (HAL if status < 400 else PROBLEM)
    items = [("content-type", media), *((k.replace("_", "-"), v) for k, v in headers.items())]
    return Exchange("GET", url, Headers(), b"", status, Headers(items),
                    json.dumps(body).encode() if body is not None else b"")


def rated(status: int = 200, **overrides: str) -> Exchange:
    values = {**RATE, **overrides}
    return Exchange("GET", BASE + "/adressen", Headers(), b"", status,
                    Headers([("content-type", HAL), *values.items()]), b"{}")


def fails(func, *args, **kwargs) -> str:
    with pytest.raises(Finding) as info:
        func(*args, **kwargs)
    return str(info.value)


def link(url: str) -> dict[str, str]:
    return {"href": url}


def page_body(page: int, last: int, *, items: int = 10, links: dict[str, int] | None = None) -> dict[str, Any]:
    """A collection page whose paging links are `links` (rel -> page) or the correct ones."""
    url = BASE + "/adresseerbareobjecten?pandIdentificaties=0226100000008856&pageSize=10"
    if links is None:
        links = {}
        if page > 1:
            links.update(first=1, previous=page - 1)
        if page < last:
            links.update(next=page + 1, last=last)
    body_links = {"self": link(f"{url}&page={page}")} | {rel: link(f"{url}&page={n}") for rel, n in links.items()}
    objects = [{"_links": {"self": link(f"{BASE}/verblijfsobjecten/{i}")}} for i in range(items)]
    return {"_links": body_links, "_embedded": {"adresseerbareObjecten": objects}}


# --- status and headers -------------------------------------------------------------------------
def test_expect_status_and_client_error() -> None:
    g.expect_status(ex(404), 404, 400)
    assert "unexpected HTTP status" in fails(g.expect_status, ex(200), 404)
    g.is_client_error(ex(400))
    g.is_client_error(ex(415))
    assert "4xx" in fails(g.is_client_error, ex(500))
    assert "4xx" in fails(g.is_client_error, ex(200))


def test_header_presence_and_integers() -> None:
    assert g.has_header(ex(200, warning=' 299 - "x" '), "warning") == '299 - "x"'
    assert "warning header missing" in fails(g.has_header, ex(200), "warning")
    assert "missing or empty" in fails(g.has_header, ex(200, warning="  "), "warning")
    assert g.integer_header(ex(200, X_Pagination_Page="2"), "X-Pagination-Page") == 2
    assert "not a non-negative integer" in fails(g.integer_header, ex(200, X_Pagination_Page="-1"), "X-Pagination-Page")


def test_accept_crs_header() -> None:
    g.has_accept_crs_header(ex(406, {}, acceptCrs="EPSG:28992"))
    assert "acceptCrs header missing" in fails(g.has_accept_crs_header, ex(406, {}))
    assert "does not name the CRS" in fails(g.has_accept_crs_header, ex(406, {}, acceptCrs="epsg:4326"))


def test_rate_limit_values() -> None:
    assert g.rate_limit_values(rated())["RateLimit-Limit"] == 5
    assert "RateLimit-Reset is not" in fails(g.rate_limit_values, rated(**{"RateLimit-Reset": "1.5"}))
    prefixed = Exchange("GET", BASE, Headers(), b"", 200, Headers(
        [(k.replace("Registry-", "Kadaster-"), v) for k, v in RATE.items()]), b"")
    assert g.rate_limit_values(prefixed, lambda n: n.replace("Registry-", "Kadaster-"))
    assert "Registry-RateLimit-DayLimit header missing" in fails(g.rate_limit_values, prefixed)


def test_remaining_decreased_and_window_reset() -> None:
    assert g.remaining_decreased(rated(**{"RateLimit-Remaining": "4"}), rated(**{"RateLimit-Remaining": "3"}))
    assert not g.remaining_decreased(rated(**{"RateLimit-Remaining": "4"}), rated(**{"RateLimit-Remaining": "4"}))
    assert "RateLimit-Remaining header missing" in fails(g.remaining_decreased, rated(), ex(200))
    sequence = [rated(**{"RateLimit-Remaining": n}) for n in ("2", "1", "0", "4")]
    assert g.window_reset_seen(sequence)
    assert not g.window_reset_seen(sequence[:3] + [rated(**{"RateLimit-Remaining": "0"})])
    assert not g.window_reset_seen([ex(200), ex(200)])


def test_day_quota_exhausted() -> None:
    g.day_quota_exhausted(rated(429, **{"Registry-RateLimit-DayLimit-Remaining": "0"}))
    assert "unexpected HTTP status" in fails(g.day_quota_exhausted, rated(200, **{"Registry-RateLimit-DayLimit-Remaining": "0"}))
    assert "does not report 0" in fails(g.day_quota_exhausted, rated(429))
    assert "header missing" in fails(g.day_quota_exhausted, ex(429, {}))


def test_retry_after_is_http_date() -> None:
    g.retry_after_is_http_date(ex(503, {}, Retry_After="Sun, 28 Nov 2017 16:41:41 GMT"))
    assert "not an HTTP date" in fails(g.retry_after_is_http_date, ex(503, {}, Retry_After="600"))
    assert "not an HTTP date" in fails(g.retry_after_is_http_date, ex(503, {}, Retry_After="2017-11-28T16:41:41Z"))
    assert "Retry-After header missing" in fails(g.retry_after_is_http_date, ex(503, {}))


# --- problem instance ----------------------------------------------------------------------------------
def test_instance_names_request() -> None:
    url = BASE + "/adressen?postcode=1234AB&huisnummer=a"
    g.instance_names_request(ex(400, {"instance": "/lvbag/individuelebevragingen/v2/adressen?postcode=1234AB&huisnummer=a"}, url=url))
    g.instance_names_request(ex(400, {"instance": url}, url=url))
    g.instance_names_request(ex(400, {"instance": "/adressen?huisnummer=a&postcode=1234AB"}, url=url))
    assert "no instance" in fails(g.instance_names_request, ex(400, {"title": "x"}, url=url))
    assert "request path" in fails(g.instance_names_request, ex(400, {"instance": "/adresseerbareobjecten?postcode=1234AB"}, url=url))
    assert "leaves out parameters" in fails(g.instance_names_request, ex(400, {"instance": "/adressen"}, url=url))
    assert "not a JSON object" in fails(g.instance_names_request, ex(400, None, url=url))


# --- HAL ---------------------------------------------------------------------------------------------
def test_self_link() -> None:
    g.has_self_link(ex(200, {"_links": {"self": link(BASE + "/adressen/1")}}))
    assert "no _links.self" in fails(g.has_self_link, ex(200, {"_links": {}}))
    assert "no _links.self" in fails(g.has_self_link, ex(200, {"_links": {"self": {"href": ""}}}))
    assert "no _links.self" in fails(g.has_self_link, ex(200, {"openbareRuimteNaam": "x"}))


def test_embedded_self_links() -> None:
    expanded_object = {
        "_links": {"self": link("s")},
        "verblijfsobject": {"verblijfsobject": {}, "_links": {"self": link("v")}, "_embedded": {
            "heeftAlsHoofdAdres": {"nummeraanduiding": {}, "_links": {"self": link("n")}},
            "maaktDeelUitVan": [{"pand": {}, "_links": {"self": link("p")}}]}},
    }
    g.embedded_have_self_links(ex(200, expanded_object))
    g.embedded_have_self_links(ex(200, page_body(1, 1, items=3)))
    broken = json.loads(json.dumps(expanded_object))
    del broken["verblijfsobject"]["_embedded"]["maaktDeelUitVan"][0]["_links"]
    assert "maaktDeelUitVan[0]" in fails(g.embedded_have_self_links, ex(200, broken))
    with pytest.raises(Blocked, match="nothing embedded"):  # nothing to judge: the expand checks judge embedding
        g.embedded_have_self_links(ex(200, {"_links": {"self": link("s")}}))


def test_collection_items() -> None:
    assert len(g.collection_items(ex(200, page_body(1, 1, items=3)))) == 3
    assert g.collection_items(ex(200, {"_links": {}})) == []
    assert "more than one embedded array" in fails(g.collection_items, ex(200, {"_embedded": {"a": [], "b": []}}))
    assert "not an object" in fails(g.collection_items, ex(200, {"_embedded": []}))


@pytest.mark.parametrize(("page", "last"), [(1, 1), (1, 5), (3, 5), (5, 5)])
def test_paging_links_apply_accepts_correct_links(page: int, last: int) -> None:
    g.paging_links_apply(ex(200, page_body(page, last)), page=page, last=last)


@pytest.mark.parametrize(("page", "last", "links"), [
    (1, 5, {}),  # links missing
    (1, 5, {"next": 2, "last": 6}),  # last one too far
    (1, 5, {"first": 1, "next": 2, "last": 5}),  # first on page 1
    (3, 5, {"first": 1, "previous": 1, "next": 4, "last": 5}),  # previous wrong
    (5, 5, {"first": 1, "previous": 4, "last": 5}),  # last on the last page
    (1, 1, {"last": 1}),  # a single page has none
])
def test_paging_links_apply_rejects_wrong_links(page: int, last: int, links: dict[str, int]) -> None:
    assert "paging links of page" in fails(g.paging_links_apply, ex(200, page_body(page, last, links=links)),
                                           page=page, last=last)


def test_link_pages_needs_integer_page() -> None:
    body = {"_links": {"self": link("s"), "next": link(BASE + "/adressen?page=two")}}
    assert "no integer page" in fails(hal.link_pages, ex(200, body))
    assert "no integer page" in fails(hal.paging_links_consistent, ex(200, body), page=1)  # a finding, not a crash


# What int() and str.isdigit() would read, or raise on: a server's header byte 0xB2 arrives as
# '\u00b2', which isdigit() accepts and int() refuses; int() takes '1_0' and '+5' as numbers.
NOT_DECIMAL = ("\u00b2", "1_0", "+5", "\u0663", "5 5")


@pytest.mark.parametrize("value", NOT_DECIMAL)
def test_a_number_a_server_or_a_generated_request_writes_oddly_is_judged_not_crashed_on(value: str) -> None:
    assert "not a non-negative integer" in fails(g.integer_header, ex(200, X_Pagination_Page=value), "X-Pagination-Page")
    assert "not a non-negative integer" in fails(headers.pagination_headers, ex(
        200, url=BASE + "/adressen/0363200000123456", X_Pagination_Page=value, X_Pagination_Limit="1"),
        "/adressen/0363200000123456")
    assert not g.window_reset_seen([rated(**{"RateLimit-Remaining": v}) for v in ("0", value)])
    # a generated request's page that is no integer: the headers are judged as integers only
    odd = ex(200, {}, url=BASE + "/adressen?page=" + quote(value) + "&pageSize=7",
             X_Pagination_Page="3", X_Pagination_Limit="7")
    headers.pagination_headers(odd, "/adressen")
    assert "X-Pagination-Limit disagrees" in fails(headers.pagination_headers, ex(
        200, {}, url=BASE + "/adressen?page=" + quote(value) + "&pageSize=7", X_Pagination_Page="3",
        X_Pagination_Limit="8"), "/adressen")


def test_last_page_consistent() -> None:
    last = ex(200, page_body(5, 5, items=7))
    g.last_page_consistent(5, last, total=47, page_size=10)
    assert "ceil(total/pageSize)" in fails(g.last_page_consistent, 6, last, total=47, page_size=10)
    empty = ex(200, page_body(6, 5, items=0, links={"first": 1, "previous": 5}))
    assert "is empty" in fails(g.last_page_consistent, 5, empty, total=50, page_size=10)
    with_next = ex(200, page_body(5, 5, items=7, links={"first": 1, "previous": 4, "next": 6}))
    assert "has a next link" in fails(g.last_page_consistent, 5, with_next, total=47, page_size=10)
    assert "unexpected HTTP status" in fails(g.last_page_consistent, 5, ex(400, {}), total=47, page_size=10)


def test_same_data_ignores_links() -> None:
    a = {"_links": {"self": link("?beschikbaarOp=2020-01-01T12:00")}, "x": {"v": 1, "_links": {"a": link("1")}}}
    b = {"_links": {"self": link("?beschikbaarOp=2020-01-01T12:00:00.000")}, "x": {"v": 1, "_links": {"a": link("2")}}}
    g.same_data(ex(200, a), ex(200, b))
    assert "different data" in fails(g.same_data, ex(200, a), ex(200, {**b, "x": {"v": 2}}))
    assert "unexpected HTTP status" in fails(g.same_data, ex(200, a), ex(400, {}))


def test_date_times() -> None:
    doc = {"_embedded": {"voorkomens": [
        {"v": {"voorkomen": {"tijdstipRegistratie": "2020-01-01T10:15:30.12345", "versie": 1}}},
        {"v": {"voorkomen": {"tijdstipRegistratieLV": "2021-06-01T08:00:00Z", "beginGeldigheid": "2021-06-01"}}},
    ]}}
    assert sorted(g.date_times(doc, ("tijdstipRegistratie", "tijdstipRegistratieLV"))) == [
        "2020-01-01T10:15:30.123", "2021-06-01T08:00:00.000"]
    assert g.date_times({"tijdstipRegistratie": "gisteren"}, ("tijdstipRegistratie",)) == []


# --- request recipes ---------------------------------------------------------------------------
class FakeApi:
    """Serves pages of a collection of `total` items; `next_links` controls the links."""

    def __init__(self, total: int, *, refuse_beyond: bool = False) -> None:
        self.total = total
        self.refuse_beyond = refuse_beyond
        self.sent: list[str] = []

    def get(self, path: str, params: dict[str, str] | None = None, **_: Any) -> Exchange:
        query = dict(params or {})
        if "?" in path:
            path, _, raw = path.partition("?")
            query.update(pair.split("=") for pair in raw.split("&"))
        self.sent.append(path)
        page, size = int(query.get("page", 1)), int(query.get("pageSize", 20))
        last = max(1, -(-self.total // size))
        if page > last and self.refuse_beyond:
            return ex(400, {"status": 400})
        items = max(0, min(size, self.total - (page - 1) * size))
        body = page_body(page, last, items=items) if page <= last else page_body(page, last, items=0, links={})
        return ex(200, body, url=f"{BASE}{path}?page={page}&pageSize={size}")


@pytest.mark.parametrize("refuse_beyond", [False, True])
@pytest.mark.parametrize(("total", "pages"), [(47, 5), (50, 5), (3, 1)])
def test_pages_requests_by_number(total: int, pages: int, refuse_beyond: bool) -> None:
    walked = g.pages(FakeApi(total, refuse_beyond=refuse_beyond), "/adresseerbareobjecten", {}, page_size=10)
    assert len(walked) == pages


def test_pages_needs_a_first_page() -> None:
    assert "page 1" in fails(g.pages, FakeApi(0), "/adresseerbareobjecten", {}, page_size=10)


def test_follow_next() -> None:
    api = FakeApi(47)
    first = api.get("/adresseerbareobjecten", {"pageSize": "10"})
    walked = g.follow_next(api, first)
    assert len(walked) == 5 and sum(len(g.collection_items(e)) for e in walked) == 47
    looping = ex(200, page_body(1, 9, links={"next": 1}))

    class Loop(FakeApi):
        def get(self, path: str, params: Any = None, **_: Any) -> Exchange:
            return looping

    assert "more than 3 pages" in fails(g.follow_next, Loop(1), looping, limit=3)


def test_until_stops_at_the_first_match_and_at_the_limit() -> None:
    statuses = iter([200, 200, 429, 200])
    sent = list(g.until(lambda: ex(next(statuses), {}), lambda e: e.status == 429, 10))
    assert [e.status for e in sent] == [200, 200, 429]
    assert len(list(g.until(lambda: ex(200, {}), lambda e: e.status == 429, 4))) == 4


# --- catalogue -----------------------------------------------------------------------------------
SUITES = Path(__file__).resolve().parents[1] / "suites" / "address"


def _general_checks() -> dict[str, Any]:
    """The checks declared in suites/address/test_general_*.py."""
    import importlib

    modules = [importlib.import_module(f"conformance.suites.address.{p.stem}") for p in SUITES.glob("test_general_*.py")]
    ids = {m.args[0] for module in modules for name, value in vars(module).items() if name.startswith("test_")
           for m in getattr(value, "pytestmark", []) if m.name == "check"}
    return {c.id: c for c in registered_checks("address") if c.id in ids}


def _suite_check_ids() -> list[str]:
    ids: list[str] = []
    for path in sorted(SUITES.glob("test_general_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                marks = [d for d in node.decorator_list if isinstance(d, ast.Call) and ast.unparse(d.func) == "check"]
                assert len(marks) == 1, f"{path.name}::{node.name} needs exactly one check declaration"
                ids.append(marks[0].args[0].value)
    return ids


def test_every_general_check_has_exactly_one_test() -> None:
    ids = _suite_check_ids()
    assert sorted(ids) == sorted(set(ids)), "a check id is implemented by two tests"
    assert set(ids) == set(_general_checks())


def test_general_checks_name_known_faults() -> None:
    from conformance.mocks import faults

    known = {f.name for f in faults.catalogue("address") + faults.variants("address")}  # a SHOULD may name a variant
    for check in _general_checks().values():
        assert set(check.proven_by) <= known, check.id
        assert set(check.may_fail_under) <= known, check.id
        assert not set(check.proven_by) & set(check.may_fail_under), check.id
        if check.severity is Severity.OBSERVATION:
            assert not check.proven_by, check.id
