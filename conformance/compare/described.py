"""Whether the OpenAPI description defines a JSON path of an answer.

A difference in a field the description defines is a failure; in one it does not define,
a warning (issue 25: the description is the contract both environments answer to, the rest
is each environment's own). The walk follows `$ref`, `allOf`/`anyOf`/`oneOf` (a path any
branch defines is defined), `properties` and `items`; an `additionalProperties` schema
defines every key below it, `additionalProperties: true` or its absence none.
"""

from __future__ import annotations

from typing import Any

from conformance.compare.jsondiff import Path

_MAX_DEPTH = 64


class Description:
    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def response_schema(self, template: str, status: int, method: str = "get") -> Any:
        """The JSON schema of a response (the first JSON media type), or None."""
        operation = ((self.raw.get("paths") or {}).get(template) or {}).get(method.lower())
        if not isinstance(operation, dict):
            return None
        responses = operation.get("responses") or {}
        response = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default")
        response = self._deref(response)
        content = (response or {}).get("content") or {}
        for media, body in content.items():
            if "json" in media and isinstance(body, dict):
                return body.get("schema")
        return None

    def defines(self, schema: Any, path: Path) -> bool:
        """Whether `schema` defines `path` (keys and indices from the answer's root)."""
        return self._defines(schema, tuple(path), 0)

    def _defines(self, schema: Any, path: Path, depth: int) -> bool:
        schema = self._deref(schema)
        if not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return False
        if not path:
            return True
        for combinator in ("allOf", "anyOf", "oneOf"):
            if any(self._defines(branch, path, depth + 1) for branch in schema.get(combinator) or []):
                return True
        head, rest = path[0], path[1:]
        if isinstance(head, int):
            items = schema.get("items")
            return items is not None and self._defines(items, rest, depth + 1)
        properties = schema.get("properties") or {}
        if head in properties:
            return self._defines(properties[head], rest, depth + 1)
        extra = schema.get("additionalProperties")
        return isinstance(extra, dict) and self._defines(extra, rest, depth + 1)

    def _deref(self, node: Any) -> Any:
        for _ in range(16):
            ref = node.get("$ref") if isinstance(node, dict) else None
            if not isinstance(ref, str) or not ref.startswith("#/"):
                return node
            target: Any = self.raw
            try:
                for part in ref[2:].split("/"):
                    target = target[part.replace("~1", "/").replace("~0", "~")]
            except (KeyError, TypeError):
                return None
            node = target
        return node
