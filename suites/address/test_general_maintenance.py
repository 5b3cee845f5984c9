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


@pytest.mark.check("address.maintenance.not_available_503")
def test_not_available_503(address_api, maintenance_url):
    g.expect_status(_get(address_api, maintenance_url), 503)


@pytest.mark.check("address.maintenance.problem_body_503")
def test_problem_body_503(address_api, maintenance_url):
    ex = _get(address_api, maintenance_url)
    g.expect_status(ex, 503)
    problem.is_problem_media_type(ex)
    problem.has_problem_members(ex)
    problem.has_problem_code(ex, "notAvailable")


@pytest.mark.check("address.maintenance.api_version_503")
def test_api_version_503(address_api, maintenance_url):
    ex = _get(address_api, maintenance_url)
    g.expect_status(ex, 503)
    headers.has_api_version(ex)


@pytest.mark.check("address.maintenance.retry_after_present")
def test_retry_after_present(address_api, maintenance_url):
    ex = _get(address_api, maintenance_url)
    g.expect_status(ex, 503)
    g.has_header(ex, "Retry-After")


@pytest.mark.check("address.maintenance.retry_after_http_date")
def test_retry_after_http_date(address_api, maintenance_url):
    ex = _get(address_api, maintenance_url)
    g.expect_status(ex, 503)
    if g.header(ex, "Retry-After") is None:
        raise NotApplicable("the 503 carries no Retry-After (optional in the seed)")
    g.retry_after_is_http_date(ex)
