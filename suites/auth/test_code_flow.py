"""Authorization code with PKCE (seed 001 parts 2, 4, 5 and 8; RFC 6749 4.1, RFC 7636).

Each negative case changes one thing in an otherwise correct flow, so a refusal can only
be due to that one thing.
"""

from __future__ import annotations

import pytest

from conformance.auth import rfc7636
from conformance.auth.login import LoginError
from conformance.checks.auth import checks as c
from conformance.checks.finding import Finding
from conformance.errors import NotApplicable

# printable ASCII only (RFC 6749 VSCHAR), with what encoders get wrong: + % / space ~
TRICKY_STATE = "a+b %2F/c~d*e'f(g)h!"


def _code(auth_flows, **kwargs):
    authz = auth_flows.authorize(**kwargs)
    if authz.code is None:
        raise NotApplicable(f"the authorization itself failed ({authz.result.error!r}): nothing to exchange")
    return authz


@pytest.mark.check("auth.code.confidential_flow")
def test_confidential_flow(auth_flows):
    authz = auth_flows.authorize(client="confidential")
    c.ensure_code_issued(authz.result, "confidential client")
    tokens = auth_flows.exchange(authz)
    c.ensure_token_issued(tokens, "code exchange (confidential)")
    c.ensure_api_served(auth_flows.call_filing(tokens.access_token), "filing API with the code-flow token")
    if tokens.refresh_token is None:
        raise Finding("the code-flow response carries no refresh_token to continue with")
    refreshed = auth_flows.refresh(tokens.refresh_token)
    c.ensure_token_issued(refreshed, "refresh")
    c.ensure_api_served(auth_flows.call_filing(refreshed.access_token), "filing API with the refreshed token")


@pytest.mark.check("auth.code.public_flow")
def test_public_flow(auth_flows):
    authz = auth_flows.authorize(client="public")
    c.ensure_code_issued(authz.result, "public client")
    tokens = auth_flows.exchange(authz, client="public")
    c.ensure_token_issued(tokens, "code exchange (public, no secret)")
    c.ensure_api_served(auth_flows.call_filing(tokens.access_token), "filing API with the public client's token")


@pytest.mark.check("auth.code.state_echoed")
def test_state_echoed(auth_flows):
    authz = auth_flows.authorize(state=TRICKY_STATE)
    c.ensure_code_issued(authz.result, "authorization with a tricky state")
    finding = c.state_mismatch(TRICKY_STATE, authz.result)
    if finding:
        raise finding


@pytest.mark.check("auth.code.consent_remembered")
def test_consent_remembered(auth_flows):
    first = auth_flows.authorize()
    c.ensure_code_issued(first.result, "first authorization")
    second = auth_flows.authorize()
    c.ensure_code_issued(second.result, "second authorization")
    if second.result.consent_shown:
        raise Finding("consent was asked again for the same client and scope",
                      expected="no consent form", actual=" -> ".join(second.result.pages))


@pytest.mark.negative
@pytest.mark.check("auth.code.role_required")
def test_role_required(auth_flows):
    authz = auth_flows.authorize(user="without_role")
    c.ensure_no_code(authz.result, "user without the role Aanbieder M2M")


@pytest.mark.negative
@pytest.mark.check("auth.code.unregistered_redirect_uri_not_followed")
def test_unregistered_redirect_uri_not_followed(auth_flows):
    evil = "http://127.0.0.1:9/not-registered"
    try:
        authz = auth_flows.authorize(redirect_uri=evil)
    except LoginError:
        return  # an error page: the user agent was not sent anywhere
    raise Finding("the authorization server redirected to an unregistered redirect_uri",
                  expected="an error page, no redirect", actual=f"redirect (code issued: {authz.code is not None})")


@pytest.mark.negative
@pytest.mark.check("auth.pkce.challenge_required")
def test_challenge_required(auth_flows):
    authz = auth_flows.authorize(verifier=None, challenge=None, method=None)
    c.ensure_no_code(authz.result, "authorization request without code_challenge")


@pytest.mark.negative
@pytest.mark.check("auth.pkce.plain_refused")
def test_plain_refused(auth_flows):
    verifier = rfc7636.generate_verifier()
    plain = auth_flows.authorize(verifier=verifier, challenge=verifier, method="plain")
    c.ensure_no_code(plain.result, "code_challenge_method=plain")
    implicit = auth_flows.authorize(verifier=verifier, challenge=verifier, method=None)
    c.ensure_no_code(implicit.result, "code_challenge without a method (plain by default)")


@pytest.mark.negative
@pytest.mark.check("auth.pkce.wrong_verifier_refused")
def test_wrong_verifier_refused(auth_flows):
    authz = _code(auth_flows)
    c.ensure_token_refused(auth_flows.exchange(authz, verifier=rfc7636.generate_verifier()), "a wrong code_verifier")


