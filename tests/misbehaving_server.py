"""A deliberately misbehaving HTTP server for the project's own tests (loopback only).

Raw asyncio, so it can break HTTP in ways a framework never would. The mode is the first
path segment (`/drip/...`), or fixed for the whole server (`MisbehavingServer(mode=...)`)
so that a harness run pointed at it meets the same misbehaviour on every request. Every
mode ends by itself: drips and floods stop after `limit_s`, so a test that fails never
leaves a server writing forever.

Also records each request's Host and path, so a test can prove no request reached
another origin.
"""

from __future__ import annotations

import asyncio
import gzip
import threading
import zlib
from dataclasses import dataclass, field

MODES = (
    "ok", "hang", "drip", "reset", "huge-body", "many-headers", "long-header", "gzip-bomb", "bad-gzip",
    "malformed-json", "wrong-type", "redirect-loop", "redirect-foreign", "bad-utf8", "short-body", "http09",
    "status999", "flood-1xx", "xml-bomb", "xml-external", "deep-json",
)
HUGE_BODY = 60 * 1024 * 1024
BOMB_DECODED = 1024 * 1024 * 1024


def _bomb() -> bytes:
    """1 GiB of zeros, gzip-compressed to about 1 MiB, made once and kept."""
    global _BOMB
    if _BOMB is None:
        compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        block = b"\0" * (1024 * 1024)
        parts = [compressor.compress(block) for _ in range(BOMB_DECODED // len(block))]
        _BOMB = b"".join(parts) + compressor.flush()
    return _BOMB


_BOMB: bytes | None = None
_HAL = b'{"_links":{"self":{"href":"/x"}}}'
_XML_BOMB = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;'
             b'&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;'
             b'&lol2;">]><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
             b'<x>&lol3;</x></soap:Body></soap:Envelope>')
_XML_EXTERNAL = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY ext SYSTEM "file:///etc/passwd">]>'
                 b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'
                 b'<x>&ext;</x></soap:Body></soap:Envelope>')


