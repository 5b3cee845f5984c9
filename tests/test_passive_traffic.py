"""Passive conformance (`conformance traffic`): HAR files recorded from real runs against the
faithful local mock, and from client scripts that break the seed's client rules, judged with
the same checks. (Each fault's run is judged passively too: tests/test_fault_catalogue.py.)

Every run writes its redacted exchanges as traffic.har; that is the recording used here.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import forked_cli
import httpx
import pytest

from conformance.catalogue import check_by_id, registered_checks
from conformance.checks.registry import Severity
from conformance.http.exchange import Exchange, Headers
from conformance.mocks.launcher import MockCluster
from conformance.passive.har import read_har, write_har
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

OBSERVED = {c.id for c in registered_checks() if c.observes != "probe"}
CLIENT = {c.id for c in registered_checks("client")}
# What each suite runs to record traffic holding every kind of answer the passive rules look
# at: the general address checks (errors, 406 with Accept-Crs, 429 on the flood keys, 503 of
# a maintenance instance); the token responses, API calls and code flows of the auth suite.
RECORD = {"address": ["-k", "test_general"],
          "auth": ["-k", "token or use or state or cc_no_refresh or valid_assertion"],
          "soap": ["-k", "test_soap_valid_requests or test_soap_fault_format"]}


def record(tmp: Path, suite: str) -> Path:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", suite, "-n", "0", "--no-html",
           "--report-dir", str(tmp)]
    proc = forked_cli.run([*cmd, "--", "-q", *RECORD[suite]], capture_output=True, text=True, timeout=600,
                          cwd=REPO_ROOT, env={**os.environ, "PYTHONHASHSEED": "0"})
    har = tmp / "traffic.har"
    assert har.is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    return har


def judge(har: Path, report: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "traffic", str(har), "--no-html",
                           "--report-dir", str(report), *extra], capture_output=True, text=True, timeout=300,
                          cwd=REPO_ROOT, env={**os.environ, **(env or {})})
    summary = report / "summary.json"
    data = json.loads(summary.read_text()) if summary.is_file() else {}
    return proc.returncode, data, proc.stdout + proc.stderr


def outcomes(summary: dict[str, Any]) -> dict[str, str]:
    return {e["check"]: e["outcome"] for e in summary["checks"]}


@pytest.fixture(scope="module", params=sorted(RECORD))
def faithful(request, tmp_path_factory) -> tuple[str, Path]:
    return request.param, record(tmp_path_factory.mktemp("faithful"), suite=request.param)


def test_the_passive_suite_judges_exactly_the_checks_declared_observable() -> None:
    from conformance.passive.rules import all_rules

    implemented = {r.check for r in all_rules()}
    assert implemented == OBSERVED, (sorted(OBSERVED - implemented), sorted(implemented - OBSERVED))


# The harness's own requests designed to be refused (and its generated ones) carry their
# intent in traffic.har: judged as a client's, the run's own traffic has no client failure.


def test_faithful_traffic_passes_every_server_check(faithful: tuple[str, Path], tmp_path: Path) -> None:
    suite, har = faithful
    code, summary, out = judge(har, tmp_path / "judged")
    got = outcomes(summary)
    server = {c: o for c, o in got.items() if c.startswith(f"{suite}.")}
    assert set(server) == {c for c in OBSERVED if c.startswith(f"{suite}.")}
    assert set(server.values()) == {"passed"}, {c: o for c, o in server.items() if o != "passed"}
    assert {c for c, o in got.items() if o == "failed"} == set(), out[-2000:]
    clients = {c: o for c, o in got.items() if c.startswith(f"client.{suite}.")}
    assert "passed" in clients.values(), clients  # judged on the harness's valid requests, and passed
    assert summary["mode"] == "passive" and summary["traffic"] == [str(har)]
    matrix = (tmp_path / "judged" / "matrix.md").read_text()
    assert "needs an active run" in matrix and "passive: recorded traffic judged" in matrix
    assert code in (0, 4)  # nothing failed; the services without traffic make it "could not judge"


# --------------------------------------------------------------------------- client scripts
@pytest.fixture(scope="module")
def mock() -> Iterator[tuple[dict[str, str], str, dict[str, str]]]:
    """The local mocks: their URLs, the address API key, the authorization server's facts."""
    profile = load_profile("local-mock")
    with MockCluster(profile) as cluster:
        yield cluster.urls, cluster.secrets[profile.address.secret_env["api_key"]], cluster.samples["auth"]


