"""Two JSON answers to the same request, normalised and compared.

Normalising: the base URL of each side in any string (links, `instance`) becomes `{base}`,
so two environments at different addresses can give equal answers. Comparing gives one
`Difference` per JSON path where the answers part: a member missing or extra, another JSON
type, another value, or a collection (an `_embedded` array of resources) with other
members. Members of a collection are paired by identity (their `_links.self.href`, else
their `identificatie`), so one extra object is one difference, not one per later index.
Order: the seed fixes none (part 4 pages a collection, it does not sort it), so the same
members in another order are no difference; paging with another order shows as other
members on a page.

A path is a tuple of keys and indices; its pattern (`pattern`) writes every index as `[*]`,
the unit findings are grouped by across requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Path = tuple[str | int, ...]

# Kinds of difference.
MISSING = "missing"  # in the reference, not in the vendor's answer
EXTRA = "extra"  # in the vendor's answer, not in the reference
TYPE = "type"
VALUE = "value"
MEMBERS = "members"  # a collection with other members


@dataclass(frozen=True)
class Difference:
    path: Path
    kind: str
    reference: Any = None
    vendor: Any = None

    @property
    def pattern(self) -> str:
        return pattern(self.path)

    def describe(self) -> str:
        where = self.pattern or "(the whole body)"
        if self.kind == MISSING:
            return f"{where}: missing (reference {_short(self.reference)})"
        if self.kind == EXTRA:
            return f"{where}: extra (vendor {_short(self.vendor)})"
        if self.kind == TYPE:
            return f"{where}: {json_type(self.vendor)} instead of {json_type(self.reference)} " \
                   f"(reference {_short(self.reference)}, vendor {_short(self.vendor)})"
        if self.kind == MEMBERS:
            return f"{where}: other members (only in the reference: {_short(self.reference)}; " \
                   f"only in the vendor's: {_short(self.vendor)})"
        return f"{where}: reference {_short(self.reference)}, vendor {_short(self.vendor)}"


def pattern(path: Path) -> str:
    """`('_embedded', 'adressen', 3, 'huisnummer')` -> `_embedded.adressen[*].huisnummer`."""
    out = ""
    for part in path:
        out += "[*]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _short(value: Any, limit: int = 80) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, sort_keys=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def normalise(value: Any, base_url: str) -> Any:
    """`value` with the side's base URL (scheme, host, port and base path) written `{base}`
    in every string."""
    base = base_url.rstrip("/")
    if isinstance(value, str):
        return value.replace(base, "{base}") if base else value
    if isinstance(value, list):
        return [normalise(item, base) for item in value]
    if isinstance(value, dict):
        return {key: normalise(item, base) for key, item in value.items()}
    return value


def identity(member: Any) -> str | None:
    """How a collection member is known: its self link, else its identificatie."""
    if not isinstance(member, dict):
        return None
    links = member.get("_links")
    if isinstance(links, dict) and isinstance(links.get("self"), dict) and isinstance(links["self"].get("href"), str):
        return links["self"]["href"]
    ident = member.get("identificatie")
    if isinstance(ident, str | int) and not isinstance(ident, bool):
        return str(ident)
    return None


def diff(reference: Any, vendor: Any, path: Path = ()) -> list[Difference]:
    """Every difference between two normalised JSON values."""
    if json_type(reference) != json_type(vendor):
        return [Difference(path, TYPE, reference, vendor)]
    if isinstance(reference, dict):
        out: list[Difference] = []
        for key in reference:
            if key not in vendor:
                out.append(Difference((*path, key), MISSING, reference[key], None))
            else:
                out += diff(reference[key], vendor[key], (*path, key))
        out += [Difference((*path, key), EXTRA, None, vendor[key]) for key in vendor if key not in reference]
        return out
    if isinstance(reference, list):
        return _diff_list(reference, vendor, path)
    if reference != vendor:
        return [Difference(path, VALUE, reference, vendor)]
    return []


def _diff_list(reference: list[Any], vendor: list[Any], path: Path) -> list[Difference]:
    ref_ids = [identity(m) for m in reference]
    ven_ids = [identity(m) for m in vendor]
    if reference and all(ref_ids) and all(ven_ids) and len(set(ref_ids)) == len(ref_ids) \
            and len(set(ven_ids)) == len(ven_ids):
        out: list[Difference] = []
        only_ref = [i for i in ref_ids if i not in ven_ids]
        only_ven = [i for i in ven_ids if i not in ref_ids]
        if only_ref or only_ven:
            out.append(Difference(path, MEMBERS, only_ref, only_ven))
        by_id = dict(zip(ven_ids, vendor, strict=True))
        for index, (ident, member) in enumerate(zip(ref_ids, reference, strict=True)):
            if ident in by_id:
                out += diff(member, by_id[ident], (*path, index))
        return out
    if len(reference) != len(vendor):
        return [Difference(path, VALUE, reference, vendor)]
    return [d for index, (a, b) in enumerate(zip(reference, vendor, strict=True)) for d in diff(a, b, (*path, index))]
