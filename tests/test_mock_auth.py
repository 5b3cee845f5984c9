"""The mock authorization server (conformance/mocks/auth): the faithful behaviour of every
bullet of docs/auth-design.md, and for every auth fault that it changes exactly what its
name says (its own probe flips; a bundle of everyday observations stays as it was, except
for the ones the fault necessarily touches).

The mock runs in-process through starlette's TestClient (client host "testclient", which
is not loopback: the clock endpoint refuses it, so time moves through `config.clock`);
the JWKS documents of the test PKI are served by the real jwks publisher on loopback, so
the mock fetches them over HTTP with httpx. One real mock server proves the clock endpoint
for a loopback client. No sleeps: time moves only through the mock clock.
"""

from __future__ import annotations

import asyncio
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():  # starlette suggests httpx2; httpx is what the project uses
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

from conformance.auth import rfc7523, rfc7636
from conformance.auth.jwks_publisher import create_app as jwks_app
from conformance.auth.pki import (
    OIN_REGISTERED,
    OIN_SECOND_CUSTOMER,
    OIN_TWICE,
    PRIVATE_SERVICES_POLICY,
    TestPki,
    init_test_pki,
)
from conformance.mocks.auth.app import create_app
from conformance.mocks.auth.config import AuthMockConfig, ClientRegistration, User
from conformance.mocks.faults import FaultSet, catalogue, variants
from conformance.mocks.launcher import ServerThread

FILING = "registry.cto.aanbieden.verzoeken"
STATUS = "registry.cto.aanbieden.status"  # the mock's second scope of the confidential client
INQUIRY = "registry-inzage"
AUD = "127.0.0.1:443/auth/oauth/v2/token"
REDIRECT = "https://notary.example/callback"
CONF, PUBLIC, CC = "filing-confidential", "filing-public", "inquiry-service"
SECRET = "confidential-secret-for-tests"
USERS = {"notaris": ("pw-notaris", ("Aanbieder M2M",)), "medewerker": ("pw-medewerker", ())}
AUTHORIZE, TOKEN, LOGIN = "/auth/oauth/v2/authorize", "/auth/oauth/v2/token", "/auth/login"
FILING_URL = "/filing/aanbiedenverzoeken/v1/aanbiedenVerzoeken.wsdl"
INQUIRY_URL = "/inquiry/registry-inzage/v6"
TRICKY_STATE = "a+b %2F/c~d*e'f(g)h!"
# client-credentials client id -> JWKS document it registered
CC_DOCUMENTS = {CC: "good", "inquiry-no-x5c": "no_x5c", "inquiry-untrusted": "untrusted",
                "inquiry-expired": "expired", "inquiry-no-oin": "no_oin", "inquiry-mismatch": "mismatch",
                "inquiry-unregistered-oin": "unregistered_oin", "inquiry-twice-oin": "twice_oin",
                "inquiry-rotating": "rotating", "inquiry-huge": "huge", "inquiry-missing": "missing",
                "inquiry-not-yet-valid": "not_yet_valid", "inquiry-revoked": "revoked",
                "inquiry-other-branch": "other_branch", "inquiry-oin-elsewhere": "oin_elsewhere",
                "inquiry-two-customers": "two_customers"}
TWO = "inquiry-two-customers"
_REQUEST_ID = re.compile(r'name="request_id" value="([^"]+)"')


# --- fixtures ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> TestPki:
    return init_test_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def publisher(pki: TestPki) -> Iterator[tuple[str, dict[str, dict], list[str]]]:
    """(JWKS base URL, the documents it serves (mutable), the names fetched so far)."""
    documents = pki.jwks_documents()
    documents["rotating"] = pki.jwks_documents()["current_only"]
    documents["huge"] = {"keys": [], "padding": "x" * 70_000}
    inner, fetched = jwks_app(documents), []

    async def counting(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            fetched.append(scope["path"].rsplit("/", 1)[-1].removesuffix(".json"))
        await inner(scope, receive, send)

    server = ServerThread(counting, "jwks-test")
    port = server.start()
    yield f"http://127.0.0.1:{port}/jwks", documents, fetched
    server.stop()


def make_config(pki: TestPki, jwks_base: str, **overrides: Any) -> AuthMockConfig:
    clients = {
        CONF: ClientRegistration(CONF, "confidential", secret=SECRET, redirect_uris=(REDIRECT,), scopes=(FILING, STATUS)),
        PUBLIC: ClientRegistration(PUBLIC, "public", redirect_uris=(REDIRECT,), scopes=(FILING,)),
    }
    for client_id, document in CC_DOCUMENTS.items():
        clients[client_id] = ClientRegistration(client_id, "client_credentials", scopes=(INQUIRY,),
                                                jwks_uri=f"{jwks_base}/{document}.json")
    return AuthMockConfig(
        clients=clients,
        users={name: User(name, password, roles) for name, (password, roles) in USERS.items()},
        customers={OIN_REGISTERED: ("Notariskantoor Test B.V.",), OIN_TWICE: ("Gemeente Test", "Waterschap Test"),
                   OIN_SECOND_CUSTOMER: ("Notariskantoor Tweede Test B.V.",)},
        trust_roots=(pki.root,),
        audience=AUD,
        **{"branch_policies": (PRIVATE_SERVICES_POLICY,), "crls": tuple(pki.crls.values()), **overrides},
    )


@dataclass
class Authz:
    status: int
    location: str | None
    pages: list[str]
    verifier: str | None
    text: str = ""

    def param(self, name: str) -> str | None:
        if self.location is None:
            return None
        values = parse_qs(urlsplit(self.location).query, keep_blank_values=True).get(name)
        return values[0] if values else None

    @property
    def code(self) -> str | None:
        return self.param("code")


@dataclass
class Env:
    client: TestClient
    config: AuthMockConfig
    pki: TestPki
    mock: Any = field(repr=False)

    def advance(self, seconds: float) -> None:
        self.config.clock.advance(seconds)

    # --- authorization code ---------------------------------------------------------------------
    def authorize(self, *, client_id: str = CONF, user: str = "notaris", password: str | None = None,
                  decision: str = "approve", scope: str = FILING, state: str | None = "st-1",
                  verifier: str | None = "default", challenge: str | None = "default", method: str | None = "S256",
                  redirect_uri: str = REDIRECT, extra: tuple[tuple[str, str], ...] = (),
                  response_type: str = "code") -> Authz:
        verifier = rfc7636.generate_verifier() if verifier == "default" else verifier
        if challenge == "default":
            challenge = rfc7636.s256(verifier) if verifier is not None else None
        params = [("response_type", response_type), ("client_id", client_id), ("scope", scope),
                  ("redirect_uri", redirect_uri), ("nonce", "n-1")]
        params += [(k, v) for k, v in (("state", state), ("code_challenge", challenge),
                                       ("code_challenge_method", method)) if v is not None]
        response = self.client.get(AUTHORIZE, params=params + list(extra))
        pages: list[str] = []
        for _ in range(8):
            location = response.headers.get("location")
            if response.status_code == 302 and location and location.startswith("http://testserver/"):
                response = self.client.get(location)
            elif response.status_code == 200 and 'type="password"' in response.text:
                pages.append("login")
                request_id = _REQUEST_ID.search(response.text).group(1)
                response = self.client.post(LOGIN, data={"request_id": request_id, "username": user,
                                                         "password": password or USERS[user][0]})
            elif response.status_code == 200 and 'name="decision"' in response.text:
                pages.append("consent")
                request_id = _REQUEST_ID.search(response.text).group(1)
                response = self.client.post("/auth/consent", data={"request_id": request_id, "decision": decision})
            else:
                break
        return Authz(response.status_code, response.headers.get("location"), pages, verifier, response.text)

    def code(self, **kwargs: Any) -> Authz:
        authz = self.authorize(**kwargs)
        assert authz.code, (authz.status, authz.location, authz.text[:300])
        return authz

    def exchange(self, authz: Authz, *, client_id: str = CONF, secret: str | None = SECRET,
                 verifier: str | None = "same", redirect_uri: str | None = REDIRECT,
                 code: str | None = None) -> httpx.Response:
        data = {"grant_type": "authorization_code", "code": code or authz.code, "client_id": client_id,
                "client_secret": secret, "code_verifier": authz.verifier if verifier == "same" else verifier,
                "redirect_uri": redirect_uri}
        return self.client.post(TOKEN, data={k: v for k, v in data.items() if v is not None})

    def code_tokens(self, *, exchange: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, Any]:
        response = self.exchange(self.code(**kwargs), **(exchange or {}))
        assert response.status_code == 200, response.text
        return response.json()

    def refresh(self, refresh_token: str, *, secret: str | None = SECRET, **extra: str) -> httpx.Response:
        data = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": CONF,
                "client_secret": secret, **extra}
        return self.client.post(TOKEN, data={k: v for k, v in data.items() if v is not None})

    # --- client credentials -------------------------------------------------------------------------
    def assertion(self, *, material: str = "current", client_id: str = CC, **kwargs: Any) -> str:
        key, kid = self.pki.signing_material(material)
        kid = kwargs.pop("kid", kid)
        return rfc7523.build_assertion(client_id, kwargs.pop("audience", AUD), key, kid,
                                       now=kwargs.pop("now", self.config.clock.now()), **kwargs)

    def claims(self, client_id: str = CC) -> dict[str, Any]:
        return rfc7523.claims_for(client_id, AUD, now=self.config.clock.now())

    def cc(self, assertion: str, *, scope: str | None = INQUIRY, **extra: str) -> httpx.Response:
        data = {"grant_type": "client_credentials", "scope": scope, "client_assertion": assertion,
                "client_assertion_type": rfc7523.ASSERTION_TYPE, **extra}
        return self.client.post(TOKEN, data={k: v for k, v in data.items() if v is not None})

    def cc_token(self) -> str:
        response = self.cc(self.assertion())
        assert response.status_code == 200, response.text
        return response.json()["access_token"]

    def call(self, path: str, token: str | None, scheme: str = "Bearer") -> httpx.Response:
        return self.client.get(path, headers={"Authorization": f"{scheme} {token}"} if token else {})


