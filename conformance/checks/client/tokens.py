"""The seed's rules for what a client sends to the authorization server and its APIs (part 2,
4 and 5), judged on the facts of an observed exchange (conformance/passive/auth_facts.py)."""

from __future__ import annotations

from typing import Any

from conformance.findings import expect
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
