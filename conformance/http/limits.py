"""The bounds of every request the harness sends, and what a server's misbehaviour becomes.

A conformance harness is pointed at servers that may be broken. Each request is bounded:

* a total deadline (connect, head and the whole body): every socket operation gets at
  most the time left, so a server that drips one byte every two seconds is cut off at the
  deadline, not after a read time-out per byte;
* a cap on the body as received, counted while streaming, and a cap on the body after
  its content coding is undone (a gzip bomb stops at the cap, decoded chunk by chunk
  with a bounded inflater), and a cap on the response head (the HTTP parser refuses a
  head over 100 KiB; a lower cap is applied to what it accepted);
* no automatic redirects (the client never follows; the login drivers walk at most 12
  steps -- 5 redirects for the immediate driver -- on the authorization server's origin,
  and stop at the registered redirect URI).

What breaks these bounds, or HTTP itself, is an `HttpViolation`: a Finding of the check
that sent the request, with a reason naming the limit or the violation. Only a server
that cannot be connected to is unreachable (the reachability probe also calls a server
that never answers anything unreachable).
"""

from __future__ import annotations

import contextvars
import re
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx

from conformance.errors import ConfigError
from conformance.findings import Finding
from conformance.http.exchange import MAX_JSON_DEPTH, json_nested_too_deep

MiB = 1024 * 1024
# httpcore's HTTP/1.1 parser refuses a head larger than this (h11's max_incomplete_event_size).
PARSER_HEAD_LIMIT = 100 * 1024


@dataclass(frozen=True)
class Limits:
    """Per request; the README's "Limits" table lists each with its profile key."""

    deadline_s: float = 30.0  # [limits] deadline_s
    max_body_bytes: int = 8 * MiB  # [limits] max_body_bytes: as received
    max_decoded_bytes: int = 32 * MiB  # [limits] max_decoded_bytes: after the content coding
    max_head_bytes: int = 64 * 1024  # [limits] max_head_bytes: status line and headers


DEFAULT_LIMITS = Limits()


class HttpViolation(Finding):
    """The server broke HTTP or a limit. `kind`: no_answer (nothing came back in time),
    protocol (no valid status line or head, framing), head, body, decoded, deadline,
    decoding (a content coding that does not decode), reset (connection dropped), tls (the
    server ended the TLS session, e.g. for want of a client certificate), encoding (a JSON or
    UTF-8 XML body that is not valid UTF-8), nesting (JSON nested deeper than the harness judges),
    origin (a URL outside the service's base URL, not requested: conformance/http/origins.py)."""

    def __init__(self, kind: str, message: str, *, cause: str | None = None) -> None:
        super().__init__(message, cause=cause)
        self.kind = kind


# --------------------------------------------------------------------------- deadline
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("request_deadline", default=None)
# Bytes the server sent for the request being made: tells "closed without a byte" (reset)
# from "sent bytes that are not HTTP" (HTTP/0.9, garbage) when the parser gives up alike.
_RECEIVED: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("request_received", default=None)


# The pinned public keys of the request being made (`sha256//<base64>` of the server's
# SubjectPublicKeyInfo, as curl's --pinnedpubkey writes them): checked right after the TLS
# handshake, before the request is written, so a server that fails it receives nothing.
_PINS: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("request_pins", default=())


class UntrustedServer(ConfigError):
    """The server's certificate does not verify, or its key matches no pin: nothing was sent.
    A configuration matter (exit 2): the profile names which CA or key to trust."""


class _PinMismatch(httpcore.ConnectError):
    """The TLS handshake completed with a key that matches none of the pins."""


def spki_pin(der_certificate: bytes) -> str:
    """`sha256//<base64>` of a DER certificate's public key (its SubjectPublicKeyInfo)."""
    import base64
    import hashlib

    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = x509.load_der_x509_certificate(der_certificate).public_key()
    spki = key.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return "sha256//" + base64.b64encode(hashlib.sha256(spki).digest()).decode()


