"""The authorization endpoint with its login and consent pages (seed part 2; RFC 6749 4.1,
RFC 7636 4.3/4.4).

An unknown client or an unregistered redirect_uri gets an HTML 400 page and no redirect;
every later error goes back to the redirect_uri with `error` and `state` (4.1.2.1). A
valid request waits as a PendingRequest, bound to the browser session cookie, while the
user logs in and consents; consent is remembered per user, client and scope.
"""

from __future__ import annotations

import hmac
import secrets
from html import escape
from urllib.parse import urlencode, urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from conformance.auth import rfc7636
from conformance.mocks.auth.config import SCOPE_ROLES
from conformance.mocks.auth.forms import FormError, Params, form_params, query_params, safe_text
from conformance.mocks.auth.state import AuthMock, PendingRequest
from conformance.mocks.faults import fault

# The authorization response's faults of issue 42, declared beside what they change
# (CONTRIBUTING.md); the older ones are in faults.py.
CODE_IN_FRAGMENT = fault(
    "auth.authorize_code_in_fragment",
    "the redirect that carries the code puts code and state in the fragment (#code=...&state=...), not the query", shows="fragment")
CODE_REDIRECT_303 = fault(
    "auth.authorize_code_redirect_303", "the redirect that carries the code is a 303 See Other, not the seed's 302", shows="redirect")
# Issue 51: PKCE held only against the confidential client (a public client, which has no
# secret to lose, is the one PKCE exists for).
PUBLIC_CLIENT_WITHOUT_PKCE = fault(
    "auth.public_client_pkce_not_enforced",
    "the public client's authorization requests need no code_challenge and its code exchanges no matching "
    "code_verifier (a missing or wrong one is accepted); the confidential client is held to PKCE as before", shows="public")
# Issue 50: the implicit grant a server should not offer, with a live token in the redirect's
# fragment, which reports must never show.
TOKEN_IN_FRAGMENT = fault(
    "auth.implicit_token_in_fragment",
    "response_type=token is answered at once with a 302 to the redirect_uri carrying a live access token in its "
    "fragment (#access_token=...&token_type=Bearer&expires_in=3600&state=...)", shows="response_type")

SESSION_COOKIE = "mock_auth_session"
LOGIN_PATH = "/auth/login"
CONSENT_PATH = "/auth/consent"
_PAGE_HEADERS = {"Cache-Control": "no-store", "X-Frame-Options": "DENY"}
_AUTHZ_PARAMS = ("response_type", "client_id", "state", "scope", "redirect_uri", "nonce",
                 "code_challenge", "code_challenge_method")


