"""Pagination: page and pageSize limits, defaults and paging links (seed parts 4 and 8;
bag-api.md 4.1). The `pand` sample has at least 45 addressable objects."""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import hal, paging
from conformance.checks.address.control import Req, refused_vs_control
from conformance.checks.registry import MUST, OBSERVATION, SHOULD, check
from conformance.findings import expect

COLLECTIONS = list(g.COLLECTIONS)
PAND_OBJECTS = "/adresseerbareobjecten"


def _get(address_api, case: str, **paging: int):
    path, params = g.COLLECTIONS[case](address_api)
    return address_api.get(path, params={**params, **{k: str(v) for k, v in paging.items()}})


def _pand_query(address_api) -> dict[str, str]:
    return {"pandIdentificaties": address_api.sample("pand")}


def _refused(address_api, case: str, name: str, valid: int, invalid: int) -> None:
    """The limit itself is the control (pageSize 10 or 100, page 1); only the value changes."""
    control = Req.of(*g.COLLECTIONS[case](address_api)).with_param(name, str(valid))
    refused_vs_control(address_api, control, control.with_param(name, str(invalid)), rule=f"{name}={invalid}",
                       statuses=(400,), names=name)


@check("address.pagination.page_size_below_minimum_rejected", MUST, "pageSize 9 is answered 400",
       requirements=["ADDR-4.pageSize", "ADDR-8.pageSize"],
       proven_by=["address.page_size_minimum_not_enforced"],
       sends=["refused"],
       feature="part 4, 8 / pagination")
@pytest.mark.parametrize("case", COLLECTIONS)
def test_page_size_below_minimum_rejected(address_api, case):
    _refused(address_api, case, "pageSize", 10, 9)


@check("address.pagination.page_size_above_maximum_rejected", MUST, "pageSize 101 is answered 400",
       requirements=["ADDR-4.pageSize", "ADDR-8.pageSize"],
       proven_by=["address.page_size_maximum_not_enforced"],
       may_fail_under=["address.page_size_maximum_exclusive"],  # its control asks pageSize 100
       sends=["refused"],
       feature="part 4, 8 / pagination")
@pytest.mark.parametrize("case", COLLECTIONS)
def test_page_size_above_maximum_rejected(address_api, case):
    _refused(address_api, case, "pageSize", 100, 101)


@check("address.pagination.page_below_minimum_rejected", MUST, "page 0 is answered 400",
       requirements=["ADDR-4.page", "ADDR-8.page"],
       proven_by=["address.page_minimum_not_enforced"],
       sends=["refused"],
       feature="part 4, 8 / pagination")
@pytest.mark.parametrize("case", COLLECTIONS)
def test_page_below_minimum_rejected(address_api, case):
    _refused(address_api, case, "page", 1, 0)


@check("address.pagination.limits_accepted", MUST, "pageSize 10 and 100 and page 1 are served (200)",
       requirements=["ADDR-4.page", "ADDR-4.pageSize", "ADDR-8.pageSize"],
       proven_by=["address.page_size_maximum_exclusive"],
       feature="part 4, 8 / pagination")
@pytest.mark.parametrize("paging", [{"pageSize": 10}, {"pageSize": 100}, {"page": 1}], ids=["pageSize10", "pageSize100", "page1"])
@pytest.mark.parametrize("case", COLLECTIONS)
def test_limits_accepted(address_api, case, paging):
    g.expect_status(_get(address_api, case, **paging), 200)


@check("address.pagination.default_page_size", MUST, "Without pageSize a page holds 20 results and X-Pagination-Limit is 20",
       requirements=["ADDR-4.pageSize", "ADDR-8.pageSize"],
       proven_by=["address.default_page_size_wrong", "address.pagination_headers_missing"],
       feature="part 4, 8 / pagination")
@pytest.mark.parametrize("case", g.LARGE_COLLECTIONS)
def test_default_page_size(address_api, case):
    ex = _get(address_api, case)
    g.expect_status(ex, 200)
    items = len(g.collection_items(ex))
    expect(items == 20, "the first page without pageSize does not hold 20 of the 45+ results",
           expected=20, actual=items)
    limit = g.integer_header(ex, "X-Pagination-Limit")
    expect(limit == 20, "X-Pagination-Limit without pageSize is not 20", expected=20, actual=limit)


