"""The login drivers (conformance.auth.login) and the login Browser (conformance.auth.browser)
against small authorization servers written here, each with its own markup, so the form
driver is shown to read forms rather than to know one server's pages:

* `java` : `j_username`/`j_password`, upper-case unquoted markup, a language form before the
  login form, a consent page with `<button name=deny>` before `<input type=submit name=action
  value=Allow>`, absolute actions, 302s.
* `dutch`: an e-mail username between a search box and the password, relative actions, a
  307 that repeats the login POST, 303s, a consent form without action whose deny button
  reads "Niet toestaan", and an `iss` parameter in the final redirect.
* `cookie`: a GET login form whose action carries a query (HTML replaces it), a session
  cookie set at login and required at consent, remembered consent (for ImmediateDriver).
* `odd`: pages a driver cannot walk (loops, no form, error pages), a two-step login and a
  redirect-only authorization.

All run as real uvicorn servers on 127.0.0.1; the redirect_uri points at a closed port, so a
driver that followed the last redirect instead of stopping there would fail.
"""

from __future__ import annotations

import html
import io
import secrets
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from conformance.auth.browser import Browser
from conformance.auth.login import (
    AuthorizationResult,
    FormLoginDriver,
    ImmediateDriver,
    LoginError,
    ManualDriver,
    Page,
    driver_from_settings,
    form_fields,
    is_redirect_uri,
    parse_authorization_response,
    refresh_token_bootstrap,
)
from conformance.errors import ConfigError
from conformance.http.client import Recorder
from conformance.http.exchange import Exchange, Headers
from conformance.http.redaction import MASK, Redactor
from conformance.mocks.launcher import ServerThread

REDIRECT_URI = "http://127.0.0.1:9/callback"  # port 9 (discard) is closed: never contacted
TRICKY_STATE = "a+b/c%2F d~é&x=1"
SHORT_PASSWORD = "Zq#9"  # below the Redactor's six characters: masked by field name only
LONG_PASSWORD = "correct horse battery"

Users = dict[str, tuple[str, bool]]  # username -> (password, has the role)
USERS: Users = {"alice": (SHORT_PASSWORD, True), "bob": (LONG_PASSWORD, True), "norole": ("nor0le-pass", False)}


@dataclass
class Server:
    """A test authorization server: where it listens and what it received."""

    base: str
    posts: list[list[tuple[str, str]]] = field(default_factory=list)
    queries: list[list[tuple[str, str]]] = field(default_factory=list)

    def authorize_url(self, path: str, state: str = "st-1", redirect_uri: str = REDIRECT_URI) -> str:
        query = urlencode({"response_type": "code", "client_id": "c1", "state": state, "redirect_uri": redirect_uri})
        return f"{self.base}{path}?{query}"


async def form_of(request: Request) -> FormData:
    """The url-encoded form body (python-multipart, which Starlette's own parser needs, is
    not a dependency of the project)."""
    return FormData(parse_qsl((await request.body()).decode("utf-8"), keep_blank_values=True))


def _redirect_to_client(redirect_uri: str, params: dict[str, str], status: int = 302) -> Response:
    joiner = "&" if "?" in redirect_uri else "?"
    return RedirectResponse(redirect_uri + joiner + urlencode(params, quote_via=quote), status_code=status)


# --------------------------------------------------------------------------- server "java"
JAVA_LOGIN = """<!DOCTYPE html>
<HTML><HEAD><TITLE>Sign on - Registry</TITLE></HEAD><BODY>
<FORM action=/a/lang><SELECT name=lang><OPTION>nl<OPTION selected>en</SELECT><INPUT type=submit value=Go></FORM>
<FORM method=POST action='/a/j_security_check'>
 <INPUT type=hidden name=rid value='{rid}'>
 <LABEL>User <INPUT name=j_username></LABEL>
 <LABEL>Password <INPUT type=password name=j_password></LABEL>
 <INPUT type=checkbox name=remember value=1> remember me
 <INPUT type=submit name=login value='Log in'>
</FORM></BODY></HTML>"""

JAVA_CONSENT = """<!DOCTYPE html><HTML><HEAD><TITLE>Consent</TITLE></HEAD><BODY>
<P>Client c1 asks for registry.cto.aanbieden.verzoeken</P>
<FORM method=post action=/a/consent>
 <INPUT type=hidden name=rid value="{rid}">
 <INPUT type=checkbox name=scope value=registry.cto.aanbieden.verzoeken checked>
 <BUTTON name=deny>Deny</BUTTON>
 <INPUT type=submit name=action value=Allow>
</FORM></BODY></HTML>"""


