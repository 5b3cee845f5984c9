"""What page and pageSize select, the parameter rules of /adressenuitgebreid and the parts
q searches (seed parts 4 and 8; issue 33).

Tests: suites/address/test_general_paging.py (what the pages hold, check functions in
paging.py), test_endpoints_adressen.py (the parameter rules, run on /adressen and on
/adressenuitgebreid, and q by part). Faults: conformance/mocks/address/faults_params.py.

`proven_by` names the faults aimed at the rule; `may_fail_under` those that break
something the check relies on (see catalogue_endpoints.py).
"""

from conformance.checks.registry import Severity, define

SUITE = "address"
MUST = Severity.MUST

PAGING = "part 4, 8 / pagination"
F_UITGEBREID = "GET /adressenuitgebreid"
F_ADRESSEN = "GET /adressen"
WHY_400 = ("address.invalid_params_missing", "address.invalid_params_without_name")
PAGING_REQUIREMENTS = ("ADDR-4.page", "ADDR-4.pageSize", "ADDR-8.pageSize")


def _check(check_id, title, requirements, feature, proven_by=(), may_fail_under=()):
    return define(f"address.{check_id}", title, requirements=requirements, severity=MUST, suite=SUITE,
                  feature=feature, proven_by=tuple(f"address.{f}" for f in proven_by),
                  may_fail_under=tuple(f if f.startswith("address.") else f"address.{f}" for f in may_fail_under))


# --------------------------------------------------------------------------- what pages hold
_check("pagination.page_size_limits_results",
       "A page of pageSize 10 holds at most 10 results, and exactly 10 on every page before the last",
       PAGING_REQUIREMENTS, PAGING, proven_by=("page_size_ignored",))
_check("pagination.page_selects_results",
       "Page 2 holds other results than page 1",
       PAGING_REQUIREMENTS, PAGING, proven_by=("page_ignored",))
_check("pagination.pages_hold_each_result_once",
       "The pages of pageSize 10 together hold each result of the collection once: none twice, none missing",
       PAGING_REQUIREMENTS, PAGING, proven_by=("pages_overlap", "page_ignored"))