def script(base: str, calls: list[tuple[str, str, dict[str, str], dict[str, str]]],
           forms: list[dict[str, str] | None] | None = None) -> list[Exchange]:
    """What a client script sends and gets, as a capture tool would record it (raw: a
    browser's or Postman's HAR holds what was sent, secrets included)."""
    out = []
    with httpx.Client(trust_env=False) as client:
        for index, (method, path, params, headers) in enumerate(calls):
            form = (forms or [])[index] if forms and index < len(forms) else None
            r = client.request(method, base + path, params=params, headers=headers, data=form)
            out.append(Exchange(method=method, url=str(r.request.url),
                                request_headers=Headers(list(r.request.headers.multi_items())),
                                request_body=r.request.content, status=r.status_code,
                                response_headers=Headers(list(r.headers.multi_items())), body=r.content))
    return out


def test_a_conforming_client_passes_and_each_client_fault_is_found(mock: tuple[str, str], tmp_path: Path) -> None:
    base, key = mock[0]["address"], mock[1]
    good = {"X-Api-Key": key}
    num = "1951200000000101"
    conforming = script(base, [("GET", f"/adressen/{num}", {}, good),
                               ("GET", "/adressen", {"postcode": "1181VA", "huisnummer": "12", "pageSize": "10"}, good)])
    address_client = {c for c in CLIENT if c.startswith("client.address.")}
    code, summary, out = judge(write_har(conforming, tmp_path / "good.har"), tmp_path / "good")
    assert {outcomes(summary)[c] for c in address_client} == {"passed"}, out[-2000:]
    faulty = [
        ("client.address.api_key_sent", ("GET", f"/adressen/{num}", {}, {})),
        ("client.address.get_only", ("POST", f"/adressen/{num}", {}, good)),
        ("client.address.parameters_within_limits", ("GET", "/adressen", {"postcode": "1181VA", "huisnummer": "12",
                                                                          "pageSize": "5"}, good)),
        # The value rules of seed part 4: booleans, dates, expand, oppervlakte (min <= max, deepObject).
        ("client.address.parameters_within_limits", ("GET", f"/adressen/{num}", {"inclusiefEindStatus": "ja"}, good)),
        ("client.address.parameters_within_limits", ("GET", "/adresseerbareobjecten/1951010000000109",
                                                     {"geldigOp": "31-01-2024"}, good)),
        ("client.address.parameters_within_limits", ("GET", "/adresseerbareobjecten",
                                                     {"bbox": "1,1,2,2", "oppervlakte[min]": "9",
                                                      "oppervlakte[max]": "5"}, good)),
        ("client.address.parameters_within_limits", ("GET", "/adresseerbareobjecten",
                                                     {"bbox": "1,1,2,2", "oppervlakte": "5"}, good)),
        ("client.address.parameters_within_limits", ("GET", "/adresseerbareobjecten",
                                                     {"bbox": "1,1,2,2", "type": "woonboot"}, good)),
    ]
    for index, (check, call) in enumerate(faulty):
        har = write_har(conforming + script(base, [call]), tmp_path / f"{check}-{index}.har")
        _, summary, out = judge(har, tmp_path / f"{check}-{index}")
        got = outcomes(summary)
        assert got[check] == "failed", out[-2000:]
        assert {got[c] for c in address_client - {check}} == {"passed"}, got


# --------------------------------------------------------------------------- the HAR itself
def test_a_file_that_is_not_a_har_is_exit_2_naming_it(tmp_path: Path) -> None:
    for name, text in {"notjson.har": "{nope", "nolog.har": '{"x": 1}', "badentry.har": '{"log": {"entries": [{}]}}',
                       "nan.har": '{"log": {"entries": [], "x": NaN}}'}.items():
        (tmp_path / name).write_text(text)
        code, _, out = judge(tmp_path / name, tmp_path / f"r-{name}")
        assert code == 2 and name in out and "Traceback" not in out, out[-1500:]
    code, _, out = judge(tmp_path / "missing.har", tmp_path / "r-missing")
    assert code == 2 and "missing.har" in out


