"""PKCE (RFC 7636): code verifiers and their S256 challenges.

The seed requires S256 and a verifier of 43 to 128 characters of `A-Z a-z 0-9 - . _ ~`.
The harness generates verifiers for the positive flows and judges the syntax of the ones
it sends on purpose; the mock uses the same predicates to refuse bad ones.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import string

VERIFIER_CHARS = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-._~"
MIN_LENGTH = 43
MAX_LENGTH = 128

_VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
# SHA-256 is 32 octets: base64url without padding is always 43 characters.
_S256_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")


def generate_verifier(length: int = 64) -> str:
    """A random verifier of `length` characters; 64 characters carry about 384 bits."""
    if isinstance(length, bool) or not isinstance(length, int):
        raise TypeError(f"length must be an int, not {type(length).__name__}")
    if not MIN_LENGTH <= length <= MAX_LENGTH:
        raise ValueError(f"a code_verifier has {MIN_LENGTH} to {MAX_LENGTH} characters, not {length}")
    return "".join(secrets.choice(VERIFIER_CHARS) for _ in range(length))


def s256(verifier: str) -> str:
    """code_challenge = BASE64URL(SHA256(ASCII(code_verifier))), without padding."""
    # UTF-8 equals ASCII for every valid verifier; it keeps a server that hashes a
    # deliberately invalid (non-ASCII) verifier from crashing instead of refusing it.
    digest = hashlib.sha256(verifier.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def is_valid_verifier(v: str) -> bool:
    return isinstance(v, str) and _VERIFIER.fullmatch(v) is not None


def is_valid_s256_challenge(c: str) -> bool:
    return isinstance(c, str) and _S256_CHALLENGE.fullmatch(c) is not None
