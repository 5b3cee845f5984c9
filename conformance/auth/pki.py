"""The test PKI for the client-credentials flow: a small imitation of the PKIoverheid
Private Services branch, made with `cryptography` alone.

Seed 001 part 4 makes the server check that the assertion's key comes with an `x5c` chain
up to the Private Services root, that the certificate is valid, that the leaf carries an
OIN as subject `serialNumber`, and that this OIN is registered at exactly one customer. The
mock trusts this PKI's root; the harness signs with its keys. Besides the two good client
keys (`current` and `next`, for key rotation) it holds one piece of bad material per
refusal the seed demands, each under its own key, so every JWKS document has its own kid
and a server cannot pass a negative case by recognising a key it saw elsewhere; and the two
end customers of one client service (seed part 4: "one client service can be used with
several end-customer certificates").

    root "Test Staat der Nederlanden Private Root CA - G1"      (self-signed)
      domain CA "... Private Services CA - G1"                  (pathLen 1, Private Services policy)
        TSP CA "Test TSP PKIoverheid Private Services CA - G1"  (pathLen 0; its CRL lists `revoked`)
          leaves: current, next, expired, not_yet_valid, revoked, no_oin, oin_elsewhere,
                  unregistered_oin, twice_oin, customer_a, customer_b
      domain CA "... Private Personen CA - G1"                  (another domain of the same root,
        TSP CA "Test TSP PKIoverheid Private Personen CA - G1"   with that domain's policy)
          leaf: other_branch
    foreign root (trusted by nobody)
      leaf: untrusted

Certificate policies: the stand-ins below, in the ITU-T X.660 `example` arc (2.999), mark
each domain as the real PKIoverheid policy OIDs do; a server restricted to the Private
Services branch requires PRIVATE_SERVICES_POLICY (or trusts that domain's CA only).
Revocation: every leaf under a TSP CA names the CRL of its issuer in its CRL distribution
point (`{crl_base}/tsp-ca.crl`, `{crl_base}/other-tsp-ca.crl`, DER); `init` writes both CRLs
and `conformance pki serve` publishes them there (default base: the loopback port of `pki
serve`; `pki init --crl-base URL` for a server that reaches the harness elsewhere).

Nothing here is a secret worth protecting, but private keys are still written with mode
0600: the files look like real key material and are treated as such. The CA keys are not
written at all; `ensure_test_pki` rebuilds the whole PKI (CRLs included) instead of issuing
more.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from conformance.auth import rfc7517
from conformance.auth.oin import OIN_PATTERN, OIN_REGISTERED, OIN_TWICE, OIN_UNREGISTERED
from conformance.errors import ConfigError

ROOT_CN = "Test Staat der Nederlanden Private Root CA - G1"
DOMAIN_CA_CN = "Test Staat der Nederlanden Private Services CA - G1"
TSP_CA_CN = "Test TSP PKIoverheid Private Services CA - G1"
OTHER_DOMAIN_CA_CN = "Test Staat der Nederlanden Private Personen CA - G1"
OTHER_TSP_CA_CN = "Test TSP PKIoverheid Private Personen CA - G1"
FOREIGN_ROOT_CN = "Foreign Test Root CA - trusted by nobody"
STATE_ORG = "Test Staat der Nederlanden"
# Stand-ins for the policy OIDs of the two domains (ITU-T X.660 example arc 2.999): a test
# PKI must not claim the real PKIoverheid policies.
PRIVATE_SERVICES_POLICY = "2.999.1003.1.2.8.6"
PRIVATE_PERSONS_POLICY = "2.999.1003.1.2.8.1"
# The second end customer of the `two_customers` client (the first is the PKI's own OIN);
# registered at exactly one customer, like the first.
OIN_SECOND_CUSTOMER = "00000099000000004000"
RESERVED_OINS = (OIN_UNREGISTERED, OIN_TWICE, OIN_SECOND_CUSTOMER)
# `conformance pki serve` publishes the CRLs here by default (its default loopback port).
DEFAULT_CRL_BASE = "http://127.0.0.1:8765/crl"

MANIFEST = "manifest.json"
JWKS_FILE = "jwks.json"  # the good JWKS: what a client would register
FORMAT_VERSION = 2  # 2: not-yet-valid, revoked, other-branch, OIN-elsewhere and two-customer material, CRLs
KEY_SIZE = 2048
LEAF_LIFETIME = timedelta(days=365)
# The mock clock runs ahead of real time (refresh tokens live 7 days), so a reused PKI
# must stay valid well beyond the one day the contract names.
MIN_REMAINING = timedelta(days=30)


@dataclass(frozen=True)
class _Leaf:
    org: str
    oin: str | None
    issuer: str  # "tsp", "other_tsp" or "foreign"
    validity: str = "current"  # "expired": ended yesterday; "future": begins in NOT_YET_VALID_IN
    oin_field: str = "serialNumber"  # where the OIN stands: "serialNumber" or "organizationIdentifier"


def _leaves(oin: str) -> dict[str, _Leaf]:
    client_org = "Notariskantoor Test B.V."
    return {
        "current": _Leaf(client_org, oin, "tsp"),
        "next": _Leaf(client_org, oin, "tsp"),
        "untrusted": _Leaf(client_org, oin, "foreign"),
        "expired": _Leaf(client_org, oin, "tsp", validity="expired"),
        "no_oin": _Leaf(client_org, None, "tsp"),
        "unregistered_oin": _Leaf("Onbekende Organisatie Test", OIN_UNREGISTERED, "tsp"),
        "twice_oin": _Leaf("Gemeente Test", OIN_TWICE, "tsp"),
        "not_yet_valid": _Leaf(client_org, oin, "tsp", validity="future"),
        "revoked": _Leaf(client_org, oin, "tsp"),  # listed on the TSP CA's CRL
        "other_branch": _Leaf(client_org, oin, "other_tsp"),
        "oin_elsewhere": _Leaf(client_org, oin, "tsp", oin_field="organizationIdentifier"),
        "customer_a": _Leaf(client_org, oin, "tsp"),
        "customer_b": _Leaf("Notariskantoor Tweede Test B.V.", OIN_SECOND_CUSTOMER, "tsp"),
    }


LEAF_NAMES = ("current", "next", "untrusted", "expired", "no_oin", "unregistered_oin", "twice_oin",
              "not_yet_valid", "revoked", "other_branch", "oin_elsewhere", "customer_a", "customer_b")
# A key without a certificate of its own: its JWK carries the `current` certificate.
KEY_NAMES = (*LEAF_NAMES, "mismatch")
REVOKED = ("revoked",)  # the leaves on their issuer's CRL
CA_FILES = {"root": "root.pem", "domain_ca": "domain-ca.pem", "tsp_ca": "tsp-ca.pem",
            "other_domain_ca": "other-domain-ca.pem", "other_tsp_ca": "other-tsp-ca.pem",
            "foreign_root": "foreign-root.pem"}
# The issuing CAs that publish a CRL, and its file (also its name under `crl_base`).
CRL_FILES = {"tsp_ca": "tsp-ca.crl", "other_tsp_ca": "other-tsp-ca.crl"}
# A not-yet-valid leaf begins this far ahead: beyond the good leaves' lifetime, so it stays in
# the future as long as the PKI is reused, whatever clock moves a mock run makes (7 days).
NOT_YET_VALID_IN = timedelta(days=400)

# JWKS document -> its keys as (key name, certificate name for x5c or None).
DOCUMENTS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "good": (("current", "current"), ("next", "next")),
    "current_only": (("current", "current"),),
    "no_x5c": (("current", None),),
    "untrusted": (("untrusted", "untrusted"),),
    "expired": (("expired", "expired"),),
    "no_oin": (("no_oin", "no_oin"),),
    "mismatch": (("mismatch", "current"),),
    "unregistered_oin": (("unregistered_oin", "unregistered_oin"),),
    "twice_oin": (("twice_oin", "twice_oin"),),
    "not_yet_valid": (("not_yet_valid", "not_yet_valid"),),
    "revoked": (("revoked", "revoked"),),
    "other_branch": (("other_branch", "other_branch"),),
    "oin_elsewhere": (("oin_elsewhere", "oin_elsewhere"),),
    # one client service, two end customers (two registered OINs): both keys must work
    "two_customers": (("customer_a", "customer_a"), ("customer_b", "customer_b")),
}
# Signing material names that are not a document of their own, or sign with another key.
_SIGNING_ALIASES = {"good": "current", "current_only": "current", "no_x5c": "current",
                    "current": "current", "next": "next", "two_customers": "customer_a",
                    "customer_a": "customer_a", "customer_b": "customer_b"}


@dataclass(frozen=True)
class TestPki:
    """A loaded test PKI. `intermediates` is [TSP CA, domain CA]: the x5c order above a leaf."""

    __test__ = False  # not a pytest test class, whatever its name

    directory: Path
    oin: str
    root: x509.Certificate
    intermediates: list[x509.Certificate]
    foreign_root: x509.Certificate
    keys: dict[str, RSAPrivateKey]
    certificates: dict[str, x509.Certificate]  # leaves by name; "mismatch" has none
    other_intermediates: list[x509.Certificate]  # [TSP CA, domain CA] of the other domain
    crls: dict[str, x509.CertificateRevocationList]  # by issuing CA (CRL_FILES)
    crl_base: str  # where the leaves' CRL distribution points say the CRLs are

    def kid(self, key_name: str) -> str:
        return rfc7517.kid_for(self.keys[key_name].public_key())

    def chain(self, name: str) -> list[x509.Certificate]:
        """The x5c chain of a leaf: leaf first, each next certifying the previous, no root
        of the trusted hierarchy (a server ignores it); the foreign root is included, since
        sending one's own root is exactly what an untrusted client does."""
        leaf = self.certificates[name]
        if name == "untrusted":
            return [leaf, self.foreign_root]
        if name == "other_branch":
            return [leaf, *self.other_intermediates]
        return [leaf, *self.intermediates]

    def crl_url(self, ca: str) -> str:
        return f"{self.crl_base.rstrip('/')}/{CRL_FILES[ca]}"

    def crl_der(self, filename: str) -> bytes | None:
        """The DER CRL published as `filename` (`pki serve`), or None."""
        for ca, name in CRL_FILES.items():
            if name == filename:
                return self.crls[ca].public_bytes(serialization.Encoding.DER)
        return None

    def jwks_documents(self) -> dict[str, dict[str, Any]]:
        """Every JWKS document by name; fresh dicts, so a caller may change them."""
        return {name: self._document(entries) for name, entries in DOCUMENTS.items()}

    def _document(self, entries: Iterable[tuple[str, str | None]]) -> dict[str, Any]:
        keys = []
        for key_name, cert_name in entries:
            chain = self.chain(cert_name) if cert_name is not None else None
            keys.append(rfc7517.jwk_from_public_key(self.keys[key_name].public_key(), self.kid(key_name), chain))
        return rfc7517.jwks(keys)

    def signing_material(self, name: str) -> tuple[RSAPrivateKey, str]:
        """The private key and kid that sign assertions for JWKS document `name` (or `next`)."""
        if name not in DOCUMENTS and name not in _SIGNING_ALIASES:
            known = ", ".join(sorted({*DOCUMENTS, *_SIGNING_ALIASES}))
            raise KeyError(f"no signing material {name!r}; known: {known}")
        key_name = _SIGNING_ALIASES.get(name, name)
        return self.keys[key_name], self.kid(key_name)

    def path(self, filename: str) -> Path:
        return self.directory / filename

    def describe(self) -> dict[str, Any]:
        """What `pki show` prints: no private key material, only where it lies."""
        keys: dict[str, Any] = {}
        for name in KEY_NAMES:
            entry: dict[str, Any] = {"kid": self.kid(name), "private_key": str(self.path(f"{name}.key.pem"))}
            cert = self.certificates.get(name)
            if cert is None:
                entry["x5c_of"] = "current"  # the mismatch: this key with another key's certificate
            else:
                entry.update(_cert_facts(cert))
                entry["certificate"] = str(self.path(f"{name}.pem"))
            keys[name] = entry
        return {
            "directory": str(self.directory),
            "oin": self.oin,
            "second_customer_oin": OIN_SECOND_CUSTOMER,
            "trust_anchor": {**_cert_facts(self.root), "file": str(self.path(CA_FILES["root"]))},
            "intermediates": [
                {**_cert_facts(cert), "file": str(self.path(CA_FILES[name]))}
                for name, cert in zip(("tsp_ca", "domain_ca"), self.intermediates, strict=True)
            ],
            "other_domain": [
                {**_cert_facts(cert), "file": str(self.path(CA_FILES[name]))}
                for name, cert in zip(("other_tsp_ca", "other_domain_ca"), self.other_intermediates, strict=True)
            ],
            "policies": {"private_services": PRIVATE_SERVICES_POLICY, "other_domain": PRIVATE_PERSONS_POLICY},
            "crls": {ca: {"file": str(self.path(name)), "url": self.crl_url(ca),
                          "revoked": [name for name in REVOKED if self.certificates[name].issuer == crl.issuer],
                          "next_update": crl.next_update_utc.isoformat() if crl.next_update_utc else None}
                     for ca, name in CRL_FILES.items() for crl in (self.crls[ca],)},
            "keys": keys,
            "jwks": {"file": str(self.path(JWKS_FILE)), "documents": list(DOCUMENTS)},
        }


