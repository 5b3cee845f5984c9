"""Client-assertion validation (seed part 4 "Authentication checks"; RFC 7523 3, RFC 7515).

The JWS header is parsed here before anything is verified, so `alg: none` and HS256 are
recognised (and refused, unless their fault is on) instead of being left to a library.
Then: the key by `kid` from the client's JWKS, the signature, the certificate chain in
`x5c` up to a trust root at the mock clock's time, inside the Private Services branch and
not revoked, the OIN in the leaf, the claims, and last the replay store, so a refused
assertion never uses up its `jti`.
Any failure raises AssertionRefused; the token endpoint answers 401 `invalid_client`.

The faults of the certificate checks added with issue 42 are declared here, beside what
they change (CONTRIBUTING.md); the older ones are in faults.py.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import json
import re
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from cryptography.x509.oid import NameOID

from conformance.auth import rfc7517
from conformance.mocks.auth.certificates import (
    branch_problem,
    chains_to,
    not_expired_at,
    revocation_problem,
    same_key,
    valid_at,
    verify_chain,
)
from conformance.mocks.auth.config import AuthMockConfig, ClientRegistration
from conformance.mocks.auth.forms import finite_number
from conformance.mocks.auth.jwks import JwksCache, JwksError
from conformance.mocks.faults import Fault, FaultSet, fault, variant

# Issue 51: the seed gives the form the client sends; RFC 7523 lets the server take its token
# endpoint's URL as its identity too.
AUD_TOKEN_ENDPOINT_URL = variant(
    "auth.variant.aud_token_endpoint_url",
    "besides the seed's form, aud as the token endpoint's URL is accepted: https://{auth_host}:443/auth/oauth/v2/token "
    "and https://{auth_host}/auth/oauth/v2/token",
    allowed_by="RFC 7523 3: 'the token endpoint URL of the authorization server MAY be used as a value for an \"aud\" "
               "element to identify the authorization server as an intended audience of the JWT'")
NOT_BEFORE_NOT_CHECKED = fault(
    "auth.assertion_not_before_not_checked",
    "only notAfter of the x5c certificates is judged (the chain still is): a certificate not yet valid is accepted", shows="certificate")
REVOCATION_NOT_CHECKED = fault(
    "auth.assertion_revocation_not_checked", "the CRLs are not consulted: a revoked certificate is accepted", shows="revoked certificate")
BRANCH_NOT_CHECKED = fault(
    "auth.assertion_branch_not_checked",
    "any chain to the trusted root is accepted: a certificate of another domain of that root (another certificate "
    "policy) passes", shows="trusted root")
OIN_FROM_ORGANIZATION_IDENTIFIER = fault(
    "auth.assertion_oin_from_organization_identifier",
    "the OIN is read from the subject's organizationIdentifier when it has no serialNumber (and then looked up)", shows="organizationIdentifier")
ONE_OIN_PER_CLIENT = fault(
    "auth.assertion_one_oin_per_client",
    "a client is bound to one end customer, the OIN of the first certificate of its JWKS: the certificate of a "
    "second end customer (another registered OIN) is refused", shows="end customer")

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
MAX_ASSERTION_CHARS = 16 * 1024
NBF_LEEWAY_S = 30
REPLAY_MARGIN_S = 60
# Only under the fault auth.assertion_replay_race: long enough for requests released together
# to meet in it, short because every accepted assertion of such a run waits it out.
REPLAY_STORE_LATENCY_S = 0.25
_SEGMENT = re.compile(r"[A-Za-z0-9_-]*")
_OIN = re.compile(r"[0-9]{20}")
_AUDIENCE = re.compile(r"(?P<host>[^/]+?):443(?P<path>/.*)")


class AssertionRefused(Exception):
    """The assertion does not authenticate the client; the message names why (no secrets)."""


@dataclass(frozen=True)
class _Jws:
    header: dict[str, Any]
    claims: dict[str, Any]
    signing_input: bytes
    signature: bytes


def parse_jws(token: str) -> _Jws:
    if len(token) > MAX_ASSERTION_CHARS:
        raise AssertionRefused("the assertion is too long")
    segments = token.split(".")
    if len(segments) != 3 or not all(_SEGMENT.fullmatch(s) for s in segments):
        raise AssertionRefused("the assertion is not a JWS in compact serialization")
    header, claims = (_json_object(s) for s in segments[:2])
    signing_input = f"{segments[0]}.{segments[1]}".encode("ascii")
    return _Jws(header, claims, signing_input, _b64url(segments[2]))


def _b64url(segment: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    except (binascii.Error, ValueError):
        raise AssertionRefused("the assertion has a segment that is not base64url") from None


def _json_object(segment: str) -> dict[str, Any]:
    try:
        value = json.loads(_b64url(segment))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise AssertionRefused("the assertion has a segment that is not JSON") from None
    if not isinstance(value, dict):
        raise AssertionRefused("the assertion has a segment that is not a JSON object")
    return value


# RSA algorithms other than RS256: verified only under auth.assertion_alg_any_rsa (the
# verifier that takes any RSA algorithm the header names for the RS256 key).
_RSA_ALGORITHMS = {
    "RS256": (padding.PKCS1v15, hashes.SHA256), "RS384": (padding.PKCS1v15, hashes.SHA384),
    "RS512": (padding.PKCS1v15, hashes.SHA512), "PS256": (None, hashes.SHA256),
    "PS384": (None, hashes.SHA384), "PS512": (None, hashes.SHA512),
}


def signature_ok(alg: str, key: RSAPublicKey, jws: _Jws) -> bool:
    if alg in _RSA_ALGORITHMS:
        pad, digest = _RSA_ALGORITHMS[alg]
        scheme = pad() if pad else padding.PSS(padding.MGF1(digest()), digest().digest_size)
        try:
            key.verify(jws.signature, jws.signing_input, scheme, digest())
            return True
        except (InvalidSignature, ValueError):
            return False
    if alg == "HS256":  # only under auth.assertion_hs256_public_key_accepted: the confused verifier
        secret = key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
        expected = hmac.new(secret, jws.signing_input, hashlib.sha256).digest()
        return hmac.compare_digest(expected, jws.signature)
    return alg == "none" and jws.signature == b""  # only under auth.assertion_alg_none_accepted


class AssertionValidator:
    def __init__(self, config: AuthMockConfig, faults: FaultSet) -> None:
        self.config = config
        self.faults = faults
        self.jwks = JwksCache(config.clock.now)
        self._seen: dict[tuple[str, str], float] = {}  # (iss, jti) -> forget after
        self._lock = threading.Lock()

    def _on(self, entry: Fault) -> bool:
        return self.faults.on(entry.name)

    async def validate(self, assertion: str, client_id: str | None = None) -> ClientRegistration:
        jws = parse_jws(assertion)
        if "crit" in jws.header:
            raise AssertionRefused("the assertion names critical header parameters")
        alg = self._algorithm(jws.header.get("alg"))
        self._type(jws.header.get("typ"))
        client = self._client(jws.claims)
        if client_id is not None and client_id != client.client_id and \
                not self.faults.on("auth.assertion_client_id_not_compared"):
            raise AssertionRefused("client_id names another client than the assertion")
        jwk, key = await self._key(client, jws, alg)
        if alg in _RSA_ALGORITHMS and self.faults.on("auth.assertion_signature_not_verified"):
            pass  # the fault: whatever the signature, it is taken as good
        elif not signature_ok(alg, key, jws):
            raise AssertionRefused("the assertion's signature does not verify with the key of its kid")
        now = self.config.clock.now()
        self._certificate(jwk, key, now)
        if self._on(ONE_OIN_PER_CLIENT):
            await self._one_customer(client, jwk)
        self._claims(jws.claims, now)
        if self.faults.on("auth.assertion_replay_race"):
            await self._remember_late(jws.claims, now)
        else:
            self._remember(jws.claims, now)
        return client

    # --- header and client ------------------------------------------------------------------
    def _algorithm(self, alg: Any) -> str:
        if alg == "RS256":
            return alg
        if isinstance(alg, str) and alg.lower() == "none":
            if self.faults.on("auth.assertion_alg_none_accepted"):
                return "none"
            raise AssertionRefused("alg none is refused: RS256 only")
        if alg == "HS256" and self.faults.on("auth.assertion_hs256_public_key_accepted"):
            return alg
        if alg in _RSA_ALGORITHMS and self.faults.on("auth.assertion_alg_any_rsa"):
            return alg
        raise AssertionRefused("the assertion's alg is not RS256")

    def _type(self, typ: Any) -> None:
        """Seed part 2: typ JWT (media type names compare without case, RFC 7515 4.1.9).
        An absent typ is taken: RFC 7519 makes it optional."""
        if typ is None or self.faults.on("auth.assertion_typ_unchecked"):
            return
        if not isinstance(typ, str) or typ.upper() not in ("JWT", "APPLICATION/JWT"):
            raise AssertionRefused("the assertion's typ is not JWT")

    def _client(self, claims: dict[str, Any]) -> ClientRegistration:
        iss, sub = claims.get("iss"), claims.get("sub")
        if iss is None and self.faults.on("auth.assertion_iss_optional"):
            iss = sub  # the fault: a missing iss is taken to be the sub
        if sub is None and self.faults.on("auth.assertion_sub_optional"):
            sub = iss  # the fault: a missing sub is taken to be the iss
        if not isinstance(iss, str) or not iss or not isinstance(sub, str) or not sub:
            raise AssertionRefused("the assertion needs the string claims iss and sub")
        if self.faults.on("auth.assertion_client_by_iss"):
            sub = iss  # the fault: iss picks the client, sub is never looked at
        elif iss != sub and not self.faults.on("auth.assertion_iss_sub_not_compared"):
            raise AssertionRefused("iss and sub differ: both must be the client_id")
        client = self.config.clients.get(sub)
        if client is None or client.kind != "client_credentials" or not client.jwks_uri:
            raise AssertionRefused("the assertion names no registered client-credentials client")
        return client

    # --- the key ------------------------------------------------------------------------------
    async def _key(self, client: ClientRegistration, jws: _Jws, alg: str) -> tuple[dict[str, Any], RSAPublicKey]:
        assert client.jwks_uri is not None
        kid = jws.header.get("kid")
        try:
            jwk = self._by_kid(await self.jwks.keys(client.jwks_uri), kid)
            if jwk is None:  # perhaps a key published since the last fetch: fetch once more
                keys = await self.jwks.keys(client.jwks_uri, refresh=True)
                jwk = self._by_kid(keys, kid)
        except JwksError as exc:
            raise AssertionRefused(str(exc)) from None
        if jwk is not None:
            return jwk, _rsa_key(jwk)
        if self.faults.on("auth.assertion_kid_ignored"):
            for candidate in keys:  # the fault: any key that verifies will do
                try:
                    key = _rsa_key(candidate)
                except AssertionRefused:
                    continue
                if signature_ok(alg, key, jws):
                    return candidate, key
        if keys and self.faults.on("auth.assertion_signature_not_verified"):
            return keys[0], _rsa_key(keys[0])  # nothing is verified, so any key is as good
        raise AssertionRefused("the assertion's kid is not in the client's JWKS")

    def _by_kid(self, keys: list[dict[str, Any]], kid: Any) -> dict[str, Any] | None:
        if self.faults.on("auth.assertion_first_key_only"):
            keys = keys[:1]
        if kid is None and keys and self.faults.on("auth.assertion_kid_optional"):
            return keys[0]  # the fault: no kid, so the first key of the JWKS
        if not isinstance(kid, str) or not kid:
            return None
        return next((k for k in keys if k.get("kid") == kid), None)

    # --- the certificate ------------------------------------------------------------------------
    def _certificate(self, jwk: dict[str, Any], key: RSAPublicKey, now: float) -> None:
        if "x5c" not in jwk:
            if self.faults.on("auth.assertion_x5c_not_required"):
                return
            raise AssertionRefused("the JWK carries no x5c certificate chain")
        try:
            chain = rfc7517.chain_from_jwk(jwk)
        except ValueError:
            raise AssertionRefused("the JWK's x5c is not a list of base64 DER certificates") from None
        if not chain or len(chain) > 10:
            raise AssertionRefused("the JWK's x5c chain is empty or too long")
        leaf = chain[0]
        if not same_key(leaf, key) and not self.faults.on("auth.assertion_x5c_key_not_compared"):
            raise AssertionRefused("the first x5c certificate does not certify the JWK's key")
        try:
            moment = datetime.fromtimestamp(now, UTC)
        except (ValueError, OverflowError, OSError):
            raise AssertionRefused("the mock clock is beyond what certificates can express") from None
        roots = self.config.trust_roots
        path = chain  # under the faults below: the chain as sent (without the root)
        if self.faults.on("auth.assertion_chain_not_checked"):
            if not all(valid_at(cert, moment) for cert in chain):  # validity is still judged
                raise AssertionRefused("a certificate of the x5c chain is not valid now")
        elif self.faults.on("auth.assertion_cert_validity_not_checked"):
            if not chains_to(chain, roots):  # the chain is still judged
                raise AssertionRefused("the x5c chain does not lead to a trusted root")
        elif self._on(NOT_BEFORE_NOT_CHECKED):
            if not chains_to(chain, roots):  # the chain is still judged, and notAfter
                raise AssertionRefused("the x5c chain does not lead to a trusted root")
            if not all(not_expired_at(cert, moment) for cert in chain):
                raise AssertionRefused("a certificate of the x5c chain has expired")
        else:
            path, problem = verify_chain(chain, roots, moment)
            if problem:
                raise AssertionRefused(f"the x5c chain does not verify: {problem}")
        if not self._on(BRANCH_NOT_CHECKED):
            problem = branch_problem(path, roots, self.config.branch_policies)
            if problem:
                raise AssertionRefused(f"the certificate is outside the Private Services branch: {problem}")
        if not self._on(REVOCATION_NOT_CHECKED):
            problem = revocation_problem(path, self.config.crls)
            if problem:
                raise AssertionRefused(f"the certificate's revocation status: {problem}")
        self._oin(leaf)

    async def _one_customer(self, client: ClientRegistration, jwk: dict[str, Any]) -> None:
        """The fault auth.assertion_one_oin_per_client: the client's one OIN is its JWKS's
        first certificate's."""
        assert client.jwks_uri is not None
        try:
            keys = await self.jwks.keys(client.jwks_uri)
        except JwksError as exc:
            raise AssertionRefused(str(exc)) from None
        first = next((k for k in keys if k.get("x5c")), None)
        if first is not None and _leaf_oin(first) != _leaf_oin(jwk):
            raise AssertionRefused("the certificate's OIN is not the one end customer of this client")

    def _oin(self, leaf: x509.Certificate) -> None:
        if self.faults.on("auth.assertion_oin_not_checked"):
            return
        values = leaf.subject.get_attributes_for_oid(NameOID.SERIAL_NUMBER)
        if not values and self._on(OIN_FROM_ORGANIZATION_IDENTIFIER):
            values = leaf.subject.get_attributes_for_oid(NameOID.ORGANIZATION_IDENTIFIER)
        oin = values[0].value if len(values) == 1 else None
        if not values and self.faults.on("auth.assertion_oin_optional"):
            return  # the fault: a certificate without serialNumber passes (an OIN present is still judged)
        if not isinstance(oin, str) or not _OIN.fullmatch(oin):
            raise AssertionRefused("the certificate subject has no OIN (serialNumber of 20 digits)")
        customers = self.config.customers.get(oin, ())
        if not customers:
            raise AssertionRefused("the certificate's OIN is registered at no customer")
        if len(customers) > 1 and not self.faults.on("auth.assertion_oin_uniqueness_not_checked"):
            raise AssertionRefused("the certificate's OIN is registered at more than one customer")

    # --- the claims -------------------------------------------------------------------------------
    def _claims(self, claims: dict[str, Any], now: float) -> None:
        aud = claims.get("aud")
        values = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
        if aud is None and self.faults.on("auth.assertion_aud_optional"):
            pass  # the fault: no aud at all passes (a wrong one is still refused)
        elif not values or not all(isinstance(v, str) for v in values):
            raise AssertionRefused("the assertion needs an aud")
        elif not self.faults.on("auth.assertion_aud_not_checked") and not set(values) & self.audiences():
            raise AssertionRefused("aud is not this token endpoint (the seed's form, exactly)")
        exp = claims.get("exp")
        if exp is None and self.faults.on("auth.assertion_exp_optional"):
            exp = now + 1  # the fault: no exp is taken as "valid now"
        if not finite_number(exp):
            raise AssertionRefused("the assertion needs a numeric exp")
        if exp <= now and not self.faults.on("auth.assertion_expired_accepted"):
            raise AssertionRefused("the assertion has expired")
        if exp - now > self.config.assertion_max_lifetime_s:
            raise AssertionRefused(f"exp lies more than {self.config.assertion_max_lifetime_s} s ahead")
        nbf = claims.get("nbf")
        if nbf is not None and (not finite_number(nbf) or nbf > now + NBF_LEEWAY_S):
            raise AssertionRefused("nbf is not a number or lies in the future")
        jti = claims.get("jti")
        if jti is None or jti == "":
            if not self.faults.on("auth.assertion_jti_optional"):
                raise AssertionRefused("the assertion needs a jti")
        elif not isinstance(jti, str):
            raise AssertionRefused("jti is not a string")

    def audiences(self) -> set[str]:
        seed = self.config.audience
        if self.faults.on("auth.seed_aud_refused"):  # the fault: only the URL form is known
            match = _AUDIENCE.fullmatch(seed)
            return {f"https://{match['host']}{match['path']}" if match else f"https://{seed}"}
        if self.faults.on(AUD_TOKEN_ENDPOINT_URL.name):
            return {seed, f"https://{seed}", f"https://{seed.replace(':443/', '/', 1)}"}
        return {seed}

    def _remember(self, claims: dict[str, Any], now: float) -> None:
        jti = claims.get("jti")
        if not isinstance(jti, str) or not jti or self.faults.on("auth.assertion_replay_accepted"):
            return
        key = (str(claims.get("iss", claims.get("sub"))), jti)
        with self._lock:
            self._seen = {k: until for k, until in self._seen.items() if until > now}
            if key in self._seen:
                raise AssertionRefused("this jti was used before: an assertion is single use")
            self._seen[key] = self._forget_after(claims, now)


    async def _remember_late(self, claims: dict[str, Any], now: float) -> None:
        """The fault auth.assertion_replay_race: check, wait for the replay store, then
        remember; what arrives in between passes the check too."""
        jti = claims.get("jti")
        if not isinstance(jti, str) or not jti:
            return
        key = (str(claims.get("iss", claims.get("sub"))), jti)
        with self._lock:
            if key in self._seen and self._seen[key] > now:
                raise AssertionRefused("this jti was used before: an assertion is single use")
        await asyncio.sleep(REPLAY_STORE_LATENCY_S)  # the fault's round trip, not synchronisation
        with self._lock:
            self._seen[key] = self._forget_after(claims, now)

    def _forget_after(self, claims: dict[str, Any], now: float) -> float:
        """Until exp (or, without one under auth.assertion_exp_optional, the longest lifetime)."""
        exp = claims.get("exp")
        until = float(exp) if finite_number(exp) else now + self.config.assertion_max_lifetime_s
        return max(until, now) + REPLAY_MARGIN_S


def _leaf_oin(jwk: dict[str, Any]) -> str | None:
    try:
        chain = rfc7517.chain_from_jwk(jwk)
    except ValueError:
        return None
    values = chain[0].subject.get_attributes_for_oid(NameOID.SERIAL_NUMBER) if chain else []
    return str(values[0].value) if values else None


def _rsa_key(jwk: dict[str, Any]) -> RSAPublicKey:
    if jwk.get("alg", "RS256") != "RS256" or jwk.get("use", "sig") != "sig":
        raise AssertionRefused("the JWK is not an RS256 signing key")
    try:
        key = rfc7517.public_key_from_jwk(jwk)
    except (ValueError, TypeError):
        raise AssertionRefused("the JWK is not a usable RSA public key") from None
    if key.key_size < 2048:
        raise AssertionRefused("the JWK's RSA key is shorter than 2048 bits")
    return key
