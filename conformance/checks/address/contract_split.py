"""Contract fuzzing's findings split by where the broken constraint comes from.

The description marks the constraints the seed does not state with `x-conformance-source:
public` (conformance/openapi/seed_view.py). Requests are generated from the whole description
(an identifier with the public pattern reaches real data more often); each finding of
schemathesis's two checks that read the description's constraints is then judged against the
description's seed view too:

* response_schema_conformance: the MUST tests validate the answer against the seed view's
  response schema; the SHOULD test (address.contract.public_behaviour) fails an answer that
  breaks the whole description's schema but not the seed view's.
* negative_data_rejection: a negative request whose values all still satisfy the seed view's
  parameters (a malformed identifier, an expand outside the grammar) breaks only public
  constraints. Accepting it is the SHOULD test's finding; the MUST tests judge the others.

Without a seed view (a description without marks) the MUST tests judge every constraint and
the SHOULD test does not apply.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemathesis.specs.openapi.checks import (
    _non_body_negative_values_match_schema,
    response_schema_conformance,
)

Check = Callable[[Any, Any, Any], Any]


def seed_case(case: Any, seed_schema: Any) -> Any:
    """The case as a case of the same operation of the seed view."""
    # Slot by slot past Case.__setattr__ (which reads the metadata a plain copy has not set yet).
    twin = object.__new__(type(case))
    for cls in type(case).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(case, slot):
                object.__setattr__(twin, slot, getattr(case, slot))
    object.__setattr__(twin, "operation", seed_schema[case.operation.path][case.operation.method.upper()])
    return twin


def only_public_negative(response: Any, case: Any, seed_schema: Any) -> bool:
    """A negative request whose values every one still satisfy the seed view's parameters."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_negative:
        return False
    return _non_body_negative_values_match_schema(response, seed_case(case, seed_schema))


def built_in_statement(failure: Any) -> set[str] | None:
    """What a failure of schemathesis's own checks states, in the words of the harness's rule
    that judges the same property of every answer (one defect, one root cause: a missing
    api-version fails both the custom check and response_headers_conformance); None for a
    failure no rule of the harness restates (it keeps its own title)."""
    from conformance.checks.address.headers import HAL_MEDIA_TYPE, header_cause

    missing = getattr(failure, "missing_headers", None)
    if missing:
        return {header_cause(name) for name in missing}
    defined = getattr(failure, "defined_content_types", None)
    if defined is not None:
        if any(HAL_MEDIA_TYPE in str(t) for t in defined):
            return {"success response is not application/hal+json"}
        if any("problem+json" in str(t) for t in defined):
            return {"error response is not problem+json"}
    return None


def _named(check: Check, like: Check) -> Check:
    check.__name__ = like.__name__  # findings name the check as schemathesis does
    check.__qualname__ = like.__qualname__
    return check


def seed_response_schema(seed_schema: Any) -> Check:
    """MUST: the answer against the seed view's response schema."""
    def check(ctx, response, case):
        return response_schema_conformance(ctx, response, seed_case(case, seed_schema))
    return _named(check, response_schema_conformance)


def public_response_schema(seed_schema: Any) -> Check:
    """SHOULD: the answer against the whole description's schema, when the seed view's holds."""
    def check(ctx, response, case):
        try:
            response_schema_conformance(ctx, response, seed_case(case, seed_schema))
        except (AssertionError, BaseExceptionGroup):  # schemathesis's Failure, or a group of them
            return None  # the seed's constraint broke: the MUST test's finding
        return response_schema_conformance(ctx, response, case)
    return _named(check, response_schema_conformance)


def seed_negative_rejection(seed_schema: Any, rejection: Check) -> Check:
    """MUST: negative requests that break a seed constraint are refused."""
    def check(ctx, response, case):
        if only_public_negative(response, case, seed_schema):
            return None
        return rejection(ctx, response, case)
    return _named(check, rejection)


def public_negative_rejection(seed_schema: Any, rejection: Check) -> Check:
    """SHOULD: negative requests that break only public constraints are refused."""
    def check(ctx, response, case):
        if not only_public_negative(response, case, seed_schema):
            return None
        return rejection(ctx, response, case)
    return _named(check, rejection)
