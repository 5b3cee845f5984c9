"""Real third-party clients through `conformance proxy --profile local-mock` (the proxy starts
the mocks behind it): Authlib for the code flow with PKCE and for private_key_jwt, a
browser-style httpx client that follows every redirect and fills the login and consent
forms, httpx for the address API, zeep for the SOAP message service.

* a conforming session: every client check passes, two interleaved code flows included, a
  second browser without a session is sent to the login page (not handed a code through
  another's cookie), and the browser never leaves the proxy; exit 0;
* a violating session: each deliberate client violation fails its own client check (the
  table VIOLATIONS), exit 1.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest
import zeep
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import OAuth2Client
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from cryptography.hazmat.primitives import serialization
from proxy_process import ProxyProcess
from zeep.helpers import serialize_object

from conformance.auth.flows import FILING_SCOPE, INQUIRY_SCOPE
from conformance.mocks.launcher_auth import PKI_DIR, ensure_pki
from conformance.soap import SHIPPED_WSDL, TYPES_NS
from conformance.soap.loader import fill_placeholders
from conformance.soap.samples import sample_request

pytestmark = pytest.mark.interop

CALLBACK = "http://127.0.0.1:8765/callback"  # the local-mock profile's redirect_uri; nothing listens there
SOAP_ACTION_BASE = "urn:registry:graafbericht"
ADDRESS_ID = "1951200000000101"
# What the test plants in the proxy's environment: the mocks take these values.
PLANTED = {name: f"interop-{name.lower()}-{secrets.token_hex(8)}" for name in (
    "CONFORMANCE_MOCK_API_KEY", "CONFORMANCE_MOCK_CLIENT_SECRET", "CONFORMANCE_MOCK_PASSWORD")}
USER = "notaris"  # the mock's user with the role Aanbieder M2M (README "Judging traffic")
# The client check each deliberate violation must fail.
VIOLATIONS = {
    "client.address.api_key_sent": "an address request without X-Api-Key",
    "client.address.get_only": "a POST to the address API",
    "client.address.parameters_within_limits": "pageSize=500",
    "client.auth.pkce_s256": "code_challenge_method=plain, and no challenge at all",
    "client.auth.verifier_syntax": "a code_verifier of 20 characters",
    "client.auth.verifier_matches_challenge": "a code_verifier that is not the challenge's",
    "client.auth.token_request_form": "a token request in JSON",
    "client.auth.assertion_form": "aud with the protocol (Authlib's default), an expired assertion",
    "client.auth.jti_not_reused": "a jti sent twice (Authlib reuses the jti it put into claims given once)",
    "client.auth.bearer_on_api_requests": "the access token in the query string",
    "client.soap.soap_action": "a WSDL with another soapAction",
}


class ProxySession(ProxyProcess):
    """`conformance proxy --profile local-mock` as a user runs it."""

    def __init__(self, report: Path) -> None:
        self.report = report
        super().__init__("local-mock", report, {**os.environ, **PLANTED})
        self.listeners = {name: self.listener(name, 120) for name in ("address", "soap", "auth")}

    def summary(self) -> tuple[int, dict[str, Any]]:
        """Ctrl-C, then the exit code and the summary the proxy wrote."""
        code = self.stop()
        summary = self.report / "summary.json"
        assert summary.is_file(), "\n".join(self.seen)[-3000:]
        return code, json.loads(summary.read_text())


@pytest.fixture
def session(tmp_path: Path) -> Iterator[ProxySession]:
    proxy = ProxySession(tmp_path / "report")
    try:
        yield proxy
    finally:
        if proxy.proc.poll() is None:
            proxy.proc.kill()


def outcomes_of(summary: dict[str, Any]) -> dict[str, str]:
    return {e["check"]: e["outcome"] for e in summary["checks"]}


def client_outcomes(summary: dict[str, Any]) -> dict[str, str]:
    return {check: outcome for check, outcome in outcomes_of(summary).items() if check.startswith("client.")}


# --------------------------------------------------------------------------- the clients
class BrowserFlow:
    """A browser-style client: it follows every redirect and fills the login and consent forms
    until the redirect to the callback, keeping its cookies; every URL it visits is noted."""

    def __init__(self) -> None:
        self.http = httpx.Client(trust_env=False, timeout=30)
        self.visited: list[str] = []

    def start(self, url: str) -> str:
        """The authorization request; where it sends the browser next."""
        self.visited.append(url)
        answer = self.http.get(url)
        assert answer.status_code == 302, answer.text[:300]
        return urljoin(url, answer.headers["location"])

    def finish(self, url: str) -> str:
        """From the login page on, to the callback URL (with code and state)."""
        method, data = "GET", None
        for _ in range(8):
            if url.startswith(CALLBACK):
                return url
            self.visited.append(url)
            answer = self.http.request(method, url, data=data)
            method, data = "GET", None
            if answer.status_code in (302, 303):
                url = urljoin(url, answer.headers["location"])
                continue
            assert answer.status_code == 200, answer.text[:300]
            form = re.search(r'<form method="post" action="([^"]+)"', answer.text)
            request_id = re.search(r'name="request_id" value="([^"]+)"', answer.text)
            assert form and request_id, answer.text[:300]
            url, method = urljoin(url, form.group(1)), "POST"
            data = ({"request_id": request_id.group(1), "username": USER, "password": PLANTED["CONFORMANCE_MOCK_PASSWORD"]}
                    if 'name="password"' in answer.text else {"request_id": request_id.group(1), "decision": "approve"})
        raise AssertionError(f"no callback after {self.visited}")


def pkce_client(auth: str) -> OAuth2Client:
    return OAuth2Client(client_id="filing-public", redirect_uri=CALLBACK, scope=FILING_SCOPE,
                        code_challenge_method="S256", token_endpoint_auth_method="none", trust_env=False)


def authorize_url(client: OAuth2Client, auth: str, verifier: str | None, **extra: str) -> str:
    url, _ = client.create_authorization_url(f"{auth}/auth/oauth/v2/authorize", code_verifier=verifier,
                                             nonce=generate_token(16), **extra)
    return url


def redeem(client: OAuth2Client, auth: str, callback: str, verifier: str) -> dict[str, Any]:
    return dict(client.fetch_token(f"{auth}/auth/oauth/v2/token", authorization_response=callback,
                                   code_verifier=verifier))


def inquiry_client(audience: str | None, claims: dict[str, Any] | None = None) -> OAuth2Client:
    """Authlib's private_key_jwt client with the test PKI's good key. `audience` None: Authlib's
    default, the token endpoint's URL (with its protocol, which the seed's aud lacks)."""
    key, kid = ensure_pki(PKI_DIR).signing_material("good")
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    client = OAuth2Client(client_id="inquiry-service", client_secret=pem, token_endpoint_auth_method="private_key_jwt",
                          scope=INQUIRY_SCOPE, trust_env=False)
    client.register_client_auth_method(PrivateKeyJWT(audience, claims=claims, headers={"kid": kid, "typ": "JWT"},
                                                     alg="RS256"))
    return client


def soap_client(folder: Path, url: str, action_base: str = SOAP_ACTION_BASE) -> zeep.Client:
    """zeep on the shipped WSDL filled with the proxy's SOAP listener (conformance soap wsdl)."""
    folder.mkdir(parents=True, exist_ok=True)
    for schema in SHIPPED_WSDL.parent.glob("*.xsd"):
        (folder / schema.name).write_bytes(schema.read_bytes())
    (folder / SHIPPED_WSDL.name).write_bytes(fill_placeholders(SHIPPED_WSDL.read_bytes(), soap_url=url,
                                                               soap_action_base=action_base))
    return zeep.Client(str(folder / SHIPPED_WSDL.name),
                       settings=zeep.Settings(strict=True, forbid_dtd=True, forbid_entities=True, forbid_external=True))


