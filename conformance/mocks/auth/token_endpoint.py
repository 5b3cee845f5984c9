"""The token endpoint (seed part 4: the four grant bodies; RFC 6749 4.1.3, 4.4, 5, 6;
RFC 7636 4.6; RFC 7521/7523 for the client assertion).

POST with a form body only. Success and errors both carry `Cache-Control: no-store` and
`Pragma: no-cache` and are `application/json;charset=UTF-8`; errors are RFC 6749 5.2 JSON.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
from typing import Any
from urllib.parse import unquote_plus

from starlette.requests import Request
from starlette.responses import Response

from conformance.auth import rfc7636
from conformance.mocks.auth.assertion import ASSERTION_TYPE, AssertionRefused
from conformance.mocks.auth.config import ClientRegistration
from conformance.mocks.auth.forms import FormError, Params, form_params, safe_text
from conformance.mocks.auth.state import AuthMock
from conformance.mocks.auth.tokens import CodeGrant, Issued
from conformance.mocks.faults import fault, variant

# The refresh grant's faults of issue 42, declared beside what they change (CONTRIBUTING.md);
# the older ones are in faults.py.
REFRESH_NO_REFRESH_TOKEN = fault(
    "auth.refresh_no_refresh_token",
    "refresh responses carry no refresh_token (the one presented stays valid)", shows="refresh_token")
REFRESH_CLIENT_NOT_COMPARED = fault(
    "auth.refresh_client_not_compared",
    "a refresh token issued to one client is redeemed by another (authenticated) client", shows="refresh")
REFRESH_UNKNOWN_ACCEPTED = fault(
    "auth.refresh_unknown_accepted",
    "a refresh token the server never issued is accepted: the authenticated client gets a token of its first scope", shows="never issued")
REFRESH_EXPIRES_IN_STRING = fault(
    "auth.refresh_expires_in_string", 'refresh responses give expires_in as the string "3600" (code and '
    "client-credentials responses stay right)", shows="expires_in")
REFRESH_MEDIA_TYPE_NO_CHARSET = fault(
    "auth.refresh_media_type_no_charset",
    "refresh responses are application/json without the seed's charset (code and client-credentials responses "
    "stay right)", shows="application/json")

# Issue 50: token responses whose encoding a reader must undo to see the tokens (a report must
# never show them); both break the seed's media type.
TOKEN_BOM_TEXT = fault(
    "auth.token_served_bom_text",
    "token responses start with a UTF-8 byte order mark and are labelled text/plain;charset=UTF-8", shows="UTF-8")
TOKEN_UTF16 = fault(
    "auth.token_served_utf16",
    "token responses are UTF-16 (with its byte order mark), labelled text/plain;charset=UTF-16", shows="charset")

# Issue 51: the server's side of PKCE is the comparison (RFC 7636 4.6); the verifier's syntax
# is the client's duty (4.1).
VERIFIER_BY_HASH_ONLY = variant(
    "auth.variant.verifier_checked_by_hash_only",
    "a verifier of the wrong length or with characters outside the unreserved set is accepted when it hashes to "
    "the challenge (the server checks only the S256 comparison)",
    allowed_by="RFC 7636 4.6: the server verifies by calculating the code challenge from the received verifier and "
               "comparing it; 4.1 states the verifier's syntax as what the client creates")

JSON_UTF8 = "application/json;charset=UTF-8"
# Under the faults auth.code_dies_early and auth.refresh_dies_early: a life shorter than
# both of the seed's code lifetimes, and a refresh token that dies after a day of its seven.
EARLY_CODE_DEATH_S = 10
EARLY_REFRESH_DEATH_S = 86400


class TokenError(Exception):
    def __init__(self, error: str, description: str, status: int = 400, headers: dict[str, str] | None = None):
        super().__init__(description)
        self.error, self.description, self.status, self.headers = error, description, status, headers or {}


def _json(mock: AuthMock, body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None,
          *, grant: str | None = None) -> Response:
    headers = dict(headers or {})
    if not mock.on("auth.no_store_missing"):
        headers["Cache-Control"] = "no-store"
    if not mock.on("auth.pragma_missing"):
        headers["Pragma"] = "no-cache"
    media_type = JSON_UTF8
    content = json.dumps(body).encode("utf-8")
    if mock.on(TOKEN_BOM_TEXT):
        media_type, content = "text/plain;charset=UTF-8", b"\xef\xbb\xbf" + content
    elif mock.on(TOKEN_UTF16):
        media_type, content = "text/plain;charset=UTF-16", json.dumps(body).encode("utf-16")
    elif mock.on("auth.token_served_as_text"):
        media_type = "text/plain;charset=UTF-8"
    elif mock.on("auth.token_content_type_no_charset") or (
            grant == "refresh_token" and mock.on(REFRESH_MEDIA_TYPE_NO_CHARSET)):
        media_type = "application/json"
    return Response(content, status_code=status, headers=headers, media_type=media_type)


def error_response(mock: AuthMock, err: TokenError) -> Response:
    if mock.on("auth.token_errors_not_rfc6749"):
        return _json(mock, {"error": "invalid_request"}, 400)
    return _json(mock, {"error": err.error, "error_description": safe_text(err.description)}, err.status, err.headers)


async def token(mock: AuthMock, request: Request) -> Response:
    try:
        return await _token(mock, request)
    except TokenError as err:
        return error_response(mock, err)


async def _token(mock: AuthMock, request: Request) -> Response:
    if request.method != "POST":
        raise TokenError("invalid_request", "the token endpoint takes POST only", 405, {"Allow": "POST"})
    if request.scope.get("query_string"):
        raise TokenError("invalid_request", "parameters belong in the form body, not in the query string")
    try:
        params = await form_params(request)
    except FormError as exc:
        raise TokenError("invalid_request", str(exc)) from None
    repeated = params.repeated()
    if repeated:
        raise TokenError("invalid_request", f"repeated parameter: {repeated[0][:40]}")
    grant_type = params.get("grant_type")
    if grant_type is None:
        raise TokenError("invalid_request", "grant_type is missing")
    if grant_type == "authorization_code":
        issued = _authorization_code(mock, request, params)
    elif grant_type == "refresh_token":
        if mock.on("auth.refresh_grant_unsupported"):
            raise TokenError("unsupported_grant_type", "grant_type refresh_token is not supported")
        issued = _refresh(mock, request, params)
    elif grant_type == "client_credentials":
        issued = await _client_credentials(mock, request, params)
    else:
        raise TokenError("unsupported_grant_type", "grant_type must be authorization_code, refresh_token or client_credentials")
    return _success(mock, issued, grant_type)


def _success(mock: AuthMock, issued: Issued, grant: str) -> Response:
    expires_in: int | str = 7200 if mock.on("auth.expires_in_not_3600") else mock.config.access_token_lifetime_s
    if grant == "refresh_token" and mock.on(REFRESH_EXPIRES_IN_STRING):
        expires_in = str(expires_in)
    body: dict[str, Any] = {"access_token": issued.access_token, "token_type": "Bearer", "expires_in": expires_in}
    if issued.refresh_token is not None:
        body["refresh_token"] = issued.refresh_token
    if not mock.on("auth.scope_missing_in_token_response"):
        body["scope"] = issued.scope
    return _json(mock, body, grant=grant)


# --- client authentication with a secret (code and refresh grants) --------------------------------
def _authenticate(mock: AuthMock, request: Request, params: Params) -> ClientRegistration:
    basic = _basic_credentials(request)
    client_id, secret = params.get("client_id"), params.get("client_secret")
    challenge = {}
    if basic is not None:
        if secret is not None or "client_assertion" in params:
            raise TokenError("invalid_request", "more than one client authentication method")
        if client_id is not None and client_id != basic[0]:
            raise TokenError("invalid_request", "client_id differs from the HTTP Basic user")
        client_id, secret = basic
        challenge = {"WWW-Authenticate": 'Basic realm="registry"'}
    client = mock.config.clients.get(client_id or "")
    if client is None:
        raise TokenError("invalid_client", "unknown client", 401, challenge)
    if client.kind == "confidential":
        right = (client.secret or "").encode()
        omitted_ok = secret is None and mock.on("auth.client_secret_optional")
        if not mock.on("auth.client_secret_not_checked") and not omitted_ok and (
                secret is None or not right or not hmac.compare_digest(secret.encode(), right)):
            raise TokenError("invalid_client", "client authentication failed", 401, challenge)
    elif client.kind == "public":
        if secret is not None:
            raise TokenError("invalid_client", "a public client has no client_secret", 401, challenge)
    else:
        raise TokenError("invalid_client", "this client authenticates with a client assertion", 401, challenge)
    return client


def _basic_credentials(request: Request) -> tuple[str, str] | None:
    value = request.headers.get("authorization")
    if value is None:
        return None
    scheme, _, encoded = value.partition(" ")
    if scheme.lower() != "basic":
        raise TokenError("invalid_request", "only HTTP Basic is accepted in the Authorization header")
    try:
        user, sep, password = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, ValueError):
        user, sep, password = "", "", ""
    if not sep or not user:
        raise TokenError("invalid_client", "malformed HTTP Basic credentials", 401,
                         {"WWW-Authenticate": 'Basic realm="registry"'})
    return unquote_plus(user), unquote_plus(password)  # RFC 6749 2.3.1: form-encoded first


# --- authorization_code ------------------------------------------------------------------------------
def _authorization_code(mock: AuthMock, request: Request, params: Params) -> Issued:
    client = _authenticate(mock, request, params)
    code = params.get("code")
    if code is None:
        raise TokenError("invalid_request", "code is missing")
    store = mock.tokens
    grant = store.code(code)
    if grant is None or (grant.client_id != client.client_id and not mock.on("auth.code_client_not_compared")):
        raise TokenError("invalid_grant", "unknown code, or a code of another client")
    if grant.used and not mock.on("auth.code_reusable"):
        _code_reused(mock, grant)
    if (store.code_expired(grant) and not mock.on("auth.code_never_expires")) or _dies_early(
            mock, "auth.code_dies_early", grant.issued_at, EARLY_CODE_DEATH_S):
        raise TokenError("invalid_grant", "the code has expired")
    if not mock.on("auth.redirect_uri_not_compared"):
        redirect_uri = params.get("redirect_uri")
        if redirect_uri is None and not mock.on("auth.redirect_uri_optional"):
            raise TokenError("invalid_request", "redirect_uri is missing (it was in the authorization request)")
        if redirect_uri is not None and redirect_uri != grant.redirect_uri:
            raise TokenError("invalid_grant", "redirect_uri differs from the authorization request's")
    _check_verifier(mock, grant, params.get("code_verifier"))
    if not store.claim_code(grant) and not mock.on("auth.code_reusable"):
        _code_reused(mock, grant)  # another exchange of the same code won the race
    return store.issue(client_id=client.client_id, subject=grant.username, scope=grant.scope,
                       family=grant.family, refresh=True)


def _dies_early(mock: AuthMock, fault: str, issued_at: float, seconds: int) -> bool:
    return mock.on(fault) and mock.now() >= issued_at + seconds


def _code_reused(mock: AuthMock, grant: CodeGrant) -> None:
    if not mock.on("auth.code_reuse_keeps_tokens"):
        mock.tokens.revoke_family(grant.family)  # RFC 6749 4.1.2: revoke what the code gave
    raise TokenError("invalid_grant", "the code was used before")


def _check_verifier(mock: AuthMock, grant: CodeGrant, verifier: str | None) -> None:
    if grant.challenge is None:
        return  # issued without PKCE (fault pkce_not_required): there is nothing to compare
    client = mock.config.clients.get(grant.client_id)
    if client is not None and client.kind == "public" and mock.on("auth.public_client_pkce_not_enforced"):
        return  # the fault: the public client's verifier is never compared
    if verifier is None:
        if mock.on("auth.code_verifier_ignored") or mock.on("auth.pkce_not_required"):
            return
        raise TokenError("invalid_request", "code_verifier is missing")
    if not rfc7636.is_valid_verifier(verifier) and not mock.on(VERIFIER_BY_HASH_ONLY.name):
        raise TokenError("invalid_request", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
    if mock.on("auth.code_verifier_ignored"):
        return
    computed = verifier if grant.method == "plain" else rfc7636.s256(verifier)
    if not hmac.compare_digest(computed.encode(), grant.challenge.encode()):
        raise TokenError("invalid_grant", "code_verifier does not match the code_challenge")


# --- refresh_token -------------------------------------------------------------------------------------
def _refresh(mock: AuthMock, request: Request, params: Params) -> Issued:
    client = _authenticate(mock, request, params)
    token = params.get("refresh_token")
    if token is None:
        raise TokenError("invalid_request", "refresh_token is missing")
    store = mock.tokens
    grant = store.refresh_grant(token)
    if grant is None and mock.on(REFRESH_UNKNOWN_ACCEPTED) and client.scopes:
        # the fault: whatever the token, the client gets a grant of its first scope
        return store.issue(client_id=client.client_id, subject=client.client_id, scope=client.scopes[0],
                           refresh=not mock.on(REFRESH_NO_REFRESH_TOKEN))
    if grant is None or (grant.client_id != client.client_id and not mock.on(REFRESH_CLIENT_NOT_COMPARED)):
        raise TokenError("invalid_grant", "unknown refresh token, or one of another client")
    if (store.refresh_expired(grant) and not mock.on("auth.refresh_never_expires")) or _dies_early(
            mock, "auth.refresh_dies_early", grant.issued_at, EARLY_REFRESH_DEATH_S):
        raise TokenError("invalid_grant", "the refresh token has expired")
    scope = grant.scope
    requested = params.get("scope")
    if requested is not None:
        if not set(requested.split(" ")) <= set(grant.scope.split()):
            raise TokenError("invalid_scope", "the scope exceeds the original grant")
        scope = " ".join(dict.fromkeys(requested.split(" ")))
    if mock.on(REFRESH_NO_REFRESH_TOKEN):  # no rotation: the presented token stays the client's
        if not store.refresh_active(grant):
            raise TokenError("invalid_grant", "the refresh token was used before or revoked")
        return store.issue(client_id=client.client_id, subject=grant.subject, scope=scope, family=grant.family,
                           refresh=False)
    if not store.retire_refresh(grant):
        raise TokenError("invalid_grant", "the refresh token was used before or revoked")
    return store.issue(client_id=client.client_id, subject=grant.subject, scope=scope, family=grant.family,
                       refresh=True)


# --- client_credentials ----------------------------------------------------------------------------------
async def _client_credentials(mock: AuthMock, request: Request, params: Params) -> Issued:
    assertion, assertion_type = params.get("client_assertion"), params.get("client_assertion_type")
    if assertion is None and assertion_type is None:
        raise TokenError("invalid_client", "no client authentication (client_assertion)", 401)
    if assertion is None or assertion_type is None:
        raise TokenError("invalid_request", "client_assertion and client_assertion_type go together")
    if "client_secret" in params or request.headers.get("authorization"):
        raise TokenError("invalid_request", "more than one client authentication method")
    if assertion_type != ASSERTION_TYPE and not mock.on("auth.assertion_type_unchecked"):
        raise TokenError("invalid_client", f"client_assertion_type must be {ASSERTION_TYPE}", 401)
    try:
        client = await mock.validator.validate(assertion, params.get("client_id"))
    except AssertionRefused as exc:
        raise TokenError("invalid_client", str(exc), 401) from None
    scope = params.get("scope")
    requested = list(dict.fromkeys(scope.split(" "))) if scope else []
    if not requested or any(s not in client.scopes for s in requested):
        raise TokenError("invalid_scope", "the scope is missing or not allowed for this client")
    return mock.tokens.issue(client_id=client.client_id, subject=client.client_id, scope=" ".join(requested),
                             refresh=mock.on("auth.cc_refresh_token_issued"))
