"""address.errors.code_matches_status is one rule (issue 52): the exchange rule judges the
scenarios of its own, every exchange of a run and of a capture, and the contract fuzzing's
answers (as a schemathesis check made from it), with one reading of seed part 7."""

from __future__ import annotations

import json

import pytest

from conformance.catalogue import load
from conformance.checks.address.st_checks import rule_checks, seed_context
from conformance.findings import Finding
from conformance.http.exchange import Exchange, Headers
from conformance.passive.rules import exchange_rules
from conformance.passive.traffic import address_exchange

BASE = "http://api/lvbag/individuelebevragingen/v2"
load()
RULE = next(r for r in exchange_rules("address") if r.check == "address.errors.code_matches_status")


def _answer(path: str, status: int, code: str, **request_headers: str):
    body = json.dumps({"type": "about:blank", "title": "t", "status": status, "detail": "d", "instance": path,
                       "code": code}).encode()
    ex = Exchange(method="GET", url=BASE + path, request_headers=Headers(list(request_headers.items())),
                  request_body=b"", status=status,
                  response_headers=Headers([("Content-Type", "application/problem+json")]), body=body)
    item = address_exchange(ex, BASE)
    assert item is not None
    return item


def _verdict(item) -> str | None:
    if not RULE.applies(item, seed_context()):
        return None
    try:
        RULE.judge(item, seed_context())
    except Finding:
        return "failed"
    return "passed"


@pytest.mark.parametrize(("path", "status", "code", "headers", "verdict"), [
    ("/adressen", 400, "paramsRequired", {}, "passed"),
    ("/adressen", 400, "paramsValidation", {}, "failed"),
    ("/bronhouders", 400, "invalidParams", {}, "failed"),
    # Another parameter may be at fault too, and the seed does not say which condition wins.
    ("/adresseerbareobjecten?type=AAA", 400, "paramsValidation", {}, None),
    ("/adressen?postcode=1234AB", 400, "paramsValidation", {}, None),
    ("/adressen/0363200000000001", 400, "paramsValidation", {}, None),
    ("/adressen/0363200000000001", 401, "authentication", {}, "passed"),
    ("/adressen/0363200000000001", 403, "forbidden", {}, "failed"),
    ("/adressen/0363200000000001", 404, "notFound", {}, "passed"),
    # Seed part 7's notAcceptable is for a format asked with Accept; a 406 for a CRS may be the register's crsNotAcceptable.
    ("/adressen/0363200000000001", 406, "notAcceptable", {"Accept": "application/xml"}, "passed"),
    ("/adressen/0363200000000001", 406, "crsNotAcceptable", {"Accept": "application/xml"}, "failed"),
    ("/adresseerbareobjecten/0363010000000001", 406, "crsNotAcceptable", {"Accept-Crs": "epsg:4326"}, "passed"),
    ("/adresseerbareobjecten/0363010000000001", 406, "notAcceptable", {"Accept-Crs": "epsg:4326"}, "passed"),
    # A 406 to the supported CRS is the crs checks' finding; its code names the CRS as its reason.
    ("/adresseerbareobjecten/0363010000000001", 406, "crsNotAcceptable", {"Accept-Crs": "epsg:28992"}, "passed"),
    ("/adresseerbareobjecten/0363010000000001", 406, "wrongCode", {"Accept-Crs": "epsg:28992"}, "failed"),
    # 412's row names no precondition: what a 412 says is measured by a check of its own.
    ("/adressen/0363200000000001", 412, "whatever", {}, None),
    ("/adressen/0363200000000001", 500, "serverError", {}, "passed"),
    ("/adressen/0363200000000001", 500, "internalError", {}, "failed"),
    # 429's and 503's codes are judged with their bodies, by rules of their own.
    ("/adressen/0363200000000001", 429, "tooManyRequests", {}, None),
])
def test_the_rule_reads_the_condition_from_the_request(path, status, code, headers, verdict) -> None:
    assert _verdict(_answer(path, status, code, **headers)) == verdict


def test_the_contract_fuzzing_judges_by_the_exchange_rules_themselves() -> None:
    """The schemathesis checks of the fuzzed answers are the exchange rules, one each, by severity."""
    for severity in ("MUST", "SHOULD"):
        made = [check.__name__ for check in rule_checks(severity, seed_context)]
        assert made == [r.check for r in exchange_rules("address") if r.severity == severity]
        assert made
