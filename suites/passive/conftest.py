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
    """judge(items, rule, what=...): `rule` over the observed exchanges it applies to. It gets
    each item's Exchange, or with `whole=True` the item itself (its relative path, its facts);
    `label` and `exchange` say how to name an item and which exchange is its evidence."""
    def run(items, rule, *, what: str, whole: bool = False, label=lambda a: a.label,
            exchange=lambda a: a.exchange) -> int:
        return judge_each(items, rule if whole else (lambda a: rule(exchange(a))), label=label, what=what,
                          evidence=lambda bad: evidence([exchange(a) for a in bad]))
    return run


@pytest.fixture(scope="session")
def soap_contract(profile):
    """The WSDL and types schema the profile names (the shipped pair by default)."""
    from pathlib import Path

    from conformance.errors import NotApplicable
    from conformance.soap.loader import load_contract

    service = profile.soap
    if service is None:
        raise NotApplicable(f"profile {profile.name} has no SOAP message service")
    return load_contract(Path(service.wsdl) if service.wsdl else None, soap_url=service.base_url or "",
                         soap_action_base=service.soap_action_base)
