"""Load the address API's OpenAPI description for a profile.

A deployment may name the seed's `Registry-…` headers differently; the description is
adapted to the profile's names before schemathesis sees it, so that header conformance
is judged against what the deployment is configured to send.

schemathesis gets the description self-contained: every reference to another document, and
every `externalValue`, is resolved here, within the profile's folder or on the description
URL's origin, and through the bounded HTTP layer; YAML aliases are refused, and so is a
description that would pass a million nodes with its local references inlined
(conformance/openapi/references.py).
"""

from __future__ import annotations

import json
import os
import ssl
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from conformance.errors import ConfigError
from conformance.http import limits as bounds
from conformance.http.limits import Limits
from conformance.openapi.references import MAX_TOTAL_BYTES, Bundler, decode, too_large
from conformance.profiles import AddressService, Trust

MAX_DESCRIPTION_BYTES = MAX_TOTAL_BYTES  # the description and every document it refers to, together


def load_description(service: AddressService, *, root: Path | None = None) -> dict[str, Any]:
    """The profile's description, parsed exactly as schemathesis parses one (YAML 1.2
    scalars: an unquoted `example: 2024-01-31` stays a string), and self-contained: every
    reference to another document resolved here, within `root` (the profile's folder; by
    default the description's own) or on the description URL's origin, through the bounded
    HTTP layer (conformance/openapi/references.py). ConfigError (exit 2) names the file or
    reference and the reason when it cannot be read or is refused."""

    def fetch(url: str, max_bytes: int, subject: str) -> str:
        return _fetch(url, service.timeout_s, trust=service.trust, max_bytes=max_bytes, subject=subject)

    if root is None and service.profile_dir:
        root = Path(service.profile_dir)
    key = (str(service.openapi), str(root), service.registry_prefix)
    if (parsed := _PARSED.get(key)) is not None and parsed[0] == _file_states(f for f, _, _ in parsed[0]):
        return json.loads(parsed[1])
    bundler = Bundler(service.openapi, root=root, fetch=fetch)
    raw = bundler.load()
    raw = rename_registry_headers(raw, service.registry_prefix) if service.registry_prefix != "Registry-" else raw
    if not bundler.remote:
        text = json.dumps(raw)
        if json.loads(text) == raw:  # only what JSON keeps as it is (no NaN, no number as a key)
            _PARSED[key] = (_file_states(bundler.documents), text)
    return raw


# A run reads its description several times in each of its processes (the run's check of it,
# the samples, the response schemas, the fuzzing and its seed view): a local one is parsed
# once per process while none of its files changed, and kept as JSON text, so that every
# caller gets a copy of its own (about 0.05 s a time; once, 1 ms).
_PARSED: dict[tuple[str, str, str], tuple[tuple[tuple[str, int, int], ...], str]] = {}


def _file_states(paths: Any) -> tuple[tuple[str, int, int], ...]:
    states = []
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            return ()
        states.append((path, stat.st_mtime_ns, stat.st_size))
    return tuple(states)


def _fetch(url: str, timeout_s: float, *, trust: Trust | None = None, max_bytes: int = MAX_DESCRIPTION_BYTES,
           subject: str | None = None) -> str:
    """The document at `url`, through the bounded HTTP layer: a deadline, at most `max_bytes`
    (as received and decoded), no proxy or `.netrc` from the environment, and no redirect
    followed; `trust`: the address API's (its CA file, its pinned keys: the description URL is
    the service's). ConfigError otherwise, "<subject> cannot be fetched: <why>"."""
    subject = subject or f"the OpenAPI description {url} (services.address.openapi)"
    trust = trust or Trust("services.address")
    cap = Limits(deadline_s=timeout_s, max_body_bytes=max_bytes, max_decoded_bytes=max_bytes)
    why, body = None, b""
    try:
        tls = ssl.create_default_context(cafile=trust.ca_file) if trust.ca_file else True
        with httpx.Client(timeout=timeout_s, trust_env=False, follow_redirects=False,
                          transport=bounds.transport(trust_env=False, verify=tls)) as client, \
                bounds.deadline(timeout_s, pins=trust.pins), client.stream("GET", url) as response:
            if 300 <= response.status_code < 400:
                location = response.headers.get("location")
                why = (f"HTTP {response.status_code}" + (f", a redirect to {location}" if location else "")
                       + ": redirects are not followed; give the final URL")
            elif response.status_code != 200:
                why = f"HTTP {response.status_code}"
            else:
                body = bounds.read_body(response, cap, url)
    except bounds.HttpViolation as exc:
        why = too_large(max_bytes) if exc.kind in ("body", "decoded") else str(exc)
    except httpx.HTTPError as exc:
        bounds.refuse_untrusted(exc, url, trust)
        why = f"{type(exc).__name__}: {exc}"
    except (ssl.SSLError, OSError) as exc:
        why = f"{type(exc).__name__}: {exc}"
    if why is not None:
        raise ConfigError(f"{subject} cannot be fetched: {why}")
    return decode(body, subject)


def load_schema(service: AddressService, base_url: str, *, seed_only: bool = False, root: Path | None = None) -> Any:
    """The schemathesis schema of the profile's description, its paths relative to `base_url`;
    with `seed_only`, its seed view (the constraints marked public behaviour taken out:
    conformance/openapi/seed_view.py). `root`: as for `load_description`."""
    import schemathesis

    from conformance.openapi.operations import relative_to_base
    from conformance.openapi.seed_view import seed_view

    raw = relative_to_base(load_description(service, root=root), urlsplit(base_url).path)
    if seed_only:
        raw = seed_view(raw)
    try:
        schema = schemathesis.openapi.from_dict(raw)
        list(schema.get_all_operations())  # resolves every operation: a broken $ref shows here
    except Exception as exc:  # schemathesis's own loading errors have no common base class
        raise ConfigError(f"OpenAPI description {service.openapi} cannot be loaded: {type(exc).__name__}: {exc}") from None
    return schema


def rename_registry_headers(node: Any, prefix: str) -> Any:
    if isinstance(node, dict):
        return {
            (prefix + k[len("Registry-"):] if isinstance(k, str) and k.startswith("Registry-") else k): rename_registry_headers(v, prefix)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [rename_registry_headers(v, prefix) for v in node]
    return node
