"""Passive conformance (`conformance traffic`): HAR files recorded from real runs against the
local mock -- faithful, and under each fault whose check one exchange can show -- and from
client scripts that break the seed's client rules, judged with the same checks.

Every run writes its redacted exchanges as traffic.har; that is the recording used here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.checks.registry import registered_checks
from conformance.http.exchange import Exchange, Headers
from conformance.mocks import faults as fault_catalogue
from conformance.mocks.launcher import MockCluster
from conformance.passive.har import read_har, write_har
from conformance.profiles import REPO_ROOT, load_profile

OBSERVED = {c.id for c in registered_checks() if c.observes == "exchange"}
CLIENT = {c.id for c in registered_checks("client")}
# The general address checks produce every kind of answer the passive rules look at
# (errors, 406 with Accept-Crs, 429 on the flood keys, 503 of a maintenance instance).
RECORD = ["-m", "not fuzz", "-k", "test_general"]


def record(tmp: Path, *faults: str) -> Path:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
           "--report-dir", str(tmp)]
    for fault in faults:
        cmd += ["--mock-fault", fault]
    proc = subprocess.run([*cmd, "--", "-q", *RECORD], capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    har = tmp / "traffic.har"
    assert har.is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    return har


def judge(har: Path, report: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "traffic", str(har), "--no-html",
                           "--report-dir", str(report), *extra], capture_output=True, text=True, timeout=300,
                          cwd=REPO_ROOT, env={**os.environ, **(env or {})})
    summary = report / "summary.json"
    data = json.loads(summary.read_text()) if summary.is_file() else {}
    return proc.returncode, data, proc.stdout + proc.stderr


def outcomes(summary: dict[str, Any]) -> dict[str, str]:
    return {e["check"]: e["outcome"] for e in summary["checks"]}


_FAULTS = {f.name: f for f in fault_catalogue.catalogue("address")}


def proven(fault: str) -> set[str]:
    return set(fault_catalogue.expected_failures(_FAULTS[fault])[0]) & OBSERVED


PASSIVE_FAULTS = sorted(name for name in _FAULTS if proven(name))


@pytest.fixture(scope="module")
def faithful(tmp_path_factory) -> Path:
    return record(tmp_path_factory.mktemp("faithful"))


def test_the_passive_suite_judges_exactly_the_checks_declared_observable() -> None:
    text = "".join(p.read_text() for p in (REPO_ROOT / "suites" / "passive").glob("test_*.py"))
    implemented = {line.split('"')[1] for line in text.splitlines() if "@pytest.mark.check(" in line}
    assert implemented == OBSERVED, (sorted(OBSERVED - implemented), sorted(implemented - OBSERVED))
    assert len(PASSIVE_FAULTS) >= 12


def test_faithful_traffic_passes_every_server_check(faithful: Path, tmp_path: Path) -> None:
    code, summary, out = judge(faithful, tmp_path / "judged")
    got = outcomes(summary)
    server = {c: o for c, o in got.items() if c not in CLIENT}
    assert set(server) == OBSERVED - CLIENT
    assert set(server.values()) == {"passed"}, {c: o for c, o in server.items() if o != "passed"}
    # The harness's own negative probes are no conforming client: judged as such.
    assert {got[c] for c in CLIENT} == {"failed"}, out[-2000:]
    assert summary["mode"] == "passive" and summary["traffic"] == [str(faithful)]
    matrix = (tmp_path / "judged" / "matrix.md").read_text()
    assert "needs an active run" in matrix and "passive: recorded traffic judged" in matrix
    assert code == 1  # the client checks are MUST


@pytest.mark.parametrize("fault", PASSIVE_FAULTS)
def test_every_server_fault_one_exchange_shows_is_found_passively(fault: str, tmp_path: Path) -> None:
    har = record(tmp_path / "run", fault)
    _, summary, out = judge(har, tmp_path / "judged")
    got = outcomes(summary)
    missed = {c: got.get(c) for c in proven(fault) if got.get(c) != "failed"}
    assert not missed, f"{fault}: {missed}\n{out[-3000:]}"


# --------------------------------------------------------------------------- client scripts
@pytest.fixture(scope="module")
def mock() -> Iterator[tuple[str, str]]:
    profile = load_profile("local-mock")
    with MockCluster(profile) as cluster:
        yield cluster.urls["address"], cluster.secrets[profile.address.secret_env["api_key"]]


def script(base: str, calls: list[tuple[str, str, dict[str, str], dict[str, str]]]) -> list[Exchange]:
    """What a client script sends and gets, as a capture tool would record it."""
    out = []
    with httpx.Client(trust_env=False) as client:
        for method, path, params, headers in calls:
            r = client.request(method, base + path, params=params, headers=headers)
            out.append(Exchange(method=method, url=str(r.request.url),
                                request_headers=Headers(list(r.request.headers.multi_items())),
                                request_body=r.request.content, status=r.status_code,
                                response_headers=Headers(list(r.headers.multi_items())), body=r.content))
    return out


def test_a_conforming_client_passes_and_each_client_fault_is_found(mock: tuple[str, str], tmp_path: Path) -> None:
    base, key = mock
    good = {"X-Api-Key": key}
    num = "1951200000000101"
    conforming = script(base, [("GET", f"/adressen/{num}", {}, good),
                               ("GET", "/adressen", {"postcode": "1181VA", "huisnummer": "12", "pageSize": "10"}, good)])
    code, summary, out = judge(write_har(conforming, tmp_path / "good.har"), tmp_path / "good")
    assert {outcomes(summary)[c] for c in CLIENT} == {"passed"}, out[-2000:]
    faulty = {
        "client.address.api_key_sent": ("GET", f"/adressen/{num}", {}, {}),
        "client.address.get_only": ("POST", f"/adressen/{num}", {}, good),
        "client.address.parameters_within_limits": ("GET", "/adressen", {"postcode": "1181VA", "huisnummer": "12",
                                                                         "pageSize": "5"}, good),
    }
    for check, call in faulty.items():
        har = write_har(conforming + script(base, [call]), tmp_path / f"{check}.har")
        _, summary, out = judge(har, tmp_path / check)
        got = outcomes(summary)
        assert got[check] == "failed", out[-2000:]
        assert {got[c] for c in CLIENT - {check}} == {"passed"}, got


# --------------------------------------------------------------------------- the HAR itself
def test_a_file_that_is_not_a_har_is_exit_2_naming_it(tmp_path: Path) -> None:
    for name, text in {"notjson.har": "{nope", "nolog.har": '{"x": 1}', "badentry.har": '{"log": {"entries": [{}]}}',
                       "nan.har": '{"log": {"entries": [], "x": NaN}}'}.items():
        (tmp_path / name).write_text(text)
        code, _, out = judge(tmp_path / name, tmp_path / f"r-{name}")
        assert code == 2 and name in out and "Traceback" not in out, out[-1500:]
    code, _, out = judge(tmp_path / "missing.har", tmp_path / "r-missing")
    assert code == 2 and "missing.har" in out


def test_har_round_trip_keeps_bytes_and_base64_bodies(tmp_path: Path) -> None:
    ex = Exchange(method="GET", url="http://h/v2/adressen?q=a", request_headers=Headers([("X-Api-Key", "k")]),
                  request_body=b"", status=200, response_headers=Headers([("content-type", "application/hal+json")]),
                  body=b"\xff\xfe not utf-8")
    back = read_har(write_har([ex], tmp_path / "t.har"))[0]
    assert back.body == ex.body and back.url == ex.url and back.request_headers.get("x-api-key") == "k"


def test_secrets_in_a_har_never_reach_the_report(mock: tuple[str, str], tmp_path: Path) -> None:
    base, key = mock
    canary = "CANARY-passive-7f3a9c1e5b2d40"
    captured = script(base, [("GET", "/adressen/1951200000000101", {}, {"X-Api-Key": key, "Authorization": f"Bearer {canary}"}),
                             ("GET", "/adressen/1951200000000101", {}, {"X-Api-Key": canary})])  # a wrong key: 401
    har = write_har(captured, tmp_path / "secret.har")
    assert canary.encode() in har.read_bytes() and key.encode() in har.read_bytes()
    _, summary, out = judge(har, tmp_path / "report")
    assert summary["checks"]
    for path in (tmp_path / "report").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert canary.encode() not in data and key.encode() not in data, path
    assert canary not in out and key not in out
