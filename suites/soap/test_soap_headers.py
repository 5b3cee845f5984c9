"""Header entries (SOAP 1.1 2 and 4.2, WS-I Basic Profile 1.1 R1013, R1027).

The service understands no header entry of the probe namespace. A mandatory entry for it
(mustUnderstand "1", no actor or the actor .../soap/actor/next) must fail the message with a
MustUnderstand Fault; an optional entry, an entry for another actor and a mustUnderstand
below an entry must not change the answer. Each test adds the entries to requests of the
run's valid batch, whose answers to the unchanged requests are the controls: a refused
control makes the check `blocked`; "the answer" an entry must not change is the control's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.checks.soap import messages, probes
from conformance.checks.soap.probes import ACTOR_NEXT, OTHER_ACTOR, Probe
from conformance.checks.soap.support import Sent, SoapSuite
from conformance.http.exchange import Exchange

# A header rule needs no variety in the message: a few requests are enough.
FEW = 3
# judge(answer with the entry, answer to the unchanged request)
Judge = Callable[[Exchange, Exchange], None]


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


def _with_entries(suite: SoapSuite, entries: list[dict[str, Any]], judge: Judge) -> None:
    def variants(sent: Sent) -> list[Probe]:
        made = []
        for options in entries:
            entry = probes.header_entry(**options)
            nested = ' (and mustUnderstand="1" on its child)' if options.get("nested_must_understand") else ""
            made.append(Probe(probes.describe_entry(entry) + nested, probes.with_header(sent.request, entry)))
        return made

    suite.judge_variants(variants, lambda exchange, _probe, sent: judge(exchange, sent.exchange),
                         requests=FEW, collect=True)


def _refused_as_must_understand(exchange: Exchange, _control: Exchange) -> None:
    messages.check_must_understand_fault(exchange)


def _refused_either_way(exchange: Exchange, _control: Exchange) -> None:
    messages.check_rejected(exchange, codes=("MustUnderstand", "Client"))


def _unchanged(suite: SoapSuite) -> Judge:
    return lambda exchange, control: messages.check_processed(exchange, control, suite.contract,
                                                              what="the request with the header entry")


@pytest.mark.check("soap.header.must_understand_fault")
@pytest.mark.negative
def test_mandatory_header_gets_must_understand_fault(suite: SoapSuite) -> None:
    entries = [{"must_understand": "1"}, {"must_understand": "1", "actor": ACTOR_NEXT}]
    _with_entries(suite, entries, _refused_as_must_understand)


@pytest.mark.check("soap.header.must_understand_true_refused")
@pytest.mark.negative
def test_must_understand_true_is_not_ignored(suite: SoapSuite) -> None:
    # "true" is no SOAP 1.1 value (4.2.3: "1" or "0"; BP R1013): read as xsd:boolean it is
    # mandatory (MustUnderstand), read strictly the envelope is wrong (Client). Either refuses.
    entries = [{"must_understand": "true"}, {"must_understand": "true", "actor": ACTOR_NEXT}]
    _with_entries(suite, entries, _refused_either_way)


@pytest.mark.check("soap.header.optional_ignored")
def test_optional_header_does_not_change_the_answer(suite: SoapSuite) -> None:
    entries = [{"must_understand": "0"}, {}, {"must_understand": "0", "actor": ACTOR_NEXT}]
    _with_entries(suite, entries, _unchanged(suite))


@pytest.mark.check("soap.header.other_actor_ignored")
def test_header_for_another_actor_is_ignored(suite: SoapSuite) -> None:
    _with_entries(suite, [{"must_understand": "1", "actor": OTHER_ACTOR}], _unchanged(suite))


@pytest.mark.check("soap.header.nested_attribute_ignored")
def test_must_understand_below_an_entry_is_ignored(suite: SoapSuite) -> None:
    _with_entries(suite, [{"nested_must_understand": True}], _unchanged(suite))
