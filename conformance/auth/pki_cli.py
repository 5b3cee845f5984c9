"""`conformance pki init --out DIR [--oin OIN] [--crl-base URL]`, `pki show DIR [--port N]`,
`pki serve DIR [--port N]`.

`init` makes the test PKI the local mock trusts (conformance.auth.pki); `show` says what
is in one: the OIN, the key ids, the validity of each certificate, the certificate policy of
each domain, the CRLs and where the leaves say they are, the JWKS file and the loopback JWKS
URL to register; `serve` publishes its JWKS documents at that URL and its CRLs at their
distribution point (`/crl/<file>`, DER), for an authorization server on the same machine,
such as a vendor's local build. Private keys are only ever named by their file, never
printed. Exit codes as for `run`: 0 done, 2 a usage or configuration error (with a message
naming the input).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from conformance.auth.oin import OIN_PATTERN, OIN_REGISTERED
from conformance.errors import ConfigError, ExitCode
from conformance.urls import refuse_unusable

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
    init.add_argument("--crl-base", default=DEFAULT_CRL_BASE, metavar="URL",
                      help="the URL the leaves' CRL distribution points name, where `pki serve` publishes the CRLs "
                      f"(default: {DEFAULT_CRL_BASE}, the loopback port of `pki serve`)")
    init.set_defaults(handler=cmd_pki_init)
    show = commands.add_parser("show", help="print the OIN, key ids, validity and JWKS URL of a test PKI")
    show.add_argument("directory", type=Path, metavar="DIR", help="a directory written by `pki init`")
    show.add_argument("--port", type=_port, default=None, help="the port `pki serve` uses (default: the port of the "
                      f"PKI's --crl-base when it is a loopback URL, else {DEFAULT_JWKS_PORT})")
    show.set_defaults(handler=cmd_pki_show)
    serve = commands.add_parser(
        "serve", help="publish a test PKI's JWKS documents and CRLs on loopback until Ctrl-C",
        description="Serves GET /jwks/<document>.json (good.json: the current and next keys) and "
        "GET /crl/<file> (the CRLs the leaves' distribution points name) on 127.0.0.1.",
    )
    serve.add_argument("directory", type=Path, metavar="DIR", help="a directory written by `pki init`")
    serve.add_argument("--port", type=_port, default=None, help="loopback port (default: the port of the PKI's "
                       f"--crl-base when it is a loopback URL, where the leaves say their CRLs are, else "
                       f"{DEFAULT_JWKS_PORT}; 0: any free one)")
    serve.set_defaults(handler=cmd_pki_serve)


DEFAULT_JWKS_PORT = 8765
# The CRL distribution point `pki init` writes into the leaves: `pki serve` at its default port
# (the same value as conformance.auth.pki.DEFAULT_CRL_BASE, kept here so that building this
# parser does not load `cryptography`).
DEFAULT_CRL_BASE = f"http://127.0.0.1:{DEFAULT_JWKS_PORT}/crl"
GOOD_DOCUMENT = "good"  # current and next keys, each with its x5c chain (conformance.auth.pki.DOCUMENTS)
CRL_MEDIA_TYPE = "application/pkix-crl"  # RFC 5280 4.2.1.13: a DER CRL over HTTP


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 0 to 65535, not {text!r}")
    return int(text)


def serving_port(pki: TestPki, given: int | None) -> int:
    """The port `show` and `serve` name: the one given, else the loopback port the leaves' CRL
    distribution points name (`pki init --crl-base http://127.0.0.1:9000/crl` is served on
    9000 without saying so again), else the default."""
    if given is not None:
        return given
    from urllib.parse import urlsplit

    crl = urlsplit(pki.crl_base)
    if crl.scheme == "http" and crl.hostname in ("127.0.0.1", "localhost") and crl.port:
        return crl.port
    return DEFAULT_JWKS_PORT


def jwks_url(port: int, document: str = GOOD_DOCUMENT) -> str:
    return f"http://127.0.0.1:{port}/jwks/{document}.json"


def cmd_pki_init(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    oin = args.oin
    if not OIN_PATTERN.fullmatch(oin):
        raise ConfigError(f"--oin must be exactly 20 digits, not {oin!r}")
    from conformance.auth.pki import RESERVED_OINS, init_test_pki

    if oin in RESERVED_OINS:
        raise ConfigError(f"--oin {oin} is reserved for the test PKI's bad material and second customer; choose another")
    crl_base = getattr(args, "crl_base", DEFAULT_CRL_BASE)
    if not crl_base.startswith(("http://", "https://")):
        raise ConfigError(f"--crl-base must be an http(s) URL, not {crl_base!r}")
    refuse_unusable(crl_base, "--crl-base")  # the certificates' CRL distribution points hold it
    directory: Path = args.out
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"--out {directory} exists and is not a directory")

    try:
        pki = init_test_pki(directory, oin=oin, crl_base=crl_base)
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

    pki = load_test_pki(directory)
    _print(pki, out)
    port = serving_port(pki, args.port)
    out.write(f"JWKS URL to register (published by `conformance pki serve {directory} --port {port}`): "
              f"{jwks_url(port)}\n")
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
    pki = load_test_pki(directory)
    server = ServerThread(serve_app(pki, create_app(pki.jwks_documents())), "jwks", port=serving_port(pki, args.port))
    port = server.start()
    out.write(f"JWKS of {directory} published at {jwks_url(port)} (other documents: /jwks/<name>.json); "
              f"CRLs at http://127.0.0.1:{port}/crl/<file>. Ctrl-C stops.\n")
    for ca in pki.crls:
        here = f"http://127.0.0.1:{port}/crl/{pki.crl_url(ca).rsplit('/', 1)[-1]}"
        if pki.crl_url(ca) != here:
            out.write(f"note: the leaves name {pki.crl_url(ca)} as their CRL distribution point, not {here}: "
                      "serve on that port, or make the PKI for this one (pki init --crl-base "
                      f"http://127.0.0.1:{port}/crl)\n")
    out.flush()
    try:
        wait_until_stopped(stop)
    finally:
        server.stop()
    return int(ExitCode.OK)


def serve_app(pki: TestPki, jwks_app: Any) -> Any:
    """The JWKS publisher's app with the CRLs beside it: GET /crl/<file> (DER)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response
    from starlette.routing import Mount, Route

    async def crl(request: Request) -> Response:
        der = pki.crl_der(request.path_params["name"])
        if der is None:
            return PlainTextResponse("no such CRL", status_code=404)
        return Response(der, media_type=CRL_MEDIA_TYPE)

    return Starlette(routes=[Route("/crl/{name}", crl, methods=["GET"]), Mount("/", app=jwks_app)])


def _print(pki: TestPki, out: TextIO) -> None:
    facts = pki.describe()
    anchor = facts["trust_anchor"]
    out.write(f"OIN: {facts['oin']}\n")
    out.write(f"trust anchor: {anchor['subject']}\n  valid {anchor['not_before']} .. {anchor['not_after']}  {anchor['file']}\n")
    for cert in facts["intermediates"]:
        out.write(f"intermediate: {cert['subject']}\n  valid {cert['not_before']} .. {cert['not_after']}  {cert['file']}\n")
    out.write(f"certificate policy of the Private Services branch: {facts['policies']['private_services']} "
              "(require it, or trust the Private Services domain CA only)\n")
    for cert in facts["other_domain"]:
        out.write(f"other domain (not trusted for the inquiry API): {cert['subject']}\n  {cert['file']}\n")
    out.write(f"  policy {facts['policies']['other_domain']}\n")
    for ca, crl in facts["crls"].items():
        revoked = ", ".join(crl["revoked"]) or "nothing"
        out.write(f"CRL of {ca} (revokes {revoked}): {crl['url']}, next update {crl['next_update']}  {crl['file']}\n")
    out.write(f"second end customer's OIN (client two_customers): {facts['second_customer_oin']}\n")
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
