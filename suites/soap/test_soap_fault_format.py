"""The structure of a Fault, judged on the answer to a request with the wrong Body element.

The run's shared control (a valid request, accepted) comes first: a Fault given to every
request for another reason (the caller not admitted, the service down) is no answer to this
bad request, and the check is then `blocked`, as it is when the bad request gets no Fault
(accepted, or an HTML page: another check's finding). The bad request is sent once per process
(`SoapSuite.fault_answer`) and its answer judged here and by the Fault rules one exchange can
show broken -- HTTP 500, the envelope, no dotted faultcode (conformance/passive/rules/soap.py,
suites/soap/test_exchange_rules.py).
"""

from __future__ import annotations

import pytest

from conformance.checks.registry import MUST, check
from conformance.checks.soap import messages
from conformance.checks.soap.support import SoapSuite


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@check("soap.fault.structure", MUST, "The Fault has a faultcode QName in the SOAP 1.1 namespace and a faultstring, only unqualified standard children, and a detail when the Body could not be processed",
       requirements=["SOAP11-4.4", "SOAP11-4.4.1", "WSI-BP11-R1000", "WSI-BP11-R1001"],
       proven_by=["soap.fault_without_faultcode"],
       may_fail_under=["soap.soap12_content_type"],
       sends=["refused"],
       feature="SOAP 1.1 Fault")
def test_fault_has_code_string_and_detail(suite: SoapSuite) -> None:
    exchange = suite.fault_answer()
    if messages._fault_or_none(exchange) is None:  # no Fault to judge: the bad request's acceptance is the finding
        suite.require_fault(exchange)
    messages.check_fault_structure(exchange, body_unprocessable=True)
