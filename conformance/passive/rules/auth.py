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
from conformance.checks.registry import MUST, SHOULD, check
from conformance.errors import NotJudged
from conformance.findings import Finding, expect
from conformance.passive.rules.registry import each, exchange_rule, rule

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


def unmasked(items: list[Any], field: str) -> list[Any]:
    """The token requests whose `field` the capture shows. When every one that sent it was
    masked (a run's or the proxy's traffic.har), the rule is not applicable for that reason,
    never "the traffic holds none" (README "Judging traffic": judge an unmasked capture)."""
    masked = [a for a in items if field in a.facts.get("masked", ())]
    if masked and len(masked) == len(items):
        raise NotJudged(f"{field} masked in the capture",
                        f"{len(masked)} token request(s) masked it: judge an unmasked capture for this client check")
    return [a for a in items if a not in masked]


# --------------------------------------------------------------------------- the server's answers
# The token responses a run elicits, each from a fixture of the auth suite (suites/auth/
# conftest.py): the code exchange's, the client credentials', and a refresh's (asked for last,
# so that a refresh that fails blocks only its own case).
TOKEN_RESPONSES = {
    "code exchange": lambda fixture: fixture("code_tokens").exchange,
    "client credentials": lambda fixture: fixture("cc_tokens").exchange,
    "refresh": lambda fixture: fixture("refresh_tokens")().exchange,
}


def _issued(a, ctx) -> bool:
    """A token response that issued a token (200): what the token-response table describes."""
    return a.kind == "token" and a.exchange.status == 200


def _issued_by_client_credentials(a, ctx) -> bool:
    return _issued(a, ctx) and a.facts.get("grant_type") == "client_credentials"


def _token_rule(check_id: str, severity, title: str, **declared):
    return exchange_rule(check_id, severity, title, service="auth", what="token responses", applies=_issued,
                         elicit=TOKEN_RESPONSES, feature="part 2 / token response", **declared)


@_token_rule("auth.token.media_type_json", MUST, "Token responses (code exchange, client credentials, refresh) are JSON (application/json, parameters in any case)",
             requirements=["AUTH-2.token-response", "RFC6749-5.1"],
             proven_by=["auth.token_served_as_text", "auth.token_served_bom_text", "auth.token_served_utf16"])
def token_media_type_json(a, ctx):
    auth.ensure_media_type_json(a.exchange)


@_token_rule("auth.token.media_type_seed_spelling", MUST, "Token responses (code exchange, client credentials, refresh) are application/json;charset=UTF-8 as the seed writes it (case and spaces aside)",
             requirements=["AUTH-2.token-response"],
             proven_by=["auth.token_content_type_no_charset", "auth.token_served_as_text",
                        "auth.refresh_media_type_no_charset", "auth.token_served_bom_text", "auth.token_served_utf16"])
def token_media_type_seed_spelling(a, ctx):
    auth.ensure_seed_media_spelling(a.exchange)


@_token_rule("auth.token.utf8_without_bom", MUST, "Token responses (code exchange, client credentials, refresh) are UTF-8 without a byte order mark, as their charset=UTF-8 says",
             requirements=["AUTH-2.token-response", "RFC8259-8.1"],
             proven_by=["auth.token_served_bom_text", "auth.token_served_utf16"])
def token_utf8_without_bom(a, ctx):
    auth.ensure_utf8_without_bom(a.exchange)


@_token_rule("auth.token.no_store", MUST, "Token responses (code exchange, client credentials, refresh) carry Cache-Control: no-store",
             requirements=["RFC6749-5.1"],
             proven_by=["auth.no_store_missing"])
def token_no_store(a, ctx):
    auth.ensure_header_value(a.exchange, "cache-control", "no-store")


@_token_rule("auth.token.pragma_no_cache", SHOULD, "Token responses (code exchange, client credentials, refresh) carry Pragma: no-cache",
             requirements=["RFC6749-5.1"],
             proven_by=["auth.pragma_missing"],
             downgrade_reason="Pragma is deprecated by RFC 9111 (5.4) and OAuth 2.1 drops it; Cache-Control: no-store is the MUST check auth.token.no_store")
