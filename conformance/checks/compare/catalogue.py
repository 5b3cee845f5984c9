"""The checks of `conformance compare` (suites/compare): the vendor's address API against
the register's own environment, request by request (conformance/compare).

They are proven both ways in tests/test_compare.py (a mock against a second instance of
itself: nothing; against the mock under each data-semantic fault: the difference at its
JSON path), not by the fault meta-test, whose runs have no reference to compare with.
"""

from conformance.checks.registry import Severity, define

SUITE = "compare"
FEATURE = "comparison with the register's environment"

define(
    "compare.address.status",
    "Each request is answered with the status and media type the register's environment answers it with",
    requirements=("ADDR-1.register-data", "ADDR-1.media-type"),
    severity=Severity.MUST,
    suite=SUITE,
    feature=FEATURE,
)
define(
    "compare.address.defined_fields",
    "Members the description defines hold the register's values, types and collection members",
    requirements=("ADDR-1.register-data", "ADDR-2.schemas"),
    severity=Severity.MUST,
    suite=SUITE,
    feature=FEATURE,
    proven_by=("address.last_page_dropped",),
)
define(
    "compare.address.other_fields",
    "Members the description does not define are served as the register's environment serves them",
    requirements=("CMP-1.undescribed",),
    severity=Severity.SHOULD,
    suite=SUITE,
    feature=FEATURE,
    proven_by=("address.extra_member",),
)
define(
    "compare.address.headers",
    "The response headers the seed fixes carry the register's values",
    requirements=("ADDR-4.api-version", "ADDR-4.X-Pagination", "ADDR-4.Content-Crs"),
    severity=Severity.MUST,
    suite=SUITE,
    feature=FEATURE,
)
define(
    "compare.address.volatile",
    "What two identical requests to the register's environment answer differently (cancelled)",
    requirements=("CMP-1.volatile",),
    severity=Severity.OBSERVATION,
    suite=SUITE,
    feature=FEATURE,
)
