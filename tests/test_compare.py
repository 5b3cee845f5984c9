"""`conformance compare`: a vendor's environment judged against the register's own (issue 25).

Proven both ways on the local mock: against a second instance of itself nothing differs and
the volatile fields it cancelled are listed; against the mock under each data-semantic
fault the difference is reported at its JSON path, by the right check, with the exit code
the severities give. A HAR's requests are replayed against both sides.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import forked_cli
import pytest

from conformance.compare.corpus import Corpus, har_requests
from conformance.compare.described import Description
from conformance.compare.jsondiff import EXTRA, MEMBERS, MISSING, TYPE, VALUE, diff, normalise, pattern
from conformance.passive.har import write_har
from conformance.paths import CHECKOUT

BASE_PATH = "/lvbag/individuelebevragingen/v2"


def compare(report_dir: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "compare", "--profile", "local-mock", "--reference", "local-mock",
         "--no-html", "--seed", "7", "--report-dir", str(report_dir), *extra],
        capture_output=True, text=True, timeout=300, cwd=CHECKOUT, env={**os.environ, **(env or {})})
    summary = report_dir / "summary.json"
    assert summary.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.returncode, json.loads(summary.read_text())


def failing(summary: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(check, operation) -> reason of every failed check."""
    return {(e["check"], e["test"].rsplit("[", 1)[-1].rstrip("]")): e["reason"]
            for e in summary["checks"] if e["outcome"] == "failed"}


def test_the_mock_against_a_second_instance_of_itself_differs_in_nothing(tmp_path: Path) -> None:
    canary = "canary-key-" + os.urandom(6).hex()  # both sides' valid key (the mocks take it from the environment)
    code, summary = compare(tmp_path, env={"CONFORMANCE_MOCK_API_KEY": canary})
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and canary.encode() in p.read_bytes()]
    assert leaked == [], "a key reached the report"
    assert summary["mode"] == "compare" and summary["reference"]["profile"] == "local-mock"
    assert summary["targets"]["address"] != summary["reference"]["url"], "two instances, not one"
    assert failing(summary) == {} and code == 0
    judged = [e for e in summary["checks"] if e["check"] != "compare.address.volatile"]
    assert judged and all(e["outcome"] == "passed" for e in judged)
    observed = next(e["value"] for e in summary["checks"] if e["check"] == "compare.address.volatile")
    assert observed["requests compared"] >= 60
    assert observed["by source"]["scenario"] > 0 and observed["by source"]["generated"] > 0
    # The mock dates the links of a time-travel answer with the moment it answers
    # (beschikbaarOp=now): two identical reference calls differ in that parameter only, so
    # that parameter is cancelled there, and the rest of each link is still compared.
    links = observed["volatile link parameters (per operation and path)"]["bevragenAdresseerbaarObject"]
    assert links["verblijfsobject._links.heeftAlsHoofdAdres.href"] == ["beschikbaarOp"]
    assert "bevragenAdresseerbaarObject" not in observed["volatile paths (per operation)"]
    assert observed["differences cancelled as volatile"] > 0