def java_app(server: Server, users: Users) -> Starlette:
    pending: dict[str, dict[str, str]] = {}

    async def authorize(request: Request) -> Response:
        rid = secrets.token_hex(8)
        pending[rid] = dict(request.query_params)
        return RedirectResponse(f"/a/login?rid={rid}", status_code=302)

    async def login_page(request: Request) -> Response:
        return HTMLResponse(JAVA_LOGIN.format(rid=html.escape(request.query_params["rid"])))

    async def security_check(request: Request) -> Response:
        form = await form_of(request)
        server.posts.append(list(form.multi_items()))
        rid = str(form["rid"])
        user = users.get(str(form.get("j_username")))
        if user is None or user[0] != form.get("j_password"):
            return HTMLResponse(JAVA_LOGIN.format(rid=html.escape(rid)))
        pending[rid]["user"] = str(form["j_username"])
        return RedirectResponse(f"/a/consent?rid={rid}", status_code=302)

    async def consent_page(request: Request) -> Response:
        return HTMLResponse(JAVA_CONSENT.format(rid=html.escape(request.query_params["rid"])))

    async def consent(request: Request) -> Response:
        form = await form_of(request)
        server.posts.append(list(form.multi_items()))
        request_ = pending.pop(str(form["rid"]))
        params = {"state": request_["state"]}
        if "deny" in form or not users[request_["user"]][1]:
            return _redirect_to_client(request_["redirect_uri"], {"error": "access_denied", **params})
        return _redirect_to_client(request_["redirect_uri"], {"code": secrets.token_urlsafe(24), **params})

    return Starlette(routes=[
        Route("/a/authorize", authorize),
        Route("/a/login", login_page),
        Route("/a/j_security_check", security_check, methods=["POST"]),
        Route("/a/consent", consent_page, methods=["GET"]),
        Route("/a/consent", consent, methods=["POST"]),
    ])


# --------------------------------------------------------------------------- server "dutch"
DUTCH_LOGIN = """<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><title>Inloggen</title></head>
<body>
  <form class="login" method="post" action="inloggen">
    <input type="text" name="zoek" placeholder="Zoeken" value="">
    <input type="hidden" name="sessie" value="{sid}">
    <label for="u">E-mailadres</label><input id="u" type="email" name="gebruikersnaam">
    <label for="p">Wachtwoord</label><input id="p" type="password" name="wachtwoord" autocomplete="current-password">
    <input type="text" name="na_het_wachtwoord" value="">
    <button type="button" name="hulp">Hulp</button>
    <button type="submit"><span>Inloggen</span></button>
  </form>
</body></html>"""

DUTCH_CONSENT = """<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><title>Toestemming</title></head>
<body>
  <p>De applicatie vraagt toegang.</p>
  <form method="post">
    <input type="hidden" name="sessie" value="{sid}">
    <button type="submit" name="decision" value="deny">Niet toestaan</button>
    <button type="submit" name="decision" value="approve">Toestaan</button>
  </form>
</body></html>"""


def dutch_app(server: Server, users: Users) -> Starlette:
    sessions: dict[str, dict[str, str]] = {}

    async def start(request: Request) -> Response:
        sid = secrets.token_hex(8)
        sessions[sid] = dict(request.query_params)
        return HTMLResponse(DUTCH_LOGIN.format(sid=sid))

    async def inloggen(request: Request) -> Response:
        return RedirectResponse("verwerk", status_code=307)  # the body must be sent again

    async def verwerk(request: Request) -> Response:
        form = await form_of(request)
        server.posts.append(list(form.multi_items()))
        sid = str(form["sessie"])
        user = users.get(str(form.get("gebruikersnaam")))
        if user is None or user[0] != form.get("wachtwoord"):
            return HTMLResponse(DUTCH_LOGIN.format(sid=sid))
        sessions[sid]["user"] = str(form["gebruikersnaam"])
        return RedirectResponse(f"../toestemming/vraag?sessie={sid}", status_code=303)

    async def vraag(request: Request) -> Response:
        sid = request.query_params["sessie"]
        if request.method == "GET":
            return HTMLResponse(DUTCH_CONSENT.format(sid=sid))
        form = await form_of(request)
        server.posts.append(list(form.multi_items()))
        session = sessions.pop(sid)
        params = {"state": session["state"], "iss": server.base + "/b"}
        if form.get("decision") != "approve" or not users[session["user"]][1]:
            return _redirect_to_client(
                session["redirect_uri"], {"error": "access_denied", "error_description": "Geweigerd", **params}, 303)
        return _redirect_to_client(session["redirect_uri"], {"code": secrets.token_urlsafe(24), **params}, 303)

    return Starlette(routes=[
        Route("/b/auth/start", start),
        Route("/b/auth/inloggen", inloggen, methods=["POST"]),
        Route("/b/auth/verwerk", verwerk, methods=["POST"]),
        Route("/b/toestemming/vraag", vraag, methods=["GET", "POST"]),
    ])


# --------------------------------------------------------------------------- server "cookie"
COOKIE_LOGIN = """<html><head><title>Login</title></head><body>
<form action="/c/login?ignored=1"><input type=hidden name=rid value="{rid}">
<p>User: <input type=text name=user></p><p>Pass: <input type=password name=pass></p>
<input type=submit value="Sign in"></form></body></html>"""

