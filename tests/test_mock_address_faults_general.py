"""On/off tests of the address mock's general faults (conformance/mocks/address/faults_general.py),
the faults that prove the checks of suites/address/test_general_*.py.

Like FAULT_CASES in test_mock_address_app.py: each case holds without the fault and fails
with it; then each fault is shown to leave the requests next to the one it breaks alone.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import pytest
from test_mock_address_app import (
    BASE,
    KEY,
    LIMITED,
    NA,
    PAND,
    RESTRICTED,
    VBO,
    Clock,
    TestClient,
    W,
    _keys,
    get,
    items,
    ok,
)

from conformance.checks.address.hal import all_hrefs as hal_hrefs
from conformance.mocks.address import data, faults_general
from conformance.mocks.address.app import create_app
from conformance.mocks.address.config import AddressMockConfig
from conformance.mocks.address.params import parse_timestamp
from conformance.mocks.faults import Fault, FaultSet

Check = Callable[[TestClient], bool]
OBJECTS, ADRESSEN, UITGEBREID = "/adresseerbareobjecten", "/adressen", "/adressenuitgebreid"
_PAND_ADRESSEN = f"{ADRESSEN}?pandIdentificatie={PAND}"
_BBOX = f"{OBJECTS}?bbox={W['bbox']}"
_PC12 = f"{ADRESSEN}?postcode=1181VA&huisnummer=12"
_HISTORIE = W["adresseerbaarobject_historie"]


@pytest.fixture(scope="module")
def make(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., TestClient]:
    db_path = data.ensure_database(tmp_path_factory.mktemp("address-db-general") / "address.sqlite")

    def build(*faults: str, maintenance: bool = False) -> TestClient:
        config = AddressMockConfig(db_path=db_path, keys=_keys(), maintenance=maintenance, clock=Clock())
        return TestClient(create_app(config, FaultSet(frozenset(faults))))

    return build


def _status(path: str, status: int, **kw: Any) -> Check:
    return lambda c: get(c, path, **kw).status_code == status


def _all(*checks: Check) -> Check:
    return lambda c: all(check(c) for check in checks)


def _accept_crs_on_406(c: TestClient) -> bool:
    """Both 406s (notAcceptable and crsNotAcceptable) name the CRS in acceptCrs."""
    answers = [get(c, f"{ADRESSEN}/{NA}", accept="application/xml"),
               get(c, f"{OBJECTS}/{VBO}", accept_crs="epsg:4326")]  # fmt: skip
    return all(r.status_code == 406 and r.headers.get("acceptCrs") == "epsg:28992" for r in answers)


def _instance_has_query(c: TestClient) -> bool:
    path = f"{OBJECTS}/{VBO}?geldigOp=23-04-2019"
    return get(c, path).json()["instance"] == BASE + path


def _self_link(c: TestClient) -> bool:
    return all("self" in ok(get(c, path))["_links"] for path in (f"{ADRESSEN}/{NA}", _PAND_ADRESSEN, f"{OBJECTS}/{VBO}"))


def _links_on_the_host_asked(c: TestClient) -> bool:
    body = ok(get(c, f"{ADRESSEN}/{NA}?expand=true"))
    return all(href.startswith("http://testserver/") for href in hal_hrefs(body))


def _embedded(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Embedded resources at the top and inside an object's type wrapper."""
    holders = [body, *(v for k, v in body.items() if k != "_links" and isinstance(v, dict))]
    found: list[dict[str, Any]] = []
    for holder in holders:
        for value in (holder.get("_embedded") or {}).values():
            found.extend(value if isinstance(value, list) else [value])
    return found


def _embedded_self_links(c: TestClient) -> bool:
    paths = (_PAND_ADRESSEN, f"{ADRESSEN}/{NA}?expand=true", f"{OBJECTS}/{VBO}?expand=true",
             f"{OBJECTS}?pandIdentificaties={PAND}&expand=true")  # fmt: skip
    found = [resource for path in paths for resource in _embedded(ok(get(c, path)))]
    return bool(found) and all("self" in r["_links"] for r in found)


