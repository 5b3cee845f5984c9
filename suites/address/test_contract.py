"""Contract fuzzing of the address API from its OpenAPI description (schemathesis + hypothesis).

The description is the profile's own (`[services.address] openapi`) or the shipped one. One
test per operation of the seed (a MUST check each), found in the description by method and
path template whatever its operationId; one test for every other operation the description
has (schemathesis's checks only, as an observation: the seed does not govern them); one
SHOULD test for the public HAL rules; one SHOULD test for the constraints the description marks
public behaviour (x-conformance-source: public; the per-operation tests judge the seed's
constraints only, conformance/checks/address/contract_split.py); and one stateful test that follows the description's
links (not applicable when it has none). Every response goes through
the harness's recorder, so the evidence in the report is redacted like everything else.
The seed comes from the run (`--hypothesis-seed`, reported in summary.json and seed.txt);
the example budget from `--fuzz-max-examples` or the profile's [fuzz] table.
"""

from __future__ import annotations

import hashlib
import math
import re

import pytest
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

from conformance.checks.address import contract_pass
from conformance.checks.address import contract_split as split
from conformance.checks.address.st_checks import SHOULD_CHECKS
from conformance.checks.registry import MUST, OBSERVATION, SHOULD, check
from conformance.errors import NotApplicable
from conformance.http.concurrency import concurrently
from conformance.openapi import operations as ops

# positive_data_acceptance is left out on purpose: the API's query kinds and parameter
# combinations (seed part 4) cannot be expressed in OpenAPI, so schema-valid requests
# are rightly refused with 400. use_after_free and ensure_resource_availability concern
# write APIs.
# Seed part 4, the kinds of GET /adressen: "`pandIdentificatie` (expand not supported)", the
# same for `openbareRuimteIdentificatie`; the register ignores expand there, value and all
# (bag-api.md 4.3). A request whose expand breaks its pattern beside one of them may rightly
# be answered 200, so schemathesis's negative_data_rejection does not judge it (a bad expand
# beside any other kind, and every other bad parameter, it still does).
_EXPAND_IGNORED_BESIDE = ("pandIdentificatie", "openbareRuimteIdentificatie")


def _bad_expand_may_be_ignored(case) -> bool:
    query = case.query or {}
    if "expand" not in query or not any(name in query for name in _EXPAND_IGNORED_BESIDE):
        return False
    schema_ = next((p.definition.get("schema") or {} for p in case.operation.query if p.name == "expand"), {})
    pattern = schema_.get("pattern")
    values = query["expand"] if isinstance(query["expand"], list) else [query["expand"]]
    return pattern is not None and not all(isinstance(v, str) and re.search(pattern, v) for v in values)


# Issue 51: the seed gives each parameter's type and rule, not what an empty value or a repeated
# one means for a date, a boolean or a number; a server may refuse it or read it (as absent, the
# first value), so a negative request with such a value is not judged by rejection (the
# SHOULD check address.errors.empty_or_repeated_value_refused asks for the refusal).
_SCALAR_TYPES = ("boolean", "integer", "number")


def _empty_or_repeated_scalar(case) -> bool:
    query = case.query or {}
    for parameter in case.operation.query:
        schema_ = parameter.definition.get("schema") or {}
        scalar = schema_.get("type") in _SCALAR_TYPES or parameter.name in ("geldigOp", "beschikbaarOp")
        value = query.get(parameter.name)
        if scalar and (value == "" or (isinstance(value, list) and len(value) != 1)):
            return True
    return False


def negative_data_rejection_as_the_seed_allows(ctx, response, case):
    if _bad_expand_may_be_ignored(case) or _empty_or_repeated_scalar(case):
        return None
    return negative_data_rejection(ctx, response, case)


# Findings name the check as schemathesis does.
negative_data_rejection_as_the_seed_allows.__name__ = negative_data_rejection.__name__
negative_data_rejection_as_the_seed_allows.__qualname__ = negative_data_rejection.__qualname__
BUILT_IN = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection_as_the_seed_allows,
]


