"""Every answer checked against its response schema (check address.response.schema_valid).

* the validator on hand-made exchanges: a string huisnummer is a `type` violation at
  `$.huisnummer` of GET /adressen/{id}; undescribed statuses, operations and non-JSON answers
  are not validated (other checks' business); OpenAPI 3 `nullable` and `$ref` are honoured;
* the tally: one violation per (operation, status, JSON path, kind), counted per answer,
  across processes (the files of a run's report directory), and the check's verdicts;
* the fault address.huisnummer_as_string changes only the type of huisnummer;
* both ways through `conformance run --suite address`: the faithful mock passes the check,
  the fault fails it (exit 1, a MUST failure naming the operation and the JSON path).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import forked_cli
import pytest
import schemathesis
from starlette.testclient import TestClient

from conformance import last_tests
from conformance.checks.address import response_schema as rs
from conformance.errors import NotJudged
from conformance.findings import Blocked, Finding
from conformance.http.exchange import Exchange, Headers
from conformance.mocks.address import data
from conformance.mocks.address.app import create_app
from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
from conformance.mocks.faults import FaultSet
from conformance.openapi import responses
from conformance.openapi.responses import ResponseSchemas, Tally
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

BASE_URL = "http://registry.test/lvbag/individuelebevragingen/v2"
NA = "0363200000123456"
HAL = "application/hal+json"


def exchange(path: str, body: Any, *, status: int = 200, media: str = HAL, method: str = "GET") -> Exchange:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Exchange(method=method, url=BASE_URL + path, request_headers=Headers(), request_body=b"", status=status,
                    response_headers=Headers([("Content-Type", media)]), body=raw)


def address(**changes: Any) -> dict[str, Any]:
    body = {
        "openbareRuimteNaam": "Kerkstraat", "huisnummer": 12, "woonplaatsNaam": "Amstelveer",
        "nummeraanduidingIdentificatie": NA, "openbareRuimteIdentificatie": "0363300000000001",
        "woonplaatsIdentificatie": "1951", "adresseerbaarObjectIdentificatie": "0363010000000001",
        "_links": {"self": {"href": f"{BASE_URL}/adressen/{NA}"}},
    }
    return {**body, **changes}


@pytest.fixture(scope="module")
def schemas() -> ResponseSchemas:
    profile = load_profile("local-mock")
    assert profile.address is not None
    return ResponseSchemas.load(profile.address, BASE_URL)


# --------------------------------------------------------------------------- the validator
def test_a_conforming_answer_has_no_violation(schemas: ResponseSchemas) -> None:
    judged = schemas.judge(exchange(f"/adressen/{NA}", address()))
    assert not isinstance(judged, str)
    assert judged.errors == ()
    assert (judged.operation, judged.operation_id, judged.schema) == (
        "GET /adressen/{nummeraanduidingIdentificatie}", "bevraagAdressenMetNumId", "AdresIOHal")


def test_a_string_huisnummer_is_a_type_violation_at_its_path(schemas: ResponseSchemas) -> None:
    judged = schemas.judge(exchange(f"/adressen/{NA}", address(huisnummer="12")))
    assert not isinstance(judged, str)
    assert [(e.location, e.kind) for e in judged.errors] == [("$.huisnummer", "type")]
    assert '"12" is not of type "integer"' in judged.errors[0].message


def test_a_missing_member_names_it(schemas: ResponseSchemas) -> None:
    body = address()
    del body["woonplaatsNaam"]
    judged = schemas.judge(exchange(f"/adressen/{NA}", body))
    assert not isinstance(judged, str)
    assert [(e.location, e.kind) for e in judged.errors] == [("$.woonplaatsNaam", "required")]


def test_literal_segments_win_and_indices_collapse(schemas: ResponseSchemas) -> None:
    collection = {"_links": {"self": {"href": f"{BASE_URL}/adressen?q=x"}},
                  "_embedded": {"adressen": [address(), address(huisnummer="7"), address(huisnummer="8")]}}
    judged = schemas.judge(exchange("/adressen?q=x", collection))
    assert not isinstance(judged, str)
    assert {(e.location, e.kind) for e in judged.errors} == {("$._embedded.adressen[*].huisnummer", "type")}
    assert schemas.operation_of("GET", "/adressen/zoek") == "/adressen/zoek"
    assert schemas.operation_of("GET", f"/adressen/{NA}") == "/adressen/{nummeraanduidingIdentificatie}"


@pytest.mark.parametrize(("ex", "why"), [
    (exchange(f"/adressen/{NA}", b"<html>busy</html>", media="text/html"), "not JSON"),
    (exchange(f"/adressen/{NA}", b"{not json", media=HAL), "not JSON"),
    (exchange("/adressen/zoek?zoek=x", {"anything": 1}, status=404, media="application/problem+json"),
     "status the description does not define"),
    (exchange("/panden/1", {"anything": 1}), "operations the description does not have"),
    (exchange(f"/adressen/{NA}", address(), method="POST"), "operations the description does not have"),
])
def test_other_checks_answers_are_not_validated(schemas: ResponseSchemas, ex: Exchange, why: str) -> None:
    judged = schemas.judge(ex)
    assert isinstance(judged, str) and why in judged


def test_hal_served_as_plain_json_is_still_judged_by_shape(schemas: ResponseSchemas) -> None:
    judged = schemas.judge(exchange(f"/adressen/{NA}", address(huisnummer="12"), media="application/json"))
    assert not isinstance(judged, str) and [e.location for e in judged.errors] == ["$.huisnummer"]


def test_nullable_and_refs_of_openapi_3_are_honoured() -> None:
    description = {
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/things/{id}": {"get": {"operationId": "thing", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"$ref": "#/components/responses/Thing"}}}}},
        "components": {
            "responses": {"Thing": {"description": "a thing", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Thing"}}}}},
            "schemas": {"Thing": {"type": "object", "required": ["n"], "properties": {
                "n": {"type": "integer", "nullable": True}, "tag": {"$ref": "#/components/schemas/Tag"}}},
                "Tag": {"type": "string", "nullable": False}}},
    }
    schemas = ResponseSchemas(schemathesis.openapi.from_dict(description), "http://x.test/api")

    def judge(body: Any) -> list[tuple[str, str]]:
        ex = Exchange(method="GET", url="http://x.test/api/things/1", request_headers=Headers(), request_body=b"",
                      status=200, response_headers=Headers([("content-type", "application/json")]),
                      body=json.dumps(body).encode())
        judged = schemas.judge(ex)
        assert not isinstance(judged, str), judged
        assert (judged.operation, judged.schema) == ("GET /things/{id}", "Thing")
        return [(e.location, e.kind) for e in judged.errors]

    assert judge({"n": None, "tag": "a"}) == []
    assert judge({"n": "1"}) == [("$.n", "anyOf")]  # nullable: integer or null
    assert judge({"n": 1, "tag": None}) == [("$.tag", "type")]


# --------------------------------------------------------------------------- tally and verdict
def test_one_violation_per_operation_and_path_counted_per_answer(schemas: ResponseSchemas, tmp_path: Path) -> None:
    main, worker = Tally(), Tally()
    for tally, number in ((main, "1"), (worker, "2"), (worker, "3")):
        ex = exchange(f"/adressen/{NA}", address(huisnummer=number))
        tally.add(schemas.judge(ex), ex)
    ok = exchange(f"/adressen/{NA}", address())
    worker.add(schemas.judge(ok), ok)
    worker.add(schemas.judge(exchange("/panden/1", {})), ok)
    rs.flush(main, tmp_path, "main")
    rs.flush(worker, tmp_path, "gw0")
    total = rs.gather(tmp_path)
    # huisnummer is a field of a HAL resource: seed part 2 does not show it (public behaviour)
    assert (total.validated, total.offending, total.offending_public, sum(total.skipped.values())) == (4, 0, 3, 1)
    [violation] = total.violations.values()
    assert (violation.operation, violation.status, violation.location, violation.count, violation.public) == (
        "GET /adressen/{nummeraanduidingIdentificatie} (bevraagAdressenMetNumId)", 200, "$.huisnummer", 3, True)
    evidence = violation.first_exchange()
    assert evidence is not None and evidence.url == BASE_URL + f"/adressen/{NA}" and evidence.json["huisnummer"] == "1"
    rs.judge(total)  # the seed's constraints hold
    with pytest.raises(Finding) as found:
        rs.judge(total, public=True)
    assert "GET /adressen/{nummeraanduidingIdentificatie} (bevraagAdressenMetNumId) -> 200 AdresIOHal: " \
           "$.huisnummer" in str(found.value) and "3 answers" in str(found.value)
    assert rs.console_findings(total)[0].startswith("finding (address.response.public_behaviour): GET /adressen/")


def test_verdicts_without_violations() -> None:
    rs.judge(Tally(validated=3))  # passes
    with pytest.raises(NotJudged):  # no answer to validate: the run lacked material (issue 34)
        rs.judge(Tally())
    only_html = Tally()
    only_html.skipped["answers that are not JSON"] = 2
    with pytest.raises(Blocked, match="none of its 2 answers could be validated: 2 answers that are not JSON"):
        rs.judge(only_html)


def test_the_check_waits_for_the_other_workers_sessions(tmp_path: Path) -> None:
    """A worker holds its lock for its whole session; the check blocks on it (in the kernel,
    no polling) and goes on once the worker is done, or dead."""
    import fcntl
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from conformance import last_tests; "
         "h = last_tests.hold_running(sys.argv[1], 'gw1'); print('held', flush=True); sys.stdin.readline()",
         str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with last_tests.running_path(tmp_path, "gw1").open("a") as probe, pytest.raises(BlockingIOError):
            fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)  # what wait_for_workers would block on
    finally:
        holder.kill()  # a worker that dies releases its lock as one that ends does
        holder.wait()
    last_tests.wait_for_workers(tmp_path, "gw0", 2)  # returns: gw1 holds nothing now, gw0 is the caller


def test_answers_are_judged_only_while_a_run_watches(schemas: ResponseSchemas) -> None:
    profile = load_profile("local-mock")
    ex = exchange(f"/adressen/{NA}", address(huisnummer="12"))
    responses.stop()
    responses.observe(profile.address, BASE_URL, ex)
    tally = responses.start()
    try:
        responses.observe(profile.address, BASE_URL, ex)

        class Broken:
            openapi = "/nonexistent/description.yaml"

        responses.observe(Broken(), BASE_URL, ex)  # never raises into the caller's check
    finally:
        assert responses.stop() is tally
    assert tally.validated == 1 and len(tally.violations) == 1
    assert any("cannot be loaded" in why for why in tally.skipped)


# --------------------------------------------------------------------------- the fault
@pytest.fixture(scope="module")
def mock(tmp_path_factory: pytest.TempPathFactory):
    db_path = data.ensure_database(tmp_path_factory.mktemp("address-db-schema") / "address.sqlite")

    def build(*faults: str) -> TestClient:
        config = AddressMockConfig(db_path=db_path, keys={"key": KeyPolicy()})
        return TestClient(create_app(config, FaultSet(frozenset(faults))))

    return build


def _strings_to_ints(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: int(v) if k == "huisnummer" and isinstance(v, str) else _strings_to_ints(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_strings_to_ints(v) for v in node]
    return node


def test_the_fault_turns_only_huisnummer_into_a_string(mock) -> None:
    clean, faulty = mock(), mock("address.huisnummer_as_string")
    w = data.WELL_KNOWN
    base = "/lvbag/individuelebevragingen/v2"
    paths = [f"/adressen/{w['nummeraanduiding']}", "/adressen?postcode=1181VA&huisnummer=12",
             f"/adressenuitgebreid/{w['nummeraanduiding']}", f"/adresseerbareobjecten/{w['verblijfsobject']}",
             f"/adressen/{w['nummeraanduiding']}?expand=true", "/adressen/zoek?zoek=1181VA"]
    for path in paths:
        want = clean.get(base + path, headers={"X-Api-Key": "key"})
        got = faulty.get(base + path, headers={"X-Api-Key": "key"})
        assert got.status_code == want.status_code == 200, path
        assert _strings_to_ints(got.json()) == want.json(), path
    one = faulty.get(base + paths[0], headers={"X-Api-Key": "key"}).json()
    assert one["huisnummer"] == str(clean.get(base + paths[0], headers={"X-Api-Key": "key"}).json()["huisnummer"])


# --------------------------------------------------------------------------- both ways, through a run
# Scenario checks that reach existing addresses (lookups by id, searches), the check last.
SELECTION = ("response_schema or test_adres_by_id or test_by_postcode_huisnummer or test_zoek_results_identified "
             "or (uitgebreid and test_by_id)")


def _run(report_dir: Path, *faults: str, selection: str = SELECTION) -> tuple[int, dict[str, Any]]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
           "--report-dir", str(report_dir), "--seed", "1"]
    for name in faults:
        cmd += ["--mock-fault", name]
    cmd += ["--", "-q", "-k", selection]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary = report_dir / "summary.json"
    assert summary.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.returncode, json.loads(summary.read_text())


def _entry(summary: dict[str, Any], check: str = rs.CHECK_ID) -> dict[str, Any]:
    [entry] = [e for e in summary["checks"] if e["check"] == check]
    return entry


def test_the_faithful_mock_passes_the_check(tmp_path: Path) -> None:
    code, summary = _run(tmp_path)
    assert code == 0, [(e["check"], e["outcome"], e["reason"]) for e in summary["checks"] if e["outcome"] != "passed"]
    assert _entry(summary)["outcome"] == "passed"
    assert len(summary["checks"]) > 3  # the scenario checks ran too
    assert not (tmp_path / rs.DIRNAME).exists()  # the processes' tallies are not left behind


def test_a_string_huisnummer_fails_only_the_public_behaviour_check(tmp_path: Path) -> None:
    """huisnummer is a field of a HAL resource (seed part 2: not shown): a warning, exit 0."""
    code, summary = _run(tmp_path, "address.huisnummer_as_string")
    assert _entry(summary)["outcome"] == "passed"
    entry = _entry(summary, rs.PUBLIC_CHECK_ID)
    assert (code, entry["outcome"], entry["severity"]) == (0, "failed", "SHOULD")
    assert "GET /adressen/{nummeraanduidingIdentificatie} (bevraagAdressenMetNumId) -> 200 AdresIOHal: $.huisnummer: " \
           in entry["reason"]
    assert "is not of type \"integer\"" in entry["reason"]
    others = {e["check"]: e["outcome"] for e in summary["checks"] if e["check"] not in rs.JUDGES}
    assert "failed" not in others.values() and "error" not in others.values()


def test_invalid_params_without_name_fails_the_seed_check(tmp_path: Path) -> None:
    """Seed part 2: each invalid-params item has a name: a MUST finding, exit 1."""
    code, summary = _run(tmp_path, "address.invalid_params_without_name",
                         selection="response_schema or geldig_op_malformed")
    entry = _entry(summary)
    assert (code, entry["outcome"], entry["severity"]) == (1, "failed", "MUST")
    assert "invalid-params[*].name" in entry["reason"], entry["reason"]


def test_the_answers_of_the_run_start_sample_validation_are_judged_too(tmp_path: Path) -> None:
    """The controller validates the profile's samples before any test (a server that
    serves huisnummer as a string leaves the sample "not verifiable"); the check, run by
    an xdist worker and selected alone, still finds the violation in those answers."""
    from conformance.mocks.faults import resolve
    from conformance.mocks.launcher import MockCluster

    profile = load_profile("local-mock")
    with MockCluster(profile, resolve(["address.huisnummer_as_string"])) as cluster:
        url, key = cluster.urls["address"], cluster.secrets[profile.address.secret_env["api_key"]]
        profile_file = tmp_path / "vendor.toml"
        profile_file.write_text(f"""[profile]
name = "vendor-samples"
description = "the mock, as if it were a vendor's deployment"

[services.address]
mock = false
base_url = "{url}"
timeout_s = 10

[services.address.secrets]
api_key = "RESPONSE_SCHEMA_TEST_KEY"

[services.address.samples]
nummeraanduiding = "{data.WELL_KNOWN['nummeraanduiding']}"
""")
        proc = forked_cli.run(
            [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile_file), "--suite", "address",
             "-n", "2", "--no-html", "--report-dir", str(tmp_path / "run"), "--", "-q", "-k", "response_schema"],
            capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
            env={**os.environ, "RESPONSE_SCHEMA_TEST_KEY": key})
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    entry = _entry(summary, rs.PUBLIC_CHECK_ID)
    assert (proc.returncode, entry["outcome"]) == (0, "failed"), proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "(bevraagAdressenMetNumId) -> 200 AdresIOHal: $.huisnummer" in entry["reason"]
    assert _entry(summary)["outcome"] == "passed" and len(summary["checks"]) == 2