def test_har_round_trip_keeps_bytes_and_base64_bodies(tmp_path: Path) -> None:
    ex = Exchange(method="GET", url="http://h/v2/adressen?q=a", request_headers=Headers([("X-Api-Key", "k")]),
                  request_body=b"", status=200, response_headers=Headers([("content-type", "application/hal+json")]),
                  body=b"\xff\xfe not utf-8")
    back = read_har(write_har([ex], tmp_path / "t.har"))[0]
    assert back.body == ex.body and back.url == ex.url and back.request_headers.get("x-api-key") == "k"


def test_secrets_in_a_har_never_reach_the_report(mock: tuple[str, str], tmp_path: Path) -> None:
    base, key = mock[0]["address"], mock[1]
    canary = "CANARY-passive-7f3a9c1e5b2d40"
    captured = script(base, [("GET", "/adressen/1951200000000101", {}, {"X-Api-Key": key, "Authorization": f"Bearer {canary}"}),
                             ("GET", "/adressen/1951200000000101", {}, {"X-Api-Key": canary})])  # a wrong key: 401
    har = write_har(captured, tmp_path / "secret.har")
    assert canary.encode() in har.read_bytes() and key.encode() in har.read_bytes()
    _, summary, out = judge(har, tmp_path / "report")
    assert summary["checks"]
    for path in (tmp_path / "report").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert canary.encode() not in data and key.encode() not in data, path
    assert canary not in out and key not in out


# --------------------------------------------------------------------------- an authorization client script
def test_an_authorization_client_is_judged_on_what_it_sends(mock, tmp_path: Path) -> None:
    import time

    from conformance.auth import rfc7523, rfc7636
    from conformance.auth.pki import load_test_pki

    auth = mock[2]
    key, kid = load_test_pki(Path(auth["pki_dir"])).signing_material("good")
    client_id, audience = auth["client.client_credentials"], auth["audience"]
    verifier = rfc7636.generate_verifier()

    def authorize(method: str = "S256", challenge: str | None = None, drop: tuple[str, ...] = (),
                  response_type: str = "code") -> tuple:
        params = {"response_type": response_type, "client_id": auth["client.public"], "state": "s-1", "scope": "x",
                  "redirect_uri": "http://127.0.0.1:8765/callback", "nonce": "n",
                  "code_challenge": challenge or rfc7636.s256(verifier), "code_challenge_method": method}
        return ("GET", "/auth/oauth/v2/authorize", {k: v for k, v in params.items() if k not in drop}, {})

    def cc(assertion: str) -> tuple[tuple, dict[str, str]]:
        return ("POST", "/auth/oauth/v2/token", {}, {}), {
            "grant_type": "client_credentials", "scope": "registry-inzage", "client_assertion": assertion,
            "client_assertion_type": rfc7523.ASSERTION_TYPE}

    def assertion(**claims) -> str:
        return rfc7523.build_assertion(client_id, audience, key, kid, now=time.time(), overrides=claims)

    def run(calls: list[tuple[tuple, dict[str, str] | None]]) -> list[Exchange]:
        return script(auth["auth_url"], [c for c, _ in calls], [f for _, f in calls])

    conforming = run([(authorize(), None), cc(assertion()), cc(assertion())])
    _, summary, out = judge(write_har(conforming, tmp_path / "good.har"), tmp_path / "good")
    got = outcomes(summary)
    judged = {"client.auth.pkce_s256", "client.auth.assertion_form", "client.auth.assertion_short_expiry",
              "client.auth.jti_not_reused", "client.auth.token_request_form", "client.auth.authorization_request"}
    assert {got[c] for c in judged} == {"passed"}, out[-2000:]
    replayed = assertion()
    faulty = {
        "client.auth.pkce_s256": [(authorize("plain", challenge=verifier), None)],
        "client.auth.authorization_request": [(authorize(drop=("nonce",)), None), (authorize(drop=("state",)), None),
                                              (authorize(response_type="token"), None)],
        "client.auth.verifier_syntax": [(("POST", "/auth/oauth/v2/token", {}, {}), {
            "grant_type": "authorization_code", "code": "c", "client_id": auth["client.public"],
            "redirect_uri": "http://127.0.0.1:8765/callback", "code_verifier": "short"})],
        "client.auth.jti_not_reused": [cc(replayed), cc(replayed)],
        "client.auth.assertion_form": [cc(assertion(aud="https://elsewhere.example/token"))],
        "client.auth.assertion_short_expiry": [cc(assertion(exp=int(time.time()) + 86400))],
    }
    for check, calls in faulty.items():
        _, summary, out = judge(write_har(conforming + run(calls), tmp_path / f"{check}.har"), tmp_path / check)
        got = outcomes(summary)
        assert got[check] == "failed", out[-2000:]
        assert {got[c] for c in judged - {check}} <= {"passed"}, {c: got[c] for c in judged}


