"""The faults q_ignores_<part> (faults_params.py): q as a server searches it that left one
part of an address out of its search index; and q_first_term_only, which drops every term
after the first.

The repository matches every q term against every part (repository.py, "free text");
this narrows its answer to the addresses every term also matches on the parts still
searched, as bag-api.md 4.10 matches them: postcode forms, house number, letter and
addition whole (also written together), names on any part.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from conformance.mocks.address.data import fold

_SEPARATORS = re.compile(r"[,\s]+")  # as repository._TERM_SEPARATORS


def searched(q: str, addresses: list[dict[str, Any]], ignored: Iterable[str]) -> list[dict[str, Any]]:
    """The addresses each term of `q` matches without the `ignored` parts (woonplaats,
    street, number, letter, addition)."""
    left_out = frozenset(ignored)
    terms = [fold(t) for t in _SEPARATORS.split(q) if t]
    return [a for a in addresses if all(_matches(term, a, left_out) for term in terms)]


def first_term(q: str) -> str:
    """The first term of `q` (the fault q_first_term_only drops the others)."""
    return next((t for t in _SEPARATORS.split(q) if t), q)


def _matches(term: str, address: dict[str, Any], ignored: frozenset[str]) -> bool:
    if term in _whole_terms(address, ignored):
        return True
    names = []
    if "woonplaats" not in ignored:
        names.append(address.get("woonplaatsNaam"))
    if "street" not in ignored:
        names += [address.get("openbareRuimteNaam"), address.get("korteNaam")]
    return any(term in fold(name) for name in names if isinstance(name, str))


def _whole_terms(address: dict[str, Any], ignored: frozenset[str]) -> set[str]:
    """What matches the address as a whole (data.free_text_terms), without the ignored parts."""
    code = fold(str(address.get("postcode") or ""))
    terms = {code, code[:4], code[4:], *(code[:n] for n in range(4, len(code) + 1))} if code else set()
    number = "" if "number" in ignored else str(address.get("huisnummer") or "")
    letter = "" if "letter" in ignored else fold(str(address.get("huisletter") or ""))
    addition = "" if "addition" in ignored else fold(str(address.get("huisnummertoevoeging") or ""))
    terms |= {number, letter, addition, letter + addition, number + letter, number + letter + addition}
    if addition and number:
        terms |= {f"{number}-{letter}{addition}", f"{number}{letter}-{addition}"}
    terms.discard("")
    return terms
