"""Maintenance: 503 notAvailable with Retry-After (seed parts 4 and 7).

The local mock starts a private instance in maintenance. A deployment names, in its profile,
a base URL it answers as during maintenance (`[services.address] maintenance_url`, e.g. a
test environment's maintenance instance); without one these checks do not apply to it. Any
503 met in traffic is judged by the same rules (conformance traffic, suites/passive/).
"""

from __future__ import annotations

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import headers, problem
from conformance.checks.address.control import Req, control_served
from conformance.checks.registry import MUST, OBSERVATION, check
from conformance.errors import NotApplicable, NotJudged


@pytest.fixture(scope="module")
def maintenance_url(request, profile) -> str:
    service = profile.address
    if service.maintenance_url:
        return service.maintenance_url
    if service.mock:
        url = request.getfixturevalue("address_mock").start_private(maintenance=True)
        request.getfixturevalue("address_api").add_base(url)  # the harness's own instance: the key may go there
        return url
    # The rule applies to every deployment; the run lacks the way to its maintenance answer.
    raise NotJudged("no maintenance_url", "name services.address.maintenance_url: a base URL the deployment "
                    "answers as during maintenance, to reach its 503")


def _get(address_api, maintenance_url):
    path = f"/adressen/{address_api.sample('nummeraanduiding')}"
    control_served(address_api, Req.of(path))  # the same request outside maintenance is served
    return address_api.get(f"{maintenance_url}{path}")


@check("address.maintenance.not_available_503", MUST, "During maintenance requests are answered 503",
       requirements=["ADDR-7.503"],
       proven_by=["address.maintenance_ignored"],
       feature="part 7 / maintenance")
def test_not_available_503(address_api, maintenance_url):
    g.expect_status(_get(address_api, maintenance_url), 503)


@check("address.maintenance.problem_body_503", MUST, "A 503 is problem+json with the problem members and code notAvailable",
       requirements=["ADDR-7.503", "ADDR-2.error"],
       proven_by=["address.wrong_error_code", "address.problem_as_plain_json", "address.problem_status_mismatch"],
       may_fail_under=["address.maintenance_ignored"],
       observes="exchange",
       feature="part 7 / maintenance")
def test_problem_body_503(address_api, maintenance_url):
    ex = _get(address_api, maintenance_url)
    g.expect_status(ex, 503)
    problem.is_problem_media_type(ex)
    problem.has_problem_members(ex)
    problem.has_problem_code(ex, "notAvailable")


@check("address.maintenance.api_version_503", MUST, "A 503 carries api-version",
       requirements=["ADDR-4.api-version", "ADDR-9.api-version"],
       proven_by=["address.api_version_missing"],
       may_fail_under=["address.maintenance_ignored"],
       feature="part 7 / maintenance")
def test_api_version_503(address_api, maintenance_url):
    ex = _get(address_api, maintenance_url)
    g.expect_status(ex, 503)
    headers.has_api_version(ex)


@check("address.maintenance.retry_after_present", OBSERVATION, "Whether a 503 carries Retry-After (the seed: it may be sent)",
       requirements=["ADDR-7.503", "ADDR-4.Retry-After"],
       feature="part 7 / maintenance",
       downgrade_reason="the 503 row says 'Retry-After may be sent': a 503 without it conforms, so its presence is "
                        "measured, not judged (its form, when sent, is address.maintenance.retry_after_http_date)")
def test_retry_after_present(address_api, maintenance_url, observe):
    ex = _get(address_api, maintenance_url)
    value = g.header(ex, "Retry-After")
    observe({"status": ex.status, "present": value is not None, "value": value})


@check("address.maintenance.retry_after_http_date", MUST, "Retry-After on a 503, when sent, is an HTTP date (IMF-fixdate)",
       requirements=["ADDR-4.Retry-After", "RFC9110-5.6.7", "RFC9110-10.2.3"],
       proven_by=["address.retry_after_in_seconds"],
       may_fail_under=["address.maintenance_ignored"],
       observes="exchange",
       feature="part 7 / maintenance")
def test_retry_after_http_date(address_api, maintenance_url):
    ex = _get(address_api, maintenance_url)
    g.expect_status(ex, 503)
    if g.header(ex, "Retry-After") is None:
        raise NotApplicable("the 503 carries no Retry-After (optional in the seed)")
    g.retry_after_is_http_date(ex)