def test_a_verifier_is_matched_to_the_challenge_of_its_authorization_request(tmp_path: Path) -> None:
    from conformance.auth import rfc7636

    good, other = rfc7636.generate_verifier(), rfc7636.generate_verifier()

    def flow(sent_verifier: str) -> list[Exchange]:
        cb = "http://127.0.0.1:8765/callback"
        return [
            Exchange(method="GET", url=f"http://as/auth/oauth/v2/authorize?state=s9&code_challenge={rfc7636.s256(good)}"
                     "&code_challenge_method=S256", request_headers=Headers(), request_body=b"", status=302,
                     response_headers=Headers([("location", f"{cb}?code=K123456789&state=s9")]), body=b""),
            Exchange(method="POST", url="http://as/auth/oauth/v2/token",
                     request_headers=Headers([("content-type", "application/x-www-form-urlencoded")]),
                     request_body=f"grant_type=authorization_code&code=K123456789&code_verifier={sent_verifier}".encode(),
                     status=200, response_headers=Headers([("content-type", "application/json")]), body=b"{}"),
        ]

    for verifier, outcome in ((good, "passed"), (other, "failed")):
        _, summary, out = judge(write_har(flow(verifier), tmp_path / f"{outcome}.har"), tmp_path / outcome)
        assert outcomes(summary)["client.auth.verifier_matches_challenge"] == outcome, out[-2000:]
        assert outcomes(summary)["auth.code.state_echoed"] == "passed"


def test_interleaved_flows_are_linked_by_identity_not_order(tmp_path: Path) -> None:
    """Two clients' flows interleaved through a login page: each code comes back with its own
    flow's state after the other flow's authorization request; a state that no flow sent is
    still found."""
    from conformance.auth import rfc7636

    cb = "http://127.0.0.1:8765/callback"
    verifiers = {"A": rfc7636.generate_verifier(), "B": rfc7636.generate_verifier()}

    def authorize(flow: str) -> Exchange:
        return Exchange(method="GET", url=f"http://as/auth/oauth/v2/authorize?state=state-{flow}"
                        f"&code_challenge={rfc7636.s256(verifiers[flow])}&code_challenge_method=S256",
                        request_headers=Headers(), request_body=b"", status=302,
                        response_headers=Headers([("location", f"http://as/login?flow={flow}")]), body=b"")

    def login(flow: str, state: str) -> Exchange:
        return Exchange(method="POST", url=f"http://as/login?flow={flow}", request_headers=Headers(FORM),
                        request_body=b"username=u&password=p", status=302,
                        response_headers=Headers([("location", f"{cb}?code=code-{flow}-123456&state={state}")]), body=b"")

    def redeem(flow: str) -> Exchange:
        return _request("POST", "http://as/auth/oauth/v2/token", FORM,
                        f"grant_type=authorization_code&code=code-{flow}-123456&code_verifier={verifiers[flow]}".encode())

    for returned, outcome in (("state-B", "passed"), ("state-X", "failed")):
        capture = [authorize("A"), authorize("B"), login("B", returned), login("A", "state-A"), redeem("A"), redeem("B")]
        _, summary, out = judge(write_har(capture, tmp_path / f"{outcome}.har"), tmp_path / outcome)
        assert outcomes(summary)["auth.code.state_echoed"] == outcome, out[-2000:]
        # Each redemption is linked to its own flow's challenge (by code, then state).
        assert outcomes(summary)["client.auth.verifier_matches_challenge"] == "passed", out[-2000:]