@pytest.fixture(scope="module")
def make_env(pki: TestPki, publisher: tuple[str, dict, list]) -> Iterator[Callable[..., Env]]:
    with ExitStack() as stack:

        def factory(*faults: str, **overrides: Any) -> Env:
            app = create_app(make_config(pki, publisher[0], **overrides), FaultSet(frozenset(faults)))
            # entered: one event loop thread for all of this client's requests
            client = stack.enter_context(TestClient(app, follow_redirects=False))
            return Env(client, app.state.mock.config, pki, app.state.mock)

        yield factory


@pytest.fixture
def env(make_env: Callable[..., Env]) -> Env:
    return make_env()


def _error(response: httpx.Response) -> tuple[int, str | None]:
    """(status, error code of the JSON body, whatever the media type says)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    return response.status_code, body.get("error") if isinstance(body, dict) else None


# --- authorize: errors ------------------------------------------------------------------------------
@pytest.mark.parametrize("client_id, redirect_uri", [
    ("no-such-client", REDIRECT),
    (CONF, "https://evil.example/callback"),
    (CONF, REDIRECT + "/"),  # exact string comparison: a trailing slash is another URI
    (CONF, ""),
])
def test_authorize_bad_client_or_redirect_uri_gets_a_page_not_a_redirect(env, client_id, redirect_uri):
    response = env.client.get(AUTHORIZE, params={"response_type": "code", "client_id": client_id,
                                                 "redirect_uri": redirect_uri, "scope": FILING, "state": "s",
                                                 "code_challenge": rfc7636.s256("v" * 43),
                                                 "code_challenge_method": "S256"})
    assert response.status_code == 400
    assert "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("kwargs, error", [
    ({"extra": (("response_type", "token"),)}, "invalid_request"),  # repeated parameter
    ({"extra": (("state", "second"),)}, "invalid_request"),
    ({"challenge": None, "verifier": None}, "invalid_request"),
    ({"method": "plain", "challenge": "p" * 43}, "invalid_request"),
    ({"method": None}, "invalid_request"),  # absent method means plain
    ({"method": "S512"}, "invalid_request"),
    ({"challenge": "A" * 42}, "invalid_request"),
    ({"challenge": rfc7636.s256("v" * 43)[:-1] + "="}, "invalid_request"),
    ({"challenge": "+" * 43}, "invalid_request"),
    ({"scope": INQUIRY}, "invalid_scope"),
    ({"scope": FILING + " other"}, "invalid_scope"),
])
def test_authorize_errors_redirect_with_error_and_state(env, kwargs, error):
    authz = env.authorize(**kwargs)
    assert authz.status == 302 and authz.location.startswith(REDIRECT + "?")
    assert authz.param("error") == error
    assert authz.param("state") == "st-1"
    assert authz.code is None and authz.pages == []


def test_authorize_unsupported_response_type(env):
    response = env.client.get(AUTHORIZE, params={"response_type": "token", "client_id": CONF, "redirect_uri": REDIRECT,
                                                 "scope": FILING, "state": "x y",
                                                 "code_challenge": rfc7636.s256("v" * 43),
                                                 "code_challenge_method": "S256"})
    query = parse_qs(urlsplit(response.headers["location"]).query)
    assert response.status_code == 302 and query["error"] == ["unsupported_response_type"]
    assert query["state"] == ["x y"]


def test_authorize_keeps_the_redirect_uris_own_query(make_env):
    env = make_env()
    env.config.clients[CONF].redirect_uris = (REDIRECT + "?tenant=7",)
    authz = env.code(redirect_uri=REDIRECT + "?tenant=7")
    assert authz.param("tenant") == "7" and authz.param("state") == "st-1"


# --- authorize: login, consent, redirect ---------------------------------------------------------------
def test_login_consent_redirect_with_state_echoed(env):
    authz = env.authorize(state=TRICKY_STATE)
    assert authz.pages == ["login", "consent"]
    assert authz.status == 302 and authz.location.startswith(REDIRECT + "?")
    assert authz.param("state") == TRICKY_STATE
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", authz.code)


def test_login_form_is_plain_and_refuses_a_wrong_password(env):
    first = env.client.get(AUTHORIZE, params={"response_type": "code", "client_id": CONF, "redirect_uri": REDIRECT,
                                              "scope": FILING, "code_challenge": rfc7636.s256("v" * 43),
                                              "code_challenge_method": "S256"})
    assert first.status_code == 302 and "mock_auth_session" in first.headers["set-cookie"]
    form = env.client.get(first.headers["location"])
    assert form.status_code == 200 and "<style" not in form.text and 'name="username"' in form.text
    request_id = _REQUEST_ID.search(form.text).group(1)
    wrong = env.client.post(LOGIN, data={"request_id": request_id, "username": "notaris", "password": "nope"})
    assert wrong.status_code == 200 and 'type="password"' in wrong.text
    other_browser = TestClient(env.client.app, follow_redirects=False)
    stolen = other_browser.post(LOGIN, data={"request_id": request_id, "username": "notaris",
                                             "password": USERS["notaris"][0]})
    assert stolen.status_code == 400  # the request belongs to the first browser session


def test_consent_remembered_per_user_client_and_scope(env):
    assert env.authorize().pages == ["login", "consent"]
    second = env.authorize()
    assert second.pages == [] and second.code  # logged in and consented: straight back
    assert env.authorize(client_id=PUBLIC).pages == ["consent"]  # another client asks again


def test_consent_denied(env):
    denied = env.authorize(decision="deny")
    assert denied.param("error") == "access_denied" and denied.param("state") == "st-1" and not denied.code


def test_role_required(env):
    no_role = env.authorize(user="medewerker")
    assert no_role.pages == ["login"] and no_role.param("error") == "access_denied" and not no_role.code


# --- token endpoint: code exchange ---------------------------------------------------------------------
def test_code_exchange_confidential_and_public(env):
    response = env.exchange(env.code())
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json;charset=UTF-8"
    assert response.headers["cache-control"] == "no-store" and response.headers["pragma"] == "no-cache"
    body = response.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600 and body["scope"] == FILING
    assert body["refresh_token"] and body["access_token"].count(".") == 2
    claims = env.mock.tokens.decode_access(body["access_token"])
    assert {"iss", "client_id", "sub", "scope", "exp", "iat", "jti"} <= claims.keys()
    assert claims["client_id"] == CONF and claims["sub"] == "notaris" and claims["exp"] - claims["iat"] == 3600
    public = env.exchange(env.code(client_id=PUBLIC), client_id=PUBLIC, secret=None)
    assert public.status_code == 200 and public.json()["refresh_token"]
    assert env.call(FILING_URL, public.json()["access_token"]).status_code == 200


@pytest.mark.parametrize("change, expected", [
    ({"secret": "wrong"}, (401, "invalid_client")),
    ({"secret": None}, (401, "invalid_client")),
    ({"client_id": PUBLIC, "secret": None}, (400, "invalid_grant")),  # a code of another client
    ({"client_id": "nobody"}, (401, "invalid_client")),
    ({"verifier": None}, (400, "invalid_request")),
    ({"verifier": rfc7636.generate_verifier()}, (400, "invalid_grant")),
    ({"redirect_uri": REDIRECT + "/other"}, (400, "invalid_grant")),
    ({"redirect_uri": None}, (400, "invalid_request")),
    ({"code": "not-a-code"}, (400, "invalid_grant")),
])
def test_code_exchange_refusals(env, change, expected):
    response = env.exchange(env.code(), **change)
    assert _error(response) == expected
    assert response.headers["cache-control"] == "no-store"


def test_public_client_with_a_secret_is_refused(env):
    response = env.exchange(env.code(client_id=PUBLIC), client_id=PUBLIC, secret="anything")
    assert _error(response) == (401, "invalid_client")


@pytest.mark.parametrize("verifier", ["A" * 42, "B" * 129, "C" * 40 + "+/=!"])
def test_verifier_syntax_checked_even_when_it_hashes_to_the_challenge(env, verifier):
    authz = env.code(verifier=verifier)
    assert _error(env.exchange(authz)) == (400, "invalid_request")


def test_http_basic_client_authentication(env):
    authz = env.code()
    data = {"grant_type": "authorization_code", "code": authz.code, "code_verifier": authz.verifier,
            "redirect_uri": REDIRECT}
    wrong = env.client.post(TOKEN, data=data, auth=(CONF, "wrong"))
    assert _error(wrong) == (401, "invalid_client") and wrong.headers["www-authenticate"].startswith("Basic")
    both = env.client.post(TOKEN, data={**data, "client_secret": SECRET}, auth=(CONF, SECRET))
    assert _error(both) == (400, "invalid_request")
    assert env.client.post(TOKEN, data=data, auth=(CONF, SECRET)).status_code == 200


def test_code_single_use_and_reuse_revokes_its_tokens(env):
    authz = env.code()
    first = env.exchange(authz).json()
    assert env.call(FILING_URL, first["access_token"]).status_code == 200
    assert _error(env.exchange(authz)) == (400, "invalid_grant")
    revoked = env.call(FILING_URL, first["access_token"])
    assert revoked.status_code == 401 and 'error="invalid_token"' in revoked.headers["www-authenticate"]
    assert _error(env.refresh(first["refresh_token"])) == (400, "invalid_grant")


@pytest.mark.parametrize("lifetime", [30, 300])
def test_code_lifetime_from_the_mock_clock(make_env, lifetime):
    env = make_env(code_lifetime_s=lifetime)
    young = env.code()
    env.advance(lifetime - 1)
    assert env.exchange(young).status_code == 200
    old = env.code()
    env.advance(lifetime)
    assert _error(env.exchange(old)) == (400, "invalid_grant")


# --- refresh ---------------------------------------------------------------------------------------------
def test_refresh_rotates_and_expires(env):
    tokens = env.code_tokens()
    refreshed = env.refresh(tokens["refresh_token"])
    assert refreshed.status_code == 200 and refreshed.headers["cache-control"] == "no-store"
    body = refreshed.json()
    assert body["refresh_token"] != tokens["refresh_token"] and body["scope"] == FILING
    assert env.call(FILING_URL, body["access_token"]).status_code == 200
    assert _error(env.refresh(tokens["refresh_token"])) == (400, "invalid_grant")  # rotated away
    assert _error(env.refresh(body["refresh_token"], secret="wrong")) == (401, "invalid_client")
    assert _error(env.refresh(body["refresh_token"], scope=FILING + " " + INQUIRY)) == (400, "invalid_scope")
    env.advance(604800 - 1)
    still = env.refresh(body["refresh_token"])
    assert still.status_code == 200
    env.advance(604800)
    assert _error(env.refresh(still.json()["refresh_token"])) == (400, "invalid_grant")


# --- token endpoint: general -------------------------------------------------------------------------------
def test_token_endpoint_takes_form_posts_only(env):
    assert _error(env.client.get(TOKEN)) == (405, "invalid_request")
    as_json = env.client.post(TOKEN, json={"grant_type": "client_credentials"})
    assert _error(as_json) == (400, "invalid_request")
    in_query = env.client.post(TOKEN + "?client_secret=x", data={"grant_type": "refresh_token"})
    assert _error(in_query) == (400, "invalid_request")
    assert _error(env.client.post(TOKEN, data={"grant_type": "password", "username": "x"})) == \
        (400, "unsupported_grant_type")
    assert _error(env.client.post(TOKEN, data={"code": "x"})) == (400, "invalid_request")
    repeated = env.client.post(TOKEN, content=b"grant_type=refresh_token&grant_type=refresh_token",
                               headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert _error(repeated) == (400, "invalid_request")


@pytest.mark.parametrize("method, path, kwargs", [
    ("POST", TOKEN, {"content": b"%ff%fe=1", "headers": {"Content-Type": "application/x-www-form-urlencoded"}}),
    ("POST", TOKEN, {"content": "grant_type=\u00e9".encode(), "headers": {"Content-Type": "application/x-www-form-urlencoded"}}),
    ("POST", TOKEN, {"content": b"a=1&" * 200, "headers": {"Content-Type": "application/x-www-form-urlencoded"}}),
    ("POST", TOKEN, {"content": b"x" * 70_000, "headers": {"Content-Type": "application/x-www-form-urlencoded"}}),
    ("POST", TOKEN, {"data": {"grant_type": "client_credentials", "scope": INQUIRY, "client_assertion": "a.b.c",
                              "client_assertion_type": rfc7523.ASSERTION_TYPE}}),
    ("POST", TOKEN, {"data": {"grant_type": "client_credentials", "scope": INQUIRY, "client_assertion": "e30.e30.",
                              "client_assertion_type": rfc7523.ASSERTION_TYPE}}),
    ("POST", TOKEN, {"data": {"grant_type": "client_credentials", "scope": INQUIRY,
                              "client_assertion": "W10.W10.", "client_assertion_type": rfc7523.ASSERTION_TYPE}}),
    ("POST", TOKEN, {"data": {"grant_type": "refresh_token", "refresh_token": "\u2603", "client_id": CONF,
                              "client_secret": SECRET}}),
    ("POST", TOKEN, {"data": {"grant_type": "authorization_code"}, "headers": {"Authorization": "Basic %%%"}}),
    ("POST", TOKEN, {"data": {"grant_type": "authorization_code"}, "headers": {"Authorization": "Digest x"}}),
    ("GET", AUTHORIZE + "?client_id=%ff", {}),
    ("GET", AUTHORIZE + "?" + "a=1&" * 100, {}),
    ("GET", LOGIN + "?request_id=nothing", {}),
    ("POST", LOGIN, {"content": b"\x00\x01", "headers": {"Content-Type": "text/plain"}}),
    ("POST", "/auth/consent", {"data": {"request_id": "x", "decision": "approve"}}),
    ("DELETE", "/auth/consent", {}),
    ("GET", INQUIRY_URL, {"headers": {"Authorization": "Bearer a b c"}}),
    ("GET", INQUIRY_URL, {"headers": {"Authorization": "Bearer " + "e30." * 3}}),
    ("GET", INQUIRY_URL, {"headers": {"Authorization": "Bearer"}}),
    ("POST", FILING_URL, {}),
    ("POST", "/__mock__/clock", {"json": {"advance_s": "soon"}}),
])
def test_malformed_input_gets_a_4xx_without_traceback(env, method, path, kwargs):
    response = env.client.request(method, path, **kwargs)
    assert 400 <= response.status_code < 500, response.text
    assert "Traceback" not in response.text


def test_client_credentials_with_both_keys_of_the_good_jwks(env):
    for material in ("current", "next"):
        response = env.cc(env.assertion(material=material))
        assert response.status_code == 200, response.text
        body = response.json()
        assert "refresh_token" not in body and body["expires_in"] == 3600 and body["scope"] == INQUIRY
        assert response.headers["pragma"] == "no-cache"
        assert env.call(INQUIRY_URL, body["access_token"]).json()["client_id"] == CC


# --- client assertion refusals -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stranger_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _refusals(env: Env, stranger: rsa.RSAPrivateKey) -> dict[str, tuple[str, str]]:
    """What a faithful server refuses: name -> (assertion, a fragment of the reason it gives)."""
    key, kid = env.pki.signing_material("current")
    now = env.config.clock.now()
    claims = env.claims()
    return {
        "alg none": (rfc7523.unsigned_none(claims, kid), "alg none"),
        "HS256 keyed with the public key": (rfc7523.hs256_with_public_key(claims, kid, key.public_key()), "alg"),
        "RS384": (rfc7523.build_assertion(CC, AUD, key, kid, now=now, headers={"alg": "RS384"}), "alg"),
        "tampered payload": (rfc7523.tamper(env.assertion(), jti="tampered-jti"), "signature"),
        "another key under a registered kid": (rfc7523.build_assertion(CC, AUD, stranger, kid, now=now), "signature"),
        "unknown kid": (env.assertion(kid="no-such-kid"), "kid"),
        "no kid": (jwt.encode(claims, key, algorithm="RS256"), "kid"),
        "iss differs from sub": (env.assertion(overrides={"iss": PUBLIC}), "iss and sub"),
        "unregistered client": (env.assertion(client_id="nobody"), "no registered"),
        "code-flow client": (env.assertion(client_id=CONF), "no registered"),
        "aud of another host": (env.assertion(audience="auth.other.example:443/auth/oauth/v2/token"), "aud"),
        "aud with protocol": (env.assertion(audience="https://" + AUD), "aud"),
        "aud without port": (env.assertion(audience=AUD.replace(":443", "")), "aud"),
        "aud with trailing slash": (env.assertion(audience=AUD + "/"), "aud"),
        "expired": (env.assertion(now=now - 240, lifetime_s=120), "expired"),
        "exp too far ahead": (env.assertion(lifetime_s=3600 + 60), "ahead"),
        "no exp": (env.assertion(drop=("exp",)), "exp"),
        "nbf in the future": (env.assertion(overrides={"nbf": int(now) + 120}), "nbf"),
        "no jti": (env.assertion(drop=("jti",)), "jti"),
        "no x5c": (env.assertion(material="no_x5c", client_id="inquiry-no-x5c"), "x5c"),
        "untrusted root": (env.assertion(material="untrusted", client_id="inquiry-untrusted"), "chain"),
        "expired certificate": (env.assertion(material="expired", client_id="inquiry-expired"), "not valid"),
        "certificate of another key": (env.assertion(material="mismatch", client_id="inquiry-mismatch"), "certify"),
        "no OIN": (env.assertion(material="no_oin", client_id="inquiry-no-oin"), "no OIN"),
        "OIN registered nowhere": (env.assertion(material="unregistered_oin", client_id="inquiry-unregistered-oin"),
                                   "no customer"),
        "OIN registered twice": (env.assertion(material="twice_oin", client_id="inquiry-twice-oin"), "more than one"),
        "certificate not valid yet": (env.assertion(material="not_yet_valid", client_id="inquiry-not-yet-valid"),
                                      "not valid"),
        "revoked certificate": (env.assertion(material="revoked", client_id="inquiry-revoked"), "is revoked"),
        "certificate of another branch": (env.assertion(material="other_branch", client_id="inquiry-other-branch"),
                                          "outside the Private Services branch"),
        "OIN in organizationIdentifier": (env.assertion(material="oin_elsewhere", client_id="inquiry-oin-elsewhere"),
                                          "no OIN"),
        "JWKS too large": (env.assertion(client_id="inquiry-huge"), "larger than 65536"),
        "JWKS missing": (env.assertion(client_id="inquiry-missing"), "404"),
        "not a JWS": ("not-a-jws", "compact"),
    }


def test_every_assertion_refusal_is_401_invalid_client_for_its_reason(env, stranger_key):
    outcomes, expected = {}, {}
    for what, (assertion, reason) in _refusals(env, stranger_key).items():
        response = env.cc(assertion)
        outcomes[what] = (*_error(response), reason in response.json().get("error_description", ""))
        expected[what] = (401, "invalid_client", True)
    assert outcomes == expected
    assert env.cc(env.assertion()).status_code == 200  # and a good one still passes


def test_assertion_replay_refused_and_iat_not_judged(env):
    assertion = env.assertion()
    assert env.cc(assertion).status_code == 200
    assert _error(env.cc(assertion)) == (401, "invalid_client")
    future_iat = env.assertion(overrides={"iat": int(env.config.clock.now()) + 600})
    assert env.cc(future_iat).status_code == 200
    lenient_nbf = env.assertion(overrides={"nbf": int(env.config.clock.now()) + 20})  # within 30 s
    assert env.cc(lenient_nbf).status_code == 200


@pytest.mark.parametrize("claims", [{"exp": 10**400}, {"exp": -(10**400)}, {"exp": 1e308}, {"nbf": 10**400},
                                    {"exp": True}, {"aud": [1]}, {"aud": []}, {"jti": 7}, {"sub": ["x"]}])
@pytest.mark.parametrize("faults", [(), ("auth.assertion_expired_accepted",)])
def test_odd_claim_values_are_refused_not_crashed(make_env, claims, faults):
    env = make_env(*faults)
    assert _error(env.cc(env.assertion(overrides=claims))) == (401, "invalid_client")


def test_assertion_form_rules(env):
    assert _error(env.cc(env.assertion(), client_assertion_type="urn:other")) == (401, "invalid_client")
    assert _error(env.cc(env.assertion(), client_id=PUBLIC)) == (401, "invalid_client")
    assert env.cc(env.assertion(), client_id=CC).status_code == 200
    assert _error(env.cc(env.assertion(), scope=FILING)) == (400, "invalid_scope")
    assert _error(env.cc(env.assertion(), scope=None)) == (400, "invalid_scope")
    no_auth = env.client.post(TOKEN, data={"grant_type": "client_credentials", "scope": INQUIRY})
    assert _error(no_auth) == (401, "invalid_client")
    with_secret = env.cc(env.assertion(), client_secret="x")
    assert _error(with_secret) == (400, "invalid_request")


def test_one_client_with_two_end_customers_certificates(env):
    for material in ("two_customers", "customer_b"):
        response = env.cc(env.assertion(material=material, client_id=TWO))
        assert response.status_code == 200, response.text
        assert env.call(INQUIRY_URL, response.json()["access_token"]).json()["client_id"] == TWO


def test_revocation_needs_the_issuers_crl(make_env):
    """A certificate that names a CRL distribution point is refused when the server holds no
    CRL of its issuer (status unknown), or one another CA signed; the CAs name none."""
    for crls in ((), (make_env().pki.crls["other_tsp_ca"],)):
        env = make_env(crls=crls)
        response = env.cc(env.assertion())
        assert _error(response) == _REFUSED and "revocation status is unknown" in response.json()["error_description"]
    forged = make_env(crls=(make_env().pki.crls["tsp_ca"],))
    assert forged.cc(forged.assertion()).status_code == 200
    assert _error(forged.cc(forged.assertion(material="revoked", client_id="inquiry-revoked"))) == _REFUSED


def test_without_a_configured_branch_any_domain_of_the_root_passes(make_env):
    env = make_env(branch_policies=())
    assert env.cc(env.assertion(material="other_branch", client_id="inquiry-other-branch")).status_code == 200
    assert _error(env.cc(env.assertion(material="untrusted", client_id="inquiry-untrusted"))) == _REFUSED


def test_certificates_are_judged_at_the_mock_clock(env):
    env.advance(400 * 86400)  # the good leaves live 365 days
    assert _error(env.cc(env.assertion())) == (401, "invalid_client")


def test_jwks_cached_and_refetched_once_on_an_unknown_kid(env, publisher):
    _, documents, fetched = publisher
    documents["rotating"] = env.pki.jwks_documents()["current_only"]
    base = fetched.count("rotating")
    assert env.cc(env.assertion(client_id="inquiry-rotating")).status_code == 200
    assert env.cc(env.assertion(client_id="inquiry-rotating")).status_code == 200
    assert fetched.count("rotating") - base == 1  # cached
    refused = env.cc(env.assertion(material="next", client_id="inquiry-rotating"))
    assert _error(refused) == (401, "invalid_client")
    assert fetched.count("rotating") - base == 2  # one re-fetch for the unknown kid, not more
    documents["rotating"] = env.pki.jwks_documents()["good"]  # the client publishes its next key
    assert env.cc(env.assertion(material="next", client_id="inquiry-rotating")).status_code == 200
    assert fetched.count("rotating") - base == 3


# --- resource servers ------------------------------------------------------------------------------------------
def test_resource_servers(env):
    code_token = env.code_tokens()["access_token"]
    cc_token = env.cc_token()
    filing = env.call(FILING_URL, code_token)
    assert filing.status_code == 200 and filing.headers["content-type"].startswith("text/xml")
    assert filing.text.startswith("<?xml") and "wsdl:definitions" in filing.text
    inquiry = env.call(INQUIRY_URL, cc_token, scheme="bearer")  # the scheme is case-insensitive
    assert inquiry.status_code == 200 and inquiry.headers["content-type"] == "application/json"
    for path in (FILING_URL, INQUIRY_URL):
        missing = env.call(path, None)
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == 'Bearer realm="registry"'
        basic = env.client.get(path, auth=("u", "p"))
        assert basic.status_code == 401 and basic.headers["www-authenticate"] == 'Bearer realm="registry"'
    forbidden = env.call(FILING_URL, cc_token)
    assert forbidden.status_code == 403
    assert forbidden.headers["www-authenticate"] == \
        f'Bearer realm="registry", error="insufficient_scope", scope="{FILING}"'
    assert env.call(INQUIRY_URL, code_token).status_code == 403
    in_query = env.client.get(INQUIRY_URL, params={"access_token": cc_token})
    assert in_query.status_code == 401  # never from the query string


@pytest.mark.parametrize("bad", ["tampered", "garbage", "refresh token", "foreign signature", "expired"])
def test_resource_servers_refuse_bad_tokens(env, bad):
    tokens = env.code_tokens()
    token = tokens["access_token"]
    if bad == "tampered":
        token = rfc7523.tamper(token, scope=FILING + " " + INQUIRY)
    elif bad == "garbage":
        token = "abc.def.ghi"
    elif bad == "refresh token":
        token = tokens["refresh_token"]
    elif bad == "foreign signature":
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        token = rfc7523.build_assertion("x", "y", key, "k", now=env.config.clock.now(),
                                        overrides=env.mock.tokens.decode_access(token))
    else:
        env.advance(3600)
    response = env.call(FILING_URL, token)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Bearer realm="registry", error="invalid_token"'


def test_access_token_valid_until_its_exp(env):
    token = env.cc_token()
    env.advance(3598)  # exp is whole seconds: up to a second earlier than issue time + 3600
    assert env.call(INQUIRY_URL, token).status_code == 200


# --- the clock endpoint --------------------------------------------------------------------------------------------
def test_clock_endpoint_refuses_non_loopback_clients(env):
    assert env.client.get("/__mock__/clock").status_code == 403  # TestClient's host is "testclient"
    before = env.config.clock.now()
    remote = TestClient(env.client.app, client=("192.0.2.7", 50000))
    assert remote.post("/__mock__/clock", json={"advance_s": 3600}).status_code == 403
    assert env.config.clock.now() - before < 60
    local = TestClient(env.client.app, client=("127.0.0.1", 50000))
    assert local.post("/__mock__/clock", json={"advance_s": 3600}).json()["now"] - before >= 3600
    for bad in ({"advance_s": -5}, {"advance_s": 10**400}, {"advance_s": True}, {"advance_s": "60"}, [60]):
        assert local.post("/__mock__/clock", json=bad).status_code == 400
    assert local.post("/__mock__/clock", content=b"\xff{").status_code == 400
    assert local.put("/__mock__/clock").status_code == 405


def test_clock_endpoint_on_a_real_loopback_server(pki, publisher):
    config = make_config(pki, publisher[0])
    server = ServerThread(create_app(config, FaultSet()), "auth-test")
    port = server.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False, timeout=10) as client:
            now = client.get("/__mock__/clock").json()["now"]
            moved = client.post("/__mock__/clock", json={"advance_s": 120}).json()["now"]
            assert 120 <= moved - now < 130
            key, kid = pki.signing_material("current")
            assertion = rfc7523.build_assertion(CC, AUD, key, kid, now=moved)
            token = client.post(TOKEN, data={"grant_type": "client_credentials", "scope": INQUIRY,
                                             "client_assertion": assertion,
                                             "client_assertion_type": rfc7523.ASSERTION_TYPE})
            assert token.status_code == 200, token.text
            assert client.get(INQUIRY_URL, headers={"Authorization": "Bearer " + token.json()["access_token"]}
                              ).status_code == 200
    finally:
        server.stop()


# --- the fault catalogue ---------------------------------------------------------------------------------------------
def _o(response: httpx.Response | None) -> Any:
    """A token answer in one value: "ok" for a token, else (status, error)."""
    if response is None:
        return None
    return "ok" if response.status_code == 200 else _error(response)


def _plain(e: Env) -> list[Any]:
    out = []
    for method in ("plain", None):
        verifier = rfc7636.generate_verifier()
        authz = e.authorize(verifier=verifier, challenge=verifier, method=method)
        out += [authz.param("error"), _o(e.exchange(authz)) if authz.code else None]
    return out


def _no_challenge(e: Env) -> list[Any]:
    authz = e.authorize(verifier=None, challenge=None, method=None)
    return [authz.param("error"), _o(e.exchange(authz, verifier=None)) if authz.code else None]


def _public_without_pkce(e: Env) -> list[Any]:
    """The public client: an authorization without challenge, a code exchanged with a wrong
    verifier; and the confidential client's authorization without challenge, as before."""
    bare = e.authorize(client_id=PUBLIC, verifier=None, challenge=None, method=None)
    wrong = e.exchange(e.code(client_id=PUBLIC), client_id=PUBLIC, secret=None, verifier=rfc7636.generate_verifier())
    confidential = e.authorize(verifier=None, challenge=None, method=None)
    return [bare.param("error"), _o(wrong), confidential.param("error")]


