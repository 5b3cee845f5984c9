"""Reading query strings and form bodies defensively: a size cap, strict UTF-8 and
percent-decoding, a cap on the number of fields. Anything malformed raises FormError,
which every endpoint turns into a 4xx of its own kind (never a 500)."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import ClientDisconnect, Request

FORM = "application/x-www-form-urlencoded"
MAX_BODY_BYTES = 64 * 1024
MAX_FIELDS = 64


def safe_text(text: str, limit: int = 200) -> str:
    """Printable ASCII without `"` and `\\` (RFC 6749 error_description), at most `limit` chars."""
    return "".join(ch for ch in text if 32 <= ord(ch) < 127 and ch not in '"\\')[:limit]


def finite_number(value: Any, bound: float = 1e13) -> bool:
    """A JSON number (not a boolean) within +-bound; huge integers do not overflow here."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value) and abs(value) <= bound
    except OverflowError:
        return False


class FormError(Exception):
    """Malformed input; the message is safe to show (printable ASCII, no quotes)."""


class Params:
    """Decoded parameters in order. An empty value counts as omitted (RFC 6749 3.1)."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        self._values: dict[str, list[str]] = {}
        for name, value in pairs:
            self._values.setdefault(name, []).append(value)

    def repeated(self, names: tuple[str, ...] | None = None) -> list[str]:
        """Parameters given more than once (among `names`, or all)."""
        return [n for n, v in self._values.items() if len(v) > 1 and (names is None or n in names)]

    def get(self, name: str) -> str | None:
        values = [v for v in self._values.get(name, []) if v != ""]
        return values[0] if values else None

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None


def parse_params(raw: bytes) -> Params:
    try:
        text = raw.decode("ascii")  # a query or form body is percent-encoded ASCII
        pairs = parse_qsl(text, keep_blank_values=True, errors="strict", max_num_fields=MAX_FIELDS)
    except UnicodeDecodeError:
        raise FormError("the parameters are not valid percent-encoded UTF-8") from None
    except ValueError:
        raise FormError(f"more than {MAX_FIELDS} parameters") from None
    return Params(pairs)


def query_params(request: Request) -> Params:
    return parse_params(request.scope.get("query_string", b""))


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise FormError(f"the body is larger than {limit} bytes or its length is malformed")
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise FormError(f"the body is larger than {limit} bytes")
    except ClientDisconnect:
        raise FormError("the client went away") from None
    return bytes(body)


async def form_params(request: Request) -> Params:
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != FORM:
        raise FormError(f"the body must be {FORM}")
    return parse_params(await read_body(request))