def _ignored_auth(enforced: set[str]):
    """schemathesis's ignored_auth as its CLI runs it: once an operation has refused a request
    without credentials and one with wrong credentials, it is not probed again this run. The
    pytest integration hands the check no such set, so every 2xx answer cost two more requests
    (about 11 % of a fuzzing run's requests against a conforming server). A failure is never
    recorded as enforcement, so an operation that ignores its key is probed until it is caught."""
    def check(ctx, response, case):
        if ctx.auth_enforced_operations is None:
            ctx.auth_enforced_operations = enforced
        return ignored_auth(ctx, response, case)

    check.__name__ = check.__qualname__ = ignored_auth.__name__
    return check


def _seed_checks(seed_schema) -> list:
    """BUILT_IN, its description-reading checks judged on the seed's constraints only when the
    description marks public behaviour (conformance/checks/address/contract_split.py)."""
    if seed_schema is None:
        return list(BUILT_IN)
    replaced = {response_schema_conformance: split.seed_response_schema(seed_schema),
                negative_data_rejection_as_the_seed_allows:
                    split.seed_negative_rejection(seed_schema, negative_data_rejection_as_the_seed_allows)}
    return [replaced.get(check, check) for check in BUILT_IN]


schema = schemathesis.pytest.from_fixture("address_schema")


def _transport(address_api) -> dict:
    """What the checks that re-send a request (ignored_auth) send with: the real base URL,
    so the forwarder (the schema's app) addresses the server that answered."""
    return {"base_url": address_api.base_url}
FUZZ_SETTINGS = settings(deadline=None, suppress_health_check=list(HealthCheck))
# schemathesis asks for a generated test's arguments while the test runs; named in its
# `usefixtures` too, they are made before it runs, with the test's other fixtures. A test
# that runs beside others must make none of its own while it runs (conformance/side_by_side.py).
ARGUMENTS = ("address_api", "fuzz_session", "address_rules")


def _public_checks(seed_schema) -> list:
    return [split.public_response_schema(seed_schema),
            split.public_negative_rejection(seed_schema, negative_data_rejection_as_the_seed_allows)]


def _should_checks(rules) -> list:
    """The SHOULD rules a fuzzed answer is judged by: the address exchange rules of SHOULD
    severity and the fuzzing's own (st_checks.py)."""
    return [*rules.should, *SHOULD_CHECKS]


def _other_groups(seed_schema, rules) -> dict[str, list]:
    """The groups that fuzz a seed operation beside its contract, by check id: they judge
    the contract test's answers too (conformance/checks/address/contract_pass.py)."""
    groups = {contract_pass.SHOULD_RULES: _should_checks(rules)}
    if seed_schema is not None:
        groups[contract_pass.PUBLIC_BEHAVIOUR] = _public_checks(seed_schema)
    return groups


# One MUST check per operation of the seed: schemathesis's built-in checks that make sense for
# a read-only API, plus the address API's MUST exchange rules (conformance/passive/rules/address.py,
# as schemathesis checks: st_checks.py). The built-in checks that read
# the description's constraints judge only the seed's (those marked `x-conformance-source:
# public` are address.contract.public_behaviour's). The operation is found in the profile's
# description by method and path template, whatever its operationId.
# Fuzzing judges every generated answer with every rule of the description: any fault of the
# server may show in one, so each of these checks may fail under any fault ("*"), and the
# fault meta-test fuzzes only under the faults that prove them.
CONTRACT_COLLATERAL = ["*"]
CONTRACT = {
    operation_id: check(f"address.contract.{operation_id}", MUST,
                        f"GET {path} conforms to the OpenAPI description under generated requests",
                        requirements=["ADDR-4", "ADDR-7", "ADDR-2.error", "ADDR-9.api-version"],
                        proven_by=["address.api_version_missing"], may_fail_under=CONTRACT_COLLATERAL,
                        sends=["fuzz"], feature="contract fuzzing")
    for operation_id, path in ops.SEED_OPERATIONS.items()
}
SHOULD_RULES = check("address.contract.should_rules", SHOULD,
                     "Generated responses follow the public HAL rules (self link, paging links, identifier formats)",
                     requirements=["BAGREF-4.1", "BAGREF-4.2", "BAGREF-2.1"],
                     proven_by=["address.self_link_drops_query"], may_fail_under=CONTRACT_COLLATERAL,
                     sends=["fuzz"], feature="contract fuzzing")
