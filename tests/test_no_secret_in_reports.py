"""Canary scan: with planted key values, no file a run writes carries any of them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

CANARY = "CANARY{}-7f3a9c1e5b2d4068a1b3c5d7e9f10234"


def test_no_key_reaches_any_report_file(tmp_path: Path) -> None:
    env_vars = load_profile("local-mock").address.secret_env.values()
    canaries = {var: CANARY.format(i) for i, var in enumerate(sorted(env_vars))}
    report = tmp_path / "report"
    proc = subprocess.run(
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
    re.compile(rb"\"(access_token|refresh_token|client_assertion)\":\s*\"(?!\[redacted\])"),
]


def test_no_token_code_or_password_reaches_any_report_file(tmp_path: Path) -> None:
    auth = load_profile("local-mock").auth
    env_vars = [auth.secret_env[n] for n in ("client_secret", "password", "password_without_role")]
    canaries = {var: CANARY.format(f"auth{i}") for i, var in enumerate(env_vars)}
    report = tmp_path / "report"
    proc = subprocess.run(
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