def token_pragma_no_cache(a, ctx):
    auth.ensure_header_value(a.exchange, "pragma", "no-cache")


@_token_rule("auth.token.expires_in_3600", MUST, "expires_in is 3600 in every token response (code exchange, client credentials, refresh)",
             requirements=["AUTH-2.token-response", "AUTH-8.access-token-lifetime"],
             proven_by=["auth.expires_in_not_3600", "auth.refresh_expires_in_string"])
def token_expires_in_3600(a, ctx):
    got = token_body(a.exchange).get("expires_in")
    expect(got == SEED_ACCESS_TOKEN_LIFETIME, "expires_in is not the seed's lifetime",
           expected=SEED_ACCESS_TOKEN_LIFETIME, actual=got)


@rule("auth.token.response_members", what="token responses")
def token_response_members(traffic, ctx):
    # Its test judges the granted scope against the scope asked at the authorization request
    # too, which a token response of the code flow does not show: a test and this rule.
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


@exchange_rule("auth.cc.no_refresh_token", MUST, "The client-credentials response carries no refresh_token",
               service="auth", requirements=["AUTH-2.token-response.refresh-token"],
               proven_by=["auth.cc_refresh_token_issued"],
               feature="part 4 / client credentials + JWT assertion",
               what="client-credentials token responses", applies=_issued_by_client_credentials,
               elicit={"client credentials": TOKEN_RESPONSES["client credentials"]})
def cc_no_refresh_token(a, ctx):
    expect("refresh_token" not in token_body(a.exchange), "the client-credentials response carries a refresh_token",
           expected="no refresh_token", actual="refresh_token present")


@rule("auth.use.www_authenticate", what="401 answers of the filing and inquiry APIs")
def use_www_authenticate(traffic, ctx):
    return each(of(traffic, "resource", status=401), lambda a: auth.ensure_www_authenticate(a.exchange, error=None))


@rule("auth.code.state_echoed", what="redirects with a code after an authorization request")
def code_state_echoed(traffic, ctx):
    """Every answer that sends a code back carries the state of its own authorization request.

    Linked by identity, not by order, so any number of interleaved flows and clients is
    judged right: a returned state is its flow's when an authorization request sent it and
    no answer has returned it yet; one no authorization request sent (or one returned
    twice) did not come back unchanged. An answer without state is its flow's while an
    authorization request without state is still open; else a state went missing."""
    open_states: dict[str, int] = {}  # state -> authorization requests still waiting for it
    open_without = 0
    pairs: list[tuple[Any, str | None]] = []  # (answer, why it is wrong or None)
    for a in traffic.auth:
        if a.kind == "authorize":
            state = a.facts.get("state")
            if state is None:
                open_without += 1
            else:
                open_states[state] = open_states.get(state, 0) + 1
        if not a.facts.get("code_returned") or not (open_states or open_without):
            continue
        returned = a.facts.get("state_returned")
        if returned is not None and open_states.get(returned):
            open_states[returned] -= 1
            pairs.append((a, None))
        elif returned is None and open_without:
            open_without -= 1
            pairs.append((a, None))
        elif returned is None:
            pairs.append((a, "no state came back, though the authorization requests waiting for a code sent one"))
        else:
            pairs.append((a, f"state {returned!r} is none that an authorization request waiting for a code sent"))

    def apply(pair):
        a, wrong = pair
        expect(wrong is None, "state did not come back unchanged", expected="the state of its authorization request",
               actual=wrong)
    return each(pairs, apply, label=lambda pair: pair[0].label, exchange=lambda pair: pair[0].exchange)


# --------------------------------------------------------------------------- the client's requests
@rule(check("client.auth.authorization_request", MUST, "Authorization requests carry response_type=code and a client_id, state, scope, redirect_uri and nonce",
           requirements=["AUTH-2.authorization-request", "RFC6749-4.1"],
           sends=["nothing"],
           observes="exchange",
           feature="authorization server client (seed 001, part a)"),
      what="authorization requests")
