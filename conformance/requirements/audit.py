"""The MUST audit: every MUST check rests on a MUST requirement whose source says so.

A check may only be MUST when one of the requirements it names is a MUST requirement whose
`quote` in catalogue.toml gives the source's own words: a sentence or table row of a seed
(verbatim), or the normative clause of an RFC, SOAP 1.1 or WS-I rule (with MUST, REQUIRED or
SHALL). Where the seed does not fix a behaviour, the check is SHOULD (public behaviour) or an
observation ("not shown"), whatever the local mock does.

`run_audit()` computes, for every registered check, its severity, its requirements with their
quotes, and these flags:
  * a MUST check none of whose requirements is a MUST requirement with a sound quote (so also
    a MUST check all of whose requirements are SHOULD or observation);
  * a SHOULD or observation check every requirement of which is a MUST whose quote is a seed
    table row or holds a normative word (must, required, shall), without a `downgrade_reason`
    in its definition saying why the check is weaker than what it quotes;
  * a MUST requirement one of whose quotes says only "not shown" (every clause of it, of a
    table row the cells after the first, is "...: not shown"): what the seed does not show
    cannot be a MUST. A row such as "warning | 200 responses; meaning of its content: not
    shown" states the header's presence and leaves its content open: it is not flagged, and
    its content is an observation requirement of its own;
  * a check naming a requirement the catalogue lacks;
  * a MUST requirement without a quote, or from the public-behaviour reference (bag-api.md);
  * a quote of an RFC/SOAP/WS-I MUST requirement that states no MUST, REQUIRED or SHALL;
  * a seed quote that does not occur in the seed text (compared with whitespace normalised; a
    quote holding " | " is a table row and matches when its cells are consecutive cells of
    one row of a seed table).
`render_markdown()` writes the table published as docs/must-audit.md, and
`conformance requirements --audit [--out FILE]` (add_requirements_commands, audit_command)
prints or writes it and exits 1 when anything is flagged.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from conformance.catalogue import registered_checks
from conformance.checks.registry import Check
from conformance.errors import ConfigError, ExitCode
from conformance.paths import PACKAGE_DIR, SEEDS_DIR_ENV, seeds_dir
from conformance.requirements import Requirement, load_requirements

REPO_ROOT = PACKAGE_DIR.parent  # the checkout (a project tool: its docs/, and the workspace beside it)
# The specification texts the quotes are looked up in: --seeds DIR, else $CONFORMANCE_SEEDS_DIR,
# else (in the checkout) the workspace's shared/seeds beside it; an installed copy has none of
# its own (conformance/paths.py seeds_dir).
SEEDS_DIR = seeds_dir() or REPO_ROOT.parent / "shared" / "seeds"
DOC = REPO_ROOT / "docs" / "must-audit.md"
NORMATIVE = re.compile(r"\b(MUST|REQUIRED|SHALL)\b")
NORMATIVE_ANY_CASE = re.compile(r"\b(must|required|shall)\b", re.IGNORECASE)
NOT_SHOWN = "not shown"
# Checks proven both ways outside tests/test_fault_catalogue.py (its PROVEN_ELSEWHERE): they
# judge a file, a client's traffic or a comparison, each proven by its own tests.
PROVEN_ELSEWHERE = ("soap.wsdl.", "client.", "compare.")
PUBLIC_BEHAVIOUR_PREFIX = "BAGREF-"  # bag-api.md: SHOULD and observation only
CELL_SEPARATOR = " | "


@dataclass(frozen=True)
class RequirementAudit:
    id: str
    severity: str
    source: str
    quote: tuple[str, ...]
    flags: tuple[str, ...]

    @property
    def quoted_must(self) -> bool:
        """A MUST requirement whose quote holds up: the basis a MUST check needs."""
        return self.severity == "MUST" and bool(self.quote) and not self.flags


@dataclass(frozen=True)
class CheckAudit:
    id: str
    severity: str
    requirements: tuple[RequirementAudit, ...]  # in the check's order; unknown ids left out
    unknown: tuple[str, ...]  # requirement ids the catalogue lacks
    flags: tuple[str, ...]

    @property
    def basis(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.requirements if r.quoted_must)


@dataclass(frozen=True)
class Audit:
    checks: tuple[CheckAudit, ...]
    requirements: tuple[RequirementAudit, ...]

    @property
    def flagged(self) -> list[tuple[str, str]]:
        """(check or requirement id, flag) for everything the audit flags."""
        return [(r.id, f) for r in self.requirements for f in r.flags] + [
            (c.id, f) for c in self.checks for f in c.flags]


# --------------------------------------------------------------------------- seed text
def seed_file_of(source: str) -> str | None:
    """The seed file a catalogue source names ("seed 000_….txt part 4 (…)"), else None."""
    match = re.match(r"seed (\S+\.txt)\b", source)
    return match.group(1) if match else None


def _normalise(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class SeedText:
    """One seed file, prepared for quote lookup."""

    flat: str  # the whole text, whitespace normalised
    rows: tuple[tuple[str, ...], ...]  # the cells of every table row, normalised

    @classmethod
    def read(cls, path: Path) -> SeedText:
        text = path.read_text(encoding="utf-8")
        rows = tuple(
            tuple(_normalise(cell) for cell in line.strip().strip("|").split("|"))
            for line in text.splitlines()
            if line.lstrip().startswith("|") and not re.fullmatch(r"[\s|:-]+", line)
        )
        return cls(_normalise(text), rows)

    def holds(self, quote: str) -> bool:
        if CELL_SEPARATOR in quote:
            cells = tuple(_normalise(c) for c in quote.split(CELL_SEPARATOR))
            return any(row[i:i + len(cells)] == cells for row in self.rows for i in range(len(row)))
        return _normalise(quote) in self.flat


@lru_cache(maxsize=8)
def _seed_text(path: Path) -> SeedText:
    return SeedText.read(path)


# --------------------------------------------------------------------------- the audit
def _requirement_flags(req: Requirement, seeds_dir: Path) -> tuple[str, ...]:
    flags: list[str] = []
    seed = seed_file_of(req.source)
    if req.severity == "MUST":
        flags += [f"MUST resting on what the seed does not show: {q!r}" for q in req.quote if only_not_shown(q)]
        if req.id.startswith(PUBLIC_BEHAVIOUR_PREFIX):
            flags.append("MUST from the public-behaviour reference: only a seed or an RFC makes a MUST")
        if not req.quote:
            flags.append("MUST without a quote of its source")
        elif seed is None and not any(NORMATIVE.search(q) for q in req.quote):
            flags.append("the quote states no MUST, REQUIRED or SHALL")
    if seed is not None and req.quote:
        path = seeds_dir / seed
        if not path.is_file():
            flags.append(f"seed file {seed} not found in {seeds_dir}")
        else:
            flags += [f"quote not in {seed}: {q!r}" for q in req.quote if not _seed_text(path).holds(q)]
    return tuple(flags)


def only_not_shown(quote: str) -> bool:
    """Whether every clause of a quote says "not shown" (a table row: its cells after the
    first, the row's subject)."""
    if NOT_SHOWN not in quote:
        return False
    cells = quote.split(CELL_SEPARATOR)
    body = cells[1:] if len(cells) > 1 else cells
    clauses = [c.strip() for cell in body for c in re.split(r";\s|\.\s", cell) if c.strip()]
    return all(NOT_SHOWN in c for c in clauses)


def states_a_must(req: RequirementAudit) -> bool:
    """A MUST requirement whose quote reads as one: a seed table row or a normative word."""
    return req.severity == "MUST" and any(
        NORMATIVE_ANY_CASE.search(q) or (CELL_SEPARATOR in q and seed_file_of(req.source)) for q in req.quote)


def _downgrade_flags(check: Check, named: tuple[RequirementAudit, ...]) -> list[str]:
    if str(check.severity) == "MUST" or not named or getattr(check, "downgrade_reason", ""):
        return []
    if all(states_a_must(r) for r in named):
        return [f"{check.severity} check whose every requirement is a quoted MUST: make it MUST, name the "
                "requirement that makes it weaker, or give its downgrade_reason"]
    return []


def run_audit(
    checks: list[Check] | None = None,
    requirements: dict[str, Requirement] | None = None,
    seeds_dir: Path = SEEDS_DIR,
) -> Audit:
    """Audit the registry's checks (or `checks`) against the catalogue (or `requirements`)."""
    checks = registered_checks() if checks is None else checks
    requirements = load_requirements() if requirements is None else requirements
    audited = {
        rid: RequirementAudit(rid, req.severity, req.source, req.quote, _requirement_flags(req, seeds_dir))
        for rid, req in requirements.items()
    }
    out: list[CheckAudit] = []
    for check in sorted(checks, key=lambda c: c.id):
        named = tuple(audited[r] for r in check.requirements if r in audited)
        unknown = tuple(r for r in check.requirements if r not in audited)
        flags = [f"names {r}, which the requirement catalogue lacks" for r in unknown]
        if str(check.severity) == "MUST" and not any(r.quoted_must for r in named):
            flags.append("MUST check with no quoted MUST requirement: lower it or name the requirement that makes it a MUST")
        flags += _downgrade_flags(check, named)
        out.append(CheckAudit(check.id, str(check.severity), named, unknown, tuple(flags)))
    return Audit(tuple(out), tuple(audited.values()))


# --------------------------------------------------------------------------- testable rules
@dataclass(frozen=True)
class SourceCount:
    source: str      # a seed file (000_….txt), or the catalogue source's name
    listed: int      # requirements of it in the catalogue
    judged: int      # of them, named by a MUST or SHOULD check proven both ways
    rules: int = 0   # of them, rules a server or client can break: MUST or SHOULD, and testable
    rules_judged: int = 0
    not_judged: tuple[str, ...] = ()  # the rules no judging check names


def judging(check: Check) -> bool:
    """A check that judges (not an observation) and is proven by a mock fault or elsewhere."""
    return str(check.severity) != "observation" and (bool(check.proven_by) or check.id.startswith(PROVEN_ELSEWHERE))


def count_rules(checks: list[Check] | None = None,
                requirements: dict[str, Requirement] | None = None) -> list[SourceCount]:
    """Per seed file (other sources together under their own names): how many requirements the
    catalogue lists, how many of them are rules (MUST or SHOULD, testable: an observation of what
    the seed leaves "not shown" is measured, not broken), and how many a judging check names."""
    checks = registered_checks() if checks is None else checks
    requirements = load_requirements() if requirements is None else requirements
    judged = {r for c in checks if judging(c) for r in c.requirements}
    out: dict[str, dict] = {}
    for req in requirements.values():
        key = seed_file_of(req.source) or req.source
        tally = out.setdefault(key, {"listed": 0, "judged": 0, "rules": 0, "rules_judged": 0, "not_judged": []})
        tally["listed"] += 1
        tally["judged"] += req.id in judged
        if req.severity != "observation" and not req.untestable:
            tally["rules"] += 1
            tally["rules_judged"] += req.id in judged
            if req.id not in judged:
                tally["not_judged"].append(req.id)
    return [SourceCount(k, t["listed"], t["judged"], t["rules"], t["rules_judged"], tuple(t["not_judged"]))
            for k, t in out.items()]


def render_counts(counts: list[SourceCount]) -> str:
    lines = ["Testable rules (MUST or SHOULD requirements a server or client can break) / judged by a MUST or "
             "SHOULD check proven both ways; requirements listed in all:"]
    for c in counts:
        line = f"  {c.source}: {c.rules} rules, {c.rules_judged} judged ({c.listed} requirements listed)"
        if c.not_judged:
            line += f"; not judged: {', '.join(c.not_judged)}"
        lines.append(line)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- rendering
def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(audit: Audit) -> str:
    by_severity = {s: sum(1 for c in audit.checks if c.severity == s) for s in ("MUST", "SHOULD", "observation")}
    musts = [r for r in audit.requirements if r.severity == "MUST"]
    lines = [
        "# MUST audit",
        "",
        "Generated by `conformance requirements --audit --out docs/must-audit.md` from the check registry",
        "and conformance/requirements/catalogue.toml; tests/test_must_audit.py fails when this file is",
        "stale. Do not edit it by hand.",
        "",
        "A check may be MUST only when a requirement it names is a MUST requirement whose quote gives the",
        "source's own words: a sentence or table row of a seed (verbatim; a row as its cells joined by",
        "\" | \"), or an RFC, SOAP 1.1 or WS-I clause with MUST, REQUIRED or SHALL. Where the seed does not",
        "fix a behaviour, the check is SHOULD (public behaviour) or an observation (\"not shown\").",
        "",
        f"Checks: {len(audit.checks)} ({by_severity['MUST']} MUST, {by_severity['SHOULD']} SHOULD, "
        f"{by_severity['observation']} observation). Requirements: {len(audit.requirements)} "
        f"({len(musts)} MUST, {sum(1 for r in musts if r.quote)} of them quoted). "
        f"Flagged: {len(audit.flagged)}.",
        "",
        "## Checks",
        "",
        "| check | severity | requirements | MUST basis | flags |",
        "|---|---|---|---|---|",
    ]
    for c in audit.checks:
        named = ", ".join([f"{r.id} ({r.severity})" for r in c.requirements] + [f"{r} (?)" for r in c.unknown])
        basis = ", ".join(c.basis) if c.severity == "MUST" else ""
        lines.append(f"| `{c.id}` | {c.severity} | {_cell(named)} | {_cell(basis)} | {_cell('; '.join(c.flags))} |")
    lines += ["", "## Requirements and their quotes", "",
              "| requirement | severity | source | quote | flags |", "|---|---|---|---|---|"]
    for r in audit.requirements:
        quote = " ".join(f"“{q}”" for q in r.quote)
        lines.append(f"| {r.id} | {r.severity} | {_cell(r.source)} | {_cell(quote)} | {_cell('; '.join(r.flags))} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- CLI
def add_requirements_commands(subparsers: Any) -> None:
    """Add `requirements --audit [--out FILE] [--seeds DIR]` to the main CLI's subparsers."""
    parser = subparsers.add_parser("requirements", help="the requirement catalogue: how many rules each seed has "
                                   "and how many a check judges; --audit checks every severity against its quote")
    parser.add_argument("--audit", action="store_true",
                        help="audit every MUST check against the seed quotes; exit 1 when anything is flagged")
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="write the audit table (Markdown) here, e.g. docs/must-audit.md (default: print it)")
    parser.add_argument("--seeds", type=Path, metavar="DIR", default=None,
                        help=f"folder holding the specification texts the quotes come from (000_*.txt, 001_*.txt; "
                             f"default: ${SEEDS_DIR_ENV}, else, in a checkout, the workspace's shared/seeds beside it)")
    parser.set_defaults(handler=audit_command)


def needed_seed_files(requirements: dict[str, Requirement] | None = None) -> list[str]:
    """The specification texts the catalogue quotes, by file name."""
    reqs = load_requirements() if requirements is None else requirements
    return sorted({seed for r in reqs.values() if r.quote and (seed := seed_file_of(r.source))})


def audit_seeds_dir(given: Path | None) -> Path:
    """Where the audit reads the specification texts: --seeds DIR, else $CONFORMANCE_SEEDS_DIR,
    else the checkout's. ConfigError (exit 2) naming the option and the variable when that
    folder does not hold every text the catalogue quotes (an installed copy has none)."""
    where = given if given is not None else seeds_dir()
    how = (f"give --seeds DIR (or set {SEEDS_DIR_ENV}) naming the folder that holds the specification texts "
           f"{', '.join(needed_seed_files())}")
    if where is None:
        raise ConfigError("requirements --audit: an installed copy does not ship the specification texts the "
                          f"quotes come from; {how}")
    source = "--seeds" if given is not None else (f"${SEEDS_DIR_ENV}" if os.environ.get(SEEDS_DIR_ENV)
                                                   else "the checkout's default")
    if not where.is_dir():
        raise ConfigError(f"requirements --audit: the specification texts are not at {where} ({source}); {how}")
    missing = [name for name in needed_seed_files() if not (where / name).is_file()]
    if missing:
        raise ConfigError(f"requirements --audit: {where} ({source}) lacks {', '.join(missing)}; {how}")
    return where


def audit_command(args: argparse.Namespace) -> int:
    if not args.audit:  # the count of testable rules per seed
        sys.stdout.write(render_counts(count_rules()))
        return int(ExitCode.OK)
    audit = run_audit(seeds_dir=audit_seeds_dir(args.seeds))
    table = render_markdown(audit)
    if args.out is None:
        sys.stdout.write(table)
    else:
        try:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(table, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"requirements --audit: cannot write {args.out}: {exc.strerror or exc}") from None
        print(f"MUST audit of {len(audit.checks)} checks written to {args.out}")
    report = sys.stderr if args.out is None else sys.stdout
    for subject, flag in audit.flagged:
        print(f"FLAGGED {subject}: {flag}", file=report)
    report.write(render_counts(count_rules()))
    print(f"MUST audit: {len(audit.flagged)} flagged", file=report)
    return int(ExitCode.MUST_FAILED if audit.flagged else ExitCode.OK)
