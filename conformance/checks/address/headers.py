"""Response headers of seed part 4 ("Response headers") and part 9."""

from __future__ import annotations

from collections.abc import Callable
from email.utils import parsedate_to_datetime

from conformance.findings import expect
from conformance.http.exchange import Exchange, decimal_integer

HAL_MEDIA_TYPE = "application/hal+json"
CRS = "epsg:28992"
RATE_LIMIT_HEADERS = (
    "Registry-RateLimit-DayLimit",
    "Registry-RateLimit-DayLimit-Remaining",
    "Registry-RateLimit-DayLimit-Reset",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
)
# Seed part 4: 200s of these operations carry X-Pagination-Page and -Limit.
PAGINATED_PATHS = ("/adresseerbareobjecten", "/adressen", "/adressen/zoek", "/adressenuitgebreid")


def header_cause(name: str) -> str:
    """How a missing header is stated, the same by every check it takes down (one defect, one
    root cause): the rate-limit headers and the pagination headers go together."""
    if name.lower() in {h.lower() for h in RATE_LIMIT_HEADERS} or name.lower().endswith(
            ("ratelimit-daylimit", "ratelimit-daylimit-remaining", "ratelimit-daylimit-reset")):
        return "rate-limit headers missing"
    if name.lower().startswith("x-pagination-"):
        return "X-Pagination headers missing"
    return f"{name} header missing"


def is_hal_json(ex: Exchange) -> None:
    expect(ex.media_type == HAL_MEDIA_TYPE, "success response is not application/hal+json",
           expected=HAL_MEDIA_TYPE, actual=ex.media_type or "(none)")


def has_api_version(ex: Exchange) -> None:
    value = ex.response_headers.get("api-version")
    expect(bool(value and value.strip()), "api-version header missing", actual=ex.summary())


def has_pagination_headers(ex: Exchange, *, page: int | None, limit: int | None) -> None:
    """Both headers, each agreeing with the request; where the request's value is no integer
    (a generated request the server answered anyway), an integer."""
    for name, expected in (("X-Pagination-Page", page), ("X-Pagination-Limit", limit)):
        value = ex.response_headers.get(name)
        expect(value is not None, f"{name} header missing", actual=ex.summary(), cause=header_cause(name))
        if expected is None:
            expect(decimal_integer(value) is not None, f"{name} is not a non-negative integer", actual=value)
        else:
            expect(value.strip() == str(expected), f"{name} disagrees with the request",
                   expected=expected, actual=value)


def pagination_headers(ex: Exchange, relative_path: str) -> None:
    """Seed part 4: a 200 of a paginated operation carries X-Pagination-Page and -Limit. On a
    collection they agree with the request (page and pageSize, defaults 1 and 20); on
    /adressen/{nummeraanduidingIdentificatie}, which takes no paging parameters, the seed says
    they are present, not what they say of one object: present, as integers (issue 51: a
    server that sends Limit 1 for one address conforms)."""
    if relative_path in PAGINATED_PATHS:
        page, limit = requested_paging(ex)
        has_pagination_headers(ex, page=page, limit=limit)
        return
    for name in ("X-Pagination-Page", "X-Pagination-Limit"):
        value = ex.response_headers.get(name)
        expect(value is not None, f"{name} header missing", actual=ex.summary(), cause=header_cause(name))
        expect(decimal_integer(value) is not None, f"{name} is not a non-negative integer", actual=value)


def requested_paging(ex: Exchange) -> tuple[int | None, int | None]:
    """page and pageSize as requested, with the seed's defaults (1 and 20); None for a value
    that is no integer."""
    query = dict(ex.query)
    return decimal_integer(query.get("page", "1")), decimal_integer(query.get("pageSize", "20"))


def is_paginated_operation(relative_path: str) -> bool:
    return relative_path in PAGINATED_PATHS or (
        relative_path.startswith("/adressen/") and relative_path.count("/") == 2
    )


def has_content_crs(ex: Exchange) -> None:
    value = ex.response_headers.get("Content-Crs")
    expect(value is not None and value.strip().lower() == CRS, "Content-Crs header missing or wrong",
           expected=CRS, actual=value)


def _same(name: str) -> str:
    return name


def has_rate_limit_headers(ex: Exchange, header: Callable[[str], str] = _same) -> None:
    """All six rate-limit headers, each a non-negative integer."""
    for seed_name in RATE_LIMIT_HEADERS:
        name = header(seed_name)
        value = ex.response_headers.get(name)
        expect(value is not None, f"{name} header missing", actual=ex.summary(), cause=header_cause(seed_name))
        expect(decimal_integer(value) is not None, f"{name} is not a non-negative integer", actual=value)


def retry_after_is_http_date(ex: Exchange) -> None:
    value = ex.response_headers.get("Retry-After")
    expect(value is not None, "503 without Retry-After", actual=ex.summary())
    try:
        parsedate_to_datetime(value)
    except (TypeError, ValueError):
        expect(False, "Retry-After is not an HTTP date", actual=value)
