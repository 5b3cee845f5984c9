"""The seed's rules for the requests a client sends to the address API (parts 4 and 8)."""

from __future__ import annotations

import re

from conformance.findings import expect
from conformance.http.exchange import Exchange

_INT_RANGES = {"page": (1, None), "pageSize": (10, 100), "huisnummer": (1, 99999),
               "oppervlakte[min]": (1, 999999), "oppervlakte[max]": (1, 999999)}
_PATTERNS = {"postcode": r"[1-9][0-9]{3} ?[a-zA-Z]{2}", "huisletter": r"[a-zA-Z]",
             "huisnummertoevoeging": r"[0-9a-zA-Z]{1,4}"}
_LENGTHS = {"q": 255, "zoek": 255, "zoekresultaatIdentificatie": 255, "woonplaatsNaam": 80, "openbareRuimteNaam": 80}
BBOX_MAX_AREA_M2 = 250_000


def parameter_violations(query: list[tuple[str, str]]) -> list[str]:
    """What breaks the seed's parameter rules, one line per parameter."""
    out: list[str] = []
    for name, value in query:
        if name in _INT_RANGES:
            low, high = _INT_RANGES[name]
            if not re.fullmatch(r"[0-9]+", value) or int(value) < low or (high is not None and int(value) > high):
                out.append(f"{name}={value!r}: an integer from {low}" + (f" to {high}" if high else " up"))
        elif name in _PATTERNS and not re.fullmatch(_PATTERNS[name], value):
            out.append(f"{name}={value!r}: pattern {_PATTERNS[name]}")
        elif name in _LENGTHS and not 1 <= len(value) <= _LENGTHS[name]:
            out.append(f"{name}: {len(value)} characters, 1 to {_LENGTHS[name]} allowed")
        elif name == "bbox":
            out += _bbox(value)
    return out


def _bbox(value: str) -> list[str]:
    parts = value.split(",")
    try:
        x1, y1, x2, y2 = (float(p) for p in parts)
    except ValueError:
        return [f"bbox={value!r}: four comma-separated numbers"]
    area = abs(x2 - x1) * abs(y2 - y1)
    return [f"bbox={value!r}: {area:.0f} m2, at most {BBOX_MAX_AREA_M2}"] if area > BBOX_MAX_AREA_M2 else []


def parameters_within_limits(ex: Exchange) -> None:
    bad = parameter_violations(ex.query)
    expect(not bad, "outside the seed's rules: " + "; ".join(bad), actual=bad)


def api_key_sent(ex: Exchange, header: str) -> None:
    value = ex.request_headers.get(header)
    expect(bool(value and value.strip()), f"no {header} header", actual=[k for k, _ in ex.request_headers.items()])


def get_only(ex: Exchange) -> None:
    expect(ex.method == "GET", "a method other than GET", expected="GET", actual=ex.method)
