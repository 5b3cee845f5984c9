"""The token response (seed 001 part 2 table; RFC 6749 5.1 and 5.2), for both flows."""

from __future__ import annotations

import pytest

from conformance.auth import rfc7636
from conformance.auth.flows import FILING_SCOPE, INQUIRY_SCOPE
from conformance.checks.auth import checks as c
from conformance.checks.auth import control


@pytest.mark.check("auth.token.response_members")
def test_response_members(code_tokens, cc_tokens):
    c.ensure_token_members(code_tokens, refresh=True, scope=FILING_SCOPE)
    c.ensure_token_members(cc_tokens, refresh=False, scope=INQUIRY_SCOPE)


@pytest.mark.check("auth.token.expires_in_3600")
def test_expires_in_3600(code_tokens, cc_tokens):
    c.ensure_expires_in(code_tokens, 3600)
    c.ensure_expires_in(cc_tokens, 3600)


@pytest.mark.check("auth.token.no_store")
def test_no_store(code_tokens, cc_tokens):
    for tokens in (code_tokens, cc_tokens):
        c.ensure_header_value(tokens.exchange, "Cache-Control", "no-store")


@pytest.mark.check("auth.token.pragma_no_cache")
def test_pragma_no_cache(code_tokens, cc_tokens):
    for tokens in (code_tokens, cc_tokens):
        c.ensure_header_value(tokens.exchange, "Pragma", "no-cache")


@pytest.mark.check("auth.token.media_type_json")
def test_media_type_json(code_tokens, cc_tokens):
    for tokens in (code_tokens, cc_tokens):
        c.ensure_media_type_json(tokens.exchange)


@pytest.mark.check("auth.token.media_type_seed_spelling")
def test_media_type_seed_spelling(code_tokens, cc_tokens):
    for tokens in (code_tokens, cc_tokens):
        c.ensure_seed_media_spelling(tokens.exchange)


@pytest.mark.negative
@pytest.mark.check("auth.token.error_codes")
def test_error_codes(auth_flows):
    control.control_exchange(auth_flows)  # the unchanged exchange is accepted
    wrong_verifier = auth_flows.exchange(auth_flows.authorize_for_code(), verifier=rfc7636.generate_verifier())
    c.ensure_error_code(wrong_verifier, ("invalid_grant",), "wrong code_verifier")
    wrong_secret = auth_flows.exchange(auth_flows.authorize_for_code(), client_secret="wrong-secret-for-conformance")
    c.ensure_error_code(wrong_secret, ("invalid_client",), "wrong client_secret")
    # The confidential client authenticates as in the control: only the grant type is wrong,
    # so a server that checks client authentication first still reaches the grant type.
    targets = auth_flows.targets
    unknown_grant = auth_flows.token.post([
        ("grant_type", "password"), ("username", "x"), ("password", "y"),
        ("client_id", targets.client("confidential")), ("client_secret", targets.secret("client_secret")),
    ])
    c.ensure_error_code(unknown_grant, ("unsupported_grant_type", "unauthorized_client"), "grant_type=password")
