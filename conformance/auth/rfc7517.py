"""JSON Web Keys (RFC 7517, RSA members from RFC 7518 section 6.3) and key ids (RFC 7638).

The seed's client publishes a JWKS whose keys carry `alg`, `kty`, `kid`, `n`, `e` and
`x5c`, so the server can check the certificate chain and the OIN in the leaf. Two
encodings meet here and are easy to mix up: `n`, `e` and the thumbprint are base64url
without padding, while `x5c` entries are STANDARD base64 with padding (RFC 7517 4.7).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey, RSAPublicNumbers
from cryptography.hazmat.primitives.serialization import Encoding


def b64url_uint(value: int) -> str:
    """An unsigned big-endian integer in the fewest octets, base64url without padding."""
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def uint_from_b64url(text: str) -> int:
    padded = text + "=" * (-len(text) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise ValueError(f"not base64url: {text[:20]!r}") from exc
    return int.from_bytes(raw, "big")


def kid_for(public_key: RSAPublicKey) -> str:
    """The RFC 7638 thumbprint: SHA-256 of the required members in lexical order, no spaces."""
    numbers = public_key.public_numbers()
    canonical = json.dumps(
        {"e": b64url_uint(numbers.e), "kty": "RSA", "n": b64url_uint(numbers.n)},
        separators=(",", ":"),
        sort_keys=True,
    )
    digest = hashlib.sha256(canonical.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def x5c_entry(certificate: x509.Certificate) -> str:
    return base64.b64encode(certificate.public_bytes(Encoding.DER)).decode("ascii")


def jwk_from_public_key(
    public_key: RSAPublicKey, kid: str, chain: list[x509.Certificate] | None
) -> dict[str, Any]:
    """A signing JWK; `chain` (leaf first, each next certifying the previous) becomes `x5c`.

    The leaf's key is not compared with `public_key`: the test PKI builds a mismatching
    JWK on purpose.
    """
    numbers = public_key.public_numbers()
    jwk: dict[str, Any] = {
        "alg": "RS256",
        "kty": "RSA",
        "use": "sig",
        "kid": kid,
        "n": b64url_uint(numbers.n),
        "e": b64url_uint(numbers.e),
    }
    if chain is not None:
        jwk["x5c"] = [x5c_entry(c) for c in chain]
    return jwk


def jwks(keys: list[dict[str, Any]]) -> dict[str, Any]:
    return {"keys": list(keys)}


def public_key_from_jwk(jwk: dict[str, Any]) -> RSAPublicKey:
    if jwk.get("kty") != "RSA":
        raise ValueError(f"not an RSA JWK (kty {jwk.get('kty')!r})")
    n, e = jwk.get("n"), jwk.get("e")
    if not isinstance(n, str) or not isinstance(e, str):
        raise ValueError("an RSA JWK needs the string members n and e")
    return RSAPublicNumbers(uint_from_b64url(e), uint_from_b64url(n)).public_key()


def chain_from_jwk(jwk: dict[str, Any]) -> list[x509.Certificate]:
    """The `x5c` certificates, leaf first; an empty list when the JWK has no `x5c`."""
    entries = jwk.get("x5c")
    if entries is None:
        return []
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise ValueError("x5c must be an array of strings")
    chain = []
    for index, entry in enumerate(entries):
        try:
            # validate=True refuses the base64url alphabet, a frequent publishing bug.
            der = base64.b64decode(entry.encode("ascii"), validate=True)
            chain.append(x509.load_der_x509_certificate(der))
        except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
            raise ValueError(f"x5c[{index}] is not a standard-base64 DER certificate: {exc}") from exc
    return chain