def authorization_request(traffic, ctx):
    return each(of(traffic, "authorize"), lambda a: client.authorization_request(a.facts))


@rule(check("client.auth.pkce_s256", MUST, "Authorization requests carry a code_challenge with code_challenge_method S256",
           requirements=["AUTH-2.authorization-request", "AUTH-5.2"],
           sends=["nothing"],
           observes="exchange",
           feature="authorization server client (seed 001, part a)"),
      what="authorization requests")
def pkce_s256(traffic, ctx):
    return each(of(traffic, "authorize"), lambda a: client.pkce_s256(a.facts))


@rule(check("client.auth.verifier_syntax", MUST, "A code_verifier is 43 to 128 characters of A-Z a-z 0-9 - . _ ~",
           requirements=["AUTH-2.code-verifier"],
           sends=["nothing"],
           observes="exchange",
           feature="authorization server client (seed 001, part a)"),
      what="code exchanges whose verifier the capture shows")
def verifier_syntax(traffic, ctx):
    # Judged where the capture shows the verifier, or shows that none was sent.
    redemptions = unmasked(of(traffic, "token", grant="authorization_code"), "code_verifier")
    return each([a for a in redemptions if "verifier_length" in a.facts or not a.facts.get("verifier_sent")],
                lambda a: client.verifier_syntax(a.facts))


@rule(check("client.auth.verifier_matches_challenge", MUST, "The code_verifier sent with a code is the one whose S256 transform was the challenge of the authorization request that code answered",
           requirements=["AUTH-2.code-challenge"],
           sends=["nothing"],
           observes="flow",
           feature="authorization server client (seed 001, part a)"),
      what="code exchanges linked to their authorization request")
def verifier_matches_challenge(traffic, ctx):
    """A code's redemption -> the answer that issued it (code digest) -> its authorization
    request (state): the verifier's S256 transform is that request's challenge."""
    issued = {a.facts["code"]: a for a in traffic.auth if a.kind != "token" and a.facts.get("code")}
    challenges = {a.facts["state"]: a.facts.get("challenge") for a in traffic.auth
                  if a.kind == "authorize" and a.facts.get("state")}
    linked = []
    for a in unmasked(of(traffic, "token", grant="authorization_code"), "code_verifier"):
        origin = issued.get(a.facts.get("code"))
        if origin is not None and "verifier_s256" in a.facts and origin.facts.get("state_returned") in challenges:
            linked.append((a, challenges[origin.facts["state_returned"]]))

    def apply(pair):
        a, challenge = pair
        expect(a.facts["verifier_s256"] == challenge, "the code_verifier does not hash to the authorization "
               "request's code_challenge", expected=f"S256(verifier) = {challenge}", actual=a.facts["verifier_s256"])
    return each(linked, apply, label=lambda pair: pair[0].label, exchange=lambda pair: pair[0].exchange)


@rule(check("client.auth.token_request_form", MUST, "Token requests are POSTed as application/x-www-form-urlencoded",
           requirements=["AUTH-4.token-request"],
           sends=["nothing"],
           observes="exchange",
           feature="authorization server client (seed 001, part a)"),
      what="token requests")
def token_request_form(traffic, ctx):
    return each(of(traffic, "token"), lambda a: client.token_request_form(a.facts))


@rule(check("client.auth.token_request_body", MUST, "Each token request carries the parameters seed part 4 gives "
             "its grant: authorization_code (code, client_id, code_verifier, redirect_uri), refresh_token "
             "(refresh_token, client_id), client_credentials (scope, client_assertion, client_assertion_type)",
             requirements=["AUTH-4.token-request", "AUTH-4.token-request.public", "AUTH-4.token-request.refresh",
                           "AUTH-4.token-request.client-credentials"],
             sends=["nothing"], observes="exchange", feature="authorization server client (seed 001, part a)"),
      what="token requests")
def token_request_body(traffic, ctx):
    return each(of(traffic, "token"), lambda a: client.token_request_parameters(a.facts))


