"""Load the address API's OpenAPI description for a profile.

A deployment may name the seed's `Registry-…` headers differently; the description is
adapted to the profile's names before schemathesis sees it, so that header conformance
is judged against what the deployment is configured to send.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import yaml

from conformance.errors import ConfigError
from conformance.profiles import AddressService

MAX_DESCRIPTION_BYTES = 5 * 1024 * 1024


def load_description(service: AddressService) -> dict[str, Any]:
    source = service.openapi
    if source.startswith(("http://", "https://")):
        try:
            response = httpx.get(source, timeout=service.timeout_s, trust_env=False)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise ConfigError(f"cannot fetch the OpenAPI description {source}: {exc}") from None
        text = response.text[:MAX_DESCRIPTION_BYTES]
    else:
        text = Path(source).read_text(encoding="utf-8")
    try:
        raw = yaml.safe_load(text)  # safe_load: no arbitrary tags, no object construction
    except yaml.YAMLError as exc:
        raise ConfigError(f"OpenAPI description {source} is not valid YAML/JSON: {exc}") from None
    if not isinstance(raw, dict) or "openapi" not in raw:
        raise ConfigError(f"{source} is not an OpenAPI description (no 'openapi' member)")
    return rename_registry_headers(raw, service.registry_prefix) if service.registry_prefix != "Registry-" else raw


def rename_registry_headers(node: Any, prefix: str) -> Any:
    if isinstance(node, dict):
        return {
            (prefix + k[len("Registry-"):] if isinstance(k, str) and k.startswith("Registry-") else k): rename_registry_headers(v, prefix)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [rename_registry_headers(v, prefix) for v in node]
    return node
