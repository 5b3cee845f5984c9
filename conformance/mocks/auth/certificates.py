"""Certificate checks for the client assertion's `x5c` chain (seed part 4: valid, part of
the government PKI hierarchy, i.e. leading to a configured trust root).

The faithful path uses cryptography's X.509 verifier at the mock clock's time; the two
faults that skip a part of it (chain or validity) use the hand-made halves below, so each
fault skips exactly its own half.
"""

from __future__ import annotations

from datetime import datetime

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError


def verify_chain(chain: list[x509.Certificate], roots: tuple[x509.Certificate, ...], moment: datetime) -> str:
    """What is wrong with `chain` (leaf first), or an empty string when it leads to one of
    `roots` and every certificate is valid at `moment`."""
    verifier = PolicyBuilder().store(Store(list(roots))).time(moment).build_client_verifier()
    try:
        verifier.verify(chain[0], chain[1:])
    except (VerificationError, ValueError, TypeError) as exc:
        return str(exc) or type(exc).__name__
    return ""


def same_key(cert: x509.Certificate, key: RSAPublicKey) -> bool:
    try:
        cert_key = cert.public_key()
    except ValueError:
        return False
    return isinstance(cert_key, RSAPublicKey) and cert_key.public_numbers() == key.public_numbers()


def valid_at(cert: x509.Certificate, moment: datetime) -> bool:
    return cert.not_valid_before_utc <= moment <= cert.not_valid_after_utc


def _issued_by(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
        constraints = issuer.extensions.get_extension_for_class(x509.BasicConstraints).value
    except (ValueError, TypeError, InvalidSignature, x509.ExtensionNotFound):
        return False
    return constraints.ca


def chains_to(chain: list[x509.Certificate], roots: tuple[x509.Certificate, ...]) -> bool:
    """Signatures and issuers up the chain to a trusted root, without judging time."""
    for index, cert in enumerate(chain):
        if index > 0 and cert in roots:
            return True
        parent = chain[index + 1] if index + 1 < len(chain) else None
        if parent is None:
            return any(_issued_by(cert, root) for root in roots)
        if not _issued_by(cert, parent):
            return False
    return False