def send_graafbericht(client: zeep.Client) -> None:
    element = client.get_element(f"{{{TYPES_NS}}}GraafberichtServiceRequest")
    client.service.RegistryRequestNetbeheerderServiceResponse(
        **serialize_object(element.parse(sample_request(), client.wsdl.types), dict))


# --------------------------------------------------------------------------- the sessions
def test_a_conforming_session_passes(session: ProxySession, tmp_path: Path) -> None:
    address, soap, auth = (session.listeners[name] for name in ("address", "soap", "auth"))
    with httpx.Client(trust_env=False, timeout=30) as http:
        assert http.get(f"{address}/adressen/{ADDRESS_ID}",
                        headers={"X-Api-Key": PLANTED["CONFORMANCE_MOCK_API_KEY"]}).status_code == 200
    send_graafbericht(soap_client(tmp_path / "wsdl", soap))

    # Two code flows interleaved: B logs in and gets its code between A's request and A's login.
    a, b = pkce_client(auth), pkce_client(auth)
    verifier_a, verifier_b = generate_token(64), generate_token(64)
    browser_a, browser_b = BrowserFlow(), BrowserFlow()
    login_a = browser_a.start(authorize_url(a, auth, verifier_a))
    callback_b = browser_b.finish(browser_b.start(authorize_url(b, auth, verifier_b)))
    callback_a = browser_a.finish(login_a)
    tokens = [redeem(a, auth, callback_a, verifier_a), redeem(b, auth, callback_b, verifier_b)]
    assert all(t["access_token"] and t["refresh_token"] for t in tokens)
    # Every step of both browsers stayed on the proxy (the login redirect was rewritten).
    for url in browser_a.visited + browser_b.visited:
        assert url.startswith(auth.rstrip("/") + "/"), url
    # A second browser without a session of its own is sent to the login page, not handed a code.
    stranger = BrowserFlow()
    assert not stranger.start(authorize_url(pkce_client(auth), auth, generate_token(64))).startswith(CALLBACK)

    with httpx.Client(trust_env=False, timeout=30) as http:
        wsdl = http.get(f"{auth}/filing/aanbiedenverzoeken/v1/aanbiedenVerzoeken.wsdl",
                        headers={"Authorization": f"Bearer {tokens[0]['access_token']}"})
        assert wsdl.status_code == 200
        inquiry = inquiry_client(audience="127.0.0.1:443/auth/oauth/v2/token",
                                 claims={"exp": int(time.time()) + 300})
        token = inquiry.fetch_token(f"{auth}/auth/oauth/v2/token", grant_type="client_credentials")
        assert http.get(f"{auth}/inquiry/registry-inzage/v6",
                        headers={"Authorization": f"Bearer {token['access_token']}"}).status_code == 200

    code, summary = session.summary()
    got = client_outcomes(summary)
    failing = {check: outcome for check, outcome in got.items() if outcome not in ("passed", "not_applicable")}
    # The inquiry client's JWKS is neither in the session nor named by the profile (keys.jwks_uri).
    assert failing == {"client.auth.jwks_document": "not_judged"}, failing
    # Every check a violation below breaks was judged here, and passed.
    assert {check for check, outcome in got.items() if outcome == "passed"} >= set(VIOLATIONS), got
    assert outcomes_of(summary)["auth.code.state_echoed"] == "passed"  # the interleaved flows
    assert code == 0, "\n".join(session.seen)[-3000:]