# fault -> (check, operation, JSON path pattern and kind in the reason, exit code)
DATA_FAULTS = {
    "address.deleted_objects_returned_with_huidig": (  # huidig ignored
        "compare.address.defined_fields", "zoekAdresseerbareObjecten", "_embedded.adresseerbareObjecten: members", 1),
    "address.exacte_match_ignored": (
        "compare.address.defined_fields", "bevraagAdressen", "_embedded.adressen: members", 1),
    "address.time_travel_ignored": (  # geldigOp ignored
        "compare.address.defined_fields", "bevragenAdresseerbaarObject", "verblijfsobject.verblijfsobject.documentdatum: value", 1),
    "address.type_filter_ignored": (
        "compare.address.defined_fields", "zoekAdresseerbareObjecten", "_embedded.adresseerbareObjecten: members", 1),
    "address.last_page_dropped": (  # a page fewer
        "compare.address.defined_fields", "bevraagAdressen", "_embedded.adressen: members", 1),
    "address.huisnummer_as_string": (
        "compare.address.defined_fields", "bevraagAdressen", "_embedded.adressen[*].huisnummer: type", 1),
    "address.extended_fields_missing": (  # a field missing
        "compare.address.defined_fields", "zoekAdresUitgebreid", "_embedded.adressen[*].adresseerbaarObjectStatus: missing", 1),
    # An extra member the description does not define: a warning (a SHOULD check), exit 0.
    "address.extra_member": ("compare.address.other_fields", "bevraagAdressen", "_embedded.adressen[*].leverancier: extra", 0),
    # The other checks: another status, a header the seed fixes.
    "address.not_found_as_200": ("compare.address.status", "bevraagAdressenMetNumId", "status 404 -> 200", 1),
    "address.pagination_headers_wrong": ("compare.address.headers", "bevraagAdressen", "header x-pagination-limit", 1),
}
DATA_CHECKS = {"compare.address.defined_fields", "compare.address.other_fields"}


@pytest.mark.parametrize("fault", sorted(DATA_FAULTS))
def test_each_data_semantic_fault_is_reported_at_its_json_path(fault: str, tmp_path: Path) -> None:
    check, operation, where, expected_code = DATA_FAULTS[fault]
    code, summary = compare(tmp_path, "--mock-fault", fault)
    found = failing(summary)
    assert (check, operation) in found, f"{fault}: {check} [{operation}] did not fail; failing: {sorted(found)}"
    assert where in found[(check, operation)], found[(check, operation)]
    assert code == expected_code
    if check in DATA_CHECKS:  # nothing is blamed on status, media type or headers: only the data differ
        assert not {c for c, _ in found} - DATA_CHECKS


def test_every_fault_only_a_comparison_shows_is_proven_here_and_every_check_too() -> None:
    from conformance.catalogue import registered_checks
    from conformance.checks.registry import Severity
    from conformance.mocks.faults import catalogue, expected_failures

    only = {f.name for f in catalogue() if all(c.startswith("compare.") for c in expected_failures(f)[0])}
    assert only and only <= set(DATA_FAULTS)
    judging = {c.id for c in registered_checks("compare") if c.severity is not Severity.OBSERVATION}
    assert judging == {check for check, *_ in DATA_FAULTS.values()}


def test_a_hars_get_requests_are_replayed_against_both_sides(tmp_path: Path) -> None:
    from conformance.http.exchange import Exchange, Headers

    def entry(method: str, target: str) -> Exchange:
        return Exchange(method, f"https://vendor.example{BASE_PATH}{target}", Headers([("Accept-Crs", "epsg:28992")]),
                        b"", 200, Headers([("content-type", "application/hal+json")]), b"{}")

    replayed = "/adressen?postcode=1181VA&huisnummer=12&huisletter=A"
    har = write_har([entry("GET", replayed), entry("GET", "/adresseerbareobjecten/1951010000000109?huidig=true"),
                     entry("POST", "/adressen"), entry("GET", "/elsewhere")], tmp_path / "traffic-in.har")
    code, summary = compare(tmp_path / "run", "--requests", str(har), "--mock-fault", "address.letter_addition_ignored")
    observed = next(e["value"] for e in summary["checks"] if e["check"] == "compare.address.volatile")
    assert observed["by source"]["har"] == 2
    assert observed["requests left out"] == {
        "HAR requests other than GET (nothing with side effects is sent)": 1,
        "HAR requests outside the address API's operations": 1}
    sent = json.loads((tmp_path / "run" / "traffic.har").read_text())["log"]["entries"]
    urls = [e["request"]["url"] for e in sent]
    reference, vendor = summary["reference"]["url"], summary["targets"]["address"]
    target = replayed.replace("?", "?", 1)
    assert sum(u.startswith(reference) and u.endswith(target) for u in urls) == 2, "twice to the reference"
    assert sum(u.startswith(vendor) and u.endswith(target) for u in urls) == 1, "once to the vendor"
    assert code == 1 and ("compare.address.defined_fields", "bevraagAdressen") in failing(summary)


