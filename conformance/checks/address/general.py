"""General rules of the address API: pure checks on Exchanges, plus small request recipes.

The checks complement problem.py, headers.py and hal.py (seed parts 1, 2, 4, 5, 7 to 9;
bag-api.md 4.1, 4.2, 5.6, 6). Every function either returns quietly or raises a Finding.

The recipes at the end (SUCCESS_CASES, ERROR_CASES, COLLECTIONS, `until`, `pages`) build
requests from an `api` object with `get(path, params=None, headers=None, key=...)` and
`sample(name)` -- the `address_api` fixture in suites, a fake in unit tests -- so that the
scenario tests stay one short function each.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from conformance.checks.address import hal
from conformance.checks.address.control import Req, control_served
from conformance.checks.address.headers import CRS, RATE_LIMIT_HEADERS, header_cause
from conformance.checks.address.problem import problem_body
from conformance.errors import NotJudged
from conformance.findings import Blocked, Finding, expect, require
from conformance.http.address import sample_cause
from conformance.http.exchange import Exchange, decimal_integer

HeaderName = Callable[[str], str]


def _same(name: str) -> str:
    return name


# --- status and media type -------------------------------------------------------------
def expect_status(ex: Exchange, *statuses: int) -> None:
    expect(ex.status in statuses, "unexpected HTTP status",
           expected=" or ".join(map(str, statuses)), actual=ex.summary())


def is_client_error(ex: Exchange) -> None:
    """Malformed input is the client's fault: a 4xx, never a 5xx (seed part 7)."""
    expect(400 <= ex.status < 500, "malformed input not answered with a 4xx", expected="4xx",
           actual=ex.summary())


# --- headers ----------------------------------------------------------------------------
def header(ex: Exchange, name: str) -> str | None:
    value = ex.response_headers.get(name)
    return value.strip() if value is not None else None


def has_header(ex: Exchange, name: str) -> str:
    value = header(ex, name)
    expect(bool(value), f"{name} header missing or empty", actual=ex.summary(), cause=header_cause(name))
    assert value is not None
    return value


def has_accept_crs_header(ex: Exchange) -> None:
    """Seed part 4: a 406 carries acceptCrs (the acceptable CRS, epsg:28992)."""
    value = has_header(ex, "acceptCrs")
    expect(value.lower() == CRS, "acceptCrs header does not name the CRS", expected=CRS, actual=value)


def integer_header(ex: Exchange, name: str) -> int:
    value = has_header(ex, name)
    number = decimal_integer(value)
    expect(number is not None, f"{name} is not a non-negative integer", actual=value)
    assert number is not None
    return number


def rate_limit_values(ex: Exchange, name: HeaderName = _same) -> dict[str, int]:
    """The six rate-limit headers (seed part 4), each a non-negative integer, by seed name."""
    return {seed: integer_header(ex, name(seed)) for seed in RATE_LIMIT_HEADERS}


def remaining_decreased(first: Exchange, second: Exchange, name: str = "RateLimit-Remaining") -> bool:
    """True when the second response reports fewer remaining requests than the first."""
    return integer_header(second, name) < integer_header(first, name)


def day_quota_exhausted(ex: Exchange, name: HeaderName = _same) -> None:
    """A quota 429 says so: DayLimit-Remaining is 0 (bag-api.md 6)."""
    expect_status(ex, 429)
    remaining = integer_header(ex, name("Registry-RateLimit-DayLimit-Remaining"))
    expect(remaining == 0, "quota 429 does not report 0 remaining requests", expected=0, actual=remaining)


# RFC 9110 5.6.7: IMF-fixdate = day-name "," SP day SP month SP year SP hh:mm:ss SP "GMT",
# the one form a sender may generate (the obsolete rfc850 and asctime forms are for readers).
IMF_FIXDATE = re.compile(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
                         r" [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT")


def retry_after_is_http_date(ex: Exchange) -> None:
    """Seed part 4: Retry-After on a 503 is an HTTP date (not seconds), which a server
    generates as an IMF-fixdate (RFC 9110 5.6.7) naming a real moment."""
    value = has_header(ex, "Retry-After")
    try:
        moment = parsedate_to_datetime(value) if IMF_FIXDATE.fullmatch(value) else None
    except (TypeError, ValueError, IndexError):
        moment = None
    expect(moment is not None, "Retry-After is not an HTTP date (IMF-fixdate)",
           expected="e.g. Sun, 28 Nov 2017 16:41:41 GMT", actual=value)


