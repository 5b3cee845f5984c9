"""Client credentials with a signed JWT assertion (seed 001 parts 2 and 4; RFC 7523,
RFC 7521, RFC 7515/7518, RFC 8725, RFC 5280). Every negative case changes one thing of a
valid assertion and first sends a fresh valid assertion as its control: a refusal counts only
when the control got a token (conformance/checks/auth/control.py). The checks on certificates
use clients registered with the test PKI's bad material (`conformance pki init`); a refusal
of such a client counts only when it does not read exactly as the refusal of a client the
server never registered (then the profile's client is probably not registered at all)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from conformance.auth import rfc7523
from conformance.auth.flows import CC_CONTROL_CAUSE, INQUIRY_SCOPE
from conformance.checks.auth import checks as c
from conformance.checks.auth import control
from conformance.checks.registry import MUST, OBSERVATION, SHOULD, check
from conformance.errors import NotApplicable, NotJudged
from conformance.findings import Blocked, expect

CONCURRENT_USES = 5
# Other RSA algorithms a client's RS256 key can sign with (seed part 2: alg RS256 only).
OTHER_RSA_ALGORITHMS = ("RS384", "RS512", "PS256")
# Another registered assertion type (RFC 7522): a JWT sent under it is not a jwt-bearer assertion.
SAML2_BEARER = "urn:ietf:params:oauth:client-assertion-type:saml2-bearer"
# A client id no server has registered: its refusal is what "unknown client" reads like.
UNREGISTERED_CLIENT = "conformance-never-registered-client"
# Clients a swapped iss, sub or client_id may name: registered, so that a server cannot
# refuse the changed assertion as "unknown client" without judging the rule under test.
_OTHER_CLIENT_ROLES = ("no_x5c", "untrusted", "expired", "unregistered_oin", "twice_oin", "confidential", "public")


@pytest.fixture(scope="module")
def stranger_key():
    """A key no JWKS knows."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _refused(flows, assertion: str, what: str, **fields: str) -> None:
    control.control_assertion(flows)
    control.token_refused(flows.client_credentials(assertion, **fields), what)


def _outcome(flows, assertion: str) -> str:
    control.control_assertion(flows)
    result = flows.client_credentials(assertion)
    return "accepted" if result.issued else f"refused ({result.answer})"


def _other_client(flows) -> str:
    """Another client the profile names (so one the server has registered)."""
    own = flows.targets.client("client_credentials")
    for role in _OTHER_CLIENT_ROLES:
        other = flows.targets.clients.get(role)
        if other and other != own:
            return other
    raise NotJudged("no second registered client",
                    "name one in services.auth.clients, to swap into iss, sub or client_id")


@check("auth.cc.valid_assertion_accepted", MUST, "A valid RS256 assertion (seed claims, kid of the JWKS) gets a token that works at the inquiry API",
       requirements=["AUTH-4.inquiry-steps", "AUTH-5.3", "RFC7523-3"],
       proven_by=["auth.seed_aud_refused", "auth.resource_rejects_valid_token"],
       feature="part 4 / client credentials + JWT assertion")
def test_valid_assertion_accepted(auth_flows):
    result = auth_flows.client_credentials(auth_flows.assertion())
    c.ensure_token_issued(result, "a valid client assertion")
    c.ensure_api_served_if_present(auth_flows, "inquiry", result.access_token,
                                   "inquiry API with the client-credentials token")


