"""Wall time of a full local-mock run (`conformance run`, all suites unless --suite), and
where it goes.

Printed per repetition: the wall time, the verdict, and the phases of the run as the main
pytest process sees them (benchmarks/_phases.py): interpreter start and the CLI (up to
pytest's command line), configuring the plugins (the mocks start here), collecting the
checks, running them (with -n, worker start-up is part of this), and writing the report;
then, from summary.json, the time the checks themselves took per suite (summed over the
workers, so it may exceed the wall time with -n) and the slowest checks.

Target on this 2-core machine (issue 26): a full local-mock run within 15 s wall.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PHASES = ("configure", "configured", "collection", "tests", "report", "end")


def one_run(suites: list[str], workers: str, tmp: Path) -> tuple[float, int, dict, dict]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--no-html", "-n", workers, "--report-dir", str(tmp)]
    for suite in suites:
        cmd += ["--suite", suite]
    phases_file = tmp.parent / f"{tmp.name}-phases.json"
    env = {**os.environ, "BENCH_PHASES": str(phases_file),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "benchmarks"), os.environ.get("PYTHONPATH")]))}
    started = time.monotonic()
    proc = subprocess.run(cmd + ["--", "-q", "-p", "_phases"], cwd=REPO, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - started
    summary_path = tmp / "summary.json"
    if not summary_path.is_file():
        sys.exit(f"no summary.json (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    phases = json.loads(phases_file.read_text()) if phases_file.is_file() else {}
    return elapsed, proc.returncode, json.loads(summary_path.read_text()), phases


def phase_times(phases: dict, wall: float, started_offset: float) -> dict[str, float]:
    """Seconds per phase; `start` is from the subprocess's start to pytest's command line."""
    if not all(name in phases for name in PHASES):
        return {}
    spans = {
        "start-up (interpreter, CLI)": phases["configure"] - started_offset,
        "configure (plugins, mocks)": phases["configured"] - phases["configure"],
        "collection": phases["tests"] - phases["collection"],
        "checks (incl. worker start)": phases["report"] - phases["tests"],
        "report and teardown": phases["end"] - phases["report"],
    }
    spans["session start"] = phases["collection"] - phases["configured"]
    spans["other (exit, process end)"] = wall - sum(spans.values()) - started_offset
    return spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="auto")
    parser.add_argument("--suite", action="append", choices=("address", "auth", "soap"),
                        help="one suite (repeatable; default: all three)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--slowest", type=int, default=8)
    args = parser.parse_args()
    suites = args.suite or []
    walls: list[float] = []
    with tempfile.TemporaryDirectory() as tmp_root:
        for index in range(args.repeat):
            run_dir = Path(tmp_root) / f"run{index}"
            # The phases plugin's clock is the subprocess's monotonic clock, the same as ours
            # on Linux (CLOCK_MONOTONIC is system-wide): its offset is the start time here.
            before = time.monotonic()
            wall, code, summary, phases = one_run(suites, args.workers, run_dir)
            walls.append(wall)
            checks = summary["checks"]
            print(f"run {index + 1}: {wall:.1f} s wall, exit {code}, {len(checks)} check entries, "
                  f"counts {summary['counts']}")
            spans = phase_times({k: v - before for k, v in phases.items() if k in PHASES}, wall, 0.0)
            for name, seconds in spans.items():
                print(f"    {name:<30} {seconds:6.2f} s")
            per_suite: dict[str, float] = defaultdict(float)
            per_check: dict[str, float] = defaultdict(float)
            for entry in checks:  # a fuzzing test's time is its subtests' (one per operation)
                per_suite[entry["suite"]] += entry.get("duration_s", 0.0)
                per_check[entry["check"]] += entry.get("duration_s", 0.0)
            print("    checks' own time per suite (summed over workers): "
                  + ", ".join(f"{suite} {seconds:.1f} s" for suite, seconds in sorted(per_suite.items())))
            slowest = sorted(per_check.items(), key=lambda item: -item[1])[: args.slowest]
            print("    slowest checks: " + ", ".join(f"{check} {seconds:.2f} s" for check, seconds in slowest))
    label = "+".join(suites) or "all suites"
    print(f"full local-mock run ({label}, -n {args.workers}): median {statistics.median(walls):.1f} s wall "
          f"over {len(walls)} runs (min {min(walls):.1f}, max {max(walls):.1f}); target 15 s")


if __name__ == "__main__":
    main()