def _default_page_size(c: TestClient) -> bool:
    r = get(c, _PAND_ADRESSEN)
    return len(items(ok(r), "adressen")) == 20 and r.headers["X-Pagination-Limit"] == "20"


def _remaining_decreases(c: TestClient) -> bool:
    first, second = (int(get(c, f"{ADRESSEN}/{NA}").headers["RateLimit-Remaining"]) for _ in range(2))
    return second < first


def _retry_after_is_a_date(c: TestClient) -> bool:
    value = get(c, f"{ADRESSEN}/{NA}").headers["Retry-After"]
    try:
        return not value.isdigit() and parsedate_to_datetime(value) is not None
    except (TypeError, ValueError):
        return False


def _moments(c: TestClient) -> list[str]:
    """The latest registration instants of the history sample (around them answers change)."""
    voorkomens = [v["verblijfsobject"]["verblijfsobject"]["voorkomen"]
                  for v in ok(get(c, f"{OBJECTS}/{_HISTORIE}/lvc"))["_embedded"]["voorkomens"]]  # fmt: skip
    return [max(v[key] for v in voorkomens) for key in ("tijdstipRegistratie", "tijdstipRegistratieLV")]


def _data_at(c: TestClient, moment: str) -> Any:
    return ok(get(c, f"{OBJECTS}/{_HISTORIE}?beschikbaarOp={moment}"))["verblijfsobject"]["verblijfsobject"]


def _short_forms_equivalent(c: TestClient) -> bool:
    for moment in _moments(c):
        earlier = (datetime.fromisoformat(moment) - timedelta(milliseconds=1)).isoformat(timespec="milliseconds")
        pairs = [(moment[:16], moment[:16] + ":00.000"), (moment[:19], moment[:19] + ".000"),
                 (earlier + "999", earlier)]  # fmt: skip
        if any(_data_at(c, short) != _data_at(c, full) for short, full in pairs):
            return False
    return True


def _problem_uris(c: TestClient) -> bool:
    """type and instance of a 404 and of a 400 are URI references (RFC 3986)."""
    from conformance.checks.uri_reference import is_uri_reference

    bodies = [get(c, f"{ADRESSEN}/0000000000000000").json(), get(c, f"{ADRESSEN}?postcode=0000XX&huisnummer=1").json()]
    return all(is_uri_reference(b.get("type", "")) and is_uri_reference(b.get("instance", "")) for b in bodies)


# fault -> (maintenance mode, check that holds without the fault and fails with it)
GENERAL_FAULT_CASES: dict[str, tuple[bool, Check]] = {
    "time_travel_forbidden": (False, _all(_status(f"{OBJECTS}/{VBO}?geldigOp=2024-01-01", 200),
                                          _status(f"{OBJECTS}/{VBO}?beschikbaarOp=2024-01-01T12:00", 200))),
    "accept_crs_header_missing_on_406": (False, _accept_crs_on_406),
    "accept_exact_match_only": (False, _all(
        _status(f"{ADRESSEN}/{NA}", 200, accept="application/hal+json, application/problem+json"),
        _status(f"{ADRESSEN}/{NA}", 200, accept="application/json;q=0.5, application/hal+json"))),
    "problem_instance_without_query": (False, _instance_has_query),
    "self_link_missing": (False, _self_link),
    "links_to_other_origin": (False, _links_on_the_host_asked),
    "embedded_self_link_missing": (False, _embedded_self_links),
    "page_size_maximum_exclusive": (False, _status(f"{_PAND_ADRESSEN}&pageSize=100", 200)),
    "default_page_size_wrong": (False, _default_page_size),
    "boolean_not_validated": (False, _all(
        _status(f"{OBJECTS}/{VBO}?huidig=ja", 400), _status(f"{ADRESSEN}/{NA}?inclusiefEindStatus=2", 400),
        _status(f"{_PC12}&exacteMatch=ja", 400))),
    "beschikbaarop_not_validated": (False, _all(
        _status(f"{OBJECTS}/{VBO}?beschikbaarOp=morgen", 400),
        _status(f"{OBJECTS}/{VBO}?beschikbaarOp=2019-04-23T25:00:00", 400))),
    "beschikbaarop_short_form_misread": (False, _short_forms_equivalent),
    "rate_limit_remaining_not_decremented": (False, _remaining_decreases),
    "supported_crs_rejected": (False, _all(
        _status(f"{OBJECTS}/{VBO}", 200, accept_crs="epsg:28992"), _status(_BBOX, 200, content_crs="epsg:28992"))),
    "retry_after_in_seconds": (True, _retry_after_is_a_date),
    "problem_type_not_uri": (False, _problem_uris),
    "problem_instance_not_uri": (False, _problem_uris),
    "restricted_policy_applied_to_all_keys": (False, _status(f"{UITGEBREID}/{NA}", 200)),
    "write_methods_served": (False, lambda c: all(
        c.request(m, BASE + f"{ADRESSEN}/{NA}", headers={"X-Api-Key": KEY}).status_code == 405
        for m in ("POST", "PUT", "PATCH", "DELETE"))),
}  # fmt: skip
# Faults of the launcher, not of the app: proven by their own tests below.
LAUNCHER_FAULTS = {"unversioned_base_path"}


