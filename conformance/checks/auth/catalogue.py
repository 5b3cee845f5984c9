"""Every check of the authorization suite (seed 001, part a), with its requirements and severity.

Tests: suites/auth/test_*.py, one test per check. Requirement ids: `AUTH-<part>.<topic>`
for the seed, `RFC<n>-<section>` for the RFCs the seed builds on. Severity: MUST where the
seed states the rule, or an RFC states a MUST the seed relies on; SHOULD where the seed is
silent and the RFC says SHOULD or RECOMMENDED; observation where the seed says "not shown"
and the suite measures.

The assertion's header: the seed's server checks (part 4) verify the signature with the key
whose kid matches and judge iss, aud, sub, exp and jti, so a missing kid or claim is MUST;
RS256 is the signature the seed names (part 2) and RFC 8725 3.1 binds a key to one
algorithm, so another RSA algorithm with the RS256 key is MUST; typ is described, never
checked by the seed, and RFC 8725 3.11 only recommends explicit typing: SHOULD, as is the
client_assertion_type, whose refusal no source demands.

`proven_by` names the auth mock faults the check exists for (it must fail under each);
`may_fail_under` the faults under which it fails as collateral. A negative check whose
control a fault breaks is blocked there, not failed, so it needs no entry for that fault.
"""

from conformance.checks.registry import Severity, define

SUITE = "auth"
MUST, SHOULD, OBSERVATION = Severity.MUST, Severity.SHOULD, Severity.OBSERVATION

CODE = "part 2 / authorization code + PKCE"
TOKEN = "part 2 / token response"
REFRESH = "part 4 / refresh"
CC = "part 4 / client credentials + JWT assertion"
USE = "part 5 / token use at the APIs"

# Faults that break every flow that ends in a call to an API.
_USE_BROKEN = ("resource_rejects_valid_token",)


def _define(check_id, title, requirements, severity, feature, proven_by=(), may_fail_under=(), downgrade_reason=""):
    define(
        f"auth.{check_id}", title, requirements=requirements, severity=severity, suite=SUITE,
        feature=feature, proven_by=tuple(f"auth.{f}" for f in proven_by),
        may_fail_under=tuple(f"auth.{f}" for f in may_fail_under),
        observes=OBSERVED.get(f"auth.{check_id}", "probe"), downgrade_reason=downgrade_reason,
    )


# What recorded traffic can judge (conformance traffic, suites/passive/): a token response or
# an API's refusal speaks for itself; state needs the authorize request and its redirect.
OBSERVED = {
    "auth.token.media_type_json": "exchange", "auth.token.media_type_seed_spelling": "exchange",
    "auth.token.no_store": "exchange", "auth.token.pragma_no_cache": "exchange",
    "auth.token.expires_in_3600": "exchange", "auth.token.response_members": "exchange",
    "auth.cc.no_refresh_token": "exchange", "auth.use.www_authenticate": "exchange",
    "auth.code.state_echoed": "flow",
}


# --- authorization code with PKCE -------------------------------------------------------------
_define("code.confidential_flow",
        "Confidential client: authorize, log in, consent, redirect with code and state, exchange "
        "with secret and verifier, call the filing API, refresh, call again",
        ("AUTH-4.filing-steps", "AUTH-4.token-request", "RFC6749-4.1"), MUST, CODE,
        proven_by=("resource_rejects_valid_token", "refresh_grant_unsupported", "authorize_unavailable"))
_define("code.public_flow",
        "Public client: the same flow without a client secret; the token works at the filing API",
        ("AUTH-4.filing-steps", "AUTH-5.2", "RFC6749-4.1", "RFC7636-4.2"), MUST, CODE,
        proven_by=("resource_rejects_valid_token", "authorize_unavailable"))
_define("code.state_echoed",
        "The redirect carries `state` byte for byte as sent (with '+', '%', '/' and non-ASCII)",
        ("AUTH-2.redirect", "RFC6749-4.1.2"), MUST, CODE, proven_by=("state_mangled",))
_define("code.consent_asked_for_new_scope",
        "Consent is asked again when the client asks for a scope the user has not consented to",
        ("AUTH-5.2", "AUTH-1.consent"), MUST, CODE, proven_by=("consent_per_client_only",))
