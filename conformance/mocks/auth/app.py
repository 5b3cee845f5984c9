"""The mock authorization server: one Starlette app on one origin (docs/auth-design.md).

    GET       /auth/oauth/v2/authorize                       authorize.py
    GET,POST  /auth/login, /auth/consent                      authorize.py (plain HTML forms)
    POST      /auth/oauth/v2/token                           token_endpoint.py
    GET       /filing/aanbiedenverzoeken/v1/aanbiedenVerzoeken.wsdl, /inquiry/registry-inzage/v6
                                                             resources.py
    GET,POST  /__mock__/clock                                here; loopback clients only

Faithful to RFC 6749/6750/7636/7523 unless a fault of faults.py is switched on. Malformed
input of any kind gets a 4xx from the endpoint itself; the safety net below only turns a
bug into a bare 500 without a traceback.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from conformance.mocks.auth import authorize, resources, token_endpoint
from conformance.mocks.auth.config import AuthMockConfig
from conformance.mocks.auth.forms import FormError, finite_number, read_body
from conformance.mocks.auth.state import AuthMock
from conformance.mocks.faults import FaultSet

log = logging.getLogger(__name__)

AUTHORIZE_PATH = "/auth/oauth/v2/authorize"
TOKEN_PATH = "/auth/oauth/v2/token"
FILING_WSDL_PATH = "/filing/aanbiedenverzoeken/v1/aanbiedenVerzoeken.wsdl"
INQUIRY_PATH = "/inquiry/registry-inzage/v6"
CLOCK_PATH = "/__mock__/clock"
MAX_ADVANCE_S = 10 * 365 * 86400
_ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

Handler = Callable[[AuthMock, Request], Awaitable[Response]]


def create_app(config: AuthMockConfig, faults: FaultSet) -> Starlette:
    mock = AuthMock(config, faults)

    def route(path: str, handler: Handler) -> Route:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(mock, request)
            except Exception:  # a bug, never an answer to input: no traceback leaves the mock
                log.exception("auth mock: unexpected error on %s %s", request.method, path)
                return JSONResponse({"error": "server_error"}, status_code=500)

        return Route(path, endpoint, methods=_ALL_METHODS)

    app = Starlette(routes=[
        route(AUTHORIZE_PATH, authorize.authorize),
        route(authorize.LOGIN_PATH, authorize.login),
        route(authorize.CONSENT_PATH, authorize.consent),
        route(TOKEN_PATH, token_endpoint.token),
        route(FILING_WSDL_PATH, resources.filing),
        route(INQUIRY_PATH, resources.inquiry),
        route(CLOCK_PATH, clock),
    ])
    app.router.redirect_slashes = False
    app.state.mock = mock  # for tests and the launcher: the live state of this server
    return app


def is_loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def clock(mock: AuthMock, request: Request) -> Response:
    """The mock clock: never part of a real environment, so only a loopback client may use it."""
    if not is_loopback(request.client.host if request.client else None):
        return JSONResponse({"error": "the mock clock answers loopback clients only"}, status_code=403)
    if request.method == "GET":
        return JSONResponse({"now": mock.now()})
    if request.method != "POST":
        return JSONResponse({"error": "GET or POST"}, status_code=405, headers={"Allow": "GET, POST"})
    try:
        data = json.loads(await read_body(request, 1024))
    except (FormError, ValueError, UnicodeDecodeError, RecursionError):
        return JSONResponse({"error": 'the body must be JSON {"advance_s": N}'}, status_code=400)
    seconds = data.get("advance_s") if isinstance(data, dict) else None
    if not finite_number(seconds, MAX_ADVANCE_S) or seconds < 0:
        return JSONResponse({"error": f"advance_s must be a number from 0 to {MAX_ADVANCE_S}"}, status_code=400)
    mock.config.clock.advance(seconds)
    return JSONResponse({"now": mock.now()})
