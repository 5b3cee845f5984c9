"""The one HTTP layer against a misbehaving server: every mode ends within the limits with
a finding that names the limit or the violation, or an unreachable verdict where nothing
answers; bytes reach the checks as sent; nothing is followed to another origin."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from misbehaving_server import MisbehavingServer

from conformance.errors import UnreachableError
from conformance.http.client import ApiClient, Recorder, probe
from conformance.http.exchange import SENT_URL_HEADER
from conformance.http.fuzz_transport import BoundedSession
from conformance.http.limits import HttpViolation, Limits
from conformance.http.redaction import Redactor

LIMITS = Limits(deadline_s=3.0, max_body_bytes=1024 * 1024, max_decoded_bytes=4 * 1024 * 1024,
                max_head_bytes=32 * 1024)
BOUND_S = LIMITS.deadline_s + 2.5  # the deadline, plus one blocked read at most, plus slack


@pytest.fixture(scope="module")
def server() -> Iterator[MisbehavingServer]:
    with MisbehavingServer(limit_s=20) as running:
        yield running


@pytest.fixture
def client(server: MisbehavingServer) -> Iterator[tuple[ApiClient, Recorder]]:
    recorder = Recorder()
    api = ApiClient(f"http://127.0.0.1:{server.port}", redactor=Redactor(), recorder=recorder, limits=LIMITS,
                    timeout_s=10)
    yield api, recorder
    api.close()


# mode -> (kind of finding, words its reason must contain)
VIOLATIONS = {
    "hang": ("no_answer", "no response within 3 s"),
    "drip": ("deadline", "response not complete within 3 s"),
    "huge-body": ("body", "body over 1 MiB, stopped reading"),
    "gzip-bomb": ("decoded", "body over 4 MiB once its content-encoding gzip is undone"),
    "bad-gzip": ("decoding", "content-encoding gzip: the body does not decode"),
    "many-headers": ("head", "head"),
    "long-header": ("head", "head"),
    "short-body": ("protocol", "the response body breaks HTTP framing"),
    "http09": ("protocol", "no valid HTTP status line"),
    "flood-1xx": ("no_answer", "no response within 3 s"),
    "reset": ("reset", "before a response"),
    "deep-json": ("nesting", "JSON nested deeper than 100 levels"),
}


@pytest.mark.parametrize("mode", sorted(VIOLATIONS))
def test_each_violation_is_a_finding_naming_it(client: tuple[ApiClient, Recorder], mode: str) -> None:
    api, recorder = client
    kind, words = VIOLATIONS[mode]
    started = time.monotonic()
    with pytest.raises(HttpViolation) as caught:
        api.get(f"/{mode}/adressen")
    elapsed = time.monotonic() - started
    assert caught.value.kind == kind, caught.value
    assert words in str(caught.value), caught.value
    assert elapsed < BOUND_S, f"{mode} took {elapsed:.1f} s"
    evidence = recorder.take()
    assert evidence and evidence[-1].notes["violation"] == caught.value.message  # the report shows it


def test_a_response_over_the_head_cap_is_refused_even_when_the_parser_takes_it(server: MisbehavingServer) -> None:
    api = ApiClient(f"http://127.0.0.1:{server.port}", redactor=Redactor(), recorder=Recorder(),
                    limits=Limits(max_head_bytes=50))
    with pytest.raises(HttpViolation, match="over 50 bytes") as caught:
        api.get("/ok/x")
    assert caught.value.kind == "head"


@pytest.mark.parametrize("mode", ["redirect-loop", "redirect-foreign"])
def test_redirects_are_never_followed(client: tuple[ApiClient, Recorder], server: MisbehavingServer, mode: str) -> None:
    api, _ = client
    before = len(server.requests)
    ex = api.get(f"/{mode}/x")
    assert ex.status == 302 and len(server.requests) == before + 1
    assert all(host.startswith("127.0.0.1:") for host, _ in server.requests)


def test_invalid_utf8_in_a_json_body_is_a_finding_with_the_bytes_as_evidence(client: tuple[ApiClient, Recorder]) -> None:
    api, recorder = client
    with pytest.raises(HttpViolation, match="not valid UTF-8") as caught:
        api.get("/bad-utf8/x")
    assert caught.value.kind == "encoding"
    evidence = recorder.take()[-1]
    assert b"Caf\xe9 \xff\xfe" in evidence.body and "\ufffd".encode() not in evidence.body  # never repaired


@pytest.mark.parametrize("mode", ["malformed-json", "wrong-type", "status999", "xml-bomb", "xml-external"])
def test_answers_that_are_http_reach_the_checks_as_sent(client: tuple[ApiClient, Recorder], mode: str) -> None:
    api, _ = client
    ex = api.get(f"/{mode}/x")
    assert ex.status in (200, 999) and ex.body


def test_a_decoded_body_within_the_caps_is_read(client: tuple[ApiClient, Recorder]) -> None:
    api, _ = client
    assert api.get("/ok/x").json == {"_links": {"self": {"href": "/x"}}}


@pytest.mark.parametrize("mode", ["hang", "reset"])
def test_probe_calls_a_server_that_never_answers_unreachable(server: MisbehavingServer, mode: str) -> None:
    started = time.monotonic()
    with pytest.raises(UnreachableError):
        probe(f"http://127.0.0.1:{server.port}/{mode}/v2", timeout_s=2)
    assert time.monotonic() - started < 4.5


@pytest.mark.parametrize("mode", ["drip", "huge-body", "gzip-bomb", "http09", "many-headers", "short-body",
                                  "status999", "flood-1xx"])
def test_probe_calls_any_answer_reachable_and_stays_bounded(server: MisbehavingServer, mode: str) -> None:
    started = time.monotonic()
    try:
        probe(f"http://127.0.0.1:{server.port}/{mode}/v2", timeout_s=2)
    except UnreachableError:
        assert mode == "flood-1xx", mode  # only 1xx heads: no final answer ever came
    assert time.monotonic() - started < 4.5


# --- the generated calls of contract fuzzing (conformance/http/fuzz_transport.py) --------------
@pytest.mark.parametrize("mode", ["redirect-loop", "redirect-foreign"])
def test_the_fuzzing_session_follows_no_redirect(client: tuple[ApiClient, Recorder], server: MisbehavingServer,
                                                 mode: str) -> None:
    api, recorder = client
    before = len(server.requests)
    with BoundedSession(api) as session:
        response = session.get(f"http://127.0.0.1:{server.port}/{mode}/x")
    assert response.status_code == 302 and len(server.requests) == before + 1
    assert [e.status for e in recorder.take()] == [302]  # recorded like every other exchange


@pytest.mark.parametrize("mode", ["huge-body", "gzip-bomb", "drip"])
def test_the_fuzzing_session_is_bounded_like_the_client(client: tuple[ApiClient, Recorder], server: MisbehavingServer,
                                                        mode: str) -> None:
    api, _ = client
    started = time.monotonic()
    with BoundedSession(api) as session, pytest.raises(HttpViolation):
        session.get(f"http://127.0.0.1:{server.port}/{mode}/x")
    assert time.monotonic() - started < BOUND_S


def test_the_fuzzing_session_sends_what_it_is_given_and_answers_as_received(client: tuple[ApiClient, Recorder],
                                                                          server: MisbehavingServer) -> None:
    api, recorder = client
    with BoundedSession(api) as session:
        response = session.get(f"http://127.0.0.1:{server.port}/ok/x", headers={"X-Api-Key": "k"})
    assert response.json() == {"_links": {"self": {"href": "/x"}}}
    sent = recorder.take()[-1]
    assert sent.request_headers.get("x-api-key") == "[redacted]"  # sent, and masked in the record
    assert "python-requests" not in (sent.request_headers.get("user-agent") or "")  # no requests defaults added
    assert response.headers[SENT_URL_HEADER] == sent.url
    assert response.raw.headers.getlist("content-type") == [response.headers["content-type"]]  # schemathesis reads raw


def test_clients_that_verify_by_default_share_one_verifying_tls_context() -> None:
    """httpx's default (`verify=True`: its certifi bundle), made once per process instead of
    once per client; still verifying the certificate and the host name."""
    import ssl

    from conformance.http.client import _tls_context

    first, second = _tls_context(None, True), _tls_context(None, True)
    assert isinstance(first, ssl.SSLContext) and first is second
    assert first.verify_mode is ssl.CERT_REQUIRED and first.check_hostname
    assert first.get_ca_certs() or first.cert_store_stats()["x509_ca"] > 0
    with pytest.raises(ValueError, match="cannot be turned off"):
        _tls_context(None, False)  # verification is never off, whoever asks
