"""`conformance proxy` end to end: a client goes through it to the local mock (findings printed
live, the run directory written on Ctrl-C), and a misbehaving upstream costs the client a 502
within the deadline, never a hang."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest
from misbehaving_server import MODES, MisbehavingServer
from proxy_process import ProxyProcess

from conformance.mocks.launcher import MockCluster
from conformance.profiles import load_profile

KEY_VAR = "PROXY_TEST_API_KEY"


@pytest.fixture(scope="module")
def mock() -> Iterator[tuple[dict[str, str], str]]:
    profile = load_profile("local-mock")
    with MockCluster(profile) as cluster:
        yield cluster.urls, cluster.secrets[profile.address.secret_env["api_key"]]


def profile_file(path: Path, address: str, soap: str | None = None, deadline_s: int = 30) -> Path:
    text = f"""[profile]
name = "proxied"
description = "a deployment seen through conformance proxy"
[services.address]
mock = false
base_url = "{address}"
[services.address.secrets]
api_key = "{KEY_VAR}"
"""
    if soap:
        text += f'[services.soap]\nmock = false\nurl = "{soap}"\nsoap_action_base = "urn:registry:graafbericht"\n'
    path.write_text(text + f"[limits]\ndeadline_s = {deadline_s}\n")
    return path


class Proxy(ProxyProcess):
    """The proxy as a user runs it, with the key of the profile's address API in its environment."""

    def __init__(self, profile: Path | str, report: Path, key: str, tmpdir: Path | None = None,
                 env: dict[str, str] | None = None) -> None:
        super().__init__(profile, report, {**os.environ, KEY_VAR: key, **({"TMPDIR": str(tmpdir)} if tmpdir else {}),
                                           **(env or {})})


def test_a_client_through_the_proxy_is_judged_live_and_in_the_report(mock, tmp_path: Path) -> None:
    urls, key = mock
    private = tmp_path / "private"  # where the proxy keeps its unmasked capture until judged
    private.mkdir()
    proxy = Proxy(profile_file(tmp_path / "p.toml", urls["address"], urls["soap"]), tmp_path / "report", key, private)
    try:
        address, soap = proxy.listener("address"), proxy.listener("soap")
        with httpx.Client(trust_env=False, timeout=60) as client:
            ok = client.get(f"{address}/adressen/1951200000000101", headers={"X-Api-Key": key})
            assert ok.status_code == 200 and ok.json()["nummeraanduidingIdentificatie"] == "1951200000000101"
            assert client.get(f"{address}/adressen/1951200000000101").status_code == 401  # no key: forwarded as is
            client.get(f"{address}/adressen", params={"postcode": "1181VA", "huisnummer": "12", "pageSize": "5"},
                       headers={"X-Api-Key": key})
            from conformance.soap.envelope import build_envelope
            from conformance.soap.samples import sample_request

            answer = client.post(soap, content=build_envelope(sample_request()), headers={
                "Content-Type": "text/xml; charset=utf-8",
                "SOAPAction": '"urn:registry:graafbericht/RequestNetbeheerderServiceResponse"'})
            assert answer.status_code == 200 and b"GraafberichtServiceResponse" in answer.content
        live = proxy.wait_for("FAIL client.address.api_key_sent")
        assert "GET /adressen/1951200000000101 -> 401" in live
        proxy.wait_for("FAIL client.address.parameters_within_limits")
    finally:
        code = proxy.stop()
    out = "\n".join(proxy.seen)
    assert code == 1, out[-3000:]  # the client's MUST rules were broken
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    got = {e["check"]: e["outcome"] for e in summary["checks"]}
    assert got["client.address.api_key_sent"] == "failed" and got["client.address.parameters_within_limits"] == "failed"
    assert got["address.media.success_is_hal_json"] == "passed" and got["soap.response.schema_valid"] == "passed"
    assert got["client.soap.soap_action"] == "passed"
    for name in ("traffic.har", "proxy-findings.txt", "junit.xml", "matrix.md"):
        data = (tmp_path / "report" / name).read_bytes()
        assert key.encode() not in data, name
    assert key not in out
    assert not list(private.iterdir()), "the raw capture is deleted"
    assert summary["traffic"] == [str(tmp_path / "report" / "traffic.har")] and "deleted" in summary["traffic_note"]


# Modes the bounded layer must refuse (a 502 to the client, an UPSTREAM line); the others
# (a redirect, malformed JSON, a wrong type...) are answers, passed on for the rules to judge.
REFUSED = {"hang", "drip", "huge-body", "gzip-bomb", "reset", "bad-gzip", "short-body", "http09", "status999"}


