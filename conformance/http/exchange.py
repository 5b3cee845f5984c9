"""A recorded HTTP exchange: the single value every check looks at.

Checks are pure functions of an Exchange. The same type comes from our own httpx
client (see client.py) and from schemathesis responses (see from_schemathesis), so a
domain check is written once and used by scenario tests and by fuzzing alike.

Bodies are kept as bytes, bounded by MAX_BODY; JSON is parsed lazily and defensively.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import parse_qsl, urlsplit

MAX_BODY = 8 * 1024 * 1024
# JSON nested deeper than this is not parsed (`json` is None) and, in an answer, is a finding
# of the request's check (conformance/http/limits.py check_json_depth): RFC 8259 section 9 lets
# an implementation limit the depth, and the checks walk what they parse (schema validation
# takes several stack frames a level), so a hostile body must stop here, not in a check.
# The register's documents nest about a dozen levels (a polygon inside an embedded object).
MAX_JSON_DEPTH = 100
SENT_URL_HEADER = "X-Conformance-Sent-Url"  # set by the fuzzing forwarder  # a larger server body is cut; checks see `truncated`


class Headers:
    """Case-insensitive, multi-valued, immutable header view."""

    def __init__(self, items: list[tuple[str, str]] | None = None) -> None:
        self._items = list(items or [])
        self._first: dict[str, str] | None = None  # lower-case name -> first value, made on first ask

    def get(self, name: str, default: str | None = None) -> str | None:
        # Asked some 25 times per exchange of a run (every check, rule and layer): an index
        # built once, rather than a walk over the headers with each name lowered every time.
        if self._first is None:
            first: dict[str, str] = {}
            for key, value in self._items:
                first.setdefault(key.lower(), value)
            self._first = first
        return self._first.get(name.lower(), default)

    def get_all(self, name: str) -> list[str]:
        lname = name.lower()
        return [v for k, v in self._items if k.lower() == lname]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def items(self) -> list[tuple[str, str]]:
        return list(self._items)

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


@dataclass(frozen=True)
class Exchange:
    method: str
    url: str
    request_headers: Headers
    request_body: bytes
    status: int
    response_headers: Headers
    body: bytes
    truncated: bool = False
    elapsed_ms: float = 0.0
    # Free-form notes a check or flow adds (never secrets).
    notes: dict[str, Any] = field(default_factory=dict)

    # --- request side -------------------------------------------------------------
    @property
    def path(self) -> str:
        return urlsplit(self.url).path

    @property
    def query(self) -> list[tuple[str, str]]:
        return parse_qsl(urlsplit(self.url).query, keep_blank_values=True)

    @property
    def raw_query(self) -> str:
        return urlsplit(self.url).query

    # --- response side ------------------------------------------------------------
    @property
    def media_type(self) -> str:
        """The response media type, lower case, without parameters."""
        value = self.response_headers.get("content-type") or ""
        return value.split(";", 1)[0].strip().lower()

    @cached_property
    def json(self) -> Any:
        """The parsed body, or None when it is not JSON. Never raises."""
        return parse_json(self.body)

    def summary(self) -> str:
        """One line for a failure reason: never carries secrets (the URL is redacted)."""
        return f"{self.method} {self.url} -> {self.status} {self.media_type or '-'}"


_DECIMAL = re.compile(r"[0-9]{1,4000}")  # int() reads no more digits than 4,300


def decimal_integer(text: str | None) -> int | None:
    """A non-negative integer written in ASCII digits (a header value, a query parameter), else
    None. Not int() or str.isdigit(): they also take '1_0', ' +5', '\u00b2' and other scripts'
    digits (int() then raises on some of what isdigit() accepts), which a server or a
    generated request may send."""
    return int(text) if text is not None and _DECIMAL.fullmatch(text.strip(" \t")) else None


def parse_json(body: bytes) -> Any:
    """Parse untrusted JSON: bounded size and depth, no exotic constants; None on any failure."""
    if not body or len(body) > MAX_BODY:
        return None
    try:
        value = json.loads(body, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    # Too few brackets to nest that deep (most answers): no walk over the parsed value.
    if body.count(b"{") + body.count(b"[") <= MAX_JSON_DEPTH:
        return value
    return value if json_depth(value) <= MAX_JSON_DEPTH else None


def json_nested_too_deep(body: bytes) -> bool:
    """Whether `body` is JSON nested deeper than MAX_JSON_DEPTH (or too deep to parse at all)."""
    head = body[:64].lstrip()
    if not head.startswith((b"{", b"[")) or body.count(b"{") + body.count(b"[") <= MAX_JSON_DEPTH:
        return False  # not JSON, or too few brackets to nest that deep: nothing to parse
    try:
        value = json.loads(body, parse_constant=_reject_constant)
    except RecursionError:
        return True
    except ValueError:
        return False
    return json_depth(value) > MAX_JSON_DEPTH


def json_depth(value: Any) -> int:
    """How deep containers nest in a parsed JSON value (a scalar: 0), without recursion; a
    walk level by level that stops once past MAX_JSON_DEPTH (the answer is then "too deep")."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level and depth <= MAX_JSON_DEPTH:
        depth += 1
        level = [child for node in level for child in (node.values() if isinstance(node, dict) else node)
                 if isinstance(child, dict | list)]
    return depth + (1 if level else 0)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def from_schemathesis(response: object) -> Exchange:
    """Adapt a schemathesis (4.x) Response, whose request is a requests.PreparedRequest."""
    request = response.request  # type: ignore[attr-defined]
    body = request.body or b""
    if isinstance(body, str):
        body = body.encode("utf-8")
    headers = response.headers  # type: ignore[attr-defined]  # Mapping[str, list[str]]
    content = response.content or b""  # type: ignore[attr-defined]
    # Through the harness's forwarder (conformance/http/fuzz_transport.py): the URL really sent.
    sent = [v for k, values in headers.items() if k.lower() == SENT_URL_HEADER.lower() for v in values]
    headers = {k: v for k, v in headers.items() if k.lower() != SENT_URL_HEADER.lower()}
    return Exchange(
        method=str(request.method),
        url=sent[0] if sent else str(request.url),
        request_headers=Headers([(k, str(v)) for k, v in request.headers.items()]),
        request_body=body,
        status=int(response.status_code),  # type: ignore[attr-defined]
        response_headers=Headers([(k, v) for k, values in headers.items() for v in values]),
        body=content[:MAX_BODY],
        truncated=len(content) > MAX_BODY,
        elapsed_ms=float(getattr(response, "elapsed", 0.0)) * 1000,
    )
