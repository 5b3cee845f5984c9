"""The format of a Fault, judged on the answer to a request with the wrong Body element.

The run's shared control (a valid request, accepted) comes first: a Fault given to every
request for another reason (the caller not admitted, the service down) is no answer to
this bad request, and the checks are then `blocked`.
"""

from __future__ import annotations

import pytest
from lxml import etree

from conformance.checks.soap import messages
from conformance.checks.soap.support import SoapSuite
from conformance.http.exchange import Exchange

pytestmark = pytest.mark.negative


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@pytest.fixture
def fault_exchange(suite: SoapSuite) -> Exchange:
    # An empty output element as the request: no operation takes it, whatever the schema.
    assert suite.operation.output_element is not None
    suite.shared_control()
    return suite.post(suite.envelope(etree.Element(suite.operation.output_element)))


@pytest.mark.check("soap.fault.http_500")
def test_fault_travels_with_http_500(fault_exchange: Exchange) -> None:
    messages.check_fault_http_500(fault_exchange)


@pytest.mark.check("soap.fault.soap_envelope")
def test_error_is_a_soap_fault_not_html(fault_exchange: Exchange) -> None:
    messages.check_fault_envelope(fault_exchange)


@pytest.mark.check("soap.fault.structure")
def test_fault_has_code_string_and_detail(fault_exchange: Exchange) -> None:
    messages.check_fault_structure(fault_exchange, body_unprocessable=True)


@pytest.mark.check("soap.fault.code_without_dot_notation")
def test_fault_code_has_no_dot_notation(fault_exchange: Exchange) -> None:
    messages.check_fault_code_undotted(fault_exchange)
