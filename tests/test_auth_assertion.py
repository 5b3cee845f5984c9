"""Client assertions (conformance.auth.rfc7523) and the JWKS publisher: the good assertion
verifies as a seed-conformant server verifies it, and each deliberately bad one is refused
by an RS256-only verifier for the reason it was built for."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import warnings

import jwt
import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():  # starlette suggests httpx2; httpx is what the project uses
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

from conformance.auth import rfc7517, rfc7523
from conformance.auth.jwks_publisher import create_app
from conformance.auth.pki import TestPki, init_test_pki

CLIENT = "inquiry-service"
AUD = "auth.example.test:443/auth/oauth/v2/token"


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> TestPki:
    return init_test_pki(tmp_path_factory.mktemp("pki-assertion"))


def segments(token: str) -> tuple[dict, dict, str]:
    header, payload, signature = token.split(".")
    return _json(header), _json(payload), signature


def _json(segment: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def verify(token: str, public_key, audience: str = AUD, **kwargs) -> dict:
    """The server's decode of seed part 4: RS256 only, aud by string, the claims required."""
    return jwt.decode(token, public_key, algorithms=["RS256"], audience=audience, issuer=CLIENT,
                      options={"require": ["exp", "iss", "sub", "aud", "jti"]}, **kwargs)


# --------------------------------------------------------------------------- default_audience
@pytest.mark.parametrize(
    "auth_url, audience",
    [
        ("http://127.0.0.1:8123", "127.0.0.1:443/auth/oauth/v2/token"),
        ("http://127.0.0.1", "127.0.0.1:443/auth/oauth/v2/token"),
        ("https://auth.example.nl", "auth.example.nl:443/auth/oauth/v2/token"),
        ("https://Auth.Example.nl:8443/prefix/", "auth.example.nl:443/auth/oauth/v2/token"),
        ("auth.example.nl", "auth.example.nl:443/auth/oauth/v2/token"),
        ("http://[::1]:9000", "[::1]:443/auth/oauth/v2/token"),
    ],
)
def test_default_audience_is_the_seed_form(auth_url: str, audience: str) -> None:
    assert rfc7523.default_audience(auth_url) == audience


@pytest.mark.parametrize("auth_url", ["", "https://"])
def test_default_audience_needs_a_host(auth_url: str) -> None:
    with pytest.raises(ValueError, match="no host"):
        rfc7523.default_audience(auth_url)


# ------------------------------------------------------------------------- without_port_443
@pytest.mark.parametrize(
    "audience, shorter",
    [
        ("auth.example.nl:443/auth/oauth/v2/token", "auth.example.nl/auth/oauth/v2/token"),
        ("https://auth.example.nl:443/auth/oauth/v2/token", "https://auth.example.nl/auth/oauth/v2/token"),
        ("127.0.0.1:443", "127.0.0.1"),
        ("[::1]:443/auth/oauth/v2/token", "[::1]/auth/oauth/v2/token"),
        ("http://[::1]:443?x=1", "http://[::1]?x=1"),
        # Another port that begins with 443 (an interop peer's ephemeral port once read as 443,
        # the host left as 127.0.0.141), a port that ends with it, no port, 443 in the path or
        # inside an IPv6 literal: none has a port 443 to leave out.
        ("http://127.0.0.1:44341/token", None),
        ("http://127.0.0.1:8443/token", None),
        ("auth.example.nl/auth/oauth/v2/token", None),
        ("https://auth.example.nl/x:443/token", None),
        ("[2001:db8::443]/token", None),
        ("[2001:db8::443]:444/token", None),
    ],
)
def test_without_port_443_leaves_out_only_the_port(audience: str, shorter: str | None) -> None:
    assert rfc7523.without_port_443(audience) == shorter


def test_assertion_type_constant() -> None:
    assert rfc7523.ASSERTION_TYPE == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


# --------------------------------------------------------------------------- the good assertion
def test_assertion_verifies_with_the_seed_header_and_claims(pki: TestPki) -> None:
    key, kid = pki.signing_material("good")
    now = int(time.time())
    token = rfc7523.build_assertion(CLIENT, AUD, key, kid, now=now)
    header, _, _ = segments(token)
    assert header == {"typ": "JWT", "alg": "RS256", "kid": kid}
    claims = verify(token, key.public_key())
    assert claims["iss"] == claims["sub"] == CLIENT
    assert claims["aud"] == AUD
    assert claims["exp"] == now + 120
    assert claims["nbf"] == claims["iat"] == now
    assert all(isinstance(claims[c], int) for c in ("exp", "nbf", "iat"))
    assert len(base64.urlsafe_b64decode(claims["jti"] + "==")) >= 16  # at least 128 bits


