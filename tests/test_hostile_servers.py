"""No secret in any file a run or `conformance traffic` writes, whatever the server writes
(issue 50): hostile servers of the project's own (tests/hostile_servers.py, and faults of the
mock authorization server), every file scanned raw, percent-decoded, with JSON escapes undone
and base64-decoded (tests/secret_scan.py), the HTML report and Allure's history included."""

from __future__ import annotations

import base64
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import forked_cli
import pytest
from hostile_servers import CANARY_KEY, EchoingGateway, escaped_forms
from secret_scan import leaks, scan_files, views
from test_report_html import require_allure
from vendor_profiles import address_behind, vendor_profile

from conformance.http.exchange import Exchange, Headers
from conformance.paths import CHECKOUT
from conformance.profiles import load_profile

CLI = [sys.executable, "-m", "conformance.cli"]
KEY_VAR = "HOSTILE_TEST_API_KEY"


@pytest.fixture(scope="module")
def echoing() -> Iterator[tuple[str, EchoingGateway, dict[str, str]]]:
    env_var = load_profile("local-mock").address.secret_env["api_key"]
    before = os.environ.get(env_var)
    os.environ[env_var] = CANARY_KEY  # the mock takes its key from the variable the profile names
    try:
        with address_behind(EchoingGateway) as (cluster, gateway):
            yield cluster.urls["address"], gateway, dict(cluster.samples["address"])
    finally:
        if before is None:
            os.environ.pop(env_var, None)
        else:
            os.environ[env_var] = before


def _vendor(tmp_path: Path, base_url: str, samples: dict[str, str]) -> Path:
    return vendor_profile(tmp_path / "vendor.toml", base_url, samples, key_var=KEY_VAR, name="echoing")


def _run(*args: str, env: dict[str, str] | None = None, timeout: int = 600):
    return forked_cli.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, cwd=CHECKOUT,
                          env={**os.environ, **(env or {})})


def test_a_key_echoed_in_json_escapes_reaches_no_file_and_no_console(echoing, tmp_path: Path) -> None:
    base_url, gateway, samples = echoing
    gateway.refuse = False
    report = tmp_path / "run"
    proc = _run("run", "--profile", str(_vendor(tmp_path, base_url, samples)), "--suite", "address", "-n", "2", "--no-html",
                "--max-examples", "3", "--report-dir", str(report), "--", "-q", "-k", "auth or headers or problem",
                env={KEY_VAR: CANARY_KEY})
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    har = (report / "traffic.har").read_bytes()
    # The scan had something to bite on: the echoes are there, masked.
    assert b'\\"echo\\": \\"' in har and b"x-echo" in har.lower()
    assert scan_files(report, [CANARY_KEY]) == {}
    assert leaks((proc.stdout + proc.stderr).encode(), [CANARY_KEY]) == []


def test_a_refused_key_echoed_escaped_is_named_by_its_key_not_shown(echoing, tmp_path: Path) -> None:
    base_url, gateway, samples = echoing
    gateway.refuse = True
    try:
        proc = _run("run", "--profile", str(_vendor(tmp_path, base_url, samples)), "--suite", "address", "-n", "0",
                    "--no-html", "--report-dir", str(tmp_path / "run"), env={KEY_VAR: CANARY_KEY})
    finally:
        gateway.refuse = False
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out[-3000:]
    assert "services.address.secrets.api_key" in out and "refused" in out
    assert "key [redacted]" in out  # the server's answer is shown, its echo of the key masked
    assert leaks(out.encode(), [CANARY_KEY]) == []


# What an unmasked token would look like in any decoded view of a file: a JWS (the mock's
# access tokens), a token parameter, a token member.
_TOKEN_SHAPES = [
    re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(r"(?:access|refresh)_token=(?!\[redacted\]|%5Bredacted%5D)[^&\s\"'\\]+"),
    re.compile(r"\"(?:access_token|refresh_token)\"\s*:\s*\"(?!\[redacted\])"),
]


def _token_shapes(root: Path, extra: str = "") -> list[str]:
    found = []
    sources = [(str(p), p.read_bytes()) for p in root.rglob("*") if p.is_file()] + [("console", extra.encode())]
    for name, data in sources:
        for view in views(data):
            for shape in _TOKEN_SHAPES:
                if (m := shape.search(view)) is not None:
                    found.append(f"{name}: {m.group(0)[:40]}")
    return found


def _outcomes(report: Path) -> dict[str, str]:
    return {c["check"]: c["outcome"] for c in json.loads((report / "summary.json").read_text())["checks"]}


