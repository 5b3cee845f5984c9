"""The one place secrets are masked, before an exchange is stored anywhere.

Everything that reaches a check, Allure, JUnit, a log or the console passes through
`Redactor.exchange()` first; failure texts, tracebacks and captured output pass through
`Redactor.text()` (conformance/pytest_plugin.py). Masking works on three levels:
  * header names that always carry secrets (X-Api-Key, Authorization, cookies);
  * query, form and JSON member names that carry secrets (tokens, codes, assertions),
    in any body that parses as JSON or as form data, whatever media type it is labelled
    with: a token endpoint that serves its JSON as text/plain still carries tokens;
  * the literal values of every secret the run knows (API keys read from the
    environment, generated mock keys, every token, code and assertion learned from an
    exchange), wherever they appear, URL-encoded or not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

from conformance.http.exchange import Exchange, Headers, parse_json

MASK = "[redacted]"

SECRET_HEADERS = frozenset(
    {"x-api-key", "authorization", "proxy-authorization", "cookie", "set-cookie"}
)
# Query and form parameter names. "code" is the OAuth authorization code here: the
# address API has no query parameter of that name.
SECRET_PARAMS = frozenset(
    {
        "client_secret",
        "code",
        "code_verifier",
        "access_token",
        "refresh_token",
        "id_token",
        "client_assertion",
        "assertion",
        "password",
        "api_key",
        "apikey",
        "private_key",
    }
)
_PEM_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z ]+ )?PRIVATE KEY-----.*?-----END (?:[A-Z ]+ )?PRIVATE KEY-----", re.DOTALL
)
# Not "code": a SOAP fault's or a schema's <code> is no authorization code.
_XML_SECRET_NAMES = "|".join(sorted((SECRET_PARAMS - {"code"}) | {"secret", "token"}))
_XML_SECRET_ELEMENT = re.compile(
    rf"(<(?:[\w.-]+:)?(?:{_XML_SECRET_NAMES})(?:\s[^>]*)?>)([^<]*)(</(?:[\w.-]+:)?(?:{_XML_SECRET_NAMES})\s*>)",
    re.IGNORECASE,
)
# Headers whose value is a URL: their query is masked like a request URL's (a redirect
# to the client carries the authorization code).
URL_HEADERS = frozenset({"location", "content-location", "refresh"})
# JSON member names. Not "code": problem+json uses it for the error code.
SECRET_JSON_KEYS = SECRET_PARAMS - {"code"}
_PEM_MARK = "PRIVATE KEY-----"  # in every match of _PEM_PRIVATE_KEY
_PEM_PRIVATE_KEY_BYTES = re.compile(_PEM_PRIVATE_KEY.pattern.encode(), re.DOTALL)
# A JSON member named like a secret, with its string value (escapes included).
_JSON_SECRET = re.compile(
    r'("(?:' + "|".join(sorted(SECRET_JSON_KEYS)) + r')"\s*:\s*)"(?:[^"\\]|\\.)*"', re.IGNORECASE
)
_FORM_SECRET = re.compile(r"(?:^|(?<=&))(" + "|".join(sorted(SECRET_PARAMS)) + r")=[^&]*", re.IGNORECASE)
# A body that is form data as a whole (`a=1&b=2`, no white space): only such a body is masked
# by parameter name, so a `&code=` inside a JSON string or an HTML link keeps its bytes.
_FORM_BODY = re.compile(r"[^=&\s]+=[^&\s]*(?:&[^=&\s]+=[^&\s]*)*\s*")
# Bodies larger than this are not parsed to learn secrets from (a token response is small);
# they are still masked by member name and by every value already learned.
_LEARN_MAX = 1024 * 1024


class Redactor:
    def __init__(self, secrets: Iterable[str] = (), *, extra_headers: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._sorted_forms: tuple[str, ...] = ()
        self._new_forms: set[str] = set()
        self._headers = SECRET_HEADERS | {h.lower() for h in extra_headers}
        for value in secrets:
            self.add_secret(value)

    def add_secret(self, value: str | None) -> None:
        # Very short values would mask innocent text; real secrets are long.
        if value and len(value) >= 6 and value not in self._secrets:
            self._secrets.add(value)
            self._new_forms.update((value, quote(value, safe=""), quote_plus(value)))

    @property
    def _forms(self) -> tuple[str, ...]:
        """Every secret as written, percent-encoded and form-encoded, longest first (so a
        secret inside another never leaves part of the longer one); sorted once per batch of
        new secrets, not on every one (a capture with thousands of tokens)."""
        if self._new_forms:
            self._sorted_forms = tuple(sorted({*self._sorted_forms, *self._new_forms}, key=len, reverse=True))
            self._new_forms = set()
        return self._sorted_forms

    def add_header(self, name: str) -> None:
        self._headers = self._headers | {name.lower()}

    def is_secret_header(self, name: str) -> bool:
        """A header whose value is always a credential (masked by name)."""
        return name.lower() in self._headers

    # --- primitives ------------------------------------------------------------------
    def text(self, value: str) -> str:
        for form in self._forms:
            if form in value:
                value = value.replace(form, MASK)
        # Key material the run never saw (a server echoing a PEM block) is masked by shape;
        # the pattern needs this literal, so text without it is left unscanned.
        return _PEM_PRIVATE_KEY.sub(MASK, value) if _PEM_MARK in value else value

    def url(self, url: str) -> str:
        parts = urlsplit(url)
        if parts.query:
            pairs = parse_qsl(parts.query, keep_blank_values=True)
            if any(k.lower() in SECRET_PARAMS for k, _ in pairs):
                masked = [(k, MASK if k.lower() in SECRET_PARAMS else v) for k, v in pairs]
                parts = parts._replace(query=urlencode(masked, safe="[],:"))
        return self.text(urlunsplit(parts))

    def headers(self, headers: Headers) -> Headers:
        return Headers(
            [
                (
                    k,
                    MASK
                    if k.lower() in self._headers
                    else self.url(v)
                    if k.lower() in URL_HEADERS
                    else self.text(v),
                )
                for k, v in headers.items()
            ]
        )

    def learn(self, ex: Exchange) -> None:
        """Remember the secret values a raw exchange carries (tokens and codes the server
        issued, parameters the harness sent), so they are masked wherever they reappear:
        in an error message that echoes them, a later URL, a free-text body. Bodies are
        read by what they are (JSON, form data), not by their Content-Type."""
        urls = [ex.url] + [v for k, v in ex.response_headers.items() if k.lower() in URL_HEADERS]
        for url in urls:
            for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
                if key.lower() in SECRET_PARAMS:
                    self.add_secret(value)
        for key, value in ex.request_headers.items():
            if key.lower() == "authorization":
                self.add_secret(value.partition(" ")[2].strip())
        for body in (ex.request_body, ex.body):
            self._learn_body(body)

    def _learn_body(self, body: bytes) -> None:
        if not body or len(body) > _LEARN_MAX:
            return
        text = body.decode("utf-8", "replace")
        if _looks_like_json(text):
            value = parse_json(body)
            if value is not None:
                _learn_json(value, self)
        elif _FORM_BODY.fullmatch(text):
            for key, value in parse_qsl(text.strip(), keep_blank_values=True):
                if key.lower() in SECRET_PARAMS:
                    self.add_secret(value)

    def body(self, body: bytes, content_type: str | None) -> bytes:
        """The body with secrets masked in place: every other byte stays as the server sent
        it (no re-serialisation, no repair of invalid UTF-8), so checks judge real bytes."""
        if not body:
            return body
        media = (content_type or "").split(";", 1)[0].strip().lower()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            # Not UTF-8: mask by bytes and keep every invalid sequence for the checks to see.
            return self._bytes(body)
        # By what the body is, whatever it is labelled (a token response served as text/plain).
        if media == "application/x-www-form-urlencoded" or _FORM_BODY.fullmatch(text):
            text = _FORM_SECRET.sub(lambda m: f"{m.group(1)}={MASK}", text)
        elif media.endswith("json") or _looks_like_json(text):
            text = _JSON_SECRET.sub(lambda m: f"{m.group(1)}{json.dumps(MASK)}", text)
        elif media.endswith("xml"):
            # Elements named like a secret (<wsse:Password>, <access_token>): masked by name,
            # by a pattern on the text rather than a parse, so hostile XML cannot get in the way.
            text = _XML_SECRET_ELEMENT.sub(lambda m: f"{m.group(1)}{MASK}{m.group(3)}", text)
        return self.text(text).encode("utf-8")

    def _bytes(self, body: bytes) -> bytes:
        for form in self._forms:
            body = body.replace(form.encode("utf-8"), MASK.encode())
        return _PEM_PRIVATE_KEY_BYTES.sub(MASK.encode(), body) if _PEM_MARK.encode() in body else body

    # --- the exchange --------------------------------------------------------------------
    def exchange(self, ex: Exchange) -> Exchange:
        return Exchange(
            method=ex.method,
            url=self.url(ex.url),
            request_headers=self.headers(ex.request_headers),
            request_body=self.body(ex.request_body, ex.request_headers.get("content-type")),
            status=ex.status,
            response_headers=self.headers(ex.response_headers),
            body=self.body(ex.body, ex.response_headers.get("content-type")),
            truncated=ex.truncated,
            elapsed_ms=ex.elapsed_ms,
            notes=dict(ex.notes),
        )


def _looks_like_json(text: str) -> bool:
    return text.lstrip()[:1] in ("{", "[")


def _learn_json(value: object, redactor: Redactor) -> None:
    """Every string a member named like a secret holds, at any depth (walked without
    recursion: the parse already bounds the depth, the walk needs no stack of its own)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(k, str) and k.lower() in SECRET_JSON_KEYS and isinstance(v, str):
                    redactor.add_secret(v)
                elif isinstance(v, dict | list):
                    stack.append(v)
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict | list))
