"""Passive conformance (`conformance traffic FILE.har --profile P`): every test judges one
check on the exchanges of recorded traffic that it applies to, and sends nothing.

Each rule is the same check -- the same id, requirements and severity -- that the active
suites judge on their own requests; the catalogue declares which checks observed traffic
can judge (`observes="exchange"` or `"flow"`), and the run's matrix shows which requirements
the traffic covered and which need an active run.
"""

from __future__ import annotations

import pytest

from conformance.passive.judge import judge_rule
from conformance.passive.rules import Context


@pytest.fixture(scope="session")
def passive_context(profile) -> Context:
    return Context(profile)


@pytest.fixture
def judge(evidence):
    """judge(rule, traffic, context): the rule over every observed item it applies to."""
    return lambda rule, traffic, context: judge_rule(rule, traffic, context, evidence=evidence)


@pytest.fixture(scope="session")
def observed_traffic(conformance_state, profile, redactor):
    """The exchanges of the run's HAR files (--traffic), redacted, sorted by service."""
    if not conformance_state.traffic:
        pytest.skip("not a passive run (conformance traffic FILE.har)")
    from conformance.passive.traffic import load_traffic

    if profile.address is not None:
        redactor.add_header(profile.address.api_key_header)
    return load_traffic(conformance_state.traffic, profile, redactor)
