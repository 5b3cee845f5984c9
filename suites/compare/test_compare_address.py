"""The vendor's address API against the register's own environment, per operation of the
seed (part 4): status and media type, members the description defines, members it does not
define, the headers the seed fixes; and, first, what the register's environment itself
answers differently to the same request twice (cancelled, listed as an observation).

Every check reads the session's comparison (conftest.py); a check with no request of the
corpus for its operation does not apply.
"""

from __future__ import annotations

import pytest

from conformance.checks.registry import MUST, OBSERVATION, SHOULD, check
from conformance.compare import findings as F
from conformance.compare.address import Comparison, Outcome
from conformance.errors import NotJudged
from conformance.findings import Finding
from conformance.http import evidence
from conformance.openapi.operations import SEED_OPERATIONS

OPERATIONS = list(SEED_OPERATIONS)
MAX_EXAMPLES_ATTACHED = 8


def _outcomes(comparison: Comparison, operation: str) -> list[Outcome]:
    found = [o for o in comparison.outcomes if o.operation == operation]
    if not found:
        raise NotJudged(f"no request of the comparison addresses {operation} ({SEED_OPERATIONS[operation]})",
                        "replay a HAR that has one (--compare-requests), or name a sample it starts from")
    return found


def _judge(what: str, groups: list[F.Group], of: int) -> None:
    if not groups:
        return
    for index, group in enumerate(groups[:MAX_EXAMPLES_ATTACHED], start=1):
        outcome = group.outcomes[0]
        evidence.attach_side_by_side(f"{index:02d} {group.key}: {outcome.request.label}", outcome.reference,
                                           outcome.vendor, F.differences_of(outcome))
    raise Finding(F.message(what, groups, of))


@check("compare.address.volatile", OBSERVATION, "What two identical requests to the register's environment answer differently (cancelled)",
       requirements=["CMP-1.volatile"],
       feature="comparison with the register's environment")
def test_what_the_reference_answers_differently_twice(address_comparison: Comparison, observe) -> None:
    noise = address_comparison.noise
    cancelled = sum(len(o.cancelled) for o in address_comparison.outcomes)
    observe({
        "requests compared": len(address_comparison.outcomes),
        "by source": _sources(address_comparison),
        "volatile paths (per operation)": {op: sorted(paths) for op, paths in sorted(noise.paths.items())},
        "volatile link parameters (per operation and path)": {
            op: {path: sorted(params) for path, params in sorted(links.items())}
            for op, links in sorted(noise.link_params.items())},
        "volatile headers (per operation)": {op: sorted(names) for op, names in sorted(noise.headers.items())},
        "requests whose reference status varied": dict(noise.statuses),
        "differences cancelled as volatile": cancelled,
        "differences ignored ([compare.ignore])": sum(o.ignored for o in address_comparison.outcomes),
        "requests left out": dict(address_comparison.left_out),
    })


def _sources(comparison: Comparison) -> dict[str, int]:
    counts: dict[str, int] = {}
    for o in comparison.outcomes:
        counts[o.request.source] = counts.get(o.request.source, 0) + 1
    return counts


@check("compare.address.status", MUST, "Each request is answered with the status and media type the register's environment answers it with",
       requirements=["ADDR-1.register-data", "ADDR-1.media-type"],
       feature="comparison with the register's environment")
@pytest.mark.parametrize("operation", OPERATIONS)
def test_status_and_media_type(address_comparison: Comparison, operation: str) -> None:
    outcomes = _outcomes(address_comparison, operation)
    _judge("answered with another status or media type than the register's environment",
           F.status_groups(outcomes), len(outcomes))


@check("compare.address.defined_fields", MUST, "Members the description defines hold the register's values, types and collection members",
       requirements=["ADDR-1.register-data", "ADDR-2.schemas"],
       proven_by=["address.last_page_dropped"],
       feature="comparison with the register's environment")
@pytest.mark.parametrize("operation", OPERATIONS)
def test_members_the_description_defines(address_comparison: Comparison, operation: str) -> None:
    outcomes = _outcomes(address_comparison, operation)
    _judge("members the description defines differ from the register's environment",
           F.field_groups(address_comparison, outcomes, defined=True), len(outcomes))


@check("compare.address.other_fields", SHOULD, "Members the description does not define are served as the register's environment serves them",
       requirements=["CMP-1.undescribed"],
       proven_by=["address.extra_member"],
       feature="comparison with the register's environment")
@pytest.mark.parametrize("operation", OPERATIONS)
def test_members_the_description_does_not_define(address_comparison: Comparison, operation: str) -> None:
    outcomes = _outcomes(address_comparison, operation)
    _judge("members the description does not define differ from the register's environment",
           F.field_groups(address_comparison, outcomes, defined=False), len(outcomes))


@check("compare.address.headers", MUST, "The response headers the seed fixes carry the register's values",
       requirements=["ADDR-4.api-version", "ADDR-4.X-Pagination", "ADDR-4.Content-Crs"],
       feature="comparison with the register's environment")
@pytest.mark.parametrize("operation", OPERATIONS)
def test_headers_the_seed_fixes(address_comparison: Comparison, operation: str) -> None:
    outcomes = _outcomes(address_comparison, operation)
    _judge("headers the seed fixes differ from the register's environment",
           F.header_groups(outcomes), len(outcomes))
