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
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from conformance.mocks.address import addresses, objects
from conformance.mocks.address import faults as F
from conformance.mocks.address import faults_general as G
from conformance.mocks.address import faults_schema as S
from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
from conformance.mocks.address.context import Context, HalResult
from conformance.mocks.address.hal import RequestInfo, drop_embedded_self_links, drop_self_link
from conformance.mocks.address.params import parse_query
from conformance.mocks.address.problems import ProblemError, json_bytes, render_problem
from conformance.mocks.address.ratelimit import Decision, RateLimiter
from conformance.mocks.address.repository import Repository
from conformance.mocks.faults import Fault, FaultSet

log = logging.getLogger(__name__)

HAL_JSON = "application/hal+json"
CRS = "epsg:28992"
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
        self.limiter = RateLimiter()
        self._repo: Repository | None = None

    def on(self, fault: Fault) -> bool:
        return self.faults.on(fault.name)

    @property
    def repo(self) -> Repository:
        # Opened lazily so an app can be created before the database file exists.
        if self._repo is None:
            self._repo = Repository(self.config.db_path)
        return self._repo

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await self.handle(Request(scope, receive))
        await response(scope, receive, send)

    async def handle(self, request: Request) -> Response:
        info = self._request_info(request)
        instance = info.raw_path if self.on(G.PROBLEM_INSTANCE_WITHOUT_QUERY) else info.instance
        try:
            response = self._serve(request, info)
        except ProblemError as err:
            response = render_problem(err, instance, self.faults)
        except Exception:  # the contract: no input may produce anything but problem+json
            log.exception("address mock: unexpected error for %s", info.instance)
            response = render_problem(ProblemError("serverError"), instance, self.faults)
        # api-version on every response except 429 (seed part 4 "Response headers").
        if response.status_code != 429 and not self.on(F.API_VERSION_MISSING):
            response.headers["api-version"] = self.config.api_version
        return response

    # --- the pipeline -------------------------------------------------------------------
    def _serve(self, request: Request, info: RequestInfo) -> Response:
        route_path = self._route_path(request)
        key, policy = self._authenticate(request)
        self._authorise(policy, route_path)
        if self.on(G.TIME_TRAVEL_FORBIDDEN) and _TIME_TRAVEL & {p.split("=", 1)[0] for p in info.raw_query.split("&")}:
            raise ProblemError("autorisation")
        if self.config.maintenance and not self.on(F.MAINTENANCE_IGNORED):
            headers = {}
            if not self.on(F.RETRY_AFTER_MISSING):
                back = info.moment + timedelta(seconds=self.config.retry_after_s)
                headers["Retry-After"] = format_datetime(back, usegmt=True)
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
        if request.method != "GET" and not self.on(G.WRITE_METHODS_SERVED):
            raise ProblemError("methodNotAllowed", headers={"Allow": "GET"})
        self._negotiate(request, endpoint)
        ctx = Context(
            info, parse_query(request.scope.get("query_string", b"")), path_id, self.repo, self.faults
        )
        return self._success(endpoint.handler(ctx), decision, info)

    def _authenticate(self, request: Request) -> tuple[str, KeyPolicy]:
        key = request.headers.get("x-api-key")
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

    def _route_path(self, request: Request) -> str:
        """The path below the base path, or the full path when it is not under it."""
        path: str = request.scope.get("path", "")
        root = request.scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        base = self.config.base_path
        return path[len(base) :] if path.startswith(base + "/") else path

    def _route(self, route_path: str) -> tuple[Endpoint, str | None]:
        for endpoint in ENDPOINTS:
            match = endpoint.pattern.fullmatch(route_path)
            if match:
                return endpoint, (match.group(1) if match.groups() else None)
        raise ProblemError("notFound")  # includes a trailing "/" (bag-api.md 4.13)

    def _negotiate(self, request: Request, endpoint: Endpoint) -> None:
        negotiates = endpoint.negotiates and not self.on(F.ACCEPT_NOT_NEGOTIATED)
        accept = request.headers.get("accept")
        served = accept_exact(accept) if self.on(G.ACCEPT_EXACT_MATCH_ONLY) else accept_ok(accept)
        on_406 = {} if self.on(G.ACCEPT_CRS_HEADER_MISSING_ON_406) else {"acceptCrs": CRS}
        any_crs_refused = self.on(G.SUPPORTED_CRS_REJECTED)
        if negotiates and not served:
            raise ProblemError("notAcceptable", headers=dict(on_406))
        if endpoint.accept_crs and not self.on(F.ACCEPT_CRS_NOT_VALIDATED):
            value = request.headers.get("accept-crs")
            if value is not None and (any_crs_refused or value.strip().lower() != CRS):
                raise ProblemError("crsNotAcceptable", headers=dict(on_406))
        if endpoint.content_crs and not self.on(F.CONTENT_CRS_NOT_VALIDATED):
            value = request.headers.get("content-crs")
            if value is not None and (any_crs_refused or value.strip().lower() != CRS):
                raise ProblemError("crsNotSupported")

    def _success(self, result: HalResult, decision: Decision, info: RequestInfo) -> Response:
        headers: dict[str, str] = {}
        if not self.on(F.WARNING_HEADER_MISSING):
            text = _DEPRECATED_TEXT if result.deprecated else _WARNING_TEXT
            # RFC 7234 5.5: warn-code SP warn-agent SP quoted warn-text (no warn-date).
            headers["warning"] = f'299 {info.base_url} "{text}"'
        if result.paging is not None and not self.on(F.PAGINATION_HEADERS_MISSING):
            headers["X-Pagination-Page"] = str(result.paging.page)
            limit = 20 if self.on(F.PAGINATION_HEADERS_WRONG) else result.paging.size
            headers["X-Pagination-Limit"] = str(limit)
        if result.content_crs and not self.on(F.CONTENT_CRS_MISSING):
            headers["Content-Crs"] = CRS
        if not self.on(F.RATE_LIMIT_HEADERS_MISSING):
            headers.update(decision.headers)
            if self.on(G.RATE_LIMIT_REMAINING_NOT_DECREMENTED):
                headers["RateLimit-Remaining"] = decision.headers["RateLimit-Limit"]
        if result.body is None:
            body = b""
        else:
            data = malform_identifiers(result.body) if self.on(F.IDENTIFIERS_MALFORMED) else result.body
            if self.on(S.HUISNUMMER_AS_STRING):
                data = huisnummer_as_string(data)
            if self.on(G.SELF_LINK_MISSING):
                data = drop_self_link(data)
            if self.on(G.EMBEDDED_SELF_LINK_MISSING):
                data = drop_embedded_self_links(data)
            body = json_bytes(data)
        media = "application/json" if self.on(F.HAL_SERVED_AS_JSON) else HAL_JSON
        return Response(body, status_code=200, headers=headers, media_type=media)

    def _request_info(self, request: Request) -> RequestInfo:
        scope = request.scope
        raw_path = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "replace")
        host = request.headers.get("host")
        if not host:
            server = scope.get("server") or ("127.0.0.1", 80)
            host = f"{server[0]}:{server[1]}"
        return RequestInfo(
            origin=f"{scope.get('scheme', 'http')}://{host}",
            base_path=self.config.base_path,
            raw_path=raw_path.decode("latin-1"),
            raw_query=scope.get("query_string", b"").decode("latin-1"),
            moment=self.config.now(),
            drop_query_in_self=self.on(F.SELF_LINK_DROPS_QUERY),
        )


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


def huisnummer_as_string(node: Any) -> Any:
    """Fault huisnummer_as_string: every integer `huisnummer` member becomes a JSON string."""
    if isinstance(node, dict):
        return {k: (str(v) if k == "huisnummer" and isinstance(v, int) and not isinstance(v, bool)
                    else huisnummer_as_string(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [huisnummer_as_string(v) for v in node]
    return node
