"""Which results page and pageSize select (seed parts 4 and 8: page minimum 1, default 1;
pageSize 10 to 100, default 20).

One walk per collection serves every check of it: the whole collection read in pages of
100 (the reference), then the same query in pages of WALK_SIZE asked for by number. The
checks compare what the pages hold, never what the X-Pagination headers or links say:
a server can echo those and still serve other results.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from conformance.checks.address import general as g
from conformance.findings import Finding, expect, require
from conformance.http.exchange import Exchange

WALK_SIZE = 10  # the smallest pageSize: the most pages of the `pand` sample's 45+ results
REFERENCE_SIZE = 100  # the largest pageSize: the whole collection in as few pages as possible
REFERENCE_PAGES = 5
# Pages of WALK_SIZE a walk asks for at most: every page of a reference of up to 100
# results, and the empty one after them.
WALK_LIMIT = 11


@dataclass(frozen=True)
class Walk:
    reference: list[Exchange]  # pages of REFERENCE_SIZE, up to the first short one
    pages: list[Exchange]  # pages 1, 2, ... of WALK_SIZE (see walk)

    def items(self, ex: Exchange) -> list[str]:
        return [identity(item) for item in g.collection_items(ex)]

    def whole(self) -> list[str]:
        """Every result of the collection, read in pages of 100; blocked when that read
        does not give a collection of at least two walk pages."""
        for ex in self.reference:
            require(ex.status == 200, "the collection is read in pages of 100",
                    f"{ex.method} {ex.path} -> {ex.status}")
        found = [i for ex in self.reference for i in self.items(ex)]
        require(len(g.collection_items(self.reference[-1])) < REFERENCE_SIZE,  # a short last page: all read
                "the collection is read whole in pages of 100",
                f"more than {REFERENCE_SIZE * REFERENCE_PAGES} results")
        require(len(found) > WALK_SIZE, f"the collection holds more than {WALK_SIZE} results (two pages or more)",
                f"{len(found)} results")
        return found

    def served(self) -> list[Exchange]:
        """The pages of the walk that are a 200; page 1 must be one."""
        expect(bool(self.pages) and self.pages[0].status == 200, "page 1 of the collection is not a 200",
               actual=self.pages[0].summary() if self.pages else None)
        return [ex for ex in self.pages if ex.status == 200]


def identity(item: Any) -> str:
    """A result as data, its links aside (the links may echo the request): two results are
    the same when they say the same."""
    return json.dumps(g.without_links(item), sort_keys=True, ensure_ascii=False)


def walk(api: Any, path: str, params: dict[str, str]) -> Walk:
    """Read the collection in pages of 100, then in pages of WALK_SIZE by number, up to the
    first page that is short, empty or refused, or that repeats page 1 (a server that
    ignores `page` would otherwise be walked to the limit)."""
    reference: list[Exchange] = []
    for number in range(1, REFERENCE_PAGES + 1):
        ex = api.get(path, params={**params, "page": str(number), "pageSize": str(REFERENCE_SIZE)})
        reference.append(ex)
        if ex.status != 200 or len(_items(ex)) < REFERENCE_SIZE:
            break
    pages: list[Exchange] = []
    for number in range(1, WALK_LIMIT + 1):
        ex = api.get(path, params={**params, "page": str(number), "pageSize": str(WALK_SIZE)})
        pages.append(ex)
        held = _items(ex)
        if ex.status != 200 or len(held) < WALK_SIZE or (number > 1 and held == _items(pages[0])):
            break
    return Walk(reference, pages)


def _items(ex: Exchange) -> list[str]:
    """The results of a page as identities, [] where it has none to read."""
    try:
        return [identity(i) for i in g.collection_items(ex)] if ex.status == 200 else []
    except Finding:  # the checks read the page again and judge its shape
        return []


# --------------------------------------------------------------------------- the judgements
def page_size_limits(w: Walk) -> None:
    """No page holds more than pageSize results; every page before the last holds exactly
    pageSize (only the last may be short)."""
    total = len(w.whole())
    pages = w.served()
    sizes = [len(g.collection_items(ex)) for ex in pages]
    over = [(n, size) for n, size in enumerate(sizes, start=1) if size > WALK_SIZE]
    expect(not over, f"pages of pageSize {WALK_SIZE} hold more than {WALK_SIZE} results",
           expected=f"at most {WALK_SIZE} per page", actual=[f"page {n}: {s}" for n, s in over])
    full_pages = total // WALK_SIZE
    short = [(n, size) for n, size in enumerate(sizes[:full_pages], start=1) if size != WALK_SIZE]
    expect(not short, f"a page before the last of {total} results does not hold pageSize {WALK_SIZE}",
           expected=f"{WALK_SIZE} on pages 1 to {full_pages}", actual=[f"page {n}: {s}" for n, s in short])


def page_selects(w: Walk) -> None:
    """Page 2 holds other results than page 1 (the collection has two pages or more)."""
    w.whole()
    pages = w.served()
    expect(len(pages) >= 2, "page 2 of a collection of two pages or more is not a 200",
           actual=w.pages[1].summary() if len(w.pages) > 1 else "not asked")
    first, second = w.items(pages[0]), w.items(pages[1])
    expect(second != first, "page 2 holds the same results as page 1", actual=f"{len(second)} results, "
           "the same as page 1's")


def pages_cover(w: Walk) -> None:
    """The pages of WALK_SIZE together hold each result of the collection exactly once."""
    whole = Counter(w.whole())
    held = Counter(i for ex in w.served() for i in w.items(ex))
    twice = sum(count - 1 for count in held.values() if count > 1)
    missing = sum((whole - held).values())
    extra = sum((held - whole).values()) - twice
    expect(twice == 0, f"{twice} result(s) appear on more than one page of pageSize {WALK_SIZE}",
           expected="each result once", actual=_first(held, lambda c: c > 1))
    expect(missing == 0, f"{missing} of the {sum(whole.values())} results are on no page of pageSize {WALK_SIZE}",
           expected="each result once", actual=_first(whole - held, lambda c: c > 0))
    expect(extra <= 0, f"{extra} result(s) on the pages are not in the collection read in pages of 100",
           actual=_first(held - whole, lambda c: c > 0))


def _first(counts: Counter[str], keep: Any) -> list[str]:
    """A few of the results meant, by their identification where they carry one."""
    return [label(json.loads(item)) for item, count in counts.items() if keep(count)][:3]


def label(item: Any) -> str:
    """The first identification in a result (an address's nummeraanduidingIdentificatie, an
    object's identificatie inside its type wrapper), else the start of its data."""
    if isinstance(item, dict):
        for key in ("nummeraanduidingIdentificatie", "identificatie"):
            if isinstance(item.get(key), str):
                return item[key]
        for value in item.values():
            found = label(value)
            if not found.startswith("{"):
                return found
    return json.dumps(item, sort_keys=True)[:80]
