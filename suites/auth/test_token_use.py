"""Using the access token at the APIs (seed 001 parts 4 and 5; RFC 6750).

A refusal counts only when the same call with a valid token was served (its control): an
API that refuses every token refuses the changed calls too, without judging their rule."""

from __future__ import annotations

from conformance.auth import rfc7523
from conformance.checks.auth import checks as c
from conformance.checks.auth import control
from conformance.checks.registry import MUST, SHOULD, check
from conformance.findings import expect

# Shortly before the seed's 3600 s (part 8): room for clock skew and the call itself.
ALIVE_AT_S = 3500


def _tampered(token: str) -> str:
    """A JWT gets a widened scope under its old signature; an opaque token a changed tail."""
    if token.count(".") == 2:
        return rfc7523.tamper(token, scope="registry-inzage registry.cto.aanbieden.verzoeken")
    return token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")


@check("auth.use.valid_token_accepted", MUST, "A valid token is served: 200 at the inquiry API and at the filing WSDL",
       requirements=["AUTH-5.1", "AUTH-4.resources", "RFC6750-2.1"],
       proven_by=["auth.resource_rejects_valid_token"],
       feature="part 5 / token use at the APIs")
def test_valid_token_accepted(auth_flows, cc_tokens, code_tokens):
    c.ensure_api_served(auth_flows.call_inquiry(cc_tokens.access_token), "inquiry API")
    c.ensure_api_served(auth_flows.call_filing(code_tokens.access_token), "filing WSDL")


@check("auth.use.filing_wsdl_is_xml", MUST, "The filing API's WSDL is served as text/xml",
       requirements=["AUTH-4.resources"],
       proven_by=["auth.filing_wsdl_not_xml"],
       may_fail_under=["auth.resource_rejects_valid_token"],
       feature="part 5 / token use at the APIs")
def test_filing_wsdl_is_xml(auth_flows, code_tokens):
    ex = auth_flows.call_filing(code_tokens.access_token)
    c.ensure_api_served(ex, "filing WSDL")
    expect(ex.media_type == "text/xml", "the filing WSDL is not text/xml", expected="text/xml",
           actual=ex.response_headers.get("content-type"))


@check("auth.use.missing_token_refused", MUST, "A call without a token is refused (a 4xx, not served; its status is auth.use.refused_token_401's)",
       requirements=["AUTH-5.1", "RFC6750-3"],
       proven_by=["auth.resource_open"],
       sends=["refused"],
       feature="part 5 / token use at the APIs")
def test_missing_token_refused(auth_flows, cc_tokens, code_tokens):
    control.control_served(auth_flows.call_inquiry(cc_tokens.access_token), "the inquiry API")
    control.control_served(auth_flows.call_filing(code_tokens.access_token), "the filing WSDL")
    c.ensure_api_not_served(auth_flows.call_inquiry(None), "inquiry API without a token")
    c.ensure_api_not_served(auth_flows.call_filing(None), "filing WSDL without a token")


@check("auth.use.expired_token_refused", MUST, "An access token is refused once 3600 s have passed, by the inquiry API and the filing API",
       requirements=["AUTH-8.access-token-lifetime", "RFC6750-3.1"],
       proven_by=["auth.resource_accepts_expired_token", "auth.filing_token_not_verified"],
       sends=["refused", "waits"],
       feature="part 5 / token use at the APIs")
def test_expired_token_refused(auth_clocked):
    issued = auth_clocked.cc_token()
    control.control_served(auth_clocked.call_inquiry(issued.access_token), "the inquiry API")
    _, code = auth_clocked.code_tokens()
    control.require_token(code, "a token of the code flow for the filing API", "code exchange (confidential client) -> {}")
    control.control_served(auth_clocked.call_filing(code.access_token), "the filing WSDL")
    # The longest lifetime the server states (expires_in), else the seed's 3600 s; plus a minute.
    stated = [t.body.get("expires_in") for t in (issued, code)]
    lifetime = max((s for s in stated if isinstance(s, int) and not isinstance(s, bool) and 0 < s <= 3600), default=3600)
    auth_clocked.advance(lifetime + 60)
    c.ensure_api_not_served(auth_clocked.call_inquiry(issued.access_token), f"inquiry API with a token {lifetime + 60} s old")
    c.ensure_api_not_served(auth_clocked.call_filing(code.access_token), f"filing WSDL with a token {lifetime + 60} s old")


@check("auth.use.token_alive_before_expiry", MUST, "An access token 3500 s old is still served (its lifetime is 3600 s)",
       requirements=["AUTH-8.access-token-lifetime", "AUTH-2.token-response"],
       proven_by=["auth.access_token_dies_early"],
       may_fail_under=["auth.resource_rejects_valid_token"],
       sends=["valid", "waits"],
       feature="part 5 / token use at the APIs")
def test_token_alive_before_expiry(auth_clocked):
    issued = auth_clocked.cc_token()
    token = issued.access_token
    control.control_served(auth_clocked.call_inquiry(token), "the inquiry API")
    auth_clocked.advance(ALIVE_AT_S)
    c.ensure_api_served(auth_clocked.call_inquiry(token), f"inquiry API with a token {ALIVE_AT_S} s old")


@check("auth.use.tampered_token_refused", MUST, "A token whose payload or signature was changed is refused (a 4xx, not served) by the inquiry API and the filing API",
       requirements=["AUTH-5.1", "RFC6750-3.1"],
       proven_by=["auth.resource_token_not_verified", "auth.filing_token_not_verified"],
       sends=["refused"],
       feature="part 5 / token use at the APIs")