def test_a_confidential_client_with_authlibs_defaults_is_no_violation(session: ProxySession) -> None:
    """Issue 51: Authlib's confidential client as it comes authenticates with HTTP Basic (RFC 6749
    2.3.1: every server MUST support it; the body is NOT RECOMMENDED), for the code exchange and
    the refresh: no client check may fail it for that."""
    auth = session.listeners["auth"]
    client = OAuth2Client(client_id="filing-confidential", client_secret=PLANTED["CONFORMANCE_MOCK_CLIENT_SECRET"],
                          redirect_uri=CALLBACK, scope=FILING_SCOPE, code_challenge_method="S256", trust_env=False)
    assert client.token_endpoint_auth_method == "client_secret_basic"  # the library's default, untouched
    verifier = generate_token(64)
    browser = BrowserFlow()
    callback = browser.finish(browser.start(authorize_url(client, auth, verifier)))
    tokens = redeem(client, auth, callback, verifier)
    refreshed = client.refresh_token(f"{auth}/auth/oauth/v2/token", refresh_token=tokens["refresh_token"])
    assert refreshed["access_token"]
    code, summary = session.summary()
    got = client_outcomes(summary)
    assert got["client.auth.token_request_body"] == "passed", got
    assert got["client.auth.client_secret_by_kind"] == "passed", got
    failed = {check for check, outcome in got.items() if outcome == "failed"}
    assert not failed, failed
    # No MUST failure: exit 4 only because the session held no address or SOAP exchange.
    assert code == 4 and summary["check_counts"]["must_failed"] == 0, summary["verdict_line"]