@rule(check("client.auth.client_secret_by_kind", MUST, "The confidential client sends client_secret at the token "
             "endpoint; the public client sends none",
             requirements=["AUTH-5.2", "AUTH-4.token-request.confidential", "AUTH-4.token-request.public"],
             sends=["nothing"], observes="exchange", feature="authorization server client (seed 001, part a)"),
      what="token requests of the profile's confidential and public clients")
def client_secret_by_kind(traffic, ctx):
    clients = dict(ctx.profile.auth.clients) if ctx.profile.auth is not None else {}
    known = {clients.get("confidential"), clients.get("public")} - {None}
    return each([a for a in of(traffic, "token") if a.facts.get("client_id") in known],
                lambda a: client.client_secret_by_kind(a.facts, clients))


@rule(check("client.auth.jwks_document", MUST, "The client's published JWKS holds keys with alg RS256, kty RSA, kid, "
             "e, n and x5c",
             # "valid": besides the traffic, one GET of the profile's jwks_uri (a public document)
             requirements=["AUTH-2.jwks"], sends=["valid"], observes="exchange",
             feature="authorization server client (seed 001, part a)"),
      what="JWKS documents (in the traffic, and at the profile's services.auth.keys.jwks_uri)")
def jwks_document(traffic, ctx):
    return each([*of(traffic, "jwks"), *ctx.client_jwks()], lambda a: client.jwks_document(a.facts["jwks"]))


def _audience(ctx, a) -> str:
    service = ctx.profile.auth
    return service.audience if service is not None and service.audience else default_audience(a.exchange.url)


@rule(check("client.auth.assertion_form", MUST, "A client assertion is a jwt-bearer JWT with typ JWT, alg RS256 and a kid; iss and sub equal; aud in the seed's form (or the profile's audience); exp in the future when sent; a jti",
           requirements=["AUTH-2.assertion.header", "AUTH-2.assertion.iss-sub", "AUTH-2.assertion.aud", "AUTH-2.assertion.exp", "AUTH-2.assertion.jti", "AUTH-5.3"],
           sends=["nothing"],
           observes="exchange",
           feature="authorization server client (seed 001, part a)"),
      what="token requests with an assertion")
def assertion_form(traffic, ctx):
    return each([a for a in unmasked(of(traffic, "token"), "client_assertion") if "assertion_type" in a.facts],
                lambda a: client.assertion_form(a.facts, _audience(ctx, a)))


@rule(check("client.auth.assertion_short_expiry", SHOULD, "A client assertion expires within a few minutes (at most 10) of being sent",
           requirements=["AUTH-2.assertion.exp"],
           sends=["nothing"],
           observes="exchange",
           feature="authorization server client (seed 001, part a)",
           downgrade_reason="the seed: 'a short expiry of a few minutes is recommended': a recommendation, not a rule"),
      what="token requests with an assertion")
def assertion_short_expiry(traffic, ctx):
    return each([a for a in unmasked(of(traffic, "token"), "client_assertion") if a.facts.get("assertion_claims")],
                lambda a: client.assertion_short_expiry(a.facts))


@rule(check("client.auth.jti_not_reused", MUST, "No assertion's jti is sent again before that assertion expired (each JWT is used once)",
           requirements=["AUTH-2.assertion.jti", "AUTH-8.assertion-single-use"],
           sends=["nothing"],
           observes="flow",
           feature="authorization server client (seed 001, part a)"),
      what="token requests with an assertion")
def jti_not_reused(traffic, ctx):
    """Each assertion paired with the first earlier one of the same jti (if any)."""
    first: dict[str, Any] = {}
    pairs = []
    for a in unmasked(of(traffic, "token"), "client_assertion"):
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


@rule(check("client.auth.bearer_on_api_requests", MUST, "Every request to the filing and inquiry APIs carries Authorization: Bearer",
           requirements=["AUTH-5.1"],
           sends=["nothing"],
           observes="exchange",
           feature="authorization server client (seed 001, part a)"),
      what="requests to the filing and inquiry APIs whose Authorization the capture shows")
def bearer_on_api_requests(traffic, ctx):
    return each([a for a in of(traffic, "resource") if "auth_scheme" in a.facts],
                lambda a: client.bearer_on_api_requests(a.facts))