def test_tampered_token_refused(auth_flows, cc_tokens, code_tokens):
    control.control_served(auth_flows.call_inquiry(cc_tokens.access_token), "the inquiry API")
    control.control_served(auth_flows.call_filing(code_tokens.access_token), "the filing WSDL")
    c.ensure_api_not_served(auth_flows.call_inquiry(_tampered(cc_tokens.access_token)), "a tampered token (inquiry API)")
    c.ensure_api_not_served(auth_flows.call_filing(_tampered(code_tokens.access_token)), "a tampered token (filing WSDL)")


@check("auth.use.refused_token_401", SHOULD, "A call without a token, or with a tampered one, is refused with 401 (Unauthorized)",
       requirements=["RFC6750-3.1"],
       proven_by=["auth.variant.refused_token_403"],
       may_fail_under=["auth.resource_open", "auth.resource_token_not_verified"],
       sends=["refused"],
       feature="part 5 / token use at the APIs",
       downgrade_reason="RFC 6750 3.1: invalid_token 'The resource SHOULD respond with the HTTP 401 (Unauthorized) "
                        "status code'; the seed shows no API status codes (the refusal itself is MUST: "
                        "auth.use.missing_token_refused, auth.use.tampered_token_refused)")
def test_refused_token_401(auth_flows, cc_tokens):
    control.control_served(auth_flows.call_inquiry(cc_tokens.access_token), "the inquiry API")
    c.ensure_api_refused(auth_flows.call_inquiry(None), 401, "inquiry API without a token")
    c.ensure_api_refused(auth_flows.call_inquiry(_tampered(cc_tokens.access_token)), 401, "a tampered token")


@check("auth.use.wrong_scope_refused", MUST, "A token of the other API's scope is refused (a 4xx, not served)",
       requirements=["AUTH-4.resources", "AUTH-2.token-response"],
       proven_by=["auth.resource_scope_not_checked"],
       sends=["refused"],
       feature="part 5 / token use at the APIs")
def test_wrong_scope_refused(auth_flows, cc_tokens, code_tokens):
    """Each API serves its own scope (seed part 2: the filing scope for the filing API, the
    inquiry scope for the inquiry API); the status of the refusal is the next check's."""
    control.control_served(auth_flows.call_inquiry(cc_tokens.access_token), "the inquiry API")
    control.control_served(auth_flows.call_filing(code_tokens.access_token), "the filing WSDL")
    c.ensure_api_not_served(auth_flows.call_filing(cc_tokens.access_token), "filing WSDL with the inquiry scope")
    c.ensure_api_not_served(auth_flows.call_inquiry(code_tokens.access_token), "inquiry API with the filing scope")


@check("auth.use.wrong_scope_forbidden", SHOULD, "A token of the other API's scope is refused with 403 (insufficient_scope)",
       requirements=["RFC6750-3.1"],
       proven_by=["auth.insufficient_scope_as_401", "auth.resource_scope_not_checked"],
       sends=["refused"],
       feature="part 5 / token use at the APIs")
def test_wrong_scope_forbidden(auth_flows, cc_tokens, code_tokens):
    """RFC 6750 3.1: insufficient_scope "The resource server SHOULD respond with the HTTP 403
    (Forbidden) status code"; the seed shows no API status codes."""
    control.control_served(auth_flows.call_inquiry(cc_tokens.access_token), "the inquiry API")
    control.control_served(auth_flows.call_filing(code_tokens.access_token), "the filing WSDL")
    c.ensure_api_refused(auth_flows.call_filing(cc_tokens.access_token), 403, "filing WSDL with the inquiry scope")
    c.ensure_api_refused(auth_flows.call_inquiry(code_tokens.access_token), 403, "inquiry API with the filing scope")


@check("auth.use.www_authenticate", MUST, "A refusal of a call without a token or with an invalid one carries a WWW-Authenticate challenge with the scheme Bearer",
       requirements=["RFC6750-3"],
       proven_by=["auth.www_authenticate_missing"],
       may_fail_under=["auth.resource_open", "auth.resource_token_not_verified"],
       sends=["refused"],
       observes="exchange",
       feature="part 5 / token use at the APIs")
def test_www_authenticate(auth_flows, cc_tokens):
    """RFC 6750 3 (MUST): the field is sent when the request 'does not include authentication
    credentials or does not contain an access token that enables access', whatever the status
    (401 is auth.use.refused_token_401's); its error code is the next check's."""
    control.control_served(auth_flows.call_inquiry(cc_tokens.access_token), "the inquiry API")
    missing = auth_flows.call_inquiry(None)
    c.ensure_api_not_served(missing, "inquiry API without a token")
    c.ensure_www_authenticate(missing, error=None)
    bad = auth_flows.call_inquiry(_tampered(cc_tokens.access_token))
    c.ensure_api_not_served(bad, "inquiry API with a tampered token")
    c.ensure_www_authenticate(bad, error=None)


@check("auth.use.www_authenticate_error", SHOULD, "The Bearer challenge to a refused token names error=invalid_token",
       requirements=["RFC6750-3.1"],
       proven_by=["auth.www_authenticate_no_error"],
       may_fail_under=["auth.resource_token_not_verified", "auth.www_authenticate_missing"],
       sends=["refused"],
       feature="part 5 / token use at the APIs")
def test_www_authenticate_error(auth_flows, cc_tokens):
    """RFC 6750 3 (SHOULD): a request that sent a token and failed names the error."""
    control.control_served(auth_flows.call_inquiry(cc_tokens.access_token), "the inquiry API")
    bad = auth_flows.call_inquiry(_tampered(cc_tokens.access_token))
    c.ensure_api_not_served(bad, "inquiry API with a tampered token")
    c.ensure_www_authenticate(bad, error="invalid_token")