def _cert_facts(cert: x509.Certificate) -> dict[str, Any]:
    return {
        "subject": cert.subject.rfc4514_string({NameOID.ORGANIZATION_IDENTIFIER: "organizationIdentifier"}),
        "issuer": cert.issuer.rfc4514_string(),
        "oin": subject_oin(cert),
        "not_before": cert.not_valid_before_utc.isoformat(),
        "not_after": cert.not_valid_after_utc.isoformat(),
    }


def subject_oin(cert: x509.Certificate) -> str | None:
    """The subject `serialNumber` (OID 2.5.4.5), where PKIoverheid puts the OIN."""
    values = cert.subject.get_attributes_for_oid(NameOID.SERIAL_NUMBER)
    return str(values[0].value) if values else None


def policies_of(cert: x509.Certificate) -> frozenset[str]:
    """The certificate policy OIDs a certificate asserts (none without the extension)."""
    try:
        policies = cert.extensions.get_extension_for_class(x509.CertificatePolicies).value
    except x509.ExtensionNotFound:
        return frozenset()
    return frozenset(p.policy_identifier.dotted_string for p in policies)


# --------------------------------------------------------------------------- building
def init_test_pki(out_dir: Path, *, oin: str = OIN_REGISTERED, now: datetime | None = None,
                  crl_base: str = DEFAULT_CRL_BASE) -> TestPki:
    """Make a fresh PKI in `out_dir` (created if needed) and return it as loaded from disk.

    `oin` goes into the good leaves (and into the bad ones whose fault is not the OIN, so
    that only the one fault differs). `crl_base` is the URL the leaves' CRL distribution
    points name (`pki serve` publishes the CRLs at its default). Files of an earlier PKI are
    overwritten; the manifest is removed first and written last, so a half-written directory
    never loads.
    """
    if not OIN_PATTERN.fullmatch(oin):
        raise ValueError(f"an OIN has exactly 20 digits, not {oin!r}")
    if oin in RESERVED_OINS:
        raise ValueError(f"OIN {oin} is reserved for the bad material of the test PKI")
    if not crl_base.startswith(("http://", "https://")):
        raise ValueError(f"the CRL base must be an http(s) URL, not {crl_base!r}")
    crl_base = crl_base.rstrip("/")
    now = _utc(now or datetime.now(UTC))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / MANIFEST).unlink(missing_ok=True)

    ca_not_before = now - timedelta(days=90)  # before every leaf, the expired one too
    (root_key, domain_key, tsp_key, other_domain_key, other_tsp_key, foreign_key,
     *client_keys) = _new_keys(6 + len(KEY_NAMES))
    root = _ca(ROOT_CN, STATE_ORG, root_key, None, None, ca_not_before, now + timedelta(days=3650))
    domain_ca = _ca(DOMAIN_CA_CN, STATE_ORG, domain_key, root, root_key, ca_not_before,
                    now + timedelta(days=2920), path_length=1, policy=PRIVATE_SERVICES_POLICY)
    tsp_ca = _ca(TSP_CA_CN, "Test TSP B.V.", tsp_key, domain_ca, domain_key, ca_not_before,
                 now + timedelta(days=1825), path_length=0, policy=PRIVATE_SERVICES_POLICY)
    other_domain_ca = _ca(OTHER_DOMAIN_CA_CN, STATE_ORG, other_domain_key, root, root_key, ca_not_before,
                          now + timedelta(days=2920), path_length=1, policy=PRIVATE_PERSONS_POLICY)
    other_tsp_ca = _ca(OTHER_TSP_CA_CN, "Test TSP B.V.", other_tsp_key, other_domain_ca, other_domain_key,
                       ca_not_before, now + timedelta(days=1825), path_length=0, policy=PRIVATE_PERSONS_POLICY)
    foreign_root = _ca(FOREIGN_ROOT_CN, "Foreign Test Organisation", foreign_key, None, None,
                       ca_not_before, now + timedelta(days=3650))
    # issuer -> (certificate, key, the policy its leaves assert, its CRL's URL or None)
    issuers = {
        "tsp": (tsp_ca, tsp_key, PRIVATE_SERVICES_POLICY, f"{crl_base}/{CRL_FILES['tsp_ca']}"),
        "other_tsp": (other_tsp_ca, other_tsp_key, PRIVATE_PERSONS_POLICY, f"{crl_base}/{CRL_FILES['other_tsp_ca']}"),
        # only the root differs from the good leaves: the policy they assert too, no CRL of its own
        "foreign": (foreign_root, foreign_key, PRIVATE_SERVICES_POLICY, None),
    }

    keys = dict(zip(KEY_NAMES, client_keys, strict=True))
    certificates = {}
    for name, spec in _leaves(oin).items():
        issuer, issuer_key, policy, crl_url = issuers[spec.issuer]
        if spec.validity == "expired":
            not_before, not_after = now - timedelta(days=60), now - timedelta(days=1)
        elif spec.validity == "future":
            not_before, not_after = now + NOT_YET_VALID_IN, now + NOT_YET_VALID_IN + LEAF_LIFETIME
        else:
            not_before, not_after = now - timedelta(hours=1), now + LEAF_LIFETIME
        certificates[name] = _leaf(name, spec, keys[name].public_key(), issuer, issuer_key, not_before, not_after,
                                   policy=policy, crl_url=crl_url)
    crl_next_update = now + LEAF_LIFETIME  # as long as a good leaf lives: the keys that sign CRLs are not kept
    crls = {
        "tsp_ca": _crl(tsp_ca, tsp_key, [certificates[name] for name in REVOKED], now, crl_next_update),
        "other_tsp_ca": _crl(other_tsp_ca, other_tsp_key, [], now, crl_next_update),
    }

    cas = {"root": root, "domain_ca": domain_ca, "tsp_ca": tsp_ca, "other_domain_ca": other_domain_ca,
           "other_tsp_ca": other_tsp_ca, "foreign_root": foreign_root}
    for name, cert in cas.items():
        _write(out_dir / CA_FILES[name], _pem(cert))
    for ca, crl in crls.items():
        _write(out_dir / CRL_FILES[ca], crl.public_bytes(serialization.Encoding.DER))
    for name, key in keys.items():
        _write(out_dir / f"{name}.key.pem", _private_pem(key), private=True)
    for name, cert in certificates.items():
        _write(out_dir / f"{name}.pem", _pem(cert))

    pki = TestPki(out_dir, oin, root, [tsp_ca, domain_ca], foreign_root, keys, certificates,
                  [other_tsp_ca, other_domain_ca], crls, crl_base)
    _write(out_dir / JWKS_FILE, _json_bytes(pki.jwks_documents()["good"]))
    manifest = {
        "format": FORMAT_VERSION,
        "created": now.isoformat(),
        "oin": oin,
        "ca": CA_FILES,
        "crl": {"base": crl_base, "files": CRL_FILES},
        "keys": {
            name: {"private_key": f"{name}.key.pem", "certificate": f"{name}.pem" if name in certificates else None,
                   "kid": pki.kid(name)}
            for name in KEY_NAMES
        },
        "jwks": JWKS_FILE,
    }
    _write(out_dir / MANIFEST, _json_bytes(manifest))
    return load_test_pki(out_dir)


