"""The message service as a whole: does it answer in time, and does it demand credentials?

Both checks use their own client (a new connection): one whose time-out is the profile's
response-time limit, one that sends no credentials.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.checks.registry import OBSERVATION, SHOULD, check
from conformance.checks.soap import service
from conformance.checks.soap.support import SoapSuite, suite_settings

# One request each: a time-out or the authentication answer needs no variety in the message.
ONE = settings(suite_settings(), max_examples=1)


@pytest.fixture(scope="module")
def suite(soap_service) -> SoapSuite:
    return SoapSuite.for_service(soap_service)


@check("soap.response.answered_in_time", SHOULD, "A schema-valid request is answered within the profile's response-time limit (services.soap.response_time_s); a time-out is a finding, reported with the time waited",
       requirements=["SOAP-8.response-time"],
       proven_by=["soap.response_hangs"],
       feature="XML hardening")
@ONE
@given(data=st.data())
def test_valid_request_is_answered_in_time(suite: SoapSuite, soap_service, data: st.DataObject) -> None:
    request = data.draw(suite.valid_requests(), label="request")
    limit = soap_service.response_time_s
    with soap_service.variant(timeout_s=limit) as timed:
        service.post_in_time(timed, suite.envelope(request), suite.headers(), limit)


@check("soap.auth.credentials_required", OBSERVATION, "Does the endpoint answer a schema-valid request sent without credentials (no HTTP basic credentials, no client certificate)? Measured, with the profile's auth kind",
       requirements=["SOAP-5.5"],
       feature="part 5 / authentication")
def test_credentials_required(suite: SoapSuite, soap_service, observe) -> None:
    answers: list[dict] = []

    @ONE
    @given(data=st.data())
    def probe(data: st.DataObject) -> None:
        request = data.draw(suite.valid_requests(), label="request")
        with soap_service.variant(anonymous=True) as anonymous:
            answers.append(service.answer_without_credentials(
                anonymous, suite.envelope(request), suite.headers(), auth_kind=soap_service.auth_kind))

    probe()
    observe(answers[-1])