# --- problem bodies ------------------------------------------------------------------------
def _split(url: str) -> tuple[str, list[tuple[str, str]]]:
    parts = urlsplit(url)
    return unquote(parts.path), parse_qsl(parts.query, keep_blank_values=True)


def instance_names_request(ex: Exchange) -> None:
    """bag-api.md 5.6: `instance` is the failing request, path plus query (relative or absolute)."""
    instance = problem_body(ex).get("instance")
    expect(isinstance(instance, str) and instance != "", "problem has no instance", actual=instance)
    got_path, got_query = _split(instance)
    want_path, want_query = _split(ex.url)
    below_base = want_path.split("/v2", 1)[-1]
    expect(got_path.endswith(below_base), "instance does not name the request path",
           expected=below_base, actual=instance)
    missing = [pair for pair in want_query if pair not in got_query]
    expect(not missing, "instance leaves out parameters of the request", expected=want_query,
           actual=instance)


# --- HAL ---------------------------------------------------------------------------------
def self_href(resource: Any) -> str | None:
    """`_links.self.href` of a resource, or None."""
    links = resource.get("_links") if isinstance(resource, dict) else None
    link = links.get("self") if isinstance(links, dict) else None
    href = link.get("href") if isinstance(link, dict) else None
    return href if isinstance(href, str) and href else None


def has_self_link(ex: Exchange) -> None:
    """Seed part 1 (HAL): a 200 resource carries `_links.self` with an href."""
    expect(self_href(hal.body(ex)) is not None, "response has no _links.self href", actual=ex.summary())


