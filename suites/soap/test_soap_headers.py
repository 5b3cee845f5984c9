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

from conformance.checks.registry import MUST, SHOULD, check
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


@check("soap.header.must_understand_fault", MUST, "A header entry the service does not understand, marked mustUnderstand=\"1\" for it (no actor, or the actor .../soap/actor/next), gets a soapenv:MustUnderstand Fault with HTTP 500 and no detail",
       requirements=["SOAP11-4.2.3", "WSI-BP11-R1027", "SOAP11-4.4.1", "SOAP11-4.4", "SOAP11-6.2"],
       proven_by=["soap.must_understand_client_fault", "soap.must_understand_ignored"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.header_refused", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="SOAP 1.1 header entries")
def test_mandatory_header_gets_must_understand_fault(suite: SoapSuite) -> None:
    entries = [{"must_understand": "1"}, {"must_understand": "1", "actor": ACTOR_NEXT}]
    _with_entries(suite, entries, _refused_as_must_understand)


@check("soap.header.must_understand_true_refused", SHOULD, "A header entry marked mustUnderstand=\"true\" (not a SOAP 1.1 value) is not processed as if it were optional: a MustUnderstand or Client Fault with HTTP 500",
       requirements=["SOAP11-4.2.3", "WSI-BP11-R1013"],
       proven_by=["soap.must_understand_ignored"],
       may_fail_under=["soap.fault_with_http_200", "soap.fault_without_faultcode", "soap.html_error_page", "soap.soap12_content_type"],
       sends=["refused"],
       feature="SOAP 1.1 header entries",
       downgrade_reason="SOAP 1.1 4.2.3 and WS-I R1013 fix the values a sender may write (\"0\" and \"1\"); what a recipient does with \"true\" they leave open: refusing it is the public behaviour of SOAP stacks")
def test_must_understand_true_is_not_ignored(suite: SoapSuite) -> None:
    # "true" is no SOAP 1.1 value (4.2.3: "1" or "0"; BP R1013): read as xsd:boolean it is
    # mandatory (MustUnderstand), read strictly the envelope is wrong (Client). Either refuses.
    entries = [{"must_understand": "true"}, {"must_understand": "true", "actor": ACTOR_NEXT}]
    _with_entries(suite, entries, _refused_either_way)


@check("soap.header.optional_ignored", SHOULD, "An optional header entry (mustUnderstand=\"0\", or no mustUnderstand; with or without the actor .../next) does not change the answer: HTTP 200 and a schema-valid response",
       requirements=["SOAP11-2", "SOAP11-4.2.3"],
       proven_by=["soap.header_refused"],
       feature="SOAP 1.1 header entries",
       downgrade_reason="SOAP 1.1 4.2.3 lets a recipient process an optional header entry it understands; an answer unchanged by an entry it does not know is expected, not required")
def test_optional_header_does_not_change_the_answer(suite: SoapSuite) -> None:
    entries = [{"must_understand": "0"}, {}, {"must_understand": "0", "actor": ACTOR_NEXT}]
    _with_entries(suite, entries, _unchanged(suite))


@check("soap.header.other_actor_ignored", MUST, "A header entry marked mustUnderstand=\"1\" for another actor (neither .../next nor the ultimate receiver) is not processed by the service: HTTP 200 and a schema-valid response",
       requirements=["SOAP11-2", "SOAP11-4.2.2"],
       proven_by=["soap.header_refused", "soap.must_understand_any_actor"],
       feature="SOAP 1.1 header entries")
def test_header_for_another_actor_is_ignored(suite: SoapSuite) -> None:
    _with_entries(suite, [{"must_understand": "1", "actor": OTHER_ACTOR}], _unchanged(suite))


@check("soap.header.nested_attribute_ignored", MUST, "A mustUnderstand=\"1\" below an optional header entry (not on an immediate child of soap:Header) is ignored: HTTP 200 and a schema-valid response",
       requirements=["SOAP11-4.2.1"],
       proven_by=["soap.header_refused", "soap.must_understand_anywhere"],
       feature="SOAP 1.1 header entries")
def test_must_understand_below_an_entry_is_ignored(suite: SoapSuite) -> None:
    _with_entries(suite, [{"nested_must_understand": True}], _unchanged(suite))
