"""Publishes the client's JWKS documents on loopback, as a client organisation publishes
its keys at the JWKS URI it registered (seed 001 part 4, step 2 of the inquiry API).

One document per name at `GET /jwks/<name>.json`, so each client-credentials client of
the mock can be registered with its own URI. `documents` is read at request time: a test
that rotates keys changes the dict and the next fetch sees it.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


def create_app(documents: dict[str, dict[str, Any]]) -> Starlette:
    async def jwks(request: Request) -> Response:
        document = documents.get(request.path_params["name"])
        if document is None:
            return JSONResponse({"error": "no such JWKS document"}, status_code=404)
        # no-store: a fetch after a rotation must never be answered from a cache.
        return JSONResponse(document, headers={"Cache-Control": "no-store"})

    return Starlette(routes=[Route("/jwks/{name}.json", jwks, methods=["GET"])])