def embedded_resources(resource: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, resource) for everything in `_embedded`, at the top or inside the one typed
    wrapper of an addressable object (bag-api.md 3.4)."""
    holders = [resource] + [v for k, v in resource.items() if k != "_links" and isinstance(v, dict)]
    found: list[tuple[str, Any]] = []
    for holder in holders:
        emb = holder.get("_embedded")
        if not isinstance(emb, dict):
            continue
        for name, value in emb.items():
            for i, item in enumerate(value if isinstance(value, list) else [value]):
                found.append((f"{name}[{i}]" if isinstance(value, list) else name, item))
    return found


def embedded_have_self_links(ex: Exchange) -> None:
    """bag-api.md 4.2: every embedded resource (collection item or expanded relation)
    carries its own self link. There must be something embedded to look at."""
    found = embedded_resources(hal.body(ex))
    # Nothing embedded: the rule cannot be judged here (the expand checks judge embedding).
    require(bool(found), "an embedded resource to look at", f"{ex.method} {ex.path} -> {ex.status}, nothing embedded")
    missing = [name for name, item in found if self_href(item) is None]
    expect(not missing, "embedded resources without _links.self", actual=missing[:5])


def collection_items(ex: Exchange) -> list[Any]:
    """The one array under `_embedded` of a collection; absent or empty means no results."""
    emb = hal.body(ex).get("_embedded")
    if emb is None:
        return []
    expect(isinstance(emb, dict), "_embedded is not an object", actual=type(emb).__name__)
    arrays = [v for v in emb.values() if isinstance(v, list)]
    expect(len(arrays) <= 1, "collection has more than one embedded array", actual=sorted(emb))
    return arrays[0] if arrays else []


def paging_links_apply(ex: Exchange, *, page: int, last: int) -> None:
    """bag-api.md 4.1: first/previous from page 2 on; next/last before the last page; none
    of them on a single page; each pointing to the right page."""
    pages = hal.link_pages(ex)
    want: dict[str, int] = {}
    if page > 1:
        want.update(first=1, previous=page - 1)
    if page < last:
        want.update(next=page + 1, last=last)
    expect(pages == want, f"paging links of page {page} of {last} are wrong", expected=want or "none",
           actual=pages or "none")


def last_page_consistent(last_link_page: int, last_page: Exchange, *, total: int, page_size: int) -> None:
    """bag-api.md 4.1: `last` is ceil(total / pageSize) and holds results but no `next`."""
    expected = max(1, math.ceil(total / page_size))
    expect(last_link_page == expected, "last link does not point to ceil(total/pageSize)",
           expected=f"page {expected} ({total} results, pageSize {page_size})", actual=f"page {last_link_page}")
    expect_status(last_page, 200)
    expect(len(collection_items(last_page)) > 0, "the page `last` points to is empty", actual=last_page.summary())
    expect(hal.href(hal.body(last_page), "next") is None, "the last page has a next link",
           actual=hal.href(hal.body(last_page), "next"))


def without_links(value: Any) -> Any:
    """The data with every `_links` removed (links echo the request spelling)."""
    if isinstance(value, dict):
        return {k: without_links(v) for k, v in value.items() if k != "_links"}
    if isinstance(value, list):
        return [without_links(v) for v in value]
    return value


def same_data(first: Exchange, second: Exchange) -> None:
    """Equivalent requests give the same resource data (links aside)."""
    expect_status(first, 200)
    expect_status(second, 200)
    expect(without_links(first.json) == without_links(second.json), "equivalent requests give different data",
           expected=first.summary(), actual=second.summary())


# --- request recipes -------------------------------------------------------------------------
Request = tuple[str, dict[str, str] | list[tuple[str, str]]]


class SampleData(dict):
    """A sample resource as the server returned it. The checks that merely start from it
    are blocked, with the sample's one cause, when it lacks what they need."""

    def __init__(self, name: str, value: str, path: str, ex: Exchange, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.name, self.value, self.path, self.exchange = name, value, path, ex

    def blocked(self, what: str) -> Blocked:
        return Blocked(f"the sample {self.name} as the server renders it",
                       sample_cause(self.name, self.value, self.path, self.exchange, what))

    def need(self, member: str) -> Any:
        """A member the check needs: present and not empty, else the check is blocked."""
        return self.having(member, self.get(member))

    def having(self, what: str, value: Any) -> Any:
        if value in (None, "", [], {}):
            raise self.blocked(f"without {what}")
        return value


def sample_resource(api: Any, name: str, path: str = "/adressen/{}", params: dict[str, str] | None = None,
                    *, check: Callable[[Exchange, str], Any] | None = None) -> SampleData:
    """GET of a sample object that a check starts from: a 200 JSON object (that passes
    `check(ex, value)`, when given), else the check is blocked with the sample's cause."""
    value = api.sample(name)
    target = path.format(value)
    ex = api.get(target, params=params)
    try:
        expect_status(ex, 200)
        data = hal.body(ex)
        if check is not None:
            check(ex, value)
        elif path == "/adressen/{}":  # an address sample must be the one asked for
            expect(data.get("nummeraanduidingIdentificatie") == value, "the address returned is not the one requested")
    except Finding as finding:
        what = finding.message if ex.status == 200 else ""
        raise Blocked(f"the sample {name} as the server renders it",
                      sample_cause(name, value, target, ex, what)) from None
    return SampleData(name, value, target, ex, data)


def sample_address(api: Any) -> SampleData:
    """The `nummeraanduiding` sample as the server returns it (postcode, huisnummer, ...)."""
    data = sample_resource(api, "nummeraanduiding")
    data.need("postcode")
    if not isinstance(data.need("huisnummer"), int):
        raise data.blocked("without an integer huisnummer")
    return data


def _pand(api: Any) -> str:
    return api.sample("pand")


# Valid requests of every endpoint of seed part 4 (with a query, so echoes can be checked).
SUCCESS_CASES: dict[str, Callable[[Any], Request]] = {
    "adresseerbareobjecten": lambda api: ("/adresseerbareobjecten", {"pandIdentificaties": _pand(api), "pageSize": "10"}),
    "adresseerbareobjecten-id": lambda api: (
        f"/adresseerbareobjecten/{api.sample('verblijfsobject')}", {"expand": "maaktDeelUitVan"}),
    "adresseerbareobjecten-lvc": lambda api: (
        f"/adresseerbareobjecten/{api.sample('verblijfsobject')}/lvc", {"geheleLvc": "true"}),
    "adressen": lambda api: ("/adressen", {"pandIdentificatie": _pand(api), "pageSize": "10"}),
    "adressen-zoek": lambda api: ("/adressen/zoek", {"zoek": sample_address(api)["postcode"]}),
    "adressen-id": lambda api: (f"/adressen/{api.sample('nummeraanduiding')}", {"expand": "woonplaats"}),
    "adressenuitgebreid": lambda api: ("/adressenuitgebreid", {"pandIdentificatie": _pand(api), "pageSize": "10"}),
    "adressenuitgebreid-id": lambda api: (
        f"/adressenuitgebreid/{api.sample('nummeraanduiding')}", {"inclusiefEindStatus": "false"}),
}
# The path of each success case, for matching against the profile's restricted paths.
SUCCESS_PATHS = {
    "adresseerbareobjecten": "/adresseerbareobjecten", "adresseerbareobjecten-id": "/adresseerbareobjecten/{id}",
    "adresseerbareobjecten-lvc": "/adresseerbareobjecten/{id}/lvc", "adressen": "/adressen",
    "adressen-zoek": "/adressen/zoek", "adressen-id": "/adressen/{id}", "adressenuitgebreid": "/adressenuitgebreid",
    "adressenuitgebreid-id": "/adressenuitgebreid/{id}",
}  # fmt: skip


def under(path: str, prefixes: tuple[str, ...]) -> bool:
    """Whole segments: "/adressen" covers /adressen/zoek, not /adressenuitgebreid."""
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in prefixes)


