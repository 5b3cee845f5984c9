"""The address API of two environments compared, request by request.

Each request of the corpus goes to the reference twice and to the vendor once, each side
through its own client (its profile's key, pacing, budget, quota guard and bounds: the
run's bounded HTTP layer). Bodies are normalised (jsondiff.normalise) and compared; what
the two reference answers disagree on is volatile for that request's operation and is
cancelled wherever it appears in that operation's answers, listed in the report as such.
Every collection answer of the reference that links a `last` page adds that page to the
corpus (a vendor that serves a page fewer shows there).

`Outcome` holds one request's three answers and what is left after cancelling; the checks
(suites/compare) group the outcomes of an operation into findings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from conformance.compare.corpus import Request
from conformance.compare.described import Description
from conformance.compare.jsondiff import Difference, diff, normalise
from conformance.http.exchange import Exchange
from conformance.openapi.operations import SEED_OPERATIONS, template_key

# The response headers whose values the seed fixes per answer (part 4 "Response headers"):
# compared. Others (Date, RateLimit-*, Warning, ...) are each environment's own.
COMPARED_HEADERS = ("api-version", "content-crs", "x-pagination-page", "x-pagination-limit")

Send = Callable[[Request], Exchange]


@dataclass
class Outcome:
    request: Request
    operation: str  # the seed's operation name (part 4)
    template: str  # its path template below the base URL
    reference: Exchange
    vendor: Exchange
    # The reference's second answer had another status: the request is not judged (a
    # status the register itself does not keep cannot tell the vendor wrong).
    unstable: bool = False
    status_differs: bool = False
    media_differs: bool = False
    differences: list[Difference] = field(default_factory=list)  # after cancelling
    header_differences: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    cancelled: list[Difference] = field(default_factory=list)
    ignored: int = 0  # differences the profiles' [compare.ignore] removed


@dataclass
class Noise:
    """What two identical reference calls disagreed on, per operation: path patterns,
    query parameters of the links at a path (a link dated with the moment of answering:
    only that parameter is volatile, the rest of the link is still compared) and header
    names."""

    paths: dict[str, set[str]] = field(default_factory=dict)
    link_params: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    headers: dict[str, set[str]] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)  # requests whose status itself varied

    def learn(self, operation: str, difference: Difference) -> None:
        params = _differing_params(difference.reference, difference.vendor)
        if params:
            self.link_params.setdefault(operation, {}).setdefault(difference.pattern, set()).update(params)
        else:
            self.paths.setdefault(operation, set()).add(difference.pattern)

    def cancels(self, operation: str, difference: Difference) -> bool:
        """Whether the difference is only what the reference itself varies."""
        if difference.pattern in self.paths.get(operation, set()):
            return True
        params = self.link_params.get(operation, {}).get(difference.pattern)
        return bool(params) and isinstance(difference.reference, str) and isinstance(difference.vendor, str) \
            and _without(difference.reference, params) == _without(difference.vendor, params)


def _differing_params(first: Any, second: Any) -> set[str]:
    """The query parameters two links differ in, when that is all they differ in."""
    if not (isinstance(first, str) and isinstance(second, str)):
        return set()
    a, b = urlsplit(first), urlsplit(second)
    if (a.scheme, a.netloc, a.path) != (b.scheme, b.netloc, b.path) or not (a.query or b.query):
        return set()
    qa, qb = dict(parse_qsl(a.query, keep_blank_values=True)), dict(parse_qsl(b.query, keep_blank_values=True))
    return {k for k in qa.keys() | qb.keys() if qa.get(k) != qb.get(k)}


def _without(link: str, params: set[str]) -> tuple[str, list[tuple[str, str]]]:
    url = urlsplit(link)
    return (url._replace(query="").geturl(),
            [(k, v) for k, v in parse_qsl(url.query, keep_blank_values=True) if k not in params])


def operation_of(path: str) -> tuple[str, str] | None:
    """(seed operation, template) of a request path below the base URL; literal segments
    win (`/adressen/zoek` is `zoek`)."""
    segments = path.rstrip("/").split("/")
    best: tuple[int, str, str] | None = None
    for name, template in SEED_OPERATIONS.items():
        parts = template_key(template).split("/")
        if len(parts) != len(segments):
            continue
        if all(p == "{}" and s or p == s for p, s in zip(parts, segments, strict=True)):
            params = parts.count("{}")
            if best is None or params < best[0]:
                best = (params, name, template)
    return None if best is None else (best[1], best[2])


class Comparison:
    def __init__(self, *, reference: Send, vendor: Send, reference_base: str, vendor_base: str,
                 description: Description, templates: dict[str, str],
                 ignore_paths: Iterable[str] = (), ignore_headers: Iterable[str] = ()) -> None:
        """`templates`: seed operation -> the description's own path template (for its schemas)."""
        self._reference, self._vendor = reference, vendor
        self._bases = (reference_base.rstrip("/"), vendor_base.rstrip("/"))
        self.description = description
        self._templates = templates
        self._ignore_paths = tuple(ignore_paths)
        self._ignore_headers = {h.lower() for h in ignore_headers}
        self.noise = Noise()
        self.outcomes: list[Outcome] = []
        self.left_out: dict[str, int] = {}

    def run(self, requests: Iterable[Request], follow: Callable[[Exchange, str], list[Request]] | None = None) -> None:
        """Send each request (and the follow-ups the reference's answers add), then judge
        them all: the noise is learnt from every pair of reference answers first, so the
        first request of an operation is judged as the last one is."""
        queue = list(requests)
        seen = set(queue)
        while queue:
            request = queue.pop(0)
            outcome = self.send(request)
            if outcome is None:
                continue
            for extra in (follow or last_page)(outcome.reference, self._bases[0]):
                if extra not in seen:
                    seen.add(extra)
                    queue.append(extra)
        for outcome in self.outcomes:
            self.judge(outcome)

    def send(self, request: Request) -> Outcome | None:
        """The request sent to both sides (twice to the reference), its noise learnt."""
        found = operation_of(request.path)
        if found is None:
            self.left_out["requests outside the address API's operations"] = \
                self.left_out.get("requests outside the address API's operations", 0) + 1
            return None
        operation, template = found
        first, second = self._reference(request), self._reference(request)
        vendor = self._vendor(request)
        self._learn_noise(operation, first, second)
        outcome = Outcome(request, operation, template, first, vendor, unstable=first.status != second.status)
        self.outcomes.append(outcome)
        return outcome

    def judge(self, outcome: Outcome) -> None:
        """What is left of the differences of a sent request once the noise is cancelled."""
        if outcome.unstable:
            return
        outcome.status_differs = outcome.reference.status != outcome.vendor.status
        outcome.media_differs = outcome.reference.media_type != outcome.vendor.media_type
        if not outcome.status_differs:
            self._diff_bodies(outcome)
            self._diff_headers(outcome)

    def defined(self, outcome: Outcome, difference: Difference) -> bool:
        """Whether the description defines the difference's path for the reference's answer."""
        template = self._templates.get(outcome.operation, outcome.template)
        schema = self.description.response_schema(template, outcome.reference.status)
        if schema is None:
            return False
        return self.description.defines(schema, difference.path)

    # --- internals ------------------------------------------------------------------
    def _body(self, ex: Exchange, base: str) -> Any:
        data = ex.json
        return normalise(data, base) if data is not None else ex.body.decode("utf-8", "replace")

    def _learn_noise(self, operation: str, first: Exchange, second: Exchange) -> None:
        if first.status != second.status:
            self.noise.statuses[operation] = self.noise.statuses.get(operation, 0) + 1
            return
        base = self._bases[0]
        for difference in diff(self._body(first, base), self._body(second, base)):
            self.noise.learn(operation, difference)
        for name in COMPARED_HEADERS:
            if first.response_headers.get(name) != second.response_headers.get(name):
                self.noise.headers.setdefault(operation, set()).add(name)

    def _ignored(self, pattern: str) -> bool:
        return any(fnmatchcase(pattern, rule) for rule in self._ignore_paths)

    def _diff_bodies(self, outcome: Outcome) -> None:
        reference = self._body(outcome.reference, self._bases[0])
        vendor = self._body(outcome.vendor, self._bases[1])
        for difference in diff(reference, vendor):
            if self._ignored(difference.pattern):
                outcome.ignored += 1
            elif self.noise.cancels(outcome.operation, difference):
                outcome.cancelled.append(difference)
            else:
                outcome.differences.append(difference)

    def _diff_headers(self, outcome: Outcome) -> None:
        volatile = self.noise.headers.get(outcome.operation, set())
        for name in COMPARED_HEADERS:
            if name in self._ignore_headers or name in volatile:
                continue
            ref = outcome.reference.response_headers.get(name)
            ven = outcome.vendor.response_headers.get(name)
            if ref != ven:
                outcome.header_differences.append((name, ref, ven))


def last_page(answer: Exchange, base: str) -> list[Request]:
    """The request for the last page a collection answer links, below the base URL."""
    data = answer.json
    if answer.status != 200 or not isinstance(data, dict):
        return []
    links = data.get("_links")
    last = links.get("last") if isinstance(links, dict) else None
    href = last.get("href") if isinstance(last, dict) else None
    if not isinstance(href, str):
        return []
    url = urlsplit(href)
    base_path = urlsplit(base).path.rstrip("/")
    path = url.path[len(base_path):] if base_path and url.path.startswith(base_path) else url.path
    return [Request(path, tuple(parse_qsl(url.query, keep_blank_values=True)), source="scenario")]
