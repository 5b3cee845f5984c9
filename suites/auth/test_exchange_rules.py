"""The authorization server's rules one exchange can show broken, judged on answers of the
run's own.

Each rule is declared once, where it is judged (conformance/passive/rules/auth.py,
`exchange_rule`): its check, the answers it applies to, and the fixtures of this suite that
elicit such an answer (a token response of the code exchange, of client credentials, of a
refresh). Here each is asked for and its answer judged by the rule; the same rule judges every
exchange of the run at its end (suites/passive) and of a capture (`conformance traffic`). An
answer the rule does not apply to (a refusal where a token was asked for) leaves nothing to
judge: blocked, never passed.
"""

from __future__ import annotations

import pytest

from conformance.passive.rules import Context
from conformance.passive.rules.active import exchange_rule_tests, one_answer
from conformance.passive.traffic import auth_exchange


@pytest.fixture(scope="session")
def rule_context(profile) -> Context:
    return Context(profile)


# The scenarios take the fixture getter: each asks for the token response of one flow.
globals().update(exchange_rule_tests(
    "auth", fixtures=(), judge=one_answer(send=lambda scenario, fixture: scenario(fixture),
                                          item_of=lambda ex, fixture: auth_exchange(ex))))
