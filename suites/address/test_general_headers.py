"""Response headers of seed part 4 ("Response headers") and part 9."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import headers
from conformance.findings import expect


def _send(address_api, case: str, **extra):
    path, params = g.SUCCESS_CASES[case](address_api)
    return address_api.get(path, params={**params, **extra})


def _ok(address_api, case: str = "adressen-id", **extra):
    ex = _send(address_api, case, **extra)
    g.expect_status(ex, 200)
    return ex


def _api_version_cases():
    cases = [pytest.param("200", id="200")]
    for name, case in g.ERROR_CASES.items():
        cases.append(pytest.param(name, marks=[pytest.mark.negative] if case.negative else [], id=name))
    return cases


@pytest.mark.check("address.headers.api_version_present")
@pytest.mark.parametrize("case", _api_version_cases())
def test_api_version_present(address_api, case):
    if case == "200":
        ex = _ok(address_api)
    else:
        ex = g.ERROR_CASES[case].send(address_api)
        expect(ex.status != 429, "unexpected 429 (exempt from api-version)", actual=ex.summary())
    headers.has_api_version(ex)


@pytest.mark.check("address.headers.api_version_value")
def test_api_version_value(address_api, observe):
    observe(g.header(_ok(address_api), "api-version") or "(absent)")


@pytest.mark.check("address.headers.warning_present")
@pytest.mark.parametrize("case", list(g.SUCCESS_CASES))
def test_warning_present(address_api, case):
    g.has_header(_ok(address_api, case), "warning")


@pytest.mark.check("address.headers.warning_content")
def test_warning_content(address_api, observe):
    observe({case: g.header(_ok(address_api, case), "warning") for case in ("adressen-id", "adressen-zoek")})


CONTENT_CRS_QUERIES = {
    "nummeraanduidingIdentificatie": lambda api: {"nummeraanduidingIdentificatie": api.sample("nummeraanduiding")},
    "bbox": lambda api: {"bbox": api.sample("bbox")},
    "pandIdentificaties": lambda api: {"pandIdentificaties": api.sample("pand")},
}


@pytest.mark.check("address.headers.content_crs")
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


@pytest.mark.check("address.headers.pagination")
@pytest.mark.parametrize(("case", "page", "size"), PAGINATION)
def test_pagination(address_api, case, page, size):
    if case == "adressen-id":  # listed too, but takes no paging parameters: values not pinned
        ex = _ok(address_api, case)
        for name in ("X-Pagination-Page", "X-Pagination-Limit"):
            g.integer_header(ex, name)
        return
    path, params = g.COLLECTIONS[case](address_api)
    if page is not None:
        params = {**params, "page": str(page), "pageSize": str(size)}
    ex = address_api.get(path, params=params)
    g.expect_status(ex, 200)
    headers.has_pagination_headers(ex, page=page or 1, limit=size or 20)


@pytest.mark.check("address.headers.rate_limit_present")
@pytest.mark.parametrize("case", ["adressen-id", "adresseerbareobjecten", "adressenuitgebreid-id"])
def test_rate_limit_present(address_api, case):
    g.rate_limit_values(_ok(address_api, case), address_api.header)


@pytest.mark.check("address.headers.rate_limit_values")
def test_rate_limit_values(address_api, observe):
    ex = _ok(address_api)
    names = ("Registry-RateLimit-DayLimit", "RateLimit-Limit", "RateLimit-Reset")
    values = {name: g.header(ex, address_api.header(name)) for name in names}
    observe({name: int(v) if v and v.isdigit() else v for name, v in values.items()})


@pytest.mark.check("address.headers.rate_limit_remaining_decreases")
def test_rate_limit_remaining_decreases(address_api):
    """Two requests in a row; a window may roll over between them, so up to 3 pairs are tried."""
    pairs = []
    for _ in range(3):
        first, second = _ok(address_api), _ok(address_api)
        if g.remaining_decreased(first, second):
            return
        pairs.append((g.header(first, "RateLimit-Remaining"), g.header(second, "RateLimit-Remaining")))
    expect(False, "RateLimit-Remaining did not decrease in 3 pairs of consecutive requests", actual=pairs)
