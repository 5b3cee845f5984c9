"""The address mock's HTTP layer: a Starlette app for every endpoint of seed part 4.

One catch-all route feeds `AddressMock.handle`, which runs the steps in the order the
harness relies on: authentication (401/403) -> maintenance (503) -> rate limit and daily
quota (429) -> routing (404/405) -> content negotiation (406/415) -> the endpoint handler
(400/404/200). Every failure is a ProblemError rendered in one place, and any unexpected
exception still becomes a problem+json 500, never Starlette's plain-text page.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from email.utils import format_datetime
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from conformance.mocks.address import addresses, objects
from conformance.mocks.address import faults as F
from conformance.mocks.address import faults_compare as C
from conformance.mocks.address import faults_general as G
from conformance.mocks.address import faults_schema as S
from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
from conformance.mocks.address.context import Context, HalResult
from conformance.mocks.address.hal import RequestInfo, drop_embedded_self_links, drop_self_link
from conformance.mocks.address.params import parse_query
from conformance.mocks.address.problems import ProblemError, json_bytes, render_problem
from conformance.mocks.address.ratelimit import HEADER_NAMES, Decision, RateLimiter
from conformance.mocks.address.repository import Repository
from conformance.mocks.faults import Fault, FaultSet, fault

log = logging.getLogger(__name__)

HAL_JSON = "application/hal+json"
CRS = "epsg:28992"
_HAL_JSON_BYTES, _JSON_BYTES, _CRS_BYTES = HAL_JSON.encode(), b"application/json", CRS.encode()
_RATE_NAMES = tuple(name.lower().encode("latin-1") for name in HEADER_NAMES)
# Accept values served with HAL (the error media type is accepted too, as the public API does).
_ACCEPTABLE = frozenset({"application/hal+json", "*/*", "application/*", "application/problem+json"})
_WARNING_TEXT = "Deze versie van de API is binnenkort niet meer beschikbaar."
_TIME_TRAVEL = frozenset({"geldigOp", "beschikbaarOp"})
_DEPRECATED_TEXT = "Deze operatie is verouderd (deprecated) en wordt binnenkort niet meer ondersteund."


@dataclass(frozen=True)
class Endpoint:
    pattern: re.Pattern[str]  # matched against the path below the base path
    handler: Callable[[Context], HalResult]
    negotiates: bool = True  # /adressen/zoek lists no 406 (seed part 7) and serves any Accept
    accept_crs: bool = False  # endpoints that take the Accept-Crs header (seed part 4)
    content_crs: bool = False  # endpoints that take the Content-Crs header


def _ep(pattern: str, handler: Callable[[Context], HalResult], **flags: bool) -> Endpoint:
    return Endpoint(re.compile(pattern), handler, **flags)


# Issue 51: a rule of every endpoint that has Accept-Crs, judged on one of them only, lets this pass.
ACCEPT_CRS_ON_ONE_ENDPOINT_ONLY = fault(
    "address.accept_crs_validated_on_one_endpoint_only",
    "an unsupported Accept-Crs is refused (406) on /adresseerbareobjecten/{id} only; the other endpoints that take "
    "Accept-Crs (the object search, its life cycle, the extended address search and lookup) serve it", shows="Accept-Crs")

# Order matters: /adressen/zoek before /adressen/{id}.
ENDPOINTS: tuple[Endpoint, ...] = (
    _ep(r"/adresseerbareobjecten", objects.search, accept_crs=True, content_crs=True),
    _ep(r"/adresseerbareobjecten/([^/]+)", objects.get_one, accept_crs=True),
    _ep(r"/adresseerbareobjecten/([^/]+)/lvc", objects.lifecycle, accept_crs=True),
    _ep(r"/adressen", addresses.search),
    _ep(r"/adressen/zoek", addresses.zoek, negotiates=False),
    _ep(r"/adressen/([^/]+)", addresses.get_one),
    _ep(r"/adressenuitgebreid", addresses.search_extended, accept_crs=True),
    _ep(r"/adressenuitgebreid/([^/]+)", addresses.get_extended, accept_crs=True),
    _ep(r"/bronhouders", objects.bronhouders),
)


# An instance that echoes the request as the server decoded it: a request that held an escape
# (`zoek=Markt%201`, a fuzzed id) gets an instance with a space, no URI reference. Only the
# error answers of other checks' requests show it: the rule's own requests hold no escape.
PROBLEM_INSTANCE_DECODED = fault(
    "address.problem_instance_decoded",
    "the problem instance is the request path and query percent-decoded (%20 becomes a space, so an "
    "instance of a request that held an escape is no URI reference)", shows="URI reference",
)


# An instance that names no request at all: the same for every error answer (the API's base
# path, a URI reference still), where seed part 2 has "instance | ... | the request that failed".
PROBLEM_INSTANCE_CONSTANT = fault(
    "address.problem_instance_constant",
    "the problem instance is the same for every error answer (the API's base path), not the request that failed", shows="instance",
)


class _Answer(Response):
    """A 200 answer whose headers are already encoded (as Response.init_headers would)."""

    def __init__(self, body: bytes, raw_headers: list[tuple[bytes, bytes]]) -> None:
        self.status_code = 200
        self.background = None
        self.body = body
        self.raw_headers = raw_headers


def create_app(config: AddressMockConfig, faults: FaultSet) -> Starlette:
    app = Starlette()
    # Every request goes to the mock, whatever its method or path: as the router's
    # default it also gets paths no route pattern would match (a decoded "\n"), so no
    # plain-text 404/405 of Starlette's can ever be served.
    app.router.default = AddressMock(config, faults)
    app.router.redirect_slashes = False
    return app


class AddressMock:
    def __init__(self, config: AddressMockConfig, faults: FaultSet) -> None:
        self.config = config
        self.faults = faults
        self._faults_on = faults.names  # a FaultSet never changes; asked a few dozen times a request
        reshaping = (
            F.IDENTIFIERS_MALFORMED, S.HUISNUMMER_AS_STRING, G.SELF_LINK_MISSING, G.EMBEDDED_SELF_LINK_MISSING,
            C.EXTRA_MEMBER,
        )
        self._reshapes_body = any(self.on(fault) for fault in reshaping)  # see _success
        # The faults that bend the headers of a 200, in the order _success asks them.
        self._success_faults = tuple(
            self.on(fault)
            for fault in (
                F.WARNING_HEADER_MISSING, F.PAGINATION_HEADERS_MISSING, F.PAGINATION_HEADERS_WRONG,
                F.CONTENT_CRS_MISSING, F.RATE_LIMIT_HEADERS_MISSING, G.RATE_LIMIT_REMAINING_NOT_DECREMENTED,
                F.HAL_SERVED_AS_JSON,
            )
        )
        self.limiter = RateLimiter()
        self._repo: Repository | None = None

    def on(self, fault: Fault) -> bool:
        return fault.name in self._faults_on

    @property
    def repo(self) -> Repository:
        # Opened lazily so an app can be created before the database file exists.
        if self._repo is None:
            self._repo = Repository(self.config.db_path)
        return self._repo

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"  # what Request(scope) asserts; the rest of it is not needed
        response = self._answer(scope)
        await response(scope, receive, send)

    async def handle(self, request: Request) -> Response:
        return self._answer(request.scope)

    def _answer(self, scope: Scope) -> Response:
        headers = _first_headers(scope)
        info = self._request_info(scope, headers)
        try:
            response = self._serve(scope, headers, info)
        except ProblemError as err:
            response = render_problem(err, self._instance(info), self.faults)
        except Exception:  # the contract: no input may produce anything but problem+json
            log.exception("address mock: unexpected error for %s", info.instance)
            response = render_problem(ProblemError("serverError"), self._instance(info), self.faults)
        # api-version on every response except 429 (seed part 4 "Response headers").
        if response.status_code != 429 and not self.on(F.API_VERSION_MISSING):
            value = self.config.api_version.encode("latin-1")
            raw = response.raw_headers
            if type(response) is not _Answer and any(name == b"api-version" for name, _ in raw):
                response.headers["api-version"] = self.config.api_version
            else:  # what response.headers["api-version"] = ... does when there is none yet
                raw.append((b"api-version", value))
        return response

    def _instance(self, info: RequestInfo) -> str:
        """The problem `instance` of a request."""
        if self.on(G.PROBLEM_INSTANCE_NOT_URI):
            return f"GET {info.instance}"
        if self.on(PROBLEM_INSTANCE_DECODED):
            return unquote(info.instance)
        if self.on(PROBLEM_INSTANCE_CONSTANT):
            return info.base_path
        return info.raw_path if self.on(G.PROBLEM_INSTANCE_WITHOUT_QUERY) else info.instance

    # --- the pipeline -------------------------------------------------------------------
    def _serve(self, scope: Scope, request_headers: dict[bytes, bytes], info: RequestInfo) -> Response:
        route_path = self._route_path(scope)
        key, policy = self._authenticate(request_headers)
        self._authorise(policy, route_path)
        if self.on(G.TIME_TRAVEL_FORBIDDEN) and _TIME_TRAVEL & {p.split("=", 1)[0] for p in info.raw_query.split("&")}:
            raise ProblemError("autorisation")
        if self.config.maintenance and not self.on(F.MAINTENANCE_IGNORED):
            # Retry-After "may be sent" (seed part 7): the mock sends it, as the public service does.
            back = info.moment + timedelta(seconds=self.config.retry_after_s)
            headers = {"Retry-After": format_datetime(back, usegmt=True)}
            if self.on(G.RETRY_AFTER_IN_SECONDS):
                headers["Retry-After"] = str(self.config.retry_after_s)
            raise ProblemError("notAvailable", headers=headers)
        decision = self.limiter.check(
            key,
            policy,
            info.moment,
            enforce_rate=not self.on(F.RATE_LIMIT_NOT_ENFORCED),
            enforce_day=not self.on(F.DAY_QUOTA_NOT_ENFORCED),
        )
        if not decision.allowed:
            headers = {} if self.on(F.RATE_LIMIT_HEADERS_MISSING_ON_429) else dict(decision.headers)
            raise ProblemError(
                "tooManyRequests", headers=headers, extra={"retryAfter": decision.retry_after_s}
            )

        endpoint, path_id = self._route(route_path)
        if scope["method"] != "GET" and not self.on(G.WRITE_METHODS_SERVED):
            raise ProblemError("methodNotAllowed", headers={"Allow": "GET"})
        self._negotiate(request_headers, endpoint)
        ctx = Context(info, parse_query(scope.get("query_string", b"")), path_id, self.repo, self.faults)
        return self._success(endpoint.handler(ctx), decision, info)

    def _authenticate(self, headers: dict[bytes, bytes]) -> tuple[str, KeyPolicy]:
        key = _header(headers, b"x-api-key")
        if key is None:
            if self.on(F.NO_API_KEY_SERVED):
                return "", KeyPolicy()
            raise ProblemError("authentication")
        policy = self.config.keys.get(key)
        if policy is None:
            if self.on(F.INVALID_KEY_SERVED):
                return key, KeyPolicy()
            raise ProblemError("authentication")
        return key, policy

    def _authorise(self, policy: KeyPolicy, route_path: str) -> None:
        if self.on(F.RESTRICTED_KEY_NOT_ENFORCED):
            return
        base = self.config.base_path
        prefixes = policy.forbidden_prefixes
        if self.on(G.RESTRICTED_POLICY_APPLIED_TO_ALL_KEYS) and route_path.count("/") == 2:
            # A single resource (/adressenuitgebreid/{id}) gets every key's restrictions, whoever asks.
            prefixes = tuple(p for other in self.config.keys.values() for p in other.forbidden_prefixes)
        for prefix in prefixes:
            if prefix.startswith(base + "/"):
                prefix = prefix[len(base) :]
            prefix = prefix.rstrip("/")
            # Whole segments: "/adressen" forbids /adressen/zoek, not /adressenuitgebreid.
            if route_path == prefix or route_path.startswith(prefix + "/"):
                raise ProblemError("autorisation")

    def _route_path(self, scope: Scope) -> str:
        """The path below the base path, or the full path when it is not under it."""
        path: str = scope.get("path", "")
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        base = self.config.base_path
        return path[len(base) :] if path.startswith(base + "/") else path

    def _route(self, route_path: str) -> tuple[Endpoint, str | None]:
        found = _routed(route_path)
        if found is None:
            raise ProblemError("notFound")  # includes a trailing "/" (bag-api.md 4.13)
        return found

    def _negotiate(self, headers: dict[bytes, bytes], endpoint: Endpoint) -> None:
        negotiates = endpoint.negotiates and not self.on(F.ACCEPT_NOT_NEGOTIATED)
        accept = _header(headers, b"accept")
        served = _accept_exact(accept) if self.on(G.ACCEPT_EXACT_MATCH_ONLY) else _accept_ok(accept)
        if negotiates and not served:
            raise ProblemError("notAcceptable", headers=self._on_406())
        one_only = self.on(ACCEPT_CRS_ON_ONE_ENDPOINT_ONLY) and endpoint.handler is not objects.get_one
        if endpoint.accept_crs and not self.on(F.ACCEPT_CRS_NOT_VALIDATED) and not one_only:
            value = _header(headers, b"accept-crs")
            if value is not None and (self.on(G.SUPPORTED_CRS_REJECTED) or value.strip().lower() != CRS):
                raise ProblemError("crsNotAcceptable", headers=self._on_406())
        if endpoint.content_crs and not self.on(F.CONTENT_CRS_NOT_VALIDATED):
            value = _header(headers, b"content-crs")
            if value is not None and (self.on(G.SUPPORTED_CRS_REJECTED) or value.strip().lower() != CRS):
                raise ProblemError("crsNotSupported")

    def _on_406(self) -> dict[str, str]:
        return {} if self.on(G.ACCEPT_CRS_HEADER_MISSING_ON_406) else {"acceptCrs": CRS}

    def _success(self, result: HalResult, decision: Decision, info: RequestInfo) -> Response:
        # The headers as Starlette's Response(headers=..., media_type=...) encodes them:
        # lower-case names, in this order, then content-length and content-type.
        raw: list[tuple[bytes, bytes]] = []
        no_warning, no_pages, wrong_pages, no_crs, no_rate, same_remaining, as_json = self._success_faults
        if not no_warning:
            text = _DEPRECATED_TEXT if result.deprecated else _WARNING_TEXT
            # RFC 7234 5.5: warn-code SP warn-agent SP quoted warn-text (no warn-date).
            raw.append((b"warning", f'299 {info.base_url} "{text}"'.encode("latin-1")))
        if result.paging is not None and not no_pages:
            raw.append((b"x-pagination-page", str(result.paging.page).encode("latin-1")))
            limit = 20 if wrong_pages else result.paging.size
            raw.append((b"x-pagination-limit", str(limit).encode("latin-1")))
        if result.content_crs and not no_crs:
            raw.append((b"content-crs", _CRS_BYTES))
        if not no_rate:
            values = decision.values
            if same_remaining:
                values = (*values[:4], values[3], *values[5:])  # RateLimit-Remaining = RateLimit-Limit
            raw.extend(zip(_RATE_NAMES, values, strict=True))
        if result.body is None:
            body = b""
        elif not self._reshapes_body:
            body = json_bytes(result.body)
        else:
            data = malform_identifiers(result.body) if self.on(F.IDENTIFIERS_MALFORMED) else result.body
            if self.on(S.HUISNUMMER_AS_STRING):
                data = huisnummer_as_string(data)
            if self.on(G.SELF_LINK_MISSING):
                data = drop_self_link(data)
            if self.on(G.EMBEDDED_SELF_LINK_MISSING):
                data = drop_embedded_self_links(data)
            if self.on(C.EXTRA_MEMBER):
                data = with_extra_member(data)
            body = json_bytes(data)
        raw.append((b"content-length", str(len(body)).encode("latin-1")))
        raw.append((b"content-type", _JSON_BYTES if as_json else _HAL_JSON_BYTES))
        return _Answer(body, raw)

    def _request_info(self, scope: Scope, headers: dict[bytes, bytes]) -> RequestInfo:
        raw_path = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "replace")
        host = _header(headers, b"host")
        if not host:
            server = scope.get("server") or ("127.0.0.1", 80)
            host = f"{server[0]}:{server[1]}"
        return RequestInfo(
            origin=G.OTHER_ORIGIN if self.on(G.LINKS_TO_OTHER_ORIGIN) else f"{scope.get('scheme', 'http')}://{host}",
            base_path=self.config.base_path,
            raw_path=raw_path.decode("latin-1"),
            raw_query=scope.get("query_string", b"").decode("latin-1"),
            moment=self.config.now(),
            drop_query_in_self=self.on(F.SELF_LINK_DROPS_QUERY),
        )


def _first_headers(scope: Scope) -> dict[bytes, bytes]:
    """The request's headers by (lower-case) name, the first value of each, as Starlette's
    `Request.headers.get` reads them."""
    return dict(reversed(list(scope["headers"])))


def _header(headers: dict[bytes, bytes], name: bytes) -> str | None:
    value = headers.get(name)
    return None if value is None else value.decode("latin-1")


def _routed(route_path: str) -> tuple[Endpoint, str | None] | None:
    """The endpoint and {id} of a path below the base path."""
    if len(route_path) > _CACHED_LENGTH:
        return _match_route(route_path)
    return _cached_route(route_path)


def _match_route(route_path: str) -> tuple[Endpoint, str | None] | None:
    for endpoint in ENDPOINTS:
        match = endpoint.pattern.fullmatch(route_path)
        if match:
            return endpoint, (match.group(1) if match.groups() else None)
    return None


# Pure functions of a short string, asked on every request (the same values recur); longer
# values are not kept, so the caches stay small whatever clients send.
_CACHED_LENGTH = 128
_cached_route = lru_cache(maxsize=4096)(_match_route)


def accept_ok(value: str | None) -> bool:
    """True when the Accept header admits HAL (a missing or empty header admits anything)."""
    if value is None or not value.strip():
        return True
    for part in value.split(","):
        media, *params = part.split(";")
        if media.strip().lower() not in _ACCEPTABLE:
            continue
        quality = 1.0
        for param in params:
            name, _, number = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(number.strip())
                except ValueError:
                    quality = 0.0
        if quality > 0:
            return True
    return False


def accept_exact(value: str | None) -> bool:
    """Fault accept_exact_match_only: only no Accept or exactly application/hal+json."""
    return value is None or not value.strip() or value.strip() == HAL_JSON


_cached_accept_ok = lru_cache(maxsize=1024)(accept_ok)
_cached_accept_exact = lru_cache(maxsize=1024)(accept_exact)


def _accept_ok(value: str | None) -> bool:
    return accept_ok(value) if value is not None and len(value) > _CACHED_LENGTH else _cached_accept_ok(value)


def _accept_exact(value: str | None) -> bool:
    long = value is not None and len(value) > _CACHED_LENGTH
    return accept_exact(value) if long else _cached_accept_exact(value)


_ID = re.compile(r"[0-9]{16}")


def malform_identifiers(node: Any) -> Any:
    """Fault identifiers_malformed: 16-digit ids in data fields lose their last digit."""
    if isinstance(node, dict):
        return {k: (v if k == "_links" else malform_identifiers(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [malform_identifiers(v) for v in node]
    if isinstance(node, str) and _ID.fullmatch(node):
        return node[:-1]
    return node


def with_extra_member(node: Any) -> Any:
    """Fault extra_member: every resource (an object with `_links`) gains `leverancier`."""
    if isinstance(node, dict):
        out = {k: with_extra_member(v) for k, v in node.items()}
        if "_links" in node and "leverancier" not in node:
            out["leverancier"] = "mock"
        return out
    if isinstance(node, list):
        return [with_extra_member(v) for v in node]
    return node


def huisnummer_as_string(node: Any) -> Any:
    """Fault huisnummer_as_string: every integer `huisnummer` member becomes a JSON string."""
    if isinstance(node, dict):
        return {k: (str(v) if k == "huisnummer" and isinstance(v, int) and not isinstance(v, bool)
                    else huisnummer_as_string(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [huisnummer_as_string(v) for v in node]
    return node
