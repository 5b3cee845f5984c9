"""The rules of passive conformance: for each check that observed traffic can judge, which
observed items it applies to and what it asks of each (suites/passive/ runs them as tests,
`conformance proxy` on each exchange as it passes).

A rule is a function `(traffic, context) -> Selection`, registered with @rule(check_id,
what=...); it never sends anything.
"""

from __future__ import annotations

from conformance.passive.rules import address, auth, soap  # noqa: F401  (they register their rules)
from conformance.passive.rules.registry import RULES, Context, ExchangeRule, Rule, Selection, exchange_rules

__all__ = ["Context", "ExchangeRule", "Rule", "Selection", "all_rules", "exchange_rules"]


def all_rules() -> list[Rule]:
    return sorted(RULES.values(), key=lambda r: r.check)
