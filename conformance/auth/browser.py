"""A cookie-keeping, non-following, recorded HTTP client for one login.

The login drivers (login.py) walk a server's login and consent pages the way a browser
would, but step by step: every redirect is a step they look at (the last one carries the
authorization code), so nothing here follows redirects. Each Browser has its own cookie
jar, so one login's session never leaks into the next authorization.

Every exchange goes through the shared Redactor and Recorder like any other request. On
top of that, the form fields a driver marks as secret (the password, whatever the
server calls it: `j_password`, `pwd`, ...) are masked by name in the recorded URL and
body, because the Redactor only knows the usual names and ignores values shorter than
six characters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from conformance.http.client import ApiClient, Pacer, Recorder
from conformance.http.exchange import Exchange
from conformance.http.intent import Switches
from conformance.http.limits import DEFAULT_LIMITS, Limits
from conformance.http.redaction import MASK, Redactor
from conformance.profiles import Trust

FORM_MEDIA_TYPE = "application/x-www-form-urlencoded"

Fields = Mapping[str, str] | Sequence[tuple[str, str]]


class Browser:
    """One login session: a fresh cookie jar, no automatic redirects, everything recorded."""

    def __init__(
        self,
        redactor: Redactor,
        recorder: Recorder,
        *,
        timeout_s: float = 10.0,
        pacer: Pacer | None = None,
        limits: Limits = DEFAULT_LIMITS,
        trust: Trust | None = None,
        switches: Switches | None = None,
        classify: Callable[[Any], str | None] | None = None,
    ) -> None:
        """`trust`: the authorization server's (its CA file, pins). A login may pass through
        other origins (a business identification login), so the walk is not held to one base
        URL: it attaches no credential of its own, its cookies stay with their host, and the
        drivers send the password only to the authorization server (login.py)."""
        self._redactor = redactor
        self._recorder = recorder
        # The ApiClient records into this private sink; `_record` masks the secret form
        # fields of each exchange before it reaches the shared recorder.
        self._sink = Recorder()
        # A new ApiClient means a new httpx.Client, hence a new cookie jar for this login.
        # Its base URL stays empty: the drivers only ever pass absolute URLs.
        self._client = ApiClient(
            "", redactor=redactor, recorder=self._sink, pacer=pacer, timeout_s=timeout_s, limits=limits, home=(),
            trust=trust, switches=switches, classify=classify,
        )

    # --- requests ----------------------------------------------------------------------
    def get(
        self, url: str, params: Fields | None = None, *, secret_fields: Iterable[str] = ()
    ) -> tuple[Exchange, Exchange]:
        """GET an absolute URL. `params`, when given, replace the URL's query, as an HTML GET
        form does (and as httpx 0.28 does; made explicit here). Returns (redacted, raw)."""
        secret = self._learn_secrets(params or (), secret_fields)
        url = _absolute(url)
        if params is not None:
            url = urlunsplit(urlsplit(url)._replace(query=""))
        redacted, raw = self._client.request_revealing("GET", url, params=_pairs(params))
        return self._record(redacted, secret), raw

    def post_form(
        self, url: str, fields: Fields, *, secret_fields: Iterable[str] = ()
    ) -> tuple[Exchange, Exchange]:
        """POST `fields` as application/x-www-form-urlencoded (in the given order)."""
        secret = self._learn_secrets(fields, secret_fields)
        content = urlencode(_pairs(fields) or []).encode("utf-8")
        redacted, raw = self._client.request_revealing(
            "POST", _absolute(url), headers={"Content-Type": FORM_MEDIA_TYPE}, content=content
        )
        return self._record(redacted, secret), raw

    def cookie_names(self) -> list[str]:
        """The names (never the values) of the cookies this session holds, for diagnostics."""
        return sorted({cookie.name for cookie in self._client._http.cookies.jar})

    # --- lifetime ------------------------------------------------------------------------
    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- helpers ---------------------------------------------------------------------------
    def _learn_secrets(self, fields: Fields, names: Iterable[str]) -> frozenset[str]:
        """Tell the Redactor the secret values, so they are masked wherever they reappear
        (a page that echoes them, a later URL); return the names to mask by name."""
        secret = frozenset(names)
        for name, value in _pairs(fields) or []:
            if name in secret:
                self._redactor.add_secret(value)
        return secret

    def _record(self, redacted: Exchange, secret: frozenset[str]) -> Exchange:
        """Moves the sink's exchange to the shared recorder, masked; returns the same value."""
        masked = mask_fields(redacted, secret)
        for exchange in self._sink.take():
            self._recorder.record(masked if exchange is redacted else exchange)
        return masked


def mask_fields(exchange: Exchange, names: frozenset[str]) -> Exchange:
    """The exchange with the named query and form fields masked (names compare exactly, as
    HTML form field names do)."""
    if not names:
        return exchange
    url = _mask_url(exchange.url, names)
    body = exchange.request_body
    content_type = (exchange.request_headers.get("content-type") or "").lower()
    if body and content_type.startswith(FORM_MEDIA_TYPE):
        pairs = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
        body = urlencode([(k, MASK if k in names else v) for k, v in pairs], safe="[]").encode("utf-8")
    return dataclasses.replace(exchange, url=url, request_body=body)


def _mask_url(url: str, names: frozenset[str]) -> str:
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if not any(k in names for k, _ in pairs):
        return url
    masked = [(k, MASK if k in names else v) for k, v in pairs]
    return urlunsplit(parts._replace(query=urlencode(masked, safe="[],:")))


def _pairs(fields: Fields | None) -> list[tuple[str, str]] | None:
    if fields is None:
        return None
    if isinstance(fields, Mapping):
        return list(fields.items())
    return list(fields)


def _absolute(url: str) -> str:
    """A Browser has no base URL: a relative one is a driver bug, not a server's fault."""
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"Browser needs an absolute http(s) URL, got {url!r}")
    return url
