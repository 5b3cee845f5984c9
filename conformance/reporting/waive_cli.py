"""`conformance waive RUN_DIR --reason TEXT --until YYYY-MM-DD [--reference TICKET] [--out FILE]`:
a starting waivers file from a run's failures (summary.json), one waiver per failed test
case, for the user to review and name in the profile (`[run] waivers`) or pass with
`conformance run --waivers FILE` (conformance/reporting/waivers.py). Exit 0; 2 on bad input
(no summary, a date that is not one, a file that exists already)."""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path
from typing import Any

from conformance.errors import ConfigError, ExitCode


def add_waive_command(subparsers: Any) -> None:
    waive = subparsers.add_parser("waive", help="write a starting waivers file (accepted deviations) from a run's failures")
    waive.add_argument("run_dir", metavar="RUN_DIR", help="a run directory holding summary.json")
    waive.add_argument("--reason", required=True, help="why the register accepts these deviations")
    waive.add_argument("--until", required=True, metavar="YYYY-MM-DD", help="the last day the waivers waive")
    waive.add_argument("--reference", help="the ticket or decision that accepts them")
    waive.add_argument("--out", default="waivers.toml", help="the file to write (default: ./waivers.toml; never overwritten)")
    waive.set_defaults(handler=cmd_waive)


def cmd_waive(args: argparse.Namespace) -> int:
    from conformance.reporting.diff import load_run
    from conformance.reporting.waivers import starting_file

    try:
        until = date.fromisoformat(args.until)
    except ValueError:
        raise ConfigError(f"--until {args.until}: not a date (YYYY-MM-DD)") from None
    if not args.reason.strip():
        raise ConfigError("--reason: say why the deviations are accepted")
    summary = load_run(Path(args.run_dir))
    out = Path(args.out)
    if out.exists():
        raise ConfigError(f"--out {out}: exists already (waivers are reviewed by hand: give another file)")
    text, count = starting_file(summary, reason=args.reason, until=until, reference=args.reference)
    if not count:
        print(f"{args.run_dir}: no failed check to waive; nothing written")
        return int(ExitCode.OK)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--out {out}: not writable ({exc.strerror or exc})") from None
    print(f"{count} waiver{'s' * (count != 1)} written to {out} (until {until.isoformat()}); review them, then name "
          f"the file in the profile ([run] waivers) or pass it: conformance run --waivers {out}")
    return int(ExitCode.OK)