def _new_keys(count: int) -> list[RSAPrivateKey]:
    # Key generation is most of the cost of init; OpenSSL runs it outside the GIL.
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        return list(pool.map(lambda _: rsa.generate_private_key(public_exponent=65537, key_size=KEY_SIZE),
                             range(count)))


_OIN_FIELDS = {"serialNumber": NameOID.SERIAL_NUMBER, "organizationIdentifier": NameOID.ORGANIZATION_IDENTIFIER}


def _name(common_name: str, org: str, oin: str | None = None, oin_field: str = "serialNumber") -> x509.Name:
    attributes = [
        x509.NameAttribute(NameOID.COUNTRY_NAME, "NL"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, org),
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
    ]
    if oin is not None:
        attributes.append(x509.NameAttribute(_OIN_FIELDS[oin_field], oin))
    return x509.Name(attributes)


def _builder(subject: x509.Name, issuer: x509.Name, public_key: RSAPublicKey, issuer_public_key: RSAPublicKey,
             not_before: datetime, not_after: datetime) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_public_key), critical=False)
    )


def _policies(policy: str) -> x509.CertificatePolicies:
    return x509.CertificatePolicies([x509.PolicyInformation(x509.ObjectIdentifier(policy), None)])


def _ca(common_name: str, org: str, key: RSAPrivateKey, issuer: x509.Certificate | None,
        issuer_key: RSAPrivateKey | None, not_before: datetime, not_after: datetime, *,
        path_length: int | None = None, policy: str | None = None) -> x509.Certificate:
    """A CA certificate; a domain or TSP CA asserts its domain's `policy` (a root none)."""
    subject = _name(common_name, org)
    signer = issuer_key or key  # None: self-signed
    builder = _builder(subject, issuer.subject if issuer else subject, key.public_key(), signer.public_key(),
                       not_before, not_after)
    builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=path_length), critical=True)
    builder = builder.add_extension(_key_usage(cert_sign=True), critical=True)
    if policy is not None:
        builder = builder.add_extension(_policies(policy), critical=False)
    return builder.sign(signer, hashes.SHA256())


