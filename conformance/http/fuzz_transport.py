"""Contract fuzzing through the harness's one HTTP layer.

schemathesis sends its requests through a transport of its own choosing: `requests` for a
server on the network, or a WSGI application in-process. The harness gives the schema a
WSGI application (`schema.app = BoundedForwarder(client)`): schemathesis's own WSGI
transport then hands every request it makes -- generated cases, the re-sent requests of
its checks (ignored_auth), stateful chains -- to the forwarder, which sends it to the real
server through an `ApiClient`: the same deadline, caps, pacing, budget, recording and
redaction as every other request, and no redirect is ever followed. A server that breaks a
limit or HTTP raises the `HttpViolation` finding out of the case that sent it.

schemathesis reports the request as its `requests` transport would have built it, which
can differ from what its WSGI transport hands over (an object-valued query parameter in a
negative case is encoded twice differently). The forwarder therefore names the URL it
really sent in the answer (`SENT_URL_HEADER`), and the harness's checks judge that URL
(`exchange.from_schemathesis` takes it and drops the header).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from conformance.http.client import ApiClient
from conformance.http.exchange import SENT_URL_HEADER

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
        exchange = self.client.request(environ["REQUEST_METHOD"], url, headers=headers, content=body)
        headers_out = [(k, v) for k, v in exchange.response_headers.items() if k.lower() not in _HOP_BY_HOP]
        start_response(f"{exchange.status} {_reason(exchange.status)}", [*headers_out, (SENT_URL_HEADER, exchange.url)])
        return [exchange.body]


def _raw_path(environ: dict[str, Any]) -> str:
    # PATH_INFO is decoded (latin-1 per PEP 3333); RAW_URI/REQUEST_URI keep the encoding when the server gives them.
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if raw:
        return raw.split("?", 1)[0]
    from urllib.parse import quote

    return quote(environ.get("PATH_INFO", "").encode("latin-1"), safe="/:@!$&'()*+,;=-._~%")


def _reason(status: int) -> str:
    import http

    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"
