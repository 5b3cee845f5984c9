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
# How a suite elicits a scenario and judges what it got: (rule, scenario, fixture, rule context).
Judge = Callable[[ExchangeRule, Any, Fixture, Any], None]


def exchange_rule_tests(service: str, *, fixtures: tuple[str, ...], judge: Judge) -> dict[str, Callable[..., None]]:
    """A test per exchange rule of `service`, by its name, one case per scenario, judged by
    `judge`. `fixtures` are made before each test runs (a test run beside others makes none
    while it runs: conformance/side_by_side.py); the test reads them by name."""
    return {_name(rule): _test(rule, fixtures, judge) for rule in exchange_rules(service)}


def one_answer(send: Callable[[Any, Fixture], Any], item_of: Callable[[Any, Fixture], Any]) -> Judge:
    """The judge of a service whose scenarios elicit one answer each: `send(scenario, fixture)`
    elicits it, `item_of(exchange, fixture)` makes it what the rule judges (None: not the
    service's)."""
    def judge(rule: ExchangeRule, scenario: Any, fixture: Fixture, ctx: Any) -> None:
        ex = send(scenario, fixture)
        item = item_of(ex, fixture)
        require(item is not None and rule.applies(item, ctx), f"an answer the rule applies to ({rule.what})", ex.summary())
        rule.judge(item, ctx)
    return judge


def _name(rule: ExchangeRule) -> str:
    return "test_" + rule.check.replace(".", "_")


def _test(rule: ExchangeRule, fixtures: tuple[str, ...], judge: Judge) -> Callable[..., None]:
    @pytest.mark.check(rule.check)
    @pytest.mark.parametrize("scenario", list(rule.elicit))
    def test(request, rule_context, scenario: str) -> None:
        judge(rule, rule.elicit[scenario], request.getfixturevalue, rule_context)

    test.__name__ = test.__qualname__ = _name(rule)
    return pytest.mark.usefixtures(*fixtures)(test) if fixtures else test