def test_assertion_verifies_against_the_published_jwk_selected_by_kid(pki: TestPki) -> None:
    documents = pki.jwks_documents()
    for name in ("good", "next"):
        key, kid = pki.signing_material(name)
        token = rfc7523.build_assertion(CLIENT, AUD, key, kid, now=time.time())
        kid_in_header = jwt.get_unverified_header(token)["kid"]
        jwk = next(j for j in documents["good"]["keys"] if j["kid"] == kid_in_header)
        verify(token, rfc7517.public_key_from_jwk(jwk))
        other = next(j for j in documents["good"]["keys"] if j["kid"] != kid_in_header)
        with pytest.raises(jwt.InvalidSignatureError):
            verify(token, rfc7517.public_key_from_jwk(other))


def test_jti_is_fresh_each_time_unless_given(pki: TestPki) -> None:
    key, kid = pki.signing_material("good")
    now = time.time()
    first, second = (segments(rfc7523.build_assertion(CLIENT, AUD, key, kid, now=now))[1]["jti"] for _ in range(2))
    assert first != second
    given = rfc7523.build_assertion(CLIENT, AUD, key, kid, now=now, jti="fixed-jti-1")
    assert verify(given, key.public_key())["jti"] == "fixed-jti-1"


def test_lifetime_overrides_drop_and_headers(pki: TestPki) -> None:
    key, kid = pki.signing_material("good")
    now = int(time.time())
    token = rfc7523.build_assertion(
        CLIENT, AUD, key, kid, now=now, lifetime_s=300,
        overrides={"sub": "someone-else", "scope": "x"}, drop=("nbf", "iat"), headers={"cty": "test"},
    )
    header, claims, _ = segments(token)
    assert header["cty"] == "test" and header["alg"] == "RS256" and header["kid"] == kid
    assert claims["exp"] == now + 300
    assert claims["sub"] == "someone-else" and claims["iss"] == CLIENT and claims["scope"] == "x"
    assert "nbf" not in claims and "iat" not in claims
    verify(token, key.public_key())  # still properly signed: only the claims changed
    dropped = rfc7523.build_assertion(CLIENT, AUD, key, kid, now=now, overrides={"jti": "x"}, drop=("jti",))
    with pytest.raises(jwt.MissingRequiredClaimError):
        verify(dropped, key.public_key())


def test_time_and_audience_are_real_claims(pki: TestPki) -> None:
    key, kid = pki.signing_material("good")
    old = rfc7523.build_assertion(CLIENT, AUD, key, kid, now=time.time() - 600)
    with pytest.raises(jwt.ExpiredSignatureError):
        verify(old, key.public_key())
    future = rfc7523.build_assertion(CLIENT, AUD, key, kid, now=time.time() + 600)
    with pytest.raises(jwt.ImmatureSignatureError):
        verify(future, key.public_key())
    with pytest.raises(jwt.InvalidAudienceError):
        verify(rfc7523.build_assertion(CLIENT, AUD, key, kid, now=time.time()), key.public_key(),
               audience="https://auth.example.test/auth/oauth/v2/token")


def test_claims_for() -> None:
    claims = rfc7523.claims_for(CLIENT, AUD, now=1000.7, lifetime_s=60)
    assert {k: v for k, v in claims.items() if k != "jti"} == {
        "iss": CLIENT, "sub": CLIENT, "aud": AUD, "exp": 1060, "nbf": 1000, "iat": 1000}
    assert claims["jti"] != rfc7523.claims_for(CLIENT, AUD, now=1000)["jti"]


# --------------------------------------------------------------------------- the bad ones
def _fresh_claims() -> dict:
    return rfc7523.claims_for(CLIENT, AUD, now=time.time())


def test_alg_none_is_well_formed_and_refused(pki: TestPki) -> None:
    key, kid = pki.signing_material("good")
    claims = _fresh_claims()
    token = rfc7523.unsigned_none(claims, kid)
    header, payload, signature = segments(token)
    assert header == {"typ": "JWT", "alg": "none", "kid": kid}
    assert payload == claims and signature == ""
    assert token.count(".") == 2 and token.endswith(".")
    with pytest.raises(jwt.InvalidTokenError):
        verify(token, key.public_key())


