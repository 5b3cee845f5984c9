"""Redaction: secrets are masked in headers, URLs, forms, JSON and free text."""

from __future__ import annotations

import json

from conformance.http.exchange import Exchange, Headers
from conformance.http.redaction import MASK, Redactor

KEY = "canary-api-key-0123456789"


def make(**kw) -> Exchange:
    base = dict(
        method="GET", url="http://127.0.0.1/v2/adressen?postcode=1234AB",
        request_headers=Headers([("X-Api-Key", KEY)]), request_body=b"", status=200,
        response_headers=Headers([("content-type", "application/hal+json")]), body=b"{}",
    )
    base.update(kw)
    return Exchange(**base)


def test_header_masked_by_name_and_value_everywhere() -> None:
    ex = Redactor([KEY]).exchange(make(
        url=f"http://127.0.0.1/v2/adressen?echo={KEY}",
        response_headers=Headers([("content-type", "application/hal+json"), ("x-echo", KEY)]),
        body=json.dumps({"detail": f"key {KEY} refused"}).encode(),
    ))
    dump = repr(ex) + ex.body.decode()
    assert KEY not in dump
    assert ex.request_headers.get("x-api-key") == MASK


def test_oauth_parameters_masked_in_query_form_and_json() -> None:
    ex = Redactor().exchange(make(
        method="POST", url="http://127.0.0.1/cb?code=abc123secret&state=xyz",
        request_headers=Headers([("content-type", "application/x-www-form-urlencoded"), ("Authorization", "Bearer tok")]),
        request_body=b"grant_type=authorization_code&code_verifier=VERIFIERVALUE&client_secret=shh",
        response_headers=Headers([("content-type", "application/json;charset=UTF-8")]),
        body=b'{"access_token": "at-1", "refresh_token": "rt-1", "expires_in": 3600}',
    ))
    assert "abc123secret" not in ex.url and "state=xyz" in ex.url
    assert b"VERIFIERVALUE" not in ex.request_body and b"shh" not in ex.request_body
    assert b"grant_type=authorization_code" in ex.request_body
    assert ex.request_headers.get("authorization") == MASK
    body = json.loads(ex.body)
    assert body["access_token"] == MASK and body["refresh_token"] == MASK and body["expires_in"] == 3600


def test_problem_code_member_is_kept() -> None:
    # problem+json uses "code" for the error code: it is not a secret.
    ex = Redactor().exchange(make(status=400, body=b'{"code": "paramsRequired"}',
                                  response_headers=Headers([("content-type", "application/problem+json")])))
    assert json.loads(ex.body)["code"] == "paramsRequired"


def test_url_encoded_secret_masked() -> None:
    secret = "key/with+special=chars"
    ex = Redactor([secret]).exchange(make(url="http://h/v2/x?q=key%2Fwith%2Bspecial%3Dchars"))
    assert "key%2Fwith" not in ex.url


def test_redirect_location_and_learned_token_values_are_masked() -> None:
    redactor = Redactor()
    token_response = make(
        method="POST", url="http://127.0.0.1/auth/oauth/v2/token",
        request_headers=Headers([("content-type", "application/x-www-form-urlencoded")]),
        request_body=b"grant_type=authorization_code&code=code-value-123",
        response_headers=Headers([("content-type", "application/json;charset=UTF-8")]),
        body=b'{"access_token": "access-token-value", "token_type": "Bearer"}',
    )
    redactor.learn(token_response)
    redirect = make(
        url="http://127.0.0.1/auth/oauth/v2/authorize?client_id=c",
        request_headers=Headers([]),
        response_headers=Headers([("location", "http://127.0.0.1/cb?code=other-code-456&state=s1")]),
        body=b"error: access-token-value was refused; code code-value-123 is spent",
    )
    ex = redactor.exchange(redirect)
    dump = repr(ex) + ex.body.decode()
    for secret in ("other-code-456", "access-token-value", "code-value-123"):
        assert secret not in dump
    assert "state=s1" in ex.response_headers.get("location")


