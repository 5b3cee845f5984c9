"""The authorization server's answers and its clients' requests (seed 001, part a), judged
from the facts each exchange shows (conformance/passive/auth_facts.py).

Flows are recognised in the capture's order: a code's redemption is linked to the answer
that issued it by the code's digest, that answer to its authorization request by `state`;
an assertion's reuse is its jti sent again before its exp.
"""

from __future__ import annotations

from typing import Any

from conformance.auth.rfc7523 import default_audience
from conformance.checks.auth import checks as auth
from conformance.checks.client import tokens as client
from conformance.checks.finding import Finding, expect
from conformance.passive.rules import each, rule

SEED_ACCESS_TOKEN_LIFETIME = 3600  # seed part 8


def of(traffic, kind: str, *, grant: str | None = None, status: int | None = None):
    return [a for a in traffic.auth if a.kind == kind and (grant is None or a.facts.get("grant_type") == grant)
            and (status is None or a.exchange.status == status)]


def token_body(ex) -> dict[str, Any]:
    body = ex.json
    if not isinstance(body, dict):
        raise Finding("the token response is not a JSON object", actual=ex.summary())
    return body


def tokens(traffic):
    return of(traffic, "token", status=200)


# --------------------------------------------------------------------------- the server's answers
@rule("auth.token.media_type_json", what="token responses")
def token_media_type_json(traffic, ctx):
    return each(tokens(traffic), lambda a: auth.ensure_media_type_json(a.exchange))


@rule("auth.token.media_type_seed_spelling", what="token responses")
def token_media_type_seed_spelling(traffic, ctx):
    return each(tokens(traffic), lambda a: auth.ensure_seed_media_spelling(a.exchange))


@rule("auth.token.no_store", what="token responses")
def token_no_store(traffic, ctx):
    return each(tokens(traffic), lambda a: auth.ensure_header_value(a.exchange, "cache-control", "no-store"))


@rule("auth.token.pragma_no_cache", what="token responses")
def token_pragma_no_cache(traffic, ctx):
    return each(tokens(traffic), lambda a: auth.ensure_header_value(a.exchange, "pragma", "no-cache"))


@rule("auth.token.expires_in_3600", what="token responses")
def token_expires_in_3600(traffic, ctx):
    def apply(a):
        got = token_body(a.exchange).get("expires_in")
        expect(got == SEED_ACCESS_TOKEN_LIFETIME, "expires_in is not the seed's lifetime",
               expected=SEED_ACCESS_TOKEN_LIFETIME, actual=got)
    return each(tokens(traffic), apply)


@rule("auth.token.response_members", what="token responses")
def token_response_members(traffic, ctx):
    def apply(a):
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
    return each(tokens(traffic), apply)


@rule("auth.cc.no_refresh_token", what="client-credentials token responses")
def cc_no_refresh_token(traffic, ctx):
    def apply(a):
        expect("refresh_token" not in token_body(a.exchange), "the client-credentials response carries a refresh_token",
               expected="no refresh_token", actual="refresh_token present")
    return each(of(traffic, "token", grant="client_credentials", status=200), apply)


@rule("auth.use.www_authenticate", what="401 answers of the filing and inquiry APIs")
def use_www_authenticate(traffic, ctx):
    return each(of(traffic, "resource", status=401), lambda a: auth.ensure_www_authenticate(a.exchange, error=None))


@rule("auth.code.state_echoed", what="redirects with a code after an authorization request")
def code_state_echoed(traffic, ctx):
    """Every answer that sends a code back carries the state of the authorization request
    before it (a flow: the capture's order links them)."""
    pairs, last_state = [], None
    for a in traffic.auth:
        if a.kind == "authorize" and a.facts.get("state") is not None:
            last_state = a.facts["state"]
        if a.facts.get("code_returned") and last_state is not None:
            pairs.append((a, last_state))

    def apply(pair):
        a, sent = pair
        expect(a.facts.get("state_returned") == sent, "state did not come back unchanged", expected=repr(sent),
               actual=repr(a.facts.get("state_returned")))
    return each(pairs, apply, label=lambda pair: pair[0].label, exchange=lambda pair: pair[0].exchange)