def restricted_cases(api: Any) -> list[str]:
    """The success cases on a path the restricted key may not use (the profile's
    `services.address.restricted_paths`). None: the rule (seed part 5: "A caller without
    rights for the address: 403") applies to every deployment, but the run lacks what judging
    it takes: not judged, naming the keys to add (issue 51; never silently not applicable)."""
    prefixes = tuple(api.restricted_paths)
    found = [case for case, path in SUCCESS_PATHS.items() if under(path, prefixes)]
    if not found:
        raise NotJudged("no restricted path of the suite's endpoints in the profile"
                        + (f" (services.address.restricted_paths: {', '.join(prefixes)})" if prefixes else ""),
                        "name in services.address.restricted_paths the paths the restricted key may not use, and "
                        "its variable in services.address.secrets.restricted_api_key")
    return found


def permitted_cases(api: Any) -> list[str]:
    return [case for case, path in SUCCESS_PATHS.items() if not under(path, tuple(api.restricted_paths))]


# Paginated collections (seed part 4 "Response headers") with at least 45 results for the
# `pand` sample (design.md "Samples"); /adressen/zoek by the sample's postcode.
COLLECTIONS: dict[str, Callable[[Any], Request]] = {
    "adresseerbareobjecten": lambda api: ("/adresseerbareobjecten", {"pandIdentificaties": _pand(api)}),
    "adressen": lambda api: ("/adressen", {"pandIdentificatie": _pand(api)}),
    "adressenuitgebreid": lambda api: ("/adressenuitgebreid", {"pandIdentificatie": _pand(api)}),
    "adressen-zoek": lambda api: ("/adressen/zoek", {"zoek": sample_address(api)["postcode"]}),
}
LARGE_COLLECTIONS = ("adresseerbareobjecten", "adressen", "adressenuitgebreid")


@dataclass(frozen=True)
class ErrorCase:
    """An error response to inspect, with the request it changes (its control)."""

    status: int
    code: str | None  # the seed's code for this condition (part 7), where it names one
    # Whether the changed request is designed to be refused is read from the request itself
    # when it is sent (conformance/http/intent.py), never declared here.
    requests: Callable[[Any], tuple[Req, Req]]  # (control, changed)

    def send(self, api: Any) -> Exchange:
        """The changed request's answer, once the control was served (else blocked)."""
        control, changed = self.requests(api)
        control_served(api, control)
        return changed.send(api)

    def error_response(self, api: Any) -> Exchange:
        """The error response to inspect. A server that answers the trigger without an error
        leaves nothing to judge (the check of that trigger's own rule fails it): blocked."""
        ex = self.send(api)
        require(ex.status >= 400, f"an error response ({self.status}) to inspect",
                f"{ex.method} {ex.path} -> {ex.status}, no error")
        return ex


def _num(api: Any) -> Req:
    return Req.of(f"/adressen/{api.sample('nummeraanduiding')}")


def _restricted(api: Any) -> tuple[Req, Req]:
    path, params = SUCCESS_CASES[restricted_cases(api)[0]](api)
    control = Req.of(path, params)
    return control, control.with_key("restricted")


