"""Canary scan: with planted key values, no file a run writes carries any of them."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import forked_cli

from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

CANARY = "CANARY{}-7f3a9c1e5b2d4068a1b3c5d7e9f10234"


def test_no_key_reaches_any_report_file(tmp_path: Path) -> None:
    env_vars = load_profile("local-mock").address.secret_env.values()
    canaries = {var: CANARY.format(i) for i, var in enumerate(sorted(env_vars))}
    report = tmp_path / "report"
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "2", "--max-examples", "5",
         "--report-dir", str(report), "--", "-q", "-k", "auth or ratelimit or contract_zoek or headers"],
        capture_output=True, text=True, timeout=600, cwd=REPO_ROOT, env={**os.environ, **canaries},
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    files = [p for p in report.rglob("*") if p.is_file()]
    assert any(p.name.endswith("-attachment.txt") for p in files), "no evidence was attached"
    for path in files:
        text = path.read_bytes()
        for value in canaries.values():
            assert value.encode() not in text, f"{value} leaked into {path}"
    for value in canaries.values():
        assert value not in proc.stdout + proc.stderr


def test_planted_keys_are_the_ones_the_mock_uses(monkeypatch) -> None:
    # Without this, the scan above could pass on keys the canaries never became.
    from conformance.mocks.launcher import MockCluster

    profile = load_profile("local-mock")
    env_var = profile.address.secret_env["api_key"]
    monkeypatch.setenv(env_var, CANARY.format("x"))
    with MockCluster(profile) as cluster:
        assert cluster.secrets[env_var] == CANARY.format("x")
        import httpx

        url = cluster.urls["address"] + "/adressen/" + cluster.samples["address"]["nummeraanduiding"]
        assert httpx.get(url, headers={"X-Api-Key": CANARY.format("x")}, trust_env=False).status_code == 200


# What an unredacted token flow would leave behind: a JWS (access tokens and client
# assertions are JWTs), an authorization code in a URL, a token member in JSON.
_LEAKS = [
    re.compile(rb"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(rb"[?&]code=(?!\[redacted\]|%5Bredacted%5D)[^&\s\"']+"),
    # A member as JSON writes it, or as a JSON string holding JSON (a HAR's body text) writes it.
    re.compile(rb"\\?\"(access_token|refresh_token|client_assertion)\\?\":\s*\\?\"(?!\[redacted\])"),
]


def test_no_token_code_or_password_reaches_any_report_file(tmp_path: Path) -> None:
    auth = load_profile("local-mock").auth
    env_vars = [auth.secret_env[n] for n in ("client_secret", "password", "password_without_role")]
    canaries = {var: CANARY.format(f"auth{i}") for i, var in enumerate(env_vars)}
    report = tmp_path / "report"
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--suite", "auth", "--suite", "soap", "-n", "2", "--report-dir", str(report)],
        capture_output=True, text=True, timeout=600, cwd=REPO_ROOT, env={**os.environ, **canaries},
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    files = [p for p in report.rglob("*") if p.is_file()]
    attachments = [p for p in files if p.name.endswith("-attachment.txt")]
    # The scan must have something to bite on: token requests and redirects were recorded.
    assert any(b"/auth/oauth/v2/token" in p.read_bytes() for p in attachments)
    assert any(b"code=[redacted]" in p.read_bytes() or b"code=%5Bredacted%5D" in p.read_bytes() for p in attachments)
    for path in files:
        text = path.read_bytes()
        for value in canaries.values():
            assert value.encode() not in text, f"{value} leaked into {path}"
        if path.suffix == ".html":
            continue  # the single-file report embeds its own scripts and base64 data
        for pattern in _LEAKS:
            match = pattern.search(text)
            assert match is None, f"{path} carries {match.group(0)[:40]!r}"
    for value in canaries.values():
        assert value not in proc.stdout + proc.stderr


def _scan_for_tokens(report: Path) -> list[Path]:
    files = [p for p in report.rglob("*") if p.is_file()]
    for path in files:
        if path.suffix == ".html":
            continue  # scanned below, through its attachments' text
        text = path.read_bytes()
        for pattern in _LEAKS:
            match = pattern.search(text)
            assert match is None, f"{path} carries {match.group(0)[:40]!r}"
    return files


def test_a_token_response_served_as_text_leaves_no_token_in_any_file(tmp_path: Path) -> None:
    # The token endpoint labels its JSON text/plain: tokens are masked by what the body is.
    report = tmp_path / "report"
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--suite", "auth", "-n", "2", "--report-dir", str(report),
         "--mock-fault", "auth.token_served_as_text"],
        capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
    )
    assert proc.returncode == 1, proc.stdout[-2000:]  # the fault is a finding of the token-response checks
    files = _scan_for_tokens(report)
    har = (report / "traffic.har").read_bytes()
    # The scan had something to bite on: token responses served as text, their members masked.
    assert b"text/plain" in har and b'\\"access_token\\": \\"[redacted]\\"' in har.replace(b'\\":\\"', b'\\": \\"')
    assert any(p.name.endswith("-attachment.txt") for p in files)
    for pattern in _LEAKS:
        assert pattern.search((proc.stdout + proc.stderr).encode()) is None


def test_traffic_of_a_text_token_response_leaves_no_token_in_any_file(tmp_path: Path) -> None:
    # The same for a capture judged by `conformance traffic`: the HAR's own tokens are masked
    # in every file the command writes, though the capture labels the response text/plain.
    from conformance.http.exchange import Exchange, Headers
    from conformance.passive.har import write_har

    access = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ.c2lnbmF0dXJlLXZhbHVl"
    refresh = "refresh-7c1d9e0f2a3b4c5d6e7f8091a2b3c4d5"
    token = Exchange(
        method="POST", url="http://127.0.0.1:9/auth/oauth/v2/token",
        request_headers=Headers([("Content-Type", "application/x-www-form-urlencoded")]),
        request_body=f"grant_type=refresh_token&refresh_token={refresh}&client_id=c".encode(), status=200,
        response_headers=Headers([("Content-Type", "text/plain;charset=UTF-8")]),
        body=f'{{"access_token":"{access}","token_type":"Bearer","expires_in":3600,"refresh_token":"{refresh}2"}}'.encode(),
    )
    use = Exchange(
        method="GET", url="http://127.0.0.1:9/registry-inzage/v6",
        request_headers=Headers([("Authorization", f"Bearer {access}")]), request_body=b"", status=200,
        response_headers=Headers([("Content-Type", "text/plain")]), body=f"hello {access}".encode(),
    )
    capture = write_har([token, use], tmp_path / "capture.har")
    report = tmp_path / "report"
    profile = tmp_path / "auth-only.toml"
    profile.write_text(
        '[profile]\nname = "auth-only"\ndescription = "a capture of token traffic"\n'
        '[services.auth]\nmock = false\nauth_url = "http://127.0.0.1:9"\n', encoding="utf-8")
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "traffic", str(capture), "--profile", str(profile),
         "--report-dir", str(report)],
        capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
    )
    assert proc.returncode in (0, 1, 4), proc.stdout[-2000:] + proc.stderr[-2000:]
    files = [p for p in report.rglob("*") if p.is_file()]
    assert files
    for path in files:
        text = path.read_bytes()
        for value in (access, refresh, refresh + "2"):
            assert value.encode() not in text, f"a token leaked into {path}"
    for value in (access, refresh):
        assert value not in proc.stdout + proc.stderr
