"""Faults of the mock authorization server: each one a single, named deviation.

The mock asks `faults.on(NAME)` at the one place where the fault misbehaves, so a fault
changes only what its name says (docs/auth-design.md, "The auth fault catalogue"). The
checks that prove them name them where they are declared, in suites/auth/ (`proven_by`).

Faults added since CONTRIBUTING.md's recipe are declared beside the behaviour they change
(assertion.py, authorize.py, resources.py, token_endpoint.py); this module imports those
modules at its end, so the catalogue (conformance/mocks/faults.py loads this module) has
them all.
"""

from __future__ import annotations

from conformance.mocks.faults import Fault, fault


def _auth(name: str, description: str, *, blocks: tuple[str, ...] = (), shows: str | tuple[str, ...] = ()) -> Fault:
    return fault(f"auth.{name}", description, blocks=blocks, shows=shows)


AUTH_FAULTS: tuple[Fault, ...] = (
    # --- authorization request and PKCE ---------------------------------------------------
    _auth("pkce_plain_accepted",
          "code_challenge_method=plain (and an absent method) is accepted; the verifier is then compared as plain", shows="code_challenge_method"),
    _auth("pkce_not_required",
          "an authorization request without code_challenge gets a code (and its exchange needs no verifier)", shows="code"),
    _auth("code_verifier_ignored",
          "the token endpoint does not compare the verifier with the challenge (missing or wrong verifier accepted)", shows="verifier"),
    _auth("code_reusable", "a code can be exchanged more than once", shows="code"),
    _auth("code_reuse_keeps_tokens", "a reused code is refused, but the tokens issued from it stay valid", shows="reused code"),
    _auth("code_never_expires", "codes are accepted after their lifetime", shows="code"),
    _auth("code_dies_early", "codes are refused 10 s after they were issued (before either of the seed's lifetimes)", shows="lifetimes"),
    _auth("redirect_uri_not_compared", "the token endpoint ignores redirect_uri", shows="redirect_uri"),
    _auth("redirect_uri_optional",
          "the token endpoint accepts a code exchange without redirect_uri (one that is sent is still compared)", shows="code exchange"),
    _auth("code_client_not_compared", "a code issued to one client is redeemed by another (authenticated) client", shows="redeemed"),
    _auth("authorize_redirects_anywhere", "the authorize endpoint redirects to an unregistered redirect_uri", shows="unregistered redirect_uri"),
    _auth("client_secret_not_checked", "a wrong client_secret is accepted (code exchange and refresh)", shows="client_secret"),
    _auth("client_secret_optional",
          "a confidential client that leaves client_secret out is accepted (code exchange and refresh); a wrong one "
          "is still refused", shows="client_secret"),
    _auth("response_type_not_checked", "any response_type (token, id_token) gets a code as if it were code", shows="response_type"),
    _auth("state_mangled", "state comes back decoded and re-encoded differently ('+' becomes a space)", shows="state"),
    _auth("consent_not_remembered", "the consent form is shown on every authorization", shows="consent form"),
    _auth("consent_per_client_only",
          "consent is remembered per user and client, whatever the scope: a new scope is not asked for", shows="new scope"),
    _auth("role_not_checked", "a user without the role Aanbieder M2M gets a code", shows="role Aanbieder"),
    # an unrelated refusal: checks that start from an authorization are blocked, not passed
    _auth("authorize_unavailable",
          "every authorization request is answered error=temporarily_unavailable (to the registered redirect_uri)",
          shows="temporarily_unavailable", blocks=("error=temporarily_unavailable",)),  # every check that starts from a code
    # --- the token response ----------------------------------------------------------------
    _auth("expires_in_not_3600", "expires_in is 7200", shows="expires_in"),
    _auth("scope_missing_in_token_response", "token responses carry no scope", shows="scope"),
    _auth("no_store_missing", "token responses carry no Cache-Control: no-store", shows="Cache-Control"),
    _auth("pragma_missing", "token responses carry no Pragma: no-cache", shows="no-cache"),
    _auth("token_content_type_no_charset", "token responses are application/json without the seed's charset", shows="application/json"),
    # not in the contract's table: asked for by auth.token.media_type_json (suites/auth/test_token_response.py)
    _auth("token_served_as_text", "token responses are served as text/plain;charset=UTF-8 (the JSON body unchanged)", shows="text/plain"),
    _auth("token_errors_not_rfc6749", "token errors are 400 {\"error\": \"invalid_request\"} whatever the cause",
          # the certificate checks cannot tell a refusal of bad material from an unknown client's
          blocks=("rather than as an unknown client",), shows="invalid_request"),
    # --- refresh -----------------------------------------------------------------------------
    _auth("refresh_grant_unsupported", "grant_type=refresh_token is answered unsupported_grant_type",
          shows="grant_type refresh_token", blocks=("error=unsupported_grant_type",)),  # every check that starts from a refresh
    _auth("refresh_never_expires", "refresh tokens are accepted after 604800 s", shows="refresh"),
    _auth("refresh_dies_early", "refresh tokens are refused one day (86400 s) after they were issued", shows="refresh"),
    # --- client credentials and the assertion ------------------------------------------------
    _auth("cc_refresh_token_issued", "client-credentials responses carry a refresh_token", shows="client-credentials"),
    _auth("assertion_replay_accepted", "a jti is not remembered", shows="assertion"),
    _auth("assertion_replay_race",
          "a jti is checked, then remembered only after a 0.5 s round trip to a (simulated) replay store: "
          "concurrent uses of one assertion all pass, a later one is refused", shows="assertion"),
    _auth("assertion_expired_accepted", "exp is not checked", shows="assertion expired"),
    _auth("assertion_aud_not_checked", "any aud is accepted", shows="aud"),
    _auth("assertion_iss_sub_not_compared", "iss different from sub is accepted (sub picks the client)", shows="sub"),
    _auth("assertion_client_by_iss",
          "iss picks the client and sub is never compared with it (an unknown iss is refused as an unknown client)", shows="sub"),
    _auth("assertion_client_id_not_compared", "a client_id in the body that differs from the assertion's sub is ignored", shows="client_id"),
    _auth("assertion_kid_ignored", "an unknown kid is accepted when any key of the JWKS verifies", shows="JWKS"),
    _auth("assertion_signature_not_verified", "the signature is not verified (other key, tampered payload accepted)", shows=("another key", "changed after signing", "kid")),
    _auth("assertion_alg_none_accepted", "alg: none is accepted", shows="alg none"),
    _auth("assertion_hs256_public_key_accepted", "alg: HS256 keyed with the client's public key (PEM) is accepted", shows="HS256 keyed"),
    _auth("assertion_jti_optional", "an assertion without jti is accepted", shows="assertion"),
    _auth("assertion_exp_optional", "an assertion without exp is accepted (an expired one is still refused)", shows="assertion"),
    _auth("assertion_aud_optional", "an assertion without aud is accepted (a wrong one is still refused)", shows="assertion"),
    _auth("assertion_iss_optional", "an assertion without iss is accepted (sub picks the client)", shows="assertion"),
    _auth("assertion_sub_optional", "an assertion without sub is accepted (iss picks the client)", shows="assertion"),
    _auth("assertion_alg_any_rsa",
          "RS384, RS512, PS256 (any RSA algorithm the header names) are verified with the client's RS256 key", shows="RS256 key"),
    _auth("assertion_typ_unchecked", "the header's typ is not looked at (typ at+jwt is accepted)", shows="typ at+jwt"),
    _auth("assertion_kid_optional", "an assertion without kid is verified with the first key of the JWKS", shows="assertion"),
    _auth("assertion_type_unchecked",
          "client_assertion_type is not compared (a JWT sent as a SAML 2.0 bearer assertion is accepted)", shows="client_assertion_type"),
    _auth("assertion_x5c_key_not_compared",
          "the key of the first x5c certificate is not compared with the JWK's key (the chain is still verified)", shows="x5c"),
    _auth("assertion_oin_optional",
          "a certificate without serialNumber (no OIN) is accepted; an OIN present is still looked up", shows="serialNumber"),
    _auth("assertion_x5c_not_required", "a JWK without x5c is accepted", shows="x5c"),
    _auth("assertion_chain_not_checked", "a certificate from another root is accepted", shows="another root"),
    _auth("assertion_cert_validity_not_checked", "an expired certificate is accepted", shows="certificate"),
    _auth("assertion_oin_not_checked", "an OIN that no customer registered is accepted", shows="oin"),
    _auth("assertion_oin_uniqueness_not_checked", "an OIN registered at two customers is accepted", shows="OIN registered"),
    _auth("assertion_first_key_only", "only the first key of the JWKS is used (the rotated key is refused)", shows="assertion"),
    _auth("seed_aud_refused",
          "only https://{auth_host}/auth/oauth/v2/token is accepted as aud (the seed's form is refused)",
          shows="valid client assertion", blocks=("aud is not this token endpoint",)),  # the controls of the assertion checks
    # --- the resource servers ----------------------------------------------------------------
    _auth("resource_rejects_valid_token", "resource servers answer 401 to every token",
          shows="valid", blocks=("with a valid token -> 401",)),  # the controls of the token-use checks
    _auth("resource_open", "resource servers answer 200 without a token", shows="200"),
    _auth("resource_accepts_expired_token", "resource servers ignore exp", shows="exp"),
    _auth("resource_token_not_verified", "resource servers do not verify the token signature", shows="tampered token"),
    _auth("resource_scope_not_checked", "resource servers ignore the scope", shows="scope"),
    _auth("www_authenticate_missing", "401 answers carry no WWW-Authenticate", shows="WWW-Authenticate"),
    _auth("www_authenticate_no_error", "401 answers carry a bare Bearer challenge, without error=invalid_token", shows="Bearer challenge"),
    _auth("access_token_dies_early", "resource servers refuse access tokens 1800 s after issue (expires_in says 3600)", shows="3500 s old"),
    _auth("filing_wsdl_not_xml", "the filing WSDL is served as application/json", shows="application/json"),
)

# The faults declared beside their behaviour (see the module's docstring).
from conformance.mocks.auth import assertion, authorize, resources, token_endpoint  # noqa: E402,F401
