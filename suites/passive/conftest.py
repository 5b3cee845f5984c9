"""Passive conformance (`conformance traffic FILE.har --profile P`): every test judges one
check on the exchanges of recorded traffic that it applies to, and sends nothing.

Each rule here is the same check -- the same id, requirements and severity -- that the
active suites judge on their own requests; the catalogue declares which checks one
observed exchange can judge (`observes="exchange"`), and the run's matrix shows which
requirements the traffic covered and which need an active run.
"""

from __future__ import annotations

import pytest

from conformance.passive.judge import judge_each


@pytest.fixture
def judge(evidence):
    """judge(items, rule, what=...): `rule` over the observed address exchanges it applies to;
    it gets each Exchange, or with `whole=True` the AddressExchange (its relative path too)."""
    def run(items, rule, *, what: str, whole: bool = False) -> int:
        return judge_each(items, rule if whole else (lambda a: rule(a.exchange)), label=lambda a: a.label,
                          what=what, evidence=lambda bad: evidence([a.exchange for a in bad]))
    return run
