"""summary.json: one entry per executed check, and the run's verdict.

Outcomes: passed, failed (a Finding: the server did not conform), error (anything else:
a harness or environment problem), skipped (with the reason), observation (with the
measured value). The verdict -- and so the exit code -- follows the severities:
a failed or errored MUST check fails the run; SHOULD failures are warnings.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conformance.errors import ExitCode

OUTCOMES = ("passed", "failed", "error", "skipped", "observation")
_RANK = {"skipped": 0, "passed": 1, "observation": 2, "failed": 3, "error": 4}


@dataclass
class Entry:
    check: str
    requirements: list[str]
    severity: str
    suite: str
    title: str
    test: str
    outcome: str
    reason: str | None = None
    value: Any = None
    unreachable: bool = False
    duration_s: float = 0.0


@dataclass
class Summary:
    profile: str
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    seed: int | None = None
    faults: list[str] = field(default_factory=list)
    targets: dict[str, str] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)

    def add(self, entry: Entry) -> None:
        """One entry per (check, test): a repeated report keeps the worse outcome."""
        for index, existing in enumerate(self.entries):
            if (existing.check, existing.test) == (entry.check, entry.test):
                if _RANK[entry.outcome] > _RANK[existing.outcome]:
                    self.entries[index] = entry
                return
        self.entries.append(entry)

    def counts(self) -> dict[str, int]:
        counts = {o: 0 for o in OUTCOMES}
        for e in self.entries:
            counts[e.outcome] += 1
        counts["warnings"] = sum(1 for e in self.entries if e.outcome == "failed" and e.severity == "SHOULD")
        counts["must_failures"] = len(self.must_failures())
        return counts

    def must_failures(self) -> list[Entry]:
        return [e for e in self.entries if e.severity == "MUST" and e.outcome in ("failed", "error")]

    def by_requirement(self) -> dict[str, dict[str, Any]]:
        """Each requirement id with its checks' outcomes and one verdict:
        failed (a MUST check failed or broke), warning (a SHOULD check failed),
        passed, observed, or skipped (nothing ran)."""
        rollup: dict[str, dict[str, Any]] = {}
        for e in self.entries:
            for req in e.requirements:
                item = rollup.setdefault(req, {"checks": [], **{o: 0 for o in OUTCOMES}})
                item[e.outcome] += 1
                if e.check not in item["checks"]:
                    item["checks"].append(e.check)
                if e.outcome in ("failed", "error"):
                    failing = item.setdefault("failing", {})
                    failing[e.check] = e.severity
        for item in rollup.values():
            severities = set(item.get("failing", {}).values())
            if "MUST" in severities:
                item["verdict"] = "failed"
            elif "SHOULD" in severities:
                item["verdict"] = "warning"
            elif item["passed"]:
                item["verdict"] = "passed"
            elif item["observation"]:
                item["verdict"] = "observed"
            else:
                item["verdict"] = "skipped"
        return dict(sorted(rollup.items()))

    def exit_code(self) -> ExitCode:
        if any(e.unreachable for e in self.entries):
            return ExitCode.UNREACHABLE
        if self.must_failures():
            return ExitCode.MUST_FAILED
        return ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "started": self.started,
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "seed": self.seed,
            "faults": self.faults,
            "targets": self.targets,
            "verdict": self.exit_code().name,
            "exit_code": int(self.exit_code()),
            "counts": self.counts(),
            "requirements": self.by_requirement(),
            "checks": [asdict(e) for e in sorted(self.entries, key=lambda e: (e.suite, e.check, e.test))],
        }

    def write(self, report_dir: Path) -> Path:
        report_dir.mkdir(parents=True, exist_ok=True)
        path = report_dir / "summary.json"
        path.write_text(json.dumps(self.to_json(), indent=2, ensure_ascii=False, default=str) + "\n")
        if self.seed is not None:
            (report_dir / "seed.txt").write_text(f"{self.seed}\n")
        return path


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())
