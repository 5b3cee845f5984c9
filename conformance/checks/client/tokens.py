"""The seed's rules for what a client sends to the authorization server and its APIs (part 2,
4 and 5), judged on the facts of an observed exchange (conformance/passive/auth_facts.py).

The harness is held to them too: `AuthRefusal` reads each request of its own by these rules
(and by what the profile registered: its clients, their secret, the redirect URI), so that a
request that breaks one is "designed to be refused" by construction (conformance/http/intent.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

import httpx

from conformance.findings import Finding, expect
from conformance.http.exchange import Exchange, Headers
from conformance.passive import auth_facts
from conformance.passive.auth_facts import AUTHORIZATION_PARAMETERS, JWT_BEARER

SHORT_EXPIRY_S = 600  # "a short expiry of a few minutes is recommended": ten minutes at most


def pkce_s256(facts: dict[str, Any]) -> None:
    expect(bool(facts.get("challenge")), "the authorization request carries no code_challenge", actual="none")
    expect(facts.get("challenge_method") == "S256", "code_challenge_method is not S256",
           expected="S256", actual=facts.get("challenge_method") or "(absent: plain)")


def authorization_request(facts: dict[str, Any]) -> None:
    """Seed part 2: response_type code, and client_id, state, scope, redirect_uri, nonce given."""
    sent = facts.get("parameters") or {}
    missing = [name for name in AUTHORIZATION_PARAMETERS if not sent.get(name)]
    expect(not missing, "the authorization request lacks parameters of seed part 2",
           expected=", ".join(AUTHORIZATION_PARAMETERS), actual=f"missing {missing}")
    expect(sent["response_type"] == "code", "response_type is not code", expected="code", actual=sent["response_type"])


def verifier_syntax(facts: dict[str, Any]) -> None:
    expect("verifier_length" in facts, "the code exchange carries no code_verifier", actual="none")
    expect(facts["verifier_syntax"], "the code_verifier is not 43 to 128 characters of A-Z a-z 0-9 - . _ ~",
           expected="43..128 unreserved characters", actual=f"{facts['verifier_length']} characters")


def token_request_form(facts: dict[str, Any]) -> None:
    media = (facts.get("content_type") or "").split(";")[0].strip().lower()
    expect(media == "application/x-www-form-urlencoded", "the token request is not form-encoded",
           expected="application/x-www-form-urlencoded", actual=facts.get("content_type") or "(none)")


def assertion_form(facts: dict[str, Any], audience: str) -> None:
    header, claims = facts.get("assertion_header"), facts.get("assertion_claims")
    expect(facts.get("assertion_type") == JWT_BEARER, "client_assertion_type is not jwt-bearer",
           expected=JWT_BEARER, actual=facts.get("assertion_type"))
    expect(isinstance(header, dict) and isinstance(claims, dict), "the client_assertion is not a JWT", actual="unreadable")
    assert isinstance(header, dict) and isinstance(claims, dict)
    expect(header.get("typ") == "JWT" and header.get("alg") == "RS256" and bool(header.get("kid")),
           "the assertion header is not typ JWT, alg RS256 with a kid", expected={"typ": "JWT", "alg": "RS256", "kid": "..."},
           actual={k: header.get(k) for k in ("typ", "alg", "kid")})
    expect(bool(claims.get("iss")) and claims.get("iss") == claims.get("sub"), "iss and sub differ",
           actual={"iss": claims.get("iss"), "sub": claims.get("sub")})
    if facts.get("client_id"):
        expect(claims.get("iss") == facts["client_id"], "iss is not the client_id sent", expected=facts["client_id"],
               actual=claims.get("iss"))
    expect(claims.get("aud") == audience, "aud is not the token endpoint in the seed's form",
           expected=audience, actual=claims.get("aud"))
    expect(isinstance(claims.get("jti"), str) and claims["jti"] != "", "the assertion has no jti", actual=claims.get("jti"))
    exp, at = claims.get("exp"), facts.get("at")
    expect(isinstance(exp, int | float) and not isinstance(exp, bool), "exp is not seconds since the epoch", actual=exp)
    if at is not None:
        expect(exp > at, "the assertion had expired when it was sent", expected=f"exp after {int(at)}", actual=exp)


def assertion_short_expiry(facts: dict[str, Any]) -> None:
    claims, at = facts.get("assertion_claims") or {}, facts.get("at")
    start = at if at is not None else claims.get("iat")
    exp = claims.get("exp")
    expect(isinstance(exp, int | float) and isinstance(start, int | float), "no exp and sending time to compare",
           actual={"exp": exp, "sent": start})
    expect(exp - start <= SHORT_EXPIRY_S, "the assertion lives longer than a few minutes",
           expected=f"at most {SHORT_EXPIRY_S} s", actual=f"{int(exp - start)} s")


def bearer_on_api_requests(facts: dict[str, Any]) -> None:
    expect(facts.get("auth_scheme", "").lower() == "bearer", "the API request carries no Bearer token",
           expected="Authorization: Bearer ...", actual=facts.get("auth_scheme") or "(no Authorization)")


# Seed part 4's token request bodies, per grant: the parameters each must carry.
GRANTS = {"authorization_code": ("code", "client_id", "code_verifier", "redirect_uri"),
          "refresh_token": ("refresh_token", "client_id"),
          "client_credentials": ("scope", "client_assertion", "client_assertion_type")}
# Clients registered with deliberately bad material (conformance pki init): whatever they send is refused.
BAD_MATERIAL = ("no_x5c", "untrusted", "expired", "unregistered_oin", "twice_oin", "x5c_mismatch", "no_oin",
                "not_yet_valid", "revoked", "other_branch", "oin_elsewhere")


def token_request_body(form: Mapping[str, str]) -> None:
    """Seed part 4: a known grant_type and the parameters of its body."""
    grant = form.get("grant_type")
    expect(grant in GRANTS, "grant_type is none of the seed's", expected=", ".join(GRANTS), actual=grant)
    missing = [name for name in GRANTS[grant] if not form.get(name)]  # type: ignore[index]
    expect(not missing, f"the {grant} request lacks parameters of seed part 4", actual=f"missing {missing}")


def token_request_parameters(facts: dict[str, Any]) -> None:
    """`token_request_body` on an observed token request: the names it sent."""
    token_request_body({name: "sent" for name in facts.get("sent", ())} | {"grant_type": facts.get("grant_type") or ""})


def client_secret_by_kind(facts: dict[str, Any], clients: Mapping[str, str]) -> None:
    """Seed part 5: "Confidential clients send client_secret ... at the token endpoint;
    public clients send none." `clients`: role -> client_id, as registered."""
    sent = "client_secret" in facts.get("sent", ()) or "client_secret" in facts.get("masked", ())
    if facts.get("client_id") == clients.get("public"):
        expect(not sent, "the public client sends a client_secret", expected="none", actual="client_secret sent")
    elif facts.get("client_id") == clients.get("confidential"):
        expect(sent, "the confidential client sends no client_secret", expected="client_secret", actual="none")