_define("code.consent_remembered",
        "Consent is asked once per client and scope: a second authorization needs no consent form",
        ("AUTH-5.2",), MUST, CODE, proven_by=("consent_not_remembered",))
_define("code.role_required",
        "A user without the role `Aanbieder M2M` gets no code",
        ("AUTH-1.role",), MUST, CODE, proven_by=("role_not_checked",))
_define("code.unregistered_redirect_uri_not_followed",
        "An unregistered redirect_uri is never redirected to (an error page instead)",
        ("RFC6749-4.1.2.1", "RFC6749-10.6"), MUST, CODE, proven_by=("authorize_redirects_anywhere",))
_define("pkce.challenge_required",
        "An authorization request without code_challenge gets no code",
        ("AUTH-5.2", "AUTH-2.authorization-request", "RFC7636-4.4.1"), MUST, CODE,
        proven_by=("pkce_not_required",))
_define("pkce.plain_refused",
        "code_challenge_method=plain (and a challenge without method, which means plain) gets no code",
        ("AUTH-2.authorization-request", "AUTH-5.2", "RFC9700-2.1.1"), MUST, CODE,
        proven_by=("pkce_plain_accepted",))
_define("pkce.wrong_verifier_refused", "A code_verifier that does not hash to the challenge is refused",
        ("AUTH-2.code-challenge", "RFC7636-4.6"), MUST, CODE, proven_by=("code_verifier_ignored",))
_define("pkce.missing_verifier_refused", "A code exchange without code_verifier is refused",
        ("AUTH-4.token-request", "RFC7636-4.6"), MUST, CODE,
        proven_by=("code_verifier_ignored", "pkce_not_required"))
_define("pkce.verifier_too_short_refused", "A verifier of 42 characters is refused, even with a matching challenge",
        ("AUTH-2.code-verifier", "RFC7636-4.1"), MUST, CODE, proven_by=("verifier_syntax_not_checked",))
_define("pkce.verifier_too_long_refused", "A verifier of 129 characters is refused, even with a matching challenge",
        ("AUTH-2.code-verifier", "RFC7636-4.1"), MUST, CODE, proven_by=("verifier_syntax_not_checked",))
_define("pkce.verifier_bad_characters_refused",
        "A verifier with characters outside A-Z a-z 0-9 - . _ ~ is refused, even with a matching challenge",
        ("AUTH-2.code-verifier", "RFC7636-4.1"), MUST, CODE, proven_by=("verifier_syntax_not_checked",))
_define("code.reuse_refused", "A code exchanged once is refused the second time",
        ("RFC6749-4.1.2", "RFC6749-10.5"), MUST, CODE, proven_by=("code_reusable",))
_define("code.reuse_revokes_tokens", "After a code is reused, the access token issued from it no longer works",
        ("RFC6749-4.1.2",), SHOULD, CODE, proven_by=("code_reuse_keeps_tokens", "code_reusable"),
        downgrade_reason="RFC 6749 4.1.2: the server MUST deny a reused code and SHOULD revoke (when possible) the "
                         "tokens issued from it; the denial is the MUST check auth.code.reuse_refused")
_define("code.expired_refused", "A code is refused once 300 s (the longer of the seed's two lifetimes) have passed",
        ("AUTH-8.code-lifetime", "RFC6749-4.1.2"), MUST, CODE, proven_by=("code_never_expires",))
_define("code.alive_before_lifetime",
        "A code exchanged 20 s after it was issued is accepted: a code dead before 30 s breaks both of the "
        "seed's lifetimes",
        ("AUTH-8.code-lifetime", "AUTH-4.filing-steps"), MUST, CODE, proven_by=("code_dies_early",))
_define("code.lifetime_governing",
        "Which code lifetime governs, 30 s (flow description) or 300 s (settings table): measured",
        ("AUTH-8.code-lifetime",), OBSERVATION, CODE,
        downgrade_reason="the seed: 'Which of the two authorization code lifetimes governs: not shown'; a code "
                         "dead before 30 s is the MUST check auth.code.alive_before_lifetime")
_define("code.redirect_uri_mismatch_refused",
        "A code exchange with another redirect_uri than the authorization request's is refused",
        ("RFC6749-4.1.3",), MUST, CODE, proven_by=("redirect_uri_not_compared",))