COOKIE_CONSENT = """<html><head><title>Approve access</title></head><body>
<form method=post action=/c/consent><input type=hidden name=rid value="{rid}">
<input type=submit name=ok value="Akkoord"></form></body></html>"""


def cookie_app(server: Server, users: Users) -> Starlette:
    pending: dict[str, dict[str, str]] = {}
    sessions: dict[str, str] = {}  # sid -> user
    consented: set[str] = set()

    def user_of(request: Request) -> str | None:
        return sessions.get(request.cookies.get("sid", ""))

    def code_for(request_: dict[str, str]) -> Response:
        return _redirect_to_client(request_["redirect_uri"], {"code": secrets.token_urlsafe(24),
                                                               "state": request_["state"]})

    async def authorize(request: Request) -> Response:
        user = user_of(request)
        if user is not None and user in consented:
            return code_for(dict(request.query_params))
        rid = secrets.token_hex(8)
        pending[rid] = dict(request.query_params)
        return RedirectResponse(f"/c/{'consent' if user else 'login'}?rid={rid}", status_code=302)

    async def login(request: Request) -> Response:
        server.queries.append(list(request.query_params.multi_items()))
        rid = request.query_params["rid"]
        if "ignored" in request.query_params:
            return HTMLResponse("<title>Query kept</title>", status_code=400)
        if "user" not in request.query_params:
            return HTMLResponse(COOKIE_LOGIN.format(rid=rid))
        user = request.query_params["user"]
        if users.get(user, ("",))[0] != request.query_params.get("pass"):
            return HTMLResponse(COOKIE_LOGIN.format(rid=rid))
        sid = secrets.token_urlsafe(16)
        sessions[sid] = user
        response = RedirectResponse(f"/c/consent?rid={rid}", status_code=302)
        response.set_cookie("sid", sid, httponly=True, path="/c")
        return response

    async def consent(request: Request) -> Response:
        user = user_of(request)
        if user is None:
            return HTMLResponse("<title>Session required</title>", status_code=403)
        if request.method == "GET":
            return HTMLResponse(COOKIE_CONSENT.format(rid=request.query_params["rid"]))
        form = await form_of(request)
        consented.add(user)
        return code_for(pending.pop(str(form["rid"])))

    return Starlette(routes=[
        Route("/c/authorize", authorize),
        Route("/c/login", login),
        Route("/c/consent", consent, methods=["GET", "POST"]),
    ])


# --------------------------------------------------------------------------- server "odd"
CONSENT_AGAIN = """<html><head><title>Consent again</title></head><body>
<form method=post action=/odd/consent-loop><input type=submit value=Accept></form></body></html>"""
TWO_STEP_USER = """<html><head><title>Step 1</title></head><body>
<form method=post action=/odd/two-step/password><input name=identifier autocomplete=username>
<input type=hidden name=state value="{state}"><button>Volgende</button></form></body></html>"""
TWO_STEP_PASSWORD = """<html><head><title>Step 2</title></head><body>
<form method=post action=/odd/two-step/done><input type=hidden name=identifier value="{user}">
<input type=hidden name=state value="{state}"><input type=password name=pwd><button>Inloggen</button>
</form></body></html>"""