# The seed: "Formats of the identifier types, and the allowed values of Gebruiksdoel: not
# shown", "Fields of the HAL resources ...: not shown". The per-operation MUST checks judge only
# the seed's constraints of the description (conformance/checks/address/contract_split.py).
PUBLIC_BEHAVIOUR = check("address.contract.public_behaviour", SHOULD,
                         "Generated requests and answers follow the constraints the description marks public "
                         "behaviour (identifier formats, expand grammar, HAL fields: x-conformance-source: public)",
                         requirements=["ADDR-2.fields", "BAGREF-2.1", "BAGREF-2.5", "BAGREF-3", "BAGREF-4.3"],
                         proven_by=["address.identifier_patterns_not_enforced"],
                         may_fail_under=CONTRACT_COLLATERAL,
                         sends=["fuzz"], feature="contract fuzzing")


def _operation_test(operation_id: str, template: str):
    @CONTRACT[operation_id]
    @pytest.mark.seed_operation(operation_id)
    @pytest.mark.usefixtures("described_operation", "fuzz_can_send", *ARGUMENTS,
                             "auth_enforced_operations", "address_seed_schema", "contract_pass_of")
    @schema.include(method="GET", path_regex=ops.path_regex(template)).parametrize()
    @FUZZ_SETTINGS
    def test(case, address_api, fuzz_session, address_rules, auth_enforced_operations, address_seed_schema,
             contract_pass_of) -> None:
        headers = address_api.auth_headers()
        response = fuzz_session.send_case(case)
        checks = [*_seed_checks(address_seed_schema), _ignored_auth(auth_enforced_operations), *address_rules.must]
        case.validate_response(response, checks=checks, headers=headers,
                               transport_kwargs=_transport(address_api))
        # The same answer, judged by the groups that fuzz this operation too (contract_pass.py).
        contract_pass_of(_other_groups(address_seed_schema, address_rules)).judge(
            case, response, headers=headers, transport_kwargs=_transport(address_api))

    test.__name__ = test.__qualname__ = f"test_{operation_id}"
    return test


for _operation_id, _template in ops.SEED_OPERATIONS.items():
    globals()[f"test_{_operation_id}"] = _operation_test(_operation_id, _template)


@check("address.contract.other_operations", OBSERVATION, "Operations the description has beyond the seed's answer as the description says (schemathesis's checks)",
       requirements=["ADDR-4.other-operations"],
       sends=["fuzz"],
       feature="contract fuzzing")
@pytest.mark.usefixtures("described_operation", "fuzz_can_send", *ARGUMENTS, "observe", "auth_enforced_operations")
@schema.exclude(func=ops.is_seed_operation).parametrize()
@FUZZ_SETTINGS
def test_other_operations(case, address_api, fuzz_session, observe, auth_enforced_operations) -> None:
    headers = address_api.auth_headers()
    response = fuzz_session.send_case(case)
    case.validate_response(response, checks=[*BUILT_IN, _ignored_auth(auth_enforced_operations)], headers=headers,
                           transport_kwargs=_transport(address_api))  # a finding is observed
    observe("answers as its description says", once_per=f"{case.method} {case.operation.path}")


def _should_rules_test(operations, operation_id: str | None):
    """The SHOULD rules over some of the operations: one test per seed operation and one for
    the others, so that the operations are fuzzed side by side in the xdist workers (as one
    test they were one chain of requests: against a service answering in 200 ms, 300 s)."""
    @SHOULD_RULES
    @pytest.mark.usefixtures("described_operation", "fuzz_can_send", *ARGUMENTS)
    @operations.parametrize()
    @FUZZ_SETTINGS
    def test(case, address_api, fuzz_session, address_rules) -> None:
        headers = address_api.auth_headers()
        response = fuzz_session.send_case(case)
        case.validate_response(response, checks=_should_checks(address_rules), headers=headers,
                               transport_kwargs=_transport(address_api))

    if operation_id is not None:  # judged on the operation's contract pass when it was clean
        test = pytest.mark.usefixtures("judged_on_contract_pass")(pytest.mark.seed_operation(operation_id)(test))
    test.__name__ = test.__qualname__ = f"test_should_rules_{operation_id or 'other_operations'}"
    return test


for _operation_id, _template in ops.SEED_OPERATIONS.items():
    globals()[f"test_should_rules_{_operation_id}"] = _should_rules_test(
        schema.include(method="GET", path_regex=ops.path_regex(_template)), _operation_id)
test_should_rules_other_operations = _should_rules_test(schema.exclude(func=ops.is_seed_operation), None)