def test_every_general_fault_has_a_case() -> None:
    declared = {f for f in vars(faults_general).values() if isinstance(f, Fault)}
    assert {f.name.removeprefix("address.") for f in declared} == set(GENERAL_FAULT_CASES) | LAUNCHER_FAULTS
    assert all(f.description for f in declared)


@pytest.mark.parametrize("name", sorted(GENERAL_FAULT_CASES))
def test_fault_changes_what_it_names(make: Callable[..., TestClient], name: str) -> None:
    maintenance, check = GENERAL_FAULT_CASES[name]
    assert check(make(maintenance=maintenance)), "conforming without the fault"
    assert not check(make(f"address.{name}", maintenance=maintenance)), "fault had no effect"


# Requests near each fault's target that it must leave alone: (path, request headers).
Request = tuple[str, dict[str, str]]
UNTOUCHED: dict[str, list[Request]] = {
    "accept_crs_header_missing_on_406": [(f"{ADRESSEN}/{NA}", {"accept": "application/xml"})],
    "accept_exact_match_only": [(f"{ADRESSEN}/{NA}", {"accept": "application/hal+json"}),
                                (f"{ADRESSEN}/{NA}", {"accept": "application/json"})],
    "problem_instance_without_query": [(_PC12 + "&pageSize=10", {})],
    "page_size_maximum_exclusive": [(f"{_PAND_ADRESSEN}&pageSize=100&page=1", {}), (f"{_PAND_ADRESSEN}&pageSize=99", {}),
                                    (f"{_PAND_ADRESSEN}&pageSize=101&page=1", {}),
                                    ("/adressen/zoek?zoek=Kerkstraat&pageSize=100", {})],
    "default_page_size_wrong": [(f"{_PAND_ADRESSEN}&pageSize=10", {}), (f"{_PAND_ADRESSEN}&pageSize=20&page=2", {})],
    "boolean_not_validated": [(f"{OBJECTS}/{VBO}/lvc?geheleLvc=ja", {}), (f"{_BBOX}&geconstateerd=Nee", {}),
                              (f"{OBJECTS}/{VBO}?huidig=true", {}), (f"{_PC12}&exacteMatch=true", {}),
                              (f"{OBJECTS}/{VBO}?huidig=", {})],
    "beschikbaarop_not_validated": [(f"{OBJECTS}/{VBO}?geldigOp=2019-13-01", {}),
                                    (f"{OBJECTS}/{VBO}?beschikbaarOp=2024-01-01T12:00", {})],
    "beschikbaarop_short_form_misread": [(f"{OBJECTS}/{_HISTORIE}?beschikbaarOp=2019-04-01T16:16:10.057", {}),
                                         (f"{OBJECTS}/{VBO}?beschikbaarOp=morgen", {})],
    "supported_crs_rejected": [(f"{OBJECTS}/{VBO}", {"accept-crs": "epsg:4326"}), (_BBOX, {"content-crs": "epsg:4326"}),
                               (f"{ADRESSEN}/{NA}", {"accept-crs": "epsg:28992"})],
    "restricted_policy_applied_to_all_keys": [(f"{UITGEBREID}?q=Kerkstraat", {}), (f"{ADRESSEN}/{NA}", {})],
    "time_travel_forbidden": [(f"{OBJECTS}/{VBO}?huidig=true", {}), (f"{OBJECTS}/{VBO}/lvc?geheleLvc=true", {})],
}  # fmt: skip


