"""The token response (seed 001 part 2 table; RFC 6749 5.1 and 5.2), for both flows."""

from __future__ import annotations

from conformance.auth import rfc7636
from conformance.auth.flows import FILING_SCOPE, INQUIRY_SCOPE
from conformance.checks.auth import checks as c
from conformance.checks.auth import control
from conformance.checks.registry import MUST, SHOULD, check


@check("auth.token.response_members", MUST, "Token response: access_token, token_type Bearer, expires_in integer, refresh_token (code flow), scope equal to the granted scope",
       requirements=["AUTH-2.token-response", "RFC6749-5.1"],
       proven_by=["auth.scope_missing_in_token_response"],
       observes="exchange",
       feature="part 2 / token response")
def test_response_members(code_tokens, cc_tokens):
    c.ensure_token_members(code_tokens, refresh=True, scope=FILING_SCOPE)
    c.ensure_token_members(cc_tokens, refresh=False, scope=INQUIRY_SCOPE)


@check("auth.token.expires_in_3600", MUST, "expires_in is 3600 for both flows",
       requirements=["AUTH-2.token-response", "AUTH-8.access-token-lifetime"],
       proven_by=["auth.expires_in_not_3600"],
       observes="exchange",
       feature="part 2 / token response")
def test_expires_in_3600(code_tokens, cc_tokens):
    c.ensure_expires_in(code_tokens, 3600)
    c.ensure_expires_in(cc_tokens, 3600)


@check("auth.token.no_store", MUST, "Token responses carry Cache-Control: no-store",
       requirements=["RFC6749-5.1"],
       proven_by=["auth.no_store_missing"],
       observes="exchange",
       feature="part 2 / token response")
def test_no_store(code_tokens, cc_tokens):
    for tokens in (code_tokens, cc_tokens):
        c.ensure_header_value(tokens.exchange, "Cache-Control", "no-store")


@check("auth.token.pragma_no_cache", SHOULD, "Token responses carry Pragma: no-cache",
       requirements=["RFC6749-5.1"],
       proven_by=["auth.pragma_missing"],
       observes="exchange",
       feature="part 2 / token response",
       downgrade_reason="Pragma is deprecated by RFC 9111 (5.4) and OAuth 2.1 drops it; Cache-Control: no-store is the MUST check auth.token.no_store")
def test_pragma_no_cache(code_tokens, cc_tokens):
    for tokens in (code_tokens, cc_tokens):
        c.ensure_header_value(tokens.exchange, "Pragma", "no-cache")


@check("auth.token.media_type_json", MUST, "Token responses are JSON (application/json, parameters in any case)",
       requirements=["AUTH-2.token-response", "RFC6749-5.1"],
       proven_by=["auth.token_served_as_text"],
       observes="exchange",
       feature="part 2 / token response")
def test_media_type_json(code_tokens, cc_tokens):
    for tokens in (code_tokens, cc_tokens):
        c.ensure_media_type_json(tokens.exchange)


@check("auth.token.media_type_seed_spelling", MUST, "Token responses are application/json;charset=UTF-8 as the seed writes it (case and spaces aside)",
       requirements=["AUTH-2.token-response"],
       proven_by=["auth.token_content_type_no_charset", "auth.token_served_as_text"],
       observes="exchange",
       feature="part 2 / token response")
def test_media_type_seed_spelling(code_tokens, cc_tokens):
    for tokens in (code_tokens, cc_tokens):
        c.ensure_seed_media_spelling(tokens.exchange)


@check("auth.token.error_codes", SHOULD, "Token errors are RFC 6749 JSON with the code the case calls for (invalid_grant, invalid_client, unsupported_grant_type)",
       requirements=["RFC6749-5.2"],
       proven_by=["auth.token_errors_not_rfc6749"],
       may_fail_under=["auth.client_secret_not_checked", "auth.code_verifier_ignored"],
       sends=["refused"],
       feature="part 2 / token response",
       downgrade_reason="the seed: 'Error responses of the authorize and token endpoints ...: not shown'; the RFC 6749 codes are the public behaviour of servers of the national profile")
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