_define("code.redirect_uri_omitted_refused",
        "A code exchange without the redirect_uri that the authorization request carried is refused",
        ("RFC6749-4.1.3",), MUST, CODE, proven_by=("redirect_uri_optional", "redirect_uri_not_compared"))
_define("code.other_client_refused",
        "A code issued to the public client, redeemed by the confidential client (with its valid secret), is refused",
        ("RFC6749-4.1.3",), MUST, CODE, proven_by=("code_client_not_compared",))
_define("code.wrong_client_secret_refused", "A code exchange with a wrong client_secret is refused (invalid_client)",
        ("AUTH-5.2", "RFC6749-5.2"), MUST, CODE, proven_by=("client_secret_not_checked",))
_define("code.missing_client_secret_refused",
        "A confidential client's code exchange without client_secret (no other authentication either) is "
        "refused with invalid_client",
        ("AUTH-5.2", "AUTH-4.token-request.confidential", "RFC6749-4.1.3", "RFC6749-5.2"), MUST, CODE,
        proven_by=("client_secret_optional", "client_secret_not_checked"), may_fail_under=("token_errors_not_rfc6749",))
_define("code.response_type_code_only",
        "An authorization request with response_type=token or id_token gets neither a code nor a token "
        "(unsupported_response_type or an error page)",
        ("AUTH-2.authorization-request", "RFC6749-3.1.1", "RFC6749-4.1.2.1"), MUST, CODE,
        proven_by=("response_type_not_checked",))

# --- the token response ---------------------------------------------------------------------------
_define("token.response_members",
        "Token response: access_token, token_type Bearer, expires_in integer, refresh_token (code flow), "
        "scope equal to the granted scope",
        ("AUTH-2.token-response", "RFC6749-5.1"), MUST, TOKEN, proven_by=("scope_missing_in_token_response",))
_define("token.expires_in_3600", "expires_in is 3600 for both flows",
        ("AUTH-2.token-response", "AUTH-8.access-token-lifetime"), MUST, TOKEN, proven_by=("expires_in_not_3600",))
_define("token.no_store", "Token responses carry Cache-Control: no-store",
        ("RFC6749-5.1",), MUST, TOKEN, proven_by=("no_store_missing",))
_define("token.pragma_no_cache", "Token responses carry Pragma: no-cache",
        ("RFC6749-5.1",), SHOULD, TOKEN, proven_by=("pragma_missing",),
        downgrade_reason="Pragma is deprecated by RFC 9111 (5.4) and OAuth 2.1 drops it; Cache-Control: no-store "
                         "is the MUST check auth.token.no_store")
_define("token.media_type_json", "Token responses are JSON (application/json, parameters in any case)",
        ("AUTH-2.token-response", "RFC6749-5.1"), MUST, TOKEN, proven_by=("token_served_as_text",))
_define("token.media_type_seed_spelling",
        "Token responses are application/json;charset=UTF-8 as the seed writes it (case and spaces aside)",
        ("AUTH-2.token-response",), MUST, TOKEN, proven_by=("token_content_type_no_charset", "token_served_as_text"))
_define("token.error_codes",
        "Token errors are RFC 6749 JSON with the code the case calls for (invalid_grant, invalid_client, "
        "unsupported_grant_type)",
        ("RFC6749-5.2",), SHOULD, TOKEN, proven_by=("token_errors_not_rfc6749",),
        downgrade_reason="the seed: 'Error responses of the authorize and token endpoints ...: not shown'; the "
                         "RFC 6749 codes are the public behaviour of servers of the national profile",
        # a case that is wrongly accepted has no error code to judge
        may_fail_under=("client_secret_not_checked", "code_verifier_ignored"))

# --- refresh ----------------------------------------------------------------------------------------
_define("refresh.works", "A refresh with refresh_token, client_id and client_secret returns a working access token",
        ("AUTH-4.filing-steps", "AUTH-4.token-request", "RFC6749-6"), MUST, REFRESH,
        proven_by=("refresh_grant_unsupported",), may_fail_under=_USE_BROKEN)
_define("refresh.wrong_secret_refused", "A refresh with a wrong client_secret is refused",
        ("AUTH-4.token-request", "RFC6749-6"), MUST, REFRESH, proven_by=("client_secret_not_checked",))