def odd_app(server: Server, users: Users) -> Starlette:
    async def redirect_loop(request: Request) -> Response:
        other = "/odd/loop-b" if request.url.path.endswith("loop-a") else "/odd/loop-a"
        return RedirectResponse(other, status_code=302)

    async def consent_loop(request: Request) -> Response:
        return HTMLResponse(CONSENT_AGAIN)

    async def maintenance(request: Request) -> Response:
        return HTMLResponse("<html><head><title>Onderhoud</title></head><body><p>Even geduld.</p></body></html>")

    async def bad_request(request: Request) -> Response:
        return HTMLResponse("<title>Invalid redirect_uri</title><p>No.</p>", status_code=400)

    async def as_json(request: Request) -> Response:
        return JSONResponse({"hello": "world"})

    async def no_location(request: Request) -> Response:
        return Response(status_code=302)

    async def elsewhere(request: Request) -> Response:
        return HTMLResponse('<form method=post action="http://login.example.invalid/x">'
                            '<input name=u><input type=password name=p></form>')

    async def two_step(request: Request) -> Response:
        return HTMLResponse(TWO_STEP_USER.format(state=html.escape(request.query_params["state"])))

    async def two_step_password(request: Request) -> Response:
        form = await form_of(request)
        return HTMLResponse(TWO_STEP_PASSWORD.format(user=html.escape(str(form["identifier"])),
                                                     state=html.escape(str(form["state"]))))

    async def two_step_done(request: Request) -> Response:
        form = await form_of(request)
        server.posts.append(list(form.multi_items()))
        ok = users.get(str(form["identifier"]), ("",))[0] == form["pwd"]
        params = {"code": "two-step-code"} if ok else {"error": "access_denied"}
        return _redirect_to_client(REDIRECT_URI, {**params, "state": str(form["state"])})

    async def immediate(request: Request) -> Response:
        return RedirectResponse(f"/odd/immediate-2?{request.url.query}", status_code=302)

    async def immediate_2(request: Request) -> Response:
        query = request.query_params
        return _redirect_to_client(query["redirect_uri"], {"code": "immediate-code", "state": query["state"]}, 303)

    async def set_cookie(request: Request) -> Response:
        response = RedirectResponse("/odd/echo", status_code=302)
        response.set_cookie("jar", "cookie-value-123", path="/")
        return response

    async def echo(request: Request) -> Response:
        body = (await request.body()).decode()
        return JSONResponse({"cookie": request.headers.get("cookie"), "body": body, "query": request.url.query,
                             "content_type": request.headers.get("content-type")})

    return Starlette(routes=[
        Route("/odd/loop-a", redirect_loop), Route("/odd/loop-b", redirect_loop),
        Route("/odd/consent-loop", consent_loop, methods=["GET", "POST"]),
        Route("/odd/maintenance", maintenance), Route("/odd/bad-request", bad_request),
        Route("/odd/json", as_json), Route("/odd/no-location", no_location), Route("/odd/elsewhere", elsewhere),
        Route("/odd/two-step", two_step), Route("/odd/two-step/password", two_step_password, methods=["POST"]),
        Route("/odd/two-step/done", two_step_done, methods=["POST"]),
        Route("/odd/immediate", immediate), Route("/odd/immediate-2", immediate_2),
        Route("/odd/set-cookie", set_cookie), Route("/odd/echo", echo, methods=["GET", "POST"]),
    ])


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def serve() -> Iterator[Callable[[Callable[[Server, Users], Starlette], str], Server]]:
    started: list[ServerThread] = []

    def start(factory: Callable[[Server, Users], Starlette], name: str) -> Server:
        server = Server(base="")
        thread = ServerThread(factory(server, USERS), name)
        server.base = f"http://127.0.0.1:{thread.start()}"
        started.append(thread)
        return server

    yield start
    for thread in started:
        thread.stop()


@pytest.fixture(scope="module")
def java(serve) -> Server:
    return serve(java_app, "login-java")


@pytest.fixture(scope="module")
def dutch(serve) -> Server:
    return serve(dutch_app, "login-dutch")


@pytest.fixture(scope="module")
def cookie(serve) -> Server:
    return serve(cookie_app, "login-cookie")


@pytest.fixture(scope="module")
def odd(serve) -> Server:
    return serve(odd_app, "login-odd")


@pytest.fixture
def redactor() -> Redactor:
    return Redactor()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def browser(redactor: Redactor, recorder: Recorder) -> Iterator[Browser]:
    with Browser(redactor, recorder, timeout_s=5.0) as b:
        yield b


def recorded_text(recorder: Recorder) -> str:
    """Everything a report could show of the recorded exchanges."""
    parts = []
    for ex in recorder.exchanges:
        parts += [ex.url, repr(ex.request_headers.items()), repr(ex.response_headers.items()),
                  ex.request_body.decode("utf-8", "replace"), ex.body.decode("utf-8", "replace")]
    return "\n".join(parts)


def assert_never_recorded(recorder: Recorder, secret: str) -> None:
    text = recorded_text(recorder)
    for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
        assert form not in text, f"{form!r} reached the recorded exchanges"


# --------------------------------------------------------------------------- Browser
def test_browser_keeps_cookies_per_session_and_never_follows(odd: Server, redactor: Redactor,
                                                              recorder: Recorder) -> None:
    with Browser(redactor, recorder) as first:
        redacted, raw = first.get(odd.base + "/odd/set-cookie")
        assert raw.status == 302, "the Browser followed a redirect on its own"
        assert redacted.response_headers.get("set-cookie") == MASK
        assert first.cookie_names() == ["jar"]
        redacted, raw = first.get(odd.base + "/odd/echo")
        assert raw.json["cookie"] == "jar=cookie-value-123"
        assert redacted.request_headers.get("cookie") == MASK
    with Browser(redactor, recorder) as second:
        _, raw = second.get(odd.base + "/odd/echo")
        assert raw.json["cookie"] is None, "a new Browser must start with an empty cookie jar"
    assert len(recorder.exchanges) == 3


def test_browser_posts_forms_in_order_and_masks_secret_fields(odd: Server, recorder: Recorder,
                                                               browser: Browser) -> None:
    fields = [("user", "u1"), ("pin", "12"), ("user", "u2")]
    redacted, raw = browser.post_form(odd.base + "/odd/echo", fields, secret_fields={"pin"})
    assert raw.json["content_type"] == "application/x-www-form-urlencoded"
    assert raw.json["body"] == "user=u1&pin=12&user=u2"
    assert b"pin=12" not in redacted.request_body and b"pin=%5Bredacted%5D" not in redacted.request_body
    assert redacted.request_body == b"user=u1&pin=[redacted]&user=u2"
    assert recorder.exchanges == [redacted]
    redacted, raw = browser.get(odd.base + "/odd/echo?old=1", {"pin": "34", "x": "y"}, secret_fields=["pin"])
    assert raw.json["query"] == "pin=34&x=y"
    assert urlsplit(redacted.url).query == "pin=[redacted]&x=y"
    assert recorder.exchanges[-1] is redacted


