"""Contract fuzzing judges negative requests as the seed allows: a bad `expand` beside
`pandIdentificatie` or `openbareRuimteIdentificatie` may be ignored (seed part 4, the kinds
of GET /adressen), so schemathesis's negative_data_rejection does not judge such a request;
a bad `expand` beside any other kind, or a bad other parameter beside a good expand, it does.

Seen in a full local-mock run: `expand=<random text>&pandIdentificatie=...` answered 200 by
the faithful mock was reported as "Schema-violating request accepted" (a false MUST failure)."""

from __future__ import annotations

import pytest
import schemathesis
from conformance.suites.address import test_contract as contract

from conformance.paths import CHECKOUT


@pytest.fixture(scope="module")
def adressen():
    schema = schemathesis.openapi.from_path(str(CHECKOUT / "conformance/openapi/address-v2.yaml"))
    return next(r.ok() for r in schema.get_all_operations() if r.ok().path.endswith("/adressen"))


@pytest.mark.parametrize(("query", "ignored"), [
    ({"pandIdentificatie": "0363100012345678", "expand": "\u00f1(*"}, True),
    ({"openbareRuimteIdentificatie": "0363300000000001", "expand": "nope"}, True),
    ({"openbareRuimteIdentificatie": "0363300000000001", "expand": ["panden", "x"]}, True),
    # a valid expand: whatever is wrong is elsewhere, and is judged
    ({"pandIdentificatie": "not-an-id", "expand": "panden"}, False),
    # a bad expand beside another kind must be refused
    ({"postcode": "1234AB", "huisnummer": 1, "expand": "nope"}, False),
    ({"pandIdentificatie": "0363100012345678"}, False),
])
def test_a_bad_expand_is_left_unjudged_only_where_the_seed_lets_it_be_ignored(adressen, query, ignored) -> None:
    case = adressen.Case(query=query)
    assert contract._bad_expand_may_be_ignored(case) is ignored


def test_every_other_request_is_judged_by_schemathesis_itself(adressen, monkeypatch) -> None:
    seen = []
    monkeypatch.setattr(contract, "negative_data_rejection", lambda ctx, response, case: seen.append(case) or False)
    judged = adressen.Case(query={"postcode": "1234AB", "huisnummer": 1, "expand": "nope"})
    left = adressen.Case(query={"pandIdentificatie": "0363100012345678", "expand": "nope"})
    assert contract.negative_data_rejection_as_the_seed_allows(None, None, judged) is False
    assert contract.negative_data_rejection_as_the_seed_allows(None, None, left) is None
    assert seen == [judged]
    assert contract.negative_data_rejection_as_the_seed_allows.__name__ == "negative_data_rejection"