_define("refresh.missing_secret_refused",
        "A refresh without client_secret (no other authentication either) is refused with invalid_client",
        ("AUTH-4.token-request.refresh", "RFC6749-6", "RFC6749-5.2"), MUST, REFRESH,
        proven_by=("client_secret_optional", "client_secret_not_checked"), may_fail_under=("token_errors_not_rfc6749",))
_define("refresh.expired_refused", "A refresh token is refused after 604800 s",
        ("AUTH-8.refresh-token-lifetime",), MUST, REFRESH, proven_by=("refresh_never_expires",))
_define("refresh.alive_before_lifetime", "A refresh token 604800 s less an hour old still gives a working token",
        ("AUTH-8.refresh-token-lifetime", "AUTH-4.filing-steps"), MUST, REFRESH,
        proven_by=("refresh_dies_early",), may_fail_under=_USE_BROKEN)
_define("refresh.rotation", "Whether a refresh returns a new refresh token and retires the old one: measured",
        ("RFC6749-6", "AUTH-4.filing-steps"), OBSERVATION, REFRESH)

# --- client credentials with a JWT assertion -------------------------------------------------------
_define("cc.valid_assertion_accepted",
        "A valid RS256 assertion (seed claims, kid of the JWKS) gets a token that works at the inquiry API",
        ("AUTH-4.inquiry-steps", "AUTH-5.3", "RFC7523-3"), MUST, CC,
        proven_by=("seed_aud_refused", "resource_rejects_valid_token"))
_define("cc.no_refresh_token", "The client-credentials response carries no refresh_token",
        ("AUTH-2.token-response.refresh-token",), MUST, CC, proven_by=("cc_refresh_token_issued",))
_define("cc.replay_refused", "The same assertion (same jti) is refused the second time",
        ("AUTH-2.assertion.jti", "AUTH-8.assertion-single-use"), MUST, CC, proven_by=("assertion_replay_accepted",))
_define("cc.concurrent_replay_refused",
        "One assertion sent five times at once gets exactly one token (single use holds under concurrency)",
        ("AUTH-2.assertion.jti", "AUTH-8.assertion-single-use"), MUST, CC,
        proven_by=("assertion_replay_race", "assertion_replay_accepted"))
_define("cc.expired_refused", "An assertion whose exp passed two minutes ago is refused",
        ("AUTH-2.assertion.exp", "RFC7523-3"), MUST, CC, proven_by=("assertion_expired_accepted",))
_define("cc.exp_far_ahead", "An assertion valid for 24 hours: accepted or refused (the seed recommends minutes)",
        ("AUTH-2.assertion.exp",), OBSERVATION, CC,
        downgrade_reason="the seed recommends 'a short expiry of a few minutes' without saying the server refuses "
                         "a longer one: what it does is measured")
_define("cc.nbf_in_future", "An assertion with nbf ten minutes ahead: accepted or refused (not shown)",
        ("AUTH-2.assertion.nbf-iat", "RFC7519-4.1.5"), OBSERVATION, CC)
_define("cc.iat_in_future", "An assertion with iat ten minutes ahead: accepted or refused (not shown)",
        ("AUTH-2.assertion.nbf-iat", "RFC7519-4.1.6"), OBSERVATION, CC)
_define("cc.aud_other_host_refused", "An assertion for another token endpoint host is refused",
        ("AUTH-2.assertion.aud", "RFC7523-3"), MUST, CC, proven_by=("assertion_aud_not_checked",))
# The seed gives one form of aud, and RFC 7523 3 compares by simple string comparison unless
# a profile says otherwise: any other spelling of the token endpoint is not the server's identity.
_define("cc.aud_with_protocol_refused", "aud with the protocol (https://...) is refused: the seed's form has none",
        ("AUTH-2.assertion.aud", "RFC7523-3"), MUST, CC,
        proven_by=("assertion_aud_with_protocol_accepted", "assertion_aud_not_checked"))
_define("cc.aud_without_port_refused", "aud without :443 is refused: the seed's form includes the port",
        ("AUTH-2.assertion.aud", "RFC7523-3"), MUST, CC, proven_by=("assertion_aud_not_checked",))
