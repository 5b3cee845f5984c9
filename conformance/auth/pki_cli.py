"""`conformance pki init --out DIR [--oin OIN]`, `pki show DIR [--port N]`, `pki serve DIR [--port N]`.

`init` makes the test PKI the local mock trusts (conformance.auth.pki); `show` says what
is in one: the OIN, the key ids, the validity of each certificate, the JWKS file and the
loopback JWKS URL to register; `serve` publishes its JWKS documents at that URL (for an
authorization server on the same machine, such as a vendor's local build). Private keys
are only ever named by their file, never printed. Exit codes as for `run`: 0 done, 2 a
usage or configuration error (with a message naming the input).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from conformance.auth.oin import OIN_PATTERN, OIN_REGISTERED, OIN_TWICE, OIN_UNREGISTERED
from conformance.errors import ConfigError, ExitCode

if TYPE_CHECKING:
    from conformance.auth.pki import TestPki

# conformance.auth.pki (and with it `cryptography`, about 60 ms) is imported by the pki
# commands themselves: every other command builds this parser too.


def add_pki_commands(subparsers: Any) -> None:
    """Add `pki init` and `pki show` to the main CLI's argparse subparsers."""
    pki = subparsers.add_parser("pki", help="the test PKI for the client-credentials flow")
    commands = pki.add_subparsers(dest="pki_command", required=True)
    init = commands.add_parser(
        "init",
        help="make a test PKI (root, intermediates, client keys, bad material) in a directory",
        description="Writes PEM files (private keys with mode 0600), manifest.json and jwks.json "
        "(the good JWKS to register) into DIR, replacing an earlier test PKI there.",
    )
    init.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory to write (created if needed)")
    init.add_argument("--oin", default=OIN_REGISTERED, help=f"OIN of the client certificates, 20 digits (default: {OIN_REGISTERED})")
    init.set_defaults(handler=cmd_pki_init)
    show = commands.add_parser("show", help="print the OIN, key ids, validity and JWKS URL of a test PKI")
    show.add_argument("directory", type=Path, metavar="DIR", help="a directory written by `pki init`")
    show.add_argument("--port", type=_port, default=DEFAULT_JWKS_PORT, help=f"the port `pki serve` uses (default: {DEFAULT_JWKS_PORT})")
    show.set_defaults(handler=cmd_pki_show)
    serve = commands.add_parser(
        "serve", help="publish a test PKI's JWKS documents on loopback until Ctrl-C",
        description="Serves GET /jwks/<document>.json on 127.0.0.1 (good.json: the current and next keys).",
    )
    serve.add_argument("directory", type=Path, metavar="DIR", help="a directory written by `pki init`")
    serve.add_argument("--port", type=_port, default=DEFAULT_JWKS_PORT, help=f"loopback port (default: {DEFAULT_JWKS_PORT}; 0: any free one)")
    serve.set_defaults(handler=cmd_pki_serve)


DEFAULT_JWKS_PORT = 8765
GOOD_DOCUMENT = "good"  # current and next keys, each with its x5c chain (conformance.auth.pki.DOCUMENTS)


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 0 to 65535, not {text!r}")
    return int(text)


def jwks_url(port: int, document: str = GOOD_DOCUMENT) -> str:
    return f"http://127.0.0.1:{port}/jwks/{document}.json"


def cmd_pki_init(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    oin = args.oin
    if not OIN_PATTERN.fullmatch(oin):
        raise ConfigError(f"--oin must be exactly 20 digits, not {oin!r}")
    if oin in (OIN_UNREGISTERED, OIN_TWICE):
        raise ConfigError(f"--oin {oin} is reserved for the test PKI's bad material; choose another")
    directory: Path = args.out
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"--out {directory} exists and is not a directory")
    from conformance.auth.pki import init_test_pki

    try:
        pki = init_test_pki(directory, oin=oin)
    except OSError as exc:
        raise ConfigError(f"cannot write the test PKI to {directory}: {exc.strerror or exc}") from None
    out.write(f"test PKI written to {directory}\n")
    _print(pki, out)
    return int(ExitCode.OK)


def cmd_pki_show(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    directory: Path = args.directory
    if not directory.is_dir():
        raise ConfigError(f"no such directory: {directory}")
    from conformance.auth.pki import load_test_pki

    _print(load_test_pki(directory), out)
    out.write(f"JWKS URL to register (published by `conformance pki serve {directory} --port {args.port}`): "
              f"{jwks_url(args.port)}\n")
    return int(ExitCode.OK)


def cmd_pki_serve(args: argparse.Namespace, out: TextIO | None = None, stop: threading.Event | None = None) -> int:
    """Publish until Ctrl-C (or until `stop` is set, for tests)."""
    from conformance.auth.jwks_publisher import create_app
    from conformance.auth.pki import load_test_pki
    from conformance.serving import ServerThread, wait_until_stopped

    out = out or sys.stdout
    directory: Path = args.directory
    if not directory.is_dir():
        raise ConfigError(f"no such directory: {directory}")
    server = ServerThread(create_app(load_test_pki(directory).jwks_documents()), "jwks", port=args.port)
    port = server.start()
    out.write(f"JWKS of {directory} published at {jwks_url(port)} (other documents: /jwks/<name>.json). Ctrl-C stops.\n")
    out.flush()
    try:
        wait_until_stopped(stop)
    finally:
        server.stop()
    return int(ExitCode.OK)


def _print(pki: TestPki, out: TextIO) -> None:
    facts = pki.describe()
    anchor = facts["trust_anchor"]
    out.write(f"OIN: {facts['oin']}\n")
    out.write(f"trust anchor: {anchor['subject']}\n  valid {anchor['not_before']} .. {anchor['not_after']}  {anchor['file']}\n")
    for cert in facts["intermediates"]:
        out.write(f"intermediate: {cert['subject']}\n  valid {cert['not_before']} .. {cert['not_after']}  {cert['file']}\n")
    out.write("keys:\n")
    for name, key in facts["keys"].items():
        out.write(f"  {name:17} kid {key['kid']}\n")
        if "certificate" in key:
            oin = key["oin"] or "none"
            out.write(f"  {'':17} OIN {oin}, valid {key['not_before']} .. {key['not_after']}\n")
            out.write(f"  {'':17} issuer {key['issuer']}\n")
        else:
            out.write(f"  {'':17} published with the certificate of {key['x5c_of']} (a deliberate mismatch)\n")
    jwks_file = Path(facts["jwks"]["file"])
    if jwks_file.is_file():
        out.write(f"JWKS to register (keys current and next, with x5c): {jwks_file}\n")
    else:
        out.write(f"JWKS file missing: {jwks_file} (run `conformance pki init` again)\n")
    out.write("private keys stay in the *.key.pem files of the directory (mode 0600); they are never printed\n")
