"""The test PKI for the client-credentials flow: a small imitation of the PKIoverheid
Private Services branch, made with `cryptography` alone.

Seed 001 part 4 makes the server check that the assertion's key comes with an `x5c` chain
up to the Private Services root, that the leaf carries an OIN as subject `serialNumber`,
and that this OIN is registered at exactly one customer. The mock trusts this PKI's root;
the harness signs with its keys. Besides the two good client keys (`current` and `next`,
for key rotation) it holds one piece of bad material per refusal the seed demands, each
under its own key, so every JWKS document has its own kid and a server cannot pass a
negative case by recognising a key it saw elsewhere.

    root "Test Staat der Nederlanden Private Root CA - G1"   (self-signed)
      domain CA "... Private Services CA - G1"               (pathLen 1)
        TSP CA "Test TSP PKIoverheid Private Services CA - G1" (pathLen 0)
          leaves: current, next, expired, no_oin, unregistered_oin, twice_oin
    foreign root (trusted by nobody)
      leaf: untrusted

Nothing here is a secret worth protecting, but private keys are still written with mode
0600: the files look like real key material and are treated as such. The CA keys are not
written at all; `ensure_test_pki` rebuilds the whole PKI instead of issuing more.
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
FOREIGN_ROOT_CN = "Foreign Test Root CA - trusted by nobody"
STATE_ORG = "Test Staat der Nederlanden"

MANIFEST = "manifest.json"
JWKS_FILE = "jwks.json"  # the good JWKS: what a client would register
FORMAT_VERSION = 1
KEY_SIZE = 2048
LEAF_LIFETIME = timedelta(days=365)
# The mock clock runs ahead of real time (refresh tokens live 7 days), so a reused PKI
# must stay valid well beyond the one day the contract names.
MIN_REMAINING = timedelta(days=30)


@dataclass(frozen=True)
class _Leaf:
    org: str
    oin: str | None
    issuer: str  # "tsp" or "foreign"
    expired: bool = False


def _leaves(oin: str) -> dict[str, _Leaf]:
    client_org = "Notariskantoor Test B.V."
    return {
        "current": _Leaf(client_org, oin, "tsp"),
        "next": _Leaf(client_org, oin, "tsp"),
        "untrusted": _Leaf(client_org, oin, "foreign"),
        "expired": _Leaf(client_org, oin, "tsp", expired=True),
        "no_oin": _Leaf(client_org, None, "tsp"),
        "unregistered_oin": _Leaf("Onbekende Organisatie Test", OIN_UNREGISTERED, "tsp"),
        "twice_oin": _Leaf("Gemeente Test", OIN_TWICE, "tsp"),
    }


LEAF_NAMES = ("current", "next", "untrusted", "expired", "no_oin", "unregistered_oin", "twice_oin")
# A key without a certificate of its own: its JWK carries the `current` certificate.
KEY_NAMES = (*LEAF_NAMES, "mismatch")
CA_FILES = {"root": "root.pem", "domain_ca": "domain-ca.pem", "tsp_ca": "tsp-ca.pem",
            "foreign_root": "foreign-root.pem"}

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
}
# Signing material names that are not a document of their own, or sign with another key.
_SIGNING_ALIASES = {"good": "current", "current_only": "current", "no_x5c": "current",
                    "current": "current", "next": "next"}


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

    def kid(self, key_name: str) -> str:
        return rfc7517.kid_for(self.keys[key_name].public_key())

    def chain(self, name: str) -> list[x509.Certificate]:
        """The x5c chain of a leaf: leaf first, each next certifying the previous, no root
        of the trusted hierarchy (a server ignores it); the foreign root is included, since
        sending one's own root is exactly what an untrusted client does."""
        leaf = self.certificates[name]
        if name == "untrusted":
            return [leaf, self.foreign_root]
        return [leaf, *self.intermediates]

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
            "trust_anchor": {**_cert_facts(self.root), "file": str(self.path(CA_FILES["root"]))},
            "intermediates": [
                {**_cert_facts(cert), "file": str(self.path(CA_FILES[name]))}
                for name, cert in zip(("tsp_ca", "domain_ca"), self.intermediates, strict=True)
            ],
            "keys": keys,
            "jwks": {"file": str(self.path(JWKS_FILE)), "documents": list(DOCUMENTS)},
        }


def _cert_facts(cert: x509.Certificate) -> dict[str, Any]:
    return {
        "subject": cert.subject.rfc4514_string(),
        "issuer": cert.issuer.rfc4514_string(),
        "oin": subject_oin(cert),
        "not_before": cert.not_valid_before_utc.isoformat(),
        "not_after": cert.not_valid_after_utc.isoformat(),
    }


def subject_oin(cert: x509.Certificate) -> str | None:
    """The subject `serialNumber` (OID 2.5.4.5), where PKIoverheid puts the OIN."""
    values = cert.subject.get_attributes_for_oid(NameOID.SERIAL_NUMBER)
    return str(values[0].value) if values else None


