"""Refresh (seed 001 part 4 steps 3-4, part 8; RFC 6749 section 6).

A refresh token comes from the code flow; when that flow fails, the checks here are blocked
by it (the same cause in each). A negative case also sends the refresh it changed one thing
of, unchanged, as its control. The refresh response is judged as every token response is
(suites/auth/test_token_response.py); here, that it carries the refresh_token the seed gives
the refresh flow."""

from __future__ import annotations

import secrets

from conformance.checks.auth import checks as c
from conformance.checks.auth import control
from conformance.checks.auth.control import CODE_UNRELATED
from conformance.checks.registry import MUST, OBSERVATION, check
from conformance.errors import NotApplicable
from conformance.findings import expect, require

WRONG_SECRET = "wrong-secret-for-conformance"
REFRESH_CAUSE = "refresh (valid refresh token) -> {}"
REFRESH_ALIVE_AT_S = 604800 - 3600  # an hour short of the seed's 7 days (part 8)


def _refresh_token(flows) -> str:
    _, tokens = flows.code_tokens()
    require(tokens.refresh_token is not None, "a refresh token from the code exchange",
            f"code exchange (confidential client) -> {tokens.answer}" + ("" if not tokens.issued else ", no refresh_token"))
    return tokens.refresh_token


@check("auth.refresh.works", MUST, "A refresh with refresh_token, client_id and client_secret returns a working access token",
       requirements=["AUTH-4.filing-steps", "AUTH-4.token-request", "RFC6749-6"],
       proven_by=["auth.refresh_grant_unsupported"],
       may_fail_under=["auth.resource_rejects_valid_token"],
       feature="part 4 / refresh")
def test_refresh_works(auth_flows):
    refreshed = auth_flows.refresh(_refresh_token(auth_flows))
    c.ensure_token_issued(refreshed, "refresh")
    c.ensure_api_served_if_present(auth_flows, "filing", refreshed.access_token, "filing API with the refreshed token")


@check("auth.refresh.wrong_secret_refused", MUST, "A refresh with a wrong client_secret is refused",
       requirements=["AUTH-4.token-request", "RFC6749-6"],
       proven_by=["auth.client_secret_not_checked"],
       sends=["refused"],
       feature="part 4 / refresh")
def test_wrong_secret_refused(auth_flows):
    # The control is another refresh token of the same kind: a refresh token is used up when
    # accepted, so the changed request cannot reuse the control's.
    control.require_token(auth_flows.refresh(_refresh_token(auth_flows)), "a refresh with the right secret accepted",
                          REFRESH_CAUSE)
    result = auth_flows.refresh(_refresh_token(auth_flows), client_secret=WRONG_SECRET)
    control.token_refused(result, "a refresh with a wrong client_secret")


@check("auth.refresh.missing_secret_refused", MUST, "A refresh without client_secret (no other authentication either) is refused",
       requirements=["AUTH-4.token-request.refresh", "RFC6749-6"],
       proven_by=["auth.client_secret_optional", "auth.client_secret_not_checked"],
       sends=["refused"],
       feature="part 4 / refresh")
def test_missing_secret_refused(auth_flows):
    # The refusal is the rule (RFC 6749 6: client authentication is required); its error code
    # (invalid_client) is auth.token.error_codes' (SHOULD: the seed shows no error responses).
    control.require_token(auth_flows.refresh(_refresh_token(auth_flows)), "a refresh with the client_secret accepted",
                          REFRESH_CAUSE)
    result = auth_flows.refresh(_refresh_token(auth_flows), client_secret=None)
    control.token_refused(result, "a refresh without client_secret")


@check("auth.refresh.refresh_token_issued", MUST, "A refresh response carries a refresh_token (the seed gives it in the refresh flow)",
       requirements=["AUTH-2.token-response.refresh-token", "AUTH-4.filing-steps"],
       proven_by=["auth.refresh_no_refresh_token"],
       feature="part 4 / refresh")
def test_refresh_token_issued(auth_flows):
    refreshed = control.require_token(auth_flows.refresh(_refresh_token(auth_flows)), "the refresh accepted",
                                      REFRESH_CAUSE)
    expect(refreshed.refresh_token is not None, "the refresh response carries no refresh_token",
           expected="refresh_token (seed part 2: 'only in the authorization code and refresh flows')",
           actual=f"members {sorted(refreshed.body)}")