def test_hs256_confusion_is_a_real_hmac_and_refused(pki: TestPki) -> None:
    key, kid = pki.signing_material("good")
    claims = _fresh_claims()
    token = rfc7523.hs256_with_public_key(claims, kid, key.public_key())
    header, payload, signature = segments(token)
    assert header == {"typ": "JWT", "alg": "HS256", "kid": kid}
    assert payload == claims
    pem = key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    signing_input = token.rsplit(".", 1)[0].encode()
    expected = base64.urlsafe_b64encode(hmac.new(pem, signing_input, hashlib.sha256).digest()).rstrip(b"=").decode()
    assert signature == expected  # a verifier keyed with the PEM would accept it
    with pytest.raises(jwt.InvalidAlgorithmError):
        verify(token, key.public_key())


def test_tamper_keeps_header_and_signature(pki: TestPki) -> None:
    key, kid = pki.signing_material("good")
    token = rfc7523.build_assertion(CLIENT, AUD, key, kid, now=time.time())
    tampered = rfc7523.tamper(token, jti="tampered-1", nbf=None)
    original_parts, tampered_parts = token.split("."), tampered.split(".")
    assert tampered_parts[0] == original_parts[0] and tampered_parts[2] == original_parts[2]
    claims = segments(tampered)[1]
    assert claims["jti"] == "tampered-1" and "nbf" not in claims
    assert claims["aud"] == AUD and claims["iss"] == CLIENT
    verify(token, key.public_key())
    with pytest.raises(jwt.InvalidSignatureError):
        verify(tampered, key.public_key())


@pytest.mark.parametrize("token", ["a.b", "a.b.c.d", ""])
def test_tamper_needs_a_compact_jws(token: str) -> None:
    with pytest.raises(ValueError):
        rfc7523.tamper(token, jti="x")


def test_signing_with_another_key_is_refused(pki: TestPki) -> None:
    current_key, kid = pki.signing_material("good")
    stranger, _ = pki.signing_material("untrusted")
    token = rfc7523.build_assertion(CLIENT, AUD, stranger, kid, now=time.time())
    assert segments(token)[0]["kid"] == kid
    with pytest.raises(jwt.InvalidSignatureError):
        verify(token, current_key.public_key())


# --------------------------------------------------------------------------- the publisher
def test_publisher_serves_documents_as_json(pki: TestPki) -> None:
    documents = pki.jwks_documents()
    client = TestClient(create_app(documents))
    for name, document in documents.items():
        response = client.get(f"/jwks/{name}.json")
        assert response.status_code == 200, name
        assert response.headers["content-type"] == "application/json"
        assert response.json() == document
    assert client.get("/jwks/absent.json").status_code == 404
    assert client.get("/jwks/good").status_code == 404
    assert client.get("/jwks/good.json/extra").status_code == 404
    assert client.post("/jwks/good.json").status_code == 405


def test_publisher_reads_documents_at_request_time(pki: TestPki) -> None:
    documents = pki.jwks_documents()
    client = TestClient(create_app(documents))
    assert len(client.get("/jwks/good.json").json()["keys"]) == 2
    documents["good"] = documents["current_only"]  # rotation: the next key is withdrawn
    assert client.get("/jwks/good.json").json() == documents["current_only"]
    documents["rotated"] = {"keys": []}
    assert client.get("/jwks/rotated.json").json() == {"keys": []}
    del documents["good"]
    assert client.get("/jwks/good.json").status_code == 404


def test_fetched_jwks_verifies_an_assertion_end_to_end(pki: TestPki) -> None:
    client = TestClient(create_app(pki.jwks_documents()))
    key, kid = pki.signing_material("mismatch")
    token = rfc7523.build_assertion(CLIENT, AUD, key, kid, now=time.time())
    jwk = next(j for j in client.get("/jwks/mismatch.json").json()["keys"] if j["kid"] == kid)
    verify(token, rfc7517.public_key_from_jwk(jwk))  # the signature holds with n/e ...
    leaf_key = rfc7517.chain_from_jwk(jwk)[0].public_key()
    with pytest.raises(jwt.InvalidSignatureError):  # ... but not with the x5c leaf's key
        verify(token, leaf_key)