def _reuse(e: Env) -> list[Any]:
    authz = e.code()
    return [_o(e.exchange(authz)), _o(e.exchange(authz))]


def _reuse_tokens(e: Env) -> list[Any]:
    authz = e.code()
    token = e.exchange(authz).json()["access_token"]
    return [_o(e.exchange(authz)), e.call(FILING_URL, token).status_code]


def _aged_code(e: Env) -> Any:
    authz = e.code()
    e.advance(e.config.code_lifetime_s)
    return _o(e.exchange(authz))


def _secrets(e: Env) -> list[Any]:
    wrong_code = _o(e.exchange(e.code(), secret="wrong"))
    return [wrong_code, _o(e.refresh(e.code_tokens()["refresh_token"], secret="wrong"))]


def _cc_body(e: Env) -> dict[str, Any]:
    return e.cc(e.assertion()).json()


def _token_header(name: str) -> Callable[[Env], list[Any]]:
    def probe(e: Env) -> list[Any]:
        error = e.client.post(TOKEN, data={"grant_type": "password"})
        return [e.exchange(e.code()).headers.get(name), e.cc(e.assertion()).headers.get(name), error.headers.get(name)]

    return probe


def _token_start(e: Env) -> list[Any]:
    """Each token answer's media type and first two or three bytes (a BOM, UTF-16's mark, or JSON)."""
    error = e.client.post(TOKEN, data={"grant_type": "password"})
    answers = [e.exchange(e.code()), e.cc(e.assertion()), error]
    return [(r.headers.get("content-type"), r.content[:3] if r.content.startswith(b"\xef") else r.content[:2])
            for r in answers]