def _check_pins(stream: httpcore.NetworkStream) -> None:
    pins = _PINS.get()
    if not pins:
        return
    ssl_object = stream.get_extra_info("ssl_object")
    der = ssl_object.getpeercert(True) if ssl_object is not None else None  # binary (DER); positional only
    seen = spki_pin(der) if der else "no certificate"
    if seen not in pins:
        stream.close()
        raise _PinMismatch(f"the server's public key {seen} matches none of the pinned keys")


def refuse_untrusted(exc: httpx.HTTPError, origin: str, trust: Any) -> None:
    """Raise UntrustedServer when `exc` is a TLS verification failure or a pin mismatch;
    `trust`: the service's (conformance.profiles.Trust), whose keys the message names."""
    text = str(exc)
    if isinstance(exc.__context__, _PinMismatch) or "matches none of the pinned keys" in text:
        raise UntrustedServer(f"{origin}: {text} ({trust.key}.pinned_keys); nothing was sent to it") from None
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text:
        raise UntrustedServer(
            f"{origin}: its TLS certificate does not verify ({text}); if a private CA issued it, name that CA's "
            f"PEM file in {trust.ca_key} (verification is never turned off); nothing was sent to it") from None


class _Expired(httpcore.ReadTimeout):
    """The total deadline passed (httpx maps it to a ReadTimeout)."""


