"""Where a client's requests may go, and what they may carry there.

A service's credentials (the API key, a bearer token, a client secret or assertion, HTTP
basic, a client certificate) go only to the base URLs the profile names for that service
(seed 000 part 1: "Base address: `{base_url}`. All paths below are relative to it."). A URL
taken from an answer (a HAL link, a Location) that points elsewhere -- another scheme, host
or port, or a path outside the base path -- is not requested at all: the check that would
follow it is blocked, and the rule about such links judges it (address.hal.links_within_base).

Plain `http://` to a host other than a literal loopback address (127.0.0.0/8, ::1) carries no
credential unless the service's profile section opts in (`allow_plain_http = true`); the
verdict then says so.
"""

from __future__ import annotations

import functools
import ipaddress
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from conformance.errors import ConfigError
from conformance.findings import Blocked

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Base:
    """A base URL: scheme, host, port and the path every request must stay below."""

    scheme: str
    host: str
    port: int
    path: str  # without a trailing slash ("" for the root)

    @classmethod
    def of(cls, url: str) -> Base:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        return cls(scheme, (parts.hostname or "").lower(), _port(parts.port, scheme),
                   _normal_path(parts.path).rstrip("/"))

    def holds(self, url: str) -> bool:
        return _holds(self, url)

    def holds_uncached(self, url: str) -> bool:
        try:
            parts = urlsplit(url)
            port = _port(parts.port, parts.scheme.lower())
        except ValueError:  # a port that is no number: not this base's
            return False
        if (parts.scheme.lower(), (parts.hostname or "").lower(), port) != (self.scheme, self.host, self.port):
            return False
        path = _normal_path(parts.path)
        return not self.path or path == self.path or path.startswith(self.path + "/")

    def __str__(self) -> str:
        default = _DEFAULT_PORTS.get(self.scheme)
        port = "" if self.port == default else f":{self.port}"
        return f"{self.scheme}://{self.host}{port}{self.path}"


class OutsideBase(Blocked):
    """A URL outside every base URL of the client's service: not requested. Raised before
    any byte is sent, so the other origin receives nothing (no key, no token)."""

    def __init__(self, url: str, bases: Iterable[Base]) -> None:
        self.url = url
        where = ", ".join(str(b) for b in bases)
        super().__init__("a URL within the service's base URL",
                         f"{url} is outside {where} (not requested: the service's credentials go only there)")


# A HAL page names the same few URLs in every link, and every exchange of a run is judged:
# the answer per (base, URL) is remembered (pure, and both are small strings).
@functools.lru_cache(maxsize=8192)
def _holds(base: Base, url: str) -> bool:
    return base.holds_uncached(url)


def within(url: str, bases: Iterable[Base]) -> bool:
    return any(base.holds(url) for base in bases)


def is_loopback(host: str) -> bool:
    """Whether `host` is a literal loopback address (127.0.0.0/8, ::1): only then is the
    machine certain. A name, `localhost` and `*.localhost` included, is whatever the resolver
    makes of it (/etc/hosts, a search domain, a DNS server that answers it), maybe the network."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposed_by_plain_http(url: str) -> bool:
    """Whether a credential sent to `url` would cross a network in clear text."""
    parts = urlsplit(url)
    return parts.scheme.lower() == "http" and not is_loopback(parts.hostname or "")


def refuse_plain_http(url: str, key: str) -> None:
    """ConfigError (exit 2) for a credential that would go to `url` in clear text, naming the
    profile key that allows it."""
    raise ConfigError(
        f"{url} is plain http:// to a host that is not a loopback address (127.0.0.0/8, [::1]): the profile's "
        f"secrets would cross the network unencrypted, so none is sent (use https, or set "
        f"{key}.allow_plain_http = true to accept it; the verdict then says so)")


def _port(port: int | None, scheme: str) -> int:
    return port if port is not None else _DEFAULT_PORTS.get(scheme, 0)


def _normal_path(path: str) -> str:
    """The path with dot segments removed (RFC 3986 5.2.4), so `/v2/../admin` is not below `/v2`."""
    if not path:
        return ""
    path = unquote(path)  # a server decodes `%2e%2e` before it resolves the path
    normal = posixpath.normpath(path)
    normal = "/" + normal.lstrip("/")  # normpath keeps a leading '//'
    return normal + ("/" if path.endswith("/") and normal != "/" else "")
