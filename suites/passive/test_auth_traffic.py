"""The authorization server's answers in recorded traffic, and the requests of its clients
(seed 001, part a), judged from the facts each exchange shows (conformance/passive/auth_facts.py).

Flows are recognised in the capture's order: a code's redemption is linked to the answer
that issued it by the code's digest, that answer to its authorization request by `state`;
an assertion's reuse is its jti sent again before its exp.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.auth.rfc7523 import default_audience
from conformance.checks.auth import checks as auth
from conformance.checks.client import tokens as client
from conformance.checks.finding import Finding, expect

SEED_ACCESS_TOKEN_LIFETIME = 3600  # seed part 8


def of(traffic, kind: str, *, grant: str | None = None, status: int | None = None):
    return [a for a in traffic.auth if a.kind == kind and (grant is None or a.facts.get("grant_type") == grant)
            and (status is None or a.exchange.status == status)]


def token_body(ex) -> dict[str, Any]:
    body = ex.json
    if not isinstance(body, dict):
        raise Finding("the token response is not a JSON object", actual=ex.summary())
    return body


# --------------------------------------------------------------------------- the server's answers
@pytest.mark.check("auth.token.media_type_json")
def test_token_media_type_json(observed_traffic, judge):
    judge(of(observed_traffic, "token", status=200), auth.ensure_media_type_json, what="token responses")


@pytest.mark.check("auth.token.media_type_seed_spelling")
def test_token_media_type_seed_spelling(observed_traffic, judge):
    judge(of(observed_traffic, "token", status=200), auth.ensure_seed_media_spelling, what="token responses")


@pytest.mark.check("auth.token.no_store")
def test_token_no_store(observed_traffic, judge):
    judge(of(observed_traffic, "token", status=200), lambda ex: auth.ensure_header_value(ex, "cache-control", "no-store"),
          what="token responses")


@pytest.mark.check("auth.token.pragma_no_cache")
def test_token_pragma_no_cache(observed_traffic, judge):
    judge(of(observed_traffic, "token", status=200), lambda ex: auth.ensure_header_value(ex, "pragma", "no-cache"),
          what="token responses")


@pytest.mark.check("auth.token.expires_in_3600")
def test_token_expires_in_3600(observed_traffic, judge):
    def rule(ex):
        got = token_body(ex).get("expires_in")
        expect(got == SEED_ACCESS_TOKEN_LIFETIME, "expires_in is not the seed's lifetime",
               expected=SEED_ACCESS_TOKEN_LIFETIME, actual=got)

    judge(of(observed_traffic, "token", status=200), rule, what="token responses")


@pytest.mark.check("auth.token.response_members")
def test_token_response_members(observed_traffic, judge):
    def rule(a):
        body = token_body(a.exchange)
        refresh = a.facts.get("grant_type") in ("authorization_code", "refresh_token")
        wanted = ["access_token", "token_type", "expires_in", "scope"] + (["refresh_token"] if refresh else [])
        missing = [m for m in wanted if m not in body]
        expect(not missing, "the token response lacks members", expected=", ".join(wanted), actual=f"missing {missing}")
        expect(str(body["token_type"]).lower() == "bearer", "token_type is not Bearer", actual=body["token_type"])
        expect(isinstance(body["expires_in"], int) and not isinstance(body["expires_in"], bool),
               "expires_in is not an integer", actual=repr(body["expires_in"]))
        if a.facts.get("scope"):  # the scope asked for in this request (client credentials)
            expect(set(str(body["scope"]).split()) == set(a.facts["scope"].split()),
                   "the granted scope is not the requested one", expected=a.facts["scope"], actual=body["scope"])

    judge(of(observed_traffic, "token", status=200), rule, what="token responses", whole=True)


@pytest.mark.check("auth.cc.no_refresh_token")
def test_cc_no_refresh_token(observed_traffic, judge):
    def rule(ex):
        expect("refresh_token" not in token_body(ex), "the client-credentials response carries a refresh_token",
               expected="no refresh_token", actual="refresh_token present")

    judge(of(observed_traffic, "token", grant="client_credentials", status=200), rule,
          what="client-credentials token responses")


@pytest.mark.check("auth.use.www_authenticate")
def test_use_www_authenticate(observed_traffic, judge):
    judge(of(observed_traffic, "resource", status=401), lambda ex: auth.ensure_www_authenticate(ex, error=None),
          what="401 answers of the filing and inquiry APIs")


@pytest.mark.check("auth.code.state_echoed")
def test_code_state_echoed(observed_traffic, judge):
    """Every answer that sends a code back carries the state of the authorization request
    before it (a flow: the capture's order links them)."""
    pairs, last_state = [], None
    for a in observed_traffic.auth:
        if a.kind == "authorize" and a.facts.get("state") is not None:
            last_state = a.facts["state"]
        if a.facts.get("code_returned") and last_state is not None:
            pairs.append((a, last_state))

    def rule(pair):
        a, sent = pair
        expect(a.facts.get("state_returned") == sent, "state did not come back unchanged", expected=repr(sent),
               actual=repr(a.facts.get("state_returned")))

    judge(pairs, lambda pair: rule(pair), what="redirects with a code after an authorization request", whole=True,
          label=lambda pair: pair[0].label, exchange=lambda pair: pair[0].exchange)


# --------------------------------------------------------------------------- the client's requests
@pytest.mark.check("client.auth.pkce_s256")
def test_client_pkce_s256(observed_traffic, judge):
    judge(of(observed_traffic, "authorize"), lambda a: client.pkce_s256(a.facts), what="authorization requests",
          whole=True)


@pytest.mark.check("client.auth.verifier_syntax")
def test_client_verifier_syntax(observed_traffic, judge):
    # Judged where the capture shows the verifier, or shows that none was sent.
    judge([a for a in of(observed_traffic, "token", grant="authorization_code")
           if "verifier_length" in a.facts or not a.facts.get("verifier_sent")],
          lambda a: client.verifier_syntax(a.facts), what="code exchanges whose verifier the capture shows", whole=True)


@pytest.mark.check("client.auth.verifier_matches_challenge")
def test_client_verifier_matches_challenge(observed_traffic, judge):
    """A code's redemption -> the answer that issued it (code digest) -> its authorization
    request (state): the verifier's S256 transform is that request's challenge."""
    traffic = observed_traffic.auth
    issued = {a.facts["code"]: a for a in traffic if a.kind != "token" and a.facts.get("code")}
    challenges = {a.facts["state"]: a.facts.get("challenge") for a in traffic if a.kind == "authorize" and a.facts.get("state")}
    linked = []
    for a in of(observed_traffic, "token", grant="authorization_code"):
        origin = issued.get(a.facts.get("code"))
        if origin is not None and "verifier_s256" in a.facts and origin.facts.get("state_returned") in challenges:
            linked.append((a, challenges[origin.facts["state_returned"]]))

    def rule(pair):
        a, challenge = pair
        expect(a.facts["verifier_s256"] == challenge, "the code_verifier does not hash to the authorization "
               "request's code_challenge", expected=f"S256(verifier) = {challenge}", actual=a.facts["verifier_s256"])

    judge(linked, rule, what="code exchanges linked to their authorization request", whole=True,
          label=lambda pair: pair[0].label, exchange=lambda pair: pair[0].exchange)


@pytest.mark.check("client.auth.token_request_form")
def test_client_token_request_form(observed_traffic, judge):
    judge(of(observed_traffic, "token"), lambda a: client.token_request_form(a.facts), what="token requests", whole=True)


def _audience(profile, a) -> str:
    service = profile.auth
    return (service.audience if service is not None and service.audience else default_audience(a.exchange.url))


@pytest.mark.check("client.auth.assertion_form")
def test_client_assertion_form(observed_traffic, judge, profile):
    judge([a for a in of(observed_traffic, "token") if "assertion_type" in a.facts],
          lambda a: client.assertion_form(a.facts, _audience(profile, a)), what="token requests with an assertion",
          whole=True)


@pytest.mark.check("client.auth.assertion_short_expiry")
def test_client_assertion_short_expiry(observed_traffic, judge):
    judge([a for a in of(observed_traffic, "token") if a.facts.get("assertion_claims")],
          lambda a: client.assertion_short_expiry(a.facts), what="token requests with an assertion", whole=True)


@pytest.mark.check("client.auth.jti_not_reused")
def test_client_jti_not_reused(observed_traffic, judge):
    sent = [a for a in of(observed_traffic, "token") if (a.facts.get("assertion_claims") or {}).get("jti")]
    first_use: dict[str, Any] = {}

    def rule(a):
        claims = a.facts["assertion_claims"]
        earlier = first_use.get(claims["jti"])
        if earlier is None:
            first_use[claims["jti"]] = a
            return
        exp = earlier.facts["assertion_claims"].get("exp")
        at = a.facts.get("at")
        expect(not (isinstance(exp, int | float) and (at is None or at < exp)),
               "an assertion's jti was sent again before it expired", expected="a fresh jti per assertion",
               actual=f"jti {claims['jti']} again")

    judge(sent, rule, what="token requests with an assertion", whole=True)


@pytest.mark.check("client.auth.bearer_on_api_requests")
def test_client_bearer_on_api_requests(observed_traffic, judge):
    judge([a for a in of(observed_traffic, "resource") if "auth_scheme" in a.facts],
          lambda a: client.bearer_on_api_requests(a.facts), what="requests to the filing and inquiry APIs whose "
          "Authorization the capture shows", whole=True)
