"""Build `AuthTargets` from a profile: where the servers are, which clients, users and keys
the flows use. For the local mock, the launcher's `info` (URLs, client ids, the test
PKI directory) fills in what a real environment's profile states itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

from conformance.auth.flows import AuthTargets, Clock
from conformance.auth.rfc7523 import default_audience
from conformance.errors import ConfigError
from conformance.profiles import AUTH_CLIENTS, AuthService

# Signing material names of the test PKI (conformance pki init) used by the flows: one per
# client role of the bad material, and the two end customers' keys of the role two_customers.
PKI_MATERIAL = ("current", "next", "no_x5c", "untrusted", "expired", "unregistered_oin", "twice_oin",
                "x5c_mismatch", "no_oin", "not_yet_valid", "revoked", "other_branch", "oin_elsewhere",
                "two_customers", "two_customers_second")
_PKI_DOCUMENT = {"current": "good", "x5c_mismatch": "mismatch", "two_customers": "customer_a",
                 "two_customers_second": "customer_b"}


def build_targets(
    service: AuthService, *, info: dict[str, str], secrets: dict[str, str], clock: Clock | None,
) -> AuthTargets:
    """`info`: launcher facts for a mock (empty for real environments); `secrets`: env var -> value."""
    auth_url = info.get("auth_url") or service.base_url
    assert auth_url is not None  # the profile schema requires it for real environments
    clients = {role: info[f"client.{role}"] for role in AUTH_CLIENTS if f"client.{role}" in info}
    clients.update(service.clients)
    values = {name: secrets[env] for name, env in service.secret_env.items() if env in secrets}
    targets = AuthTargets(
        auth_url=auth_url,
        filing_base=(info.get("filing_base") or service.filing_base) if "filing" in service.resource_servers else None,
        inquiry_base=(info.get("inquiry_base") or service.inquiry_base) if "inquiry" in service.resource_servers else None,
        audience=service.audience or info.get("audience") or default_audience(auth_url),
        redirect_uri=service.redirect_uri,
        clients=clients,
        secrets=values,
        clock=clock,
        consent_scope=service.consent_scope or info.get("consent_scope"),
    )
    pki_dir = info.get("pki_dir") or service.pki_dir
    if pki_dir:
        targets.signing.update(_pki_material(Path(pki_dir)))
    key = _configured_key(service, values)
    if key is not None:
        targets.signing["current"] = key
    targets.drivers.update(_drivers(service, values))
    return targets


def _pki_material(directory: Path) -> dict[str, tuple[Any, str]]:
    from conformance.auth.pki import load_test_pki

    pki = load_test_pki(directory)
    return {name: pki.signing_material(_PKI_DOCUMENT.get(name, name)) for name in PKI_MATERIAL}


def _configured_key(service: AuthService, values: dict[str, str]) -> tuple[Any, str] | None:
    """The client's own key: a PEM file or an environment variable, with its registered kid.
    Anything but an unencrypted RSA key is exit 2 naming where it came from: the seed's
    assertion is RS256, and signing with another key ended in a traceback (issue 50, 7c)."""
    pem: bytes | None = None
    if service.private_key_file:
        where = f"services.auth.keys.private_key_file ({service.private_key_file})"
        try:
            pem = Path(service.private_key_file).read_bytes()
        except OSError as exc:
            raise ConfigError(f"{where}: cannot read: {exc.strerror or exc}") from None
    elif values.get("private_key"):
        where = f"services.auth.secrets.private_key (the variable {service.secret_env.get('private_key')})"
        pem = values["private_key"].encode()
    if pem is None:
        return None
    if not service.kid:
        raise ConfigError("services.auth.keys.kid is required with a private key (the kid registered in the JWKS)")
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except TypeError:  # "Password was not given but private key is encrypted"
        raise ConfigError(f"the client-credentials private key, {where}, is encrypted; give an unencrypted PEM") from None
    except (ValueError, UnsupportedAlgorithm):
        raise ConfigError(f"the client-credentials private key, {where}, is not a PEM private key") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ConfigError(f"the client-credentials private key, {where}, is not an RSA key ({_kind(key)}; the "
                          "seed's assertion is RS256)")
    return key, service.kid


def _kind(key: object) -> str:
    for kind, name in ((ec.EllipticCurvePrivateKey, "an EC key"), (ed25519.Ed25519PrivateKey, "an Ed25519 key"),
                       (ed448.Ed448PrivateKey, "an Ed448 key")):
        if isinstance(key, kind):
            return name
    return f"a {type(key).__name__.lstrip('_')}"


def _drivers(service: AuthService, values: dict[str, str]) -> dict[str, Any]:
    """A login driver per test user the profile can log in as."""
    from conformance.auth.login import driver_from_settings

    settings = dict(service.login) or {"driver": "form"}
    if settings.get("driver") == "refresh_token":
        return {}  # unattended: the flows start from the refresh token, no authorization
    drivers = {}
    if settings.get("driver") != "form" or {"username", "password"} <= values.keys():
        drivers["default"] = driver_from_settings(
            settings, {"username": values.get("username", ""), "password": values.get("password", "")})
    if settings.get("driver") == "form" and {"username_without_role", "password_without_role"} <= values.keys():
        drivers["without_role"] = driver_from_settings(
            settings, {"username": values["username_without_role"], "password": values["password_without_role"]})
    return drivers