def _today() -> str:
    return date.today().isoformat()


# Faults that answer the error cases below without the error, or with another one: a check of
# the error answers may fail (or be blocked) under them, as collateral.
ERROR_CASE_COLLATERAL = ("address.no_api_key_served", "address.invalid_key_served",
                         "address.restricted_key_not_enforced", "address.not_found_as_200",
                         "address.accept_not_negotiated", "address.required_params_not_enforced",
                         "address.server_error_on_malformed_date")
ERROR_CASES: dict[str, ErrorCase] = {
    "400-no-parameters": ErrorCase(400, "paramsRequired", lambda api: (
        Req.of("/adressen", {"pandIdentificatie": _pand(api)}), Req.of("/adressen"))),
    "400-malformed-value": ErrorCase(400, None, lambda api: (
        (vbo := Req.of(f"/adresseerbareobjecten/{api.sample('verblijfsobject')}")).with_param("geldigOp", _today()),
        vbo.with_param("geldigOp", "23-04-2019"))),
    "401-missing-key": ErrorCase(401, "authentication", lambda api: (_num(api), _num(api).with_key("none"))),
    "401-invalid-key": ErrorCase(401, "authentication", lambda api: (_num(api), _num(api).with_key("invalid"))),
    "403-no-rights": ErrorCase(403, "autorisation", _restricted),
    "404-unknown-id": ErrorCase(404, "notFound", lambda api: (
        _num(api), Req.of(f"/adressen/{api.sample('unknown_nummeraanduiding')}"))),
    "406-accept-json": ErrorCase(406, "notAcceptable", lambda api: (
        _num(api).with_header("Accept", "application/hal+json"), _num(api).with_header("Accept", "application/json"))),
}


def until(send: Callable[[], Exchange], stop: Callable[[Exchange], bool], limit: int) -> Iterator[Exchange]:
    """Send up to `limit` requests, yielding each response; stops after the first that `stop`s."""
    for _ in range(limit):
        ex = send()
        yield ex
        if stop(ex):
            return


def pages(api: Any, path: str, params: dict[str, str], *, page_size: int, limit: int = 30) -> list[Exchange]:
    """Pages 1, 2, ... requested by number (not by following links) up to the first page
    that is short, empty or refused; the refused or empty one is not returned."""
    found: list[Exchange] = []
    for number in range(1, limit + 1):
        ex = api.get(path, params={**params, "page": str(number), "pageSize": str(page_size)})
        if ex.status != 200 or not collection_items(ex):
            expect(number > 1, "page 1 of the collection is not a non-empty 200", actual=ex.summary())
            break
        found.append(ex)
        if len(collection_items(ex)) < page_size:
            break
    return found


def follow_next(api: Any, first: Exchange, limit: int = 30) -> list[Exchange]:
    """`first` and the pages reached by following `next` links (at most `limit`)."""
    walked = [first]
    while len(walked) < limit:
        url = hal.href(hal.body(walked[-1]), "next")
        if url is None:
            return walked
        ex = api.get(url)
        expect_status(ex, 200)
        walked.append(ex)
    raise Finding(f"more than {limit} pages when following next links", actual=walked[-1].summary())


def window_reset_seen(exchanges: list[Exchange], name: str = "RateLimit-Remaining") -> bool:
    """True when RateLimit-Remaining went up between two consecutive responses (a new window)."""
    values = [header(ex, name) for ex in exchanges]
    numbers = [decimal_integer(v) for v in values]
    return any(a is not None and b is not None and b > a for a, b in zip(numbers, numbers[1:], strict=False))


_DATE_TIME = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.([0-9]+))?")


def date_times(value: Any, keys: tuple[str, ...]) -> list[str]:
    """Values of the named members anywhere in a JSON document, as `YYYY-MM-DDThh:mm:ss.sss`
    (the zone, if any, is dropped; the fraction cut or padded to 3 digits)."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in keys and isinstance(item, str):
                match = _DATE_TIME.match(item)
                if match:
                    found.append(f"{match.group(1)}.{(match.group(2) or '')[:3].ljust(3, '0')}")
            else:
                found.extend(date_times(item, keys))
    elif isinstance(value, list):
        for item in value:
            found.extend(date_times(item, keys))
    return found
