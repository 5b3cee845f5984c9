"""HAL resources: links, embedded collections and paging links (seed parts 1, 4; bag-api.md 4.1, 4.2)."""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import parse_qsl, unquote, urljoin, urlsplit

from conformance.findings import Finding, expect
from conformance.http.exchange import Exchange, decimal_integer
from conformance.http.origins import Base, within

PAGING_RELATIONS = ("first", "previous", "next", "last")


def body(ex: Exchange) -> dict[str, Any]:
    data = ex.json
    if not isinstance(data, dict):
        raise Finding("response body is not a JSON object", actual=ex.summary())
    return data


def links(resource: dict[str, Any]) -> dict[str, Any]:
    value = resource.get("_links")
    expect(isinstance(value, dict), "resource has no _links object", actual=type(value).__name__)
    return value


def href(resource: dict[str, Any], relation: str) -> str | None:
    link = links(resource).get(relation)
    if link is None:
        return None
    expect(isinstance(link, dict) and isinstance(link.get("href"), str),
           f"_links.{relation} has no href", actual=link)
    return link["href"]


def embedded(ex: Exchange, name: str) -> list[dict[str, Any]]:
    """_embedded.<name>: absent or empty means no results (bag-api.md 4.1)."""
    data = body(ex)
    emb = data.get("_embedded")
    if emb is None:
        return []
    expect(isinstance(emb, dict), "_embedded is not an object", actual=type(emb).__name__)
    items = emb.get(name, [])
    expect(isinstance(items, list), f"_embedded.{name} is not an array", actual=type(items).__name__)
    return items


def _canonical(url: str) -> tuple[str, list[tuple[str, str]]]:
    parts = urlsplit(url)
    return unquote(parts.path).rstrip("/"), sorted(parse_qsl(parts.query, keep_blank_values=True))


def self_link_reflects_request(ex: Exchange, *, below_base: str | None = None) -> None:
    """_links.self names the request: same path, same query parameters (bag-api.md 4.2).

    `below_base`: the request path below the base URL, so a link relative to the base and
    an absolute one both match (default: below the seed's `/v2` segment)."""
    link = href(body(ex), "self")
    expect(link is not None, "_links.self missing", actual=ex.summary())
    got_path, got_query = _canonical(link)
    want_path, want_query = _canonical(ex.url)
    tail = unquote(below_base).rstrip("/") if below_base is not None else want_path.split("/v2", 1)[-1]
    expect(got_path.endswith(tail), "self link path differs from the request",
           expected=want_path, actual=got_path)
    expect(got_query == want_query, "self link query differs from the request",
           expected=want_query, actual=got_query)


def link_page(url: str) -> int:
    """The page a paging link points to (none named: page 1); ValueError when its page is not
    an integer."""
    query = dict(parse_qsl(urlsplit(url).query))
    page = decimal_integer(query.get("page", "1"))
    if page is None:
        raise ValueError(f"page {query['page']!r} is not an integer")
    return page


def link_pages(ex: Exchange) -> dict[str, int]:
    """Page number of each paging link present (a link without `page` is page 1)."""
    data = body(ex)
    pages: dict[str, int] = {}
    for rel in PAGING_RELATIONS:
        if rel in links(data):
            url = href(data, rel)
            try:
                pages[rel] = link_page(url or "")
            except ValueError:
                raise Finding(f"_links.{rel} has no integer page", actual=url) from None
    return pages


def paging_links_consistent(ex: Exchange, *, page: int) -> None:
    """first/previous only after page 1; next/last only before the last page; pages in order.

    A page beyond the last (empty) is left alone: the sources disagree on it (bag-api.md 4.1).
    """
    data = body(ex)
    if page > 1 and not any(isinstance(v, list) and v for v in (data.get("_embedded") or {}).values()):
        return
    pages = {rel: number for rel, number in link_pages(ex).items() if href(data, rel)}  # no href: no page
    if page == 1:
        expect("first" not in pages and "previous" not in pages,
               "page 1 carries first/previous links", actual=sorted(pages))
    else:
        expect(pages.get("first") == 1, "first link does not point to page 1", actual=pages.get("first"))
        expect(pages.get("previous") == page - 1, "previous link does not point to the page before",
               expected=page - 1, actual=pages.get("previous"))
    if "next" in pages:
        expect(pages["next"] == page + 1, "next link does not point to the page after",
               expected=page + 1, actual=pages["next"])
        expect("last" in pages and pages["last"] > page, "next link without a later last link",
               actual=pages)
    if "last" in pages:
        expect(pages["last"] >= page, "last link points before the current page", actual=pages)


def all_hrefs(document: Any) -> list[str]:
    """The href of every link of a HAL document: its own `_links` and those of every embedded
    resource, at any depth (walked without recursion)."""
    found: list[str] = []
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key == "_links" and isinstance(value, dict):
                    for link in value.values():
                        for item in link if isinstance(link, list) else [link]:
                            if isinstance(item, dict) and isinstance(item.get("href"), str):
                                found.append(item["href"])
                elif isinstance(value, dict | list):
                    stack.append(value)
    return found


@functools.lru_cache(maxsize=8192)
def _resolved(url: str, href: str) -> str:
    """urljoin, remembered: every exchange of a run is judged, and its links repeat."""
    return urljoin(url, href)


def links_within_base(ex: Exchange, base_url: str) -> None:
    """Every link of the answer names a URL below the base URL (seed part 1: "Base address:
    `{base_url}`. All paths below are relative to it."). A link elsewhere -- another scheme,
    host or port, a path outside the base path -- is one a client cannot follow with its key:
    the harness does not follow it (conformance/http/origins.py)."""
    if not isinstance(ex.json, dict):
        return
    bases = [Base.of(base_url)]
    # A templated link (RFC 6570) is judged by the part before its first expression.
    outside = [href for href in all_hrefs(ex.json) if not within(_resolved(ex.url, href.split("{", 1)[0]), bases)]
    expect(not outside, f"{len(outside)} link(s) point outside the base URL {base_url}: a client following them "
           "would send its API key elsewhere", actual=", ".join(dict.fromkeys(outside[:3])))
