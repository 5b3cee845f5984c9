"""Query-parameter parsing and validation (seed part 4 and 8; bag-api.md 2, 4.11, 5.4, 5.5).

The raw query string is parsed here, not by Starlette, because the rules need what a
dict of parameters hides: a parameter sent twice, a name without `=`, undecodable bytes.
Values are never trusted: every converter is total (no exception escapes for any input).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from urllib.parse import unquote_to_bytes

from conformance.mocks.address import problems
from conformance.mocks.address.problems import TYPE_CODES, InvalidParam, ProblemError

# Identifier patterns (bag-api.md 2.1). Matched with fullmatch, so `$` cannot accept "\n".
ADRESSEERBAAR_OBJECT_ID = r"^[0-9]{4}(01|02|03)[0-9]{10}$"
NUMMERAANDUIDING_ID = r"^[0-9]{4}20[0-9]{10}$"
PAND_ID = r"^[0-9]{4}10[0-9]{10}$"
OPENBARE_RUIMTE_ID = r"^[0-9]{4}30[0-9]{10}$"
OBJECT_ID = (
    r"^[0-9]{4}(?:01|02|03|10|20|30)[0-9]{10}$|^[0-9]{3}[1-9]$|^[0-9]{2}[1-9][0-9]$"
    r"|^[0-9][1-9][0-9]{2}$|^[1-9][0-9]{3}$"
)
POSTCODE = r"^[1-9]{1}[0-9]{3}[ ]{0,1}[a-zA-Z]{2}$"
HUISLETTER = r"^[a-zA-Z]{1}$"
HUISNUMMERTOEVOEGING = r"^[0-9a-zA-Z]{1,4}$"

GEBRUIKSDOELEN = (
    "woonfunctie",
    "bijeenkomstfunctie",
    "celfunctie",
    "gezondheidszorgfunctie",
    "industriefunctie",
    "kantoorfunctie",
    "logiesfunctie",
    "onderwijsfunctie",
    "sportfunctie",
    "winkelfunctie",
    "overige gebruiksfunctie",
)

_INT = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?"
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# re.fullmatch(pattern, value) without re's cache lookup: the patterns are this module's.
_compiled = lru_cache(maxsize=64)(re.compile)
# int() refuses strings above 4300 digits; longer values are clamped to this many digits
# (still far beyond every limit), shorter ones stay exact, e.g. for X-Pagination-Page.
_MAX_DIGITS = 4000


@dataclass(frozen=True)
class RawParam:
    name: str
    value: str | None  # None: the name was sent without "="
    position: int
    bad_encoding: bool = False


def parse_query(raw: bytes) -> list[RawParam]:
    """Split a query string as sent; `+` means a space (form style)."""
    params: list[RawParam] = []
    for position, segment in enumerate(s for s in raw.split(b"&") if s):
        name_part, eq, value_part = segment.partition(b"=")
        name, _ = _decode(name_part)
        value, bad = _decode(value_part) if eq else (None, False)
        params.append(RawParam(name, value, position, bad))
    return params


def _decode(part: bytes) -> tuple[str, bool]:
    data = unquote_to_bytes(part.replace(b"+", b" "))
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


@dataclass(frozen=True)
class Readings:
    """How the converters read values. Anything but the default is a fault's doing
    (conformance/mocks/address/faults_general.py); the app's Context sets it per query."""

    lenient_booleans: frozenset[str] = frozenset()  # a non-boolean value of these reads as false
    ignore_malformed_timestamps: bool = False  # a malformed timestamp counts as not sent
    misread_short_timestamps: bool = False  # omitted :ss/.fff read as :59/.999, digits rounded