class AuthorizeError(Exception):
    """An error that travels back to the client in the redirect (RFC 6749 4.1.2.1)."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error
        self.description = description


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    html = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{escape(title)}</title></head>\n"
            f"<body>\n<h1>{escape(title)}</h1>\n{body}\n</body></html>\n")
    return HTMLResponse(html, status_code=status, headers=dict(_PAGE_HEADERS))


def error_page(message: str, status: int = 400) -> HTMLResponse:
    return page("Authorization error", f"<p>{escape(message)}</p>", status)


# --- GET /auth/oauth/v2/authorize ----------------------------------------------------------------
async def authorize(mock: AuthMock, request: Request) -> Response:
    if request.method not in ("GET", "HEAD"):
        return error_page("the authorization endpoint takes GET requests", 405)
    try:
        params = query_params(request)
    except FormError as exc:
        return error_page(f"malformed authorization request: {exc}")
    client_id, redirect_uri = params.get("client_id"), params.get("redirect_uri")
    client = mock.config.clients.get(client_id or "")
    if client is None or params.repeated(("client_id",)):
        return error_page("unknown client_id: this request is not redirected")
    registered = redirect_uri in client.redirect_uris and not params.repeated(("redirect_uri",))
    if not registered and not (mock.on("auth.authorize_redirects_anywhere") and _redirectable(redirect_uri)):
        return error_page("the redirect_uri is not registered for this client: this request is not redirected")
    assert redirect_uri is not None
    state = params.get("state")
    if mock.on("auth.authorize_unavailable"):
        return _redirect(mock, redirect_uri, state, error="temporarily_unavailable",
                         error_description="the authorization service is unavailable")
    if params.get("response_type") == "token" and mock.on(TOKEN_IN_FRAGMENT):
        issued = mock.tokens.issue(client_id=client.client_id, subject=client.client_id,
                                   scope=" ".join(client.scopes[:1]), refresh=False)
        fields = [("access_token", issued.access_token), ("token_type", "Bearer"), ("expires_in", "3600")]
        fields += [("state", state)] if state is not None else []
        return RedirectResponse(redirect_uri + "#" + urlencode(fields), status_code=302,
                                headers={"Cache-Control": "no-store"})
    try:
        scope, challenge, method = _validate(mock, params, client.scopes,
                                             without_pkce=client.kind == "public" and mock.on(PUBLIC_CLIENT_WITHOUT_PKCE))
    except AuthorizeError as err:
        return _redirect(mock, redirect_uri, state, error=err.error, error_description=safe_text(err.description))
    session = request.cookies.get(SESSION_COOKIE)
    if not mock.has_session(session):
        session = mock.new_session()
    pending = PendingRequest(secrets.token_urlsafe(24), session, client.client_id, redirect_uri, scope, state,
                             challenge, method, mock.now())
    mock.add_pending(pending)
    user = mock.session_user(session)
    response = _after_login(mock, request, pending, user) if user else _goto(request, LOGIN_PATH, pending)
    if request.cookies.get(SESSION_COOKIE) != session:
        response.set_cookie(SESSION_COOKIE, session, path="/auth", httponly=True, samesite="lax")
    return response


def _validate(mock: AuthMock, params: Params, allowed: tuple[str, ...], *,
              without_pkce: bool = False) -> tuple[str, str | None, str | None]:
    repeated = params.repeated()
    if repeated:
        raise AuthorizeError("invalid_request", f"repeated parameter: {repeated[0][:40]}")
    response_type = params.get("response_type")
    if response_type is None:
        raise AuthorizeError("invalid_request", "response_type is missing")
    if response_type != "code" and not mock.on("auth.response_type_not_checked"):
        raise AuthorizeError("unsupported_response_type", "only response_type=code is supported")
    challenge, method = params.get("code_challenge"), params.get("code_challenge_method") or "plain"
    if challenge is None:
        if not mock.on("auth.pkce_not_required") and not without_pkce:
            raise AuthorizeError("invalid_request", "code_challenge is required (PKCE, S256)")
        method = None
    elif method == "plain" and mock.on("auth.pkce_plain_accepted"):
        if not rfc7636.is_valid_verifier(challenge):  # a plain challenge is a verifier
            raise AuthorizeError("invalid_request", "the plain code_challenge is malformed")
    elif method != "S256":
        raise AuthorizeError("invalid_request", "transform algorithm not supported: code_challenge_method must be S256")
    elif not rfc7636.is_valid_s256_challenge(challenge):
        raise AuthorizeError("invalid_request", "code_challenge is not 43 base64url characters")
    scope = params.get("scope")
    requested = list(dict.fromkeys(scope.split(" "))) if scope else []
    if not requested or "" in requested or any(s not in allowed for s in requested):
        raise AuthorizeError("invalid_scope", "the scope is missing or not allowed for this client")
    return " ".join(requested), challenge, method


def _redirectable(uri: str | None) -> bool:
    try:
        parts = urlsplit(uri or "")
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not parts.fragment


def _redirect(mock: AuthMock, redirect_uri: str, state: str | None, **fields: str) -> Response:
    """302 to the client with `fields` and `state` added to the redirect_uri's own query
    (seed part 4: "via 302 redirect"; part 2: "query parameters `state` and `code`")."""
    query = list(fields.items())
    if state is not None:
        if mock.on("auth.state_mangled"):
            state = state.replace("+", " ")  # decoded once too often on the way back
        query.append(("state", state))
    with_code = "code" in fields
    status = 303 if with_code and mock.on(CODE_REDIRECT_303) else 302
    if with_code and mock.on(CODE_IN_FRAGMENT):
        return RedirectResponse(redirect_uri + "#" + urlencode(query), status_code=status,
                                headers={"Cache-Control": "no-store"})
    separator = "&" if "?" in redirect_uri else "?"
    return RedirectResponse(redirect_uri + separator + urlencode(query), status_code=status,
                            headers={"Cache-Control": "no-store"})


def _goto(request: Request, path: str, pending: PendingRequest) -> Response:
    url = str(request.base_url).rstrip("/") + path + "?" + urlencode({"request_id": pending.request_id})
    return RedirectResponse(url, status_code=302, headers={"Cache-Control": "no-store"})


def _after_login(mock: AuthMock, request: Request, pending: PendingRequest, username: str) -> Response:
    user = mock.config.users.get(username)
    roles = user.roles if user else ()
    needed = {SCOPE_ROLES[s] for s in pending.scope.split() if s in SCOPE_ROLES}
    if not needed <= set(roles) and not mock.on("auth.role_not_checked"):
        mock.drop_pending(pending)
        return _redirect(mock, pending.redirect_uri, pending.state, error="access_denied",
                         error_description="the user lacks the role this scope needs")
    remembered = mock.consented(username, pending.client_id, pending.scope) or (
        mock.on("auth.consent_per_client_only") and mock.consented(username, pending.client_id, None))
    if remembered and not mock.on("auth.consent_not_remembered"):
        return _issue_code(mock, pending, username)
    return _goto(request, CONSENT_PATH, pending)


def _issue_code(mock: AuthMock, pending: PendingRequest, username: str) -> Response:
    if not mock.drop_pending(pending):
        return error_page("this authorization request was already completed")
    code = mock.tokens.new_code(client_id=pending.client_id, redirect_uri=pending.redirect_uri,
                                scope=pending.scope, challenge=pending.challenge, method=pending.method,
                                username=username)
    return _redirect(mock, pending.redirect_uri, pending.state, code=code)


# --- /auth/login and /auth/consent ----------------------------------------------------------------
async def _pending_for(mock: AuthMock, request: Request) -> tuple[PendingRequest | None, Params | None, str]:
    try:
        params = await form_params(request) if request.method == "POST" else query_params(request)
    except FormError as exc:
        return None, None, f"malformed request: {exc}"
    if params.repeated():
        return None, None, "a parameter was given more than once"
    pending = mock.pending(params.get("request_id"), request.cookies.get(SESSION_COOKIE))
    if pending is None:
        return None, None, "unknown or expired authorization request (or another browser session)"
    return pending, params, ""


async def login(mock: AuthMock, request: Request) -> Response:
    if request.method not in ("GET", "POST"):
        return error_page("method not allowed", 405)
    pending, params, problem = await _pending_for(mock, request)
    if pending is None or params is None:
        return error_page(problem)
    session = pending.session
    current = mock.session_user(session)
    if current:
        return _after_login(mock, request, pending, current)
    if request.method == "GET":
        return _login_form(pending, "")
    username, password = params.get("username") or "", params.get("password") or ""
    user = mock.config.users.get(username)
    if user is None or not hmac.compare_digest(password.encode(), user.password.encode()):
        return _login_form(pending, "Unknown username or wrong password.")
    mock.log_in(session, username)
    return _after_login(mock, request, pending, username)


def _login_form(pending: PendingRequest, message: str) -> HTMLResponse:
    note = f"<p>{escape(message)}</p>\n" if message else ""
    return page("Log in", (
        f"{note}<form method=\"post\" action=\"{LOGIN_PATH}\">\n"
        f"<input type=\"hidden\" name=\"request_id\" value=\"{escape(pending.request_id)}\">\n"
        "<p><label>Username <input type=\"text\" name=\"username\"></label></p>\n"
        "<p><label>Password <input type=\"password\" name=\"password\"></label></p>\n"
        "<p><button type=\"submit\">Log in</button></p>\n</form>"))


async def consent(mock: AuthMock, request: Request) -> Response:
    if request.method not in ("GET", "POST"):
        return error_page("method not allowed", 405)
    pending, params, problem = await _pending_for(mock, request)
    if pending is None or params is None:
        return error_page(problem)
    username = mock.session_user(pending.session)
    if not username:
        return _goto(request, LOGIN_PATH, pending)
    if request.method == "GET":
        return page("Consent", (
            f"<p>The application {escape(pending.client_id)} asks for access to: "
            f"{escape(pending.scope)}.</p>\n"
            f"<form method=\"post\" action=\"{CONSENT_PATH}\">\n"
            f"<input type=\"hidden\" name=\"request_id\" value=\"{escape(pending.request_id)}\">\n"
            "<button type=\"submit\" name=\"decision\" value=\"approve\">Approve</button>\n"
            "<button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button>\n</form>"))
    decision = params.get("decision")
    if decision == "approve":
        mock.remember_consent(username, pending.client_id, pending.scope)
        return _issue_code(mock, pending, username)
    if decision == "deny":
        mock.drop_pending(pending)
        return _redirect(mock, pending.redirect_uri, pending.state, error="access_denied",
                         error_description="the user denied the request")
    return error_page("decision must be approve or deny")