def test_private_key_blocks_and_secret_xml_elements_are_masked() -> None:
    pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"
    soap = (b'<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Header>'
            b'<wsse:Password Type="PasswordText">hunter2-secret</wsse:Password></soapenv:Header>'
            b"<soapenv:Body><x>kept</x><access_token>tok-123456</access_token></soapenv:Body></soapenv:Envelope>")
    ex = Redactor().exchange(make(
        method="POST", request_headers=Headers([("content-type", "text/xml; charset=utf-8")]), request_body=soap,
        response_headers=Headers([("content-type", "text/plain")]), body=f"echo: {pem}".encode(),
    ))
    assert b"hunter2-secret" not in ex.request_body and b"tok-123456" not in ex.request_body
    assert b"<x>kept</x>" in ex.request_body and b'Type="PasswordText">[redacted]</wsse:Password>' in ex.request_body
    assert b"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" not in ex.body and ex.body == b"echo: [redacted]"
    # a body that is not UTF-8 is masked byte by byte, the key block included
    assert Redactor().body(b"\xff " + pem.encode(), "text/plain") == b"\xff [redacted]"


def test_bodies_keep_every_byte_but_the_secrets() -> None:
    """Checks judge what the server sent: no re-serialisation, no repair of bad UTF-8."""
    r = Redactor(["planted-api-key-123"])
    raw = b'{"b":1.50,  "a":[ ],"a":2,"refresh_token":"rt\\"x","note":"planted-api-key-123"}'
    assert r.body(raw, "application/hal+json") == \
        b'{"b":1.50,  "a":[ ],"a":2,"refresh_token":"[redacted]","note":"[redacted]"}'
    invalid = b'{"naam":"Caf\xe9 \xff"} planted-api-key-123'
    assert r.body(invalid, "application/json; charset=utf-8") == b'{"naam":"Caf\xe9 \xff"} [redacted]'
    form = b"grant_type=refresh_token&refresh_token=abc%2Bdef&client_id=c%20d"
    assert r.body(form, "application/x-www-form-urlencoded") == \
        b"grant_type=refresh_token&refresh_token=[redacted]&client_id=c%20d"


def test_failure_texts_tracebacks_and_captured_output_are_masked() -> None:
    # A finding that quotes a server's answer echoing a learned token, a traceback and
    # captured output: each reaches Allure, JUnit or the console only masked.
    import pytest

    from conformance.findings import Finding
    from conformance.run_outcomes import redact_report

    redactor = Redactor()
    redactor.learn(make(method="POST", url="http://127.0.0.1/auth/oauth/v2/token",
                        response_headers=Headers([("content-type", "text/plain")]),
                        body=b'{"access_token": "learned-token-value-42", "token_type": "Bearer"}'))
    try:
        raise Finding("the server echoed learned-token-value-42", actual="learned-token-value-42")
    except Finding:
        excinfo = pytest.ExceptionInfo.from_current()
    call = pytest.CallInfo(result=None, excinfo=excinfo, start=0, stop=0, duration=0, when="call", _ispytest=True)
    report = pytest.TestReport("t", ("t.py", 0, "t"), {}, "failed", "E   learned-token-value-42 in a frame", "call",
                               [("Captured stdout call", "token learned-token-value-42\n")])
    redact_report(report, call, redactor)
    assert "learned-token-value-42" not in excinfo.exconly()
    assert "learned-token-value-42" not in str(report.longrepr)
    assert all("learned-token-value-42" not in text for _title, text in report.sections)
    assert MASK in excinfo.exconly() and MASK in str(report.longrepr)


