"""Refresh (seed 001 part 4 steps 3-4, part 8; RFC 6749 section 6)."""

from __future__ import annotations

import pytest

from conformance.checks.auth import checks as c
from conformance.errors import NotApplicable


def _refresh_token(flows) -> str:
    _, tokens = flows.code_tokens()
    if tokens.refresh_token is None:
        raise NotApplicable(f"the code exchange gave no refresh token ({tokens.exchange.summary()})")
    return tokens.refresh_token


@pytest.mark.check("auth.refresh.works")
def test_refresh_works(auth_flows):
    refreshed = auth_flows.refresh(_refresh_token(auth_flows))
    c.ensure_token_issued(refreshed, "refresh")
    c.ensure_api_served(auth_flows.call_filing(refreshed.access_token), "filing API with the refreshed token")


@pytest.mark.negative
@pytest.mark.check("auth.refresh.wrong_secret_refused")
def test_wrong_secret_refused(auth_flows):
    result = auth_flows.refresh(_refresh_token(auth_flows), client_secret="wrong-secret-for-conformance")
    c.ensure_token_refused(result, "a refresh with a wrong client_secret")


@pytest.mark.negative
@pytest.mark.waits
@pytest.mark.check("auth.refresh.expired_refused")
def test_expired_refused(auth_clocked):
    token = _refresh_token(auth_clocked)
    auth_clocked.advance(604800 + 60)
    c.ensure_token_refused(auth_clocked.refresh(token), "a refresh token 7 days and a minute old")


@pytest.mark.negative  # replays a used refresh token: a server may revoke the family
@pytest.mark.check("auth.refresh.rotation")
def test_rotation(auth_flows, observe):
    old = _refresh_token(auth_flows)
    first = auth_flows.refresh(old)
    if not first.issued:
        raise NotApplicable(f"the refresh itself failed ({first.exchange.summary()}): nothing to measure")
    rotated = first.refresh_token is not None and first.refresh_token != old
    again = auth_flows.refresh(old)
    observe({
        "new_refresh_token_issued": rotated,
        "old_refresh_token_after_use": "accepted" if again.issued else f"refused ({again.error})",
    })