# Seed part 2: "Object with `keys`, an array of JWK objects with members `alg` (`RS256`), `kty`
# (`RSA`), `kid`, `e`, `n`, `x5c` (array of certificate strings)."
def jwks_document(document: dict[str, Any]) -> None:
    keys = document.get("keys")
    expect(isinstance(keys, list) and bool(keys), "the JWKS has no keys array", actual=type(keys).__name__)
    for index, key in enumerate(keys):
        expect(isinstance(key, dict), f"keys[{index}] is not an object", actual=type(key).__name__)
        wrong = [name for name, ok in (("alg", key.get("alg") == "RS256"), ("kty", key.get("kty") == "RSA"),
                                       ("kid", isinstance(key.get("kid"), str) and bool(key.get("kid"))),
                                       ("e", isinstance(key.get("e"), str) and bool(key.get("e"))),
                                       ("n", isinstance(key.get("n"), str) and bool(key.get("n"))),
                                       ("x5c", isinstance(key.get("x5c"), list) and bool(key.get("x5c"))
                                        and all(isinstance(c, str) and c for c in key["x5c"]))) if not ok]
        expect(not wrong, f"keys[{index}] lacks or misstates {', '.join(wrong)} (seed part 2: alg RS256, kty RSA, "
               "kid, e, n, x5c)", actual={k: key.get(k) for k in ("alg", "kty", "kid")})