def test_form_and_json_bodies_are_masked_whatever_their_media_type() -> None:
    redactor = Redactor()
    form = make(method="POST", request_headers=Headers([("content-type", "text/plain")]),
                request_body=b"grant_type=refresh_token&refresh_token=rt-secret-value&client_id=c",
                response_headers=Headers([("content-type", "text/html")]),
                body=b"access_token=at-secret-value&token_type=bearer")
    redactor.learn(form)
    masked = redactor.exchange(form)
    assert b"rt-secret-value" not in masked.request_body and b"client_id=c" in masked.request_body
    assert b"at-secret-value" not in masked.body and b"token_type=bearer" in masked.body
    # A URL written into a body (a problem's instance, a link in a page) is masked like the
    # request's own URL: the secret-named parameter's value only, every other byte kept, and
    # the problem's own `code` member is no parameter.
    problem = make(url="http://127.0.0.1:9/v2/adressen?x=1&code=abcdef", status=400,
                   response_headers=Headers([("content-type", "application/problem+json")]),
                   body=b'{"instance": "/v2/adressen?x=1&code=abcdef", "code": "paramsRequired"}')
    masked = redactor.exchange(problem)
    assert masked.body == b'{"instance": "/v2/adressen?x=1&code=%5Bredacted%5D", "code": "paramsRequired"}'
    assert masked.url.endswith("?x=1&code=[redacted]")


# --- issue 50: the decoded value, whatever the server wrote ---------------------------------
from secret_scan import leaks  # noqa: E402

SECRET = "s3cr/et&key+0123"  # a slash, an ampersand and a plus: each encoded differently


def _echo(body: bytes, content_type: str = "application/problem+json") -> Exchange:
    return make(status=401, response_headers=Headers([("content-type", content_type)]), body=body)


def test_an_echoed_secret_is_masked_in_every_escape_a_server_writes() -> None:
    redactor = Redactor([SECRET])
    php = SECRET.replace("/", "\\/")
    go = SECRET.replace("&", "\\u0026").replace("+", "\\u002b")
    every = "".join(f"\\u{ord(c):04x}" for c in SECRET)
    percent = "".join(f"%{ord(c):02X}" for c in SECRET)
    charrefs = "".join(f"&#{ord(c)};" for c in SECRET)
    for written in (php, go, every, percent, charrefs, "%5C" + every[1:]):
        body = json.dumps({"detail": "x"}).replace('"x"', f'"key {written} refused"').encode()
        masked = redactor.exchange(_echo(body)).body
        assert not leaks(masked, [SECRET]), written
        assert b"refused" in masked
        # The same text as a failure message or a status line.
        assert not leaks(redactor.text(body.decode()).encode(), [SECRET]), written


def test_a_token_in_a_redirect_fragment_is_masked_and_learned() -> None:
    token = "frag-access-token-0123456789"
    redirect = make(url="http://127.0.0.1/auth/oauth/v2/authorize?response_type=token",
                    status=302, response_headers=Headers([("location", f"http://127.0.0.1:8/cb#access_token={token}&token_type=Bearer")]),
                    body=f'<a href="http://127.0.0.1:8/cb#access_token={token}&amp;token_type=Bearer">go</a>'.encode())
    redactor = Redactor()
    redactor.learn(redirect)
    masked = redactor.exchange(redirect)
    assert token not in masked.response_headers.get("location") and "token_type=Bearer" in masked.response_headers.get("location")
    assert token.encode() not in masked.body
    assert token not in redactor.text(f"later: {token}")