# --------------------------------------------------------------------------- every client rule both ways
def _request(method: str, url: str, headers: list[tuple[str, str]], body: bytes = b"", status: int = 200) -> Exchange:
    return Exchange(method=method, url=url, request_headers=Headers(headers), request_body=body, status=status,
                    response_headers=Headers([("content-type", "application/json")]), body=b"{}")


FORM = [("content-type", "application/x-www-form-urlencoded")]


def _jwks(document: dict[str, Any]) -> Exchange:
    return Exchange(method="GET", url="http://client.example/jwks.json", request_headers=Headers(), request_body=b"",
                    status=200, response_headers=Headers([("content-type", "application/json")]),
                    body=json.dumps(document).encode())
GOOD_VERIFIER = "a" * 43
SYNTHETIC = {  # check -> (an exchange that keeps the rule, one that breaks it)
    "client.auth.token_request_form": (
        _request("POST", "http://as/auth/oauth/v2/token", FORM, b"grant_type=client_credentials&scope=x"),
        _request("POST", "http://as/auth/oauth/v2/token", [("content-type", "application/json")],
                 b'{"grant_type": "client_credentials"}')),
    "client.auth.bearer_on_api_requests": (
        _request("GET", "http://api/inquiry/registry-inzage/v6", [("authorization", "Bearer abcdefghij")]),
        _request("GET", "http://api/inquiry/registry-inzage/v6", [("authorization", "Basic abcdefghij")], status=401)),
    "client.auth.verifier_syntax": (
        _request("POST", "http://as/auth/oauth/v2/token", FORM,
                 f"grant_type=authorization_code&code=c1&code_verifier={GOOD_VERIFIER}".encode()),
        _request("POST", "http://as/auth/oauth/v2/token", FORM,
                 f"grant_type=authorization_code&code=c1&code_verifier={GOOD_VERIFIER}!".encode())),
    "client.auth.token_request_body": (
        _request("POST", "http://as/auth/oauth/v2/token", FORM,
                 f"grant_type=authorization_code&code=c1&client_id=p&code_verifier={GOOD_VERIFIER}"
                 "&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback".encode()),
        _request("POST", "http://as/auth/oauth/v2/token", FORM,
                 f"grant_type=authorization_code&code=c1&client_id=p&code_verifier={GOOD_VERIFIER}".encode())),
    "client.auth.jwks_document": (
        _jwks({"keys": [{"alg": "RS256", "kty": "RSA", "kid": "k1", "e": "AQAB", "n": "xyz", "x5c": ["MIIB"]}]}),
        _jwks({"keys": [{"alg": "RS256", "kty": "RSA", "kid": "k1", "e": "AQAB", "n": "xyz"}]})),  # no x5c
}
def _soap(action: str | None, body: bytes) -> Exchange:
    headers = [("content-type", "text/xml; charset=utf-8")] + ([("SOAPAction", action)] if action is not None else [])
    return Exchange(method="POST", url="http://soap/netbeheerder/graafbericht", request_headers=Headers(headers),
                    request_body=body, status=200, response_headers=Headers([("content-type", "text/xml; charset=utf-8")]),
                    body=b"")


def _soap_pair(check: str) -> tuple[Exchange, Exchange]:
    from conformance.soap import DEFAULT_SOAP_ACTION_BASE
    from conformance.soap.envelope import build_envelope
    from conformance.soap.samples import sample_request

    action = f'"{DEFAULT_SOAP_ACTION_BASE}/RequestNetbeheerderServiceResponse"'
    good = build_envelope(sample_request())
    if check == "client.soap.soap_action":
        return _soap(action, good), _soap('"urn:elsewhere/Other"', good)
    broken = sample_request(melding="not a melding number with spaces and far too long")
    return _soap(action, good), _soap(action, build_envelope(broken))


