"""The character encoding of an answer: does its label say what its bytes are?

SOAP 1.1 over HTTP uses text/xml, whose charset parameter is authoritative and defaults to
us-ascii when absent (RFC 3023 3.1). An envelope is UTF-8 or UTF-16 (BP R1012) and its
charset names the encoding it really has (SSBP R1018); a UTF-16 entity begins with its byte
order mark (XML 1.0 4.3.3). The XML declaration is no authority next to the charset, but a
declaration naming another encoding misleads whoever reads the body without its headers.

Nothing here parses the body: the bytes are decoded strictly (never repaired), and the
declaration is read from the first bytes.
"""

from __future__ import annotations

import codecs
import re

from conformance.checks.soap.messages import check_processed, read_fault
from conformance.findings import Finding, expect
from conformance.http.exchange import Exchange
from conformance.soap.loader import ServiceContract
from conformance.soap.validate import content_type_parts

RFC3023_DEFAULT = "us-ascii"
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_DECLARATION = re.compile(r"""^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def _codec(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def charset_of(exchange: Exchange) -> str:
    """The charset the Content-Type names, lower case; us-ascii when it names none."""
    _media, params = content_type_parts(exchange.response_headers.get("content-type"))
    return params.get("charset", "").lower() or RFC3023_DEFAULT


def check_charset_matches_body(exchange: Exchange) -> None:
    """The bytes decode in the labelled charset (strictly), a UTF-16 body starts with its BOM,
    and, labelled XML, what they decode to is XML text: no NUL character, markup first."""
    if not exchange.body:
        return
    charset = charset_of(exchange)
    label = exchange.response_headers.get("content-type") or "no Content-Type"
    codec = _codec(charset)
    expect(codec is not None, "the answer's charset is not an encoding the harness knows", actual=label)
    assert codec is not None
    if codec == "utf-16":
        expect(exchange.body.startswith(_UTF16_BOMS), "the answer is labelled UTF-16 but does not begin with a "
               "byte order mark (XML 1.0 4.3.3)", expected="FF FE or FE FF first", actual=f"{exchange.body[:8]!r}")
    try:
        text = exchange.body.decode(codec)
    except UnicodeDecodeError as exc:
        raise _mismatch(label, f"byte {exc.start} ({exchange.body[exc.start:exc.start + 4]!r}) is not {charset}") from None
    text = text.lstrip("\ufeff")
    media, _params = content_type_parts(exchange.response_headers.get("content-type"))
    if not media.endswith("xml"):
        return  # not labelled XML: its media type is soap.response.content_type's finding
    if "\x00" in text:
        raise _mismatch(label, f"decoded as {charset} it holds NUL characters, no XML text "
                              f"(the bytes begin {exchange.body[:12]!r})")
    if not text.lstrip().startswith("<"):
        raise _mismatch(label, f"decoded as {charset} it does not begin with markup ({text[:20]!r})")


def _mismatch(label: str, what: str) -> Finding:
    return Finding("the answer's bytes are not in the encoding its charset names", expected=label, actual=what)


def declared_encoding(body: bytes) -> str:
    """The encoding the body declares: its XML declaration's, else XML 1.0's default (UTF-16
    after a UTF-16 byte order mark, UTF-8 otherwise)."""
    utf16 = body.startswith(_UTF16_BOMS)
    head = body[:400].decode("utf-16" if utf16 else "latin-1", errors="replace").lstrip("\ufeff")
    found = _DECLARATION.match(head)
    return found.group(1).lower() if found else ("utf-16" if utf16 else "utf-8")


def check_declaration_agrees(exchange: Exchange) -> None:
    """An answer whose Content-Type names a charset declares that same encoding."""
    _media, params = content_type_parts(exchange.response_headers.get("content-type"))
    if not exchange.body or not params.get("charset"):
        return  # a missing charset is soap.response.content_type's finding
    declared = declared_encoding(exchange.body)
    charset = params["charset"].lower()
    expect(_codec(declared) == _codec(charset), "the XML declaration names another encoding than the charset",
           expected=f"encoding={charset!r} (or none, for utf-8)", actual=f"declared {declared!r} in {exchange.body[:60]!r}")


# ------------------------------------------------------------------------------ a UTF-16 request
def check_understood(exchange: Exchange, control: Exchange, contract: ServiceContract) -> None:
    """The answer to a UTF-16 request: the answer its UTF-8 original got (the control), or a
    SOAP 1.1 Fault with HTTP 500; either in bytes that match its charset. Anything else is
    garbage."""
    if exchange.status == 200:
        check_processed(exchange, control, contract, what="a UTF-16 request answered with HTTP 200")
    else:
        expect(exchange.status == 500, "a UTF-16 request was answered with neither a response nor a Fault",
               expected="200 with a response, or 500 with a Fault", actual=exchange.summary())
        read_fault(exchange)
    check_charset_matches_body(exchange)
