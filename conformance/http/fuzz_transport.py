"""Contract fuzzing through the harness's one HTTP layer.

schemathesis sends its requests through a transport of its own choosing: `requests` for a
server on the network, or a WSGI application in-process. The harness gives the schema a
WSGI application (`schema.app = BoundedForwarder(client)`): schemathesis's own WSGI
transport then hands every request it makes -- generated cases, the re-sent requests of
its checks (ignored_auth), stateful chains -- to the forwarder, which sends it to the real
server through an `ApiClient`: the same deadline, caps, pacing, budget, recording and
redaction as every other request, and no redirect is ever followed. Every request it
forwards is `fuzz` (conformance/http/intent.py): sent only where safety.fuzz allows it. A server that breaks a
limit or HTTP raises the `HttpViolation` finding out of the case that sent it.

schemathesis reports the request as its `requests` transport would have built it, which
can differ from what its WSGI transport hands over (an object-valued query parameter in a
negative case is encoded twice differently). The forwarder therefore names the URL it
really sent in the answer (`SENT_URL_HEADER`), and the harness's checks judge that URL
(`exchange.from_schemathesis` takes it and drops the header).

The forwarder is the default for everything schemathesis sends. The generated calls of the
contract tests -- nearly every request of a fuzzing run -- take a shorter way to the same
client (`direct_call`): schemathesis's `requests` transport with a `BoundedSession`, whose
adapter hands each prepared request to the `ApiClient` and never follows a redirect. The
WSGI round trip (werkzeug's environ, its test response) cost about 0.7 s per 1300 requests,
a tenth of a fuzzing run.

Against a slow service, an operation's explicit examples -- schemathesis's coverage cases
and the description's examples, over nine tenths of its requests, each a request whatever
the answers before it -- are sent together before hypothesis runs them one by one
(`BoundedSession(ahead=True)`, `send_explicit_examples_ahead`): each example's call then
reads the answer to its very request, recorded as it is read, in the order a serial run
records it. A verdict cannot tell: the same requests reach the same server, and each
example is judged on the answer to its own request. The generated examples, which follow
the answers before them, are sent as they come.
"""

from __future__ import annotations

import contextlib
import contextvars
import http
import io
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3 import HTTPHeaderDict, HTTPResponse

from conformance.http.client import ApiClient
from conformance.http.concurrency import concurrently
from conformance.http.exchange import SENT_URL_HEADER
from conformance.http.intent import Intent

# Not forwarded: the forwarder undoes the content coding and frames the body itself.
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-encoding", "content-length",
                         "te", "trailer", "upgrade", "proxy-connection"})


