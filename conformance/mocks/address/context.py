"""What an endpoint handler receives and returns.

Handlers are plain functions `Context -> HalResult` that raise ProblemError for errors;
the app (app.py) owns everything around them: auth, limits, negotiation and headers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from conformance.mocks.address import faults as F
from conformance.mocks.address import faults_compare as C
from conformance.mocks.address import faults_general as G
from conformance.mocks.address import faults_params as FP
from conformance.mocks.address.hal import Link, Paging, RequestInfo
from conformance.mocks.address.params import Query, RawParam, Readings, Validator
from conformance.mocks.address.problems import ProblemError
from conformance.mocks.address.repository import Repository
from conformance.mocks.faults import Fault, FaultSet, fault, variant

# Collection paging (seed part 4 "Shared parameters").
DEFAULT_PAGE_SIZE = 20
MIN_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100
# The text parameters of length 1 to 255 or 1 to 80 (seed part 8), whose lower bound the
# fault empty_text_accepted drops.
EMPTY_TEXT = frozenset({"woonplaatsNaam", "openbareRuimteNaam", "q", "zoek", "zoekresultaatIdentificatie"})


# Dates, booleans and numbers: what the seed's rules leave open for them is what an empty or a
# repeated value means (lists "of at least 1", texts of a least length and "exactly one
# identification" say it).
SCALAR_VALUES = frozenset({"geldigOp", "beschikbaarOp", "huidig", "inclusiefEindStatus", "exacteMatch", "geheleLvc",
                           "geconstateerd", "huisnummer", "page", "pageSize"})
# Issue 51: what the seed leaves open about a query's values, read the other way it allows.
EMPTY_AND_REPEATED_READ = variant(
    "address.variant.empty_and_repeated_values_read",
    "a date, boolean or number parameter sent without a value is read as absent (geldigOp=, huidig=), and of one "
    "sent twice the first value counts (huisnummer=12&huisnummer=2); text parameters of a least length, lists of "
    "at least one item, identifications and expand keep their rules",
    allowed_by="seed part 4 gives each parameter's type and rule, not what an empty or repeated value means (bag-api.md "
               "4.3: the public API refuses an empty value, a SHOULD)")


SERVER_ERROR_ON_EMPTY_VALUE = fault(
    "address.server_error_on_empty_value",
    "a date, boolean or number parameter sent without a value or sent twice (geldigOp=, huidig=, huisnummer twice) "
    "is answered 500 serverError", shows="empty")


@dataclass
class HalResult:
    body: dict[str, Any] | None  # None: an empty body (fault not_found_as_200)
    paging: Paging | None = None  # set: X-Pagination-* headers are sent
    content_crs: bool = False  # set: Content-Crs is sent
    deprecated: bool = False  # set: the warning says the operation is deprecated


@dataclass
class Context:
    info: RequestInfo
    raw: list[RawParam]
    path_id_raw: str | None  # the {id} segment of the path, as decoded
    repo: Repository
    faults: FaultSet

    def on(self, fault: Fault) -> bool:
        return self.faults.on(fault.name)

    def query(
        self,
        known: frozenset[str],
        *,
        duplicate_codes: dict[str, str] | None = None,
        first_wins: frozenset[str] = frozenset(),
        empty_allowed: frozenset[str] = frozenset(),
    ) -> Query:
        """The known parameters; `empty_allowed`: an endpoint's own fault that lets these be empty."""
        if self.on(FP.EMPTY_TEXT_ACCEPTED):
            empty_allowed = empty_allowed | EMPTY_TEXT
        raw = self.raw
        if self.on(SERVER_ERROR_ON_EMPTY_VALUE):
            names = [p.name for p in raw if p.name in known & SCALAR_VALUES]
            if any(not p.value for p in raw if p.name in names) or len(names) != len(set(names)):
                raise ProblemError("serverError")
        if self.on(EMPTY_AND_REPEATED_READ):
            raw = [p for p in raw if p.value or p.name not in SCALAR_VALUES]
            first_wins = first_wins | (known & SCALAR_VALUES)
        q = Query(raw, known, duplicate_codes=duplicate_codes, first_wins=first_wins,
                  empty_allowed=empty_allowed)
        q.readings = self.readings()
        return q

    def readings(self) -> Readings:
        """How this request's values are read: as the seed says unless a fault bends it."""
        return _readings(self.faults.names)

    def path_id(self, v: Validator, name: str, pattern: str) -> str | None:
        return v.path_id(
            name, self.path_id_raw or "", pattern, enforce=not self.on(F.PATH_ID_PATTERN_NOT_ENFORCED)
        )

    def expand(self, v: Validator, allowed: dict[str, str], *, lenient: bool = False) -> frozenset[str] | None:
        """The `expand` parameter, read as the faults on this mock read it (`lenient`: an
        endpoint's own fault that ignores unknown values there)."""
        return v.expand("expand", allowed, ignore_unknown=lenient or self.on(F.UNKNOWN_EXPAND_IGNORED),
                        fields=not self.on(F.EXPAND_FIELD_REJECTED))

    def building_ids(self, pand_ids: tuple[str, ...] | None) -> tuple[str, ...]:
        """The building ids a building query looks up; under the fault pand_query_leaks also
        every id that differs only in the last digit (neighbouring buildings)."""
        ids = tuple(pand_ids or ())
        if not self.on(F.PAND_QUERY_LEAKS):
            return ids
        return tuple(dict.fromkeys(p[:-1] + digit for p in ids for digit in "0123456789"))

    def paging(self, v: Validator) -> Paging:
        min_size = 1 if self.on(F.PAGE_SIZE_MINIMUM_NOT_ENFORCED) else MIN_PAGE_SIZE
        page = v.integer(
            "page", 1, 1, enforce_min=not self.on(F.PAGE_MINIMUM_NOT_ENFORCED), enforce_max=False
        )
        max_size = MAX_PAGE_SIZE
        searches = not self.info.raw_path.endswith("/adressen/zoek")  # the deprecated one pages apart
        if self.on(G.PAGE_SIZE_MAXIMUM_EXCLUSIVE) and searches and not v.query.has("page"):
            max_size = MAX_PAGE_SIZE - 1  # 100 refused, but only on a first page asked without page
        size = v.integer(
            "pageSize", min_size, max_size, enforce_max=not self.on(F.PAGE_SIZE_MAXIMUM_NOT_ENFORCED)
        )
        default_size = 10 if self.on(G.DEFAULT_PAGE_SIZE_WRONG) else DEFAULT_PAGE_SIZE
        return Paging(page if page is not None else 1, size if size is not None else default_size)

    def collection(self, name: str, items: list[Any], paging: Paging, render: Any) -> HalResult:
        """A paged HAL collection `_embedded.<name>[]` with its links (bag-api.md 4.1)."""
        if self.on(C.LAST_PAGE_DROPPED) and len(items) > paging.size:
            pages = -(-len(items) // paging.size)
            items = items[: (pages - 1) * paging.size]  # served as if the last page did not exist
        if self.on(F.PAGING_LINKS_MISSING):
            links: dict[str, Link] = {"self": self.info.self_link()}
        else:
            links = paging.links(self.info, len(items), last_off_by_one=self.on(F.WRONG_LAST_LINK))
        embedded = [render(item) for item in self._page(items, paging)]
        return HalResult({"_links": links, "_embedded": {name: embedded}}, paging=paging)

    def _page(self, items: list[Any], paging: Paging) -> list[Any]:
        """The results of the page asked for, or of the page the paging faults serve
        instead (headers and links still echo the request)."""
        faults = (FP.PAGE_IGNORED, FP.PAGE_SIZE_IGNORED, FP.PAGES_OVERLAP)
        if not any(self.on(f) for f in faults):
            return paging.slice(items)
        page = 1 if self.on(FP.PAGE_IGNORED) else paging.effective_page
        size = max(paging.size, DEFAULT_PAGE_SIZE) if self.on(FP.PAGE_SIZE_IGNORED) else paging.size
        step = size - 1 if self.on(FP.PAGES_OVERLAP) and size > 1 else size
        start = (page - 1) * step
        return items[start : start + size]

    def not_found(self, paging: Paging | None = None) -> HalResult:
        """404 notFound, or 200 with an empty body under the fault not_found_as_200."""
        if self.on(F.NOT_FOUND_AS_200):
            return HalResult(None, paging=paging)
        raise ProblemError("notFound")


# The booleans of the addressable-object searches and life cycle read leniently, while the
# shared ones (huidig, inclusiefEindStatus, exacteMatch) are still validated.
OBJECT_BOOLEANS_NOT_VALIDATED = fault(
    "address.object_booleans_not_validated",
    "a non-boolean geconstateerd (/adresseerbareobjecten) or geheleLvc (/lvc) is read as false instead of 400", shows="adresseerbareobjecten",
)


@lru_cache(maxsize=64)
def _readings(faults: frozenset[str]) -> Readings:
    """The Readings of a fault set (the same for every request of a mock)."""
    lenient: frozenset[str] = frozenset()
    if G.BOOLEAN_NOT_VALIDATED.name in faults:
        lenient |= {"huidig", "inclusiefEindStatus", "exacteMatch"}
    if OBJECT_BOOLEANS_NOT_VALIDATED.name in faults:
        lenient |= {"geconstateerd", "geheleLvc"}
    return Readings(
        lenient_booleans=lenient,
        ignore_malformed_timestamps=G.BESCHIKBAAROP_NOT_VALIDATED.name in faults,
        misread_short_timestamps=G.BESCHIKBAAROP_SHORT_FORM_MISREAD.name in faults,
    )