def _clamp(timeout: float | None) -> float | None:
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _Expired("the request's total deadline passed")
    return remaining if timeout is None else min(timeout, remaining)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = self._inner.read(max_bytes, _clamp(timeout))
        counter = _RECEIVED.get()
        if counter is not None:
            counter[0] += len(data)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _clamp(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        stream = _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, _clamp(timeout)))
        _check_pins(stream)
        return stream

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's own socket backend, with every operation bounded by the time left."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        return _DeadlineStream(self._inner.connect_tcp(host, port, _clamp(timeout), local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore.NetworkStream:  # pragma: no cover
        return _DeadlineStream(self._inner.connect_unix_socket(path, _clamp(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def transport(**kwargs: Any) -> httpx.HTTPTransport:
    """An httpx transport whose sockets honour the deadline of the request being sent.

    httpx 0.28 takes no network backend, so the pool it built gets one: the only place the
    harness reaches into httpx, proven by tests/test_bounded_http.py (slow drip, hang)."""
    made = httpx.HTTPTransport(**kwargs)
    pool = made._pool  # noqa: SLF001
    if not hasattr(pool, "_network_backend"):  # pragma: no cover - a future httpcore
        raise RuntimeError("httpcore changed: the request deadline cannot be enforced")
    pool._network_backend = _DeadlineBackend()  # noqa: SLF001
    return made


class deadline:  # noqa: N801 - used as a context manager, like a function
    """`with deadline(seconds):` every socket operation of the requests inside is bounded;
    `pins`: a new TLS connection's key must match one of them (`sha256//<base64>`)."""

    def __init__(self, seconds: float, *, pins: tuple[str, ...] = ()) -> None:
        self.at = time.monotonic() + seconds
        self.seconds = seconds
        self.pins = tuple(pins)
        self._tokens: tuple[Any, Any, Any] | None = None
        self._received = [0]

    def __enter__(self) -> deadline:
        self._tokens = (_DEADLINE.set(self.at), _RECEIVED.set(self._received), _PINS.set(self.pins))
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._tokens is not None
        _DEADLINE.reset(self._tokens[0])
        _RECEIVED.reset(self._tokens[1])
        _PINS.reset(self._tokens[2])

    @property
    def received(self) -> int:
        """Bytes read from the server within this deadline."""
        return self._received[0]

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self.at


# --------------------------------------------------------------------------- body
_INFLATE = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


def read_body(response: httpx.Response, limits: Limits, origin: str) -> bytes:
    """The body with its content coding undone, within both caps; HttpViolation otherwise.

    The violation is raised from a frame that holds no body: a test framework keeps the
    exceptions of failed examples with their tracebacks, and a frame holding megabytes of
    a refused body would keep them alive for each one (gigabytes over a fuzzing run)."""
    violation: HttpViolation | None = None
    try:
        return _read_body(response, limits, origin)
    except HttpViolation as exc:
        violation = exc.with_traceback(None)
    raise violation


def _read_body(response: httpx.Response, limits: Limits, origin: str) -> bytes:
    codings = [c.strip().lower() for c in response.headers.get("content-encoding", "").split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if len(codings) > 1 or (codings and codings[0] not in _INFLATE):
        # Nothing else is asked for (Accept-Encoding: gzip, deflate): keep the bytes as sent.
        codings = []
    raw_seen = 0
    decoded: list[bytes] = []
    decoded_size = 0
    inflater = _inflater(codings[0]) if codings else None
    for chunk in _raw_chunks(response):
        raw_seen += len(chunk)
        if raw_seen > limits.max_body_bytes:
            raise HttpViolation("body", f"body over {_size(limits.max_body_bytes)}, stopped reading",
                                cause=f"{origin}: body over {_size(limits.max_body_bytes)}")
        for piece in inflater.feed(chunk, limits.max_decoded_bytes - decoded_size) if inflater else (chunk,):
            decoded_size += len(piece)
            if decoded_size > limits.max_decoded_bytes:
                raise HttpViolation("decoded", f"body over {_size(limits.max_decoded_bytes)} once its "
                                    f"content-encoding {codings[0]} is undone, stopped reading",
                                    cause=f"{origin}: decoded body over {_size(limits.max_decoded_bytes)}")
            decoded.append(piece)
    if inflater is not None:
        inflater.finish()
    return b"".join(decoded)


def _raw_chunks(response: httpx.Response) -> Iterator[bytes]:
    yield from response.iter_raw()


class _inflater:  # noqa: N801
    """zlib with bounded output: at most `room + 1` bytes per call, whatever the input."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._z = zlib.decompressobj(_INFLATE[coding])

    def feed(self, data: bytes, room: int) -> Iterator[bytes]:
        try:
            out = self._z.decompress(data, max(room, 0) + 1)
            yield out
            while self._z.unconsumed_tail:
                room -= len(out)
                if room < 0:
                    return  # the caller has already stopped: over the cap
                out = self._z.decompress(self._z.unconsumed_tail, max(room, 0) + 1)
                yield out
        except zlib.error as exc:
            raise HttpViolation("decoding", f"content-encoding {self.coding}: the body does not decode ({exc})") from None

    def finish(self) -> None:
        if not self._z.eof and self.coding != "deflate":
            raise HttpViolation("decoding", f"content-encoding {self.coding}: the body ends before its stream does")


_XML_DECLARED = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def check_text_encoding(content_type: str | None, body: bytes, origin: str) -> None:
    """A JSON body (RFC 8259 8.1: UTF-8) or an XML body whose media type or declaration says
    UTF-8 (the default of XML 1.0 without either) must be valid UTF-8: the harness does not
    repair it, and a check must not judge text the server never sent."""
    if not body:
        return
    media, _, params = (content_type or "").lower().partition(";")
    media = media.strip()
    charset = next((p.split("=", 1)[1].strip().strip('"') for p in params.split(";") if p.strip().startswith("charset=")),
                   None)
    if media.endswith("json") or media.endswith("+json"):
        declared = "JSON (RFC 8259: UTF-8)"
    elif media.endswith("xml"):
        found = _XML_DECLARED.match(body[:200])
        encoding = charset or (found.group(1).decode().lower() if found else "utf-8")
        if encoding.replace("_", "-") not in ("utf-8", "utf8") or body.startswith((b"\xff\xfe", b"\xfe\xff")):
            return
        declared = f"XML in {charset and 'charset=' + charset or 'UTF-8'}"
    else:
        return
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HttpViolation("encoding", f"the body is {declared} but not valid UTF-8 (byte {exc.start}: "
                            f"{body[exc.start:exc.start + 4]!r})", cause=f"{origin}: invalid UTF-8") from None


def check_json_depth(body: bytes, origin: str) -> None:
    """A JSON body nested deeper than the harness judges (conformance/http/exchange.py
    MAX_JSON_DEPTH) is a finding of the request's check, whatever its media type: judged
    further it would break the checks that walk it."""
    if json_nested_too_deep(body):
        raise HttpViolation("nesting", f"the body is JSON nested deeper than {MAX_JSON_DEPTH} levels, more than "
                            "the harness judges (RFC 8259 section 9 lets an implementation limit the depth)",
                            cause=f"{origin}: JSON nested too deep")


def check_head(response: httpx.Response, limits: Limits, origin: str) -> None:
    size = len(f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n") + sum(
        len(k) + len(v) + 4 for k, v in response.headers.raw)
    if size > limits.max_head_bytes:
        raise HttpViolation("head", f"response head of {_size(size)} over {_size(limits.max_head_bytes)}",
                            cause=f"{origin}: head over {_size(limits.max_head_bytes)}")


def _size(n: int) -> str:
    if n >= MiB and n % MiB == 0:
        return f"{n // MiB} MiB"
    if n >= 1024:
        return f"{n / 1024:.0f} KiB"
    return f"{n} bytes"


# --------------------------------------------------------------------------- errors
def violation_of(exc: httpx.HTTPError, *, answered: bool, within: deadline, origin: str) -> HttpViolation | None:
    """The finding an httpx error stands for, or None when the server cannot be connected
    to (the caller reports that as unreachable). `answered`: the head had arrived."""
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return None
    if isinstance(exc, httpx.TimeoutException):
        if within.passed or isinstance(exc.__context__, _Expired):
            what = "response not complete" if answered else "no response"
            return HttpViolation("deadline" if answered else "no_answer",
                                 f"{what} within {within.seconds:g} s, stopped waiting",
                                 cause=f"{origin}: {what} within {within.seconds:g} s")
        return HttpViolation("deadline" if answered else "no_answer",
                             f"{'the body stalled' if answered else 'no response'}: {type(exc).__name__}",
                             cause=f"{origin}: {'body stalled' if answered else 'no response'}")
    if isinstance(exc, httpx.DecodingError):
        return HttpViolation("decoding", f"the body does not decode: {exc}")
    if isinstance(exc, httpx.RemoteProtocolError):
        text = str(exc) or type(exc).__name__
        if not answered and "without sending" in text:
            if within.received:
                return HttpViolation("protocol", f"no valid HTTP status line and head: {within.received} bytes "
                                     "that are not HTTP/1.x, then the connection closed",
                                     cause=f"{origin}: no valid HTTP status line")
            return HttpViolation("reset", "the connection was closed before a response",
                                 cause=f"{origin}: connection closed before a response")
        if not answered and "too long" in text:
            return HttpViolation("head", f"response head over the HTTP parser's {PARSER_HEAD_LIMIT // 1024} KiB "
                                 f"({text})", cause=f"{origin}: head too large")
        what = "the response body breaks HTTP framing" if answered else "no valid HTTP status line and head"
        return HttpViolation("protocol", f"{what}: {text}", cause=f"{origin}: {what}")
    if isinstance(exc, httpx.ReadError | httpx.WriteError | httpx.CloseError):
        if "SSL" in str(exc) or "TLS" in str(exc):
            return HttpViolation("tls", f"the server refused the TLS connection: {exc}",
                                 cause=f"{origin}: TLS refused")
        if answered:
            return HttpViolation("reset", f"the connection broke while reading the body: {type(exc).__name__}: {exc}",
                                 cause=f"{origin}: connection broke mid-body")
        return HttpViolation("reset", f"the connection was reset before a response: {type(exc).__name__}: {exc}",
                             cause=f"{origin}: connection closed before a response")
    return HttpViolation("protocol", f"{type(exc).__name__}: {exc}")
