"""Hostile servers of the project's own, for the tests that prove no secret reaches a report
whatever a server writes (issue 50): ASGI middleware in front of the local mocks."""

from __future__ import annotations

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
