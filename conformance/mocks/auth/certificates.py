"""Certificate checks for the client assertion's `x5c` chain (seed part 4: "Certificate
valid, part of the private services branch of the national government PKI hierarchy").

The faithful path uses cryptography's X.509 verifier at the mock clock's time (signatures,
the chain to a configured trust root, every validity period); the faults that skip a part of
it (chain or validity, or only notBefore) use the hand-made halves below, so each fault
skips exactly its own half. Two checks the verifier does not make follow on the path it
built: the branch (every certificate below the root asserts a certificate policy of the
Private Services branch, RFC 5280 6.1 with that initial policy set) and revocation (a
certificate that names a CRL distribution point is looked up in its issuer's CRL, which the
server must hold: without it the status is unknown, and the certificate is refused).
"""

from __future__ import annotations

from datetime import datetime

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from cryptography.x509.oid import CertificatePoliciesOID
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError


def verify_chain(chain: list[x509.Certificate], roots: tuple[x509.Certificate, ...],
                 moment: datetime) -> tuple[list[x509.Certificate], str]:
    """(the path the verifier built, leaf first and root last, and an empty string) when
    `chain` (leaf first) leads to one of `roots` and every certificate is valid at `moment`;
    else ([], what is wrong)."""
    verifier = PolicyBuilder().store(Store(list(roots))).time(moment).build_client_verifier()
    try:
        verified = verifier.verify(chain[0], chain[1:])
    except (VerificationError, ValueError, TypeError) as exc:
        return [], str(exc) or type(exc).__name__
    return list(verified.chain), ""


def same_key(cert: x509.Certificate, key: RSAPublicKey) -> bool:
    try:
        cert_key = cert.public_key()
    except ValueError:
        return False
    return isinstance(cert_key, RSAPublicKey) and cert_key.public_numbers() == key.public_numbers()


def valid_at(cert: x509.Certificate, moment: datetime) -> bool:
    return cert.not_valid_before_utc <= moment <= cert.not_valid_after_utc


def not_expired_at(cert: x509.Certificate, moment: datetime) -> bool:
    """Only notAfter: the half of validity a server that forgets notBefore judges."""
    return moment <= cert.not_valid_after_utc


def policies_of(cert: x509.Certificate) -> frozenset[str]:
    try:
        policies = cert.extensions.get_extension_for_class(x509.CertificatePolicies).value
    except (x509.ExtensionNotFound, ValueError):
        return frozenset()
    return frozenset(p.policy_identifier.dotted_string for p in policies)


def branch_problem(path: list[x509.Certificate], roots: tuple[x509.Certificate, ...], policies: tuple[str, ...]) -> str:
    """What puts `path` outside the branch whose certificate `policies` are given: a
    certificate below the trust root that asserts none of them (a CA may assert anyPolicy).
    Empty when it is inside, or when no branch is configured."""
    if not policies:
        return ""
    wanted = frozenset(policies)
    for index, cert in enumerate(path):
        if cert in roots or cert.issuer == cert.subject:  # the trust anchor (or a root sent along)
            break
        asserted = policies_of(cert)
        if index > 0 and CertificatePoliciesOID.ANY_POLICY.dotted_string in asserted:
            continue
        if not asserted & wanted:
            name = cert.subject.rfc4514_string()
            return f"{name} asserts no certificate policy of the branch ({', '.join(sorted(asserted)) or 'none'})"
    return ""


def _distribution_points(cert: x509.Certificate) -> list[str]:
    try:
        points = cert.extensions.get_extension_for_class(x509.CRLDistributionPoints).value
    except (x509.ExtensionNotFound, ValueError):
        return []
    return [name.value for point in points for name in point.full_name or ()
            if isinstance(name, x509.UniformResourceIdentifier)]


def revocation_problem(path: list[x509.Certificate], crls: tuple[x509.CertificateRevocationList, ...]) -> str:
    """What the CRLs say against `path` (leaf first; its next certificate is the issuer):
    a revoked certificate, or one that names a distribution point whose CRL (from its issuer,
    signed by it) the server does not hold. Empty when every status is good."""
    for cert, issuer in zip(path, path[1:], strict=False):
        if not _distribution_points(cert):
            continue  # no revocation information published for it (the CAs here)
        crl = next((c for c in crls if c.issuer == issuer.subject and _crl_signed_by(c, issuer)), None)
        if crl is None:
            return f"no CRL of {issuer.subject.rfc4514_string()}: the revocation status is unknown"
        if crl.get_revoked_certificate_by_serial_number(cert.serial_number) is not None:
            return f"certificate {cert.serial_number:x} of {cert.subject.rfc4514_string()} is revoked"
    return ""


def _crl_signed_by(crl: x509.CertificateRevocationList, issuer: x509.Certificate) -> bool:
    try:
        key = issuer.public_key()
        return isinstance(key, RSAPublicKey) and crl.is_signature_valid(key)
    except (ValueError, TypeError):
        return False


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