SYNTHETIC.update({check: _soap_pair(check) for check in ("client.soap.soap_action", "client.soap.request_valid")})
# Where each client check is proven both ways in this file.
CLIENT_PROOFS = {
    "client.address.api_key_sent": "test_a_conforming_client_passes_and_each_client_fault_is_found",
    "client.address.get_only": "test_a_conforming_client_passes_and_each_client_fault_is_found",
    "client.address.parameters_within_limits": "test_a_conforming_client_passes_and_each_client_fault_is_found",
    "client.auth.pkce_s256": "test_an_authorization_client_is_judged_on_what_it_sends",
    "client.auth.authorization_request": "test_an_authorization_client_is_judged_on_what_it_sends",
    "client.auth.assertion_form": "test_an_authorization_client_is_judged_on_what_it_sends",
    "client.auth.assertion_short_expiry": "test_an_authorization_client_is_judged_on_what_it_sends",
    "client.auth.jti_not_reused": "test_an_authorization_client_is_judged_on_what_it_sends",
    "client.auth.verifier_matches_challenge": "test_a_verifier_is_matched_to_the_challenge_of_its_authorization_request",
    "client.auth.client_secret_by_kind": "test_a_client_secret_goes_with_the_confidential_client_only",
    **{check: "test_each_client_rule_both_ways" for check in SYNTHETIC},
}


def test_every_client_check_is_proven_both_ways() -> None:
    assert set(CLIENT_PROOFS) == CLIENT, sorted(CLIENT ^ set(CLIENT_PROOFS))
    assert all(name in globals() for name in CLIENT_PROOFS.values())


def test_a_client_secret_goes_with_the_confidential_client_only(tmp_path: Path) -> None:
    profile = tmp_path / "clients.toml"
    profile.write_text('[profile]\nname = "clients"\ndescription = "a capture of two clients"\n'
                       '[services.auth]\nmock = false\nauth_url = "http://as"\n'
                       '[services.auth.clients]\nconfidential = "filing-c"\npublic = "filing-p"\n', encoding="utf-8")
    body = f"grant_type=authorization_code&code=c1&code_verifier={GOOD_VERIFIER}&redirect_uri=http%3A%2F%2Fcb"
    confidential = _request("POST", "http://as/auth/oauth/v2/token", FORM,
                            f"{body}&client_id=filing-c&client_secret=s3cr3t-value".encode())
    public = _request("POST", "http://as/auth/oauth/v2/token", FORM, f"{body}&client_id=filing-p".encode())
    cases = {"passed": [confidential, public],
             "failed": [_request("POST", "http://as/auth/oauth/v2/token", FORM,
                                 f"{body}&client_id=filing-p&client_secret=s3cr3t-value".encode())],
             "failed-too": [_request("POST", "http://as/auth/oauth/v2/token", FORM, f"{body}&client_id=filing-c".encode())]}
    for name, exchanges in cases.items():
        _, summary, out = judge(write_har(exchanges, tmp_path / f"{name}.har"), tmp_path / name, "--profile", str(profile))
        assert outcomes(summary)["client.auth.client_secret_by_kind"] == name.removesuffix("-too"), out[-2000:]


def test_the_client_jwks_at_the_profiles_uri_is_fetched_and_judged(tmp_path: Path) -> None:
    import http.server
    import threading

    documents = {"/good.json": SYNTHETIC["client.auth.jwks_document"][0].body,
                 "/bad.json": SYNTHETIC["client.auth.jwks_document"][1].body}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = documents[self.path]
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for name, outcome in (("good", "passed"), ("bad", "failed")):
            profile = tmp_path / f"{name}.toml"
            profile.write_text('[profile]\nname = "jwks"\ndescription = "a client\'s published JWKS"\n'
                               '[services.auth]\nmock = false\nauth_url = "http://127.0.0.1:9"\n'
                               f'[services.auth.keys]\njwks_uri = "http://127.0.0.1:{server.server_address[1]}/{name}.json"\n',
                               encoding="utf-8")
            token = _request("POST", "http://127.0.0.1:9/auth/oauth/v2/token", FORM, b"grant_type=client_credentials")
            _, summary, out = judge(write_har([token], tmp_path / f"{name}.har"), tmp_path / name, "--profile", str(profile))
            assert outcomes(summary)["client.auth.jwks_document"] == outcome, out[-2000:]
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("check", sorted(SYNTHETIC))
def test_each_client_rule_both_ways(check: str, tmp_path: Path) -> None:
    for exchange, outcome in zip(SYNTHETIC[check], ("passed", "failed"), strict=True):
        _, summary, out = judge(write_har([exchange], tmp_path / f"{outcome}.har"), tmp_path / outcome)
        assert outcomes(summary)[check] == outcome, out[-2000:]


