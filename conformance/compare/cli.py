"""`conformance compare --profile VENDOR --reference REFERENCE [--suite address] [--requests FILE.har]`.

Sends the same read-only requests to the vendor's environment and to the register's own
(conformance/compare) and writes the usual run directory: summary.json with
`"mode": "compare"`, the matrix, JUnit, Allure with the two answers side by side. Exit
codes as for `run`: 1 when a MUST check (status, media type, defined members, the headers
the seed fixes) found a difference; 0 with warnings for members the description does not
define; 3 when an environment is unreachable; 2 for bad input.

Only the address API is compared: the authorization server's answers are tokens and codes
that differ by design on every call, and the SOAP message service takes messages with side
effects (neither has a comparison yet).
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conformance.errors import ConfigError

COMPARED_SUITES = ("address",)


def add_compare_command(subparsers: Any) -> None:
    compare = subparsers.add_parser(
        "compare", help="compare a vendor's environment with the register's own: the same requests, every difference",
        description=__doc__.split("\n\n")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    compare.add_argument("--profile", required=True, metavar="VENDOR", help="the environment judged (profile name or path)")
    compare.add_argument("--reference", required=True, metavar="REFERENCE",
                         help="the register's own environment, the oracle (profile name or path)")
    compare.add_argument("--suite", action="append", choices=COMPARED_SUITES,
                         help="what to compare (default: address; the only one so far)")
    compare.add_argument("--requests", action="append", default=[], metavar="FILE.har",
                         help="also replay this HAR's GET requests (an integrator's real traffic; repeatable)")
    compare.add_argument("--mock-fault", action="append", default=[], metavar="NAME",
                         help="switch a fault on in the vendor side's local mock (repeatable)")
    compare.add_argument("--seed", type=int, help="seed of the generated requests (default: the profile's, else random)")
    compare.add_argument("--report-dir", help="report directory (default: reports/<UTC time>-<vendor>-vs-<reference>)")
    compare.add_argument("--no-html", action="store_true", help="do not render the Allure HTML report")
    compare.set_defaults(handler=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from conformance.mocks import faults as fault_catalogue
    from conformance.paths import SUITES_DIR, reports_dir
    from conformance.profiles import load_profile
    from conformance.run_setup import make_report_dir, resolve_secrets
    from conformance.runner import run_and_report

    vendor, reference = load_profile(args.profile), load_profile(args.reference)
    for role, profile in (("--profile", vendor), ("--reference", reference)):
        if profile.address is None:
            raise ConfigError(f"{role} {profile.name}: no address service ([services.address]) to compare")
        resolve_secrets(profile, COMPARED_SUITES)  # a missing secret names its variable before anything starts
    fault_catalogue.resolve(args.mock_fault)
    if args.mock_fault and not vendor.uses_mock:
        raise ConfigError(f"--mock-fault needs a vendor profile that starts mock servers; {vendor.name} starts none")
    for har in args.requests:
        if not Path(har).is_file():
            raise ConfigError(f"--requests {har}: no such file")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report_dir = Path(args.report_dir or reports_dir() / f"{stamp}-{vendor.name}-vs-{reference.name}").resolve()
    make_report_dir(report_dir)
    (report_dir / "summary.json").unlink(missing_ok=True)
    pytest_args = [str(SUITES_DIR / "compare"), "--profile", str(vendor.path), "--reference", str(reference.path),
                   "--report-dir", str(report_dir), "-q"]
    for name in args.mock_fault:
        pytest_args += ["--mock-fault", name]
    for har in args.requests:
        pytest_args += ["--compare-requests", str(Path(har).resolve())]
    if args.seed is not None:
        pytest_args += ["--hypothesis-seed", str(args.seed)]
    return run_and_report(pytest_args, report_dir, html=not args.no_html)