class Query:
    """The parameters one endpoint knows, each sent once and with a value.

    Unknown parameters are ignored (bag-api.md 4.5). A known parameter without a value or
    sent twice is answered 400 paramsRequired (4.11); `expand=` is left to the expand rule.
    Names in `first_wins` (a fault's doing) may be repeated: the first value counts; names
    in `empty_allowed` (a fault's doing too) may be sent empty.
    """

    readings: Readings = Readings()

    def __init__(
        self,
        raw: list[RawParam],
        known: frozenset[str],
        *,
        duplicate_codes: dict[str, str] | None = None,
        first_wins: frozenset[str] = frozenset(),
        empty_allowed: frozenset[str] = frozenset(),
    ) -> None:
        self._params: dict[str, RawParam] = {}
        if not raw:
            return  # nothing sent: nothing twice, nothing empty
        seen: dict[str, int] = {}
        for param in raw:
            if param.name in known:
                seen[param.name] = seen.get(param.name, 0) + 1
                self._params.setdefault(param.name, param)
        duplicated = [n for n, count in seen.items() if count > 1 and n not in first_wins]
        for name in duplicated:
            code = (duplicate_codes or {}).get(name, "paramsRequired")
            if code == "unsupportedCombination":
                raise problems.unsupported([name])
        if duplicated:
            raise ProblemError("paramsRequired", [InvalidParam.of(n, "schema", n) for n in duplicated])
        empty = [p.name for p in self._params.values()
                 if p.name != "expand" and p.name not in empty_allowed and not p.value]
        if empty:
            raise problems.required(empty)

    def has(self, name: str) -> bool:
        return name in self._params

    def get(self, name: str) -> RawParam | None:
        return self._params.get(name)

    def names(self) -> set[str]:
        return set(self._params)


class Validator:
    """Converts parameter values and collects what is wrong with them.

    `finish()` raises paramsValidation: only the first type error if there is one,
    else every constraint error (bag-api.md 5.5), both in the order the client sent them.
    """

    def __init__(self, query: Query) -> None:
        self.query = query
        self._errors: list[tuple[int, InvalidParam]] = []

    # --- bookkeeping ----------------------------------------------------------------
    def fail(self, position: int, name: str, code: str, arg: object = "") -> None:
        self._errors.append((position, InvalidParam.of(name, code, arg)))

    def _raw(self, name: str) -> RawParam | None:
        param = self.query.get(name)
        if param is None or param.value is None:
            return None
        if param.bad_encoding:
            self.fail(param.position, name, "notAllowedCharacter")
            return None
        return param

    def finish(self) -> None:
        if not self._errors:
            return
        ordered = sorted(self._errors, key=lambda e: e[0])
        typed = [e for _, e in ordered if e.code in TYPE_CODES]
        raise problems.validation(typed[:1] if typed else [e for _, e in ordered])

    # --- converters -----------------------------------------------------------------
    def path_id(self, name: str, value: str, pattern: str, *, enforce: bool = True) -> str | None:
        """A path identifier; its `name` is written in lower case (bag-api.md 5.4)."""
        if not enforce or _compiled(pattern).fullmatch(value):
            return value
        self.fail(-1, name.lower(), "pattern", pattern)
        return None

    def pattern(self, name: str, pattern: str, *, enforce: bool = True) -> str | None:
        param = self._raw(name)
        if param is None:
            return None
        assert param.value is not None
        if enforce and not _compiled(pattern).fullmatch(param.value):
            self.fail(param.position, name, "pattern", pattern)
            return None
        return param.value

    def text(self, name: str, max_length: int, *, enforce: bool = True) -> str | None:
        param = self._raw(name)
        if param is None:
            return None
        value = param.value or ""
        ok = True
        if enforce and len(value) > max_length:
            self.fail(param.position, name, "maxLength", max_length)
            ok = False
        if _CONTROL.search(value):
            self.fail(param.position, name, "notAllowedCharacter")
            ok = False
        return value if ok else None

    def integer(
        self, name: str, minimum: int, maximum: int, *, enforce_min: bool = True, enforce_max: bool = True
    ) -> int | None:
        param = self._raw(name)
        if param is None:
            return None
        value = parse_int(param.value or "")
        if value is None:
            self.fail(param.position, name, "integer")
            return None
        if enforce_min and value < minimum:
            self.fail(param.position, name, "minimum", minimum)
            return None
        if enforce_max and value > maximum:
            self.fail(param.position, name, "maximum", maximum)
            return None
        return value

    def boolean(self, name: str) -> bool | None:
        param = self._raw(name)
        if param is None:
            return None
        if param.value in ("true", "false"):
            return param.value == "true"
        if name in self.query.readings.lenient_booleans:
            return False
        self.fail(param.position, name, "boolean")
        return None

    def date(self, name: str) -> date | None:
        param = self._raw(name)
        if param is None:
            return None
        value = parse_date(param.value or "")
        if value is None:
            self.fail(param.position, name, "date")
        return value

    def timestamp(self, name: str, *, allow_short: bool = True) -> datetime | None:
        param = self._raw(name)
        if param is None:
            return None
        readings = self.query.readings
        value = parse_timestamp(param.value or "", allow_short=allow_short, misread=readings.misread_short_timestamps)
        if value is None and not readings.ignore_malformed_timestamps:
            self.fail(param.position, name, "timestamp")
        return value

    def enum(self, name: str, allowed: dict[str, str], *, ignore_case: bool = False) -> str | None:
        """`allowed` maps an accepted spelling (lower case with ignore_case) to the value."""
        param = self._raw(name)
        if param is None:
            return None
        text = param.value or ""
        value = allowed.get(text.lower() if ignore_case else text)
        if value is None:
            self.fail(param.position, name, "enum")
        return value

    def enum_list(self, name: str, allowed: tuple[str, ...]) -> tuple[str, ...] | None:
        param = self._raw(name)
        if param is None:
            return None
        items = tuple((param.value or "").split(","))
        if any(item not in allowed for item in items):
            self.fail(param.position, name, "enum")
            return None
        return items

    def pattern_list(self, name: str, pattern: str, *, enforce: bool = True) -> tuple[str, ...] | None:
        param = self._raw(name)
        if param is None:
            return None
        items = tuple((param.value or "").split(","))
        bad = [item for item in items if enforce and not _compiled(pattern).fullmatch(item)]
        for _ in bad:
            self.fail(param.position, name, "pattern", pattern)
        return None if bad else items

    def numbers(self, name: str) -> list[float] | None:
        param = self._raw(name)
        if param is None:
            return None
        values: list[float] = []
        for item in (param.value or "").split(","):
            number = parse_number(item.strip())
            if number is None:
                self.fail(param.position, name, "number")
                return None
            values.append(number)
        return values

    def expand(
        self, name: str, allowed: dict[str, str], *, ignore_unknown: bool = False, fields: bool = True
    ) -> frozenset[str] | None:
        """Comma-separated relation names (case-insensitive), `true` for all of them.

        `resource.field` is accepted (seed part 4) and embeds the whole resource, as the
        public service does; `fields=False` refuses it (fault expand_field_rejected).
        Every bad item gets its own invalid-params entry.
        """
        param = self.query.get(name)
        if param is None:
            return None
        if param.bad_encoding:
            self.fail(param.position, name, "notAllowedCharacter")
            return None
        chosen: set[str] = set()
        for item in (param.value or "").split(","):
            resource, dot, field_name = item.partition(".")
            key = resource.strip().lower()
            if key == "true" and not dot:
                chosen.update(allowed.values())
            elif key in allowed and (not dot or (fields and field_name.strip())):
                chosen.add(allowed[key])
            elif not ignore_unknown:
                self.fail(param.position, name, "expand", item)
        return frozenset(chosen)