def _public_behaviour_test(operation_id: str, template: str):
    """The constraints the description marks public behaviour (x-conformance-source: public),
    where the seed's hold: answers' shapes and the refusal of requests that break only them.
    One test per seed operation, fuzzed side by side in the xdist workers as the SHOULD rules are."""
    @PUBLIC_BEHAVIOUR
    @pytest.mark.seed_operation(operation_id)
    @pytest.mark.usefixtures("described_operation", "fuzz_can_send", "judged_on_contract_pass", *ARGUMENTS,
                             "address_seed_schema")
    @schema.include(method="GET", path_regex=ops.path_regex(template)).parametrize()
    @FUZZ_SETTINGS
    def test(case, address_api, fuzz_session, address_seed_schema) -> None:
        if address_seed_schema is None:
            raise NotApplicable("the description marks no constraint as public behaviour (x-conformance-source): "
                                "all of it is the contract, judged by the address.contract.<operation> checks")
        headers = address_api.auth_headers()
        response = fuzz_session.send_case(case)
        case.validate_response(response, checks=_public_checks(address_seed_schema), headers=headers,
                               transport_kwargs=_transport(address_api))

    test.__name__ = test.__qualname__ = f"test_public_behaviour_{operation_id}"
    return test


for _operation_id, _template in ops.SEED_OPERATIONS.items():
    globals()[f"test_public_behaviour_{_operation_id}"] = _public_behaviour_test(_operation_id, _template)


# Stateful: schemathesis chains operations through the description's OpenAPI links
# (search -> address -> addressable object -> building) and judges every step.
STATEFUL_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def _stateful_checks(seed_schema, rules) -> list:
    checks = [*STATEFUL_CHECKS, *rules.must]
    if seed_schema is None:
        return checks
    return [split.seed_response_schema(seed_schema) if c is response_schema_conformance else c for c in checks]


# The machine's examples in shards, each with its own seed and its share of the examples: as
# one machine, against a service answering in 0.2 s, the longest test of a run (about 280
# answers in a row). Against a slow service the shards run side by side; otherwise one after
# another. The verdict is the same either way: the first shard's finding in their order.
STATEFUL_SHARDS = 5


@check("address.contract.stateful_links", MUST, "Chains of operations through OpenAPI links (search -> address -> object -> building) conform",
       requirements=["ADDR-4", "ADDR-1.hal"],
       proven_by=["address.api_version_missing"],
       may_fail_under=CONTRACT_COLLATERAL,
       sends=["fuzz"],
       feature="contract fuzzing")
@pytest.mark.usefixtures("described_links", "fuzz_can_send")
def test_stateful_links(address_schema, address_api, fuzz_session, profile, fuzz_max_examples,
                        address_seed_schema, address_rules) -> None:
    headers = address_api.auth_headers()
    checks = _stateful_checks(address_seed_schema, address_rules)
    machine = address_schema.as_state_machine()

    class Workflow(machine):
        def get_call_kwargs(self, case):
            return {"base_url": address_api.base_url, "headers": headers, "session": fuzz_session}

        def call(self, case, **kwargs):
            # Through the schema's forwarder (fuzz_transport.py), not `direct_call`: the
            # operations are the shared schema's, which a test beside this one clones.
            return case.call(**kwargs)

        def validate_response(self, response, case, additional_checks=None, **kwargs) -> None:
            case.validate_response(response, checks=checks, headers=headers,
                                   transport_kwargs=_transport(address_api))

    shards = max(1, min(STATEFUL_SHARDS, fuzz_max_examples))
    shard_settings = settings(
        max_examples=math.ceil(fuzz_max_examples / shards),
        stateful_step_count=profile.fuzz.stateful_steps,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )

    def shard(index: int):
        # The run's seed for the first shard (what @hypothesis.seed sets: conftest.py _seeded); the
        # others' derived from it, apart from any other run's seed.
        seed = machine._hypothesis_internal_use_seed
        if index:
            seed = int.from_bytes(hashlib.sha256(f"{seed}/{index}".encode()).digest()[:4], "big")
        seeded = type(f"Workflow{index}", (Workflow,), {"_hypothesis_internal_use_seed": seed})
        return lambda: seeded.run(settings=shard_settings)

    concurrently([shard(index) for index in range(shards)], fuzz_session.client.concurrency if fuzz_session.ahead else 1)