@pytest.mark.negative
@pytest.mark.check("auth.pkce.missing_verifier_refused")
def test_missing_verifier_refused(auth_flows):
    authz = _code(auth_flows)
    c.ensure_token_refused(auth_flows.exchange(authz, verifier=None), "a code exchange without code_verifier")


_BAD_VERIFIERS = {
    "auth.pkce.verifier_too_short_refused": "A" * 42,
    "auth.pkce.verifier_too_long_refused": "B" * 129,
    "auth.pkce.verifier_bad_characters_refused": "C" * 40 + "+/=!",
}


def _bad_verifier_refused(auth_flows, check_id):
    verifier = _BAD_VERIFIERS[check_id]
    # The challenge matches the bad verifier: only the syntax rule can refuse it.
    authz = _code(auth_flows, verifier=verifier, challenge=rfc7636.s256(verifier))
    c.ensure_token_refused(auth_flows.exchange(authz), f"a verifier of {len(verifier)} characters ({check_id})")


@pytest.mark.negative
@pytest.mark.check("auth.pkce.verifier_too_short_refused")
def test_verifier_too_short_refused(auth_flows):
    _bad_verifier_refused(auth_flows, "auth.pkce.verifier_too_short_refused")


@pytest.mark.negative
@pytest.mark.check("auth.pkce.verifier_too_long_refused")
def test_verifier_too_long_refused(auth_flows):
    _bad_verifier_refused(auth_flows, "auth.pkce.verifier_too_long_refused")


@pytest.mark.negative
@pytest.mark.check("auth.pkce.verifier_bad_characters_refused")
def test_verifier_bad_characters_refused(auth_flows):
    _bad_verifier_refused(auth_flows, "auth.pkce.verifier_bad_characters_refused")


@pytest.mark.negative
@pytest.mark.check("auth.code.reuse_refused")
def test_reuse_refused(auth_flows):
    authz = _code(auth_flows)
    c.ensure_token_issued(auth_flows.exchange(authz), "first exchange")
    c.ensure_token_refused(auth_flows.exchange(authz), "the same code a second time")


@pytest.mark.negative
@pytest.mark.check("auth.code.reuse_revokes_tokens")
def test_reuse_revokes_tokens(auth_flows):
    authz = _code(auth_flows)
    first = auth_flows.exchange(authz)
    c.ensure_token_issued(first, "first exchange")
    if auth_flows.call_filing(first.access_token).status != 200:
        raise NotApplicable("the first token does not work at the filing API: nothing to revoke")
    auth_flows.exchange(authz)
    ex = auth_flows.call_filing(first.access_token)
    if ex.status == 200:
        raise Finding("the token issued from a reused code still works", expected="401", actual=ex.summary())


@pytest.mark.negative
@pytest.mark.waits
@pytest.mark.check("auth.code.expired_refused")
def test_expired_refused(auth_clocked):
    authz = _code(auth_clocked)
    auth_clocked.advance(330)  # the longer lifetime (300 s) plus a leeway for clock skew
    c.ensure_token_refused(auth_clocked.exchange(authz), "a code 330 s old")


@pytest.mark.waits
@pytest.mark.check("auth.code.lifetime_governing")
def test_lifetime_governing(auth_clocked, observe):
    """reference 5: 20 s must pass; 45 s refused means 30 s governs; else 280 s / 320 s."""
    probes: dict[str, str] = {}

    def accepted_after(seconds: int) -> bool:
        authz = _code(auth_clocked)
        auth_clocked.advance(seconds)
        result = auth_clocked.exchange(authz)
        probes[f"{seconds}s"] = "accepted" if result.issued else f"refused ({result.error})"
        return result.issued

    if not accepted_after(20):
        observe({"governing_s": None, "probes": probes, "note": "a 20 s old code was refused: shorter than both"})
    elif not accepted_after(45):
        observe({"governing_s": 30, "probes": probes})
    elif accepted_after(280) and not accepted_after(320):
        observe({"governing_s": 300, "probes": probes})
    else:
        observe({"governing_s": None, "probes": probes, "note": "neither 30 s nor 300 s"})


@pytest.mark.negative
@pytest.mark.check("auth.code.redirect_uri_mismatch_refused")
def test_redirect_uri_mismatch_refused(auth_flows):
    authz = _code(auth_flows)
    other = authz.redirect_uri.rstrip("/") + "/other"
    c.ensure_token_refused(auth_flows.exchange(authz, redirect_uri=other), "another redirect_uri at the token endpoint")


@pytest.mark.negative
@pytest.mark.check("auth.code.wrong_client_secret_refused")
def test_wrong_client_secret_refused(auth_flows):
    authz = _code(auth_flows)
    c.ensure_token_refused(auth_flows.exchange(authz, client_secret="wrong-secret-for-conformance"),
                           "a wrong client_secret")