def test_browser_refuses_relative_urls(browser: Browser) -> None:
    with pytest.raises(ValueError, match="absolute"):
        browser.get("/odd/echo")


# --------------------------------------------------------------------------- FormLoginDriver
def test_form_driver_java_markup(java: Server, browser: Browser, recorder: Recorder) -> None:
    driver = FormLoginDriver("alice", SHORT_PASSWORD)
    result = driver.authorize(browser, java.authorize_url("/a/authorize", TRICKY_STATE), REDIRECT_URI)
    assert result.code and result.error is None
    assert result.state == TRICKY_STATE
    assert result.consent_shown
    assert result.pages == ["redirect (302)", "login form", "redirect (302)", "consent form",
                            "redirect to the redirect_uri (302)"]
    assert result.location.startswith(REDIRECT_URI + "?")
    login_post, consent_post = java.posts[-2:]
    assert [name for name, _ in login_post] == ["rid", "j_username", "j_password", "login"]
    assert dict(login_post)["login"] == "Log in"
    assert [name for name, _ in consent_post] == ["rid", "scope", "action"], "deny must not be sent"
    assert dict(consent_post)["action"] == "Allow"
    assert_never_recorded(recorder, SHORT_PASSWORD)
    assert len(recorder.exchanges) == 5


def test_form_driver_dutch_markup(dutch: Server, browser: Browser, recorder: Recorder) -> None:
    redirect_uri = REDIRECT_URI + "?client=b"  # a registered redirect_uri with its own query
    driver = FormLoginDriver("bob", LONG_PASSWORD)
    result = driver.authorize(browser, dutch.authorize_url("/b/auth/start", "s-2", redirect_uri), redirect_uri)
    assert result.code and result.state == "s-2"
    assert result.extra_params == {"client": "b", "iss": dutch.base + "/b"}
    assert result.pages == ["login form", "redirect (307)", "redirect (303)", "consent form",
                            "redirect to the redirect_uri (303)"]
    # the walk takes the code, and keeps how it came for the check of the response's form
    assert (result.status, result.in_fragment) == (303, False)
    login_post = dict(dutch.posts[-2])
    assert login_post["gebruikersnaam"] == "bob" and login_post["zoek"] == ""
    assert login_post["na_het_wachtwoord"] == "", "only a text field before the password is the username"
    assert dutch.posts[-1] == [("sessie", login_post["sessie"]), ("decision", "approve")]
    assert_never_recorded(recorder, LONG_PASSWORD)


def test_form_driver_keeps_the_session_cookie_and_replaces_get_queries(cookie: Server, browser: Browser,
                                                                        recorder: Recorder) -> None:
    driver = FormLoginDriver("bob", LONG_PASSWORD)
    result = driver.authorize(browser, cookie.authorize_url("/c/authorize", "s-3"), REDIRECT_URI)
    assert result.code and result.state == "s-3", result.pages
    assert result.pages == ["redirect (302)", "login form", "redirect (302)", "consent form",
                            "redirect to the redirect_uri (302)"]
    sent = dict(cookie.queries[-1])
    assert sent["pass"] == LONG_PASSWORD and "ignored" not in sent
    assert_never_recorded(recorder, LONG_PASSWORD)


def test_consent_remembered_then_immediate_driver(cookie: Server, browser: Browser, redactor: Redactor,
                                                  recorder: Recorder) -> None:
    FormLoginDriver("alice", SHORT_PASSWORD).authorize(browser, cookie.authorize_url("/c/authorize"), REDIRECT_URI)
    again = FormLoginDriver("alice", SHORT_PASSWORD).authorize(
        browser, cookie.authorize_url("/c/authorize", "s-4"), REDIRECT_URI)
    assert again.code and not again.consent_shown and again.pages == ["redirect to the redirect_uri (302)"]
    immediate = ImmediateDriver().authorize(browser, cookie.authorize_url("/c/authorize", "s-5"), REDIRECT_URI)
    assert immediate.code and immediate.state == "s-5"
    with Browser(redactor, recorder) as fresh, pytest.raises(LoginError, match=r"200 text/html, title 'Login'"):
        ImmediateDriver().authorize(fresh, cookie.authorize_url("/c/authorize"), REDIRECT_URI)


def test_error_redirect_is_parsed(java: Server, dutch: Server, browser: Browser) -> None:
    denied = FormLoginDriver("norole", "nor0le-pass").authorize(
        browser, java.authorize_url("/a/authorize", "s-6"), REDIRECT_URI)
    assert denied.code is None and denied.error == "access_denied" and denied.state == "s-6"
    assert denied.consent_shown
    refused = FormLoginDriver("norole", "nor0le-pass").authorize(
        browser, dutch.authorize_url("/b/auth/start", "s-7"), REDIRECT_URI)
    assert (refused.code, refused.error, refused.error_description) == (None, "access_denied", "Geweigerd")
    assert refused.state == "s-7" and refused.extra_params == {"iss": dutch.base + "/b"}