def _implicit(e: Env) -> list[Any]:
    """response_type=token: the redirect's status, its error, and whether its fragment holds a token."""
    response = e.client.get(AUTHORIZE, params=[("response_type", "token"), ("client_id", CONF), ("scope", FILING),
                                               ("redirect_uri", REDIRECT), ("state", "s1")])
    location = response.headers.get("location") or ""
    error = parse_qs(urlsplit(location).query).get("error")
    return [response.status_code, error[0] if error else None, "access_token=" in urlsplit(location).fragment]


def _errors(e: Env) -> list[Any]:
    authz = e.code()
    return [_error(e.exchange(authz, secret="wrong")), _error(e.exchange(authz, verifier=rfc7636.generate_verifier())),
            _error(e.client.post(TOKEN, data={"grant_type": "password"})), _error(e.cc("not-a-jws"))]


def _aged_refresh(e: Env) -> Any:
    refresh_token = e.code_tokens()["refresh_token"]
    e.advance(604800)
    return _o(e.refresh(refresh_token))


def _twice(e: Env) -> list[Any]:
    assertion = e.assertion()
    return [_o(e.cc(assertion)), _o(e.cc(assertion))]


def _cc(make: Callable[[Env], str]) -> Callable[[Env], Any]:
    return lambda e: _o(e.cc(make(e)))


