"""Maintenance (503 notAvailable, Retry-After) beyond the local mock: a deployment's
`[services.address] maintenance_url` is judged by the active checks, a deployment without
it gets them not applicable naming the key, and any 503 in recorded traffic is judged by
the same rules (conformance traffic)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import forked_cli
import pytest
from vendor_profiles import vendor_profile

from conformance.http.exchange import Exchange, Headers
from conformance.mocks.address import data
from conformance.mocks.faults import resolve
from conformance.mocks.launcher import MockCluster
from conformance.passive.har import write_har
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

MAINTENANCE = ("address.maintenance.not_available_503", "address.maintenance.problem_body_503",
               "address.maintenance.api_version_503", "address.maintenance.retry_after_present",
               "address.maintenance.retry_after_http_date")
KEY_VAR = "MAINTENANCE_TEST_KEY"
RETRY_AFTER_PRESENT = "address.maintenance.retry_after_present"
OBSERVED = {RETRY_AFTER_PRESENT: "observation"}


def _run(tmp_path: Path, name: str, base_url: str, key: str, extra: str) -> dict[str, list[dict[str, Any]]]:
    profile = vendor_profile(tmp_path / f"{name}.toml", base_url,
                             {"nummeraanduiding": data.WELL_KNOWN["nummeraanduiding"]},
                             key_var=KEY_VAR, name=name, address=extra)
    report = tmp_path / name
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", "address", "-n", "0",
         "--no-html", "--check", "address.maintenance.*", "--report-dir", str(report)],
        capture_output=True, text=True, timeout=300, cwd=REPO_ROOT, env={**os.environ, KEY_VAR: key})
    summary = report / "summary.json"
    assert summary.is_file(), proc.stdout[-3000:] + proc.stderr[-2000:]
    by_check: dict[str, list[dict[str, Any]]] = {}
    for entry in json.loads(summary.read_text())["checks"]:
        by_check.setdefault(entry["check"], []).append(entry)
    return by_check


def _outcomes(by_check: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    return {check: entries[0]["outcome"] for check, entries in by_check.items()}


@pytest.mark.parametrize(("fault", "failing"), [(None, set()),
                                                ("address.retry_after_in_seconds", {"address.maintenance.retry_after_http_date"})])
def test_a_deployments_maintenance_url_is_judged(tmp_path: Path, fault: str | None, failing: set[str]) -> None:
    profile = load_profile("local-mock")
    with MockCluster(profile, resolve([fault] if fault else [])) as cluster:
        base, key = cluster.urls["address"], cluster.secrets[profile.address.secret_env["api_key"]]
        down = cluster.start_address(maintenance=True)
        by_check = _run(tmp_path, "with", base, key, f'maintenance_url = "{down}"')
    got = _outcomes(by_check)
    # Whether Retry-After is sent is measured (seed part 7: it "may be sent"), never judged.
    assert got == {c: "failed" if c in failing else OBSERVED.get(c, "passed") for c in MAINTENANCE}
    assert by_check[RETRY_AFTER_PRESENT][0]["value"]["present"] is True


def test_without_maintenance_url_a_deployments_checks_are_not_judged(tmp_path: Path) -> None:
    profile = load_profile("local-mock")
    with MockCluster(profile) as cluster:
        base, key = cluster.urls["address"], cluster.secrets[profile.address.secret_env["api_key"]]
        by_check = _run(tmp_path, "without", base, key, "")
    # The rule applies to every deployment: without the way to its 503 the run did not judge it.
    assert _outcomes(by_check) == {c: "not_judged" for c in MAINTENANCE}
    assert all("services.address.maintenance_url" in by_check[c][0]["reason"] for c in MAINTENANCE), by_check


# --------------------------------------------------------------------------- 503 in traffic
URL = f"http://vendor.example/lvbag/individuelebevragingen/v2/adressen/{data.WELL_KNOWN['nummeraanduiding']}"
GOOD_BODY = {"type": "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.5.4",
             "title": "Bronservice is tijdelijk niet beschikbaar.", "status": 503, "detail": "Onderhoud.",
             "instance": "/lvbag/individuelebevragingen/v2/adressen/x", "code": "notAvailable"}


def _503(retry_after: str | None = "Sun, 28 Nov 2027 16:41:41 GMT", media: str = "application/problem+json",
         **body: Any) -> Exchange:
    headers = [("content-type", media), ("api-version", "2.9.2")] + ([("Retry-After", retry_after)] if retry_after else [])
    return Exchange(method="GET", url=URL, request_headers=Headers([("X-Api-Key", "k")]), request_body=b"", status=503,
                    response_headers=Headers(headers), body=json.dumps({**GOOD_BODY, **body}).encode())


def _judge(tmp_path: Path, name: str, exchange: Exchange) -> dict[str, str]:
    report = tmp_path / name
    forked_cli.run([sys.executable, "-m", "conformance.cli", "traffic", str(write_har([exchange], tmp_path / f"{name}.har")),
                    "--no-html", "--report-dir", str(report)], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    return {e["check"]: e["outcome"] for e in json.loads((report / "summary.json").read_text())["checks"]}


TRAFFIC = {  # name -> (the recorded 503, the check it breaks or None)
    "conforming": (_503(), None),
    "no-retry-after": (_503(retry_after=None), None),
    "retry-after-seconds": (_503(retry_after="600"), "address.maintenance.retry_after_http_date"),
    "retry-after-rfc850": (_503(retry_after="Sunday, 28-Nov-27 16:41:41 GMT"), "address.maintenance.retry_after_http_date"),
    "wrong-code": (_503(code="serviceUnavailable"), "address.maintenance.problem_body_503"),
    "plain-json": (_503(media="application/json"), "address.maintenance.problem_body_503"),
    "type-not-uri": (_503(type="not available error"), "address.errors.problem_uri_references"),
}
JUDGED = ("address.maintenance.problem_body_503", "address.maintenance.retry_after_http_date",
          "address.errors.problem_uri_references")


@pytest.mark.parametrize("name", sorted(TRAFFIC))
def test_a_503_in_traffic_is_judged(tmp_path: Path, name: str) -> None:
    exchange, broken = TRAFFIC[name]
    got = _judge(tmp_path, name, exchange)
    # A 503 without Retry-After leaves nothing for the date rule to judge.
    expected = {c: "failed" if c == broken else "passed" for c in JUDGED}
    if name == "no-retry-after":
        expected["address.maintenance.retry_after_http_date"] = got["address.maintenance.retry_after_http_date"]
        assert got["address.maintenance.retry_after_http_date"] != "failed"
    assert {c: got[c] for c in JUDGED} == expected
