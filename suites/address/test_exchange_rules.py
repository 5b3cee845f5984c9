"""The address API's rules one exchange can show broken, judged on answers of the run's own.

Each rule is declared once, where it is judged (conformance/passive/rules/address.py,
`exchange_rule`): its check, the answers it applies to, and the scenarios that elicit such an
answer. Here each scenario is sent and its answer judged by the rule; the same rule judges
every exchange of the run at its end (suites/passive) and of a capture (`conformance traffic`).
A scenario whose answer the rule does not apply to (a 429, an error instead of a 200) leaves
nothing to judge: blocked, never passed.
"""

from __future__ import annotations

import pytest

from conformance.passive.rules import Context
from conformance.passive.rules.active import exchange_rule_tests, one_answer
from conformance.passive.traffic import address_exchange


@pytest.fixture(scope="session")
def rule_context(profile) -> Context:
    return Context(profile)


globals().update(exchange_rule_tests(
    "address", fixtures=("address_api",),
    judge=one_answer(send=lambda scenario, fixture: scenario(fixture("address_api")),
                     item_of=lambda ex, fixture: address_exchange(ex, fixture("address_api").base_url))))