def _not_verified(e: Env) -> list[Any]:
    key, kid = e.pki.signing_material("current")
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    other_key = rfc7523.build_assertion(CC, AUD, stranger, kid, now=e.config.clock.now())
    return [_o(e.cc(rfc7523.tamper(e.assertion(), jti="tampered-1"))), _o(e.cc(other_key))]


def _auds(e: Env) -> list[Any]:
    return [_o(e.cc(e.assertion())), _o(e.cc(e.assertion(audience="https://127.0.0.1/auth/oauth/v2/token")))]


def _expired_access(e: Env) -> int:
    token = e.cc_token()
    e.advance(3600)
    return e.call(INQUIRY_URL, token).status_code


def _challenges(e: Env) -> list[Any]:
    cc_token = e.cc_token()
    return [e.call(INQUIRY_URL, None).headers.get("www-authenticate"),
            e.call(INQUIRY_URL, "abc.def.ghi").headers.get("www-authenticate"),
            e.call(FILING_URL, cc_token).headers.get("www-authenticate")]


def _concurrent(e: Env) -> list[Any]:
    """Two validations of one assertion at once (as two requests that overlap), then a third."""
    assertion = e.assertion()

    async def both() -> list[Any]:
        return await asyncio.gather(*(e.mock.validator.validate(assertion) for _ in range(2)), return_exceptions=True)

    at_once = sorted("refused" if isinstance(r, Exception) else "ok" for r in asyncio.run(both()))
    return [at_once, _o(e.cc(assertion))]


