"""Peer 3 of the interop tier: the message service served by spyne, an independent SOAP library.

    python tests/interop/soap/server.py [--port 0]

Binds 127.0.0.1 (port 0: a free one), prints one line `listening <url>` on stdout once the
socket accepts connections, and serves until killed. spyne (PyPI, unmodified) does all the
SOAP work: it reads SOAP 1.1 document/literal envelopes, validates the Body against the schema
it builds from graafbericht_types.py (`Soap11(validator="lxml")`), dispatches on the Body's
element and answers with its own envelopes and Faults. The one thing written here is the
operation: a GraafberichtServiceResponse that refers to the request (5b refers to 5a).
"""

from __future__ import annotations

import argparse
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIServer, make_server

from spyne import Application, Service, rpc
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script, next to its types
from graafbericht_types import (  # noqa: E402
    TYPES_NS,
    BerichtKopType,
    GraafberichtServiceRequestType,
    GraafberichtServiceResponseType,
    ReactieType,
    ReferentieType,
)

SERVICE = "RegistryNetbeheerderGraafBerichtService"
PATH = f"/{SERVICE}"
REGISTER_OIN = "00000001234567890000"  # the answering party's OIN (20 digits, invented)


class GraafberichtService(Service):
    # Bare body style: the Body holds the request element itself (document/literal, not
    # spyne's default wrapper), named as the XSD's global elements.
    @rpc(
        GraafberichtServiceRequestType,
        _body_style="bare",
        _in_message_name="GraafberichtServiceRequest",
        _out_message_name="GraafberichtServiceResponse",
        _returns=GraafberichtServiceResponseType,
    )
    def RegistryRequestNetbeheerderServiceResponse(ctx, request):  # noqa: N802, N805 (spyne's names)
        return GraafberichtServiceResponseType(
            versie="1.2",
            BerichtKop=BerichtKopType(
                BerichtId=str(uuid.uuid4()), Tijdstip=datetime.now(UTC), Afzender=REGISTER_OIN,
            ),
            Referentie=ReferentieType(
                BerichtId=request.BerichtKop.BerichtId, MeldingNummer=request.Graafmelding.MeldingNummer,
            ),
            Reactie=ReactieType(Belang="GeenBelang", StatusCode="S01"),
        )


def application() -> WsgiApplication:
    app = Application(
        [GraafberichtService],
        # spyne declares a bare method's message elements in the application's namespace,
        # so that is the types namespace (spyne's own ?wsdl is not the register's WSDL).
        tns=TYPES_NS,
        name=SERVICE,
        in_protocol=Soap11(validator="lxml"),
        out_protocol=Soap11(),
    )
    return WsgiApplication(app)


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = make_server("127.0.0.1", args.port, application(), ThreadingWSGIServer)  # logs to stderr
    print(f"listening http://127.0.0.1:{server.server_port}{PATH}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
