"""Configuration of the mock authorization server (docs/auth-design.md).

The launcher (conformance/mocks/launcher_auth.py) builds one AuthMockConfig per mock
server; tests build their own. Every lifetime, `exp` and replay-window decision of the
mock reads `config.clock`, so expiry is tested by moving the clock, never by sleeping.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Literal

from cryptography import x509

AANBIEDER_ROLE = "Aanbieder M2M"
FILING_SCOPE = "registry.cto.aanbieden.verzoeken"
INQUIRY_SCOPE = "registry-inzage"
# Scopes that only a user with a role may grant (seed part 1: the filing API's role).
SCOPE_ROLES: dict[str, str] = {FILING_SCOPE: AANBIEDER_ROLE}


class MockClock:
    """Epoch seconds: real time plus an offset that `advance` moves."""

    def __init__(self, offset_s: float = 0.0) -> None:
        self._offset = float(offset_s)
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return time.time() + self._offset

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._offset += float(seconds)


@dataclass
class ClientRegistration:
    client_id: str
    kind: Literal["confidential", "public", "client_credentials"]
    secret: str | None = None  # confidential clients only
    redirect_uris: tuple[str, ...] = ()  # exact string comparison
    scopes: tuple[str, ...] = ()  # scopes the client may ask for
    jwks_uri: str | None = None  # client_credentials clients


@dataclass
class User:
    username: str
    password: str
    roles: tuple[str, ...]  # "Aanbieder M2M" needed for the filing scope


@dataclass
class AuthMockConfig:
    clients: dict[str, ClientRegistration]
    users: dict[str, User]
    customers: dict[str, tuple[str, ...]]  # OIN -> customer names registered with it
    trust_roots: tuple[x509.Certificate, ...]  # the test PKI root; chains must end there
    audience: str  # expected `aud` of client assertions
    # The certificate policies of the Private Services branch: every certificate below the
    # trust root must assert one (RFC 5280 6.1 with an initial policy set); empty: any branch.
    branch_policies: tuple[str, ...] = ()
    # The CRLs the server holds, as a real one keeps them fetched from the distribution points
    # of the CAs it trusts: a certificate naming a distribution point is judged by its issuer's.
    crls: tuple[x509.CertificateRevocationList, ...] = ()
    code_lifetime_s: int = 30  # the seed gives 30 and 300; both are run
    access_token_lifetime_s: int = 3600
    refresh_token_lifetime_s: int = 604800
    assertion_max_lifetime_s: int = 3600  # `exp` further ahead than this: refused
    clock: MockClock = field(default_factory=MockClock)
