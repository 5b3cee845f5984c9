"""Running the suites: one pytest session for a run, its verdict read back from the run's
summary.json, and the HTML report rendered. The commands (`conformance run`, `traffic`,
`proxy`, `compare`: conformance/cli.py, conformance/compare/cli.py) build the pytest
arguments and call `run_and_report`; nothing here parses a command line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from conformance.errors import ExitCode

# What a run's pytest leaves out, each costly and of no use to a verdict:
# * assertion rewriting: pytest rewrites the asserts of every plugin's modules as it imports
#   them -- hypothesis's, schemathesis's and the harness's, thousands of lines -- and caches
#   the result only where bytecode may be written. With PYTHONDONTWRITEBYTECODE set (CI
#   machines, containers) each process of a run parsed and rewrote them again, about 1.2
#   CPU-seconds apiece (the controller and every xdist worker). A check never fails by a bare
#   assert: each finding says what it saw, so the rewritten messages are never read.
# * the unraisable-exception plugin: as a session ends it runs five full garbage collections
#   to find exceptions raised in finalizers (a warning each, never a verdict). Over a run's
#   heap that took each xdist worker 2 to 2.5 s, and the controller waited for them.
# An `--assert` or a `-p` naming the plugin given after `--` wins.


def with_defaults(pytest_args: list[str]) -> list[str]:
    """The run's pytest arguments with what it leaves out, unless they say otherwise."""
    added: list[str] = []
    if not any(arg == "--assert" or arg.startswith("--assert=") for arg in pytest_args):
        added.append("--assert=plain")
    if not any(arg.endswith("unraisableexception") for arg in pytest_args):
        added += ["-p", "no:unraisableexception"]
    return [*added, *pytest_args]


def run_and_report(pytest_args: list[str], report_dir: Path, *, html: bool, traffic_shown: Path | None = None,
                   plugins: Sequence[object] = ()) -> int:
    import pytest

    code = map_pytest_exit(int(pytest.main(with_defaults(pytest_args), plugins=list(plugins))), report_dir / "summary.json")
    if traffic_shown is not None:  # the private capture judged is gone: the report names what stays
        from conformance.reporting.summary import name_traffic

        name_traffic(report_dir / "summary.json", traffic_shown, "judged from the unmasked capture of the "
                     "proxy session, deleted after the run; traffic.har is its redacted copy")
    if html and (report_dir / "allure-results").is_dir():
        from conformance.reporting.html import render_allure_html

        rendered = render_allure_html(report_dir)
        print(f"Allure report: {rendered}" if rendered else "Allure report: not rendered (node tools missing; see the manual, docs/install.md)")
    summary = report_dir / "summary.json"
    print(f"summary: {summary}  exit code {code}" if summary.is_file() else f"no checks ran; exit code {code}")
    return code


def map_pytest_exit(code: int, summary: Path) -> int:
    """The run's verdict when it wrote one (its codes overlap pytest's: 4 is "could not
    judge" here, a usage error there); else pytest's: 2 interrupted, 4 usage error and 5 no
    tests collected are usage errors (2), and 3, pytest's internal error, is "could not
    judge" (4): a harness fault, never "unreachable" (an unreachable environment writes
    its summary.json saying so)."""
    if code not in (2, 3) and summary.is_file():
        try:
            return int(json.loads(summary.read_text(encoding="utf-8"))["exit_code"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    if code == 3 and not summary.is_file():
        return int(ExitCode.COULD_NOT_JUDGE)
    if code in (4, 5):
        return int(ExitCode.USAGE)
    return code
