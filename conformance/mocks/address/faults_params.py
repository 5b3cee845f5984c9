"""Address mock faults that prove what page and pageSize select, the parameter rules of
/adressenuitgebreid, the patterns by character and the parts that q searches (issue 33).

Each one a single, named deviation, asked for with `faults.on(X.name)` at the one place
where it misbehaves; the checks they prove name them in `proven_by`
(suites/address/test_general_params.py).
"""

from conformance.mocks.faults import fault

# --- which results a page holds (seed parts 4 and 8) -------------------------------------------
PAGE_SIZE_IGNORED = fault(
    "address.page_size_ignored",
    "a pageSize below 20 is echoed in X-Pagination-Limit and the links, but its pages hold 20 results", shows="pageSize",
)
PAGE_IGNORED = fault(
    "address.page_ignored",
    "every page holds the results of page 1, while X-Pagination-Page and the links echo the page asked for", shows=("page 1", "more than one page"),
)
PAGES_OVERLAP = fault(
    "address.pages_overlap",
    "each page after the first begins with the last result of the page before (an off-by-one offset)", shows="result",
)

# --- /adressenuitgebreid has the parameter rules of /adressen (seed part 4) -----------------------
UITGEBREID_PARAMS_NOT_VALIDATED = fault(
    "address.uitgebreid_params_not_validated",
    "/adressenuitgebreid checks no postcode pattern, huisnummer range, letter or addition pattern or "
    "length, and answers a query without an identifying parameter 200 (empty); /adressen still does", shows="adressenuitgebreid",
)

# --- patterns by character and lower length bounds (seed parts 4 and 8) ----------------------------
LETTER_PATTERN_LENGTH_ONLY = fault(
    "address.letter_pattern_length_only",
    "huisletter is checked by its length only: a digit or '-' is accepted as a letter", shows="huisletter",
)
ADDITION_PATTERN_LENGTH_ONLY = fault(
    "address.addition_pattern_length_only",
    "huisnummertoevoeging is checked by its length only: 'a-b' or '!' is accepted", shows="huisnummertoevoeging",
)
EMPTY_TEXT_ACCEPTED = fault(
    "address.empty_text_accepted",
    "an empty woonplaatsNaam, openbareRuimteNaam, q, zoek or zoekresultaatIdentificatie is searched "
    "for (200, nothing found) instead of refused: the minimum length 1 is not enforced", shows="empty",
)

# --- the parts q searches on (seed part 4, GET /adressen) -------------------------------------------
# One mechanism (conformance/mocks/address/addresses.py, `_q_parts_ignored`): a q term
# must match the address on a part the server searches, and under each fault one part
# is not searched, as if left out of the search index.
Q_IGNORES_WOONPLAATS = fault("address.q_ignores_woonplaats", "q does not search the woonplaats name", shows="missing from the results")
Q_IGNORES_STREET = fault(
    "address.q_ignores_street",
    "q does not search the street name (openbare ruimte, short name)", shows="missing from the results",
)
Q_IGNORES_NUMBER = fault("address.q_ignores_number", "q does not search the house number", shows="missing from the results")
Q_IGNORES_LETTER = fault("address.q_ignores_letter", "q does not search the house letter", shows="letter")
Q_IGNORES_ADDITION = fault("address.q_ignores_addition", "q does not search the house number addition", shows="huisnummertoevoeging")
# A q of several terms searched on its first term alone: every term after it is dropped, so
# "Kerkstraat 12 Utrecht" answers every address of every Kerkstraat.
Q_FIRST_TERM_ONLY = fault(
    "address.q_first_term_only",
    "q is searched on its first term only; the terms after it (separated by a space or comma) are dropped", shows="the term was not used",
)
Q_PART_FAULTS = {
    "woonplaats": Q_IGNORES_WOONPLAATS,
    "street": Q_IGNORES_STREET,
    "number": Q_IGNORES_NUMBER,
    "letter": Q_IGNORES_LETTER,
    "addition": Q_IGNORES_ADDITION,
}
