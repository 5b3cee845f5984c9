"""The token response (seed 001 part 2 table; RFC 6749 5.1 and 5.2), for every flow: the code
exchange, client credentials and the refresh (the refresh response last, so that a refresh
that fails blocks only after the other two were judged)."""

from __future__ import annotations

from conformance.auth import rfc7636
from conformance.auth.flows import FILING_SCOPE, INQUIRY_SCOPE
from conformance.checks.auth import checks as c
from conformance.checks.auth import control
from conformance.checks.registry import MUST, SHOULD, check


@check("auth.token.response_members", MUST, "Token response (code exchange, client credentials, refresh): access_token, token_type Bearer, expires_in integer, refresh_token (code and refresh flows), scope equal to the granted scope",
       requirements=["AUTH-2.token-response", "AUTH-2.token-response.refresh-token", "RFC6749-5.1"],
       proven_by=["auth.scope_missing_in_token_response", "auth.refresh_expires_in_string",
                  "auth.refresh_no_refresh_token"],
       observes="exchange",
       feature="part 2 / token response")
def test_response_members(code_tokens, cc_tokens, refresh_tokens):
    c.ensure_token_members(code_tokens, refresh=True, scope=FILING_SCOPE)
    c.ensure_token_members(cc_tokens, refresh=False, scope=INQUIRY_SCOPE)
    c.ensure_token_members(refresh_tokens(), refresh=True, scope=FILING_SCOPE)


@check("auth.token.expires_in_3600", MUST, "expires_in is 3600 in every token response (code exchange, client credentials, refresh)",
       requirements=["AUTH-2.token-response", "AUTH-8.access-token-lifetime"],
       proven_by=["auth.expires_in_not_3600", "auth.refresh_expires_in_string"],
       observes="exchange",
       feature="part 2 / token response")
def test_expires_in_3600(code_tokens, cc_tokens, refresh_tokens):
    c.ensure_expires_in(code_tokens, 3600)
    c.ensure_expires_in(cc_tokens, 3600)
    c.ensure_expires_in(refresh_tokens(), 3600)


@check("auth.token.no_store", MUST, "Token responses (code exchange, client credentials, refresh) carry Cache-Control: no-store",
       requirements=["RFC6749-5.1"],
       proven_by=["auth.no_store_missing"],
       observes="exchange",
       feature="part 2 / token response")
def test_no_store(code_tokens, cc_tokens, refresh_tokens):
    for tokens in (code_tokens, cc_tokens, refresh_tokens()):
        c.ensure_header_value(tokens.exchange, "Cache-Control", "no-store")


@check("auth.token.pragma_no_cache", SHOULD, "Token responses (code exchange, client credentials, refresh) carry Pragma: no-cache",
       requirements=["RFC6749-5.1"],
       proven_by=["auth.pragma_missing"],
       observes="exchange",
       feature="part 2 / token response",
       downgrade_reason="Pragma is deprecated by RFC 9111 (5.4) and OAuth 2.1 drops it; Cache-Control: no-store is the MUST check auth.token.no_store")
def test_pragma_no_cache(code_tokens, cc_tokens, refresh_tokens):
    for tokens in (code_tokens, cc_tokens, refresh_tokens()):
        c.ensure_header_value(tokens.exchange, "Pragma", "no-cache")


@check("auth.token.media_type_json", MUST, "Token responses (code exchange, client credentials, refresh) are JSON (application/json, parameters in any case)",
       requirements=["AUTH-2.token-response", "RFC6749-5.1"],
       proven_by=["auth.token_served_as_text", "auth.token_served_bom_text", "auth.token_served_utf16"],
       observes="exchange",
       feature="part 2 / token response")
def test_media_type_json(code_tokens, cc_tokens, refresh_tokens):
    for tokens in (code_tokens, cc_tokens, refresh_tokens()):
        c.ensure_media_type_json(tokens.exchange)


@check("auth.token.media_type_seed_spelling", MUST, "Token responses (code exchange, client credentials, refresh) are application/json;charset=UTF-8 as the seed writes it (case and spaces aside)",
       requirements=["AUTH-2.token-response"],
       proven_by=["auth.token_content_type_no_charset", "auth.token_served_as_text", "auth.refresh_media_type_no_charset",
                  "auth.token_served_bom_text", "auth.token_served_utf16"],
       observes="exchange",
       feature="part 2 / token response")
