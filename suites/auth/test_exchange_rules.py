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

from conformance.findings import require
from conformance.passive.rules import Context, ExchangeRule, exchange_rules
from conformance.passive.traffic import auth_exchange


@pytest.fixture(scope="session")
def rule_context(profile) -> Context:
    return Context(profile)


def _test(rule: ExchangeRule):
    @pytest.mark.check(rule.check)
    @pytest.mark.parametrize("scenario", list(rule.elicit))
    def test(request, rule_context, scenario: str) -> None:
        ex = rule.elicit[scenario](request.getfixturevalue)
        item = auth_exchange(ex)
        require(item is not None and rule.applies(item, rule_context),
                f"an answer the rule applies to ({rule.what})", ex.summary())
        rule.judge(item, rule_context)

    test.__name__ = test.__qualname__ = "test_" + rule.check.replace(".", "_")
    return test


for _rule in exchange_rules("auth"):
    globals()["test_" + _rule.check.replace(".", "_")] = _test(_rule)