def _answer(r: httpx.Response) -> tuple[int, Any]:
    return r.status_code, r.json() if r.content else None


@pytest.mark.parametrize("name", sorted(GENERAL_FAULT_CASES))
def test_fault_leaves_other_requests_alone(make: Callable[..., TestClient], name: str) -> None:
    clean, faulty = make(), make(f"address.{name}")
    requests: list[Request] = [*UNTOUCHED.get(name, [])]
    hal = {"accept": "application/hal+json"}  # what a HAL client sends (accept_exact_match_only serves it)
    every_body = ("self_link_missing", "links_to_other_origin")  # change every 200 body
    if name not in every_body:
        requests += [(f"{ADRESSEN}/{NA}", hal), (f"{OBJECTS}/{VBO}", hal)]
    if name not in (*every_body, "embedded_self_link_missing"):  # the latter changes collections
        requests += [(f"{OBJECTS}/{VBO}/lvc", hal), (f"{_PAND_ADRESSEN}&pageSize=10", hal)]
    for path, headers in requests:
        want, got = get(clean, path, **headers), get(faulty, path, **headers)
        assert _answer(got) == _answer(want), (path, headers)


def test_self_link_missing_keeps_other_links(make: Callable[..., TestClient]) -> None:
    clean, faulty = ok(get(make(), f"{ADRESSEN}/{NA}?expand=true")), ok(get(make("address.self_link_missing"), f"{ADRESSEN}/{NA}?expand=true"))
    assert set(faulty["_links"]) == set(clean["_links"]) - {"self"}
    assert faulty["_embedded"] == clean["_embedded"]  # embedded resources keep theirs


def test_embedded_self_link_missing_keeps_the_top_level_self(make: Callable[..., TestClient]) -> None:
    path = f"{OBJECTS}?pandIdentificaties={PAND}&expand=true&pageSize=10"
    clean, faulty = ok(get(make(), path)), ok(get(make("address.embedded_self_link_missing"), path))
    assert faulty["_links"] == clean["_links"]
    first = items(faulty, "adresseerbareObjecten")[0]
    assert "self" not in first["_links"]
    assert all("self" not in r["_links"] for r in _embedded(first))
    assert "self" in first["verblijfsobject"]["_links"]  # the type wrapper is the item itself, not embedded


def test_boolean_not_validated_reads_false(make: Callable[..., TestClient]) -> None:
    clean, faulty = make(), make("address.boolean_not_validated")
    assert items(ok(get(faulty, f"{_PC12}&exacteMatch=ja")), "adressen") == items(
        ok(get(clean, f"{_PC12}&exacteMatch=false")), "adressen")
    ended = W["adresseerbaarobject_eindstatus"]
    ok(get(faulty, f"{OBJECTS}/{ended}?huidig=2"))  # huidig=false: the ended object is served
    ok(get(faulty, f"{OBJECTS}/{VBO}/lvc?geheleLvc=true"))


def test_beschikbaarop_not_validated_serves_as_if_not_sent(make: Callable[..., TestClient]) -> None:
    clean, faulty = make(), make("address.beschikbaarop_not_validated")
    without = ok(get(clean, f"{OBJECTS}/{_HISTORIE}"))["verblijfsobject"]["verblijfsobject"]
    assert ok(get(faulty, f"{OBJECTS}/{_HISTORIE}?beschikbaarOp=morgen"))["verblijfsobject"]["verblijfsobject"] == without