@check("address.pagination.links_apply", SHOULD, "Paging links appear only where they apply and point to the right pages",
       requirements=["BAGREF-4.1"],
       proven_by=["address.paging_links_missing", "address.wrong_last_link"],
       may_fail_under=["address.page_size_ignored", "address.page_ignored", "address.pages_overlap"],
       feature="part 4, 8 / pagination")
@pytest.mark.parametrize("query", ["pand", "single"])
def test_links_apply(address_api, query):
    """Every page of the pand's objects, requested by number, and a one-result query."""
    if query == "pand":
        params = _pand_query(address_api)
    else:
        params = {"nummeraanduidingIdentificatie": address_api.sample("nummeraanduiding")}
    walked = g.pages(address_api, PAND_OBJECTS, params, page_size=10)
    if query == "pand":
        expect(len(walked) >= 5, "the pand sample's 45+ objects do not fill 5 pages of 10", actual=len(walked))
    for number, ex in enumerate(walked, start=1):
        g.paging_links_apply(ex, page=number, last=len(walked))


@check("address.pagination.last_page", SHOULD, "The last link is ceil(total/pageSize) and leads to a non-empty page without next",
       requirements=["BAGREF-4.1"],
       proven_by=["address.wrong_last_link", "address.paging_links_missing"],
       may_fail_under=["address.page_size_ignored"],
       feature="part 4, 8 / pagination")
def test_last_page(address_api):
    params = {**_pand_query(address_api), "pageSize": "10"}
    first = address_api.get(PAND_OBJECTS, params=params)
    g.expect_status(first, 200)
    last_url = hal.href(hal.body(first), "last")
    expect(last_url is not None, "page 1 of several has no last link", actual=first.summary())
    walked = g.follow_next(address_api, first)
    total = sum(len(g.collection_items(ex)) for ex in walked)
    g.last_page_consistent(hal.link_page(last_url), address_api.get(last_url), total=total, page_size=10)


@check("address.pagination.beyond_last_page", OBSERVATION, "Answer to a page beyond the last (200 empty or 400)",
       requirements=["BAGREF-4.1", "ADDR-4.page"],
       feature="part 4, 8 / pagination")
def test_beyond_last_page(address_api, observe):
    params = _pand_query(address_api)
    last = len(g.pages(address_api, PAND_OBJECTS, params, page_size=10))
    ex = address_api.get(PAND_OBJECTS, params={**params, "pageSize": "10", "page": str(last + 1)})
    if ex.status == 200:
        observe(f"200 with {len(g.collection_items(ex))} results")
    else:
        code = ex.json.get("code") if isinstance(ex.json, dict) else None
        observe(f"{ex.status} {code or ''}".strip())


# --------------------------------------------------------------------------- what the pages hold
# One walk per collection (fixture paging_walks), shared by the three checks below.
@check("address.pagination.page_size_limits_results", MUST, "A page of pageSize 10 holds at most 10 results, and exactly 10 on every page before the last",
       requirements=["ADDR-4.page", "ADDR-4.pageSize", "ADDR-8.pageSize"],
       proven_by=["address.page_size_ignored"],
       feature="part 4, 8 / pagination")
@pytest.mark.parametrize("case", g.LARGE_COLLECTIONS)
def test_page_size_limits_results(paging_walks, case):
    paging.page_size_limits(paging_walks(case))


@check("address.pagination.page_selects_results", MUST, "Page 2 holds other results than page 1",
       requirements=["ADDR-4.page", "ADDR-4.pageSize", "ADDR-8.pageSize"],
       proven_by=["address.page_ignored"],
       feature="part 4, 8 / pagination")
@pytest.mark.parametrize("case", g.LARGE_COLLECTIONS)
def test_page_selects_results(paging_walks, case):
    paging.page_selects(paging_walks(case))


@check("address.pagination.pages_hold_each_result_once", MUST, "The pages of pageSize 10 together hold each result of the collection once: none twice, none missing",
       requirements=["ADDR-4.page", "ADDR-4.pageSize", "ADDR-8.pageSize"],
       proven_by=["address.pages_overlap", "address.page_ignored"],
       feature="part 4, 8 / pagination")
@pytest.mark.parametrize("case", g.LARGE_COLLECTIONS)
def test_pages_hold_each_result_once(paging_walks, case):
    paging.pages_cover(paging_walks(case))
