"""The token response (seed 001 part 2 table; RFC 6749 5.1 and 5.2), for every flow: the code
exchange, client credentials and the refresh (the refresh response last, so that a refresh
that fails blocks only after the other two were judged). What one token response shows (its
media type, charset, cache headers, expires_in) is an exchange rule, judged on the same three
responses (conformance/passive/rules/auth.py, suites/auth/test_exchange_rules.py)."""

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