def test_media_type_seed_spelling(code_tokens, cc_tokens, refresh_tokens):
    for tokens in (code_tokens, cc_tokens, refresh_tokens()):
        c.ensure_seed_media_spelling(tokens.exchange)


@check("auth.token.utf8_without_bom", MUST, "Token responses (code exchange, client credentials, refresh) are UTF-8 without a byte order mark, as their charset=UTF-8 says",
       requirements=["AUTH-2.token-response", "RFC8259-8.1"],
       proven_by=["auth.token_served_bom_text", "auth.token_served_utf16"],
       observes="exchange",
       feature="part 2 / token response")
def test_utf8_without_bom(code_tokens, cc_tokens, refresh_tokens):
    for tokens in (code_tokens, cc_tokens, refresh_tokens()):
        c.ensure_utf8_without_bom(tokens.exchange)


@check("auth.token.error_codes", SHOULD, "Token errors are RFC 6749 JSON with the code the case calls for (invalid_grant, invalid_client for a wrong or a missing secret at the code exchange and the refresh, unsupported_grant_type)",
       requirements=["RFC6749-5.2"],
       proven_by=["auth.token_errors_not_rfc6749"],
       may_fail_under=["auth.client_secret_not_checked", "auth.client_secret_optional", "auth.code_verifier_ignored"],
       sends=["refused"],
       feature="part 2 / token response",
       downgrade_reason="the seed: 'Error responses of the authorize and token endpoints ...: not shown'; the RFC 6749 codes are the public behaviour of servers of the national profile")
def test_error_codes(auth_flows):
    """The codes of the refusals whose MUST checks judge only that they are refused
    (auth.code.wrong_client_secret_refused, auth.code.missing_client_secret_refused,
    auth.refresh.missing_secret_refused, ...): RFC 6749 5.2 names them, the seed shows none."""
    control.control_exchange(auth_flows)  # the unchanged exchange is accepted
    wrong_verifier = auth_flows.exchange(auth_flows.authorize_for_code(), verifier=rfc7636.generate_verifier())
    c.ensure_error_code(wrong_verifier, ("invalid_grant",), "wrong code_verifier")
    wrong_secret = auth_flows.exchange(auth_flows.authorize_for_code(), client_secret="wrong-secret-for-conformance")
    c.ensure_error_code(wrong_secret, ("invalid_client",), "wrong client_secret")
    # RFC 6749 5.2 invalid_client: "Client authentication failed (e.g., ... no client authentication included ...)"
    no_secret = auth_flows.exchange(auth_flows.authorize_for_code(), client_secret=None)
    c.ensure_error_code(no_secret, ("invalid_client",), "a confidential client's code exchange without client_secret")
    # The confidential client authenticates as in the control: only the grant type is wrong,
    # so a server that checks client authentication first still reaches the grant type.
    targets = auth_flows.targets
    unknown_grant = auth_flows.token.post([
        ("grant_type", "password"), ("username", "x"), ("password", "y"),
        ("client_id", targets.client("confidential")), ("client_secret", targets.secret("client_secret")),
    ])
    c.ensure_error_code(unknown_grant, ("unsupported_grant_type", "unauthorized_client"), "grant_type=password")
    # Last, a refresh: without the secret, then (its control) with it, the same refresh token
    # still unused; a server without a working refresh blocks only this part.
    _, tokens = auth_flows.code_tokens()
    control.require_token(tokens, "the unchanged code exchange accepted", "code exchange (confidential client) -> {}")
    if tokens.refresh_token is None:
        return  # no refresh flow to judge (auth.token.response_members says the token is missing)
    no_secret = auth_flows.refresh(tokens.refresh_token, client_secret=None)
    control.require_token(auth_flows.refresh(tokens.refresh_token), "the unchanged refresh accepted",
                          "refresh (valid refresh token) -> {}")
    c.ensure_error_code(no_secret, ("invalid_client",), "a refresh without client_secret")
