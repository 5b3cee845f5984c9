"""Client credentials with a signed JWT assertion (seed 001 parts 2 and 4; RFC 7523,
RFC 7515/7518, RFC 8725, RFC 5280). Every negative case changes one thing of a valid
assertion; the checks on certificates use clients registered with the test PKI's bad
material (`conformance pki init`)."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from conformance.auth import rfc7523
from conformance.checks.auth import checks as c
from conformance.errors import NotApplicable


@pytest.fixture(scope="module")
def stranger_key():
    """A key no JWKS knows."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _refused(flows, assertion: str, what: str) -> None:
    c.ensure_token_refused(flows.client_credentials(assertion), what)


def _outcome(flows, assertion: str) -> str:
    result = flows.client_credentials(assertion)
    return "accepted" if result.issued else f"refused ({result.status} {result.error})"


@pytest.mark.check("auth.cc.valid_assertion_accepted")
def test_valid_assertion_accepted(auth_flows):
    result = auth_flows.client_credentials(auth_flows.assertion())
    c.ensure_token_issued(result, "a valid client assertion")
    c.ensure_api_served(auth_flows.call_inquiry(result.access_token), "inquiry API with the client-credentials token")


@pytest.mark.check("auth.cc.no_refresh_token")
def test_no_refresh_token(cc_tokens):
    c.ensure_no_refresh_token(cc_tokens)


@pytest.mark.negative
@pytest.mark.check("auth.cc.replay_refused")
def test_replay_refused(auth_flows):
    assertion = auth_flows.assertion()
    first = auth_flows.client_credentials(assertion)
    if not first.issued:
        raise NotApplicable(f"the assertion was not accepted the first time ({first.exchange.summary()})")
    _refused(auth_flows, assertion, "the same assertion (same jti) a second time")


@pytest.mark.negative
@pytest.mark.check("auth.cc.expired_refused")
def test_expired_refused(auth_flows):
    now = auth_flows.now()
    _refused(auth_flows, auth_flows.assertion(now=now - 240, lifetime_s=120), "an assertion expired 120 s ago")


@pytest.mark.negative
@pytest.mark.check("auth.cc.exp_far_ahead")
def test_exp_far_ahead(auth_flows, observe):
    observe(_outcome(auth_flows, auth_flows.assertion(lifetime_s=86400)))


@pytest.mark.negative
@pytest.mark.check("auth.cc.nbf_in_future")
def test_nbf_in_future(auth_flows, observe):
    observe(_outcome(auth_flows, auth_flows.assertion(overrides={"nbf": int(auth_flows.now()) + 600})))


@pytest.mark.negative
@pytest.mark.check("auth.cc.iat_in_future")
def test_iat_in_future(auth_flows, observe):
    observe(_outcome(auth_flows, auth_flows.assertion(overrides={"iat": int(auth_flows.now()) + 600})))


@pytest.mark.negative
@pytest.mark.check("auth.cc.aud_other_host_refused")
def test_aud_other_host_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(audience="auth.other-registry.example:443/auth/oauth/v2/token"),
             "aud of another host")


@pytest.mark.negative
@pytest.mark.check("auth.cc.aud_with_protocol_refused")
def test_aud_with_protocol_refused(auth_flows):
    audience = "https://" + auth_flows.targets.audience
    _refused(auth_flows, auth_flows.assertion(audience=audience), "aud with the protocol")


@pytest.mark.negative
@pytest.mark.check("auth.cc.aud_without_port_refused")
def test_aud_without_port_refused(auth_flows):
    audience = auth_flows.targets.audience.replace(":443", "", 1)
    if audience == auth_flows.targets.audience:
        raise NotApplicable("the profile's audience carries no :443 to leave out")
    _refused(auth_flows, auth_flows.assertion(audience=audience), "aud without :443")


@pytest.mark.negative
@pytest.mark.check("auth.cc.aud_trailing_slash_refused")
def test_aud_trailing_slash_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(audience=auth_flows.targets.audience + "/"), "aud with a trailing slash")


