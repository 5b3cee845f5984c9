"""The seed's operations, found in any OpenAPI description by method and path template.

A vendor's description may give operations other ids and parameters other names
(`/adressen/{id}` or `/adressen/{nummeraanduidingIdentificatie}`): an operation is the
seed's when its method and its path template relative to the base URL match, whatever it
is called. Operations outside the seed get schemathesis's own checks only.
"""

from __future__ import annotations

import re
from typing import Any

# operation name in the seed (part 4) -> path template relative to {base_url}; all GET.
SEED_OPERATIONS = {
    "zoekAdresseerbareObjecten": "/adresseerbareobjecten",
    "bevragenAdresseerbaarObject": "/adresseerbareobjecten/{id}",
    "bevragenAdresseerbaarObjectLvc": "/adresseerbareobjecten/{id}/lvc",
    "bevraagAdressen": "/adressen",
    "zoek": "/adressen/zoek",
    "bevraagAdressenMetNumId": "/adressen/{id}",
    "zoekAdresUitgebreid": "/adressenuitgebreid",
    "bevraagAdresUitgebreidMetNumId": "/adressenuitgebreid/{id}",
    "zoekBronhouder": "/bronhouders",
}
_PARAM = re.compile(r"\{[^}/]+\}")


def template_key(path: str) -> str:
    """`/adressen/{nummeraanduidingIdentificatie}/` -> `/adressen/{}`."""
    return _PARAM.sub("{}", path).rstrip("/") or "/"


_SEED_KEYS = {template_key(path): name for name, path in SEED_OPERATIONS.items()}


def seed_operation(method: str, path: str) -> str | None:
    """The seed's name of an operation of a description (template relative to the base), or None.

    A literal segment wins over a parameter: `/adressen/zoek` is `zoek`, not the address
    lookup with id "zoek", exactly as the seed lists them."""
    if method.upper() != "GET":
        return None
    return _SEED_KEYS.get(template_key(path))


# Concrete request paths (`/adressen/0363200000123456`), literal segments first (`/adressen/zoek`).
_CONCRETE = sorted(
    ((re.compile("^" + re.escape(template_key(path)).replace(re.escape("{}"), "[^/]+") + "/?$"), name)
     for name, path in SEED_OPERATIONS.items()),
    key=lambda pair: pair[0].pattern.count("[^/]+"),
)


def operation_of_request(path: str) -> str | None:
    """The seed's operation a request path (relative to the base URL) addresses, or None."""
    return next((name for regex, name in _CONCRETE if regex.match(path)), None)


def path_regex(template: str) -> str:
    """A regex for schemathesis's `include(path_regex=...)`: the template with any parameter name."""
    key = template_key(template)
    return "^" + re.escape(key).replace(re.escape("{}"), r"\{[^/}]+\}") + "/?$"


def is_seed_operation(ctx: Any) -> bool:
    """A schemathesis filter function (`exclude(func=...)`)."""
    return seed_operation(ctx.operation.method, ctx.operation.path) is not None


def described_operations(description: dict[str, Any]) -> list[tuple[str, str]]:
    """(METHOD, path) of every operation a description has."""
    methods = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
    return [(method.upper(), path) for path, item in (description.get("paths") or {}).items()
            if isinstance(item, dict) for method in item if method in methods]


def has_links(description: dict[str, Any]) -> bool:
    """Whether any response declares OpenAPI links (what the stateful test follows)."""
    for item in (description.get("paths") or {}).values():
        for operation in (item or {}).values() if isinstance(item, dict) else ():
            responses = operation.get("responses") if isinstance(operation, dict) else None
            for response in (responses or {}).values():
                if isinstance(response, dict) and response.get("links"):
                    return True
    return bool((description.get("components") or {}).get("links"))


def relative_to_base(description: dict[str, Any], base_path: str) -> dict[str, Any]:
    """A description whose paths repeat the base URL's path (servers: the host only, paths
    `/lvbag/.../v2/adressen`) is rewritten to paths relative to the base URL."""
    prefix = base_path.rstrip("/")
    paths = description.get("paths") or {}
    if not prefix or not paths or not all(p.startswith(prefix + "/") for p in paths):
        return description
    return {**description, "paths": {p[len(prefix):]: item for p, item in paths.items()}}
