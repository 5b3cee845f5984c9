"""Address mock faults a vendor's environment shows only next to the register's own: the
answers are valid, only other than the register's (`conformance compare`, proven in
tests/test_compare.py). Asked with `faults.on(X.name)` where they misbehave."""

from conformance.mocks.faults import fault

LAST_PAGE_DROPPED = fault(
    "address.last_page_dropped",
    "a collection of more than one page is served a page fewer: the last page is empty and the links end before it",
)
EXTRA_MEMBER = fault(
    "address.extra_member",
    "every resource carries a member the description does not define (`leverancier`)",
)