@pytest.mark.parametrize("mode", [m for m in MODES if m != "ok"])
def test_a_misbehaving_upstream_costs_a_502_not_a_hang(mode: str, tmp_path: Path) -> None:
    with MisbehavingServer(mode=mode) as upstream:
        base = f"http://127.0.0.1:{upstream.port}/lvbag/individuelebevragingen/v2"
        proxy = Proxy(profile_file(tmp_path / "p.toml", base, deadline_s=3), tmp_path / "report", "k" * 20)
        try:
            address = proxy.listener("address")
            started = time.monotonic()
            with httpx.Client(trust_env=False, timeout=60) as client:
                answer = client.get(f"{address}/adressen/1951200000000101", headers={"X-Api-Key": "k" * 20})
            assert time.monotonic() - started < 30, "the proxy waited past the deadline"
            if mode in REFUSED or answer.status_code == 502:
                assert answer.status_code == 502, answer.status_code
                proxy.wait_for("UPSTREAM address GET")
        finally:
            code = proxy.stop()
        # Whatever the verdict on what did pass (the answers of some modes break the seed's
        # rules), the proxy ended by itself with a run directory, never a harness error.
        assert code in (0, 1, 4), "\n".join(proxy.seen)[-2000:]
        assert (tmp_path / "report" / "proxy-findings.txt").is_file()


class _Sessions(BaseHTTPRequestHandler):
    """An upstream with sessions: /login sets a cookie and redirects (absolute URL) to /home;
    /whoami says which cookie and which headers it was sent."""

    def do_GET(self) -> None:  # noqa: N802
        if self.path.endswith("/login"):
            self.send_response(302)
            self.send_header("Set-Cookie", "session=of-client-x; Path=/")
            self.send_header("Location", f"http://127.0.0.1:{self.server.server_port}/v2/home?from=login")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = json.dumps({"cookie": self.headers.get("Cookie"), "headers": sorted(self.headers.keys())}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_no_client_state_crosses_the_proxy_and_redirects_stay_on_it(tmp_path: Path) -> None:
    from http.server import ThreadingHTTPServer

    upstream = ThreadingHTTPServer(("127.0.0.1", 0), _Sessions)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    proxy = Proxy(profile_file(tmp_path / "p.toml", f"http://127.0.0.1:{upstream.server_port}/v2"),
                  tmp_path / "report", "k" * 20)
    try:
        address = proxy.listener("address")
        listener_origin = address.removesuffix("/v2")
        with httpx.Client(trust_env=False, timeout=30) as x:
            login = x.get(f"{address}/login")
            # The login redirect points at the proxy's listener, not past it at the upstream.
            assert login.status_code == 302 and login.headers["location"] == f"{listener_origin}/v2/home?from=login"
            assert x.get(f"{address}/whoami").json()["cookie"] == "session=of-client-x"  # X's own cookie, sent by X
        with httpx.Client(trust_env=False, timeout=30) as y:  # a second client, no session of its own
            seen = y.get(f"{address}/whoami", headers={"User-Agent": "client-y"}).json()
        assert seen["cookie"] is None, "client X's session reached client Y's request"
        with httpx.Client(trust_env=False, timeout=30, headers={"User-Agent": ""}) as bare:
            bare_seen = bare.get(f"{address}/whoami").json()
    finally:
        proxy.stop()
        upstream.shutdown()
    assert "User-Agent" not in bare_seen["headers"], "the proxy added a header the client did not send"
    har = json.loads((tmp_path / "report" / "traffic.har").read_text())["log"]["entries"]
    sent = [{h["name"].lower(): h["value"] for h in e["request"]["headers"]} for e in har]
    assert sum("cookie" in h for h in sent) == 1  # only X's own /whoami carried a cookie
    assert sent[2].get("user-agent") == "client-y"  # the record holds what the client sent
    assert "rewritten: location: http://127.0.0.1:" in har[0]["comment"]  # the note says what the client got


def test_a_session_that_saw_nothing_is_no_pass(tmp_path: Path) -> None:
    proxy = Proxy(profile_file(tmp_path / "p.toml", "http://127.0.0.1:9/v2"), tmp_path / "report", "k" * 20)
    try:
        proxy.listener("address")
    finally:
        code = proxy.stop()
    assert code == 4, "\n".join(proxy.seen)[-2000:]
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert summary["unobserved"] == ["address API"]
    assert "no exchange of the address API" in summary["verdict_reason"]


def test_proxy_of_the_local_mock_profile_starts_the_mocks_behind_it(tmp_path: Path) -> None:
    key = "planted-key-" + "x" * 20  # a value in the environment is the one the mock takes
    proxy = Proxy("local-mock", tmp_path / "report", key, env={"CONFORMANCE_MOCK_API_KEY": key})
    try:
        address = proxy.listener("address")
        with httpx.Client(trust_env=False, timeout=60) as client:
            answer = client.get(f"{address}/adressen/1951200000000101", headers={"X-Api-Key": key})
        assert answer.status_code == 200 and answer.json()["nummeraanduidingIdentificatie"] == "1951200000000101"
    finally:
        code = proxy.stop()
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    # Only the address API was used: the other services of the profile judged nothing.
    assert code == 4 and set(summary["unobserved"]) == {"SOAP message service", "authorization server"}
    assert key not in (tmp_path / "report" / "traffic.har").read_text()