_define("cc.aud_trailing_slash_refused", "aud with a trailing slash is refused (exact string comparison)",
        ("AUTH-2.assertion.aud", "RFC7523-3"), MUST, CC, proven_by=("assertion_aud_not_checked",))
_define("cc.iss_differs_from_sub_refused",
        "An assertion whose iss (then sub) names another registered client than the other claim is refused",
        ("AUTH-2.assertion.iss-sub", "RFC7523-3"), MUST, CC,
        proven_by=("assertion_iss_sub_not_compared", "assertion_client_by_iss"))
_define("cc.client_id_differs_from_sub_refused",
        "A client_id in the body naming another registered client than the assertion's sub is refused",
        ("RFC7521-4.2",), MUST, CC, proven_by=("assertion_client_id_not_compared",))
_define("cc.unknown_kid_refused", "An assertion whose kid is not in the client's JWKS is refused",
        ("AUTH-2.jwks", "AUTH-4.assertion-signature"), MUST, CC,
        proven_by=("assertion_kid_ignored", "assertion_signature_not_verified"))
_define("cc.other_key_refused", "An assertion with a registered kid but signed by another key is refused",
        ("AUTH-4.assertion-signature",), MUST, CC, proven_by=("assertion_signature_not_verified",))
_define("cc.tampered_refused", "An assertion whose payload was changed after signing is refused",
        ("AUTH-4.assertion-signature",), MUST, CC, proven_by=("assertion_signature_not_verified",))
_define("cc.alg_none_refused", "An unsigned assertion (alg none) is refused",
        ("AUTH-2.assertion.header", "RFC7518-3.6", "RFC8725-3.1"), MUST, CC, proven_by=("assertion_alg_none_accepted",))
_define("cc.hs256_confusion_refused", "An HS256 assertion keyed with the client's public key is refused",
        ("AUTH-2.assertion.header", "RFC8725-3.1"), MUST, CC, proven_by=("assertion_hs256_public_key_accepted",))
_define("cc.missing_jti_refused", "An assertion without jti is refused",
        ("AUTH-2.assertion.jti",), MUST, CC, proven_by=("assertion_jti_optional",))
_define("cc.missing_exp_refused", "An assertion without exp is refused",
        ("AUTH-2.assertion.exp", "AUTH-4.assertion-claims", "RFC7523-3"), MUST, CC,
        proven_by=("assertion_exp_optional",))
_define("cc.missing_aud_refused", "An assertion without aud is refused",
        ("AUTH-2.assertion.aud", "AUTH-4.assertion-claims", "RFC7523-3"), MUST, CC,
        proven_by=("assertion_aud_optional",))
_define("cc.missing_iss_refused", "An assertion without iss is refused",
        ("AUTH-2.assertion.iss-sub", "AUTH-4.assertion-claims", "RFC7523-3"), MUST, CC,
        proven_by=("assertion_iss_optional",))
_define("cc.missing_sub_refused", "An assertion without sub is refused",
        ("AUTH-2.assertion.iss-sub", "AUTH-4.assertion-claims", "RFC7523-3"), MUST, CC,
        proven_by=("assertion_sub_optional",))
_define("cc.other_rsa_alg_refused",
        "An assertion signed with the client's own key but RS384, RS512 or PS256 instead of RS256 is refused",
        ("AUTH-2.assertion.header", "AUTH-2.assertion.signature", "RFC8725-3.1"), MUST, CC,
        proven_by=("assertion_alg_any_rsa",))
_define("cc.typ_not_jwt_refused", "An assertion whose header typ is at+jwt instead of JWT is refused",
        ("AUTH-2.assertion.header", "RFC8725-3.11"), SHOULD, CC, proven_by=("assertion_typ_unchecked",))
_define("cc.missing_kid_refused", "An assertion without kid in its header is refused (the kid selects the key)",
        ("AUTH-2.assertion.header", "AUTH-4.assertion-signature"), MUST, CC,
        # A server that verifies no signature needs no key, so no kid to find one by.
        proven_by=("assertion_kid_optional",), may_fail_under=("assertion_signature_not_verified",))
_define("cc.assertion_type_refused",
        "A valid assertion sent with another client_assertion_type than the jwt-bearer URN is refused",
        ("AUTH-4.token-request.client-credentials", "RFC7523-2.2"), SHOULD, CC,
        proven_by=("assertion_type_unchecked",))
