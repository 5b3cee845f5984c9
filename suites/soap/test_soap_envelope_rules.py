"""Envelopes a document/literal SOAP 1.1 service refuses (SOAP 1.1 3 and 4, WS-I Basic
Profile 1.1 envelope rules): each gets a Fault with HTTP 500.

Each test changes one thing of a drawn valid request (conformance/checks/soap/probes.py) and
sends the unchanged request as its control (a request of the run's valid batch, whose answer
is the control: conformance/checks/soap/support.py): a refusal counts only when the control
was accepted; a refused control makes the check `blocked`.
"""

from __future__ import annotations

import pytest

from conformance.checks.soap import messages, probes
from conformance.checks.soap.support import SoapSuite

# A rule of the envelope needs no variety in the message: a few requests are enough.
FEW = 3

pytestmark = pytest.mark.negative


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


def _refused(suite: SoapSuite, rule: str, *, codes: tuple[str, ...] = ("Client",)) -> None:
    suite.judge_variants(lambda sent: probes.envelope_probes(sent.request)[rule],
                         lambda exchange, _probe, _sent: messages.check_rejected(exchange, codes=codes),
                         requests=FEW, collect=True)


@pytest.mark.check("soap.request.not_an_envelope_rejected")
def test_document_element_other_than_envelope_is_rejected(suite: SoapSuite) -> None:
    # BP R1015 asks for "a fault", not which: VersionMismatch is as good as Client here.
    _refused(suite, "not_an_envelope", codes=("Client", "VersionMismatch"))


@pytest.mark.check("soap.request.two_body_children_rejected")
def test_two_body_children_are_rejected(suite: SoapSuite) -> None:
    _refused(suite, "two_children")


@pytest.mark.check("soap.request.unqualified_body_child_rejected")
def test_unqualified_body_child_is_rejected(suite: SoapSuite) -> None:
    _refused(suite, "unqualified")


@pytest.mark.check("soap.request.element_after_body_rejected")
def test_element_after_body_is_rejected(suite: SoapSuite) -> None:
    _refused(suite, "after_body")


@pytest.mark.check("soap.request.encoding_style_rejected")
def test_encoding_style_is_rejected(suite: SoapSuite) -> None:
    _refused(suite, "encoding_style")


@pytest.mark.check("soap.request.processing_instruction_rejected")
def test_processing_instruction_is_rejected(suite: SoapSuite) -> None:
    _refused(suite, "processing_instruction")