def test_wrong_password_is_a_login_error(java: Server, browser: Browser, recorder: Recorder) -> None:
    with pytest.raises(LoginError, match="login form was served again") as info:
        FormLoginDriver("alice", "wrong-password").authorize(browser, java.authorize_url("/a/authorize"), REDIRECT_URI)
    assert "wrong-password" not in str(info.value)
    assert_never_recorded(recorder, "wrong-password")


@pytest.mark.parametrize(
    "path, message",
    [
        ("/odd/maintenance", r"no form: 200 text/html, title 'Onderhoud'"),
        ("/odd/bad-request", r"answered 400 text/html, title 'Invalid redirect_uri'"),
        ("/odd/json", r"answered 200 application/json"),
        ("/odd/no-location", r"without a Location header"),
        ("/odd/elsewhere", r"refusing to send the password over plain http to login.example.invalid"),
    ],
)
def test_pages_the_driver_cannot_walk(odd: Server, browser: Browser, path: str, message: str) -> None:
    with pytest.raises(LoginError, match=message):
        FormLoginDriver("alice", SHORT_PASSWORD).authorize(browser, odd.authorize_url(path), REDIRECT_URI)


@pytest.mark.parametrize("path", ["/odd/loop-a", "/odd/consent-loop"])
def test_loops_end_after_max_steps(odd: Server, browser: Browser, recorder: Recorder, path: str) -> None:
    with pytest.raises(LoginError, match="after 7 steps"):
        FormLoginDriver("alice", SHORT_PASSWORD, max_steps=7).authorize(browser, odd.authorize_url(path), REDIRECT_URI)
    assert len(recorder.exchanges) == 7


def test_two_step_login(odd: Server, browser: Browser, recorder: Recorder) -> None:
    result = FormLoginDriver("alice", SHORT_PASSWORD).authorize(
        browser, odd.authorize_url("/odd/two-step", "s-8"), REDIRECT_URI)
    assert result.code == "two-step-code" and result.state == "s-8"
    assert result.pages == ["username form", "login form", "redirect to the redirect_uri (302)"]
    assert not result.consent_shown
    assert_never_recorded(recorder, SHORT_PASSWORD)


def test_configured_field_names(java: Server, browser: Browser) -> None:
    driver = FormLoginDriver("alice", SHORT_PASSWORD, username_field="j_username", password_field="j_password")
    assert driver.authorize(browser, java.authorize_url("/a/authorize"), REDIRECT_URI).code
    wrong = FormLoginDriver("alice", SHORT_PASSWORD, password_field="pw")
    with pytest.raises(LoginError, match="without a password field or an approve control"):
        wrong.authorize(browser, java.authorize_url("/a/authorize"), REDIRECT_URI)


# --------------------------------------------------------------------------- ImmediateDriver
def test_immediate_driver_follows_redirects_only(odd: Server, browser: Browser) -> None:
    result = ImmediateDriver().authorize(browser, odd.authorize_url("/odd/immediate", "s-9"), REDIRECT_URI)
    assert (result.code, result.state) == ("immediate-code", "s-9")
    assert result.pages == ["redirect (302)", "redirect to the redirect_uri (303)"]
    assert result.status == 303
    with pytest.raises(LoginError, match="after 3 steps"):
        ImmediateDriver(max_redirects=2).authorize(browser, odd.authorize_url("/odd/loop-a"), REDIRECT_URI)


@pytest.mark.parametrize("driver", [ImmediateDriver(), FormLoginDriver("user", "pass")], ids=["immediate", "form"])
def test_drivers_never_follow_a_redirect_to_another_origin(browser: Browser, driver: object) -> None:
    from misbehaving_server import MisbehavingServer

    with MisbehavingServer(limit_s=10) as server:
        with pytest.raises(LoginError, match="another origin"):
            driver.authorize(browser, f"http://127.0.0.1:{server.port}/redirect-foreign/authorize", REDIRECT_URI)
        assert len(server.requests) == 1  # the authorize request; nothing went to 127.0.0.2
        with pytest.raises(LoginError, match="steps"):  # a loop ends after a few steps
            driver.authorize(browser, f"http://127.0.0.1:{server.port}/redirect-loop/authorize", REDIRECT_URI)
        assert len(server.requests) <= 1 + 12


# --------------------------------------------------------------------------- parsing helpers
def test_redirect_uri_matching_needs_a_boundary() -> None:
    assert is_redirect_uri("http://x/cb?code=1", "http://x/cb")
    assert is_redirect_uri("http://x/cb#code=1", "http://x/cb")
    assert is_redirect_uri("http://x/cb?a=1&code=1", "http://x/cb?a=1")
    assert not is_redirect_uri("http://x/cb-evil?code=1", "http://x/cb")
    assert not is_redirect_uri("http://x/cbcode=1", "http://x/cb")


