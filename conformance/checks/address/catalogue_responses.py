"""The cross-cutting check of every answer's body against its described response schema
(conformance/checks/address/response_schema.py, suites/address/test_response_schema.py)."""

from conformance.checks.registry import Severity, define

SUITE = "address"

# Faults that change the shape of answers beyond the description's schemas: the check sees
# them in every answer they touch, as it should, besides the checks aimed at them (found by
# replaying a run's requests against the mock under every fault of the catalogue).
SHAPE_FAULTS: tuple[str, ...] = (
    "address.embedded_self_link_missing",      # _links.self is required of embedded resources
    "address.self_link_missing",               # ... and of every 200 body
    "address.identifiers_malformed",           # 15-digit ids break the identifier patterns
    "address.invalid_params_without_name",     # invalid-params items require a name
    "address.object_wrapper_ambiguous",        # an object is exactly one of ligplaats, standplaats, verblijfsobject
    "address.zoek_results_without_identificatie",  # zoekresultaten require their identificatie
)

define(
    "address.response.schema_valid",
    "Every answer of the run (checks, fuzzing, sample validation) matches the response schema of its operation and status",
    requirements=("ADDR-2.schemas", "ADDR-4"),
    severity=Severity.MUST,
    suite=SUITE,
    feature="response schemas",
    proven_by=("address.huisnummer_as_string",),
    may_fail_under=SHAPE_FAULTS,
)
