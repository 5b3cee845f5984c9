"""The verdict as people read it on a console: counts, MUST failures, warnings, observations."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def verdict_lines(summary: dict[str, Any], report_dir: Path) -> list[str]:
    counts = summary["counts"]
    lines = [
        f"profile {summary['profile']}  seed {summary['seed']}"
        + (f"  faults {', '.join(summary['faults'])}" if summary["faults"] else ""),
        "checks: "
        + ", ".join(f"{counts[k]} {k}" for k in ("passed", "failed", "error", "skipped", "observation"))
        + f"  ({counts['warnings']} SHOULD warnings)",
    ]
    for entry in summary["checks"]:
        if entry["outcome"] in ("failed", "error"):
            level = "WARN" if entry["severity"] == "SHOULD" else "FAIL"
            if entry["severity"] == "observation":
                level = "ERR "
            lines.append(f"  {level} {entry['check']} [{', '.join(entry['requirements'])}]: {entry['reason']}")
    observed = [e for e in summary["checks"] if e["outcome"] == "observation"]
    for entry in observed[:20]:
        lines.append(f"  OBS  {entry['check']}: {_short(entry['value'])}")
    lines.append(f"verdict: {summary['verdict']} (exit {summary['exit_code']})  report: {report_dir}")
    return lines


def _short(value: Any, limit: int = 120) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def wait_progress(seconds_left: float) -> None:
    """A visible countdown while a check waits out a lifetime against a real server.
    Written to the terminal directly (stderr), at most once a second by the caller."""
    import sys

    minutes, seconds = divmod(int(seconds_left), 60)
    sys.stderr.write(f"\r  waiting for a lifetime to pass: {minutes:d}:{seconds:02d} left ")
    sys.stderr.flush()
