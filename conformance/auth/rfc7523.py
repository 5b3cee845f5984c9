"""Client assertions (RFC 7523 section 2.2) as the seed's inquiry client sends them, and the
deliberately bad ones a server must refuse.

The good assertion follows seed part 2: header `typ` JWT, `alg` RS256, `kid`; claims
`iss` = `sub` = client_id, `aud` in the seed's form `{auth_host}:443/auth/oauth/v2/token`,
`exp`, `nbf`, `iat`, `jti`. pyjwt signs it. pyjwt refuses to make the attack tokens
(`alg: none` with an empty signature, HS256 keyed with the RSA public key, a payload
changed after signing), so those are assembled by hand from base64url segments.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
from typing import Any
from urllib.parse import urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
TOKEN_PATH = "/auth/oauth/v2/token"


def default_audience(auth_url: str) -> str:
    """The seed's `aud`: the token endpoint without protocol, with port 443.

    Whatever scheme and port `auth_url` has (the mock listens on an ephemeral http port),
    the value names the host only; e.g. `127.0.0.1:443/auth/oauth/v2/token`.
    """
    parts = urlsplit(auth_url if "//" in auth_url else f"//{auth_url}")
    host = parts.hostname
    if not host:
        raise ValueError(f"no host in the authorization server URL {auth_url!r}")
    if ":" in host:  # an IPv6 literal keeps its brackets next to a port
        host = f"[{host}]"
    return f"{host}:443{TOKEN_PATH}"


# An optional `scheme://`, then the host (a bracketed IPv6 literal or a name) and its port 443,
# followed by the path, query, fragment or the end: ":443" only where it is the port, never the
# start of another (`127.0.0.1:44341`) or part of an IPv6 literal.
_PORT_443 = re.compile(r"^((?:[A-Za-z][A-Za-z0-9+.-]*://)?(?:\[[^\]/]*\]|[^/?#:\[\]]*)):443(?=[/?#]|$)")


def without_port_443(audience: str) -> str | None:
    """`audience` with its port 443 left out (`host:443/path` -> `host/path`), or None when its
    authority names no port 443 (another port, or none)."""
    shorter, count = _PORT_443.subn(r"\1", audience, count=1)
    return shorter if count else None


def new_jti() -> str:
    return secrets.token_urlsafe(24)  # 192 bits; OIDC and NL GOV ask for at least 128


def claims_for(client_id: str, audience: str, *, now: float, lifetime_s: int = 120) -> dict[str, Any]:
    """The claims of a good assertion issued at `now` (the server's clock where it is known)."""
    issued = int(now)
    return {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "exp": issued + lifetime_s,
        "nbf": issued,
        "iat": issued,
        "jti": new_jti(),
    }


def build_assertion(
    client_id: str,
    audience: str,
    private_key: RSAPrivateKey,
    kid: str,
    *,
    now: float,
    lifetime_s: int = 120,
    jti: str | None = None,
    overrides: dict[str, Any] | None = None,
    drop: tuple[str, ...] = (),
    headers: dict[str, Any] | None = None,
    drop_headers: tuple[str, ...] = (),
    algorithm: str = "RS256",
) -> str:
    """An RS256 assertion; `overrides` replace claims and `drop` removes them after that,
    `headers` and `drop_headers` do the same to the JWS header, and `algorithm` signs with
    another RSA algorithm (RS384, RS512, PS256) of the same key, so a negative case changes
    exactly one thing."""
    claims = claims_for(client_id, audience, now=now, lifetime_s=lifetime_s)
    if jti is not None:
        claims["jti"] = jti
    claims.update(overrides or {})
    for name in drop:
        claims.pop(name, None)
    header = {"typ": "JWT", "alg": algorithm, "kid": kid, **(headers or {})}
    for name in drop_headers:
        header.pop(name, None)
    if "typ" not in header:
        header["typ"] = None  # pyjwt adds typ JWT unless told to leave it out
    return jwt.encode(claims, private_key, algorithm=algorithm, headers=header)


def unsigned_none(claims: dict[str, Any], kid: str) -> str:
    """`alg: none` with an empty signature segment (RFC 7518 3.6): must be refused."""
    return _signing_input({"typ": "JWT", "alg": "none", "kid": kid}, claims) + "."


def hs256_with_public_key(claims: dict[str, Any], kid: str, public_key: RSAPublicKey) -> str:
    """Algorithm confusion (RFC 8725 2.1): HMAC-SHA256 keyed with the client's public key
    as PEM SubjectPublicKeyInfo, which a verifier that takes `alg` from the header and
    the key from the JWKS would accept."""
    secret = public_key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    signing_input = _signing_input({"typ": "JWT", "alg": "HS256", "kid": kid}, claims)
    signature = hmac.new(secret, signing_input.encode("ascii"), hashlib.sha256).digest()
    return f"{signing_input}.{_b64url(signature)}"


def tamper(token: str, **changes: Any) -> str:
    """The token with payload claims rewritten (a value of None removes the claim); the
    header and signature segments are kept byte for byte."""
    segments = token.split(".")
    if len(segments) != 3:
        raise ValueError("not a JWS in compact serialization (three segments)")
    header, payload, signature = segments
    claims = json.loads(_b64url_decode(payload))
    if not isinstance(claims, dict):
        raise ValueError("the JWS payload is not a JSON object")
    for name, value in changes.items():
        if value is None:
            claims.pop(name, None)
        else:
            claims[name] = value
    return f"{header}.{_b64url(_json(claims))}.{signature}"


def _signing_input(header: dict[str, Any], claims: dict[str, Any]) -> str:
    return f"{_b64url(_json(header))}.{_b64url(_json(claims))}"


def _json(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
