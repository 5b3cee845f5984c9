"""Response headers of seed part 4 ("Response headers") and part 9."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import headers
from conformance.checks.registry import MUST, OBSERVATION, SHOULD, check
from conformance.findings import expect


def _send(address_api, case: str, **extra):
    path, params = g.SUCCESS_CASES[case](address_api)
    return address_api.get(path, params={**params, **extra})


def _ok(address_api, case: str = "adressen-id", **extra):
    ex = _send(address_api, case, **extra)
    g.expect_status(ex, 200)
    return ex


def _api_version_cases():
    return [pytest.param("200", id="200"), *(pytest.param(name, id=name) for name in g.ERROR_CASES)]


@check("address.headers.api_version_present", MUST, "api-version is sent on 200, 400, 401, 403, 404 and 406 responses",
       requirements=["ADDR-4.api-version", "ADDR-9.api-version"],
       proven_by=["address.api_version_missing"],
       sends=["valid", "refused"],
       observes="exchange",
       feature="part 4, 9 / response headers")
@pytest.mark.parametrize("case", _api_version_cases())
def test_api_version_present(address_api, case):
    if case == "200":
        ex = _ok(address_api)
    else:
        ex = g.ERROR_CASES[case].send(address_api)
        expect(ex.status != 429, "unexpected 429 (exempt from api-version)", actual=ex.summary())
    headers.has_api_version(ex)


@check("address.headers.api_version_value", OBSERVATION, "Value of the api-version header (format not shown)",
       requirements=["ADDR-9.api-version"],
       feature="part 4, 9 / response headers")
def test_api_version_value(address_api, observe):
    observe(g.header(_ok(address_api), "api-version") or "(absent)")


@check("address.headers.warning_present", MUST, "200 responses carry a warning header",
       requirements=["ADDR-4.warning"],
       proven_by=["address.warning_header_missing"],
       may_fail_under=["address.restricted_policy_applied_to_all_keys"],
       observes="exchange",
       feature="part 4, 9 / response headers")
@pytest.mark.parametrize("case", list(g.SUCCESS_CASES))
def test_warning_present(address_api, case):
    g.has_header(_ok(address_api, case), "warning")


@check("address.headers.warning_content", OBSERVATION, "Content of the warning header (meaning not shown)",
       requirements=["ADDR-4.warning.content"],
       feature="part 4, 9 / response headers")
def test_warning_content(address_api, observe):
    observe({case: g.header(_ok(address_api, case), "warning") for case in ("adressen-id", "adressen-zoek")})


CONTENT_CRS_QUERIES = {
    "nummeraanduidingIdentificatie": lambda api: {"nummeraanduidingIdentificatie": api.sample("nummeraanduiding")},
    "bbox": lambda api: {"bbox": api.sample("bbox")},
    "pandIdentificaties": lambda api: {"pandIdentificaties": api.sample("pand")},
}


@check("address.headers.content_crs", MUST, "200 responses of /adresseerbareobjecten carry Content-Crs: epsg:28992",
       requirements=["ADDR-4.Content-Crs", "ADDR-1.crs"],
       proven_by=["address.content_crs_missing"],
       observes="exchange",
       feature="part 4, 9 / response headers")
@pytest.mark.parametrize("kind", list(CONTENT_CRS_QUERIES))
def test_content_crs(address_api, kind):
    ex = address_api.get("/adresseerbareobjecten", params=CONTENT_CRS_QUERIES[kind](address_api))
    g.expect_status(ex, 200)
    headers.has_content_crs(ex)


PAGINATION = [
    *[pytest.param(c, None, None, id=f"{c}-default") for c in g.COLLECTIONS],
    *[pytest.param(c, 2, 10, id=f"{c}-page2-size10") for c in g.LARGE_COLLECTIONS],
    pytest.param("adressen-zoek", 1, 10, id="adressen-zoek-page1-size10"),
    *[pytest.param(c, 1, 100, id=f"{c}-page1-size100") for c in g.LARGE_COLLECTIONS],
    pytest.param("adressen-id", None, None, id="adressen-id"),
]


@check("address.headers.pagination", MUST, "200 responses of the paginated operations carry X-Pagination-Page/-Limit matching the request",
       requirements=["ADDR-4.X-Pagination"],
       proven_by=["address.pagination_headers_missing", "address.pagination_headers_wrong"],
       may_fail_under=["address.page_size_maximum_exclusive", "address.default_page_size_wrong"],
       observes="exchange",
       feature="part 4, 9 / response headers")
@pytest.mark.parametrize(("case", "page", "size"), PAGINATION)
def test_pagination(address_api, case, page, size):
    if case == "adressen-id":  # listed too, but takes no paging parameters: values not pinned
        headers.pagination_headers(_ok(address_api, case), "/adressen/{nummeraanduidingIdentificatie}")
        return
    path, params = g.COLLECTIONS[case](address_api)
    if page is not None:
        params = {**params, "page": str(page), "pageSize": str(size)}
    ex = address_api.get(path, params=params)
    g.expect_status(ex, 200)
    headers.has_pagination_headers(ex, page=page or 1, limit=size or 20)


@check("address.headers.rate_limit_present", MUST, "200 responses carry the six rate-limit headers as integers",
       requirements=["ADDR-4.rate-limit", "ADDR-8.quota"],
       proven_by=["address.rate_limit_headers_missing"],
       may_fail_under=["address.restricted_policy_applied_to_all_keys"],
       observes="exchange",
       feature="part 4, 9 / response headers")
@pytest.mark.parametrize("case", ["adressen-id", "adresseerbareobjecten", "adressenuitgebreid-id"])
def test_rate_limit_present(address_api, case):
    g.rate_limit_values(_ok(address_api, case), address_api.header)


@check("address.headers.rate_limit_values", OBSERVATION, "Values of DayLimit, RateLimit-Limit and RateLimit-Reset (not shown)",
       requirements=["ADDR-8.quota", "ADDR-4.rate-limit", "ADDR-8.quota-values"],
       feature="part 4, 9 / response headers")
def test_rate_limit_values(address_api, observe):
    ex = _ok(address_api)
    names = ("Registry-RateLimit-DayLimit", "RateLimit-Limit", "RateLimit-Reset")
    values = {name: g.header(ex, address_api.header(name)) for name in names}
    observe({name: int(v) if v and v.isdigit() else v for name, v in values.items()})


@check("address.headers.rate_limit_remaining_decreases", SHOULD, "RateLimit-Remaining decreases from one request to the next",
       requirements=["BAGREF-6"],
       proven_by=["address.rate_limit_remaining_not_decremented"],
       may_fail_under=["address.rate_limit_headers_missing"],
       feature="part 4, 9 / response headers")
def test_rate_limit_remaining_decreases(address_api):
    """Two requests in a row; a window may roll over between them, so up to 3 pairs are tried."""
    pairs = []
    for _ in range(3):
        first, second = _ok(address_api), _ok(address_api)
        if g.remaining_decreased(first, second):
            return
        pairs.append((g.header(first, "RateLimit-Remaining"), g.header(second, "RateLimit-Remaining")))
    expect(False, "RateLimit-Remaining did not decrease in 3 pairs of consecutive requests", actual=pairs)
