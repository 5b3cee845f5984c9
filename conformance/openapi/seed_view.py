"""What of an OpenAPI description the seed states, and what only public behaviour adds.

The shipped description (conformance/openapi/address-v2.yaml) is more precise than the seed:
identifier patterns, the allowed values of Gebruiksdoel, the expand grammar and the fields of
the HAL resources come from the public behaviour reference (bag-api.md), where the seed says
"not shown" (part 2: "Fields of the HAL resources and their embedded parts: not shown beyond
the schema names above", "Formats of the identifier types, and the allowed values of
Gebruiksdoel: not shown"). A server that breaks such a constraint deviates from public
behaviour (SHOULD), not from the seed (MUST).

The description marks those constraints with the vendor extension

    x-conformance-source: public

on a schema object (a component or an inline schema) or on a parameter object. A mark covers
the object's whole subtree, `$ref`s included: mark the smallest node, and split a schema into
`allOf` parts where only some of its constraints are public. Everything unmarked is the seed's.

`seed_view(raw)` is the description with every marked constraint taken out: a marked schema
keeps only its `type` (an identifier stays a string, a HAL resource an object), a marked
parameter keeps its name, place and its schema's type. The checks judge an answer or a
request twice: against the seed view (a violation is a MUST finding) and against the whole
description (a violation the seed view does not show is a SHOULD finding).

A description without any mark (a vendor's own, `[services.address] openapi`) is the
vendor's contract as a whole: its seed view is itself, every violation a MUST finding, and
the public-behaviour checks do not apply.
"""

from __future__ import annotations

import copy
from typing import Any

MARK = "x-conformance-source"
PUBLIC = "public"
_KEPT = ("type", "nullable", "description")


def is_public(node: Any) -> bool:
    return isinstance(node, dict) and node.get(MARK) == PUBLIC


def has_marks(raw: Any) -> bool:
    """Whether the description marks anything as public behaviour."""
    if is_public(raw):
        return True
    if isinstance(raw, dict):
        return any(has_marks(v) for v in raw.values())
    if isinstance(raw, list):
        return any(has_marks(v) for v in raw)
    return False


def seed_view(raw: dict[str, Any]) -> dict[str, Any]:
    """The description with every constraint marked public taken out (a copy; the input is
    left as it is). Unmarked descriptions come back unchanged (as a copy)."""
    return _strip(copy.deepcopy(raw), raw)


def _strip(node: Any, root: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_strip(v, root) for v in node]
    if not isinstance(node, dict):
        return node
    if is_public(node):
        if "in" in node and "name" in node:  # a parameter object: its schema loses its constraints
            kept = {k: v for k, v in node.items() if k not in (MARK, "schema", "content", "example", "examples")}
            kept["schema"] = _loose(node.get("schema"), root)
            return kept
        return _loose(node, root)
    return {k: _strip(v, root) for k, v in node.items()}


def _loose(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    """A schema's public constraints taken out: its type (found through a local $ref) only."""
    target = _deref(schema, root)
    if not isinstance(target, dict):
        return {}
    return {k: target[k] for k in _KEPT if k in target}


def _deref(node: Any, root: dict[str, Any]) -> Any:
    for _ in range(16):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return node
        target: Any = root
        try:
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
        except (KeyError, TypeError, IndexError):
            return {}
        node = target
    return node