def test_rate_limit_remaining_not_decremented_still_limits(make: Callable[..., TestClient]) -> None:
    c = make("address.rate_limit_remaining_not_decremented")
    answers = [get(c, f"{ADRESSEN}/{NA}", key=LIMITED) for _ in range(3)]
    assert [r.status_code for r in answers] == [200, 200, 429]
    assert [r.headers["RateLimit-Remaining"] for r in answers[:2]] == ["2", "2"]
    assert answers[2].headers["RateLimit-Remaining"] == "0"  # a 429 still says so


def test_restricted_policy_applied_to_all_keys(make: Callable[..., TestClient]) -> None:
    c = make("address.restricted_policy_applied_to_all_keys")
    body = get(c, f"{UITGEBREID}/{NA}").json()
    assert (body["status"], body["code"]) == (403, "autorisation")
    for path in (f"{UITGEBREID}/{NA}", f"{UITGEBREID}?q=Kerkstraat"):
        assert get(c, path, key=RESTRICTED).status_code == 403  # the restricted key as before


def test_retry_after_in_seconds(make: Callable[..., TestClient]) -> None:
    r = get(make("address.retry_after_in_seconds", maintenance=True), f"{ADRESSEN}/{NA}")
    assert (r.status_code, r.headers["Retry-After"]) == (503, "600")


@pytest.mark.parametrize(
    "text, clean, misread",
    [
        ("2020-01-01T12:30", "2020-01-01T12:30:00", "2020-01-01T12:30:59.999000"),
        ("2020-01-01T12:30:15", "2020-01-01T12:30:15", "2020-01-01T12:30:15.999000"),
        ("2020-01-01T12:30:15.1", "2020-01-01T12:30:15.100000", "2020-01-01T12:30:15.100000"),
        ("2020-01-01T12:30:15.123456", "2020-01-01T12:30:15.123000", "2020-01-01T12:30:15.123000"),
        ("2020-01-01T12:30:15.123556", "2020-01-01T12:30:15.123000", "2020-01-01T12:30:15.124000"),
        ("2020-12-31T23:59:59.9999", "2020-12-31T23:59:59.999000", "2021-01-01T00:00:00"),
    ],
)  # fmt: skip
def test_parse_timestamp_misread(text: str, clean: str, misread: str) -> None:
    assert str(parse_timestamp(text).isoformat()) == clean  # type: ignore[union-attr]
    assert str(parse_timestamp(text, misread=True).isoformat()) == misread  # type: ignore[union-attr]
    assert parse_timestamp("2020-01-01T24:00", misread=True) is None
    assert parse_timestamp("9999-12-31T23:59:59.9999", misread=True) is None  # no overflow escapes


def test_warning_header_follows_rfc7234(make: Callable[..., TestClient]) -> None:
    """warn-code SP warn-agent SP warn-text: the agent is the versioned base URL, unquoted."""
    c = make()
    for path in (f"{ADRESSEN}/{NA}", "/adressen/zoek?zoek=Kerkstraat"):
        code, agent, text = get(c, path).headers["warning"].split(" ", 2)
        assert (code, agent) == ("299", f"http://testserver{BASE}")
        assert text.startswith('"') and text.endswith('"') and text.count('"') == 2


@pytest.mark.parametrize(("faults", "ends_with"), [((), "/individuelebevragingen/v2"),
                                                    (("address.unversioned_base_path",), "/individuelebevragingen")])
def test_the_launcher_serves_where_it_says(faults: tuple[str, ...], ends_with: str) -> None:
    from conformance.mocks.launcher import MockCluster
    from conformance.profiles import load_profile

    profile = load_profile("local-mock")
    with MockCluster(profile, faults=FaultSet(frozenset(faults))) as cluster:
        base = cluster.urls["address"]
        key = cluster.secrets[profile.address.secret_env["api_key"]]
        r = httpx.get(f"{base}/adressen/{NA}", headers={"X-Api-Key": key}, trust_env=False)
    assert base.endswith(ends_with)
    assert r.status_code == 200 and r.json()["_links"]["self"]["href"] == f"{base}/adressen/{NA}"