def test_a_token_in_the_redirect_fragment_and_a_utf16_token_response_reach_no_file(tmp_path: Path) -> None:
    # The HTML report and Allure's history are written too (the renderer is CI's).
    require_allure()
    report = tmp_path / "run"
    proc = _run("run", "--suite", "auth", "-n", "2", "--report-dir", str(report),
                "--mock-fault", "auth.implicit_token_in_fragment", "--mock-fault", "auth.token_served_utf16")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    failed = {c for c, o in _outcomes(report).items() if o == "failed"}
    # Findings of the checks whose rules the server broke: the implicit grant, and the media type.
    assert {"auth.code.response_type_code_only", "auth.token.media_type_seed_spelling",
            "auth.token.utf8_without_bom"} <= failed, failed
    har = (report / "traffic.har").read_text(encoding="utf-8")
    assert "callback#access_token=[redacted]&token_type=Bearer" in har
    assert any(p.suffix == ".html" for p in report.rglob("*")), "no HTML report was written"
    assert any(p.name.endswith(".jsonl") and "history" in p.name for p in report.rglob("*"))
    assert _token_shapes(report, out) == []


def test_a_token_response_with_a_bom_served_as_text_reaches_no_file(tmp_path: Path) -> None:
    report = tmp_path / "run"
    proc = _run("run", "--suite", "auth", "-n", "2", "--no-html", "--report-dir", str(report),
                "--mock-fault", "auth.token_served_bom_text")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    failed = {c for c, o in _outcomes(report).items() if o == "failed"}
    assert {"auth.token.media_type_json", "auth.token.utf8_without_bom"} <= failed, failed
    assert _token_shapes(report, out) == []


# ------------------------------------------------------------------------------ a capture
ACCESS = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJob3N0aWxlIn0.c2lnbmF0dXJlLWhvc3RpbGU"
REFRESH = "refresh-hostile-7c1d9e0f2a3b4c5d"
FRAGMENT = "fragment-token-0a1b2c3d4e5f6789"
HTML_TOKEN = "html-embedded-token-9f8e7d6c5b4a"
QUERY_KEY = "query-api-key-2468ace013579bdf"
PASSWORD = "soap/pass&word+42"


def _exchange(url: str, *, method: str = "GET", headers: list | None = None, body: bytes = b"", status: int = 200,
              answer: list | None = None, answer_body: bytes = b"") -> Exchange:
    return Exchange(method=method, url=url, request_headers=Headers(headers or []), request_body=body, status=status,
                    response_headers=Headers(answer or []), body=answer_body)


def _hostile_capture() -> list[Exchange]:
    document = json.dumps({"access_token": ACCESS, "token_type": "Bearer", "expires_in": 3600,
                           "refresh_token": REFRESH})
    basic = base64.b64encode(f"operator:{PASSWORD}".encode()).decode()
    return [
        # A secret echoed before the request that carries it: learned from the whole capture first.
        _exchange("http://127.0.0.1:9/v2/adressen?q=x", status=401,
                  answer=[("Content-Type", "application/problem+json")],
                  answer_body=json.dumps({"detail": "x"}).replace('"x"', f'"key {escaped_forms(QUERY_KEY)}"').encode()),
        _exchange(f"http://127.0.0.1:9/v2/adressen?q=y&key={QUERY_KEY}",
                  answer=[("Content-Type", "application/hal+json")], answer_body=b'{"_links": {}}'),
        _exchange("http://127.0.0.1:9/auth/oauth/v2/authorize?response_type=token&client_id=c", status=302,
                  answer=[("Location", f"http://127.0.0.1:8765/callback#access_token={FRAGMENT}&token_type=Bearer")]),
        _exchange("http://127.0.0.1:9/auth/oauth/v2/token", method="POST",
                  headers=[("Content-Type", "application/x-www-form-urlencoded")], body=b"grant_type=client_credentials",
                  answer=[("Content-Type", "text/plain;charset=UTF-8")], answer_body=b"\xef\xbb\xbf" + document.encode()),
        _exchange("http://127.0.0.1:9/auth/oauth/v2/token", method="POST",
                  headers=[("Content-Type", "application/x-www-form-urlencoded")], body=b"grant_type=client_credentials",
                  answer=[("Content-Type", "text/plain;charset=UTF-16")], answer_body=document.encode("utf-16")),
        _exchange("http://127.0.0.1:9/auth/oauth/v2/token", method="POST",
                  headers=[("Content-Type", "application/x-www-form-urlencoded")], body=b"grant_type=client_credentials",
                  answer=[("Content-Type", "text/html")],
                  answer_body=f'<html><script>var t = {{"access_token": "{HTML_TOKEN}"}};</script></html>'.encode()),
        _exchange("http://127.0.0.1:9/registry-inzage/v6", headers=[("Authorization", f"Bearer {ACCESS}")],
                  answer=[("Content-Type", "application/json")],
                  answer_body=f'{{"detail": "{escaped_forms(ACCESS)} {escaped_forms(FRAGMENT)}"}}'.encode()),
        _exchange("http://127.0.0.1:9/soap", method="POST", headers=[("Authorization", f"Basic {basic}")],
                  status=500, answer=[("Content-Type", "text/xml")],
                  answer_body=f"<faultstring>operator {PASSWORD} refused</faultstring>".encode()),
    ]


