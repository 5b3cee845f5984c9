"""Authorization code with PKCE (seed 001 parts 2, 4, 5 and 8; RFC 6749 4.1, RFC 7636).

Each negative case changes one thing in an otherwise correct flow and sends the unchanged
request as its control (conformance/checks/auth/control.py): a refusal counts only when the
control was accepted, so it can only be due to that one thing. A token-endpoint case needs a
fresh code for its control, since a code is single use.
"""

from __future__ import annotations

from conformance.auth import rfc7636
from conformance.auth.flows import EXCHANGE_CAUSE
from conformance.auth.login import CredentialsRefused, LoginError
from conformance.checks.auth import checks as c
from conformance.checks.auth import control
from conformance.checks.auth.control import CODE_UNRELATED
from conformance.checks.registry import MUST, OBSERVATION, SHOULD, check
from conformance.errors import NotJudged
from conformance.findings import Blocked, Finding

# printable ASCII only (RFC 6749 VSCHAR), with what encoders get wrong: + % / space ~
TRICKY_STATE = "a+b %2F/c~d*e'f(g)h!"
WRONG_SECRET = "wrong-secret-for-conformance"
# Shorter than both of the seed's code lifetimes (30 s and 300 s), with room for skew.
CODE_ALIVE_AT_S = 20


@check("auth.code.confidential_flow", MUST, "Confidential client: authorize, log in, consent, redirect with code and state, exchange with secret and verifier, call the filing API, refresh, call again",
       requirements=["AUTH-4.filing-steps", "AUTH-4.token-request", "RFC6749-4.1"],
       proven_by=["auth.resource_rejects_valid_token", "auth.refresh_grant_unsupported", "auth.authorize_unavailable"],
       feature="part 2 / authorization code + PKCE")
def test_confidential_flow(auth_flows):
    authz = auth_flows.authorize(client="confidential")
    c.ensure_code_issued(authz.result, "confidential client")
    tokens = auth_flows.exchange(authz)
    c.ensure_token_issued(tokens, "code exchange (confidential)")
    c.ensure_api_served_if_present(auth_flows, "filing", tokens.access_token, "filing API with the code-flow token")
    if tokens.refresh_token is None:
        raise Finding("the code-flow response carries no refresh_token to continue with")
    refreshed = auth_flows.refresh(tokens.refresh_token)
    c.ensure_token_issued(refreshed, "refresh")
    c.ensure_api_served_if_present(auth_flows, "filing", refreshed.access_token, "filing API with the refreshed token")


@check("auth.code.public_flow", MUST, "Public client: the same flow without a client secret; the token works at the filing API",
       requirements=["AUTH-4.filing-steps", "AUTH-5.2", "RFC6749-4.1", "RFC7636-4.2"],
       proven_by=["auth.resource_rejects_valid_token", "auth.authorize_unavailable"],
       feature="part 2 / authorization code + PKCE")
def test_public_flow(auth_flows):
    authz = auth_flows.authorize(client="public")
    c.ensure_code_issued(authz.result, "public client")
    tokens = auth_flows.exchange(authz)
    c.ensure_token_issued(tokens, "code exchange (public, no secret)")
    c.ensure_api_served_if_present(auth_flows, "filing", tokens.access_token, "filing API with the public client's token")


@check("auth.code.state_echoed", MUST, "The redirect carries `state` byte for byte as sent (with '+', '%', '/' and non-ASCII)",
       requirements=["AUTH-2.redirect", "RFC6749-4.1.2"],
       proven_by=["auth.state_mangled"],
       observes="flow",
       feature="part 2 / authorization code + PKCE")
def test_state_echoed(auth_flows):
    control.control_code(auth_flows)  # a plain state: the authorization itself works
    authz = auth_flows.authorize(state=TRICKY_STATE)
    c.ensure_code_issued(authz.result, "authorization with a tricky state")
    finding = c.state_mismatch(TRICKY_STATE, authz.result)
    if finding:
        raise finding


@check("auth.code.authorization_response_302_query", MUST, "The authorization response is a 302 to the redirect_uri with code and state as query parameters (a fragment or another status is a finding)",
       requirements=["AUTH-4.authorize", "AUTH-2.redirect"],
       proven_by=["auth.authorize_code_in_fragment", "auth.authorize_code_redirect_303"],
       feature="part 2 / authorization code + PKCE")
