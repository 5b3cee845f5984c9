"""RFC 3986's URI-reference, as a strict regular expression of its grammar (Appendix A).

Why a regex: no RFC 3986 parser is among the harness's dependencies (rfc3986, rfc3987 are
not installed), and the parsers at hand are lenient on purpose: urllib.parse.urlsplit
accepts any string, spaces and all. The grammar is regular, so each ABNF rule below is
one named piece, written the way Appendix A writes it; tests/test_uri_reference.py holds
RFC 3986's own examples (sections 1.1.2 and 5.4) and strings it refuses.
"""

from __future__ import annotations

import re

_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_SEGMENT = rf"{_PCHAR}*"
_SEGMENT_NZ = rf"{_PCHAR}+"
_SEGMENT_NZ_NC = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}@]|{_PCT})+"  # no colon

_SCHEME = r"[A-Za-z][A-Za-z0-9+\-.]*"
_USERINFO = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*"
_DEC_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = rf"{_DEC_OCTET}(?:\.{_DEC_OCTET}){{3}}"
_H16 = r"[0-9A-Fa-f]{1,4}"
_LS32 = rf"(?:{_H16}:{_H16}|{_IPV4})"
_IPV6 = "(?:" + "|".join([
    rf"(?:{_H16}:){{6}}{_LS32}",
    rf"::(?:{_H16}:){{5}}{_LS32}",
    rf"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
    rf"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
    rf"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
    rf"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
    rf"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
    rf"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
    rf"(?:(?:{_H16}:){{0,6}}{_H16})?::",
]) + ")"
_IPVFUTURE = rf"v[0-9A-Fa-f]+\.[{_UNRESERVED}{_SUB_DELIMS}:]+"
_IP_LITERAL = rf"\[(?:{_IPV6}|{_IPVFUTURE})\]"
_REG_NAME = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})*"  # IPv4address is a reg-name too
_HOST = rf"(?:{_IP_LITERAL}|{_REG_NAME})"
_AUTHORITY = rf"(?:{_USERINFO}@)?{_HOST}(?::[0-9]*)?"

_PATH_ABEMPTY = rf"(?:/{_SEGMENT})*"
_PATH_ABSOLUTE = rf"/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?"
_PATH_NOSCHEME = rf"{_SEGMENT_NZ_NC}(?:/{_SEGMENT})*"
_PATH_ROOTLESS = rf"{_SEGMENT_NZ}(?:/{_SEGMENT})*"
_QUERY = rf"(?:{_PCHAR}|[/?])*"  # fragment has the same grammar

_HIER_PART = rf"(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_PATH_ROOTLESS}|)"
_RELATIVE_PART = rf"(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_PATH_NOSCHEME}|)"
_TAIL = rf"(?:\?{_QUERY})?(?:#{_QUERY})?"
_URI = rf"{_SCHEME}:{_HIER_PART}{_TAIL}"
_RELATIVE_REF = rf"{_RELATIVE_PART}{_TAIL}"

URI_REFERENCE = re.compile(rf"(?:{_URI}|{_RELATIVE_REF})")


def is_uri_reference(value: object) -> bool:
    """RFC 3986 section 4.1: URI-reference = URI / relative-ref (a string, nothing around it)."""
    return isinstance(value, str) and URI_REFERENCE.fullmatch(value) is not None
