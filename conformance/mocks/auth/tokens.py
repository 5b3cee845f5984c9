"""Codes, access tokens and refresh tokens of the mock authorization server.

Access tokens are JWTs signed RS256 (claims `iss`, `client_id`, `sub`, `scope`, `exp`,
`iat`, `jti`) with the process's signing key: made once (a 2048-bit key takes about 60 ms,
and a run starts several mocks, the project's tests hundreds), under a `kid` of each
store's own. Stores sharing the key never take each other's tokens: a token is ours only
while its `jti` is in this store. Every token belongs to a family:
the code it came from (every refresh keeps the family), or its client-credentials request.
Revoking a family (a reused code, RFC 6749 4.1.2) revokes every access and refresh token
in it. Lifetimes are read from the mock clock. The store knows no faults: the protocol
layer decides what to do with what it finds.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

from conformance.mocks.auth.config import AuthMockConfig

_PURGE_EVERY = 256  # inserts between sweeps of long-dead entries
_KEY: list[rsa.RSAPrivateKey] = []
_KEY_LOCK = threading.Lock()


def signing_key() -> rsa.RSAPrivateKey:
    with _KEY_LOCK:
        if not _KEY:
            _KEY.append(rsa.generate_private_key(public_exponent=65537, key_size=2048))
        return _KEY[0]


@dataclass
class CodeGrant:
    client_id: str
    redirect_uri: str
    scope: str
    challenge: str | None  # None: issued without PKCE (fault pkce_not_required)
    method: str | None  # "S256", or "plain" under the fault pkce_plain_accepted
    username: str
    issued_at: float
    family: str
    used: bool = False


@dataclass
class RefreshGrant:
    client_id: str
    subject: str
    scope: str
    family: str
    issued_at: float
    active: bool = True  # False once rotated or revoked


@dataclass(frozen=True)
class Issued:
    access_token: str
    refresh_token: str | None
    scope: str


@dataclass
class _Families:
    revoked: set[str] = field(default_factory=set)
    by_jti: dict[str, tuple[str, float]] = field(default_factory=dict)  # jti -> (family, exp)


class TokenStore:
    def __init__(self, config: AuthMockConfig) -> None:
        self.config = config
        self._key = signing_key()
        self.public_key = self._key.public_key()
        self.kid = secrets.token_urlsafe(8)
        host = config.audience.split("/", 1)[0] or "mock"
        self.issuer = f"https://{host}"
        self._lock = threading.Lock()
        self._codes: dict[str, CodeGrant] = {}
        self._refresh: dict[str, RefreshGrant] = {}
        self._families = _Families()
        self._inserts = 0

    def now(self) -> float:
        return self.config.clock.now()

    # --- codes ---------------------------------------------------------------------------
    def new_code(self, *, client_id: str, redirect_uri: str, scope: str, challenge: str | None,
                 method: str | None, username: str) -> str:
        code = secrets.token_urlsafe(32)
        grant = CodeGrant(client_id, redirect_uri, scope, challenge, method, username, self.now(),
                          family=secrets.token_hex(16))
        with self._lock:
            self._codes[code] = grant
            self._count_insert()
        return code

    def code(self, code: str) -> CodeGrant | None:
        with self._lock:
            return self._codes.get(code)

    def code_expired(self, grant: CodeGrant) -> bool:
        return self.now() >= grant.issued_at + self.config.code_lifetime_s

    def claim_code(self, grant: CodeGrant) -> bool:
        """Mark the code used; False when it already was (atomic, so two racing
        exchanges cannot both succeed)."""
        with self._lock:
            if grant.used:
                return False
            grant.used = True
            return True

    # --- issuing -------------------------------------------------------------------------
    def issue(self, *, client_id: str, subject: str, scope: str, family: str | None = None,
              refresh: bool) -> Issued:
        family = family or secrets.token_hex(16)
        now = self.now()
        jti = secrets.token_urlsafe(24)
        exp = int(now) + self.config.access_token_lifetime_s
        claims = {"iss": self.issuer, "client_id": client_id, "sub": subject, "scope": scope,
                  "exp": exp, "iat": int(now), "jti": jti}
        access = jwt.encode(claims, self._key, algorithm="RS256", headers={"kid": self.kid, "typ": "at+jwt"})
        refresh_token = secrets.token_urlsafe(32) if refresh else None
        with self._lock:
            self._families.by_jti[jti] = (family, exp)
            if refresh_token is not None:
                self._refresh[refresh_token] = RefreshGrant(client_id, subject, scope, family, now)
            self._count_insert()
        return Issued(access, refresh_token, scope)

    def revoke_family(self, family: str) -> None:
        with self._lock:
            self._families.revoked.add(family)
            for grant in self._refresh.values():
                if grant.family == family:
                    grant.active = False

    # --- refresh tokens ----------------------------------------------------------------------
    def refresh_grant(self, token: str) -> RefreshGrant | None:
        with self._lock:
            return self._refresh.get(token)

    def refresh_expired(self, grant: RefreshGrant) -> bool:
        return self.now() >= grant.issued_at + self.config.refresh_token_lifetime_s

    def refresh_active(self, grant: RefreshGrant) -> bool:
        """Neither rotated nor revoked."""
        with self._lock:
            return grant.active and grant.family not in self._families.revoked

    def retire_refresh(self, grant: RefreshGrant) -> bool:
        """Rotation: the presented refresh token is used up; False if it already was."""
        with self._lock:
            if not grant.active or grant.family in self._families.revoked:
                return False
            grant.active = False
            return True

    # --- access tokens -----------------------------------------------------------------------
    def decode_access(self, token: str, *, verify_signature: bool = True) -> dict[str, Any] | None:
        """The claims of one of our access tokens, or None. Time is judged by the caller
        against the mock clock, not here."""
        options: dict[str, Any] = {"verify_signature": verify_signature, "verify_exp": False,
                                   "verify_nbf": False, "verify_iat": False, "verify_aud": False,
                                   "verify_iss": False}
        try:
            claims = jwt.decode(token, self.public_key, algorithms=["RS256"], options=options)
        except (jwt.PyJWTError, ValueError, TypeError):
            return None
        if not isinstance(claims, dict) or claims.get("iss") != self.issuer:
            return None
        if not isinstance(claims.get("exp"), int) or not isinstance(claims.get("scope"), str):
            return None
        return claims

    def access_revoked(self, claims: dict[str, Any]) -> bool:
        jti = claims.get("jti")
        with self._lock:
            entry = self._families.by_jti.get(jti) if isinstance(jti, str) else None
            return entry is None or entry[0] in self._families.revoked

    # --- housekeeping ------------------------------------------------------------------------
    def _count_insert(self) -> None:
        """Drop what can no longer matter: codes and refresh tokens twice past the refresh
        lifetime (a used code is kept that long, so its reuse is still recognised)."""
        self._inserts += 1
        if self._inserts % _PURGE_EVERY:
            return
        horizon = self.now() - 2 * max(self.config.refresh_token_lifetime_s, self.config.code_lifetime_s)
        self._codes = {k: v for k, v in self._codes.items() if v.issued_at >= horizon}
        self._refresh = {k: v for k, v in self._refresh.items() if v.issued_at >= horizon}
        self._families.by_jti = {k: v for k, v in self._families.by_jti.items() if v[1] >= horizon}