def test_an_answer_over_the_size_cap_in_a_capture_is_judged_cut(tmp_path: Path) -> None:
    """A capture tool keeps a huge answer whole; reading it, the harness cuts it at its cap,
    and the envelope it cannot read whole is a finding (the SOAP fault oversized_response,
    whose run the bounded layer refused to read, is proven here on a capture)."""
    from conformance.http.exchange import MAX_BODY

    huge = b'<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/">' \
           b"<s:Body><x>" + b"a" * (MAX_BODY + 1024) + b"</x></s:Body></s:Envelope>"
    ex = Exchange(method="POST", url="http://soap/netbeheerder/graafbericht",
                  request_headers=Headers([("content-type", "text/xml; charset=utf-8"), ("SOAPAction", '"x"')]),
                  request_body=b"<x/>", status=200, response_headers=Headers([("content-type", "text/xml; charset=utf-8")]),
                  body=huge)
    _, summary, out = judge(write_har([ex], tmp_path / "huge.har"), tmp_path / "judged")
    assert outcomes(summary)["soap.response.envelope"] == "failed", out[-2000:]


def test_an_address_only_profile_judges_only_the_address_api(tmp_path: Path) -> None:
    """Issue 43: the rules of a service the profile does not name do not apply to its traffic,
    so they are not applicable (not "not judged"), and the coverage counts the address API's."""
    profile = tmp_path / "address-only.toml"
    profile.write_text('[profile]\nname = "address-only"\ndescription = "an address API only"\n'
                       '[services.address]\nmock = false\nbase_url = "http://bag.example/v2"\n'
                       '[services.address.secrets]\napi_key = "ADDRESS_ONLY_KEY"\n', encoding="utf-8")
    exchange = _request("GET", "http://bag.example/v2/adressen?postcode=1234AB&huisnummer=1",
                        [("x-api-key", "k"), ("accept", "application/hal+json")])
    code, summary, out = judge(write_har([exchange], tmp_path / "a.har"), tmp_path / "judged", "--profile", str(profile),
                               env={"ADDRESS_ONLY_KEY": "k"})
    got = outcomes(summary)
    others = {c: o for c, o in got.items() if c.split(".")[0] in ("auth", "soap") or c.startswith(("client.auth.", "client.soap."))}
    assert others and set(others.values()) == {"not_applicable"}, out[-2000:]
    address = {c: o for c, o in got.items() if c.startswith(("address.", "client.address."))}
    assert "not_applicable" not in address.values() and "passed" in address.values(), address
    reasons = {e["reason"] for e in summary["checks"] if e["check"] in others and e.get("reason")}
    assert any("[services.auth]" in r for r in reasons) and any("[services.soap]" in r for r in reasons), reasons
    assert summary["coverage"]["must_selected"] == sum(
        1 for c in address if check_by_id(c).severity is Severity.MUST and got[c] != "not_applicable")
    assert "address API (recorded traffic)" in summary["verdict_line"], summary["verdict_line"]
    assert "authorization server" not in summary["verdict_line"] and "SOAP" not in summary["verdict_line"]


def test_a_bbox_a_client_writes_as_nan_or_inf_is_no_number() -> None:
    """float() reads 'nan' and 'inf'; a box of them has no area to compare, and broke no limit."""
    from conformance.checks.client.requests import parameter_violations

    assert parameter_violations([("bbox", "119400,480760,119700,480960")]) == []
    for value in ("nan,0,1,1", "0,0,inf,1", "0,0,1", "0,0,1,x"):
        assert parameter_violations([("bbox", value)]) == [f"bbox={value!r}: four comma-separated numbers"], value
