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
"""

from __future__ import annotations

import http
import io
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import requests
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3 import HTTPHeaderDict, HTTPResponse

from conformance.http.client import ApiClient
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
    (a redirect is the answer under test). Only http(s) URLs have an adapter."""

    def __init__(self, client: ApiClient) -> None:
        super().__init__()
        self.trust_env = False  # no proxies or .netrc from the environment: the client has its own settings
        # requests' defaults (Accept: */*, its User-Agent) would join every request: the
        # request sent is the one schemathesis built, as through the forwarder
        self.headers = CaseInsensitiveDict()
        self.adapters.clear()
        adapter = _BoundedAdapter(client)
        self.mount("http://", adapter)
        self.mount("https://", adapter)

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        return None


class _BoundedAdapter(BaseAdapter):
    def __init__(self, client: ApiClient) -> None:
        super().__init__()
        self.client = client

    def send(self, request: requests.PreparedRequest, stream: bool = False, timeout: Any = None, verify: Any = True,
             cert: Any = None, proxies: Any = None) -> requests.Response:
        # timeout, verify, cert and proxies are the client's: the profile's, not schemathesis's
        body = request.body
        if isinstance(body, str):
            body = body.encode("utf-8")
        elif body is not None and not isinstance(body, bytes):
            body = b"".join(body)  # a streamed body (never for this API's GET operations)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        exchange = self.client.request(str(request.method), str(request.url), headers=headers, content=body,
                                       intent=Intent.FUZZ)
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
        response.connection = self
        return response

    def close(self) -> None:
        pass


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