# --------------------------------------------------------------------------- the client's requests
@rule("client.auth.pkce_s256", what="authorization requests")
def pkce_s256(traffic, ctx):
    return each(of(traffic, "authorize"), lambda a: client.pkce_s256(a.facts))


@rule("client.auth.verifier_syntax", what="code exchanges whose verifier the capture shows")
def verifier_syntax(traffic, ctx):
    # Judged where the capture shows the verifier, or shows that none was sent.
    return each([a for a in of(traffic, "token", grant="authorization_code")
                 if "verifier_length" in a.facts or not a.facts.get("verifier_sent")],
                lambda a: client.verifier_syntax(a.facts))


@rule("client.auth.verifier_matches_challenge", what="code exchanges linked to their authorization request")
def verifier_matches_challenge(traffic, ctx):
    """A code's redemption -> the answer that issued it (code digest) -> its authorization
    request (state): the verifier's S256 transform is that request's challenge."""
    issued = {a.facts["code"]: a for a in traffic.auth if a.kind != "token" and a.facts.get("code")}
    challenges = {a.facts["state"]: a.facts.get("challenge") for a in traffic.auth
                  if a.kind == "authorize" and a.facts.get("state")}
    linked = []
    for a in of(traffic, "token", grant="authorization_code"):
        origin = issued.get(a.facts.get("code"))
        if origin is not None and "verifier_s256" in a.facts and origin.facts.get("state_returned") in challenges:
            linked.append((a, challenges[origin.facts["state_returned"]]))

    def apply(pair):
        a, challenge = pair
        expect(a.facts["verifier_s256"] == challenge, "the code_verifier does not hash to the authorization "
               "request's code_challenge", expected=f"S256(verifier) = {challenge}", actual=a.facts["verifier_s256"])
    return each(linked, apply, label=lambda pair: pair[0].label, exchange=lambda pair: pair[0].exchange)


@rule("client.auth.token_request_form", what="token requests")
def token_request_form(traffic, ctx):
    return each(of(traffic, "token"), lambda a: client.token_request_form(a.facts))


def _audience(ctx, a) -> str:
    service = ctx.profile.auth
    return service.audience if service is not None and service.audience else default_audience(a.exchange.url)


@rule("client.auth.assertion_form", what="token requests with an assertion")
def assertion_form(traffic, ctx):
    return each([a for a in of(traffic, "token") if "assertion_type" in a.facts],
                lambda a: client.assertion_form(a.facts, _audience(ctx, a)))


@rule("client.auth.assertion_short_expiry", what="token requests with an assertion")
def assertion_short_expiry(traffic, ctx):
    return each([a for a in of(traffic, "token") if a.facts.get("assertion_claims")],
                lambda a: client.assertion_short_expiry(a.facts))


@rule("client.auth.jti_not_reused", what="token requests with an assertion")
def jti_not_reused(traffic, ctx):
    """Each assertion paired with the first earlier one of the same jti (if any)."""
    first: dict[str, Any] = {}
    pairs = []
    for a in of(traffic, "token"):
        jti = (a.facts.get("assertion_claims") or {}).get("jti")
        if jti:
            pairs.append((a, first.get(jti)))
            first.setdefault(jti, a)

    def apply(pair):
        a, earlier = pair
        if earlier is None:
            return
        exp, at = earlier.facts["assertion_claims"].get("exp"), a.facts.get("at")
        expect(not (isinstance(exp, int | float) and (at is None or at < exp)),
               "an assertion's jti was sent again before it expired", expected="a fresh jti per assertion",
               actual=f"jti {a.facts['assertion_claims']['jti']} again")
    return each(pairs, apply, label=lambda pair: pair[0].label, exchange=lambda pair: pair[0].exchange)


@rule("client.auth.bearer_on_api_requests", what="requests to the filing and inquiry APIs whose Authorization the capture shows")
def bearer_on_api_requests(traffic, ctx):
    return each([a for a in of(traffic, "resource") if "auth_scheme" in a.facts],
                lambda a: client.bearer_on_api_requests(a.facts))