def _leaf(name: str, spec: _Leaf, public_key: RSAPublicKey, issuer: x509.Certificate, issuer_key: RSAPrivateKey,
          not_before: datetime, not_after: datetime, *, policy: str, crl_url: str | None) -> x509.Certificate:
    dns = f"{name.replace('_', '-')}.inquiry-client.test"
    subject = _name(f"Inquiry client test ({name})", spec.org, spec.oin, spec.oin_field)
    builder = _builder(subject, issuer.subject, public_key, issuer_key.public_key(), not_before, not_after)
    builder = builder.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    builder = builder.add_extension(_key_usage(cert_sign=False), critical=True)
    builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(dns)]), critical=False)
    builder = builder.add_extension(_policies(policy), critical=False)
    if crl_url is not None:
        point = x509.DistributionPoint([x509.UniformResourceIdentifier(crl_url)], None, None, None)
        builder = builder.add_extension(x509.CRLDistributionPoints([point]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _crl(issuer: x509.Certificate, issuer_key: RSAPrivateKey, revoked: list[x509.Certificate],
         now: datetime, next_update: datetime) -> x509.CertificateRevocationList:
    builder = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(issuer.subject)
        .last_update(now - timedelta(hours=1))
        .next_update(next_update)
        .add_extension(x509.CRLNumber(1), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    )
    for cert in revoked:
        entry = (x509.RevokedCertificateBuilder().serial_number(cert.serial_number)
                 .revocation_date(now - timedelta(minutes=30))
                 .add_extension(x509.CRLReason(x509.ReasonFlags.key_compromise), critical=False).build())
        builder = builder.add_revoked_certificate(entry)
    return builder.sign(issuer_key, hashes.SHA256())


def _key_usage(*, cert_sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not cert_sign, content_commitment=False, key_encipherment=False,
        data_encipherment=False, key_agreement=False, key_cert_sign=cert_sign, crl_sign=cert_sign,
        encipher_only=False, decipher_only=False,
    )


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _private_pem(key: RSAPrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2) + "\n").encode("utf-8")


def _write(path: Path, data: bytes, *, private: bool = False) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    if private:
        os.chmod(tmp, 0o600)  # os.open's mode only applies when it creates the file
    os.replace(tmp, path)


# --------------------------------------------------------------------------- loading
def load_test_pki(directory: Path) -> TestPki:
    """Read a PKI written by `init_test_pki`; ConfigError names the file that is wrong."""
    directory = Path(directory)
    manifest = _read_manifest(directory / MANIFEST)
    try:
        oin = manifest["oin"]
        ca_files = manifest["ca"]
        key_entries = manifest["keys"]
        crl_base = manifest["crl"]["base"]
        crl_files = manifest["crl"]["files"]
        ca = {name: _load_cert(directory / ca_files[name]) for name in CA_FILES}
        crls = {name: _load_crl(directory / crl_files[name]) for name in CRL_FILES}
        keys = {name: _load_key(directory / key_entries[name]["private_key"]) for name in KEY_NAMES}
        certificates = {name: _load_cert(directory / key_entries[name]["certificate"]) for name in LEAF_NAMES}
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"{directory / MANIFEST} is incomplete (missing {exc}); run `conformance pki init` again") from None
    if not isinstance(oin, str) or not OIN_PATTERN.fullmatch(oin):
        raise ConfigError(f"{directory / MANIFEST}: the OIN {oin!r} is not 20 digits")
    if not isinstance(crl_base, str) or not crl_base.startswith(("http://", "https://")):
        raise ConfigError(f"{directory / MANIFEST}: the CRL base {crl_base!r} is not an http(s) URL")
    for name, cert in certificates.items():
        if cert.public_key() != keys[name].public_key():
            raise ConfigError(f"{directory / f'{name}.pem'} does not certify the key in {name}.key.pem")
    for name, crl in crls.items():
        if crl.issuer != ca[name].subject or not crl.is_signature_valid(ca[name].public_key()):
            raise ConfigError(f"{directory / crl_files[name]} is not a CRL signed by {ca_files[name]}")
    return TestPki(directory, oin, ca["root"], [ca["tsp_ca"], ca["domain_ca"]], ca["foreign_root"], keys, certificates,
                   [ca["other_tsp_ca"], ca["other_domain_ca"]], crls, crl_base)


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no test PKI: {path} is missing (run `conformance pki init --out {path.parent}`)") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the test PKI manifest {path}: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_VERSION:
        raise ConfigError(f"{path} is not a test PKI manifest of format {FORMAT_VERSION}; run `conformance pki init` again")
    return manifest