@check("auth.cc.replay_refused", MUST, "The same assertion (same jti) is refused the second time",
       requirements=["AUTH-2.assertion.jti", "AUTH-8.assertion-single-use"],
       proven_by=["auth.assertion_replay_accepted"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_replay_refused(auth_flows):
    assertion = auth_flows.assertion()
    control.require_token(auth_flows.client_credentials(assertion), "the assertion accepted the first time",
                          CC_CONTROL_CAUSE)
    control.token_refused(auth_flows.client_credentials(assertion), "the same assertion (same jti) a second time")


@check("auth.cc.concurrent_replay_refused", MUST, "One assertion sent five times at once gets exactly one token (single use holds under concurrency)",
       requirements=["AUTH-2.assertion.jti", "AUTH-8.assertion-single-use"],
       proven_by=["auth.assertion_replay_race", "auth.assertion_replay_accepted"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_concurrent_replay_refused(auth_flows):
    control.control_assertion(auth_flows)
    assertion = auth_flows.assertion()
    # The barrier releases every request at once, so they reach the server together.
    start = threading.Barrier(CONCURRENT_USES, timeout=30)

    def send(_: int):
        start.wait()
        return auth_flows.token.client_credentials(assertion=assertion, scope=INQUIRY_SCOPE)

    with ThreadPoolExecutor(CONCURRENT_USES) as pool:
        results = list(pool.map(send, range(CONCURRENT_USES)))
    issued = sum(r.issued for r in results)
    answers = sorted({r.answer for r in results})
    expect(issued == 1, f"one assertion sent {CONCURRENT_USES} times at once got {issued} tokens",
           expected="exactly one token", actual="; ".join(answers))


@check("auth.cc.expired_refused", MUST, "An assertion whose exp passed two minutes ago is refused",
       requirements=["AUTH-2.assertion.exp", "RFC7523-3"],
       proven_by=["auth.assertion_expired_accepted"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_expired_refused(auth_flows):
    now = auth_flows.now()
    _refused(auth_flows, auth_flows.assertion(now=now - 240, lifetime_s=120), "an assertion expired 120 s ago")


@check("auth.cc.exp_far_ahead", OBSERVATION, "An assertion valid for 24 hours: accepted or refused (the seed recommends minutes)",
       requirements=["AUTH-2.assertion.exp"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion",
       downgrade_reason="the seed recommends 'a short expiry of a few minutes' without saying the server refuses a longer one: what it does is measured")
def test_exp_far_ahead(auth_flows, observe):
    observe(_outcome(auth_flows, auth_flows.assertion(lifetime_s=86400)))


@check("auth.cc.nbf_in_future", OBSERVATION, "An assertion with nbf ten minutes ahead: accepted or refused (not shown)",
       requirements=["AUTH-2.assertion.nbf-iat", "RFC7519-4.1.5"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_nbf_in_future(auth_flows, observe):
    observe(_outcome(auth_flows, auth_flows.assertion(overrides={"nbf": int(auth_flows.now()) + 600})))


@check("auth.cc.iat_in_future", OBSERVATION, "An assertion with iat ten minutes ahead: accepted or refused (not shown)",
       requirements=["AUTH-2.assertion.nbf-iat", "RFC7519-4.1.6"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_iat_in_future(auth_flows, observe):
    observe(_outcome(auth_flows, auth_flows.assertion(overrides={"iat": int(auth_flows.now()) + 600})))


@check("auth.cc.aud_other_host_refused", MUST, "An assertion for another token endpoint host is refused",
       requirements=["AUTH-2.assertion.aud", "RFC7523-3"],
       proven_by=["auth.assertion_aud_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_aud_other_host_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(audience="auth.other-registry.example:443/auth/oauth/v2/token"),
             "aud of another host")


@check("auth.cc.aud_with_protocol_refused", OBSERVATION, "aud as the token endpoint's URL (https://{auth_host}:443/..., the seed's form with the protocol): accepted or refused",
       requirements=["AUTH-2.assertion.aud", "RFC7523-3"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion",
       downgrade_reason="the seed gives the form the client sends, not that the server refuses others; RFC 7523 3: "
                        "'the token endpoint URL of the authorization server MAY be used as a value for an \"aud\" "
                        "element' (variant auth.variant.aud_token_endpoint_url): what it does is measured")
def test_aud_with_protocol_refused(auth_flows, observe):
    if "://" in auth_flows.targets.audience:
        raise NotApplicable("the profile's audience already carries a protocol: there is none to add")
    observe(_outcome(auth_flows, auth_flows.assertion(audience="https://" + auth_flows.targets.audience)))


@check("auth.cc.aud_without_port_refused", MUST, "aud without :443 is refused: the seed's form includes the port",
       requirements=["AUTH-2.assertion.aud", "RFC7523-3"],
       proven_by=["auth.assertion_aud_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_aud_without_port_refused(auth_flows):
    audience = rfc7523.without_port_443(auth_flows.targets.audience)
    if audience is None:
        raise NotApplicable("the profile's audience carries no port 443 to leave out")
    _refused(auth_flows, auth_flows.assertion(audience=audience), "aud without :443")


@check("auth.cc.aud_trailing_slash_refused", MUST, "aud with a trailing slash is refused (exact string comparison)",
       requirements=["AUTH-2.assertion.aud", "RFC7523-3"],
       proven_by=["auth.assertion_aud_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_aud_trailing_slash_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(audience=auth_flows.targets.audience + "/"), "aud with a trailing slash")


@check("auth.cc.iss_differs_from_sub_refused", MUST, "An assertion whose iss (then sub) names another registered client than the other claim is refused",
       requirements=["AUTH-2.assertion.iss-sub", "RFC7523-3"],
       proven_by=["auth.assertion_iss_sub_not_compared", "auth.assertion_client_by_iss"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_iss_differs_from_sub_refused(auth_flows):
    # Both swaps, each with another REGISTERED client: a server that picks the client by sub
    # and ignores iss accepts the first, one that picks it by iss accepts the second; neither
    # can be refused as "unknown client".
    other = _other_client(auth_flows)
    _refused(auth_flows, auth_flows.assertion(overrides={"iss": other}), f"iss of another client ({other}), sub of this one")
    _refused(auth_flows, auth_flows.assertion(overrides={"sub": other}), f"sub of another client ({other}), iss of this one")


@check("auth.cc.client_id_differs_from_sub_refused", SHOULD, "A client_id in the body naming another registered client than the assertion's sub is refused",
       requirements=["RFC7521-4.2"],
       proven_by=["auth.assertion_client_id_not_compared"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion",
       downgrade_reason="the seed's client-credentials body (part 4) has no client_id, so a client that follows the "
                        "seed never sends one; RFC 7521 4.2 makes client_id optional there and its MUST ('If present, "
                        "the value ... MUST identify the same client') binds the client's request, and names no "
                        "refusal by the server: refusing a mismatch is the public behaviour of servers (oidc-provider "
                        "answers invalid_client), not a rule of the seed")
def test_client_id_differs_from_sub_refused(auth_flows):
    own, other = auth_flows.targets.client("client_credentials"), _other_client(auth_flows)
    control.control_assertion(auth_flows, client_id=own)  # client_id in the body is allowed (RFC 7521 4.2)
    control.token_refused(auth_flows.client_credentials(auth_flows.assertion(), client_id=other),
                          f"client_id {other} in the body with an assertion of {own}")


@check("auth.cc.unknown_kid_refused", MUST, "An assertion whose kid is not in the client's JWKS is refused",
       requirements=["AUTH-2.jwks", "AUTH-4.assertion-signature"],
       proven_by=["auth.assertion_kid_ignored", "auth.assertion_signature_not_verified"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_unknown_kid_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(kid="kid-that-no-jwks-has"), "a kid that is not in the JWKS")


@check("auth.cc.other_key_refused", MUST, "An assertion with a registered kid but signed by another key is refused",
       requirements=["AUTH-4.assertion-signature"],
       proven_by=["auth.assertion_signature_not_verified"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_other_key_refused(auth_flows, stranger_key):
    _, kid = auth_flows.targets.signing_material("current")
    client_id = auth_flows.targets.client("client_credentials")
    assertion = rfc7523.build_assertion(client_id, auth_flows.targets.audience, stranger_key, kid, now=auth_flows.now())
    _refused(auth_flows, assertion, "a registered kid with a signature by another key")


@check("auth.cc.tampered_refused", MUST, "An assertion whose payload was changed after signing is refused",
       requirements=["AUTH-4.assertion-signature"],
       proven_by=["auth.assertion_signature_not_verified"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_tampered_refused(auth_flows):
    # A fresh jti: a server that skips the signature cannot refuse it as a replay.
    tampered = rfc7523.tamper(auth_flows.assertion(), jti="tampered-" + str(int(auth_flows.now() * 1000)))
    _refused(auth_flows, tampered, "an assertion changed after signing")


def _claims(flows) -> dict:
    client_id = flows.targets.client("client_credentials")
    return rfc7523.claims_for(client_id, flows.targets.audience, now=flows.now())


@check("auth.cc.alg_none_refused", MUST, "An unsigned assertion (alg none) is refused",
       requirements=["AUTH-2.assertion.header", "RFC7518-3.6", "RFC8725-3.1"],
       proven_by=["auth.assertion_alg_none_accepted"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_alg_none_refused(auth_flows):
    _, kid = auth_flows.targets.signing_material("current")
    _refused(auth_flows, rfc7523.unsigned_none(_claims(auth_flows), kid), "alg none")


@check("auth.cc.hs256_confusion_refused", MUST, "An HS256 assertion keyed with the client's public key is refused",
       requirements=["AUTH-2.assertion.header", "RFC8725-3.1"],
       proven_by=["auth.assertion_hs256_public_key_accepted"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_hs256_confusion_refused(auth_flows):
    key, kid = auth_flows.targets.signing_material("current")
    token = rfc7523.hs256_with_public_key(_claims(auth_flows), kid, key.public_key())
    _refused(auth_flows, token, "HS256 keyed with the public key")


@check("auth.cc.missing_jti_refused", MUST, "An assertion without jti is refused",
       requirements=["AUTH-2.assertion.jti"],
       proven_by=["auth.assertion_jti_optional"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_missing_jti_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(drop=("jti",)), "an assertion without jti")


@check("auth.cc.missing_exp_refused", MUST, "An assertion without exp is refused",
       requirements=["AUTH-2.assertion.exp", "AUTH-4.assertion-claims", "RFC7523-3"],
       proven_by=["auth.assertion_exp_optional"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_missing_exp_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(drop=("exp",)), "an assertion without exp")


@check("auth.cc.missing_aud_refused", MUST, "An assertion without aud is refused",
       requirements=["AUTH-2.assertion.aud", "AUTH-4.assertion-claims", "RFC7523-3"],
       proven_by=["auth.assertion_aud_optional"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_missing_aud_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(drop=("aud",)), "an assertion without aud")


@check("auth.cc.missing_iss_refused", MUST, "An assertion without iss is refused",
       requirements=["AUTH-2.assertion.iss-sub", "AUTH-4.assertion-claims", "RFC7523-3"],
       proven_by=["auth.assertion_iss_optional"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_missing_iss_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(drop=("iss",)), "an assertion without iss")


@check("auth.cc.missing_sub_refused", MUST, "An assertion without sub is refused",
       requirements=["AUTH-2.assertion.iss-sub", "AUTH-4.assertion-claims", "RFC7523-3"],
       proven_by=["auth.assertion_sub_optional"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_missing_sub_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(drop=("sub",)), "an assertion without sub")


@check("auth.cc.other_rsa_alg_refused", MUST, "An assertion signed with the client's own key but RS384, RS512 or PS256 instead of RS256 is refused",
       requirements=["AUTH-2.assertion.header", "AUTH-2.assertion.signature", "RFC8725-3.1"],
       proven_by=["auth.assertion_alg_any_rsa"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_other_rsa_alg_refused(auth_flows):
    # The client's own registered key and kid: only the algorithm differs from the control.
    for algorithm in OTHER_RSA_ALGORITHMS:
        _refused(auth_flows, auth_flows.assertion(algorithm=algorithm), f"alg {algorithm} with the client's RS256 key")


@check("auth.cc.typ_not_jwt_refused", SHOULD, "An assertion whose header typ is at+jwt instead of JWT is refused",
       requirements=["AUTH-2.assertion.header", "RFC8725-3.11"],
       proven_by=["auth.assertion_typ_unchecked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_typ_not_jwt_refused(auth_flows):
    # at+jwt is an access token's type (RFC 9068): the cross-JWT confusion explicit typing prevents.
    _refused(auth_flows, auth_flows.assertion(headers={"typ": "at+jwt"}), "typ at+jwt instead of JWT")


@check("auth.cc.missing_kid_refused", MUST, "An assertion without kid in its header is refused (the kid selects the key)",
       requirements=["AUTH-2.assertion.header", "AUTH-4.assertion-signature"],
       proven_by=["auth.assertion_kid_optional"],
       may_fail_under=["auth.assertion_signature_not_verified"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_missing_kid_refused(auth_flows):
    _refused(auth_flows, auth_flows.assertion(drop_headers=("kid",)), "an assertion without kid")


@check("auth.cc.assertion_type_refused", SHOULD, "A valid assertion sent with another client_assertion_type than the jwt-bearer URN is refused",
       requirements=["AUTH-4.token-request.client-credentials", "RFC7523-2.2"],
       proven_by=["auth.assertion_type_unchecked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_assertion_type_refused(auth_flows):
    control.control_assertion(auth_flows)
    result = auth_flows.token.client_credentials(assertion=auth_flows.assertion(), scope=INQUIRY_SCOPE,
                                                 assertion_type=SAML2_BEARER)
    control.token_refused(result, f"a valid JWT sent as client_assertion_type {SAML2_BEARER}")


def _bad_material_refused(flows, name: str, what: str) -> None:
    """The bad material's client is refused, and not as an unknown client: a refusal that
    reads exactly like that of a never-registered client (the same status, error and
    error_description, or none) is no judgement of the material -- a server whose bad-material
    clients were never registered would pass them all -- so the check is blocked (issue 51),
    never passed."""
    control.control_assertion(flows)
    result = flows.client_credentials(flows.assertion(material=name, client=name))
    control.token_refused(result, what)
    unknown = flows.client_credentials(flows.assertion(overrides={"iss": UNREGISTERED_CLIENT, "sub": UNREGISTERED_CLIENT}))
    same = (unknown.status, unknown.error, unknown.error_description) == \
        (result.status, result.error, result.error_description)
    if same:
        raise Blocked(f"a refusal of {what} for its material rather than as an unknown client",
                      f"client credentials ({what}) -> {result.answer}, word for word the answer to a client "
                      f"nobody registered: is services.auth.clients.{name} registered with its JWKS document?")


@check("auth.cc.jwk_without_x5c_refused", MUST, "A client whose JWK carries no x5c gets no token",
       requirements=["AUTH-4.assertion-certificate", "RFC7517-4.7"],
       proven_by=["auth.assertion_x5c_not_required"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_jwk_without_x5c_refused(auth_flows):
    _bad_material_refused(auth_flows, "no_x5c", "a JWK without x5c")


@check("auth.cc.untrusted_root_refused", MUST, "A certificate that does not chain to the government root gets no token",
       requirements=["AUTH-4.assertion-certificate", "RFC5280-6.1"],
       proven_by=["auth.assertion_chain_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_untrusted_root_refused(auth_flows):
    _bad_material_refused(auth_flows, "untrusted", "a certificate from another root")


@check("auth.cc.expired_certificate_refused", MUST, "An expired certificate gets no token",
       requirements=["AUTH-4.assertion-certificate", "RFC5280-6.1"],
       proven_by=["auth.assertion_cert_validity_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_expired_certificate_refused(auth_flows):
    _bad_material_refused(auth_flows, "expired", "an expired certificate")


@check("auth.cc.oin_unregistered_refused", MUST, "A certificate whose OIN no customer registered gets no token",
       requirements=["AUTH-4.assertion-oin"],
       proven_by=["auth.assertion_oin_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_oin_unregistered_refused(auth_flows):
    _bad_material_refused(auth_flows, "unregistered_oin", "an OIN no customer registered")


@check("auth.cc.oin_registered_twice_refused", MUST, "A certificate whose OIN two customers registered gets no token",
       requirements=["AUTH-4.assertion-oin"],
       proven_by=["auth.assertion_oin_uniqueness_not_checked", "auth.assertion_oin_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_oin_registered_twice_refused(auth_flows):
    _bad_material_refused(auth_flows, "twice_oin", "an OIN registered at two customers")


@check("auth.cc.x5c_key_mismatch_refused", MUST, "A JWK whose first x5c certificate certifies another key than the JWK's gets no token",
       requirements=["AUTH-4.assertion-certificate", "RFC7517-4.7"],
       proven_by=["auth.assertion_x5c_key_not_compared"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_x5c_key_mismatch_refused(auth_flows):
    _bad_material_refused(auth_flows, "x5c_mismatch", "a JWK whose x5c certifies another key")


@check("auth.cc.certificate_without_oin_refused", MUST, "A certificate without an OIN as subject serialNumber gets no token",
       requirements=["AUTH-4.assertion-oin"],
       proven_by=["auth.assertion_oin_optional", "auth.assertion_oin_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_certificate_without_oin_refused(auth_flows):
    _bad_material_refused(auth_flows, "no_oin", "a certificate without an OIN in its subject serialNumber")


@check("auth.cc.not_yet_valid_certificate_refused", MUST, "A certificate whose validity begins in the future (notBefore a year ahead) gets no token",
       requirements=["AUTH-4.assertion-certificate", "RFC5280-6.1"],
       proven_by=["auth.assertion_not_before_not_checked", "auth.assertion_cert_validity_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_not_yet_valid_certificate_refused(auth_flows):
    # "Certificate valid" is both ends of the validity period: a server that reads only
    # notAfter passes the expired certificate's check and fails this one.
    _bad_material_refused(auth_flows, "not_yet_valid", "a certificate not valid yet")


@check("auth.cc.revoked_certificate_refused", MUST, "A certificate listed on its issuer's CRL (published at the certificate's CRL distribution point) gets no token",
       requirements=["AUTH-4.assertion-certificate", "RFC5280-6.1"],
       proven_by=["auth.assertion_revocation_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_revoked_certificate_refused(auth_flows):
    # RFC 5280 6.1.3 (a)(3): a certificate on the path is valid only if "at the current time,
    # the certificate is not revoked"; the test PKI publishes its CRLs where the leaf says
    # (`conformance pki serve`).
    _bad_material_refused(auth_flows, "revoked", "a revoked certificate")


@check("auth.cc.other_branch_refused", MUST, "A certificate that chains to the trusted root through another domain's CAs (another certificate policy) gets no token: only the Private Services branch counts",
       requirements=["AUTH-4.assertion-certificate"],
       proven_by=["auth.assertion_branch_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_other_branch_refused(auth_flows):
    _bad_material_refused(auth_flows, "other_branch", "a certificate of another branch of the trusted root")


@check("auth.cc.oin_not_in_serial_number_refused", MUST, "A certificate whose registered OIN stands in organizationIdentifier, with no serialNumber, gets no token",
       requirements=["AUTH-4.assertion-oin"],
       proven_by=["auth.assertion_oin_from_organization_identifier", "auth.assertion_oin_optional",
                  "auth.assertion_oin_not_checked"],
       sends=["refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_oin_not_in_serial_number_refused(auth_flows):
    # The OIN is a registered one: only the field it stands in is wrong.
    _bad_material_refused(auth_flows, "oin_elsewhere", "an OIN in organizationIdentifier instead of serialNumber")


@check("auth.cc.two_customers_accepted", MUST, "One client whose JWKS holds the certificates of two end customers (two registered OINs) gets a token with either key",
       requirements=["AUTH-4.inquiry-registration", "AUTH-4.assertion-oin", "AUTH-2.jwks"],
       proven_by=["auth.assertion_one_oin_per_client"],
       may_fail_under=["auth.seed_aud_refused", "auth.assertion_first_key_only"],
       feature="part 4 / client credentials + JWT assertion")
def test_two_customers_accepted(auth_flows):
    for material, customer in (("two_customers", "first"), ("two_customers_second", "second")):
        result = auth_flows.client_credentials(auth_flows.assertion(material=material, client="two_customers"))
        c.ensure_token_issued(result, f"an assertion of the client two_customers signed with its {customer} end "
                              "customer's key")


@check("auth.cc.key_rotation", MUST, "Both keys of the JWKS (current and next) are accepted, each chosen by its kid",
       requirements=["AUTH-2.jwks"],
       proven_by=["auth.assertion_first_key_only"],
       may_fail_under=["auth.seed_aud_refused"],
       feature="part 4 / client credentials + JWT assertion")
def test_key_rotation(auth_flows):
    for material in ("current", "next"):
        c.ensure_token_issued(auth_flows.client_credentials(auth_flows.assertion(material=material)),
                              f"an assertion signed with the {material} key")