def _missing_secrets(e: Env) -> list[Any]:
    return [_o(e.exchange(e.code(), secret=None)), _o(e.refresh(e.code_tokens()["refresh_token"], secret=None))]


def _code_at(seconds: int) -> Callable[[Env], Any]:
    def probe(e: Env) -> Any:
        authz = e.code()
        e.advance(seconds)
        return _o(e.exchange(authz))
    return probe


def _refresh_at(e: Env) -> Any:
    refresh_token = e.code_tokens()["refresh_token"]
    e.advance(604800 - 3600)
    return _o(e.refresh(refresh_token))


def _access_at(e: Env) -> int:
    token = e.cc_token()
    e.advance(3500)
    return e.call(INQUIRY_URL, token).status_code


def _other_algorithms(e: Env) -> list[Any]:
    return [_o(e.cc(e.assertion(algorithm=alg))) for alg in ("RS384", "RS512", "PS256")]


def _saml_type(e: Env) -> Any:
    return _o(e.cc(e.assertion(), client_assertion_type="urn:ietf:params:oauth:client-assertion-type:saml2-bearer"))


def _refresh_twice(e: Env) -> list[Any]:
    """Whether a refresh returns a refresh_token, and the presented one presented again."""
    refresh_token = e.code_tokens()["refresh_token"]
    first = e.refresh(refresh_token)
    return ["refresh_token" in first.json(), _o(first), _o(e.refresh(refresh_token))]


def _expires_in_per_grant(e: Env) -> list[Any]:
    code = e.code_tokens()
    return [code["expires_in"], _cc_body(e)["expires_in"], e.refresh(code["refresh_token"]).json()["expires_in"]]


def _content_type_per_grant(e: Env) -> list[Any]:
    code = e.exchange(e.code())
    refreshed = e.refresh(code.json()["refresh_token"])
    return [code.headers["content-type"], e.cc(e.assertion()).headers["content-type"],
            refreshed.headers["content-type"]]


def _response_form(e: Env) -> list[Any]:
    """The status of the redirect with the code, whether code and state are in its query,
    and whether they are in its fragment."""
    authz = e.authorize()
    parts = urlsplit(authz.location or "")
    in_query = {"code", "state"} <= parse_qs(parts.query).keys()
    return [authz.status, in_query, {"code", "state"} <= parse_qs(parts.fragment).keys()]


