"""URLs the user hands the harness (a profile's, a command's option), checked before use.

A user name or password in a URL (`https://user:password@host/`) would go with every request
and be written wherever the URL is (summary.json, allurerc.mjs, the Allure report, the
console). The harness takes credentials only from the secrets a profile names, so a profile
URL holding one is refused, and a URL a report writes is written without one.
"""

from __future__ import annotations

import re

# `scheme://` and the authority up to its last '@' (RFC 3986 3.2.1, and urlsplit's reading).
# Textual, so that it also strips a URL that urlsplit cannot parse before a message echoes it.
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@")


def has_userinfo(url: str) -> bool:
    return _USERINFO.match(url) is not None


def without_userinfo(url: str) -> str:
    """The URL with its user name and password left out (any other URL unchanged)."""
    return _USERINFO.sub(r"\1", url, count=1)