def test_each_client_violation_fails_its_check(session: ProxySession, tmp_path: Path) -> None:
    address, soap, auth = (session.listeners[name] for name in ("address", "soap", "auth"))
    key = {"X-Api-Key": PLANTED["CONFORMANCE_MOCK_API_KEY"]}
    with httpx.Client(trust_env=False, timeout=30) as http:
        http.get(f"{address}/adressen/{ADDRESS_ID}")  # no key
        http.post(f"{address}/adressen/{ADDRESS_ID}", headers=key)
        http.get(f"{address}/adressen", params={"postcode": "1181VA", "huisnummer": "12", "pageSize": "500"}, headers=key)
    with pytest.raises(zeep.exceptions.Fault):  # the service refuses the other soapAction, as it should
        send_graafbericht(soap_client(tmp_path / "wsdl", soap, action_base="urn:another:service"))

    client = pkce_client(auth)
    BrowserFlow().start(authorize_url(client, auth, generate_token(64), code_challenge_method="plain"))
    plain = OAuth2Client(client_id="filing-public", redirect_uri=CALLBACK, scope=FILING_SCOPE, trust_env=False)
    BrowserFlow().start(authorize_url(plain, auth, None))  # no code_challenge at all
    short = generate_token(20)
    browser = BrowserFlow()
    callback = browser.finish(browser.start(authorize_url(client, auth, short)))
    # The server may refuse what these send: the client checks judge the requests, not the answers.
    with contextlib.suppress(Exception):
        redeem(client, auth, callback, short)
    verifier = generate_token(64)
    browser = BrowserFlow()
    callback = browser.finish(browser.start(authorize_url(client, auth, verifier)))
    with contextlib.suppress(Exception):
        redeem(client, auth, callback, generate_token(64))  # not the challenge's verifier
    with httpx.Client(trust_env=False, timeout=30) as http:
        http.post(f"{auth}/auth/oauth/v2/token", json={"grant_type": "client_credentials", "scope": INQUIRY_SCOPE})
        for client_ in (inquiry_client(audience=None),  # Authlib's default aud: the URL, with its protocol
                        inquiry_client(audience="127.0.0.1:443/auth/oauth/v2/token",
                                       claims={"exp": int(time.time()) - 60})):  # expired
            with contextlib.suppress(Exception):
                client_.fetch_token(f"{auth}/auth/oauth/v2/token", grant_type="client_credentials")
        reusing = inquiry_client(audience="127.0.0.1:443/auth/oauth/v2/token", claims={"exp": int(time.time()) + 300})
        token = reusing.fetch_token(f"{auth}/auth/oauth/v2/token", grant_type="client_credentials")
        with contextlib.suppress(Exception):
            reusing.fetch_token(f"{auth}/auth/oauth/v2/token", grant_type="client_credentials")  # the same jti
        http.get(f"{auth}/inquiry/registry-inzage/v6", params={"access_token": token["access_token"]})

    code, summary = session.summary()
    got = client_outcomes(summary)
    wrong = {check: got.get(check) for check in VIOLATIONS if got.get(check) != "failed"}
    assert not wrong, (wrong, "\n".join(session.seen)[-3000:])
    assert code == 1
