"""Known secret values found in text, in whatever form a server wrote them.

A server may echo a secret as it was sent, percent-encoded (`%2F`), with JSON string
escapes (`\\/` as PHP writes it, `\\u0026` as Go writes it, or every character as
`\\uXXXX`) or with HTML character references; a report viewer (Allure) decodes such forms
back to clear text. So `SecretValues.mask` looks at the decoded form of every run of text
that carries an encoding, and replaces a run that holds a secret by the masked run,
encoded again; every run without one keeps its bytes.

Cost: linear in the text's length, whatever the number of values. Values the profile
configures (API keys, client secrets, passwords: a handful, of any length) are searched
for anywhere (one shorter than SHORT characters only as a word of its own, so a PIN of "12"
does not mask the port of every URL); values learned from traffic (tokens, codes, assertions: thousands in a large
capture) are indexed by their first INDEX_LEN characters and their length (tokens of one
issuer share their first characters: a JWT's header) and looked up only where a word of the
text starts (after a character that is not a letter or digit), so a learned value
glued to letters or digits before it is not seen (a configured one is).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from urllib.parse import quote, quote_plus, unquote

MASK = "[redacted]"
INDEX_LEN = 8
SHORT = 6
# Up to this many learned forms are searched for one by one (C-speed substring search);
# beyond it the index is cheaper.
_SCAN_MAX = 48
# A decoded run is examined for further encodings this deep (`%5Cu0041`: percent, then \u).
_MAX_DEPTH = 3

_WORD_START = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]")
# Runs of text between separators (white space, quotes, angle brackets, `&`) that carry an
# encoding. Each starts right after a separator (the lookbehind), so a failed attempt costs
# one look and the whole pass stays linear; the quantifiers are possessive for the same reason.
_PERCENT_RUN = re.compile(
    r"""(?<![^\s"'<>&])(?:(?:[^\s"'<>&%]|%(?![0-9A-Fa-f]{2}))*+%[0-9A-Fa-f]{2})++(?:[^\s"'<>&%]|%(?![0-9A-Fa-f]{2}))*+""")
_ESCAPE_RUN = re.compile(
    r"""(?<![^\s"'<>])(?:[^\s"'<>\\]*+\\(?:u[0-9A-Fa-f]{4}|[^\s]))++[^\s"'<>\\]*+""")
_CHARREF_RUN = re.compile(
    r"""(?<![^\s"'<>])(?:[^\s"'<>&]*+&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?)++[^\s"'<>&]*+""")
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}(?:\\u[0-9A-Fa-f]{4})?|.)", re.DOTALL)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
# Printable ASCII that a percent-encoded run may carry unencoded (the mask's brackets too).
_PERCENT_SAFE = "".join(chr(c) for c in range(33, 127) if chr(c) not in "%\"'<>\\&")


def json_unescape(run: str) -> str:
    """A run's JSON string escapes decoded (surrogate pairs joined); an unknown escape stays."""
    def one(m: re.Match[str]) -> str:
        body = m.group(1)
        if body[0] == "u" and len(body) > 1:
            units = [int(body[1:5], 16)] + ([int(body[8:12], 16)] if len(body) > 5 else [])
            raw = b"".join(u.to_bytes(2, "big") for u in units)
            # A lone surrogate (hostile input) becomes U+FFFD: nothing built from it fails to encode.
            return raw.decode("utf-16-be", "replace")
        return _SIMPLE_ESCAPES.get(body, m.group(0))
    return _ESCAPE.sub(one, run)


def _json_escape(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    return "".join(c if " " <= c < "\x7f" else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in out)


def forms(value: str) -> set[str]:
    """The ways a value is commonly written as-is: raw, percent- and form-encoded."""
    return {value, quote(value, safe=""), quote_plus(value)}


class SecretValues:
    def __init__(self) -> None:
        self._values: set[str] = set()
        self._scan: list[str] = []  # configured forms, and learned ones that cannot be indexed
        self._short: set[str] = set()  # configured forms shorter than SHORT: whole words only
        self._short_pattern: re.Pattern[str] | None = None
        self._learned: set[str] = set()
        self._index: dict[str, dict[int, set[str]]] = {}  # first characters -> length -> forms
        self._scan_dirty = False

    def add(self, value: str, *, configured: bool) -> None:
        """A configured value counts at any length; a learned one is the caller's to vet
        (conformance/http/redaction.py: at least 6 characters)."""
        if not value or value in self._values:
            return
        self._values.add(value)
        extra = {value.encode("utf-8").decode("latin-1")} if not value.isascii() else set()
        for form in forms(value) | extra:
            if configured and len(form) < SHORT:
                self._short.add(form)
                self._short_pattern = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(
                    re.escape(f) for f in sorted(self._short, key=len, reverse=True)) + r")(?![A-Za-z0-9])")
            elif configured or len(form) < INDEX_LEN or not form[0].isascii() or not form[0].isalnum():
                self._scan.append(form)
                self._scan_dirty = True
            elif form not in self._learned:
                self._learned.add(form)
                self._index.setdefault(form[:INDEX_LEN], {}).setdefault(len(form), set()).add(form)

    # --- masking ------------------------------------------------------------------------
    def mask(self, text: str, depth: int = 0) -> str:
        text = self._mask_plain(text)
        if depth >= _MAX_DEPTH:
            return text
        # Each pass only where the text holds what it decodes: a scan of every run costs far
        # more than the test (a page of addresses has "&" and "%" in its links, rarely an
        # escape or a character reference), and no run decodes where the whole text does not.
        if "%" in text and _PERCENT_ESCAPE.search(text):
            text = _PERCENT_RUN.sub(self._run_masker(unquote, lambda s: quote(s, safe=_PERCENT_SAFE), depth), text)
        if "\\" in text:
            text = _ESCAPE_RUN.sub(self._run_masker(json_unescape, _json_escape, depth), text)
        if "&" in text and html.unescape(text) != text:
            text = _CHARREF_RUN.sub(self._run_masker(html.unescape, html.escape, depth), text)
        return text

    def _run_masker(self, decode: Callable[[str], str], encode: Callable[[str], str],
                    depth: int) -> Callable[[re.Match[str]], str]:
        def masked(m: re.Match[str]) -> str:
            run = m.group(0)
            decoded = decode(run)
            if decoded == run:
                return run
            hidden = self.mask(decoded, depth + 1)
            return run if hidden == decoded else encode(hidden)
        return masked

    def _mask_plain(self, text: str) -> str:
        if self._scan_dirty:
            self._scan.sort(key=len, reverse=True)  # a value inside a longer one never leaves part of it
            self._scan_dirty = False
        for form in self._scan:
            if form in text:
                text = text.replace(form, MASK)
        if self._short_pattern is not None:
            text = self._short_pattern.sub(MASK, text)
        if not self._learned or len(text) < INDEX_LEN:
            return text
        if len(self._learned) <= _SCAN_MAX:
            for form in sorted((f for f in self._learned if f in text), key=len, reverse=True):
                text = text.replace(form, MASK)
            return text
        return self._mask_indexed(text)

    def _mask_indexed(self, text: str) -> str:
        spans: list[tuple[int, int]] = []
        reach = 0
        index = self._index
        for m in _WORD_START.finditer(text):
            start = m.start()
            if start < reach:
                continue
            by_length = index.get(text[start:start + INDEX_LEN])
            if by_length:
                longest = max((n for n, forms in by_length.items() if text[start:start + n] in forms), default=0)
                if longest:
                    spans.append((start, start + longest))
                    reach = start + longest
        if not spans:
            return text
        out, last = [], 0
        for start, end in spans:
            out += (text[last:start], MASK)
            last = end
        out.append(text[last:])
        return "".join(out)
