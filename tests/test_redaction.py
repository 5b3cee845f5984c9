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
    # A `&code=` inside a JSON string is no form parameter: the problem's bytes are kept.
    problem = make(status=400, response_headers=Headers([("content-type", "application/problem+json")]),
                   body=b'{"instance": "/v2/adressen?x=1&code=abc", "code": "paramsRequired"}')
    assert redactor.exchange(problem).body == problem.body
