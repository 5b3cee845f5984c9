"""The SOAP message service's rules one exchange can show broken, judged on answers of the
run's own.

Each rule is declared once, where it is judged (conformance/passive/rules/soap.py,
`exchange_rule`): its check, the answers it applies to, and the scenario that elicits them --
the run's valid batch, or a request with the wrong Body element for the Fault rules. Here
each scenario is sent and every answer it got judged by the rule; the same rule judges every
exchange of the run at its end (suites/passive) and of a capture (`conformance traffic`).

An answer the rule does not apply to leaves nothing to judge: `blocked`, never passed. A
refused valid request blocks under the refusal's cause, the one soap.response.status_ok fails
under ("valid GraafberichtServiceRequest -> HTTP 500 Server Fault"), so the run lists that one
refusal once with every check it took down; a bad request answered without a Fault blocks the
Fault rules (its acceptance is soap.request.wrong_body_element_rejected's finding).
"""

from __future__ import annotations

import pytest

from conformance.checks.soap.support import SoapSuite
from conformance.findings import require
from conformance.passive.rules import Context
from conformance.passive.rules.active import exchange_rule_tests
from conformance.passive.traffic import SoapExchange


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@pytest.fixture(scope="module")
def rule_context(profile, suite: SoapSuite) -> Context:
    return Context(profile, suite.contract)  # the rules read the WSDL the suite loaded


def _judge(rule, scenario, fixture, ctx) -> None:
    def judge(exchange, unanswered) -> None:
        item = SoapExchange(exchange)
        if not rule.applies(item, ctx):
            unanswered(exchange)
            require(False, f"an answer the rule applies to ({rule.what})", exchange.summary())
        rule.judge(item, ctx)

    scenario(fixture("suite"), judge)


globals().update(exchange_rule_tests("soap", fixtures=("suite",), judge=_judge))