# --------------------------------------------------------------------------- building
def init_test_pki(out_dir: Path, *, oin: str = OIN_REGISTERED, now: datetime | None = None) -> TestPki:
    """Make a fresh PKI in `out_dir` (created if needed) and return it as loaded from disk.

    `oin` goes into the good leaves (and the expired and untrusted ones, so that only the
    one fault differs). Files of an earlier PKI are overwritten; the manifest is removed
    first and written last, so a half-written directory never loads.
    """
    if not OIN_PATTERN.fullmatch(oin):
        raise ValueError(f"an OIN has exactly 20 digits, not {oin!r}")
    if oin in (OIN_UNREGISTERED, OIN_TWICE):
        raise ValueError(f"OIN {oin} is reserved for the bad material of the test PKI")
    now = _utc(now or datetime.now(UTC))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / MANIFEST).unlink(missing_ok=True)

    ca_not_before = now - timedelta(days=90)  # before every leaf, the expired one too
    root_key, domain_key, tsp_key, foreign_key, *client_keys = _new_keys(4 + len(KEY_NAMES))
    root = _ca(ROOT_CN, STATE_ORG, root_key, None, None, ca_not_before, now + timedelta(days=3650))
    domain_ca = _ca(DOMAIN_CA_CN, STATE_ORG, domain_key, root, root_key, ca_not_before,
                    now + timedelta(days=2920), path_length=1)
    tsp_ca = _ca(TSP_CA_CN, "Test TSP B.V.", tsp_key, domain_ca, domain_key, ca_not_before,
                 now + timedelta(days=1825), path_length=0)
    foreign_root = _ca(FOREIGN_ROOT_CN, "Foreign Test Organisation", foreign_key, None, None,
                       ca_not_before, now + timedelta(days=3650))
    issuers = {"tsp": (tsp_ca, tsp_key), "foreign": (foreign_root, foreign_key)}

    keys = dict(zip(KEY_NAMES, client_keys, strict=True))
    certificates = {}
    for name, spec in _leaves(oin).items():
        issuer, issuer_key = issuers[spec.issuer]
        if spec.expired:
            not_before, not_after = now - timedelta(days=60), now - timedelta(days=1)
        else:
            not_before, not_after = now - timedelta(hours=1), now + LEAF_LIFETIME
        certificates[name] = _leaf(name, spec, keys[name].public_key(), issuer, issuer_key, not_before, not_after)

    for name, cert in (("root", root), ("domain_ca", domain_ca), ("tsp_ca", tsp_ca), ("foreign_root", foreign_root)):
        _write(out_dir / CA_FILES[name], _pem(cert))
    for name, key in keys.items():
        _write(out_dir / f"{name}.key.pem", _private_pem(key), private=True)
    for name, cert in certificates.items():
        _write(out_dir / f"{name}.pem", _pem(cert))

    pki = TestPki(out_dir, oin, root, [tsp_ca, domain_ca], foreign_root, keys, certificates)
    _write(out_dir / JWKS_FILE, _json_bytes(pki.jwks_documents()["good"]))
    manifest = {
        "format": FORMAT_VERSION,
        "created": now.isoformat(),
        "oin": oin,
        "ca": CA_FILES,
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


def _name(common_name: str, org: str, oin: str | None = None) -> x509.Name:
    attributes = [
        x509.NameAttribute(NameOID.COUNTRY_NAME, "NL"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, org),
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
    ]
    if oin is not None:
        attributes.append(x509.NameAttribute(NameOID.SERIAL_NUMBER, oin))
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


def _ca(common_name: str, org: str, key: RSAPrivateKey, issuer: x509.Certificate | None,
        issuer_key: RSAPrivateKey | None, not_before: datetime, not_after: datetime, *,
        path_length: int | None = None) -> x509.Certificate:
    subject = _name(common_name, org)
    signer = issuer_key or key  # None: self-signed
    builder = _builder(subject, issuer.subject if issuer else subject, key.public_key(), signer.public_key(),
                       not_before, not_after)
    builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=path_length), critical=True)
    builder = builder.add_extension(_key_usage(cert_sign=True), critical=True)
    return builder.sign(signer, hashes.SHA256())


def _leaf(name: str, spec: _Leaf, public_key: RSAPublicKey, issuer: x509.Certificate, issuer_key: RSAPrivateKey,
          not_before: datetime, not_after: datetime) -> x509.Certificate:
    dns = f"{name.replace('_', '-')}.inquiry-client.test"
    subject = _name(f"Inquiry client test ({name})", spec.org, spec.oin)
    builder = _builder(subject, issuer.subject, public_key, issuer_key.public_key(), not_before, not_after)
    builder = builder.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    builder = builder.add_extension(_key_usage(cert_sign=False), critical=True)
    builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(dns)]), critical=False)
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
        ca = {name: _load_cert(directory / ca_files[name]) for name in CA_FILES}
        keys = {name: _load_key(directory / key_entries[name]["private_key"]) for name in KEY_NAMES}
        certificates = {name: _load_cert(directory / key_entries[name]["certificate"]) for name in LEAF_NAMES}
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"{directory / MANIFEST} is incomplete (missing {exc}); run `conformance pki init` again") from None
    if not isinstance(oin, str) or not OIN_PATTERN.fullmatch(oin):
        raise ConfigError(f"{directory / MANIFEST}: the OIN {oin!r} is not 20 digits")
    for name, cert in certificates.items():
        if cert.public_key() != keys[name].public_key():
            raise ConfigError(f"{directory / f'{name}.pem'} does not certify the key in {name}.key.pem")
    return TestPki(directory, oin, ca["root"], [ca["tsp_ca"], ca["domain_ca"]], ca["foreign_root"], keys, certificates)


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
    """The PKI in `directory` when it loads and its certificates (all but the deliberately
    expired one) stay valid for `min_remaining`; otherwise a fresh one."""
    directory = Path(directory)
    try:
        pki = load_test_pki(directory)
    except ConfigError:
        return init_test_pki(directory)
    now = datetime.now(UTC)
    certs = [pki.root, *pki.intermediates, pki.foreign_root,
             *(cert for name, cert in pki.certificates.items() if name != "expired")]
    if all(c.not_valid_before_utc <= now and c.not_valid_after_utc >= now + min_remaining for c in certs):
        return pki
    return init_test_pki(directory, oin=pki.oin)