class BoundedForwarder:
    """A WSGI application that forwards to where the request was addressed (scheme, Host,
    path and query, exactly as schemathesis built them) through `client`."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        url = f"{environ['wsgi.url_scheme']}://{environ['HTTP_HOST']}{environ.get('SCRIPT_NAME', '')}" \
              f"{_raw_path(environ)}"
        if environ.get("QUERY_STRING"):
            url += "?" + environ["QUERY_STRING"]
        headers = {k[5:].replace("_", "-").title(): v for k, v in environ.items()
                   if k.startswith("HTTP_") and k != "HTTP_HOST"}
        if environ.get("CONTENT_TYPE"):
            headers["Content-Type"] = environ["CONTENT_TYPE"]
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else None
        exchange = self.client.request(environ["REQUEST_METHOD"], url, headers=headers, content=body,
                                       intent=Intent.FUZZ)
        headers_out = [(k, v) for k, v in exchange.response_headers.items() if k.lower() not in _HOP_BY_HOP]
        start_response(f"{exchange.status} {_reason(exchange.status)}", [*headers_out, (SENT_URL_HEADER, exchange.url)])
        return [exchange.body]


class BoundedSession(requests.Session):
    """A `requests` session that sends every request through `client` and follows no redirect
    (a redirect is the answer under test). Only http(s) URLs have an adapter. `send_case`
    sends a generated case to `base_url` with `headers()`; `ahead`: the explicit examples'
    answers are sent ahead (above)."""

    def __init__(self, client: ApiClient, *, base_url: str = "", headers: Callable[[], dict[str, str]] = dict,
                 ahead: bool = False, adapter: BaseAdapter | None = None) -> None:
        super().__init__()
        self.client, self.base_url, self.case_headers, self.ahead = client, base_url, headers, ahead
        self.trust_env = False  # no proxies or .netrc from the environment: the client has its own settings
        # requests' defaults (Accept: */*, its User-Agent) would join every request: the
        # request sent is the one schemathesis built, as through the forwarder
        self.headers = CaseInsensitiveDict()
        self.adapters.clear()
        adapter = adapter or _BoundedAdapter(client)
        self.mount("http://", adapter)
        self.mount("https://", adapter)

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        return None

    def send_case(self, case: Any) -> Any:
        """The answer to a generated case, sent as every contract test sends it."""
        with direct_call(case.operation):
            return self.call(case)

    def call(self, case: Any) -> Any:
        return case.call(base_url=self.base_url, headers=self.case_headers(), session=self)


class _BoundedAdapter(BaseAdapter):
    def __init__(self, client: ApiClient) -> None:
        super().__init__()
        self.client = client

    def send(self, request: requests.PreparedRequest, stream: bool = False, timeout: Any = None, verify: Any = True,
             cert: Any = None, proxies: Any = None) -> requests.Response:
        # timeout, verify, cert and proxies are the client's: the profile's, not schemathesis's
        body = _body(request)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        ahead = _AHEAD.get()
        sent = ahead.take(_key(request.method, request.url, headers, body)) if ahead is not None else None
        if isinstance(sent, BaseException):
            raise sent
        if sent is not None:
            exchange = self.client.record(sent)
        else:
            exchange = self.client.request(str(request.method), str(request.url), headers=headers, content=body,
                                           intent=Intent.FUZZ)
        return _response(request, exchange, self)

    def close(self) -> None:
        pass


def _body(request: requests.PreparedRequest) -> bytes | None:
    body = request.body
    if isinstance(body, str):
        return body.encode("utf-8")
    if body is not None and not isinstance(body, bytes):
        return b"".join(body)  # a streamed body (never for this API's GET operations)
    return body


def _response(request: requests.PreparedRequest, exchange: Any, adapter: BaseAdapter) -> requests.Response:
    kept = [(k, v) for k, v in exchange.response_headers.items() if k.lower() not in _HOP_BY_HOP]
    kept.append((SENT_URL_HEADER, exchange.url))
    response = requests.Response()
    response.status_code = exchange.status
    response.reason = _reason(exchange.status)
    response.headers = CaseInsensitiveDict(kept)
    response.raw = HTTPResponse(body=io.BytesIO(b""), headers=HTTPHeaderDict(kept), status=exchange.status,
                                version=11, reason=response.reason, preload_content=False, decode_content=False)
    response._content = exchange.body  # read (and decoded) by the client already, within its caps
    response.encoding = get_encoding_from_headers(response.headers)
    response.url = exchange.url
    response.request = request
    response.connection = adapter
    return response


# ------------------------------------------------------------------ explicit examples ahead
def _key(method: Any, url: Any, headers: dict[str, str], body: bytes | None) -> tuple[Any, ...]:
    """A request as sent: two cases that build the same request read the same answer."""
    return (str(method).upper(), str(url), tuple(sorted((k.lower(), v) for k, v in headers.items())), body or b"")


class _Ahead:
    """The answers (raw exchanges, or what sending raised) to requests sent ahead, by request;
    each read once, in the order sent when a request was sent twice."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sent: dict[tuple[Any, ...], deque[Any]] = {}

    def put(self, key: tuple[Any, ...], outcome: Any) -> None:
        with self._lock:
            self._sent.setdefault(key, deque()).append(outcome)

    def take(self, key: tuple[Any, ...]) -> Any:
        with self._lock:
            waiting = self._sent.get(key)
            return waiting.popleft() if waiting else None

    def unread(self) -> list[Any]:
        with self._lock:
            left, self._sent = [o for outcomes in self._sent.values() for o in outcomes], {}
        return [outcome for outcome in left if not isinstance(outcome, BaseException)]


# The answers sent ahead for the operation the current test is running (its thread's).
_AHEAD: contextvars.ContextVar[_Ahead | None] = contextvars.ContextVar("fuzz_answers_ahead", default=None)