@pytest.mark.negative
@pytest.mark.check("auth.cc.iss_differs_from_sub_refused")
def test_iss_differs_from_sub_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(overrides={"iss": "another-client"}), "iss different from sub")


@pytest.mark.negative
@pytest.mark.check("auth.cc.unknown_kid_refused")
def test_unknown_kid_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(kid="kid-that-no-jwks-has"), "a kid that is not in the JWKS")


@pytest.mark.negative
@pytest.mark.check("auth.cc.other_key_refused")
def test_other_key_refused(auth_flows, stranger_key):
    _, kid = auth_flows.targets.signing_material("current")
    client_id = auth_flows.targets.client("client_credentials")
    assertion = rfc7523.build_assertion(client_id, auth_flows.targets.audience, stranger_key, kid, now=auth_flows.now())
    _refused(auth_flows, assertion, "a registered kid with a signature by another key")


@pytest.mark.negative
@pytest.mark.check("auth.cc.tampered_refused")
def test_tampered_refused(auth_flows):
    # A fresh jti: a server that skips the signature cannot refuse it as a replay.
    tampered = rfc7523.tamper(auth_flows.assertion(), jti="tampered-" + str(int(auth_flows.now() * 1000)))
    _refused(auth_flows, tampered, "an assertion changed after signing")


def _claims(flows) -> dict:
    client_id = flows.targets.client("client_credentials")
    return rfc7523.claims_for(client_id, flows.targets.audience, now=flows.now())


@pytest.mark.negative
@pytest.mark.check("auth.cc.alg_none_refused")
def test_alg_none_refused(auth_flows):
    _, kid = auth_flows.targets.signing_material("current")
    _refused(auth_flows, rfc7523.unsigned_none(_claims(auth_flows), kid), "alg none")


@pytest.mark.negative
@pytest.mark.check("auth.cc.hs256_confusion_refused")
def test_hs256_confusion_refused(auth_flows):
    key, kid = auth_flows.targets.signing_material("current")
    token = rfc7523.hs256_with_public_key(_claims(auth_flows), kid, key.public_key())
    _refused(auth_flows, token, "HS256 keyed with the public key")


@pytest.mark.negative
@pytest.mark.check("auth.cc.missing_jti_refused")
def test_missing_jti_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(drop=("jti",)), "an assertion without jti")


def _bad_material_refused(flows, name: str, what: str) -> None:
    _refused(flows, flows.assertion(material=name, client=name), what)


@pytest.mark.negative
@pytest.mark.check("auth.cc.jwk_without_x5c_refused")
def test_jwk_without_x5c_refused(auth_flows):
    _bad_material_refused(auth_flows, "no_x5c", "a JWK without x5c")


@pytest.mark.negative
@pytest.mark.check("auth.cc.untrusted_root_refused")
def test_untrusted_root_refused(auth_flows):
    _bad_material_refused(auth_flows, "untrusted", "a certificate from another root")


@pytest.mark.negative
@pytest.mark.check("auth.cc.expired_certificate_refused")
def test_expired_certificate_refused(auth_flows):
    _bad_material_refused(auth_flows, "expired", "an expired certificate")


@pytest.mark.negative
@pytest.mark.check("auth.cc.oin_unregistered_refused")
def test_oin_unregistered_refused(auth_flows):
    _bad_material_refused(auth_flows, "unregistered_oin", "an OIN no customer registered")


@pytest.mark.negative
@pytest.mark.check("auth.cc.oin_registered_twice_refused")
def test_oin_registered_twice_refused(auth_flows):
    _bad_material_refused(auth_flows, "twice_oin", "an OIN registered at two customers")


@pytest.mark.check("auth.cc.key_rotation")
def test_key_rotation(auth_flows):
    for material in ("current", "next"):
        c.ensure_token_issued(auth_flows.client_credentials(auth_flows.assertion(material=material)),
                              f"an assertion signed with the {material} key")
