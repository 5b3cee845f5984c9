"""HAL links and paging (bag-api.md 3.1, 4.1, 4.2).

Links are absolute under the base URL. `self` is the request exactly as sent; paging links
are that request with `page=N` set, so every other parameter (pageSize included, only when
the client sent it) keeps its original spelling.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from typing import Any, TypeVar
from urllib.parse import quote, unquote_plus

T = TypeVar("T")

Link = dict[str, Any]

# Path segment of each resource type's own endpoint.
TYPE_PATHS: dict[str, str] = {
    "Verblijfsobject": "verblijfsobjecten",
    "Ligplaats": "ligplaatsen",
    "Standplaats": "standplaatsen",
}


@dataclass(frozen=True)
class RequestInfo:
    """What the links of one response are built from."""

    origin: str  # scheme://host[:port]
    base_path: str
    raw_path: str  # percent-encoded, as sent
    raw_query: str  # as sent, without "?"
    moment: datetime  # the request moment (UTC), for time-travel defaults
    drop_query_in_self: bool = False

    @cached_property
    def base_url(self) -> str:
        return self.origin + self.base_path

    @property
    def instance(self) -> str:
        """Path plus query as requested (the problem `instance`)."""
        return self.raw_path + ("?" + self.raw_query if self.raw_query else "")

    def self_link(self) -> Link:
        if self.drop_query_in_self:
            return {"href": self.origin + self.raw_path}
        return {"href": self.origin + self.instance}

    def link(self, path: str, query: str = "") -> Link:
        """A link to `path` (relative to the base path) with an already encoded query."""
        return {"href": self.base_url + path + ("?" + query if query else "")}

    def page_link(self, page: int) -> Link:
        segments = [s for s in self.raw_query.split("&") if s]
        replaced = False
        for i, segment in enumerate(segments):
            if unquote_plus(segment.partition("=")[0]) == "page":
                if replaced:
                    segments[i] = ""
                else:
                    segments[i] = f"page={page}"
                    replaced = True
        if not replaced:
            segments.append(f"page={page}")
        return {"href": self.origin + self.raw_path + "?" + "&".join(s for s in segments if s)}


def encode_query(pairs: list[tuple[str, str]]) -> str:
    return "&".join(f"{quote(k, safe='[]')}={quote(v, safe=':,')}" for k, v in pairs)


@dataclass(frozen=True)
class TimeTravel:
    """geldigOp/beschikbaarOp as sent, for item self links and related links (4.2)."""

    geldig_op: str | None = None
    beschikbaar_op: str | None = None

    def self_query(self) -> str:
        pairs = [("geldigOp", self.geldig_op), ("beschikbaarOp", self.beschikbaar_op)]
        return encode_query([(k, v) for k, v in pairs if v is not None])

    def related_query(self, moment: datetime) -> str:
        """Related links carry both values when the client sent either, filling in the
        other with the request date or moment; otherwise neither."""
        if self.geldig_op is None and self.beschikbaar_op is None:
            return ""
        naive = moment.replace(tzinfo=None)
        geldig = self.geldig_op or date.isoformat(naive.date())
        beschikbaar = self.beschikbaar_op or naive.isoformat(timespec="milliseconds")
        return encode_query([("geldigOp", geldig), ("beschikbaarOp", beschikbaar)])


@dataclass(frozen=True)
class Paging:
    page: int  # as requested (at least 1 unless a fault lets 0 through)
    size: int

    @property
    def effective_page(self) -> int:
        return max(self.page, 1)

    def slice(self, items: list[T]) -> list[T]:
        start = (self.effective_page - 1) * self.size
        return items[start : start + self.size]

    def links(self, info: RequestInfo, total: int, *, last_off_by_one: bool = False) -> dict[str, Link]:
        """self plus first/previous/next/last where they apply; only self without results.

        A page beyond the last gets first, previous (the last page) and last, no next.
        """
        links: dict[str, Link] = {"self": info.self_link()}
        if total == 0:
            return links
        last = -(-total // self.size)
        page = self.effective_page
        if page > 1:
            links["first"] = info.page_link(1)
            links["previous"] = info.page_link(min(page - 1, last))
        if page < last:
            links["next"] = info.page_link(page + 1)
        if page != last:
            links["last"] = info.page_link(last + 1 if last_off_by_one else last)
        return links


# --- faults on links (conformance/mocks/address/faults_general.py) ----------------------------
def drop_self_link(resource: dict[str, Any]) -> dict[str, Any]:
    """Fault self_link_missing: the resource without its own `_links.self` (other links stay)."""
    resource_links = resource.get("_links")
    if not isinstance(resource_links, dict) or "self" not in resource_links:
        return resource
    return {**resource, "_links": {k: v for k, v in resource_links.items() if k != "self"}}


def drop_embedded_self_links(resource: dict[str, Any]) -> dict[str, Any]:
    """Fault embedded_self_link_missing: every embedded resource (collection item or expanded
    relation, under `_embedded` at the top or inside an object's type wrapper) without its
    `_links.self`; the top-level self link stays."""
    copy: dict[str, Any] = {}
    for key, value in resource.items():
        if key == "_embedded" and isinstance(value, dict):
            copy[key] = {
                name: [_embedded_without_self(v) for v in found] if isinstance(found, list)
                else _embedded_without_self(found)
                for name, found in value.items()
            }
        elif key != "_links" and isinstance(value, dict):
            copy[key] = drop_embedded_self_links(value)  # a type wrapper (bag-api.md 3.4)
        else:
            copy[key] = value
    return copy


def _embedded_without_self(item: Any) -> Any:
    return drop_self_link(drop_embedded_self_links(item)) if isinstance(item, dict) else item
