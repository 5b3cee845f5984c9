"""Fetching a client's JWKS from the URI it registered (seed part 4, inquiry step 2).

Only the registered `jwks_uri` is ever fetched, with httpx, at most 64 KiB, within 5 s,
without following redirects or environment proxies. Documents are cached per URI for a
while (read from the mock clock); the validator asks for one re-fetch on an unknown kid,
so a freshly rotated key is found.
"""

from __future__ import annotations

import asyncio
import functools
import json
import ssl
from collections.abc import Callable
from typing import Any

import certifi
import httpx

MAX_BYTES = 64 * 1024
TIMEOUT_S = 5.0
CACHE_TTL_S = 300.0
MAX_KEYS = 20


class JwksError(Exception):
    """The JWKS could not be fetched or is not a JWKS; the message is safe to show."""


class JwksCache:
    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self._entries: dict[str, tuple[float, list[dict[str, Any]]]] = {}

    async def keys(self, uri: str, *, refresh: bool = False) -> list[dict[str, Any]]:
        entry = self._entries.get(uri)
        if entry is not None and not refresh and self._now() - entry[0] < CACHE_TTL_S:
            return entry[1]
        keys = await fetch_keys(uri)
        self._entries[uri] = (self._now(), keys)
        return keys


async def fetch_keys(uri: str) -> list[dict[str, Any]]:
    try:
        async with asyncio.timeout(TIMEOUT_S):
            body = await _get(uri)
    except TimeoutError:
        raise JwksError(f"the JWKS was not fetched within {TIMEOUT_S:g} s") from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise JwksError(f"the JWKS could not be fetched ({type(exc).__name__})") from None
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise JwksError("the JWKS is not JSON") from None
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list) or not all(isinstance(k, dict) for k in keys):
        raise JwksError("the JWKS has no array `keys` of objects")
    if len(keys) > MAX_KEYS:
        raise JwksError(f"the JWKS has more than {MAX_KEYS} keys")
    return keys


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context for every fetch (building one costs more than the fetch)."""
    return ssl.create_default_context(cafile=certifi.where())


async def _get(uri: str) -> bytes:
    headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
    async with (
        httpx.AsyncClient(timeout=TIMEOUT_S, verify=_tls(), trust_env=False, follow_redirects=False) as client,
        client.stream("GET", uri, headers=headers) as response,
    ):
        if response.status_code != 200:
            raise JwksError(f"the JWKS URI answered {response.status_code}")
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_BYTES:
                raise JwksError(f"the JWKS is larger than {MAX_BYTES} bytes")
        return bytes(body)