def parse_int(text: str) -> int | None:
    if not _INT.fullmatch(text):
        return None
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-").lstrip("0") or "0"
    return sign * int(digits[:_MAX_DIGITS])


def parse_number(text: str) -> float | None:
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def parse_date(text: str) -> date | None:
    match = _DATE.fullmatch(text)
    if not match:
        return None
    try:
        return date(*(int(g) for g in match.groups()))
    except ValueError:
        return None


def parse_timestamp(text: str, *, allow_short: bool = True, misread: bool = False) -> datetime | None:
    """`YYYY-MM-DDThh:mm[:ss[.fff...]]`: omitted seconds and milliseconds become :00 and
    .000, more than three fractional digits are cut to three (seed part 4). `misread` is
    the fault beschikbaarop_short_form_misread: :59 and .999, the third digit rounded."""
    match = _TIMESTAMP.fullmatch(text)
    if not match:
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    if second is None and not allow_short:
        return None
    millis = int((fraction or "")[:3].ljust(3, "0"))
    if misread:
        rounded = 1 if fraction is not None and len(fraction) > 3 and fraction[3] >= "5" else 0
        try:
            moment = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 59))
            return moment + timedelta(milliseconds=999 if fraction is None else millis + rounded)
        except (ValueError, OverflowError):
            return None
    try:
        return datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0), millis * 1000
        )
    except ValueError:
        return None
