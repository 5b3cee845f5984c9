"""Hostile servers of the project's own, for the tests that prove no secret reaches a report
whatever a server writes (issue 50): ASGI middleware in front of the local mocks."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

# A key with a slash, an ampersand and a plus: PHP, Go and a full \u escape write each differently.
CANARY_KEY = "Can/ary&Key+5b0c1e9d7f3a2468"


def escaped_forms(secret: str) -> str:
    """The secret as servers echo it inside a JSON string: as PHP writes it (`\\/`), as Go
    writes it (`\\u0026`, `\\u002b`), and every character as `\\uXXXX`."""
    php = secret.replace("/", "\\/")
    go = secret.replace("&", "\\u0026").replace("+", "\\u002b")
    every = "".join(f"\\u{ord(c):04x}" for c in secret)
    return f"{php} {go} {every}"


class EchoingGateway:
    """In front of the address mock: every answer echoes the request's API key percent-encoded
    in a header (`X-Echo`), and every problem answer echoes it in its JSON, JSON-escaped
    (escaped_forms). With `refuse` on, every request is answered 401 `authentication` with that
    echo (a deployment that refuses the configured key)."""

    def __init__(self, app: Any, header: str = "x-api-key") -> None:
        self.app, self.header, self.refuse = app, header.encode(), False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = next((v.decode("latin-1") for k, v in scope["headers"] if k.lower() == self.header), "")
        echo = escaped_forms(key).encode("ascii")
        if self.refuse:
            body = b'{"status": 401, "code": "authentication", "title": "key ' + echo + b' refused", "echo": "' + echo + b'"}'
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/problem+json"), (b"api-version", b"2.9.2"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(chunks)
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            media = next((v for k, v in headers if k.lower() == b"content-type"), b"")
            if b"problem+json" in media and body.rstrip().endswith(b"}"):
                body = body.rstrip()[:-1] + b', "echo": "' + echo + b'"}'
            headers += [(b"x-echo", quote(key, safe="").encode()), (b"content-length", str(len(body)).encode())]
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, sending)


class HostileAuth:
    """A loopback authorization server that hands out tokens in the ways a reader must decode:
    the implicit grant's token in the redirect's fragment, and token responses with a BOM
    (text/plain), in UTF-16, and as JSON inside an HTML page (by `?form=` of the token request:
    bom, utf16, html); the inquiry API echoes the bearer token JSON-escaped."""

    def __init__(self, tokens: dict[str, str]) -> None:
        import http.server
        import threading

        self.tokens = tokens  # form -> the access token it hands out; "fragment" for the redirect
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _send(self, status: int, headers: list[tuple[str, str]], body: bytes = b"") -> None:
                self.send_response(status)
                for name, value in [*headers, ("Content-Length", str(len(body)))]:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 - the standard library's name
                if self.path.startswith("/auth/oauth/v2/authorize"):
                    self._send(302, [("Location", "http://127.0.0.1:8765/callback#access_token="
                                      f"{server.tokens['fragment']}&token_type=Bearer"), ("Cache-Control", "no-store")])
                    return
                bearer = (self.headers.get("Authorization") or "").partition(" ")[2]
                self._send(401, [("Content-Type", "application/json")],
                           f'{{"error": "invalid_token", "detail": "{escaped_forms(bearer)}"}}'.encode())

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                form = self.path.partition("form=")[2] or "bom"
                document = json.dumps({"access_token": server.tokens[form], "token_type": "Bearer", "expires_in": 3600})
                if form == "utf16":
                    self._send(200, [("Content-Type", "text/plain;charset=UTF-16")], document.encode("utf-16"))
                elif form == "html":
                    self._send(200, [("Content-Type", "text/html")],
                               f"<html><script>var t = {document};</script></html>".encode())
                else:
                    self._send(200, [("Content-Type", "text/plain;charset=UTF-8")], b"\xef\xbb\xbf" + document.encode())

            def log_message(self, *args: object) -> None:
                return None

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> HostileAuth:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