_define("cc.jwk_without_x5c_refused", "A client whose JWK carries no x5c gets no token",
        ("AUTH-4.assertion-certificate", "RFC7517-4.7"), MUST, CC, proven_by=("assertion_x5c_not_required",))
_define("cc.untrusted_root_refused", "A certificate that does not chain to the government root gets no token",
        ("AUTH-4.assertion-certificate", "RFC5280-6.1"), MUST, CC, proven_by=("assertion_chain_not_checked",))
_define("cc.expired_certificate_refused", "An expired certificate gets no token",
        ("AUTH-4.assertion-certificate", "RFC5280-6.1"), MUST, CC, proven_by=("assertion_cert_validity_not_checked",))
_define("cc.oin_unregistered_refused", "A certificate whose OIN no customer registered gets no token",
        ("AUTH-4.assertion-oin",), MUST, CC, proven_by=("assertion_oin_not_checked",))
_define("cc.oin_registered_twice_refused", "A certificate whose OIN two customers registered gets no token",
        ("AUTH-4.assertion-oin",), MUST, CC,
        proven_by=("assertion_oin_uniqueness_not_checked", "assertion_oin_not_checked"))
_define("cc.x5c_key_mismatch_refused",
        "A JWK whose first x5c certificate certifies another key than the JWK's gets no token",
        ("AUTH-4.assertion-certificate", "RFC7517-4.7"), MUST, CC,
        proven_by=("assertion_x5c_key_not_compared",))
_define("cc.certificate_without_oin_refused",
        "A certificate without an OIN as subject serialNumber gets no token",
        ("AUTH-4.assertion-oin",), MUST, CC, proven_by=("assertion_oin_optional", "assertion_oin_not_checked"))
_define("cc.key_rotation", "Both keys of the JWKS (current and next) are accepted, each chosen by its kid",
        ("AUTH-2.jwks",), MUST, CC, proven_by=("assertion_first_key_only",), may_fail_under=("seed_aud_refused",))

# --- using the token ------------------------------------------------------------------------------
_define("use.valid_token_accepted", "A valid token is served: 200 at the inquiry API and at the filing WSDL",
        ("AUTH-5.1", "AUTH-4.resources", "RFC6750-2.1"), MUST, USE, proven_by=("resource_rejects_valid_token",))
_define("use.filing_wsdl_is_xml", "The filing API's WSDL is served as text/xml",
        ("AUTH-4.resources",), MUST, USE, proven_by=("filing_wsdl_not_xml",), may_fail_under=_USE_BROKEN)
_define("use.missing_token_refused", "A call without a token is refused with 401",
        ("AUTH-5.1", "RFC6750-3"), MUST, USE, proven_by=("resource_open",))
_define("use.expired_token_refused", "An access token is refused once 3600 s have passed",
        ("AUTH-8.access-token-lifetime", "RFC6750-3.1"), MUST, USE, proven_by=("resource_accepts_expired_token",))
_define("use.token_alive_before_expiry", "An access token 3500 s old is still served (its lifetime is 3600 s)",
        ("AUTH-8.access-token-lifetime", "AUTH-2.token-response"), MUST, USE,
        proven_by=("access_token_dies_early",), may_fail_under=_USE_BROKEN)
_define("use.tampered_token_refused", "A token whose payload or signature was changed is refused with 401",
        ("AUTH-5.1", "RFC6750-3.1"), MUST, USE, proven_by=("resource_token_not_verified",))
_define("use.wrong_scope_forbidden", "A token of the other API's scope is refused with 403",
        ("AUTH-4.resources", "RFC6750-3.1"), MUST, USE, proven_by=("resource_scope_not_checked",))
_define("use.www_authenticate", "401 answers carry a WWW-Authenticate challenge with the scheme Bearer",
        ("RFC6750-3",), MUST, USE, proven_by=("www_authenticate_missing",),
        may_fail_under=("resource_open", "resource_token_not_verified"))
_define("use.www_authenticate_error", "The Bearer challenge to a refused token names error=invalid_token",
        ("RFC6750-3.1",), SHOULD, USE, proven_by=("www_authenticate_no_error",),
        may_fail_under=("resource_token_not_verified", "www_authenticate_missing"))
