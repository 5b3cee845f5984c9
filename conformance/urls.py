"""URLs the user hands the harness (a profile's, a command's option), checked before use.

A user name or password in a URL (`https://user:password@host/`) would go with every request
and be written wherever the URL is (summary.json, allurerc.mjs, the Allure report, the
console). The harness takes credentials only from the secrets a profile names, so a profile
URL holding one is refused, and a URL a report writes is written without one. A URL urlsplit
cannot read (`http://[::1/x`) is refused too: every later step would end in a traceback.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from conformance.errors import ConfigError

# `scheme://` and the authority up to its last '@' (RFC 3986 3.2.1, and urlsplit's reading).
# Textual, so that it also strips a URL that urlsplit cannot parse before a message echoes it.
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@")


def has_userinfo(url: str) -> bool:
    return _USERINFO.match(url) is not None


def without_userinfo(url: str) -> str:
    """The URL with its user name and password left out (any other URL unchanged)."""
    return _USERINFO.sub(r"\1", url, count=1)


def unparsable(url: str) -> str | None:
    """Why `url` is no URL with a host (what urlsplit says), or None."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (reading it is the check: a port that is no number or out of range raises)
    except ValueError as exc:  # "Invalid IPv6 URL", "Port out of range 0-65535", ...
        return str(exc)
    return None if parts.hostname else "no host"


def refuse_unusable(url: str, option: str) -> None:
    """ConfigError (exit 2) naming the command's `option` when `url` holds a user name or
    password (it would be written where the URL goes), or is no URL urlsplit can read."""
    why = "a user name or password before its host" if has_userinfo(url) else unparsable(url)
    if why is not None:
        raise ConfigError(f"{option} {without_userinfo(url)}: not a usable URL ({why})")