_REFUSED = (401, "invalid_client")
_BAD_TOKEN = 'Bearer realm="registry", error="invalid_token"'
_SCOPE_CHALLENGE = f'Bearer realm="registry", error="insufficient_scope", scope="{FILING}"'
# (fault, probe, what the faithful mock answers, what the mock answers under the fault)
FAULT_TABLE: list[tuple[str, Callable[[Env], Any], Any, Any]] = [
    ("pkce_plain_accepted", _plain, ["invalid_request", None] * 2, [None, "ok"] * 2),
    ("pkce_not_required", _no_challenge, ["invalid_request", None], [None, "ok"]),
    ("public_client_pkce_not_enforced", _public_without_pkce,
     ["invalid_request", (400, "invalid_grant"), "invalid_request"], [None, "ok", "invalid_request"]),
    ("code_verifier_ignored",
     lambda e: [_o(e.exchange(e.code(), verifier=rfc7636.generate_verifier())), _o(e.exchange(e.code(), verifier=None))],
     [(400, "invalid_grant"), (400, "invalid_request")], ["ok", "ok"]),
    ("variant.verifier_checked_by_hash_only",
     lambda e: [_o(e.exchange(e.code(verifier=v))) for v in ("A" * 42, "B" * 129, "C" * 40 + "+/=!")],
     [(400, "invalid_request")] * 3, ["ok"] * 3),
    ("code_reusable", _reuse, ["ok", (400, "invalid_grant")], ["ok", "ok"]),
    ("code_reuse_keeps_tokens", _reuse_tokens, [(400, "invalid_grant"), 401], [(400, "invalid_grant"), 200]),
    ("code_never_expires", _aged_code, (400, "invalid_grant"), "ok"),
    ("redirect_uri_not_compared",
     lambda e: [_o(e.exchange(e.code(), redirect_uri=REDIRECT + "/other")), _o(e.exchange(e.code(), redirect_uri=None))],
     [(400, "invalid_grant"), (400, "invalid_request")], ["ok", "ok"]),
    ("redirect_uri_optional",
     lambda e: [_o(e.exchange(e.code(), redirect_uri=REDIRECT + "/other")), _o(e.exchange(e.code(), redirect_uri=None))],
     [(400, "invalid_grant"), (400, "invalid_request")], [(400, "invalid_grant"), "ok"]),
    ("code_client_not_compared", lambda e: _o(e.exchange(e.code(client_id=PUBLIC), client_id=CONF)),
     (400, "invalid_grant"), "ok"),
    ("authorize_unavailable", lambda e: (lambda a: [a.param("error"), bool(a.code)])(e.authorize()),
     [None, True], ["temporarily_unavailable", False]),
    ("authorize_redirects_anywhere",
     lambda e: (lambda a: [a.status, (a.location or "").split("?")[0], bool(a.code)])(
         e.authorize(redirect_uri="https://evil.example/cb")),
     [400, "", False], [302, "https://evil.example/cb", True]),
    ("client_secret_not_checked", _secrets, [(401, "invalid_client")] * 2, ["ok", "ok"]),
    ("state_mangled", lambda e: e.authorize(state=TRICKY_STATE).param("state"),
     TRICKY_STATE, TRICKY_STATE.replace("+", " ")),
    ("consent_not_remembered", lambda e: [e.authorize().pages, e.authorize().pages],
     [["login", "consent"], []], [["login", "consent"], ["consent"]]),
    ("consent_per_client_only",
     lambda e: [e.authorize().pages, e.authorize(scope=f"{FILING} {STATUS}").pages],
     [["login", "consent"], ["consent"]], [["login", "consent"], []]),
    ("role_not_checked", lambda e: (lambda a: [a.param("error"), bool(a.code)])(e.authorize(user="medewerker")),
     ["access_denied", False], [None, True]),
    ("expires_in_not_3600", lambda e: [e.code_tokens()["expires_in"], _cc_body(e)["expires_in"]],
     [3600, 3600], [7200, 7200]),
    ("scope_missing_in_token_response", lambda e: ["scope" in e.code_tokens(), "scope" in _cc_body(e)],
     [True, True], [False, False]),
    ("no_store_missing", _token_header("cache-control"), ["no-store"] * 3, [None] * 3),
    ("pragma_missing", _token_header("pragma"), ["no-cache"] * 3, [None] * 3),
    ("token_content_type_no_charset", _token_header("content-type"),
     ["application/json;charset=UTF-8"] * 3, ["application/json"] * 3),
    ("token_served_as_text", _token_header("content-type"),
     ["application/json;charset=UTF-8"] * 3, ["text/plain;charset=UTF-8"] * 3),
    ("token_served_bom_text", _token_start,
     [("application/json;charset=UTF-8", b'{"')] * 3, [("text/plain;charset=UTF-8", b"\xef\xbb\xbf")] * 3),
    ("token_served_utf16", _token_start,
     [("application/json;charset=UTF-8", b'{"')] * 3, [("text/plain;charset=UTF-16", b"\xff\xfe")] * 3),
    ("implicit_token_in_fragment", _implicit,
     [302, "unsupported_response_type", False], [302, None, True]),
    ("variant.refused_token_403",
     lambda e: [(r.status_code, r.headers.get("www-authenticate")) for r in
                (e.call(INQUIRY_URL, None), e.call(INQUIRY_URL, "not-a-token."))],
     [(401, 'Bearer realm="registry"'), (401, _BAD_TOKEN)], [(403, 'Bearer realm="registry"'), (403, _BAD_TOKEN)]),
    ("token_errors_not_rfc6749", _errors,
     [(401, "invalid_client"), (400, "invalid_grant"), (400, "unsupported_grant_type"), (401, "invalid_client")],
     [(400, "invalid_request")] * 4),
    ("refresh_grant_unsupported", lambda e: _o(e.refresh(e.code_tokens()["refresh_token"])),
     "ok", (400, "unsupported_grant_type")),
    ("refresh_never_expires", _aged_refresh, (400, "invalid_grant"), "ok"),
    ("cc_refresh_token_issued", lambda e: "refresh_token" in _cc_body(e), False, True),
    ("assertion_replay_accepted", _twice, ["ok", _REFUSED], ["ok", "ok"]),
    ("assertion_replay_race", _concurrent, [["ok", "refused"], _REFUSED], [["ok", "ok"], _REFUSED]),
    ("assertion_expired_accepted", _cc(lambda e: e.assertion(now=e.config.clock.now() - 240, lifetime_s=120)),
     _REFUSED, "ok"),
    ("variant.aud_token_endpoint_url",
     lambda e: [_cc(lambda e, aud=aud: e.assertion(audience=aud))(e)
                for aud in ("https://" + AUD, "https://" + AUD.replace(":443/", "/"))],
     [_REFUSED] * 2, ["ok"] * 2),
    ("assertion_aud_not_checked", _cc(lambda e: e.assertion(audience="other.example:443/auth/oauth/v2/token")),
     _REFUSED, "ok"),
    ("assertion_iss_sub_not_compared", _cc(lambda e: e.assertion(overrides={"iss": "another-client"})),
     _REFUSED, "ok"),
    ("assertion_client_by_iss", _cc(lambda e: e.assertion(overrides={"sub": "inquiry-no-x5c"})), _REFUSED, "ok"),
    ("assertion_client_id_not_compared", lambda e: _o(e.cc(e.assertion(), client_id="inquiry-no-x5c")), _REFUSED, "ok"),
    ("assertion_kid_ignored", _cc(lambda e: e.assertion(kid="kid-that-no-jwks-has")), _REFUSED, "ok"),
    ("assertion_signature_not_verified", _not_verified, [_REFUSED] * 2, ["ok"] * 2),
    ("assertion_alg_none_accepted",
     _cc(lambda e: rfc7523.unsigned_none(e.claims(), e.pki.signing_material("current")[1])), _REFUSED, "ok"),
    ("assertion_hs256_public_key_accepted",
     _cc(lambda e: rfc7523.hs256_with_public_key(e.claims(), e.pki.signing_material("current")[1],
                                                 e.pki.signing_material("current")[0].public_key())),
     _REFUSED, "ok"),
    ("assertion_jti_optional", _cc(lambda e: e.assertion(drop=("jti",))), _REFUSED, "ok"),
    ("assertion_x5c_not_required", _cc(lambda e: e.assertion(material="no_x5c", client_id="inquiry-no-x5c")),
     _REFUSED, "ok"),
    ("assertion_chain_not_checked",
     _cc(lambda e: e.assertion(material="untrusted", client_id="inquiry-untrusted")), _REFUSED, "ok"),
    ("assertion_cert_validity_not_checked",
     _cc(lambda e: e.assertion(material="expired", client_id="inquiry-expired")), _REFUSED, "ok"),
    ("assertion_oin_not_checked",
     _cc(lambda e: e.assertion(material="unregistered_oin", client_id="inquiry-unregistered-oin")), _REFUSED, "ok"),
    ("assertion_oin_uniqueness_not_checked",
     _cc(lambda e: e.assertion(material="twice_oin", client_id="inquiry-twice-oin")), _REFUSED, "ok"),
    ("assertion_first_key_only", _cc(lambda e: e.assertion(material="next")), "ok", _REFUSED),
    ("seed_aud_refused", _auds, ["ok", _REFUSED], [_REFUSED, "ok"]),
    ("resource_rejects_valid_token",
     lambda e: [e.call(INQUIRY_URL, e.cc_token()).status_code, e.call(FILING_URL, e.code_tokens()["access_token"])
                .headers.get("www-authenticate")], [200, None], [401, _BAD_TOKEN]),
    ("resource_open", lambda e: [e.call(INQUIRY_URL, None).status_code, e.call(FILING_URL, None).status_code],
     [401, 401], [200, 200]),
    ("resource_accepts_expired_token", _expired_access, 401, 200),
    ("filing_token_not_verified",
     lambda e: [e.call(FILING_URL, rfc7523.tamper(e.code_tokens()["access_token"], scope=FILING + " " + INQUIRY)).status_code,
                e.call(INQUIRY_URL, rfc7523.tamper(e.cc_token(), scope=INQUIRY + " " + FILING)).status_code],
     [401, 401], [200, 401]),
    ("resource_token_not_verified",
     lambda e: e.call(INQUIRY_URL, rfc7523.tamper(e.cc_token(), scope=INQUIRY + " " + FILING)).status_code, 401, 200),
    ("resource_scope_not_checked",
     lambda e: [e.call(FILING_URL, e.cc_token()).status_code, e.call(INQUIRY_URL, e.code_tokens()["access_token"])
                .status_code], [403, 403], [200, 200]),
    ("www_authenticate_missing", _challenges, ['Bearer realm="registry"', _BAD_TOKEN, _SCOPE_CHALLENGE],
     [None, None, _SCOPE_CHALLENGE]),
    ("client_secret_optional", _missing_secrets, [(401, "invalid_client")] * 2, ["ok"] * 2),
    ("response_type_not_checked", lambda e: [e.authorize(response_type=t).param("error") for t in ("token", "id_token")],
     ["unsupported_response_type"] * 2, [None] * 2),
    ("code_dies_early", _code_at(20), "ok", (400, "invalid_grant")),
    ("refresh_dies_early", _refresh_at, "ok", (400, "invalid_grant")),
    ("access_token_dies_early", _access_at, 200, 401),
    ("assertion_exp_optional", _cc(lambda e: e.assertion(drop=("exp",))), _REFUSED, "ok"),
    ("assertion_aud_optional", _cc(lambda e: e.assertion(drop=("aud",))), _REFUSED, "ok"),
    ("assertion_iss_optional", _cc(lambda e: e.assertion(drop=("iss",))), _REFUSED, "ok"),
    ("assertion_sub_optional", _cc(lambda e: e.assertion(drop=("sub",))), _REFUSED, "ok"),
    ("assertion_alg_any_rsa", _other_algorithms, [_REFUSED] * 3, ["ok"] * 3),
    ("assertion_typ_unchecked", _cc(lambda e: e.assertion(headers={"typ": "at+jwt"})), _REFUSED, "ok"),
    ("assertion_kid_optional", _cc(lambda e: e.assertion(drop_headers=("kid",))), _REFUSED, "ok"),
    ("assertion_type_unchecked", _saml_type, _REFUSED, "ok"),
    ("assertion_x5c_key_not_compared",
     _cc(lambda e: e.assertion(material="mismatch", client_id="inquiry-mismatch")), _REFUSED, "ok"),
    ("assertion_oin_optional", _cc(lambda e: e.assertion(material="no_oin", client_id="inquiry-no-oin")), _REFUSED, "ok"),
    ("www_authenticate_no_error", lambda e: e.call(INQUIRY_URL, "abc.def.ghi").headers.get("www-authenticate"),
     _BAD_TOKEN, 'Bearer realm="registry"'),
    ("filing_wsdl_not_xml", lambda e: e.call(FILING_URL, e.code_tokens()["access_token"]).headers["content-type"],
     "text/xml; charset=utf-8", "application/json"),
    # issue 42: faults declared beside the behaviour they change
    ("assertion_not_before_not_checked",
     lambda e: [_o(e.cc(e.assertion(material=m, client_id=c)))
                for m, c in (("not_yet_valid", "inquiry-not-yet-valid"), ("expired", "inquiry-expired"))],
     [_REFUSED, _REFUSED], ["ok", _REFUSED]),
    ("assertion_revocation_not_checked", _cc(lambda e: e.assertion(material="revoked", client_id="inquiry-revoked")),
     _REFUSED, "ok"),
    ("assertion_branch_not_checked",
     lambda e: [_o(e.cc(e.assertion(material=m, client_id=c)))
                for m, c in (("other_branch", "inquiry-other-branch"), ("untrusted", "inquiry-untrusted"))],
     [_REFUSED, _REFUSED], ["ok", _REFUSED]),
    ("assertion_oin_from_organization_identifier",
     lambda e: [_o(e.cc(e.assertion(material=m, client_id=c)))
                for m, c in (("oin_elsewhere", "inquiry-oin-elsewhere"), ("no_oin", "inquiry-no-oin"))],
     [_REFUSED, _REFUSED], ["ok", _REFUSED]),
    ("assertion_one_oin_per_client",
     lambda e: [_o(e.cc(e.assertion(material=m, client_id=TWO))) for m in ("two_customers", "customer_b")],
     ["ok", "ok"], ["ok", _REFUSED]),
    ("refresh_no_refresh_token", _refresh_twice, [True, "ok", (400, "invalid_grant")], [False, "ok", "ok"]),
    ("refresh_client_not_compared",
     lambda e: _o(e.refresh(e.code_tokens(client_id=PUBLIC, exchange={"client_id": PUBLIC, "secret": None})
                            ["refresh_token"])), (400, "invalid_grant"), "ok"),
    ("refresh_unknown_accepted", lambda e: _o(e.refresh("never-issued-" + "x" * 32)), (400, "invalid_grant"), "ok"),
    ("refresh_expires_in_string", _expires_in_per_grant, [3600, 3600, 3600], [3600, 3600, "3600"]),
    ("refresh_media_type_no_charset", _content_type_per_grant,
     ["application/json;charset=UTF-8"] * 3, ["application/json;charset=UTF-8"] * 2 + ["application/json"]),
    ("authorize_code_in_fragment", _response_form, [302, True, False], [302, False, True]),
    ("authorize_code_redirect_303", _response_form, [302, True, False], [303, True, False]),
    ("insufficient_scope_as_401",
     lambda e: (lambda r: [r.status_code, r.headers.get("www-authenticate")])(e.call(FILING_URL, e.cc_token())),
     [403, _SCOPE_CHALLENGE], [401, _BAD_TOKEN]),
]


