"""The auth suite measures what the seed leaves open instead of assuming it: the code
lifetime observation reports 30 s or 300 s, whichever the server applies. And the flows of
an unattended run keep the refresh token they start from current when a check refreshes it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import forked_cli
import pytest

from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.paths import SHIPPED_PROFILES


@pytest.mark.parametrize("lifetime", [30, 300])
def test_code_lifetime_observation_measures_the_servers_lifetime(lifetime: int, tmp_path: Path) -> None:
    text = (SHIPPED_PROFILES / "local-mock.toml").read_text()
    text = text.replace("mock_code_lifetime_s = 30", f"mock_code_lifetime_s = {lifetime}")
    profile = tmp_path / "mock.toml"
    profile.write_text(text)
    report = tmp_path / "report"
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", "auth", "-n", "0",
         "--no-html", "--report-dir", str(report), "--", "-q", "-k", "lifetime or expired_refused"],
        capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    entries = {e["check"]: e for e in json.loads((report / "summary.json").read_text())["checks"]}
    assert entries["auth.code.lifetime_governing"]["value"]["governing_s"] == lifetime
    # Whichever governs, a code older than the longer lifetime is refused.
    assert entries["auth.code.expired_refused"]["outcome"] == "passed"


def test_unattended_flows_keep_their_refresh_token_current_when_a_check_refreshes_it() -> None:
    from conformance.auth.flows import AuthFlows, AuthTargets
    from conformance.auth.rfc6749 import TokenResult
    from conformance.http.exchange import Exchange, Headers

    class RotatingServer:
        """A token endpoint that rotates: each refresh token works once."""

        def __init__(self) -> None:
            self.live = "rt-0"
            self.issued = 0

        def refresh(self, *, refresh_token: str, client_id: str, client_secret: str | None) -> TokenResult:
            exchange = Exchange("POST", "http://as/token", Headers(), b"", 200, Headers(), b"{}")
            if refresh_token != self.live:
                return TokenResult(exchange, {"error": "invalid_grant"})
            self.issued += 1
            self.live = f"rt-{self.issued}"
            return TokenResult(exchange, {"access_token": f"at-{self.issued}", "refresh_token": self.live})

    targets = AuthTargets(auth_url="http://as", filing_base=None, inquiry_base=None, audience="as:443/t",
                          redirect_uri="http://127.0.0.1/cb", clients={"confidential": "c"},
                          secrets={"client_secret": "s", "refresh_token": "rt-0"})
    flows = AuthFlows(targets, api=None, browser_factory=lambda: None)  # type: ignore[arg-type]
    flows.token = RotatingServer()  # type: ignore[assignment]
    _, first = flows.code_tokens()  # the unattended start: a refresh
    assert first.issued and first.refresh_token == "rt-1"
    assert flows.refresh(first.refresh_token).issued  # a check refreshes the token the flows hold
    _, again = flows.code_tokens()  # and the flows go on from the rotated one
    assert again.issued, again.error
    assert not flows.refresh("rt-1").issued  # a rotated-away token stays refused
