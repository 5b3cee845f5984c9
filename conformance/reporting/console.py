"""The verdict as people read it on a console: counts, root causes, MUST failures, blocked
checks, warnings, observations. Reasons are shortened here only; summary.json has them whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.reporting import coverage
from conformance.reporting.manual import check_link
from conformance.reporting.summary import OUTCOMES, verdict_line

REASON_LIMIT = 300
_LEVEL = {("failed", "MUST"): "FAIL", ("failed", "SHOULD"): "WARN", ("blocked", "MUST"): "BLKD",
          ("blocked", "SHOULD"): "blkd", ("blocked", "observation"): "blkd"}


def verdict_lines(summary: dict[str, Any], report_dir: Path) -> list[str]:
    """The console's verdict section; its counts are of checks (a check: one rule, run as one
    or more test cases, coverage.check_counts), its last line summary.verdict_line."""
    lines = [
        f"profile {summary['profile']}  seed {summary['seed']}"
        + (f"  faults {', '.join(summary['faults'])}" if summary["faults"] else ""),
    ]
    if summary.get("stopped"):
        lines.append(f"run stopped before any check: {summary['stopped']}")
    checks = summary.get("check_counts") or coverage.check_counts(summary["checks"])
    lines.append("checks: " + ", ".join(f"{checks.get(k, 0)} {k.replace('_', ' ')}" for k in OUTCOMES)
                 + f"  ({checks['checks']} checks, run as {checks['test_cases']} test cases; "
                 f"{checks['warnings']} SHOULD warnings)")
    for text in (summary.get("sample_regressions") or {}).values():
        lines.append(f"  CHANGED {_short(text)}")
    causes = summary.get("root_causes", [])
    grouped = {check for cause in causes for check in cause["checks"]}
    if causes:
        lines.append(f"root causes ({len(causes)}; one defect each, however many checks it took down):")
        for cause in causes:
            breaks = cause.get("breaks") or cause["checks"]
            tests = len(cause.get("test_cases") or ())
            lines.append(f"  CAUSE {'/'.join(cause['outcomes'])} x{len(cause['checks'])}"
                         + (f" ({tests} test cases)" if tests else "") + f": {_short(cause.get('words') or cause['cause'])}")
            names = ", ".join(breaks[:4]) + (f", … ({len(breaks)} in all)" if len(breaks) > 4 else "")
            lines.append(f"        {'breaks' if cause.get('breaks') else 'checks'}: {names}")
            if "failed" in cause["outcomes"]:
                lines.append(f"        manual: {check_link(breaks[0])}")
            if cause.get("in_consequence"):
                lines.append(f"        fails in consequence: {len(cause['in_consequence'])} more "
                             f"({', '.join(cause['in_consequence'][:3])}{', …' if len(cause['in_consequence']) > 3 else ''})")
    linked: set[str] = set()
    for entry in summary["checks"]:
        outcome = entry["outcome"]
        if outcome not in ("failed", "error", "blocked") or entry["check"] in grouped:
            continue
        level = "ERR " if outcome == "error" else _LEVEL.get((outcome, entry["severity"]), "FAIL")
        lines.append(f"  {level} {entry['check']} [{', '.join(entry['requirements'])}]: {_short(entry['reason'])}")
        if outcome == "failed" and entry["check"] not in linked:  # the check's page: what it judges, how to rerun it
            linked.add(entry["check"])
            lines.append(f"       manual: {check_link(entry['check'])}")
    observed = [e for e in summary["checks"] if e["outcome"] == "observation"]
    for entry in observed[:20]:
        lines.append(f"  OBS  {entry['check']}: {_short(entry['value'], 120)}")
    from conformance.reporting.waivers import console_lines

    lines += console_lines(summary)  # waived failures, and the waivers' warnings
    lines += not_judged_lines(summary)
    for where in summary.get("plain_http") or []:
        lines.append(f"  SECRETS OVER PLAIN HTTP: {where}: the profile allowed its secrets to cross the network "
                     "unencrypted")
    if summary.get("verdict_reason"):
        lines.append(summary["verdict_reason"])
    lines.append(f"report: {report_dir}")
    lines.append(summary.get("verdict_line") or verdict_line(summary))
    return lines


def not_judged_lines(summary: dict[str, Any], listed: int = 8) -> list[str]:
    """What the run did not judge, by reason (MUST checks named first); summary.json's
    `coverage` lists every check."""
    groups = coverage.of_summary(summary)["not_judged"]
    if not groups:
        return []
    lines = [f"not judged ({sum(len(g['checks']) for g in groups)} checks; the rule applies, the run lacked "
             "what judging it takes):"]
    severity = {e["check"]: e["severity"] for e in summary["checks"]}
    for group in groups:
        names = sorted(group["checks"], key=lambda c: severity.get(c) != "MUST")
        shown = ", ".join(names[:listed]) + (f", … ({len(names)} in all)" if len(names) > listed else "")
        lines.append(f"  NOTJ x{len(names)} ({group['must']} MUST): {_short(group['reason'])}")
        lines.append(f"        {shown}")
    return lines


def _short(value: Any, limit: int = REASON_LIMIT) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def wait_progress(seconds_left: float) -> None:
    """A visible countdown while a check waits out a lifetime against a real server.
    Written to the terminal directly (stderr), at most once a second by the caller."""
    import sys

    minutes, seconds = divmod(int(seconds_left), 60)
    sys.stderr.write(f"\r  waiting for a lifetime to pass: {minutes:d}:{seconds:02d} left ")
    sys.stderr.flush()


def progress_status(sent: int, ended: int, total: int, elapsed_s: float, left_s: float | None, *,
                    planned: bool) -> str:
    """The line a run against a real deployment prints at a fixed pace (conformance/run_progress.py):
    the time so far, the requests sent and their rate, the tests ended, the time left
    ("conformance: 0:25 — 609 requests sent (24.4/s), 3 of 477 tests ended, about 0:31 left")."""
    rate = sent / elapsed_s if elapsed_s > 0 else 0.0
    head = f"conformance: {_clock(elapsed_s)} — {sent:,} requests sent ({rate:.1f}/s), "
    if not total:
        return head + "the workers are starting"
    head += f"{ended} of {total} tests ended, "
    if left_s is None and planned:
        return head + "no estimate yet (none of the tests has ended)"
    if left_s is None:
        return head + "no estimate yet (no earlier run to plan from: one once a quarter of the tests ended)"
    return head + f"about {_clock(left_s)} left" + ("" if planned else " (from this run's tests alone)")


def rate_line(sent: int, elapsed_s: float, limit_per_s: float) -> str:
    """The run's end: the rate achieved, and its share of the profile's limit when it has one."""
    rate = sent / elapsed_s if elapsed_s > 0 else 0.0
    share = (f", {100 * rate / limit_per_s:.0f} % of the profile's limit of {limit_per_s:g}/s"
             if limit_per_s > 0 else " (the profile sets no rate limit)")
    return f"conformance: {sent:,} requests in {_clock(elapsed_s)}: {rate:.1f}/s{share}"


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes:d}:{secs:02d}"
