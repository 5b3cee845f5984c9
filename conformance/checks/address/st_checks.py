"""The address domain checks, registered as schemathesis checks.

Registered with @schemathesis.check, so a plain `schemathesis run` can use them too
(`SCHEMATHESIS_HOOKS=conformance.checks.address.st_checks`). The registry is global to
the process, so each check first makes sure the operation is one of the seed's: found by
method and path template relative to the base URL, whatever the description calls it or
whatever path prefix the deployment has (conformance.openapi.operations).
"""

from __future__ import annotations

import schemathesis

from conformance.checks.address import hal, headers, identifiers, problem
from conformance.http.exchange import Exchange, from_schemathesis
from conformance.openapi.operations import seed_operation


def _address_exchange(response: object, case: object) -> Exchange | None:
    """The exchange, when the case's operation is one of the seed's."""
    operation = case.operation  # type: ignore[attr-defined]
    if seed_operation(operation.method, operation.path) is None:
        return None
    return from_schemathesis(response)


def _relative(ex: Exchange, case: object) -> str:
    """The request path below the base URL's path (`/adressen/0363...`)."""
    base_path = case.operation.schema.base_path.rstrip("/")  # type: ignore[attr-defined]
    return ex.path[len(base_path):] if base_path and ex.path.startswith(base_path) else ex.path


# ---- MUST (seed) --------------------------------------------------------------------
@schemathesis.check
def address_problem_json(ctx, response, case) -> None:
    """Seed part 2 and 7: errors are problem+json with the members and the code of the status."""
    ex = _address_exchange(response, case)
    if ex is None or ex.status < 400 or ex.status == 405:
        return
    problem.is_problem_media_type(ex)
    problem.has_problem_members(ex)
    problem.has_code_of_status(ex, allow_public=True)
    if ex.status == 400 and "invalid-params" in problem.problem_body(ex):
        problem.invalid_params(ex)


@schemathesis.check
def address_api_version(ctx, response, case) -> None:
    """Seed part 4 and 9: api-version on every response except 429."""
    ex = _address_exchange(response, case)
    if ex is None or ex.status == 429:
        return
    headers.has_api_version(ex)


@schemathesis.check
def address_pagination_headers(ctx, response, case) -> None:
    """Seed part 4: X-Pagination-Page/Limit on paginated 200s (headers.pagination_headers)."""
    ex = _address_exchange(response, case)
    relative = _relative(ex, case) if ex is not None else ""
    if ex is None or ex.status != 200 or not headers.is_paginated_operation(relative):
        return
    headers.pagination_headers(ex, relative)


@schemathesis.check
def address_success_media_type(ctx, response, case) -> None:
    """Seed part 1: success responses are application/hal+json."""
    ex = _address_exchange(response, case)
    if ex is None or ex.status != 200:
        return
    headers.is_hal_json(ex)


# ---- SHOULD (public behaviour) ----------------------------------------------------------
@schemathesis.check
def address_self_link(ctx, response, case) -> None:
    """bag-api.md 4.2: _links.self reflects the request (path and query)."""
    ex = _address_exchange(response, case)
    if ex is None or ex.status != 200:
        return
    hal.self_link_reflects_request(ex, below_base=_relative(ex, case))


@schemathesis.check
def address_paging_links(ctx, response, case) -> None:
    """bag-api.md 4.1: paging links appear only where they apply and point to the right pages."""
    ex = _address_exchange(response, case)
    if ex is None or ex.status != 200 or not headers.is_paginated_operation(_relative(ex, case)):
        return
    page, _ = headers.requested_paging(ex)
    hal.paging_links_consistent(ex, page=page)


@schemathesis.check
def address_identifier_patterns(ctx, response, case) -> None:
    """bag-api.md 2.1: identifiers in responses match their patterns."""
    ex = _address_exchange(response, case)
    if ex is None or ex.status != 200:
        return
    identifiers.identifiers_match_patterns(ex)


MUST_CHECKS = (address_problem_json, address_api_version, address_pagination_headers, address_success_media_type)
SHOULD_CHECKS = (address_self_link, address_paging_links, address_identifier_patterns)
