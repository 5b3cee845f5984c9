"""The requirement catalogue (catalogue.toml): what the seeds, RFCs and profiles require.

The catalogue lists requirements, never checks: which checks verify a requirement is
computed from the check registry (`checks_for`), so the two cannot drift apart. A run's
conformance matrix (conformance.reporting.matrix) joins the catalogue with summary.json,
which is how a requirement that no check verifies becomes visible as a gap.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from conformance.checks.registry import Check, registered_checks

CATALOGUE = Path(__file__).with_name("catalogue.toml")
APIS = ("address", "auth", "soap")
SEVERITIES = ("MUST", "SHOULD", "observation")
_FIELDS = {"id", "section", "severity", "text"}
# untestable: why no check can verify it (client-side or administrative);
# quote: the source's own words that make it what it is (a string or a list of strings):
#   for a seed, sentences or table rows (cells joined by " | ") verbatim from the seed file;
#   for an RFC, SOAP 1.1 or WS-I rule, the normative clause with its MUST/REQUIRED/SHALL.
#   Every MUST requirement has one (conformance.requirements.audit checks it).
_OPTIONAL = {"untestable", "quote"}


@dataclass(frozen=True)
class Requirement:
    id: str
    api: str  # address | auth | soap: the API whose report section shows it
    source: str  # the document and part, e.g. "seed 000_….txt part 4 (Endpoints)", "RFC 6749 (OAuth 2.0)"
    section: str  # where in the source: a sub-heading, an RFC section, a WS-I rule number
    text: str  # the requirement in a few words
    severity: str  # MUST | SHOULD | observation, as the source states it
    untestable: str | None = None  # why no check of a server can verify it; still a gap
    quote: tuple[str, ...] = ()  # the source's words that make it a MUST (see _OPTIONAL)


class CatalogueError(ValueError):
    """The catalogue file is malformed: the message names the entry and the key."""


def load_requirements(path: Path = CATALOGUE) -> dict[str, Requirement]:
    """Every requirement by id, in catalogue order. Raises CatalogueError on a duplicate id,
    a missing or unknown key, or an unknown api or severity."""
    return dict(_load(path.resolve()))


@lru_cache(maxsize=4)
def _load(path: Path) -> tuple[tuple[str, Requirement], ...]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Requirement] = {}
    for index, source in enumerate(data.get("source", [])):
        name, api = source.get("name"), source.get("api")
        if not name or api not in APIS:
            raise CatalogueError(f"{path.name}: source #{index + 1} needs a name and an api in {APIS}")
        for entry in source.get("requirement", []):
            keys = set(entry)
            if not _FIELDS <= keys <= _FIELDS | _OPTIONAL:
                raise CatalogueError(
                    f"{path.name}: requirement {entry.get('id', '?')!r} in {name!r}: "
                    f"missing {sorted(_FIELDS - keys)}, unknown {sorted(keys - _FIELDS - _OPTIONAL)}"
                )
            if entry["severity"] not in SEVERITIES:
                raise CatalogueError(f"{path.name}: requirement {entry['id']!r}: severity must be one of {SEVERITIES}")
            if entry["id"] in out:
                raise CatalogueError(f"{path.name}: requirement {entry['id']!r} is listed twice")
            out[entry["id"]] = Requirement(
                id=entry["id"], api=api, source=name, section=entry["section"],
                text=entry["text"], severity=entry["severity"], untestable=entry.get("untestable"),
                quote=_quote(path, entry),
            )
    return tuple(out.items())


def _quote(path: Path, entry: dict) -> tuple[str, ...]:
    quote = entry.get("quote", ())
    quote = (quote,) if isinstance(quote, str) else quote
    if not isinstance(quote, (list, tuple)) or not all(isinstance(q, str) and q.strip() for q in quote):
        raise CatalogueError(f"{path.name}: requirement {entry['id']!r}: quote must be a string or a list of strings")
    return tuple(quote)


def checks_index(checks: list[Check] | None = None) -> dict[str, list[Check]]:
    """Requirement id -> the checks naming it (from the registry unless given)."""
    index: dict[str, list[Check]] = {}
    for check in registered_checks() if checks is None else checks:
        for requirement in check.requirements:
            index.setdefault(requirement, []).append(check)
    return index


def checks_for(requirement_id: str) -> list[Check]:
    """The registered checks that verify a requirement; empty for a gap."""
    return checks_index().get(requirement_id, [])


def unknown_requirements(checks: list[Check] | None = None) -> dict[str, list[str]]:
    """Requirement ids that checks name but the catalogue lacks, with the checks naming them."""
    known = load_requirements()
    return {
        req: sorted(c.id for c in named_by)
        for req, named_by in sorted(checks_index(checks).items())
        if req not in known
    }
