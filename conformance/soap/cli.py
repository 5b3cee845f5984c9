"""`conformance soap validate FILE... [--wsdl PATH] [--soap-action-base URL] [--json]`.

Validates captured messages (bare envelopes or HTTP captures with headers) against the
WSDL and its types schema. Exit codes as for `run`: 0 every message is valid, 1 at least
one is invalid, 2 a usage or configuration error (a missing file, a WSDL that cannot be
loaded safely); the message names the file. Never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from conformance.errors import ConfigError, ExitCode
from conformance.soap import DEFAULT_SOAP_ACTION_BASE
from conformance.urls import refuse_unusable

if TYPE_CHECKING:
    from conformance.soap.validate import MessageReport


def add_soap_commands(subparsers: Any) -> None:
    """Add `soap validate` to the main CLI's argparse subparsers."""
    soap = subparsers.add_parser("soap", help="SOAP message service tools")
    commands = soap.add_subparsers(dest="soap_command", required=True)
    validate = commands.add_parser(
        "validate",
        help="validate captured SOAP messages against the WSDL and the types schema",
        description="Each FILE is a bare SOAP envelope or an HTTP capture (start line, headers, "
        "blank line, body). Exit 0: all valid; 1: a message is invalid; 2: usage or configuration error.",
    )
    validate.add_argument("files", nargs="+", metavar="FILE", help="captured message(s)")
    validate.add_argument("--wsdl", type=Path, help="the WSDL (default: the shipped one); its imports are read from its directory")
    validate.add_argument(
        "--soap-action-base",
        default=DEFAULT_SOAP_ACTION_BASE,
        help=f"fills {{soap_action_base}} in a WSDL template (default: {DEFAULT_SOAP_ACTION_BASE})",
    )
    validate.add_argument("--json", action="store_true", help="print the reports as JSON")
    validate.set_defaults(handler=cmd_soap_validate)

    wsdl = commands.add_parser(
        "wsdl", help="write the shipped WSDL, its {soap_url} and {soap_action_base} filled, and its types schema",
        description="A client (zeep, SoapUI) loads the written WSDL as it is: the address and the soapAction are "
        "those given, the types schema lies beside it.")
    wsdl.add_argument("--out", type=Path, required=True, help="the folder to write into")
    wsdl.add_argument("--url", required=True, help="the service address ({soap_url}), e.g. what `conformance mock` printed")
    wsdl.add_argument("--soap-action-base", default=DEFAULT_SOAP_ACTION_BASE,
                      help=f"fills {{soap_action_base}} (default: {DEFAULT_SOAP_ACTION_BASE})")
    wsdl.set_defaults(handler=cmd_soap_wsdl)


def cmd_soap_wsdl(args: argparse.Namespace) -> int:
    """The filled WSDL and the schema files beside it (its imports are relative)."""
    import shutil

    from conformance.soap import SHIPPED_WSDL
    from conformance.soap.loader import fill_placeholders

    if not args.url.startswith(("http://", "https://")):
        raise ConfigError(f"--url {args.url}: an http(s) address of the service")
    refuse_unusable(args.url, "--url")  # the WSDL holds it: for every client it is handed to
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        for source in sorted(SHIPPED_WSDL.parent.glob("*.xsd")):
            shutil.copyfile(source, args.out / source.name)
        target = args.out / SHIPPED_WSDL.name
        target.write_bytes(fill_placeholders(SHIPPED_WSDL.read_bytes(), soap_url=args.url,
                                             soap_action_base=args.soap_action_base))
    except OSError as exc:
        raise ConfigError(f"--out {args.out}: cannot write ({exc.strerror or exc})") from None
    print(target)
    return 0


def cmd_soap_validate(args: argparse.Namespace, out: TextIO | None = None) -> int:
    # zeep and lxml load here, not with the CLI: every `conformance` command would pay for them
    from conformance.soap.loader import load_contract
    from conformance.soap.validate import validate_message

    out = out or sys.stdout
    if args.wsdl is not None and not args.wsdl.is_file():
        raise ConfigError(f"WSDL file not found: {args.wsdl}")
    missing = [f for f in args.files if not Path(f).is_file()]
    if missing:
        raise ConfigError(f"message file not found: {', '.join(missing)}")
    contract = load_contract(args.wsdl, soap_url="", soap_action_base=args.soap_action_base)
    reports = [validate_message(_read(Path(f)), contract, source=f) for f in args.files]
    if args.json:
        json.dump([r.to_dict() for r in reports], out, indent=2)
        out.write("\n")
    else:
        for report in reports:
            _print(report, out)
    return int(ExitCode.OK if all(r.valid for r in reports) else ExitCode.MUST_FAILED)


def _read(path: Path) -> bytes:
    from conformance.soap.loader import MAX_XML_BYTES

    try:
        size = path.stat().st_size
        if size > MAX_XML_BYTES + 64_000:  # headers plus the largest body we parse
            raise ConfigError(f"{path} is {size} bytes, above the limit of {MAX_XML_BYTES}")
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None


def _print(report: MessageReport, out: TextIO) -> None:
    what = report.kind + (f" of {report.operation}" if report.operation else "")
    if report.valid:
        out.write(f"{report.source}: valid ({what})\n")
        return
    out.write(f"{report.source}: INVALID ({what}, {len(report.issues)} issue(s))\n")
    for issue in report.issues:
        where = f"line {issue.line}: " if issue.line else ""
        out.write(f"  {where}[{issue.rule}] {issue.message}\n")
