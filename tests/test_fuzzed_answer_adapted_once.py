"""A fuzzed answer is adapted to the harness's Exchange once for all the checks that judge it
(conformance/checks/address/st_checks.py), and never stands in for another answer: each
check judges the answer it is handed, whichever answer was adapted before it."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import requests
from schemathesis.core.transport import Response

from conformance.checks.address import st_checks

BASE = "http://127.0.0.1:8080/lvbag/individuelebevragingen/v2"


def _answer(path: str, status: int, body: bytes) -> Response:
    request = requests.Request("GET", f"{BASE}{path}", headers={"Accept": "application/hal+json"}).prepare()
    return Response(status, {"Content-Type": ["application/hal+json"], "API-Version": ["2.1.0"]}, body, request,
                    elapsed=0.01, verify=False)


def _case(path: str) -> SimpleNamespace:
    schema = SimpleNamespace(base_path="/lvbag/individuelebevragingen/v2")
    return SimpleNamespace(operation=SimpleNamespace(method="GET", path=path, schema=schema))


def test_each_answer_is_adapted_once_and_judged_as_itself() -> None:
    first = _answer("/adressen/0363200000123456", 200, b'{"huisnummer": 1}')
    second = _answer("/adressen/0363200000654321", 404, b'{"status": 404}')
    lookup = _case("/adressen/{nummeraanduidingIdentificatie}")

    one = st_checks._address_exchange(first, lookup)
    assert st_checks._address_exchange(first, lookup) is one  # the next check of the same answer
    assert (one.status, one.json) == (200, {"huisnummer": 1})
    other = st_checks._address_exchange(second, lookup)
    assert (other.status, other.json) == (404, {"status": 404})
    assert st_checks._address_exchange(first, lookup) is not one  # adapted again, as itself
    assert st_checks._address_exchange(first, lookup).url.endswith("/0363200000123456")

    item = st_checks._traffic_item(second, lookup)
    assert st_checks._traffic_item(second, lookup) is item
    assert item.exchange.status == 404 and item.relative == "/adressen/0363200000654321"
    assert st_checks._traffic_item(first, lookup).exchange.status == 200


def test_an_operation_outside_the_seed_is_not_adapted() -> None:
    answer = _answer("/elsewhere", 200, b"{}")
    assert st_checks._address_exchange(answer, _case("/elsewhere")) is None
    assert st_checks._traffic_item(answer, _case("/elsewhere")) is None


def test_threads_keep_their_own_last_answer() -> None:
    """Stateful shards and side-by-side tests judge answers in threads of one process."""
    lookup = _case("/adressen/{nummeraanduidingIdentificatie}")
    mine = _answer("/adressen/0363200000000001", 200, b'{"mine": true}')
    theirs = _answer("/adressen/0363200000000002", 200, b'{"theirs": true}')
    kept = st_checks._address_exchange(mine, lookup)
    seen: list[object] = []
    worker = threading.Thread(target=lambda: seen.append(st_checks._address_exchange(theirs, lookup)))
    worker.start()
    worker.join()
    assert seen[0].json == {"theirs": True}
    assert st_checks._address_exchange(mine, lookup) is kept