class AuthRefusal:
    """Why a request to the authorization server or its APIs is designed to be refused, by the
    seed's rules for the client and by what the profile registered; None for a request a
    conforming server serves. Remembers the jti of every assertion and every code it saw
    sent: sending one again is a replay, designed to be refused."""

    def __init__(self, *, audience: str, redirect_uri: str, clients: Mapping[str, str],
                 client_secret: str | None) -> None:
        self._audience = audience
        self._redirect_uri = redirect_uri
        self._clients = dict(clients)
        self._secret = client_secret
        self._sent: set[tuple[str, str]] = set()

    def __call__(self, request: httpx.Request) -> str | None:
        raw = Exchange(method=request.method, url=str(request.url),
                       request_headers=Headers(list(request.headers.multi_items())), request_body=request.content or b"",
                       status=0, response_headers=Headers(), body=b"",
                       notes={"startedDateTime": datetime.now(UTC).isoformat()})
        found = auth_facts.classify(raw)
        if found is None:
            return None
        kind, facts = found
        try:
            self._judge(kind, facts, raw)
        except Finding as finding:
            return str(finding)
        return None

    def _judge(self, kind: str, facts: dict[str, Any], raw: Exchange) -> None:
        if kind == "authorize":
            authorization_request(facts)
            pkce_s256(facts)
            sent = facts.get("parameters") or {}
            expect(sent.get("redirect_uri") == self._redirect_uri, "a redirect_uri the client did not register",
                   expected=self._redirect_uri, actual=sent.get("redirect_uri"))
            self._known_client(sent.get("client_id"))
        elif kind == "token":
            token_request_form(facts)
            form = dict(parse_qsl(raw.request_body.decode("utf-8", "replace"), keep_blank_values=True))
            token_request_body(form)
            self._known_client(form.get("client_id") or (facts.get("assertion_claims") or {}).get("iss"))
            self._secret_where_due(form)
            if form.get("grant_type") == "authorization_code":
                verifier_syntax(facts)
                self._once("code", form["code"])
            if "client_assertion" in form:
                assertion_form(facts, self._audience)
                self._once("jti", str((facts.get("assertion_claims") or {}).get("jti")))
        elif kind == "resource":
            bearer_on_api_requests(facts)

    def _known_client(self, client_id: str | None) -> None:
        roles = [role for role, registered in self._clients.items() if registered == client_id]
        expect(bool(roles), "a client_id the profile did not register", actual=client_id)
        bad = [role for role in roles if role in BAD_MATERIAL]
        expect(not bad or len(bad) < len(roles), "a client registered with bad material", actual=bad)

    def _secret_where_due(self, form: Mapping[str, str]) -> None:
        """Seed part 5: confidential clients send client_secret, public clients send none."""
        client_id = form.get("client_id")
        if form.get("grant_type") == "client_credentials" or client_id is None:
            return
        if client_id == self._clients.get("public"):
            expect("client_secret" not in form, "a public client sends a client_secret", actual="client_secret sent")
        elif client_id == self._clients.get("confidential"):
            expect(bool(form.get("client_secret")), "a confidential client sends no client_secret", actual="none")
            if self._secret:
                expect(form["client_secret"] == self._secret, "a client_secret other than the registered one",
                       actual="another value")

    def _once(self, what: str, value: str) -> None:
        key = (what, value)
        expect(key not in self._sent, f"a {what} sent before (a replay)", actual=f"the same {what} again")
        self._sent.add(key)
