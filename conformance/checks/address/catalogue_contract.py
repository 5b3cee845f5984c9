"""Contract fuzzing: generated requests from the OpenAPI description (schemathesis)."""

from conformance.checks.registry import Severity, define
from conformance.openapi.operations import SEED_OPERATIONS

SUITE = "address"

# One MUST check per operation of the seed: schemathesis's built-in checks that make sense
# for a read-only API, plus the MUST domain checks of st_checks.py. The built-in checks that
# read the description's constraints judge only the seed's (constraints marked
# `x-conformance-source: public` are address.contract.public_behaviour's, SHOULD). The operation is found
# in the profile's description by method and path template, whatever its operationId.
OPERATIONS = SEED_OPERATIONS

# Fuzzing judges every response with every check, so under most faults some generated
# request may trip a contract check: fuzzing runs (in the meta-tests) only under the
# faults that prove a contract check, and these may trip the others.
_CONTRACT_COLLATERAL = ("address.api_version_missing", "address.self_link_drops_query")

for operation_id, path in OPERATIONS.items():
    define(
        f"address.contract.{operation_id}",
        f"GET {path} conforms to the OpenAPI description under generated requests",
        requirements=("ADDR-4", "ADDR-7", "ADDR-2.error", "ADDR-9.api-version"),
        severity=Severity.MUST,
        suite=SUITE,
        feature="contract fuzzing",
        proven_by=("address.api_version_missing",),
        may_fail_under=_CONTRACT_COLLATERAL,
    )

define(
    "address.contract.should_rules",
    "Generated responses follow the public HAL rules (self link, paging links, identifier formats)",
    requirements=("BAGREF-4.1", "BAGREF-4.2", "BAGREF-2.1"),
    severity=Severity.SHOULD,
    suite=SUITE,
    feature="contract fuzzing",
    proven_by=("address.self_link_drops_query",),
    may_fail_under=_CONTRACT_COLLATERAL,
)

define(
    "address.contract.public_behaviour",
    "Generated requests and answers follow the constraints the description marks public behaviour "
    "(identifier formats, expand grammar, HAL fields: x-conformance-source: public)",
    requirements=("ADDR-2.fields", "BAGREF-2.1", "BAGREF-2.5", "BAGREF-3", "BAGREF-4.3"),
    # The seed: "Formats of the identifier types, and the allowed values of Gebruiksdoel: not
    # shown", "Fields of the HAL resources ...: not shown". The per-operation MUST checks judge
    # only the seed's constraints of the description (conformance/checks/address/contract_split.py).
    severity=Severity.SHOULD,
    suite=SUITE,
    feature="contract fuzzing",
    proven_by=("address.identifier_patterns_not_enforced",),
    may_fail_under=(*_CONTRACT_COLLATERAL, "address.huisnummer_as_string", "address.identifiers_malformed"),
)

define(
    "address.contract.stateful_links",
    "Chains of operations through OpenAPI links (search -> address -> object -> building) conform",
    requirements=("ADDR-4", "ADDR-1.hal"),
    severity=Severity.MUST,
    suite=SUITE,
    feature="contract fuzzing",
    proven_by=("address.api_version_missing",),
    may_fail_under=_CONTRACT_COLLATERAL,
)

define(
    "address.contract.other_operations",
    "Operations the description has beyond the seed's answer as the description says (schemathesis's checks)",
    requirements=("ADDR-4.other-operations",),
    # The seed: "Endpoints of the other resource groups (...): not shown." Measured, never failed.
    severity=Severity.OBSERVATION,
    suite=SUITE,
    feature="contract fuzzing",
)
