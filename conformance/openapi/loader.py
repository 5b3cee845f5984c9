"""Load the address API's OpenAPI description for a profile.

A deployment may name the seed's `Registry-…` headers differently; the description is
adapted to the profile's names before schemathesis sees it, so that header conformance
is judged against what the deployment is configured to send.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import yaml
from schemathesis.core.deserialization import get_yaml_loader

from conformance.errors import ConfigError
from conformance.http import limits as bounds
from conformance.http.limits import Limits
from conformance.profiles import AddressService

MAX_DESCRIPTION_BYTES = 5 * 1024 * 1024


def load_description(service: AddressService) -> dict[str, Any]:
    """The profile's description, parsed exactly as schemathesis parses one (YAML 1.2
    scalars: an unquoted `example: 2024-01-31` stays a string). ConfigError (exit 2) names
    the file and the parser's message when it cannot be read."""
    source = service.openapi
    if source.startswith(("http://", "https://")):
        text = _fetch(source, service.timeout_s)
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read the OpenAPI description {source} (services.address.openapi): {exc}") from None
    try:
        # schemathesis's loader is a yaml.SafeLoader: no arbitrary tags, no object construction.
        raw = yaml.load(text, Loader=get_yaml_loader())  # noqa: S506
    except yaml.YAMLError as exc:
        raise ConfigError(f"OpenAPI description {source} is not valid YAML/JSON: {exc}") from None
    if not isinstance(raw, dict) or "openapi" not in raw:
        raise ConfigError(f"{source} is not an OpenAPI 3 description (no 'openapi' member)")
    return rename_registry_headers(raw, service.registry_prefix) if service.registry_prefix != "Registry-" else raw


def _fetch(url: str, timeout_s: float) -> str:
    """The description at `url`, through the bounded HTTP layer (deadline, size caps)."""
    cap = Limits(deadline_s=timeout_s, max_body_bytes=MAX_DESCRIPTION_BYTES, max_decoded_bytes=MAX_DESCRIPTION_BYTES)
    try:
        with httpx.Client(timeout=timeout_s, trust_env=False, transport=bounds.transport(trust_env=False)) as client, \
                bounds.deadline(timeout_s), client.stream("GET", url) as response:
            body = bounds.read_body(response, cap, url)
            if response.status_code != 200:
                raise ConfigError(f"cannot fetch the OpenAPI description {url}: HTTP {response.status_code}")
    except (httpx.HTTPError, bounds.HttpViolation) as exc:
        raise ConfigError(f"cannot fetch the OpenAPI description {url}: {exc}") from None
    return body.decode("utf-8", errors="strict") if body else ""


def load_schema(service: AddressService, base_url: str, *, seed_only: bool = False) -> Any:
    """The schemathesis schema of the profile's description, its paths relative to `base_url`;
    with `seed_only`, its seed view (the constraints marked public behaviour taken out:
    conformance/openapi/seed_view.py)."""
    import schemathesis

    from conformance.openapi.operations import relative_to_base
    from conformance.openapi.seed_view import seed_view

    raw = relative_to_base(load_description(service), urlsplit(base_url).path)
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
