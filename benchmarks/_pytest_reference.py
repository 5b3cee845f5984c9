"""The reference for where the harness's overhead comes from: schemathesis's own pytest
integration, without the harness (no profile, bounded client, recording or report), with the
same description, checks, server and example count as benchmarks/harness_overhead.py. Copied
into a neutral directory and run by plain pytest; DESCRIPTION, URL and KEY come from the
environment. ignored_auth probes an operation once per run, as in the CLI and the harness."""

import os

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from conformance.checks.address.st_checks import rule_checks, seed_context

HEADERS = {"X-Api-Key": os.environ["KEY"]}
schema = schemathesis.openapi.from_path(os.environ["DESCRIPTION"])
# The key in the schema's configuration too, as the harness and the CLI's -H give it: a
# negative case then never drops the key only to have `case.call` put it back, which made
# this reference fail (negative data "accepted") on the faithful mock now and then.
schema.config.update(base_url=os.environ["URL"], headers=HEADERS)
ENFORCED: set[str] = set()


def ignored_auth_once(ctx, response, case):
    if ctx.auth_enforced_operations is None:
        ctx.auth_enforced_operations = ENFORCED
    return ignored_auth(ctx, response, case)


CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance, negative_data_rejection, ignored_auth_once, *rule_checks("MUST", seed_context)]


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck))
def test_operation(case):
    response = case.call(headers=HEADERS)
    case.validate_response(response, checks=CHECKS, headers=HEADERS)
