"""Fixtures of the auth suite: one token response of each flow, shared by the checks that
only read it (the response of a code exchange and of a client-credentials request).

A flow that fails here blocks the checks that read its response (never not applicable: the
positive flow they start from failed), with the same cause in each of them."""

from __future__ import annotations

import pytest

from conformance.auth.flows import EXCHANGE_CAUSE
from conformance.checks.finding import require


@pytest.fixture(scope="module")
def code_tokens(auth_flows):
    _, tokens = auth_flows.code_tokens()
    require(tokens.issued, "a token from the code exchange", EXCHANGE_CAUSE.format("confidential", tokens.answer))
    return tokens


@pytest.fixture(scope="module")
def cc_tokens(auth_flows):
    return auth_flows.cc_token()


@pytest.fixture(scope="module")
def auth_fresh(auth_clocked):
    """An authorization server on which this module's checks are the first to authorize: on
    the local mock a private instance (auth_clocked starts one per module), elsewhere the
    profile's server. A check that needs to see what happens the first time (a consent page)
    lives in a module of its own."""
    return auth_clocked
