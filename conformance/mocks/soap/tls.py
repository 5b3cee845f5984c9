"""Test certificates for the SOAP mock's TLS mode (client-certificate authentication).

`ensure_test_tls(directory)` writes, once, a small private CA, a server certificate for
127.0.0.1/localhost and a client certificate, all signed by that CA, as PEM files:

    ca.pem                       trusted by the harness (verify) and by the mock (client certs)
    server.pem, server-key.pem   the mock's TLS identity
    client.pem, client-key.pem   what the harness presents

They exist only for the loopback mock (under .cache/, git-ignored) and are remade when a
file is missing or a certificate is about to expire. Keys are EC P-256: quick to make.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from conformance.paths import cache_dir

DEFAULT_DIR = cache_dir() / "soap-tls"
_VALIDITY = dt.timedelta(days=30)
_RENEW_BEFORE = dt.timedelta(days=2)


@dataclass(frozen=True)
class MockTls:
    ca_file: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def tls_files(directory: Path) -> MockTls:
    return MockTls(
        ca_file=directory / "ca.pem",
        server_cert=directory / "server.pem",
        server_key=directory / "server-key.pem",
        client_cert=directory / "client.pem",
        client_key=directory / "client-key.pem",
    )


def ensure_test_tls(directory: Path = DEFAULT_DIR) -> MockTls:
    files = tls_files(directory)
    if _usable(files):
        return files
    directory.mkdir(parents=True, exist_ok=True)
    # One maker at a time (parallel runs): the five files must belong together.
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _usable(files):
            _make(files)
    return files


def _make(files: MockTls) -> None:
    now = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "conformance SOAP mock test CA")])
    ca_cert = (
        _builder(ca_name, ca_name, ca_key.public_key(), now)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                          encipher_only=False, decipher_only=False),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = (
        _builder(_cn("127.0.0.1"), ca_name, server_key.public_key(), now)
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    client_key = ec.generate_private_key(ec.SECP256R1())
    client_cert = (
        _builder(_cn("conformance harness (network operator)"), ca_name, client_key.public_key(), now)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    _write(files.ca_file, ca_cert.public_bytes(serialization.Encoding.PEM))
    _write(files.server_cert, server_cert.public_bytes(serialization.Encoding.PEM))
    _write(files.server_key, _key_pem(server_key), private=True)
    _write(files.client_cert, client_cert.public_bytes(serialization.Encoding.PEM))
    _write(files.client_key, _key_pem(client_key), private=True)


def _usable(files: MockTls) -> bool:
    paths = (files.ca_file, files.server_cert, files.server_key, files.client_cert, files.client_key)
    if not all(p.is_file() for p in paths):
        return False
    try:
        for cert_path in (files.ca_file, files.server_cert, files.client_cert):
            cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
            if cert.not_valid_after_utc - _RENEW_BEFORE < dt.datetime.now(dt.UTC):
                return False
    except ValueError:
        return False
    return True


def _cn(name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])


def _builder(subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey,
             now: dt.datetime) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + _VALIDITY)
    )


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _write(path: Path, data: bytes, *, private: bool = False) -> None:
    # Written next to the target and renamed: parallel starts never see half a file.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    if private:
        tmp.chmod(0o600)
    tmp.replace(path)