def test_parse_authorization_response() -> None:
    result = parse_authorization_response(
        "http://x/cb?error=access_denied&error_description=No+way&state=s&error_uri=u&state=second",
        pages=["p"], consent_shown=True)
    assert result == AuthorizationResult(
        location=result.location, code=None, state="s", error="access_denied", error_description="No way",
        pages=["p"], consent_shown=True, extra_params={"error_uri": "u"})
    assert (result.status, result.in_fragment) == (None, False)  # status: not seen
    fragment = parse_authorization_response("http://x/cb#code=c&state=s", pages=[], consent_shown=False, status=302)
    assert (fragment.code, fragment.state, fragment.status, fragment.in_fragment) == ("c", "s", 302, True)
    # a fragment of the redirect_uri's own is not where the response went
    query = parse_authorization_response("http://x/cb?code=c&state=s#top", pages=[], consent_shown=False, status=302)
    assert (query.code, query.in_fragment) == ("c", False)
    neither = parse_authorization_response("http://x/cb#top", pages=[], consent_shown=False)
    assert (neither.code, neither.in_fragment) == (None, False)


def test_authorization_response_form_is_judged() -> None:
    from conformance.checks.auth.checks import ensure_authorization_response_form
    from conformance.errors import NotJudged
    from conformance.findings import Finding

    def judged(location: str, status: int | None) -> str:
        try:
            ensure_authorization_response_form(parse_authorization_response(
                location, pages=[], consent_shown=False, status=status))
        except Finding as finding:
            return f"finding: {finding}"
        except NotJudged:
            return "not judged"
        return "pass"

    assert judged("http://x/cb?code=c&state=s", 302) == "pass"
    assert judged("http://x/cb?a=1&code=c&state=s", 302) == "pass"
    assert "fragment" in judged("http://x/cb#code=c&state=s", 302)
    assert "302" in judged("http://x/cb?code=c&state=s", 303)
    assert "302" in judged("http://x/cb?code=c&state=s", 307)
    assert "state" in judged("http://x/cb?code=c", 302)
    assert judged("http://x/cb?code=c&state=s", None) == "not judged"  # a browser followed it
    assert "fragment" in judged("http://x/cb#code=c&state=s", None)  # the form is still judged


def test_form_parser_follows_html_submission_rules() -> None:
    markup = b"""<html><head><base href="/base/"><title> A
      page </title></head><body><form action="go?x=1" method=POST>
      <input name=t value="v &amp; w"><input name=off disabled value=1><input type=checkbox name=c>
      <input type=radio name=r value=a><input type=radio name=r value=b checked>
      <select name=s><option value=1>one<option>two</select>
      <select name=m><option>p<option selected>q</select>
      <textarea name=ta>text</textarea><input type=file name=f><input type=reset name=re>
      <button name=b1 value=x>X</button></form></body></html>"""
    raw = Exchange("GET", "http://h/dir/page", Headers(), b"", 200,
                   Headers([("Content-Type", "text/html; charset=utf-8")]), markup)
    page = Page.parse(raw)
    assert page.url == "http://h/base/" and page.title == "A page"
    (form,) = page.forms
    assert form.method == "post" and form.action == "go?x=1"
    fields = form_fields(form, {}, form.submits()[0])
    assert fields == [("t", "v & w"), ("r", "b"), ("s", "1"), ("m", "q"), ("ta", "text"), ("b1", "x")]


# --------------------------------------------------------------------------- ManualDriver
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _in_thread(call: Callable[[], AuthorizationResult]) -> tuple[threading.Thread, dict[str, object]]:
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = call()
        except Exception as exc:  # handed to the test thread
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def test_manual_driver_catches_the_redirect(browser: Browser, recorder: Recorder) -> None:
    redirect_uri = f"http://127.0.0.1:{_free_port()}/callback"
    out = io.StringIO()
    driver = ManualDriver(timeout_s=10, out=out)
    authorize_url = "https://auth.example.test/authorize?client_id=c1&state=s"
    thread, outcome = _in_thread(lambda: driver.authorize(browser, authorize_url, redirect_uri))
    assert driver.ready.wait(10), outcome
    with httpx.Client(trust_env=False, timeout=5) as human:
        assert human.get(redirect_uri.replace("/callback", "/favicon.ico")).status_code == 404
        assert human.get(redirect_uri).status_code == 404, "no code or error: not the authorization response"
        page = human.get(redirect_uri, params={"code": "c0de-1", "state": TRICKY_STATE, "iss": "me"})
    thread.join(10)
    assert page.status_code == 200 and "You may close this page" in page.text
    result = outcome["result"]
    assert isinstance(result, AuthorizationResult)
    assert (result.code, result.state, result.extra_params) == ("c0de-1", TRICKY_STATE, {"iss": "me"})
    assert result.status is None  # the human's browser saw the redirect's status, not the driver
    assert authorize_url in out.getvalue() and "Redirect received" in out.getvalue()
    assert recorder.exchanges == []