def test_a_token_response_in_any_encoding_is_learned_and_masked() -> None:
    access, refresh = "bom-access-token-0123456789", "bom-refresh-token-0123456789"
    document = json.dumps({"access_token": access, "token_type": "Bearer", "refresh_token": refresh})
    bodies = [
        ("text/plain", b"\xef\xbb\xbf" + document.encode()),
        ("application/json;charset=UTF-16", b"\xff\xfe" + document.encode("utf-16-le")),
        ("application/json", document.encode("utf-16-be")),  # no mark: the NUL bytes show it
        ("text/html", f"<html><script>var t = {document};</script></html>".encode()),
        ("text/html", f"<pre>{html_escape(document)}</pre>".encode()),
        ("text/plain", json.dumps({"wrapped": document}).encode()),  # JSON inside a JSON string
    ]
    for content_type, body in bodies:
        redactor = Redactor()
        ex = make(method="POST", url="http://127.0.0.1/auth/oauth/v2/token", status=200,
                  response_headers=Headers([("content-type", content_type)]), body=body)
        redactor.learn(ex)
        masked = redactor.exchange(ex)
        assert not leaks(masked.body, [access, refresh]), content_type
        assert access not in redactor.text(f"echo {access}"), content_type
    # The body keeps its encoding: UTF-16 stays UTF-16, with its mark.
    redactor = Redactor()
    ex = make(response_headers=Headers([("content-type", "application/json;charset=UTF-16")]),
              body=b"\xff\xfe" + document.encode("utf-16-le"))
    redactor.learn(ex)
    masked = redactor.exchange(ex).body
    assert masked.startswith(b"\xff\xfe") and json.loads(masked.decode("utf-16"))["token_type"] == "Bearer"


def html_escape(text: str) -> str:
    import html

    return html.escape(text)


def test_basic_credentials_teach_the_password() -> None:
    import base64

    password = "basic-pass/word+1"
    credential = base64.b64encode(f"client:{password}".encode()).decode()
    soap = make(method="POST", url="http://127.0.0.1/soap",
                request_headers=Headers([("Authorization", f"Basic {credential}")]), status=500,
                response_headers=Headers([("content-type", "text/xml")]),
                body=f"<faultstring>user client password {password} refused ({credential})</faultstring>".encode())
    redactor = Redactor()
    redactor.learn(soap)
    masked = redactor.exchange(soap)
    assert not leaks(masked.body, [password, credential])


def test_a_configured_secret_of_any_length_is_masked() -> None:
    redactor = Redactor(["k9z"])
    assert redactor.text("the key k9z was refused, k%39z too") == f"the key {MASK} was refused, {MASK} too"
    # As a word of its own: the same letters inside another word or a port are no secret.
    assert Redactor(["12"]).text("http://127.0.0.1:8012/x?pin=12") == f"http://127.0.0.1:8012/x?pin={MASK}"


def test_a_query_key_is_learned() -> None:
    redactor = Redactor()
    redactor.learn(make(url="http://127.0.0.1/v2/adressen?key=query-api-key-value"))
    assert "query-api-key-value" not in redactor.text('{"detail": "query-api-key-value"}')


def test_masking_is_linear_in_the_number_of_learned_secrets() -> None:
    # 20,000 learned tokens: masking a text looks each of the text's word starts up once in
    # an index, whatever the number of tokens (no search per token: a capture of 50,000
    # token exchanges is read in time linear in its size). Counted, not timed.
    class Counting(dict):
        lookups = 0

        def get(self, key, default=None):
            Counting.lookups += 1
            return super().get(key, default)

    def lookups(tokens: int) -> int:
        redactor = Redactor()
        for i in range(tokens):
            redactor._learned(f"tok{i:06d}-abcdefghijklmnop")
        values = redactor._values
        values._index = Counting(values._index)
        Counting.lookups = 0
        masked = redactor.text("word " * 2000 + "tok000007-abcdefghijklmnop")
        assert "tok000007" not in masked
        return Counting.lookups

    assert lookups(100) == lookups(20_000) == 2001


def test_the_redaction_benchmark_runs_as_documented() -> None:
    # benchmarks/README.md's command, at small sizes (the figures are the benchmark's, not a test's).
    import subprocess
    import sys

    from conformance.paths import CHECKOUT

    proc = subprocess.run([sys.executable, "benchmarks/redaction.py", "--exchanges", "200", "400"], cwd=CHECKOUT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "200 exchanges" in proc.stdout and "400 exchanges" in proc.stdout and "per exchange" in proc.stdout