class _AheadAdapter(BaseAdapter):
    """Sends through the client without recording, and keeps each answer for the case's own call."""

    def __init__(self, client: ApiClient, ahead: _Ahead) -> None:
        super().__init__()
        self.client, self.ahead = client, ahead

    def send(self, request: requests.PreparedRequest, stream: bool = False, timeout: Any = None, verify: Any = True,
             cert: Any = None, proxies: Any = None) -> requests.Response:
        body = _body(request)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        key = _key(request.method, request.url, headers, body)
        try:
            _, raw = self.client.request_revealing(str(request.method), str(request.url), headers=headers,
                                                   content=body, intent=Intent.FUZZ, record=False)
        except BaseException as exc:  # noqa: BLE001 - raised again where the case reads its answer
            self.ahead.put(key, exc)
            raise
        self.ahead.put(key, raw)
        return _response(request, raw, self)

    def close(self) -> None:
        pass


def _explicit_cases(sub_test: Any) -> list[Any]:
    """The cases of a hypothesis test's explicit examples, when it runs them."""
    from hypothesis import Phase

    settings = getattr(sub_test, "_hypothesis_internal_use_settings", None)
    if settings is not None and Phase.explicit not in settings.phases:
        return []
    return [example.kwargs["case"] for example in getattr(sub_test, "hypothesis_explicit_examples", ())
            if "case" in getattr(example, "kwargs", {})]


def _send_ahead(session: BoundedSession, operation: Any, cases: list[Any], ahead: _Ahead) -> None:
    sender = BoundedSession(session.client, base_url=session.base_url, headers=session.case_headers,
                            adapter=_AheadAdapter(session.client, ahead))

    def send(case: Any) -> Callable[[], None]:
        def call() -> None:
            # What sending raised is kept for the case's own call (_AheadAdapter); anything else it meets again.
            with contextlib.suppress(Exception):
                sender.call(case)
        return call

    with direct_call(operation):  # the test's own operation and schema: its examples have not started
        concurrently([send(case) for case in cases], session.client.concurrency)


def send_explicit_examples_ahead() -> None:
    """From now on an operation's explicit examples are sent ahead in a contract test whose
    `fuzz_session` asks for it (schemathesis's lazy schema runs each operation's hypothesis
    test through `run_subtest`; once per process)."""
    from schemathesis.pytest import lazy

    if getattr(lazy.run_subtest, "sends_ahead", False):
        return
    run_subtest = lazy.run_subtest

    def run_subtest_ahead(operation: Any, fixtures: dict[str, Any], sub_test: Any, subtests: Any) -> None:
        session = fixtures.get("fuzz_session")
        cases = _explicit_cases(sub_test) if isinstance(session, BoundedSession) and session.ahead else []
        if not cases:
            return run_subtest(operation, fixtures, sub_test, subtests)
        ahead = _Ahead()
        token = _AHEAD.set(ahead)
        try:
            _send_ahead(session, operation, cases, ahead)
            return run_subtest(operation, fixtures, sub_test, subtests)
        finally:
            _AHEAD.reset(token)
            for raw in ahead.unread():  # sent, and never read (the examples stopped early): in the traffic still
                session.client.record(raw)

    run_subtest_ahead.sends_ahead = True  # type: ignore[attr-defined]
    lazy.run_subtest = run_subtest_ahead


@contextmanager
def direct_call(operation: Any) -> Iterator[None]:
    """Within this block `case.call(session=BoundedSession(...))` for a case of `operation`
    takes schemathesis's `requests` transport: a call whose operation or schema has an
    application always goes through that, so both are set aside for the call and put back
    after, whatever happens. Everything else schemathesis sends (the probes of its checks,
    the stateful chains) still reaches the forwarder."""
    schema = operation.schema
    apps = operation.app, schema.app
    operation.app = schema.app = None
    try:
        yield
    finally:
        operation.app, schema.app = apps


def _raw_path(environ: dict[str, Any]) -> str:
    # PATH_INFO is decoded (latin-1 per PEP 3333); RAW_URI/REQUEST_URI keep the encoding when the server gives them.
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if raw:
        return raw.split("?", 1)[0]
    from urllib.parse import quote

    return quote(environ.get("PATH_INFO", "").encode("latin-1"), safe="/:@!$&'()*+,;=-._~%")


def _reason(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"