def test_manual_driver_times_out(browser: Browser) -> None:
    port = _free_port()
    out = io.StringIO()
    with pytest.raises(LoginError, match=r"no redirect within 0.3 s"):
        ManualDriver(timeout_s=0.3, out=out).authorize(browser, "https://a/authorize", f"http://127.0.0.1:{port}/cb")
    assert "1 s left" in out.getvalue()
    with socket.socket() as s:  # the listener is gone
        s.bind(("127.0.0.1", port))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_manual_driver_countdown_updates_at_most_once_a_second(browser: Browser) -> None:
    out = _Terminal()
    with pytest.raises(LoginError):
        ManualDriver(timeout_s=1.2, out=out).authorize(browser, "https://a/authorize",
                                                      f"http://127.0.0.1:{_free_port()}/cb")
    updates = out.getvalue().count("\r")
    assert 1 <= updates <= 2, "one line update per second at most (2 for 1.2 s)"
    assert out.getvalue().startswith("\n") and "\r   2 s left " in out.getvalue()


def test_manual_driver_needs_a_loopback_http_redirect_uri(browser: Browser) -> None:
    driver = ManualDriver(timeout_s=0.1, out=io.StringIO())
    # A name is not a loopback address, `localhost` included (issue 50, 7b): the browser's
    # resolver decides where it goes.
    for redirect_uri in ("http://client.example.test/cb", "https://127.0.0.1:8765/cb",
                         "http://localhost:8765/cb", "http://app.localhost:8765/cb"):
        with pytest.raises(ConfigError, match=r"http on a loopback address, 127.0.0.1 or \[::1\] \(not a name"):
            driver.authorize(browser, "https://a/authorize", redirect_uri)
    assert not driver.ready.is_set()


def test_manual_driver_reads_a_pasted_address(browser: Browser) -> None:
    redirect_uri = "https://client.example.test/cb"
    answers = io.StringIO(f"  {redirect_uri}?code=pasted&state=p1  \n")
    result = ManualDriver(out=io.StringIO(), listen=False, answers=answers).authorize(
        browser, "https://a/authorize", redirect_uri)
    assert (result.code, result.state) == ("pasted", "p1")
    wrong = io.StringIO("https://elsewhere.example.test/cb?code=x\n")
    with pytest.raises(LoginError, match="not the redirect_uri"):
        ManualDriver(out=io.StringIO(), listen=False, answers=wrong).authorize(browser, "https://a/", redirect_uri)


def test_manual_driver_paste_times_out(browser: Browser) -> None:
    released = threading.Event()

    class Silent(io.StringIO):
        def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
            released.wait(10)
            return ""

    try:
        with pytest.raises(LoginError, match="no redirect within 0.2 s"):
            ManualDriver(timeout_s=0.2, out=io.StringIO(), listen=False, answers=Silent()).authorize(
                browser, "https://a/", "https://client.example.test/cb")
    finally:
        released.set()


# --------------------------------------------------------------------------- settings and bootstrap
def test_refresh_token_bootstrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_TEST_LOGIN_REFRESH", "rt-value-123")
    assert refresh_token_bootstrap("CONFORMANCE_TEST_LOGIN_REFRESH") == "rt-value-123"
    monkeypatch.delenv("CONFORMANCE_TEST_LOGIN_REFRESH")
    with pytest.raises(ConfigError, match="CONFORMANCE_TEST_LOGIN_REFRESH.*refresh token"):
        refresh_token_bootstrap("CONFORMANCE_TEST_LOGIN_REFRESH")


def test_driver_from_settings() -> None:
    creds = {"username": "alice", "password": SHORT_PASSWORD}
    form = driver_from_settings({"driver": "form", "username_field": "j_username"}, creds)
    assert isinstance(form, FormLoginDriver) and SHORT_PASSWORD not in repr(form)
    assert isinstance(driver_from_settings({}, creds), FormLoginDriver)
    assert isinstance(driver_from_settings({"driver": "immediate"}, {}), ImmediateDriver)
    manual = driver_from_settings({"driver": "manual", "timeout_s": 42}, {})
    assert isinstance(manual, ManualDriver) and manual._timeout_s == 42


@pytest.mark.parametrize(
    "settings, secrets_, message",
    [
        ({"driver": "saml"}, {}, r"services\.auth\.login\.driver: unknown login driver 'saml'"),
        ({"driver": "refresh_token"}, {}, r"services\.auth\.login\.driver: unknown login driver 'refresh_token'"),
        ({"driver": "form"}, {"username": "alice", "password": ""}, r"needs the test user's password"),
        ({"driver": "form"}, {}, r"username and password"),
        ({"driver": "form", "approve_pattern": "("}, {"username": "a", "password": "b"},
         r"services\.auth\.login\.approve_pattern"),
        ({"driver": "manual", "timeout_s": 0}, {}, r"services\.auth\.login\.timeout_s"),
    ],
)
def test_driver_from_settings_errors(settings: dict, secrets_: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        driver_from_settings(settings, secrets_)
