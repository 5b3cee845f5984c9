"""Fixtures of the auth suite: one token response of each flow, shared by the checks that
only read it (the response of a code exchange and of a client-credentials request)."""

from __future__ import annotations

import pytest

from conformance.errors import NotApplicable


@pytest.fixture(scope="module")
def code_tokens(auth_flows):
    _, tokens = auth_flows.code_tokens()
    if not tokens.issued:
        raise NotApplicable(f"the code exchange issued no token ({tokens.exchange.summary()})")
    return tokens


@pytest.fixture(scope="module")
def cc_tokens(auth_flows):
    return auth_flows.cc_token()
