"""PKCE (conformance.auth.rfc7636): the RFC 7636 Appendix B vector, and the verifier and
challenge syntax the seed states (43..128 of A-Z a-z 0-9 - . _ ~; S256 only)."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.auth import rfc7636

# RFC 7636 Appendix B.
APPENDIX_B_OCTETS = bytes([116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186,
                           22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121])
APPENDIX_B_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
APPENDIX_B_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def test_appendix_b_vector() -> None:
    assert base64.urlsafe_b64encode(APPENDIX_B_OCTETS).rstrip(b"=").decode() == APPENDIX_B_VERIFIER
    assert rfc7636.s256(APPENDIX_B_VERIFIER) == APPENDIX_B_CHALLENGE
    assert rfc7636.is_valid_verifier(APPENDIX_B_VERIFIER)
    assert rfc7636.is_valid_s256_challenge(APPENDIX_B_CHALLENGE)


def test_verifier_charset_is_the_unreserved_set() -> None:
    assert len(rfc7636.VERIFIER_CHARS) == 66
    assert set(rfc7636.VERIFIER_CHARS) == set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


@given(st.integers(min_value=43, max_value=128))
def test_generated_verifier_is_valid_and_as_long_as_asked(length: int) -> None:
    verifier = rfc7636.generate_verifier(length)
    assert len(verifier) == length
    assert set(verifier) <= set(rfc7636.VERIFIER_CHARS)
    assert rfc7636.is_valid_verifier(verifier)
    challenge = rfc7636.s256(verifier)
    assert len(challenge) == 43
    assert "=" not in challenge
    assert rfc7636.is_valid_s256_challenge(challenge)


def test_default_length_is_64() -> None:
    assert len(rfc7636.generate_verifier()) == 64


def test_verifiers_are_random_and_use_the_whole_charset() -> None:
    verifiers = [rfc7636.generate_verifier(128) for _ in range(60)]
    assert len(set(verifiers)) == len(verifiers)
    # 7680 draws from 66 characters: missing one has a probability of about e^-116.
    assert set("".join(verifiers)) == set(rfc7636.VERIFIER_CHARS)


@pytest.mark.parametrize("length", [-1, 0, 42, 129, 1000])
def test_bad_lengths_are_rejected(length: int) -> None:
    with pytest.raises(ValueError, match="43 to 128"):
        rfc7636.generate_verifier(length)


@pytest.mark.parametrize("length", [True, 64.0, "64"])
def test_non_int_lengths_are_rejected(length: object) -> None:
    with pytest.raises(TypeError):
        rfc7636.generate_verifier(length)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "verifier, valid",
    [
        ("a" * 43, True),
        ("~" * 128, True),
        ("a" * 42, False),
        ("a" * 129, False),
        ("a" * 42 + "+", False),
        ("a" * 42 + "/", False),
        ("a" * 42 + "=", False),
        ("a" * 42 + " ", False),
        ("a" * 42 + "é", False),
        ("a" * 43 + "\n", False),
        ("", False),
    ],
)
def test_verifier_syntax(verifier: str, valid: bool) -> None:
    assert rfc7636.is_valid_verifier(verifier) is valid


@given(st.text(max_size=140))
def test_verifier_predicate_matches_the_abnf(text: str) -> None:
    expected = 43 <= len(text) <= 128 and set(text) <= set(rfc7636.VERIFIER_CHARS)
    assert rfc7636.is_valid_verifier(text) is expected


@given(st.text(alphabet=rfc7636.VERIFIER_CHARS, min_size=43, max_size=128))
def test_verifier_predicate_accepts_every_well_formed_verifier(text: str) -> None:
    assert rfc7636.is_valid_verifier(text)


@pytest.mark.parametrize(
    "challenge, valid",
    [
        (APPENDIX_B_CHALLENGE, True),
        (APPENDIX_B_CHALLENGE[:-1], False),
        (APPENDIX_B_CHALLENGE + "=", False),
        (APPENDIX_B_CHALLENGE + "A", False),
        (APPENDIX_B_CHALLENGE.replace("-", "+"), False),  # standard base64, not base64url
        (APPENDIX_B_VERIFIER + "x" * 20, False),  # a plain verifier of 63 characters
    ],
)
def test_challenge_syntax(challenge: str, valid: bool) -> None:
    assert rfc7636.is_valid_s256_challenge(challenge) is valid


def test_non_strings_are_invalid() -> None:
    assert not rfc7636.is_valid_verifier(None)  # type: ignore[arg-type]
    assert not rfc7636.is_valid_s256_challenge(b"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")  # type: ignore[arg-type]
