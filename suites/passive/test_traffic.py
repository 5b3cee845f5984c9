"""Passive conformance: one test per rule of conformance/passive/rules (each the same check,
with the same id, requirements and severity, that the active suites judge on requests of
their own), over the exchanges of the HAR files of the run (`conformance traffic`)."""

from __future__ import annotations

import pytest

from conformance.passive.rules import Rule, all_rules


def _test(rule: Rule):
    @pytest.mark.check(rule.check)
    def test(observed_traffic, passive_context, judge) -> None:
        judge(rule, observed_traffic, passive_context)

    test.__name__ = test.__qualname__ = "test_" + rule.check.replace(".", "_")
    return test


for _rule in all_rules():
    globals()["test_" + _rule.check.replace(".", "_")] = _test(_rule)
