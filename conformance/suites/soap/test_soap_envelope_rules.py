"""Envelopes a document/literal SOAP 1.1 service refuses (SOAP 1.1 3 and 4, WS-I Basic
Profile 1.1 envelope rules): each gets a Fault with HTTP 500.

Each test changes one thing of a drawn valid request (conformance/checks/soap/probes.py) and
sends the unchanged request first as its control: a refusal counts only when the control was
accepted; a refused control makes the check `blocked`.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.checks.soap import messages, probes
from conformance.checks.soap.support import SoapSuite, suite_settings

SETTINGS = suite_settings()
# A rule of the envelope needs no variety in the message: a few requests are enough.
FEW = settings(SETTINGS, max_examples=min(3, SETTINGS.max_examples))

pytestmark = pytest.mark.negative


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


def _refused(suite: SoapSuite, data: st.DataObject, rule: str, *, codes: tuple[str, ...] = ("Client",)) -> None:
    request = data.draw(suite.valid_requests(), label="request")
    suite.control(suite.envelope(request))
    suite.judge_each(probes.envelope_probes(request)[rule], lambda exchange, _: messages.check_rejected(exchange, codes=codes))


@pytest.mark.check("soap.request.not_an_envelope_rejected")
@FEW
@given(data=st.data())
def test_document_element_other_than_envelope_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    # BP R1015 asks for "a fault", not which: VersionMismatch is as good as Client here.
    _refused(suite, data, "not_an_envelope", codes=("Client", "VersionMismatch"))


@pytest.mark.check("soap.request.two_body_children_rejected")
@FEW
@given(data=st.data())
def test_two_body_children_are_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    _refused(suite, data, "two_children")


@pytest.mark.check("soap.request.unqualified_body_child_rejected")
@FEW
@given(data=st.data())
def test_unqualified_body_child_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    _refused(suite, data, "unqualified")


@pytest.mark.check("soap.request.element_after_body_rejected")
@FEW
@given(data=st.data())
def test_element_after_body_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    _refused(suite, data, "after_body")


@pytest.mark.check("soap.request.encoding_style_rejected")
@FEW
@given(data=st.data())
def test_encoding_style_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    _refused(suite, data, "encoding_style")


@pytest.mark.check("soap.request.processing_instruction_rejected")
@FEW
@given(data=st.data())
def test_processing_instruction_is_rejected(suite: SoapSuite, data: st.DataObject) -> None:
    _refused(suite, data, "processing_instruction")