def test_a_bad_reference_or_har_is_a_configuration_error(tmp_path: Path) -> None:
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "compare", "--profile", "local-mock",
                           "--reference", "no-such-profile", "--no-html"], capture_output=True, text=True,
                          timeout=120, cwd=CHECKOUT)
    assert proc.returncode == 2 and "no-such-profile" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "compare", "--profile", "local-mock",
                           "--reference", "local-mock", "--requests", str(tmp_path / "missing.har"), "--no-html"],
                          capture_output=True, text=True, timeout=120, cwd=CHECKOUT)
    assert proc.returncode == 2 and "missing.har" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_an_unreachable_reference_is_exit_3_naming_it(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    reference = tmp_path / "register-down.toml"
    reference.write_text(f"""
[profile]
name = "register-down"
description = "the register's environment, not answering"
[services.address]
mock = false
base_url = "http://127.0.0.1:{port}/lvbag/individuelebevragingen/v2"
[services.address.secrets]
api_key = "REGISTER_DOWN_KEY"
""")
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "compare", "--profile", "local-mock",
                           "--reference", str(reference), "--no-html", "--report-dir", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=120, cwd=CHECKOUT,
                          env={**os.environ, "REGISTER_DOWN_KEY": "k"})
    assert proc.returncode == 3, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "the reference environment (register-down, --reference)" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


# --- the library ---------------------------------------------------------------------------
def _exchange(body: dict[str, Any], status: int = 200) -> Any:
    from conformance.http.exchange import Exchange, Headers

    return Exchange("GET", "http://x/", Headers(), b"", status, Headers([("content-type", "application/hal+json")]),
                    json.dumps(body).encode())


def test_only_the_volatile_parameter_of_a_link_is_cancelled() -> None:
    """Diffy's noise, per query parameter of a link: a reference that dates its links with
    the moment of answering cancels that parameter, not a vendor's link to another object."""
    from conformance.compare.address import Comparison
    from conformance.compare.corpus import Request

    base = "http://ref/v2"
    stamps = iter(["2026-01-01T00:00:00.001", "2026-01-01T00:00:00.002"])

    def link(ident: str, stamp: str) -> dict[str, Any]:
        return {"_links": {"self": {"href": f"{base}/adresseerbareobjecten/1"},
                           "heeftAlsHoofdAdres": {"href": f"{base}/nummeraanduidingen/{ident}?geldigOp=2015-01-01&beschikbaarOp={stamp}"}}}

    def reference(request: Request) -> Any:
        return _exchange(link("11", next(stamps)))

    vendors = iter([link("11", "2026-01-01T00:00:00.009"), link("99", "2026-01-01T00:00:00.009")])
    comparison = Comparison(reference=reference, vendor=lambda request: _exchange(next(vendors)),
                            reference_base=base, vendor_base=base, description=Description({}), templates={})
    for _ in range(2):
        stamps = iter(["2026-01-01T00:00:00.001", "2026-01-01T00:00:00.002"])
        comparison.send(Request("/adresseerbareobjecten/1", (("geldigOp", "2015-01-01"),)))
    for outcome in comparison.outcomes:
        comparison.judge(outcome)
    same_object, other_object = comparison.outcomes
    assert same_object.differences == [] and len(same_object.cancelled) == 1
    assert [d.pattern for d in other_object.differences] == ["_links.heeftAlsHoofdAdres.href"]


def test_a_request_whose_reference_status_varies_is_not_judged() -> None:
    """The register answered 200 and then 503 to the same request: a vendor's 503 (or 200)
    there proves nothing; the request is left unjudged and counted, not failed."""
    from conformance.compare.address import Comparison
    from conformance.compare.corpus import Request

    statuses = iter([200, 503])
    comparison = Comparison(reference=lambda request: _exchange({"a": 1}, next(statuses)),
                            vendor=lambda request: _exchange({"a": 2}, 503), reference_base="http://r",
                            vendor_base="http://v", description=Description({}), templates={})
    comparison.run([Request("/adressen/1")])
    (outcome,) = comparison.outcomes
    assert outcome.unstable and not outcome.status_differs and outcome.differences == []
    assert comparison.noise.statuses == {"bevraagAdressenMetNumId": 1}


