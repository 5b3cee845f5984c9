"""The address API's rules, as schemathesis checks of the contract fuzzing's answers.

Each rule one exchange can show broken is declared once, in conformance/passive/rules/
address.py (`exchange_rule`); `rule_checks` makes a schemathesis check of each, which applies
it to a generated answer as the passive run applies it to every exchange: nothing is written
twice. The fuzzing's own rules, which no exchange rule has (paging links, identifier formats),
are written here. Registered with @schemathesis.check too, so a plain `schemathesis run` can
use them (`SCHEMATHESIS_HOOKS=conformance.checks.address.st_checks`), judged with the header
names of the seed (the shipped local-mock profile). Each check first makes sure the operation
is one of the seed's: found by method and path template relative to the base URL, whatever
the description calls it or whatever path prefix the deployment has
(conformance.openapi.operations).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import schemathesis

from conformance.checks.address import hal, headers, identifiers
from conformance.http.exchange import Exchange, from_schemathesis
from conformance.openapi.operations import seed_operation
from conformance.passive.rules import Context, ExchangeRule, exchange_rules
from conformance.passive.traffic import AddressExchange, address_exchange

# The last answer adapted, per thread: schemathesis hands one answer to each check in turn
# (some twenty), and adapting it for each was most of what judging a fuzzed answer cost.
_adapted = threading.local()


def _address_exchange(response: object, case: object) -> Exchange | None:
    """The exchange, when the case's operation is one of the seed's."""
    operation = case.operation  # type: ignore[attr-defined]
    if seed_operation(operation.method, operation.path) is None:
        return None
    last = getattr(_adapted, "last", None)
    if last is not None and last[0] is response:
        return last[1]
    ex = from_schemathesis(response)  # an Exchange is immutable: every check may share it
    _adapted.last = (response, ex)
    return ex


def _traffic_item(response: object, case: object) -> AddressExchange | None:
    """The answer as the passive run holds an exchange, for the exchange rules: made once per
    answer too."""
    ex = _address_exchange(response, case)
    if ex is None:
        return None
    last = getattr(_adapted, "item", None)
    if last is not None and last[0] is ex:
        return last[1]
    item = address_exchange(ex, _base_url(ex, case))
    _adapted.item = (ex, item)
    return item


def _relative(ex: Exchange, case: object) -> str:
    """The request path below the base URL's path (`/adressen/0363...`)."""
    base_path = case.operation.schema.base_path.rstrip("/")  # type: ignore[attr-defined]
    return ex.path[len(base_path):] if base_path and ex.path.startswith(base_path) else ex.path


def _base_url(ex: Exchange, case: object) -> str:
    """The base URL the answer was asked below: the request's origin and the schema's base path."""
    url = urlsplit(ex.url)
    return f"{url.scheme}://{url.netloc}{case.operation.schema.base_path.rstrip('/')}"  # type: ignore[attr-defined]


def _rule_check(rule: ExchangeRule, context: Callable[[], Context]) -> Callable[[Any, Any, Any], None]:
    def judge(ctx, response, case) -> None:
        item = _traffic_item(response, case)
        if item is not None and rule.applies(item, context()):
            rule.judge(item, context())

    judge.__name__ = judge.__qualname__ = rule.check  # a finding names the rule's check
    return judge


def rule_checks(severity: str, context: Callable[[], Context]) -> list[Callable[[Any, Any, Any], None]]:
    """A schemathesis check for each address exchange rule of `severity`, judged in `context`."""
    return [_rule_check(rule, context) for rule in exchange_rules("address") if rule.severity == severity]


# ---- SHOULD rules of the fuzzing alone (public behaviour; no exchange rule has them) --------
@schemathesis.check
def address_paging_links(ctx, response, case) -> None:
    """bag-api.md 4.1: paging links appear only where they apply and point to the right pages."""
    ex = _address_exchange(response, case)
    if ex is None or ex.status != 200 or not headers.is_paginated_operation(_relative(ex, case)):
        return
    page, _ = headers.requested_paging(ex)
    if page is not None:  # a page that is no integer: which links apply cannot be said
        hal.paging_links_consistent(ex, page=page)


@schemathesis.check
def address_identifier_patterns(ctx, response, case) -> None:
    """bag-api.md 2.1: identifiers in responses match their patterns."""
    ex = _address_exchange(response, case)
    if ex is None or ex.status != 200:
        return
    identifiers.identifiers_match_patterns(ex)


SHOULD_CHECKS = (address_paging_links, address_identifier_patterns)


@cache
def seed_context() -> Context:
    """A plain `schemathesis run`'s context: the seed's header names (the local-mock profile)."""
    from conformance.profiles import load_profile

    return Context(load_profile("local-mock"))


# A plain `schemathesis run` (SCHEMATHESIS_HOOKS) judges every rule, with the seed's header names.
for _severity in ("MUST", "SHOULD"):
    for _judge in rule_checks(_severity, seed_context):
        schemathesis.check(_judge)