@dataclass
class MisbehavingServer:
    mode: str | None = None  # None: the first path segment chooses
    limit_s: float = 30.0  # no mode writes for longer than this
    port: int = 0
    foreign: str = "http://127.0.0.2:9/stolen"  # where redirect-foreign points
    requests: list[tuple[str, str]] = field(default_factory=list)  # (Host header, path)

    def __post_init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="misbehaving-server", daemon=True)
        self._server: asyncio.AbstractServer | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> str:
        if self.mode in (None, "gzip-bomb"):
            _bomb()  # made before the first request, so the bomb arrives at network speed
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("misbehaving server did not start")
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        async def shutdown() -> None:
            assert self._server is not None
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._loop.stop()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop)
        self._thread.join(10)

    def __enter__(self) -> MisbehavingServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", self.port, limit=1024 * 1024))
        self.port = self._server.sockets[0].getsockname()[1]
        self._started.set()
        self._loop.run_forever()
        self._loop.close()

    # ------------------------------------------------------------------ requests
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = (lines[0].split(" ") + ["", ""])[:3]
                headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
                length = int(headers.get("content-length", "0") or 0)
                if length:
                    await reader.readexactly(length)
                self.requests.append((headers.get("host", ""), target))
                path = target.split("?", 1)[0]
                mode = self.mode or (path.strip("/").split("/", 1)[0] or "ok")
                keep = await asyncio.wait_for(self._answer(mode, method, path, writer), self.limit_s)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, TimeoutError,
                asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _answer(self, mode: str, method: str, path: str, w: asyncio.StreamWriter) -> bool:
        """Write the answer of `mode`; True when the connection may be kept for another request."""
        if mode == "ok":
            await _send(w, 200, [("Content-Type", "application/hal+json")], _HAL)
            return True
        if mode == "hang":
            await asyncio.sleep(self.limit_s)
            return False
        if mode == "drip":
            await _head(w, 200, [("Content-Type", "application/hal+json"), ("Content-Length", "1000000")])
            for _ in range(1_000_000):
                w.write(b" ")
                await w.drain()
                await asyncio.sleep(2)
            return False
        if mode == "reset":
            sock = w.get_extra_info("socket")
            if sock is not None:  # RST instead of FIN: linger 0
                import socket
                import struct

                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return False
        if mode == "huge-body":
            await _head(w, 200, [("Content-Type", "application/hal+json"), ("Content-Length", str(HUGE_BODY))])
            block = b"[" * (1024 * 1024)
            for _ in range(HUGE_BODY // len(block)):
                w.write(block)
                await w.drain()
            return True
        if mode == "many-headers":
            await _send(w, 200, [("Content-Type", "application/hal+json")] + [(f"X-H{i}", "v") for i in range(10_000)], _HAL)
            return False
        if mode == "long-header":
            await _send(w, 200, [("Content-Type", "application/hal+json"), ("X-Long", "a" * (1024 * 1024))], _HAL)
            return False
        if mode == "gzip-bomb":
            await _send(w, 200, [("Content-Type", "application/hal+json"), ("Content-Encoding", "gzip")], _bomb())
            return True
        if mode == "bad-gzip":
            await _send(w, 200, [("Content-Type", "application/hal+json"), ("Content-Encoding", "gzip")],
                        b"this is not gzip at all")
            return True
        if mode == "malformed-json":
            await _send(w, 200, [("Content-Type", "application/hal+json")], b'{"_links": {"self": ')
            return True
        if mode == "deep-json":  # JSON nested 5000 levels deep, labelled as text (by shape, not label)
            await _send(w, 200, [("Content-Type", "text/plain")], b'{"a":' * 5000 + b"1" + b"}" * 5000)
            return True
        if mode == "wrong-type":
            await _send(w, 200, [("Content-Type", "text/html")], b"<html><body>hello</body></html>")
            return True
        if mode == "redirect-loop":
            await _send(w, 302, [("Location", path), ("Content-Type", "text/plain")], b"")
            return True
        if mode == "redirect-foreign":
            await _send(w, 302, [("Location", self.foreign), ("Content-Type", "text/plain")], b"")
            return True
        if mode == "bad-utf8":
            body = b'{"_links":{"self":{"href":"/x"}},"naam":"Caf\xe9 \xff\xfe"}'
            await _send(w, 200, [("Content-Type", "application/hal+json; charset=utf-8")], body)
            return True
        if mode == "short-body":
            await _head(w, 200, [("Content-Type", "application/hal+json"), ("Content-Length", "5000")])
            w.write(_HAL)
            await w.drain()
            return False
        if mode == "http09":
            w.write(_HAL)
            await w.drain()
            return False
        if mode == "status999":
            await _send(w, 999, [("Content-Type", "application/hal+json")], _HAL)
            return True
        if mode == "flood-1xx":
            for _ in range(1_000_000):
                w.write(b"HTTP/1.1 102 Processing\r\n\r\n")
                await w.drain()
            return False
        if mode == "xml-bomb":
            await _send(w, 200, [("Content-Type", "text/xml; charset=utf-8")], _XML_BOMB)
            return True
        if mode == "xml-external":
            await _send(w, 200, [("Content-Type", "text/xml; charset=utf-8")], _XML_EXTERNAL)
            return True
        await _send(w, 404, [("Content-Type", "text/plain")], f"unknown mode {mode}".encode())
        return True


async def _head(w: asyncio.StreamWriter, status: int, headers: list[tuple[str, str]]) -> None:
    lines = [f"HTTP/1.1 {status} {'OK' if status == 200 else 'Status'}"] + [f"{k}: {v}" for k, v in headers]
    w.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    await w.drain()


async def _send(w: asyncio.StreamWriter, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
    await _head(w, status, [*headers, ("Content-Length", str(len(body)))])
    w.write(body)
    await w.drain()


def gzip_of(data: bytes) -> bytes:
    return gzip.compress(data)
