"""The cross-cutting checks of every answer's body against its described response schema
(conformance/checks/address/response_schema.py, suites/address/test_response_schema.py).

The description marks the constraints the seed does not state (identifier formats, the HAL
resources' fields and links: seed part 2 "not shown") with `x-conformance-source: public`
(conformance/openapi/seed_view.py). A violation of those only is the SHOULD check's; a
violation of the rest (the seed's: the Error members, invalid-params, one wrapper per object,
a result's identificatie, hyperlinks on every resource) the MUST check's.
"""

from conformance.checks.registry import Severity, define

SUITE = "address"

# Faults that change the shape of answers beyond the description's schemas: the checks see
# them in every answer they touch, as they should, besides the checks aimed at them (found by
# replaying a run's requests against the mock under every fault of the catalogue).
SEED_SHAPE_FAULTS: tuple[str, ...] = (
    "address.object_wrapper_ambiguous",        # an object is exactly one of ligplaats, standplaats, verblijfsobject
    "address.zoek_results_without_identificatie",  # a result's identificatie is passed on (seed part 4)
)
PUBLIC_SHAPE_FAULTS: tuple[str, ...] = (
    "address.embedded_self_link_missing",      # _links.self is required of embedded resources
    "address.self_link_missing",               # ... and of every 200 body
    "address.object_wrapper_ambiguous",        # the second wrapper's fields break the public ones too
)

define(
    "address.response.schema_valid",
    "Every answer of the run (checks, fuzzing, sample validation) matches the seed's constraints of the "
    "response schema of its operation and status",
    requirements=("ADDR-2.schemas", "ADDR-2.error", "ADDR-2.invalid-params", "ADDR-4"),
    severity=Severity.MUST,
    suite=SUITE,
    feature="response schemas",
    proven_by=("address.invalid_params_without_name",),
    may_fail_under=SEED_SHAPE_FAULTS,
)

define(
    "address.response.public_behaviour",
    "Every answer of the run follows the public-behaviour constraints of its response schema "
    "(identifier formats, HAL fields and links: x-conformance-source: public)",
    requirements=("ADDR-2.fields", "BAGREF-2.1", "BAGREF-3", "BAGREF-4.2"),
    # Seed part 2: "Fields of the HAL resources and their embedded parts: not shown beyond the
    # schema names above." and "Formats of the identifier types ...: not shown."
    severity=Severity.SHOULD,
    suite=SUITE,
    feature="response schemas",
    proven_by=("address.huisnummer_as_string", "address.identifiers_malformed"),
    may_fail_under=PUBLIC_SHAPE_FAULTS,
)