@check("auth.refresh.other_client_token_refused", MUST, "A refresh token issued to the public client, presented by the confidential client (with its valid secret), is refused",
       requirements=["RFC6749-6", "AUTH-4.token-request.refresh"],
       proven_by=["auth.refresh_client_not_compared"],
       sends=["refused"],
       feature="part 4 / refresh")
def test_other_client_token_refused(auth_flows):
    # Control: the confidential client refreshes its own token. Changed: the same client, with
    # the same authentication, presents a refresh token the server issued to the public client.
    control.require_token(auth_flows.refresh(_refresh_token(auth_flows)), "a refresh of the client's own token accepted",
                          REFRESH_CAUSE)
    authz = auth_flows.authorize_for_code(client="public")
    public = control.require_token(auth_flows.exchange(authz), "the public client's code exchange accepted",
                                   "code exchange (public client) -> {}")
    if public.refresh_token is None:
        raise NotApplicable("the public client gets no refresh token: there is no other client's refresh token "
                            "to present (the seed's refresh request is the confidential client's)")
    control.token_refused(auth_flows.refresh(public.refresh_token), "the public client's refresh token presented by "
                          "the confidential client", unrelated=CODE_UNRELATED)


@check("auth.refresh.unknown_token_refused", MUST, "A refresh token the server never issued is refused",
       requirements=["RFC6749-6", "AUTH-4.token-request.refresh"],
       proven_by=["auth.refresh_unknown_accepted"],
       sends=["refused"],
       feature="part 4 / refresh")
def test_unknown_token_refused(auth_flows):
    real = _refresh_token(auth_flows)
    control.require_token(auth_flows.refresh(real), "a refresh with an issued refresh token accepted", REFRESH_CAUSE)
    # Of the issued one's length and alphabet, so only its being unknown can refuse it.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    made_up = "".join(secrets.choice(alphabet) for _ in range(max(len(real), 32)))
    control.token_refused(auth_flows.refresh(made_up), "a refresh token the server never issued",
                          unrelated=CODE_UNRELATED)


@check("auth.refresh.alive_before_lifetime", MUST, "A refresh token 604800 s less an hour old still gives a working token",
       requirements=["AUTH-8.refresh-token-lifetime", "AUTH-4.filing-steps"],
       proven_by=["auth.refresh_dies_early"],
       may_fail_under=["auth.resource_rejects_valid_token"],
       sends=["valid", "waits"],
       feature="part 4 / refresh")
def test_alive_before_lifetime(auth_clocked):
    control.require_token(auth_clocked.refresh(_refresh_token(auth_clocked)), "a fresh refresh token accepted",
                          REFRESH_CAUSE)
    token = _refresh_token(auth_clocked)
    auth_clocked.advance(REFRESH_ALIVE_AT_S)
    refreshed = auth_clocked.refresh(token)
    c.ensure_token_issued(refreshed, f"a refresh token {REFRESH_ALIVE_AT_S} s old (its lifetime is 604800 s)")
    c.ensure_api_served_if_present(auth_clocked, "filing", refreshed.access_token,
                                   "filing API with the token of a nearly 7 days old refresh token")


@check("auth.refresh.expired_refused", MUST, "A refresh token is refused after 604800 s",
       requirements=["AUTH-8.refresh-token-lifetime"],
       proven_by=["auth.refresh_never_expires"],
       sends=["refused", "waits"],
       feature="part 4 / refresh")
def test_expired_refused(auth_clocked):
    control.require_token(auth_clocked.refresh(_refresh_token(auth_clocked)), "a fresh refresh token accepted",
                          REFRESH_CAUSE)
    token = _refresh_token(auth_clocked)
    auth_clocked.advance(604800 + 60)
    control.token_refused(auth_clocked.refresh(token), "a refresh token 7 days and a minute old")


# It replays a used refresh token, which a server may refuse (and revoke the family for).
@check("auth.refresh.rotation", OBSERVATION, "Whether a refresh returns a new refresh token and retires the old one: measured",
       requirements=["RFC6749-6", "AUTH-4.filing-steps"],
       sends=["refused"],
       feature="part 4 / refresh")
def test_rotation(auth_flows, observe):
    old = _refresh_token(auth_flows)
    first = control.require_token(auth_flows.refresh(old), "the refresh itself accepted", REFRESH_CAUSE)
    rotated = first.refresh_token is not None and first.refresh_token != old
    again = auth_flows.refresh(old)
    observe({
        "new_refresh_token_issued": rotated,
        "old_refresh_token_after_use": "accepted" if again.issued else f"refused ({again.answer})",
    })
