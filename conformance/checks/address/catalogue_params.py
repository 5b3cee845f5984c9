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

# --------------------------------------------------------------------------- /adressenuitgebreid's parameter rules
# The /adressen checks of the same name run the same cases (test_endpoints_adressen.py,
# both_endpoints); the mock validates both endpoints in one place, so the /adressen faults
# trip these too.
UITGEBREID = ("ADDR-4.adressenuitgebreid.params",)
NOT_VALIDATED = "uitgebreid_params_not_validated"
_check("adressenuitgebreid.postcode_pattern_rejected",
       "A postcode breaking the pattern (leading 0, three letters, two spaces) is refused on /adressenuitgebreid "
       "with 400 naming postcode", (*UITGEBREID, "ADDR-4.adressen.postcode"), F_UITGEBREID,
       (NOT_VALIDATED, "postcode_pattern_not_enforced"), WHY_400)
_check("adressenuitgebreid.huisnummer_limits",
       "huisnummer 1 and 99999 are accepted on /adressenuitgebreid; 0 and 100000 are refused with 400 naming it",
       (*UITGEBREID, "ADDR-4.adressen.huisnummer", "ADDR-8.huisnummer"), F_UITGEBREID,
       (NOT_VALIDATED, "huisnummer_limits_not_enforced"), WHY_400)
_check("adressenuitgebreid.huisnummertoevoeging_pattern",
       "huisnummertoevoeging of 4 characters is accepted on /adressenuitgebreid; 5 characters, 'a-b' and '!' "
       "are refused with 400", (*UITGEBREID, "ADDR-4.adressen.huisnummertoevoeging"), F_UITGEBREID,
       (NOT_VALIDATED, "letter_addition_patterns_not_enforced", "addition_pattern_length_only"), WHY_400)
_check("adressenuitgebreid.huisletter_pattern",
       "huisletter of 1 letter is accepted on /adressenuitgebreid; 2 letters, a digit and '-' are refused with 400",
       (*UITGEBREID, "ADDR-4.adressen.huisletter"), F_UITGEBREID,
       (NOT_VALIDATED, "letter_addition_patterns_not_enforced", "letter_pattern_length_only"), WHY_400)
_check("adressenuitgebreid.name_lengths",
       "woonplaatsNaam and openbareRuimteNaam of 80 characters are accepted on /adressenuitgebreid; "
       "81 and empty are refused with 400", (*UITGEBREID, "ADDR-4.adressen.woonplaatsNaam", "ADDR-8.length"),
       F_UITGEBREID, (NOT_VALIDATED, "length_limits_not_enforced", "empty_text_accepted"), WHY_400)
_check("adressenuitgebreid.q_length",
       "q of 255 characters is accepted on /adressenuitgebreid; 256 characters and an empty q are refused with 400",
       (*UITGEBREID, "ADDR-4.adressen.q", "ADDR-8.length"), F_UITGEBREID,
       (NOT_VALIDATED, "length_limits_not_enforced", "empty_text_accepted"), WHY_400)
_check("adressenuitgebreid.no_parameters_rejected",
       "GET /adressenuitgebreid without an identifying parameter is answered 400 paramsRequired",
       (*UITGEBREID, "ADDR-4.adressenuitgebreid", "ADDR-7.paramsRequired"), F_UITGEBREID,
       (NOT_VALIDATED, "required_params_not_enforced"), ("wrong_error_code",))
_check("adressen.no_parameters_rejected",
       "GET /adressen without an identifying parameter is answered 400 paramsRequired",
       ("ADDR-4.adressen", "ADDR-7.paramsRequired"), F_ADRESSEN,
       ("required_params_not_enforced",), ("wrong_error_code",))

# --------------------------------------------------------------------------- the parts q searches
Q_FAULTS = tuple(f"q_ignores_{part}" for part in ("woonplaats", "street", "number", "letter", "addition"))
_check("adressen.q_searches_each_part",
       "q naming the sample's woonplaats, street, house number, or a variant's letter or addition (with its "
       "postcode or names for context) finds that address",
       ("ADDR-4.adressen.q",), F_ADRESSEN, (*Q_FAULTS, "q_ignored"))
