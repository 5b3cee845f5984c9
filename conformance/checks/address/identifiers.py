"""Identifier formats in responses (bag-api.md 2.1; the seed does not show them: SHOULD)."""

from __future__ import annotations

import re
from typing import Any

from conformance.findings import expect
from conformance.http.exchange import Exchange

_OBJECT = r"[0-9]{4}(01|02|03)[0-9]{10}"
PATTERNS: dict[str, re.Pattern[str]] = {
    "nummeraanduidingIdentificatie": re.compile(r"[0-9]{4}20[0-9]{10}"),
    "adresseerbaarObjectIdentificatie": re.compile(_OBJECT),
    "openbareRuimteIdentificatie": re.compile(r"[0-9]{4}30[0-9]{10}"),
    "woonplaatsIdentificatie": re.compile(r"[0-9]{4}"),
    "heeftAlsHoofdAdres": re.compile(r"[0-9]{4}20[0-9]{10}"),
}
# Array members whose items are identifiers.
ARRAY_PATTERNS: dict[str, re.Pattern[str]] = {
    "pandIdentificaties": re.compile(r"[0-9]{4}10[0-9]{10}"),
    "maaktDeelUitVan": re.compile(r"[0-9]{4}10[0-9]{10}"),
    "heeftAlsNevenAdres": re.compile(r"[0-9]{4}20[0-9]{10}"),
}


def walk(value: Any, found: list[tuple[str, str, re.Pattern[str]]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in PATTERNS and isinstance(item, str):
                found.append((key, item, PATTERNS[key]))
            elif key in ARRAY_PATTERNS and isinstance(item, list):
                found.extend((key, str(i), ARRAY_PATTERNS[key]) for i in item if isinstance(i, str))
            elif key != "_links":
                walk(item, found)
    elif isinstance(value, list):
        for item in value:
            walk(item, found)


def identifiers_match_patterns(ex: Exchange) -> None:
    found: list[tuple[str, str, re.Pattern[str]]] = []
    walk(ex.json, found)
    bad = [(k, v) for k, v, pattern in found if not pattern.fullmatch(v)]
    expect(not bad, "identifiers in the response do not match their patterns", actual=bad[:5])
