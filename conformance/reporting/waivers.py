"""Accepted deviations (waivers): failures the register has accepted, until a date.

A vendor with a deviation the register accepted (a ticket, a date by which it is fixed)
would otherwise fail every run with exit 1, and a real regression would drown in it. The
waivers file (profile key `[run] waivers`, or `conformance run --waivers FILE`) lists them:

    [[waiver]]
    check = "address.pagination.page_size_max"   # a check id, or a pattern ("address.pagination.*")
    case = "*page-2*"                            # optional: the test case's parameters (the [...] of its id)
    cause = "api-version header missing"         # optional: only failures of this root cause (summary.json)
    reason = "pages hold at most 50; accepted by the register"
    reference = "REG-1234"                       # optional: the ticket
    until = 2027-03-31                           # the last day it waives

At the run's end (controller) a failed check one waiver matches becomes `waived` ("failed,
waived"): no MUST failure for the exit code, shown with its reason, reference and date in
the console, summary.json, matrix.md and the Allure report. A waiver past its date waives
nothing and says so (a warning); one whose check ran and no longer fails is "no longer
needed" (a warning). A file that cannot be read or is malformed is exit 2 naming the file
and the key. `conformance waive` writes a starting file from a run's failures: one waiver per
root cause (check "*" and its `cause`: one defect is one waiver, however many checks it took
down), and one per failed test case of no root cause.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from datetime import UTC, date, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from conformance.errors import ConfigError

WAIVED = "waived"
_KEYS = ("check", "case", "cause", "reason", "reference", "until")
_PASSING = ("passed", "observation")


@dataclass(frozen=True)
class Waiver:
    number: int  # 1-based, as the file lists them
    check: str
    reason: str
    until: date
    reference: str = ""
    case: str = ""
    cause: str = ""

    def label(self) -> str:
        ref = f", {self.reference}" if self.reference else ""
        case = f" [{self.case}]" if self.case else ""
        cause = f" of cause {self.cause!r}" if self.cause else ""
        return f"waiver {self.number} ({self.check}{case}{cause}{ref})"

    def note(self) -> str:
        """What a waived check's reason gets: why, the ticket, the date."""
        ref = f"; {self.reference}" if self.reference else ""
        return f"{self.reason}{ref}; until {self.until.isoformat()}"

    def matches(self, check: str, test: str, cause: str | None = None) -> bool:
        if not fnmatchcase(check, self.check) or (self.cause and cause != self.cause):
            return False
        if not self.case:
            return True
        if "::" in self.case:  # a whole test id
            return fnmatchcase(test, self.case)
        params = test[test.index("[") + 1:-1] if "[" in test and test.endswith("]") else ""
        return fnmatchcase(params, self.case)

    def as_dict(self) -> dict[str, Any]:
        return {"waiver": self.number, "check": self.check, "case": self.case or None, "cause": self.cause or None,
                "reason": self.reason,
                "reference": self.reference or None, "until": self.until.isoformat()}


def run_waivers(profile_waivers: str | None, option: str | None) -> tuple[str, list[Waiver]] | None:
    """The run's waivers: --waivers FILE, else the profile's `[run] waivers`; None: no file."""
    if option:
        path = Path(option).resolve()
        return str(path), load(path, "--waivers")
    if profile_waivers:
        return profile_waivers, load(Path(profile_waivers), "[run] waivers")
    return None


def load(path: Path, named_by: str = "waivers file") -> list[Waiver]:
    """The file's waivers; ConfigError (exit 2) naming the file and the key otherwise."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{named_by}: waivers file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the waivers file ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    unknown = sorted(set(raw) - {"waiver"})
    if unknown:
        raise ConfigError(f"{path}: unknown key {unknown[0]} (a waivers file holds [[waiver]] tables)")
    tables = raw.get("waiver", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(f"{path}: key waiver must be an array of tables ([[waiver]])")
    return [_waiver(path, number, table) for number, table in enumerate(tables, start=1)]


def _waiver(path: Path, number: int, table: dict[str, Any]) -> Waiver:
    where = f"{path}: waiver {number}"
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key waiver.{unknown[0]} (known: {', '.join(_KEYS)})")
    for key in ("check", "reason", "until"):
        if key not in table:
            raise ConfigError(f"{where}: missing required key waiver.{key}")
    for key in ("check", "case", "cause", "reason", "reference"):
        if key in table and not (isinstance(table[key], str) and table[key].strip()):
            raise ConfigError(f"{where}: key waiver.{key} must be a non-empty string, got {table[key]!r}")
    until = table["until"]
    if isinstance(until, str):
        try:
            until = date.fromisoformat(until)
        except ValueError:
            until = None
    if not isinstance(until, date) or isinstance(until, datetime):
        raise ConfigError(f"{where}: key waiver.until must be a date (YYYY-MM-DD), got {table['until']!r}")
    from conformance.catalogue import registered_checks

    if not any(fnmatchcase(c.id, table["check"]) for c in registered_checks()):
        raise ConfigError(f"{where}: key waiver.check: no check has the id {table['check']!r}")
    return Waiver(number, table["check"], table["reason"], until, table.get("reference", ""), table.get("case", ""),
                  table.get("cause", ""))


def apply(entries: list[Any], waivers: list[Waiver], today: date | None = None) -> list[str]:
    """Waive the failed entries a live waiver matches (outcome `waived`, the reason starting
    "failed, waived (why; ticket; until date):", `waiver` set); the warnings, for expired and
    no longer needed waivers."""
    today = today or datetime.now(UTC).date()
    warnings = []
    for waiver in waivers:
        matched = [e for e in entries if waiver.matches(e.check, e.test, e.cause or e.reason)]
        failed = [e for e in matched if e.outcome == "failed"]
        if waiver.until < today:
            counted = (": 1 failure counts again" if len(failed) == 1 else f": {len(failed)} failures count again") \
                if failed else ""
            warnings.append(f"{waiver.label()} expired on {waiver.until.isoformat()} and no longer waives{counted}")
            continue
        for entry in failed:
            entry.outcome = WAIVED
            entry.waiver = waiver.as_dict()
            entry.reason = f"failed, waived ({waiver.note()}): {entry.reason or 'failed'}"
        if not failed and not any(e.outcome == WAIVED for e in matched) and any(e.outcome in _PASSING for e in matched):
            warnings.append(f"{waiver.label()} is no longer needed: the check passed in this run")
    return warnings


def console_lines(summary: dict[str, Any], limit: int = 300) -> list[str]:
    """The waived checks, with reason, reference and date; the waivers' warnings."""
    lines = []
    for entry in summary.get("checks", []):
        if entry.get("outcome") != WAIVED:
            continue
        text = f"  WAIV {entry['check']} [{', '.join(entry['requirements'])}]: {entry.get('reason')}"
        lines.append(text if len(text) <= limit else text[: limit - 1] + "…")
    info = summary.get("waivers") or {}
    lines += [f"  WARNING {text}" for text in info.get("warnings", [])]
    return lines


