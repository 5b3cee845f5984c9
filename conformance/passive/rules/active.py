"""The active side of the exchange rules: for each rule of a service, a test that elicits its
scenarios and judges each answer with the rule (suites/<service>/test_exchange_rules.py).

An answer the rule does not apply to (a 429, an error instead of a 200, a refusal where a
token was asked for) leaves nothing to judge: blocked, never passed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.findings import require
from conformance.passive.rules.registry import ExchangeRule, exchange_rules

Fixture = Callable[[str], Any]  # a fixture's value by its name (request.getfixturevalue)


def exchange_rule_tests(service: str, *, fixtures: tuple[str, ...], send: Callable[[Any, Fixture], Any],
                        item_of: Callable[[Any, Fixture], Any]) -> dict[str, Callable[..., None]]:
    """A test per exchange rule of `service`, by its name: `send(scenario, fixture)` elicits one
    answer, `item_of(exchange, fixture)` makes it what the rule judges (None: not the
    service's). `fixtures` are made before each test runs (a test run beside others makes
    none while it runs: conformance/side_by_side.py); the test reads them by name."""
    return {_name(rule): _test(rule, fixtures, send, item_of) for rule in exchange_rules(service)}


def _name(rule: ExchangeRule) -> str:
    return "test_" + rule.check.replace(".", "_")


def _test(rule: ExchangeRule, fixtures: tuple[str, ...], send, item_of) -> Callable[..., None]:
    @pytest.mark.check(rule.check)
    @pytest.mark.parametrize("scenario", list(rule.elicit))
    def test(request, rule_context, scenario: str) -> None:
        ex = send(rule.elicit[scenario], request.getfixturevalue)
        item = item_of(ex, request.getfixturevalue)
        require(item is not None and rule.applies(item, rule_context),
                f"an answer the rule applies to ({rule.what})", ex.summary())
        rule.judge(item, rule_context)

    test.__name__ = test.__qualname__ = _name(rule)
    return pytest.mark.usefixtures(*fixtures)(test) if fixtures else test
