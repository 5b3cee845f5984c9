"""What the launcher does for the token flows: the test PKI, the client's JWKS on
loopback, and the mock authorization server with its client and customer registers.

Secrets (the confidential client's secret, the test users' passwords) are generated per
start, as the address mock's API keys are, and handed over in memory; a value already in
the environment wins, so tests can plant canaries.
"""

from __future__ import annotations

import fcntl
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.auth.flows import FILING_SCOPE, INQUIRY_SCOPE
from conformance.auth.rfc7523 import default_audience
from conformance.paths import cache_dir
from conformance.profiles import AuthService

PKI_DIR = cache_dir() / "test-pki"
ROLE_USER = "notaris"
NO_ROLE_USER = "medewerker"
AANBIEDER_ROLE = "Aanbieder M2M"

# role -> (client id, JWKS document) for the client-credentials clients.
CC_CLIENTS = {
    "client_credentials": ("inquiry-service", "good"),
    "no_x5c": ("inquiry-no-x5c", "no_x5c"),
    "untrusted": ("inquiry-untrusted", "untrusted"),
    "expired": ("inquiry-expired", "expired"),
    "unregistered_oin": ("inquiry-unregistered-oin", "unregistered_oin"),
    "twice_oin": ("inquiry-twice-oin", "twice_oin"),
    "x5c_mismatch": ("inquiry-x5c-mismatch", "mismatch"),
    "no_oin": ("inquiry-no-oin", "no_oin"),
    "not_yet_valid": ("inquiry-not-yet-valid", "not_yet_valid"),
    "revoked": ("inquiry-revoked", "revoked"),
    "other_branch": ("inquiry-other-branch", "other_branch"),
    "oin_elsewhere": ("inquiry-oin-elsewhere", "oin_elsewhere"),
    # one client service, the certificates of two end customers (valid material)
    "two_customers": ("inquiry-two-customers", "two_customers"),
}
CODE_CLIENTS = {"confidential": "filing-confidential", "public": "filing-public"}
# A second scope the mock's confidential client may ask for: consent for it is asked anew
# (services.auth.consent_scope names a deployment's own).
MOCK_CONSENT_SCOPE = "registry.cto.aanbieden.status"


def ensure_pki(directory: Path = PKI_DIR) -> Any:
    """The test PKI, built once and reused; a lock keeps parallel runs from racing."""
    from conformance.auth.pki import ensure_test_pki

    directory.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f".{directory.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return ensure_test_pki(directory)


@dataclass
class AuthMockSetup:
    """Everything one or more mock authorization servers of a run share."""

    service: AuthService
    secrets: dict[str, str]  # env var -> value, shared with the run
    pki_dir: Path = PKI_DIR
    jwks_base: str = ""
    pki: Any = None
    info: dict[str, str] = field(default_factory=dict)

    def prepare(self, start_server: Callable[..., int], *, jwks_base: str | None = None) -> None:
        """Make the PKI, publish the JWKS documents (at the profile's `jwks_publish_port`,
        or any free port), generate the secrets. With `jwks_base` they are published already."""
        from conformance.auth.jwks_publisher import create_app as jwks_app

        self.pki = ensure_pki(self.pki_dir)
        if jwks_base is None:
            port = start_server(jwks_app(self.pki.jwks_documents()), "jwks", self.service.jwks_publish_port)
            jwks_base = f"http://127.0.0.1:{port}/jwks"
        self.jwks_base = jwks_base
        env = self.service.secret_env
        for name in ("client_secret", "password", "password_without_role"):
            if name in env:
                generated = f"mock-{name.replace('_', '-')}-{secrets.token_hex(12)}"
                self.secrets.setdefault(env[name], os.environ.get(env[name]) or generated)
        for name, user in (("username", ROLE_USER), ("username_without_role", NO_ROLE_USER)):
            if name in env:
                self.secrets.setdefault(env[name], user)

    def config(self) -> Any:
        from conformance.auth.pki import OIN_SECOND_CUSTOMER, OIN_TWICE, PRIVATE_SERVICES_POLICY
        from conformance.mocks.auth.config import AuthMockConfig, ClientRegistration, User

        env = self.service.secret_env
        secret = self.secrets.get(env.get("client_secret", ""), "")
        redirect = (self.service.redirect_uri,)
        clients = {
            CODE_CLIENTS["confidential"]: ClientRegistration(
                CODE_CLIENTS["confidential"], "confidential", secret=secret, redirect_uris=redirect,
                scopes=(FILING_SCOPE, MOCK_CONSENT_SCOPE)),
            CODE_CLIENTS["public"]: ClientRegistration(
                CODE_CLIENTS["public"], "public", redirect_uris=redirect, scopes=(FILING_SCOPE,)),
        }
        for client_id, document in CC_CLIENTS.values():
            clients[client_id] = ClientRegistration(
                client_id, "client_credentials", scopes=(INQUIRY_SCOPE,), jwks_uri=f"{self.jwks_base}/{document}.json")
        users = {
            ROLE_USER: User(ROLE_USER, self.secrets.get(env.get("password", ""), ""), (AANBIEDER_ROLE,)),
            NO_ROLE_USER: User(NO_ROLE_USER, self.secrets.get(env.get("password_without_role", ""), ""), ()),
        }
        return AuthMockConfig(
            clients=clients,
            users=users,
            customers={self.pki.oin: ("Notariskantoor Test B.V.",), OIN_TWICE: ("Gemeente Test", "Waterschap Test"),
                       OIN_SECOND_CUSTOMER: ("Notariskantoor Tweede Test B.V.",)},
            trust_roots=(self.pki.root,),
            audience=default_audience("http://127.0.0.1"),
            # the Private Services branch (its certificate policy) and the CRLs the server has
            # fetched from its CAs' distribution points (the mock is handed the test PKI's)
            branch_policies=(PRIVATE_SERVICES_POLICY,),
            crls=tuple(self.pki.crls.values()),
            code_lifetime_s=self.service.mock_code_lifetime_s,
        )

    def targets_info(self, auth_url: str) -> dict[str, str]:
        """What a run needs to reach one mock authorization server (no secrets)."""
        info = {"auth_url": auth_url, "filing_base": f"{auth_url}/filing", "inquiry_base": f"{auth_url}/inquiry",
                "audience": default_audience(auth_url), "pki_dir": str(self.pki_dir), "clock": "mock",
                "jwks_base": self.jwks_base, "consent_scope": MOCK_CONSENT_SCOPE}
        info.update({f"client.{role}": client_id for role, client_id in CODE_CLIENTS.items()})
        info.update({f"client.{role}": client_id for role, (client_id, _) in CC_CLIENTS.items()})
        return info
