"""The one place secrets are masked, before an exchange is stored anywhere.

Everything that reaches a check, Allure, JUnit, a log or the console passes through
`Redactor.exchange()` first; failure texts, tracebacks and captured output pass through
`Redactor.text()` (conformance/pytest_plugin.py). Masking works on three levels:
  * header names that always carry secrets (X-Api-Key, Authorization, cookies);
  * query, fragment, form, JSON member and XML element names that carry secrets (tokens,
    codes, assertions, passwords), in any body, whatever media type it is labelled with
    and however it is encoded (a BOM, UTF-16, a charset parameter; JSON inside an HTML
    page): a token endpoint that serves its JSON as text/plain still carries tokens, and a
    redirect's fragment (`#access_token=...`) is masked like its query;
  * the values of every secret the run knows (configured ones read from the environment,
    of any length; those learned from an exchange: tokens, codes, assertions, Basic
    credentials), wherever they appear and in whatever form a server wrote them: as
    sent, percent-encoded, JSON-escaped (`\\/`, `\\u0026`), as HTML character references
    (conformance/http/secret_forms.py), in the body's own encoding.

`learn()` before `exchange()`: a capture (`conformance traffic`, the proxy) is learned
whole before anything from it is written, so a secret echoed before the request that
carries it is masked too.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, unquote_plus, urlencode, urlsplit, urlunsplit

from conformance.http.exchange import Exchange, Headers
from conformance.http.secret_forms import MASK, SecretValues, json_unescape

SECRET_HEADERS = frozenset(
    {"x-api-key", "authorization", "proxy-authorization", "cookie", "set-cookie"}
)
# Query, fragment and form parameter names. "code" is the OAuth authorization code here:
# the address API has no query parameter of that name. "key" is how some gateways take an
# API key in the query.
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
        "api-key",
        "x-api-key",
        "key",
        "private_key",
    }
)
_PEM_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z ]+ )?PRIVATE KEY-----.*?-----END (?:[A-Z ]+ )?PRIVATE KEY-----", re.DOTALL
)
_PEM_MARK = "PRIVATE KEY-----"  # in every match of _PEM_PRIVATE_KEY
# Not "code": a SOAP fault's or a schema's <code> is no authorization code.
_XML_SECRET_NAMES = "|".join(sorted((SECRET_PARAMS - {"code", "key"}) | {"secret", "token"}))
_XML_SECRET_ELEMENT = re.compile(
    rf"(<(?:[\w.-]+:)?(?:{_XML_SECRET_NAMES})(?:\s[^>]*)?>)([^<]*)(</(?:[\w.-]+:)?(?:{_XML_SECRET_NAMES})\s*>)",
    re.IGNORECASE,
)
# Headers whose value is a URL: their query and fragment are masked like a request URL's
# (a redirect to the client carries the authorization code, or a token in its fragment).
URL_HEADERS = frozenset({"location", "content-location", "refresh"})
# JSON member names. Not "code": problem+json uses it for the error code; not "key".
SECRET_JSON_KEYS = SECRET_PARAMS - {"code", "key"}
# A JSON member named like a secret, with its string value (escapes included).
_JSON_SECRET = re.compile(
    r'("(?:' + "|".join(sorted(SECRET_JSON_KEYS)) + r')"\s*:\s*)"((?:[^"\\]|\\.)*)"', re.IGNORECASE
)
_NAMES = "|".join(re.escape(n) for n in sorted(SECRET_PARAMS))
# A parameter named like a secret where a URL or form data carries one: at the start, or after
# ?, #, & or ; (a link in an HTML page, a redirect written into a body, a form body).
_PARAM_SECRET = re.compile(r"(?:^|(?<=[?#&;]))(" + _NAMES + r")=([^&#\s\"'<>;]*)", re.IGNORECASE)
# A body that is form data as a whole (`a=1&b=2`, no white space).
_FORM_BODY = re.compile(r"[^=&\s]+=[^&\s]*(?:&[^=&\s]+=[^&\s]*)*\s*")
_BASIC = re.compile(r"\bBasic\s+([A-Za-z0-9+/=_-]{4,})", re.IGNORECASE)
# What each pattern above needs to find in a text, folded: a text holding none of them cannot
# match it, which a substring test tells far sooner than the case-insensitive regex scan (a
# 28 KB page of addresses: 4 ms of learning and masking before, 0.2 ms after).
_JSON_NEEDLES = tuple(f'"{name}"' for name in sorted(SECRET_JSON_KEYS))
_PARAM_NEEDLES = tuple(f"{name}=" for name in sorted(SECRET_PARAMS))
_XML_NEEDLES = tuple(_XML_SECRET_NAMES.split("|"))
# Characters re.IGNORECASE matches with "i" that casefold() does not fold to it.
_UNFOLDED_I = ("\u0131", "\u0130")


class _Folded:
    """Which of the secret patterns a text may match, by substring tests on it folded; any
    when it holds a character folding would not bring to what the regexes match."""

    def __init__(self, text: str) -> None:
        self.low = None if any(c in text for c in _UNFOLDED_I) else text.casefold()

    def may(self, needles: tuple[str, ...]) -> bool:
        return self.low is None or any(n in self.low for n in needles)


# Bodies larger than this are not parsed to learn secrets from (a token response is small);
# they are still masked by member name and by every value already learned.
_LEARN_MAX = 1024 * 1024
# A learned value shorter than this would mask innocent text ("test", "null"); a configured
# one (the profile's own secrets) is masked at any length.
LEARNED_MIN = 6


class Redactor:
    def __init__(self, secrets: Iterable[str] = (), *, extra_headers: Iterable[str] = ()) -> None:
        self._values = SecretValues()
        self._headers = SECRET_HEADERS | {h.lower() for h in extra_headers}
        for value in secrets:
            self.add_secret(value)

    def add_secret(self, value: str | None) -> None:
        """A secret the run was given (a key, a client secret, a password): masked at any length."""
        if value:
            self._values.add(value, configured=True)

    def _learned(self, value: str | None) -> None:
        if value and len(value) >= LEARNED_MIN and value != MASK:
            self._values.add(value, configured=False)

    def add_header(self, name: str) -> None:
        self._headers = self._headers | {name.lower()}

    def is_secret_header(self, name: str) -> bool:
        """A header whose value is always a credential (masked by name)."""
        return name.lower() in self._headers

    # --- primitives ------------------------------------------------------------------
    def text(self, value: str) -> str:
        value = self._values.mask(value)
        # Key material the run never saw (a server echoing a PEM block) is masked by shape;
        # the pattern needs this literal, so text without it is left unscanned.
        return _PEM_PRIVATE_KEY.sub(MASK, value) if _PEM_MARK in value else value

    def url(self, url: str) -> str:
        try:
            parts = urlsplit(url)
        except ValueError:  # not a URL a parser takes (`http://[::1/x`): masked as text
            return self.text(_PARAM_SECRET.sub(_mask_param, url))
        query, fragment = _masked_params(parts.query), _masked_params(parts.fragment)
        if (query, fragment) != (parts.query, parts.fragment):
            parts = parts._replace(query=query, fragment=fragment)
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

    # --- learning ------------------------------------------------------------------------
    def learn(self, ex: Exchange) -> None:
        """Remember the secret values a raw exchange carries (tokens and codes the server
        issued, credentials the client sent), so they are masked wherever they reappear:
        in an error message that echoes them, a later URL, a free-text body. Bodies are
        read by what they are (JSON, form data, XML, a page holding either), in their own
        encoding, not by their Content-Type."""
        for url in [ex.url] + [v for k, v in ex.response_headers.items() if k.lower() in URL_HEADERS]:
            self._learn_text(url)
        for key, value in ex.request_headers.items():
            if key.lower() in self._headers:
                self._learn_credential(value)
        self._learn_body(ex.request_body, ex.request_headers.get("content-type"))
        self._learn_body(ex.body, ex.response_headers.get("content-type"))

    def _learn_credential(self, value: str) -> None:
        scheme, _, credential = value.strip().partition(" ")
        if not credential:  # a bare value: an API key header
            self._learned(scheme)
            return
        credential = credential.strip()
        self._learned(credential)
        if scheme.lower() == "basic":
            self._learn_basic(credential)

    def _learn_basic(self, credential: str) -> None:
        """RFC 7617: base64 of user-id ":" password; the password is the secret (and with the
        id, what a server echoing the decoded header would show)."""
        try:
            decoded = base64.b64decode(credential + "=" * (-len(credential) % 4), validate=False).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return
        user, colon, password = decoded.partition(":")
        if colon and decoded.isprintable():
            self._learned(credential)
            self._learned(decoded)
            self._learned(password)
            # An OAuth client's Basic credentials are form-encoded first (RFC 6749 2.3.1).
            self._learned(unquote_plus(password))

    def _learn_body(self, body: bytes, content_type: str | None) -> None:
        if not body or len(body) > _LEARN_MAX:
            return
        decoded = decode_body(body, content_type)
        text = decoded[0] if decoded is not None else body.decode("latin-1")
        self._learn_text(text)

    def _learn_text(self, text: str) -> None:
        """Secret-named JSON members, parameters and XML elements anywhere in the text, and in
        its decoded forms (JSON quoted inside a JSON string, HTML-escaped in a page)."""
        seen = {text}
        variants = [text]
        for decode, mark in ((json_unescape, "\\"), (html.unescape, "&"), (_unquote, "%")):
            for variant in list(variants):
                if mark in variant:
                    other = decode(variant)
                    if other not in seen:
                        seen.add(other)
                        variants.append(other)
        for variant in variants:
            folded = _Folded(variant)
            if folded.may(_JSON_NEEDLES):
                for m in _JSON_SECRET.finditer(variant):
                    self._learned(json_unescape(m.group(2)))
            if folded.may(_PARAM_NEEDLES):
                for m in _PARAM_SECRET.finditer(variant):
                    self._learned(_unquote(m.group(2)))
            if "<" in variant and folded.may(_XML_NEEDLES):
                for m in _XML_SECRET_ELEMENT.finditer(variant):
                    self._learned(html.unescape(m.group(2)).strip())
            if folded.may(("basic",)):
                for m in _BASIC.finditer(variant):  # an echoed Authorization header
                    self._learn_basic(m.group(1))

    # --- bodies ----------------------------------------------------------------------------
    def body(self, body: bytes, content_type: str | None) -> bytes:
        """The body with secrets masked in place, in the body's own encoding: every other byte
        stays as the server sent it (no re-serialisation, no repair of invalid sequences), so
        checks judge real bytes; a body with nothing to mask is returned as it came."""
        if not body:
            return body
        decoded = decode_body(body, content_type)
        if decoded is None:
            # No text in any encoding it names or shows: read byte for byte (Latin-1 maps each
            # byte to one character and back), so every invalid sequence stays for the checks.
            text = body.decode("latin-1")
            masked = self._masked_text(text)
            return body if masked == text else masked.encode("latin-1", "xmlcharrefreplace")
        text, encoding = decoded
        masked = self._masked_text(text)
        return body if masked == text else masked.encode(encoding, "xmlcharrefreplace")

    def _masked_text(self, text: str) -> str:
        # By what the body is, whatever it is labelled (a token response served as text/plain,
        # JSON inside a page): secret-named members, parameters and elements, then values.
        folded = _Folded(text)
        if '"' in text and folded.may(_JSON_NEEDLES):
            text = _JSON_SECRET.sub(lambda m: f'{m.group(1)}"{MASK}"', text)
        if "=" in text and folded.may(_PARAM_NEEDLES):
            # A form body keeps the mask as written; in a URL written into other text it is
            # percent-encoded, so the URL stays a URI reference (a problem's instance) and
            # reads "[redacted]" decoded.
            text = _PARAM_SECRET.sub(_mask_param if _FORM_BODY.fullmatch(text) else _mask_param_in_url, text)
        if "<" in text and folded.may(_XML_NEEDLES):
            # Elements named like a secret (<wsse:Password>, <access_token>): masked by name,
            # by a pattern on the text rather than a parse, so hostile XML cannot get in the way.
            text = _XML_SECRET_ELEMENT.sub(lambda m: f"{m.group(1)}{MASK}{m.group(3)}", text)
        return self.text(text)

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


def decode_body(body: bytes, content_type: str | None) -> tuple[str, str] | None:
    """(text, encoding) of a body: by its byte order mark, else by the NUL bytes of UTF-16
    ASCII (RFC 4627 3), else by the charset it is labelled with, else UTF-8. The mark stays
    in the text (U+FEFF), so encoding the text again gives the same bytes. None: not text
    in that encoding."""
    if body.startswith(codecs.BOM_UTF8):
        encoding = "utf-8"
    elif body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and len(body) % 2 == 0:
        encoding = "utf-16-le" if body.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
    elif len(body) >= 4 and len(body) % 2 == 0 and (body[0] == 0) != (body[1] == 0) and (body[2] == 0) != (body[3] == 0):
        encoding = "utf-16-be" if body[0] == 0 else "utf-16-le"
    else:
        encoding = _charset(content_type) or "utf-8"
    try:
        return body.decode(encoding), encoding
    except (UnicodeDecodeError, LookupError):
        return None


def _charset(content_type: str | None) -> str | None:
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            value = value.strip().strip('"').lower()
            try:
                codec = codecs.lookup(value).name
            except LookupError:
                return None
            # UTF-16 without a byte order mark is big-endian (RFC 2781 4.3).
            return {"utf-16": "utf-16-be", "utf-32": "utf-32-be"}.get(codec, codec)
    return None


def _unquote(value: str) -> str:
    return unquote_plus(value) if "+" in value or "%" in value else value


def _mask_param(m: re.Match[str]) -> str:
    return f"{m.group(1)}={MASK}"


def _mask_param_in_url(m: re.Match[str]) -> str:
    return f"{m.group(1)}={quote(MASK)}"


def _masked_params(part: str) -> str:
    """A query or fragment with the values of secret-named parameters masked; as it was when
    it has none."""
    if not part or "=" not in part:
        return part
    pairs = parse_qsl(part, keep_blank_values=True)
    if not any(k.lower() in SECRET_PARAMS for k, _ in pairs):
        return part
    return urlencode([(k, MASK if k.lower() in SECRET_PARAMS else v) for k, v in pairs], safe="[],:")