def starting_file(summary: dict[str, Any], *, reason: str, until: date, reference: str | None) -> tuple[str, int]:
    """A waivers file (TOML text): one waiver per root cause that failed checks (one defect,
    one waiver), one per failed test case of no root cause; and how many."""
    import json

    causes = [c for c in summary.get("root_causes") or [] if "failed" in c.get("outcomes", ())]
    explained = {c["cause"] for c in causes}
    seen: list[tuple[str, str]] = []
    for entry in summary.get("checks", []):
        if entry.get("outcome") != "failed" or (entry.get("cause") or entry.get("reason")) in explained:
            continue
        test = str(entry.get("test") or "")
        case = test[test.index("[") + 1:-1] if "[" in test and test.endswith("]") else ""
        key = (entry["check"], case)
        if key not in seen:
            seen.append(key)
    lines = [f"# Accepted deviations, written by `conformance waive` from the run of profile {summary.get('profile')}",
             f"# started {summary.get('started')}. Review each before use: a waiver hides a failure until its date.", ""]
    for cause in causes:
        lines += [f"# root cause: {cause.get('words') or cause['cause']} ({len(cause['checks'])} checks)",
                  "[[waiver]]", f"check = {json.dumps(cause['checks'][0] if len(cause['checks']) == 1 else '*')}",
                  f"cause = {json.dumps(cause['cause'])}", f"reason = {json.dumps(reason)}"]
        if reference:
            lines.append(f"reference = {json.dumps(reference)}")
        lines += [f"until = {until.isoformat()}", ""]
    for check, case in seen:
        lines += ["[[waiver]]", f"check = {json.dumps(check)}"]
        if case:
            lines.append(f"case = {json.dumps(_literal_pattern(case))}")
        lines.append(f"reason = {json.dumps(reason)}")
        if reference:
            lines.append(f"reference = {json.dumps(reference)}")
        lines += [f"until = {until.isoformat()}", ""]
    return "\n".join(lines), len(causes) + len(seen)


def _literal_pattern(text: str) -> str:
    """An fnmatch pattern matching exactly `text` ([ ] * ? are pattern characters)."""
    return "".join(f"[{c}]" if c in "[]*?" else c for c in text)


def mark_allure_results(results: Path, summary: dict[str, Any]) -> int:
    """Waived failures in allure-results: status "skipped" (the ring follows the verdict),
    label outcome=waived, the message starting "failed, waived (why; ticket; until date)"
    (category "Waived failures"). Returns how many results were marked."""
    import json

    waived: dict[str, dict[str, str]] = {}  # check -> test name -> reason
    failing: set[str] = set()
    for entry in summary.get("checks", []):
        if entry.get("outcome") == WAIVED:
            waived.setdefault(entry["check"], {})[str(entry.get("test", "")).split("::")[-1]] = str(entry.get("reason"))
        elif entry.get("outcome") in ("failed", "error"):
            failing.add(entry["check"])
    marked = 0
    for path in results.glob("*-result.json") if waived else ():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        labels = data.get("labels") or []
        check = next((label.get("value") for label in labels if label.get("name") == "check_id"), None)
        if data.get("status") not in ("failed", "broken") or check not in waived:
            continue
        reason = waived[check].get(str(data.get("name")))
        if reason is None and check not in failing:  # named otherwise (a title): every case of the check is waived
            reason = next(iter(waived[check].values()))
        if reason is None:
            continue
        data["status"] = "skipped"
        details = data.get("statusDetails") or {}
        details["message"] = reason
        data["statusDetails"] = details
        labels.append({"name": "outcome", "value": "waived"})
        data["labels"] = labels
        path.write_text(json.dumps(data), encoding="utf-8")
        marked += 1
    return marked
