"""`conformance report [RUN_DIR] [--open]`, `conformance diff OLD_RUN NEW_RUN` and
`conformance matrix RUN_DIR... [--out DIR]`.

report: renders a run's allure-results into allure-report/index.html, offline, with the
pinned Allure 3 in tools/node_modules (default RUN_DIR: the latest run under reports/).
Exit 0, or 2 when the run has no allure-results or Node.js / Allure are missing.

diff: compares two runs' summary.json (conformance.reporting.diff). Exit 1 when something
regressed, 0 otherwise, 2 on bad input.

matrix: one table of environments x requirements from many runs' summary.json
(conformance.reporting.environments), as environments.md and environments.html. Exit: the
worst environment's code, 1 over 3 over 4 over 0; 2 on bad input.
"""

from __future__ import annotations

import argparse
import shutil
import webbrowser
from pathlib import Path
from typing import Any

from conformance.errors import ConfigError, ExitCode
from conformance.paths import NODE_TOOLS_ENV, reports_dir


def add_report_commands(subparsers: Any) -> None:
    """Add `report`, `diff` and `matrix` to the main CLI's argparse subparsers."""
    report = subparsers.add_parser("report", help="render a run's Allure HTML report (offline)")
    report.add_argument("run_dir", nargs="?", metavar="RUN_DIR",
                        help="a run directory (default: the latest under reports/)")
    report.add_argument("--open", action="store_true", help="print the file:// URL and open it in a browser")
    report.set_defaults(handler=cmd_report)

    diff = subparsers.add_parser("diff", help="compare two runs: regressions, fixes, new and removed checks")
    diff.add_argument("old_run", metavar="OLD_RUN", help="the earlier run directory (e.g. the last release's)")
    diff.add_argument("new_run", metavar="NEW_RUN", help="the later run directory (e.g. the release candidate's)")
    diff.set_defaults(handler=cmd_diff)

    matrix = subparsers.add_parser(
        "matrix", help="one table of environments x requirements from many runs (Markdown and HTML)",
        description="Join the summary.json of many runs (one per environment, e.g. one CI job each) into one "
                    "table: every requirement, its verdict in every environment. Writes environments.md and "
                    "environments.html (one self-contained file, opens offline) into --out.",
        epilog="exit code: the worst environment's -- 1 when any environment does not conform (a MUST check "
               "failed), else 3 when any was unreachable, else 4 when any could not be judged, else 0; "
               "2 on bad input (no RUN_DIR is a run, a path that does not exist, a summary.json that cannot be read); what is not a run (a file, a folder without summary.json) is skipped with a note")
    matrix.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                        help="run directories holding summary.json (e.g. reports/*), one per environment")
    matrix.add_argument("--out", metavar="DIR",
                        help="where to write environments.md and environments.html (default: reports/environments)")
    matrix.set_defaults(handler=cmd_matrix)


def latest_run(reports: Path) -> Path | None:
    """The run under `reports` that started last (summary.json's time, else the folder's)."""
    from conformance.reporting.allure_extras import run_started

    runs = [d for d in reports.iterdir() if d.is_dir() and (d / "allure-results").is_dir()] if reports.is_dir() else []
    return max(runs, key=lambda d: (run_started(d), d.name)) if runs else None


def cmd_report(args: argparse.Namespace) -> int:
    from conformance.reporting.allure_extras import write_run_extras
    from conformance.reporting.html import allure_cli, render_allure_html

    run = Path(args.run_dir) if args.run_dir else latest_run(reports_dir())
    if run is None:
        raise ConfigError(f"no run with allure-results under {reports_dir()}; give RUN_DIR")
    if not (run / "allure-results").is_dir():
        raise ConfigError(f"{run}: no allure-results/ here; give a run directory (reports/<time>-<profile>)")
    if shutil.which("node") is None:
        raise ConfigError("Node.js (node) not found: install Node.js, then run scripts/bootstrap")
    cli = allure_cli()
    if cli is None:
        raise ConfigError("Allure 3 not installed: in the checkout run scripts/bootstrap; for an installed copy "
                          f"see the manual, \"Installing it as a tool\" (docs/install.md; {NODE_TOOLS_ENV})")
    if (run / "summary.json").is_file() and not (run / "matrix.json").is_file():
        write_run_extras(run)  # a run from before the matrix existed
    index = render_allure_html(run.resolve())
    if index is None:
        raise ConfigError(f"Allure could not render {run / 'allure-results'}; try: node {cli} generate "
                          f"{run / 'allure-results'} --config {run / 'allurerc.mjs'}")
    print(f"Allure report: {index}")
    print(index.as_uri())
    if args.open:
        try:
            opened = webbrowser.open(index.as_uri())
        except webbrowser.Error:
            opened = False
        if not opened:
            print("no browser could be started here: open the URL above")
    return int(ExitCode.OK)


def cmd_diff(args: argparse.Namespace) -> int:
    from conformance.reporting.diff import compare, load_run, render

    old_path, new_path = Path(args.old_run), Path(args.new_run)
    old, new = load_run(old_path), load_run(new_path)
    result = compare(old, new)
    for line in render(result, old, new, str(old_path), str(new_path)):
        print(line)
    return int(ExitCode.MUST_FAILED if result.has_regression else ExitCode.OK)


def cmd_matrix(args: argparse.Namespace) -> int:
    from conformance.reporting.environments import build_table, exit_code, load_runs, write

    out = Path(args.out) if args.out else reports_dir() / "environments"
    # `conformance matrix reports/*` meets the table's own folder: it is no run
    run_dirs = [Path(d) for d in args.run_dirs if Path(d).resolve() != out.resolve()]
    runs = load_runs(run_dirs)
    md, page = write(out, build_table(runs))
    width = max(len(run.label) for run in runs)
    for run in runs:
        print(f"{run.label:<{width}}  {run.verdict}" + (f" {run.coverage}" if run.coverage else "")
              + (f"  {run.reason}" if run.reason else ""))
    code = exit_code(runs)
    print(f"environments table: {md}\n{page.resolve().as_uri()}\nexit code {int(code)} (the worst environment's)")
    return int(code)
