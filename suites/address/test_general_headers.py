"""Response headers of seed part 4 ("Response headers") and part 9."""

from __future__ import annotations

from conformance.checks.address import general as g
from conformance.checks.registry import OBSERVATION, SHOULD, check
from conformance.findings import expect
from conformance.http.exchange import decimal_integer


def _send(address_api, case: str, **extra):
    path, params = g.SUCCESS_CASES[case](address_api)
    return address_api.get(path, params={**params, **extra})


def _ok(address_api, case: str = "adressen-id", **extra):
    ex = _send(address_api, case, **extra)
    g.expect_status(ex, 200)
    return ex


@check("address.headers.api_version_value", OBSERVATION, "Value of the api-version header (format not shown)",
       requirements=["ADDR-9.api-version"],
       feature="part 4, 9 / response headers")
def test_api_version_value(address_api, observe):
    observe(g.header(_ok(address_api), "api-version") or "(absent)")


@check("address.headers.warning_content", OBSERVATION, "Content of the warning header (meaning not shown)",
       requirements=["ADDR-4.warning.content"],
       feature="part 4, 9 / response headers")
def test_warning_content(address_api, observe):
    observe({case: g.header(_ok(address_api, case), "warning") for case in ("adressen-id", "adressen-zoek")})


@check("address.headers.rate_limit_values", OBSERVATION, "Values of DayLimit, RateLimit-Limit and RateLimit-Reset (not shown)",
       requirements=["ADDR-8.quota", "ADDR-4.rate-limit", "ADDR-8.quota-values"],
       feature="part 4, 9 / response headers")
def test_rate_limit_values(address_api, observe):
    ex = _ok(address_api)
    names = ("Registry-RateLimit-DayLimit", "RateLimit-Limit", "RateLimit-Reset")
    values = {name: g.header(ex, address_api.header(name)) for name in names}
    observe({name: n if (n := decimal_integer(v)) is not None else v for name, v in values.items()})


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
