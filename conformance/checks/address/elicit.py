"""Scenarios that elicit an answer of a kind from the address API: what an exchange rule
(conformance/passive/rules/address.py `exchange_rule`) names in `elicit`, so that the active
run can judge the rule on answers of its own. Each is `api -> Exchange` (the `address_api`
fixture); none judges anything but its own precondition (an error case's control is served).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from conformance.checks.address import general as g
from conformance.checks.address.control import Req
from conformance.http.exchange import Exchange

Scenario = Callable[[Any], Exchange]


def _success(case: str) -> Scenario:
    def send(api: Any) -> Exchange:
        path, params = g.SUCCESS_CASES[case](api)
        return api.get(path, params=params)
    return send


def _error(case: str) -> Scenario:
    return lambda api: g.ERROR_CASES[case].error_response(api)


def _request(request: Callable[[Any], tuple[str, dict[str, str]]]) -> Scenario:
    def send(api: Any) -> Exchange:
        path, params = request(api)
        return api.get(path, params=params)
    return send


def _escaped_value(api: Any) -> Exchange:
    """A 400 to a request whose query holds a percent-escape (a date written with spaces and brackets):
    the problem's instance names that request, and must stay a URI reference."""
    vbo = Req.of(f"/adresseerbareobjecten/{api.sample('verblijfsobject')}")
    case = g.ErrorCase(400, None, lambda _: (vbo.with_param("geldigOp", date.today().isoformat()),
                                             vbo.with_param("geldigOp", "<23 04 2019>")))
    return case.error_response(api)


# A valid request of every endpoint of seed part 4 (general.SUCCESS_CASES).
SUCCESS: dict[str, Scenario] = {name: _success(name) for name in g.SUCCESS_CASES}
# The seed's error conditions (part 7), each once its control was served (general.ERROR_CASES).
ERRORS: dict[str, Scenario] = {name: _error(name) for name in g.ERROR_CASES}
# The same requests, their answers whatever they are (a rule of every answer judges a 200 too).
ERROR_TRIGGERS: dict[str, Scenario] = {name: g.ERROR_CASES[name].send for name in g.ERROR_CASES}
ESCAPED_ERROR: dict[str, Scenario] = {"400-escaped-value": _escaped_value}
# Answers full of links: a paged collection and expanded resources (embedded links).
LINKING: dict[str, Scenario] = {
    "adressen-paged": _success("adressen"),
    "adressen-id-expand": _request(lambda api: (f"/adressen/{api.sample('nummeraanduiding')}", {"expand": "true"})),
    "adresseerbareobjecten-id-expand": _request(
        lambda api: (f"/adresseerbareobjecten/{api.sample('verblijfsobject')}", {"expand": "true"})),
}


def paged(case: str, page: int | None, size: int | None) -> Scenario:
    """A page of a paginated collection (general.COLLECTIONS), with page and pageSize when given."""
    def send(api: Any) -> Exchange:
        path, params = g.COLLECTIONS[case](api)
        extra = {"page": str(page), "pageSize": str(size)} if page is not None else {}
        return api.get(path, params={**params, **extra})
    return send


# Paginated operations (seed part 4 "Response headers"): the default page, a later page and
# the largest, of each collection, and the lookup of one address (headers present only).
PAGES: dict[str, Scenario] = {
    **{f"{c}-default": paged(c, None, None) for c in g.COLLECTIONS},
    **{f"{c}-page2-size10": paged(c, 2, 10) for c in g.LARGE_COLLECTIONS},
    "adressen-zoek-page1-size10": paged("adressen-zoek", 1, 10),
    **{f"{c}-page1-size100": paged(c, 1, 100) for c in g.LARGE_COLLECTIONS},
    "adressen-id": _success("adressen-id"),
}


def only(scenarios: dict[str, Scenario], *names: str) -> dict[str, Scenario]:
    return {name: scenarios[name] for name in names}


def _content_crs(params: Callable[[Any], dict[str, str]]) -> Scenario:
    return lambda api: api.get("/adresseerbareobjecten", params=params(api))


# /adresseerbareobjecten by each kind of query: its answers carry Content-Crs (seed part 4).
CONTENT_CRS: dict[str, Scenario] = {
    "nummeraanduidingIdentificatie": _content_crs(lambda api: {"nummeraanduidingIdentificatie": api.sample("nummeraanduiding")}),
    "bbox": _content_crs(lambda api: {"bbox": api.sample("bbox")}),
    "pandIdentificaties": _content_crs(lambda api: {"pandIdentificaties": api.sample("pand")}),
}