def _load_cert(path: Path) -> x509.Certificate:
    try:
        return x509.load_pem_x509_certificate(path.read_bytes())
    except FileNotFoundError:
        raise ConfigError(f"test PKI certificate missing: {path}") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the test PKI certificate {path}: {exc}") from None


def _load_crl(path: Path) -> x509.CertificateRevocationList:
    try:
        return x509.load_der_x509_crl(path.read_bytes())
    except FileNotFoundError:
        raise ConfigError(f"test PKI CRL missing: {path}") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the test PKI CRL {path}: {exc}") from None


def _load_key(path: Path) -> RSAPrivateKey:
    try:
        # The full RSA consistency check costs ~50 ms a key on every load; these are our own
        # files, and load_test_pki compares each key with its certificate.
        key = serialization.load_pem_private_key(path.read_bytes(), password=None,
                                                 unsafe_skip_rsa_key_validation=True)
    except FileNotFoundError:
        raise ConfigError(f"test PKI private key missing: {path}") from None
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigError(f"cannot read the test PKI private key {path}: {type(exc).__name__}") from None
    if not isinstance(key, RSAPrivateKey):
        raise ConfigError(f"{path} is not an RSA private key")
    return key


def ensure_test_pki(directory: Path, *, min_remaining: timedelta = MIN_REMAINING) -> TestPki:
    """The PKI in `directory` when it loads, its certificates (all but the deliberately
    expired and not yet valid ones) and CRLs stay valid for `min_remaining`, and the not yet
    valid one stays so as long; otherwise a fresh one (with the same OIN and CRL base)."""
    directory = Path(directory)
    try:
        pki = load_test_pki(directory)
    except ConfigError:
        return init_test_pki(directory)
    now = datetime.now(UTC)
    certs = [pki.root, *pki.intermediates, *pki.other_intermediates, pki.foreign_root,
             *(cert for name, cert in pki.certificates.items() if name not in ("expired", "not_yet_valid"))]
    current = all(c.not_valid_before_utc <= now and c.not_valid_after_utc >= now + min_remaining for c in certs)
    future = pki.certificates["not_yet_valid"].not_valid_before_utc >= now + min_remaining
    crls = all(crl.next_update_utc is not None and crl.next_update_utc >= now + min_remaining
               for crl in pki.crls.values())
    if current and future and crls:
        return pki
    return init_test_pki(directory, oin=pki.oin, crl_base=pki.crl_base)