def test_traffic_of_a_hostile_capture_reaches_no_file(tmp_path: Path) -> None:
    from conformance.passive.har import write_har

    capture = write_har(_hostile_capture(), tmp_path / "capture.har")
    profile = tmp_path / "capture.toml"
    profile.write_text('[profile]\nname = "hostile-capture"\ndescription = "a capture of a hostile server"\n'
                       '[services.auth]\nmock = false\nauth_url = "http://127.0.0.1:9"\n'
                       '[services.address]\nmock = false\nbase_url = "http://127.0.0.1:9/v2"\n'
                       '[services.address.secrets]\napi_key = "HOSTILE_CAPTURE_KEY"\n', encoding="utf-8")
    report = tmp_path / "traffic"
    proc = _run("traffic", str(capture), "--profile", str(profile), "--no-html", "--report-dir", str(report),
                timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out[-3000:]
    secrets = [ACCESS, REFRESH, FRAGMENT, HTML_TOKEN, QUERY_KEY, PASSWORD]
    assert scan_files(report, secrets) == {}
    assert leaks(out.encode(), secrets) == []
    assert (report / "traffic.har").is_file() or any(report.rglob("*-attachment.txt"))


# ------------------------------------------------------------------------------ the proxy
def test_a_client_through_the_proxy_to_hostile_servers_leaves_no_secret_in_any_file(echoing, tmp_path: Path) -> None:
    import httpx
    from hostile_servers import HostileAuth
    from proxy_process import ProxyProcess

    base_url, gateway, _samples = echoing
    gateway.refuse = False
    tokens = {form: f"{form}-token-{i}a2b4c6d8e0f13579" for i, form in enumerate(("fragment", "bom", "utf16", "html"))}
    with HostileAuth(tokens) as auth:
        profile = tmp_path / "proxied.toml"
        profile.write_text(f"""[profile]
name = "proxied-hostile"
description = "hostile servers seen through conformance proxy"
[services.address]
mock = false
base_url = "{base_url}"
[services.address.secrets]
api_key = "{KEY_VAR}"
[services.auth]
mock = false
auth_url = "{auth.url}"
inquiry_base = "{auth.url}"
""", encoding="utf-8")
        report = tmp_path / "report"
        proxy = ProxyProcess(profile, report, {**os.environ, KEY_VAR: CANARY_KEY})
        try:
            address, auth_listener = proxy.listener("address"), proxy.listener("auth")
            with httpx.Client(trust_env=False, timeout=60) as client:
                client.get(f"{address}/adressen/0000000000000000", headers={"X-Api-Key": CANARY_KEY})  # a problem echo
                client.get(f"{address}/adressen", params={"q": "Amsterdam"}, headers={"X-Api-Key": CANARY_KEY})
                client.get(f"{auth_listener}/auth/oauth/v2/authorize", params={"response_type": "token", "client_id": "c"})
                for form in ("bom", "utf16", "html"):
                    answer = client.post(f"{auth_listener}/auth/oauth/v2/token", params={"form": form},
                                         data={"grant_type": "client_credentials"})
                    assert answer.status_code == 200
                    client.get(f"{auth_listener}/registry-inzage/v6", headers={"Authorization": f"Bearer {tokens[form]}"})
            proxy.wait_for("FAIL auth.token.utf8_without_bom")
        finally:
            code = proxy.stop()
    out = "\n".join(proxy.seen)
    assert code == 1, out[-3000:]
    secrets = [CANARY_KEY, *tokens.values()]
    assert scan_files(report, secrets) == {}
    assert leaks(out.encode(), secrets) == []
    failed = {c for c, o in _outcomes(report).items() if o == "failed"}
    assert {"auth.token.media_type_json", "auth.token.utf8_without_bom"} <= failed, failed