def test_members_pair_by_identity_and_order_is_no_difference() -> None:
    def member(ident: str, number: int) -> dict[str, Any]:
        return {"_links": {"self": {"href": f"{{base}}/adressen/{ident}"}}, "huisnummer": number}

    reference = {"_embedded": {"adressen": [member("1", 1), member("2", 2), member("3", 3)]}}
    reordered = {"_embedded": {"adressen": [member("3", 3), member("1", 1), member("2", 2)]}}
    assert diff(reference, reordered) == []
    one_more = {"_embedded": {"adressen": [member("1", 1), member("2", 2), member("3", 3), member("4", 4)]}}
    found = diff(reference, one_more)
    assert [(d.pattern, d.kind) for d in found] == [("_embedded.adressen", MEMBERS)], "one extra object, one difference"
    typed = {"_embedded": {"adressen": [member("1", 1), {**member("2", 2), "huisnummer": "2"}, member("3", 3)]}}
    assert [(d.pattern, d.kind) for d in diff(reference, typed)] == [("_embedded.adressen[*].huisnummer", TYPE)]


def test_each_kind_of_difference_and_its_pattern() -> None:
    found = {(d.pattern, d.kind) for d in diff({"a": 1, "b": {"c": [1, 2]}, "m": 1}, {"a": 2, "b": {"c": [1, 3]}, "x": 1})}
    assert found == {("a", VALUE), ("b.c[*]", VALUE), ("m", MISSING), ("x", EXTRA)}
    assert pattern(("_embedded", "adressen", 3, "huisnummer")) == "_embedded.adressen[*].huisnummer"


def test_each_sides_base_url_is_normalised_away() -> None:
    base = "http://127.0.0.1:8000/lvbag/individuelebevragingen/v2"
    other = "https://vendor.example/bag/v2"
    ref = normalise({"_links": {"self": {"href": f"{base}/adressen/1"}}}, base)
    ven = normalise({"_links": {"self": {"href": f"{other}/adressen/1"}}}, other)
    assert ref == ven == {"_links": {"self": {"href": "{base}/adressen/1"}}}


def test_the_description_says_which_paths_it_defines() -> None:
    from conformance.openapi.loader import load_description
    from conformance.profiles import load_profile

    description = Description(load_description(load_profile("local-mock").address))
    schema = description.response_schema("/adressen", 200)
    assert description.defines(schema, ("_embedded", "adressen", 0, "huisnummer"))
    assert not description.defines(schema, ("_embedded", "adressen", 0, "leverancier"))
    assert description.response_schema("/no-such-path", 200) is None


def test_only_a_hars_get_requests_below_a_base_path_join_the_corpus(tmp_path: Path) -> None:
    from conformance.http.exchange import Exchange, Headers

    def ex(method: str, url: str) -> Exchange:
        return Exchange(method, url, Headers([("X-Api-Key", "secret"), ("Content-Crs", "epsg:28992")]), b"",
                        200, Headers(), b"")

    har = write_har([ex("GET", f"https://a.example{BASE_PATH}/adressen?q=kerk"),
                     ex("GET", "https://b.example/other/v2/adresseerbareobjecten/1"),
                     ex("DELETE", f"https://a.example{BASE_PATH}/adressen/1"),
                     ex("GET", f"https://a.example{BASE_PATH}/unknown")], tmp_path / "x.har")
    corpus = Corpus()
    har_requests(har, [BASE_PATH, "/other/v2"], corpus)
    assert [(r.path, r.params, r.headers) for r in corpus.requests] == [
        ("/adressen", (("q", "kerk"),), (("Content-Crs", "epsg:28992"),)),
        ("/adresseerbareobjecten/1", (), (("Content-Crs", "epsg:28992"),))]
    assert sum(corpus.left_out.values()) == 2