def bundle(e: Env) -> dict[str, Any]:
    """Everyday observations of both flows and both APIs."""
    obs: dict[str, Any] = {}
    authz = e.authorize(state="b+1")
    obs["authorize"] = (authz.pages, authz.param("state"), bool(authz.code))
    exchange = e.exchange(authz)
    body = exchange.json()
    obs["code_response"] = (_o(exchange), sorted(body), body.get("expires_in"), body.get("scope"))
    obs["token_headers"] = tuple(exchange.headers.get(h) for h in ("cache-control", "pragma", "content-type"))
    filing = e.call(FILING_URL, body.get("access_token"))
    obs["filing"] = (filing.status_code, filing.headers.get("content-type"))
    obs["refresh"] = _o(e.refresh(body["refresh_token"])) if "refresh_token" in body else None
    obs["second_authorize"] = e.authorize().pages
    cc = e.cc(e.assertion())
    cc_body = cc.json()
    obs["cc"] = (_o(cc), sorted(cc_body), cc_body.get("expires_in"))
    obs["inquiry"] = e.call(INQUIRY_URL, cc_body.get("access_token")).status_code
    obs["cc_at_filing"] = e.call(FILING_URL, cc_body.get("access_token")).status_code
    no_token = e.call(INQUIRY_URL, None)
    obs["no_token"] = (no_token.status_code, no_token.headers.get("www-authenticate"))
    obs["unknown_grant"] = _error(e.client.post(TOKEN, data={"grant_type": "password"}))
    return obs


# Observations of the bundle a fault necessarily changes; all others must stay as they were.
BUNDLE_CHANGES: dict[str, set[str]] = {
    "state_mangled": {"authorize"},
    "consent_not_remembered": {"second_authorize"},
    # no code: nothing to exchange, use or refresh
    "authorize_unavailable": {"authorize", "code_response", "filing", "refresh"},
    "expires_in_not_3600": {"code_response", "cc"},
    "scope_missing_in_token_response": {"code_response", "cc"},
    "no_store_missing": {"token_headers"},
    "pragma_missing": {"token_headers"},
    "token_content_type_no_charset": {"token_headers"},
    "token_served_as_text": {"token_headers"},
    "token_served_bom_text": {"token_headers"},
    "token_served_utf16": {"token_headers"},
    "variant.refused_token_403": {"no_token"},
    "token_errors_not_rfc6749": {"unknown_grant"},
    "refresh_grant_unsupported": {"refresh"},
    "cc_refresh_token_issued": {"cc"},
    "seed_aud_refused": {"cc", "inquiry", "cc_at_filing"},
    "resource_rejects_valid_token": {"filing", "inquiry"},
    "resource_open": {"no_token"},
    "resource_scope_not_checked": {"cc_at_filing"},
    "www_authenticate_missing": {"no_token"},
    "filing_wsdl_not_xml": {"filing"},
    # the code goes back in the fragment: the bundle's client reads the query only
    "authorize_code_in_fragment": {"authorize", "code_response", "filing", "refresh"},
    "insufficient_scope_as_401": {"cc_at_filing"},
}


@pytest.fixture(scope="module")
def faithful_bundle(make_env: Callable[..., Env]) -> dict[str, Any]:
    return bundle(make_env())


@pytest.mark.parametrize("name, probe, faithful, faulty", FAULT_TABLE, ids=[row[0] for row in FAULT_TABLE])
def test_fault_changes_exactly_its_behaviour(make_env, faithful_bundle, name, probe, faithful, faulty):
    assert probe(make_env()) == faithful
    assert probe(make_env(f"auth.{name}")) == faulty
    under_fault = bundle(make_env(f"auth.{name}"))
    changed = {key for key in faithful_bundle if under_fault[key] != faithful_bundle[key]}
    assert changed == BUNDLE_CHANGES.get(name, set()), {k: (faithful_bundle[k], under_fault[k]) for k in changed}


def test_fault_table_covers_the_catalogue_and_the_contract():
    names = {f"auth.{row[0]}" for row in FAULT_TABLE}
    assert names == {f.name for f in catalogue("auth") + variants("auth")}
    contract = (Path(__file__).parents[1] / "docs" / "auth-design.md").read_text(encoding="utf-8")
    in_contract = set(re.findall(r"^\| `(auth\.[a-z0-9_.]+)` \|", contract, flags=re.MULTILINE))
    # every fault of the contract's table, plus the ones the check catalogue asked for since
    assert in_contract <= names and names - in_contract <= {"auth.token_served_as_text"}
    assert all(f.description for f in catalogue("auth"))
    source = "".join(p.read_text(encoding="utf-8") for p in
                     (Path(__file__).parents[1] / "conformance" / "mocks" / "auth").glob("*.py") if p.name != "faults.py")
    assert {n for n in names if f'"{n}"' not in source} == set()  # each is asked for where it acts


def test_stores_share_the_signing_key_but_never_each_others_tokens() -> None:
    """The mock's signing key is made once per process (conformance/mocks/auth/tokens.py):
    a second store signs with it under its own kid, and takes no token the first issued,
    though its signature and issuer check out."""
    from conformance.mocks.auth.tokens import TokenStore

    config = AuthMockConfig(clients={}, users={}, customers={}, trust_roots=(), audience=AUD)
    first, second = TokenStore(config), TokenStore(config)
    assert first.public_key.public_numbers() == second.public_key.public_numbers() and first.kid != second.kid
    issued = first.issue(client_id=CC, subject=CC, scope=INQUIRY, refresh=False)
    claims = second.decode_access(issued.access_token)
    assert claims is not None and claims["jti"]  # the signature and the issuer are the same...
    assert second.access_revoked(claims) and not first.access_revoked(first.decode_access(issued.access_token))