def test_authorization_response_302_query(auth_flows):
    # The login walk takes a code from wherever it comes, so that the checks that start from
    # one run; whether it came the seed's way is judged here.
    authz = auth_flows.authorize_for_code()
    c.ensure_authorization_response_form(authz.result)


@check("auth.code.role_required", MUST, "A user without the role `Aanbieder M2M` gets no code",
       requirements=["AUTH-1.role"],
       proven_by=["auth.role_not_checked"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_role_required(auth_flows):
    if "without_role" not in auth_flows.targets.drivers:
        raise NotJudged("no login as a user without the role Aanbieder M2M",
                        "give services.auth.secrets.username_without_role and password_without_role (form driver)")
    control.control_code(auth_flows, user="default")
    control.authorization_refused(auth_flows, "a user without the role Aanbieder M2M", user="without_role")


@check("auth.code.unregistered_redirect_uri_not_followed", MUST, "An unregistered redirect_uri is never redirected to (an error page instead)",
       requirements=["RFC6749-4.1.2.1", "RFC6749-10.6"],
       proven_by=["auth.authorize_redirects_anywhere"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_unregistered_redirect_uri_not_followed(auth_flows):
    control.control_code(auth_flows)
    evil = "http://127.0.0.1:9/not-registered"
    try:
        authz = auth_flows.authorize(redirect_uri=evil)
    except CredentialsRefused as exc:  # the login itself failed: nothing was judged
        raise Blocked("a login for the authorization with an unregistered redirect_uri", str(exc)) from None
    except LoginError:
        return  # an error page: the user agent was not sent anywhere
    raise Finding("the authorization server redirected to an unregistered redirect_uri",
                  expected="an error page, no redirect", actual=f"redirect ({authz.result.answer})")


def _pkce_clients(flows) -> list[str]:
    """The clients PKCE is judged with: the confidential one, and the public one where the
    profile names it (PKCE exists for the client without a secret: issue 51)."""
    return ["confidential"] + (["public"] if flows.targets.clients.get("public") else [])


@check("auth.pkce.challenge_required", MUST, "An authorization request without code_challenge gets no code (confidential and public client)",
       requirements=["AUTH-5.2", "AUTH-2.authorization-request", "RFC7636-4.4.1"],
       proven_by=["auth.pkce_not_required", "auth.public_client_pkce_not_enforced"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_challenge_required(auth_flows):
    for client in _pkce_clients(auth_flows):
        control.control_code(auth_flows, client=client)
        control.authorization_refused(auth_flows, f"an authorization request without code_challenge ({client} client)",
                                      client=client, verifier=None, challenge=None, method=None)


@check("auth.pkce.plain_refused", MUST, "code_challenge_method=plain (and a challenge without method, which means plain) gets no code",
       requirements=["AUTH-2.authorization-request", "AUTH-5.2", "RFC9700-2.1.1"],
       proven_by=["auth.pkce_plain_accepted"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_plain_refused(auth_flows):
    verifier = rfc7636.generate_verifier()
    control.control_code(auth_flows, verifier=verifier)  # the same verifier as S256 gets a code
    control.authorization_refused(auth_flows, "code_challenge_method=plain",
                                  verifier=verifier, challenge=verifier, method="plain")
    control.authorization_refused(auth_flows, "a code_challenge without a method (plain by default)",
                                  verifier=verifier, challenge=verifier, method=None)


def _exchange_refused(flows, what: str, *, authorize=None, client: str = "confidential", **change) -> None:
    """Control: a fresh code exchanged unchanged gets a token. Then a code exchanged with
    one change is refused, for a reason other than the client's authentication."""
    control.control_exchange(flows, client=client)
    authz = flows.authorize_for_code(client=client, **(authorize or {}))
    control.token_refused(flows.exchange(authz, **change), what, unrelated=CODE_UNRELATED)


@check("auth.pkce.wrong_verifier_refused", MUST, "A code_verifier that does not hash to the challenge is refused (confidential and public client)",
       requirements=["AUTH-2.code-challenge", "RFC7636-4.6"],
       proven_by=["auth.code_verifier_ignored", "auth.public_client_pkce_not_enforced"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_wrong_verifier_refused(auth_flows):
    for client in _pkce_clients(auth_flows):
        _exchange_refused(auth_flows, f"a wrong code_verifier ({client} client)", client=client,
                          verifier=rfc7636.generate_verifier())


@check("auth.pkce.missing_verifier_refused", MUST, "A code exchange without code_verifier is refused (confidential and public client)",
       requirements=["AUTH-4.token-request", "RFC7636-4.6"],
       proven_by=["auth.code_verifier_ignored", "auth.pkce_not_required", "auth.public_client_pkce_not_enforced"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_missing_verifier_refused(auth_flows):
    for client in _pkce_clients(auth_flows):
        _exchange_refused(auth_flows, f"a code exchange without code_verifier ({client} client)", client=client,
                          verifier=None)


_BAD_VERIFIERS = {
    "auth.pkce.verifier_too_short_refused": "A" * 42,
    "auth.pkce.verifier_too_long_refused": "B" * 129,
    "auth.pkce.verifier_bad_characters_refused": "C" * 40 + "+/=!",
}


# Issue 51: a server that checks only the S256 comparison conforms.
VERIFIER_SYNTAX_IS_THE_CLIENTS = (
    "RFC 7636 4.1 states the verifier's syntax as what the client creates and 4.6 has the server compare the "
    "transform; the seed lists the length among its limits (part 8) without saying the server refuses another: "
    "a server that checks only the comparison conforms (variant auth.variant.verifier_checked_by_hash_only)")


def _bad_verifier_refused(auth_flows, check_id):
    verifier = _BAD_VERIFIERS[check_id]
    # The challenge matches the bad verifier: only the syntax rule can refuse it.
    _exchange_refused(auth_flows, f"a verifier of {len(verifier)} characters ({check_id})",
                      authorize={"verifier": verifier, "challenge": rfc7636.s256(verifier)})


@check("auth.pkce.verifier_too_short_refused", SHOULD, "A verifier of 42 characters is refused, even with a matching challenge",
       requirements=["AUTH-2.code-verifier", "RFC7636-4.1"],
       proven_by=["auth.variant.verifier_checked_by_hash_only"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE",
       downgrade_reason=VERIFIER_SYNTAX_IS_THE_CLIENTS)
def test_verifier_too_short_refused(auth_flows):
    _bad_verifier_refused(auth_flows, "auth.pkce.verifier_too_short_refused")


@check("auth.pkce.verifier_too_long_refused", SHOULD, "A verifier of 129 characters is refused, even with a matching challenge",
       requirements=["AUTH-2.code-verifier", "RFC7636-4.1"],
       proven_by=["auth.variant.verifier_checked_by_hash_only"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE",
       downgrade_reason=VERIFIER_SYNTAX_IS_THE_CLIENTS)
def test_verifier_too_long_refused(auth_flows):
    _bad_verifier_refused(auth_flows, "auth.pkce.verifier_too_long_refused")


@check("auth.pkce.verifier_bad_characters_refused", SHOULD, "A verifier with characters outside A-Z a-z 0-9 - . _ ~ is refused, even with a matching challenge",
       requirements=["AUTH-2.code-verifier", "RFC7636-4.1"],
       proven_by=["auth.variant.verifier_checked_by_hash_only"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE",
       downgrade_reason=VERIFIER_SYNTAX_IS_THE_CLIENTS)
def test_verifier_bad_characters_refused(auth_flows):
    _bad_verifier_refused(auth_flows, "auth.pkce.verifier_bad_characters_refused")


@check("auth.code.reuse_refused", MUST, "A code exchanged once is refused the second time",
       requirements=["RFC6749-4.1.2", "RFC6749-10.5"],
       proven_by=["auth.code_reusable"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_reuse_refused(auth_flows):
    authz = auth_flows.authorize_for_code()
    control.require_token(auth_flows.exchange(authz), "the first exchange of the code accepted",
                          EXCHANGE_CAUSE.format("confidential", "{}"))
    control.token_refused(auth_flows.exchange(authz), "the same code a second time", unrelated=CODE_UNRELATED)


@check("auth.code.reuse_revokes_tokens", SHOULD, "After a code is reused, the access token issued from it no longer works",
       requirements=["RFC6749-4.1.2"],
       proven_by=["auth.code_reuse_keeps_tokens", "auth.code_reusable"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE",
       downgrade_reason="RFC 6749 4.1.2: the server MUST deny a reused code and SHOULD revoke (when possible) the tokens issued from it; the denial is the MUST check auth.code.reuse_refused")
def test_reuse_revokes_tokens(auth_flows):
    authz = auth_flows.authorize_for_code()
    first = control.require_token(auth_flows.exchange(authz), "the first exchange of the code accepted",
                                  EXCHANGE_CAUSE.format("confidential", "{}"))
    control.control_served(auth_flows.call_filing(first.access_token), "the filing WSDL")
    auth_flows.exchange(authz)
    ex = auth_flows.call_filing(first.access_token)
    if ex.status == 200:
        raise Finding("the token issued from a reused code still works", expected="401", actual=ex.summary())


@check("auth.code.expired_refused", MUST, "A code is refused once 300 s (the longer of the seed's two lifetimes) have passed",
       requirements=["AUTH-8.code-lifetime", "RFC6749-4.1.2"],
       proven_by=["auth.code_never_expires"],
       sends=["refused", "waits"],
       feature="part 2 / authorization code + PKCE")
def test_expired_refused(auth_clocked):
    control.control_exchange(auth_clocked)
    # The seed gives 30 s and 300 s: try the shorter first (35 s with leeway), and wait for
    # the longer (330 s) only when the server still took a 35 s old code.
    authz = auth_clocked.authorize_for_code()
    auth_clocked.advance(35)
    first = auth_clocked.exchange(authz)
    if not first.issued:
        control.token_refused(first, "a code 35 s old", unrelated=CODE_UNRELATED)
        return
    authz = auth_clocked.authorize_for_code()
    auth_clocked.advance(330)
    control.token_refused(auth_clocked.exchange(authz), "a code 330 s old", unrelated=CODE_UNRELATED)


@check("auth.code.alive_before_lifetime", MUST, "A code exchanged 20 s after it was issued is accepted: a code dead before 30 s breaks both of the seed's lifetimes",
       requirements=["AUTH-8.code-lifetime", "AUTH-4.filing-steps"],
       proven_by=["auth.code_dies_early"],
       sends=["valid", "waits"],
       feature="part 2 / authorization code + PKCE")
def test_alive_before_lifetime(auth_clocked):
    control.control_exchange(auth_clocked)
    authz = auth_clocked.authorize_for_code()
    auth_clocked.advance(CODE_ALIVE_AT_S)
    c.ensure_token_issued(auth_clocked.exchange(authz), f"a code {CODE_ALIVE_AT_S} s old (both lifetimes are longer)")


@check("auth.code.lifetime_governing", OBSERVATION, "Which code lifetime governs, 30 s (flow description) or 300 s (settings table): measured",
       requirements=["AUTH-8.code-lifetime"],
       sends=["refused", "waits"],  # a code 45 s (or 320 s) old, which one reading of the seed refuses
       feature="part 2 / authorization code + PKCE",
       downgrade_reason="the seed: 'Which of the two authorization code lifetimes governs: not shown'; a code dead before 30 s is the MUST check auth.code.alive_before_lifetime")
def test_lifetime_governing(auth_clocked, observe):
    """reference 5: 20 s must pass; 45 s refused means 30 s governs; else 280 s / 320 s.
    A code refused at 20 s breaks both readings: auth.code.alive_before_lifetime fails on
    it, and there is no lifetime of the seed's two left to measure here."""
    probes: dict[str, str] = {}

    def accepted_after(seconds: int) -> bool:
        authz = auth_clocked.authorize_for_code()
        auth_clocked.advance(seconds)
        result = auth_clocked.exchange(authz)
        probes[f"{seconds}s"] = "accepted" if result.issued else f"refused ({result.error})"
        return result.issued

    if not accepted_after(CODE_ALIVE_AT_S):
        raise Blocked(f"a code accepted {CODE_ALIVE_AT_S} s after it was issued (auth.code.alive_before_lifetime)",
                      f"code exchange ({CODE_ALIVE_AT_S} s after issue) -> {probes[f'{CODE_ALIVE_AT_S}s']}")
    if not accepted_after(45):
        observe({"governing_s": 30, "probes": probes})
    elif accepted_after(280) and not accepted_after(320):
        observe({"governing_s": 300, "probes": probes})
    else:
        observe({"governing_s": None, "probes": probes, "note": "neither 30 s nor 300 s"})


@check("auth.code.redirect_uri_mismatch_refused", MUST, "A code exchange with another redirect_uri than the authorization request's is refused",
       requirements=["RFC6749-4.1.3"],
       proven_by=["auth.redirect_uri_not_compared"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_redirect_uri_mismatch_refused(auth_flows):
    other = auth_flows.targets.redirect_uri.rstrip("/") + "/other"
    _exchange_refused(auth_flows, "another redirect_uri at the token endpoint", redirect_uri=other)


@check("auth.code.redirect_uri_omitted_refused", MUST, "A code exchange without the redirect_uri that the authorization request carried is refused",
       requirements=["RFC6749-4.1.3"],
       proven_by=["auth.redirect_uri_optional", "auth.redirect_uri_not_compared"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_redirect_uri_omitted_refused(auth_flows):
    _exchange_refused(auth_flows, "a code exchange without the redirect_uri of the authorization request",
                      redirect_uri=None)


@check("auth.code.other_client_refused", MUST, "A code issued to the public client, redeemed by the confidential client (with its valid secret), is refused",
       requirements=["RFC6749-4.1.3"],
       proven_by=["auth.code_client_not_compared"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_other_client_refused(auth_flows):
    # The public client's code, redeemed by the confidential client with its own valid
    # secret: only the binding of the code to its client is wrong.
    control.control_exchange(auth_flows, client="public")
    authz = auth_flows.authorize_for_code(client="public")
    control.token_refused(auth_flows.exchange(authz, client="confidential"),
                          "a code of the public client redeemed by the confidential client", unrelated=CODE_UNRELATED)


@check("auth.code.wrong_client_secret_refused", MUST, "A code exchange with a wrong client_secret is refused (invalid_client)",
       requirements=["AUTH-5.2", "RFC6749-5.2"],
       proven_by=["auth.client_secret_not_checked"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_wrong_client_secret_refused(auth_flows):
    control.control_exchange(auth_flows)
    authz = auth_flows.authorize_for_code()
    control.token_refused(auth_flows.exchange(authz, client_secret=WRONG_SECRET), "a wrong client_secret")


@check("auth.code.missing_client_secret_refused", MUST, "A confidential client's code exchange without client_secret (no other authentication either) is refused",
       requirements=["AUTH-5.2", "AUTH-4.token-request.confidential", "RFC6749-4.1.3"],
       proven_by=["auth.client_secret_optional", "auth.client_secret_not_checked"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_missing_client_secret_refused(auth_flows):
    # The refusal is the rule (seed part 5: confidential clients send client_secret; RFC 6749
    # 4.1.3: client authentication is required); its error code (invalid_client) is
    # auth.token.error_codes' (SHOULD: the seed shows no error responses).
    control.control_exchange(auth_flows)
    authz = auth_flows.authorize_for_code()
    result = auth_flows.exchange(authz, client_secret=None)
    control.token_refused(result, "a confidential client's code exchange without client_secret")


@check("auth.code.response_type_code_only", MUST, "An authorization request with response_type=token or id_token gets neither a code nor a token (unsupported_response_type or an error page)",
       requirements=["AUTH-2.authorization-request", "RFC6749-3.1.1", "RFC6749-4.1.2.1"],
       proven_by=["auth.response_type_not_checked", "auth.implicit_token_in_fragment"],
       sends=["refused"],
       feature="part 2 / authorization code + PKCE")
def test_response_type_code_only(auth_flows):
    control.control_code(auth_flows)
    for response_type in ("token", "id_token"):
        control.authorization_refused(auth_flows, f"response_type={response_type}", response_type=response_type)
