"""The mock message service: one SOAP 1.1 operation over HTTP, faithful unless a fault is on.

POST {path} takes a GraafberichtServiceRequest and answers a schema-valid
GraafberichtServiceResponse (see response.py). Every problem with a request is answered
with a SOAP 1.1 Fault, HTTP 500, `text/xml; charset=utf-8` (`Client` for the request's
fault, `VersionMismatch` for another envelope namespace as SOAP 1.1 4.1.2 requires,
`Server` for our own); never a stack trace or an HTML page. Another method than POST gets
405, another media type than text/xml 415 (BP R1114, R1115), each with a Fault body. Header
entries and the Basic Profile's envelope rules are processed in processing.py; a request
may be UTF-8 or UTF-16 (BP R1012). GET {path}?wsdl serves the WSDL with the address and the
action base filled in; the types schema sits next to it.

With `basic_credentials` set, every request to the endpoint needs them (RFC 7617): without
or with wrong ones it gets HTTP 401 with a `WWW-Authenticate: Basic` challenge and a Client
Fault body. A TLS client certificate is demanded by the server socket (the launcher's
`ServerThread(ssl=...)`), before any request reaches the app.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hmac
import logging
import posixpath
from dataclasses import dataclass

from lxml import etree
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from conformance.mocks.faults import FaultSet
from conformance.mocks.soap import processing
from conformance.mocks.soap.errors import SoapFault
from conformance.mocks.soap.response import build_response, serialize_response
from conformance.soap import SERVICE, SHIPPED_WSDL, SHIPPED_XSD, SOAP11_ENV_NS, soap_action
from conformance.soap.envelope import build_fault, envelope_version, inspect_envelope
from conformance.soap.loader import (
    ServiceContract,
    XmlRefused,
    fill_placeholders,
    load_contract,
    parse_untrusted,
)
from conformance.soap.samples import sample_request
from conformance.soap.validate import content_type_parts

_LOG = logging.getLogger(__name__)
XML_MEDIA_TYPE = "text/xml; charset=utf-8"
SOAP12_MEDIA_TYPE = "application/soap+xml; charset=utf-8"
_MAX_DETAIL_ENTRIES = 5
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


@dataclass(frozen=True)
class SoapMockConfig:
    path: str = "/netbeheerder/graafbericht"
    soap_action_base: str = "urn:registry:graafbericht"
    max_body_bytes: int = 512_000
    # HTTP basic credentials the service demands (username, password); None: none.
    # (A TLS client certificate is demanded by the server socket: see the launcher.)
    basic_credentials: tuple[str, str] | None = None
    realm: str = "RegistryNetbeheerderGraafBerichtService"
    # How long the first request of a new connection waits under `soap.response_hangs`:
    # longer than the harness's response-time limit, shorter than its time-out.
    hang_s: float = 3.0


def create_app(config: SoapMockConfig, faults: FaultSet) -> Starlette:
    service = _Service(config, faults, load_contract(soap_url="", soap_action_base=config.soap_action_base))
    xsd_path = posixpath.join(posixpath.dirname(config.path), SHIPPED_XSD.name)
    return Starlette(
        routes=[
            Route(config.path, service.endpoint, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
            Route(xsd_path, service.schema, methods=["GET"]),
        ]
    )


class _Service:
    def __init__(self, config: SoapMockConfig, faults: FaultSet, contract: ServiceContract) -> None:
        self.config = config
        self.faults = faults
        self.contract = contract
        self.action = soap_action(config.soap_action_base)
        self._connections: set[tuple[str, int]] = set()

    # ------------------------------------------------------------------ HTTP layer
    async def endpoint(self, request: Request) -> Response:
        if self.faults.on("soap.response_hangs") and self._new_connection(request):
            # The fault: a stalled backend. The first request of each connection is answered
            # only after the harness's response-time limit has passed.
            await asyncio.sleep(self.config.hang_s)
        try:
            self._authenticate(request)
            if request.method == "GET" and "wsdl" in {k.lower() for k in request.query_params}:
                return self._wsdl(request)
            if request.method == "GET" and self.faults.on("soap.get_answered"):
                return self._service_page()  # the fault: an information page instead of 405
            if request.method != "POST":
                # BP 1.1 R1114: 405 for another method; the body is still a SOAP Fault.
                raise SoapFault("Client", f"{request.method} is not supported: SOAP requests use POST", status=405)
            if self.faults.on("soap.every_request_refused"):
                # The fault: a refusal that has nothing to do with the message (an access
                # rule of the service), given before the body is even read.
                raise SoapFault("Client.Authentication", "the caller is not admitted to this service")
            body = await self._read_body(request)
            return self._handle(body, request)
        except SoapFault as fault:
            if fault.refusal and self.faults.on(f"soap.{fault.refusal}_accepted"):
                return self._answer(sample_request())  # the fault: a violation answered as if valid
            return self._fault(fault)
        except ClientDisconnect:  # the client gave up (a time-out): nobody to answer
            return Response(status_code=400)
        except Exception:  # the last resort: a Server fault, never a traceback on the wire
            _LOG.exception("soap mock: unexpected error")
            return self._fault(SoapFault("Server", "the message service failed to process the request"))

    def _new_connection(self, request: Request) -> bool:
        client = request.client
        key = (client.host, client.port) if client else ("", 0)
        if key in self._connections:
            return False
        if len(self._connections) > 10_000:  # a long-running mock: forget old connections
            self._connections.clear()
        self._connections.add(key)
        return True

    def _authenticate(self, request: Request) -> None:
        """HTTP basic (RFC 7617) when configured: 401 with a challenge and a Client Fault."""
        expected = self.config.basic_credentials
        if expected is None:
            return
        challenge = {"WWW-Authenticate": f'Basic realm="{self.config.realm}", charset="UTF-8"'}
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "basic" or not value.strip():
            raise SoapFault("Client", "authentication required: HTTP basic credentials are missing",
                            status=401, headers=challenge)
        try:
            username, sep, password = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            sep, username, password = "", "", ""
        valid = bool(sep) and all(
            hmac.compare_digest(given.encode(), wanted.encode())
            for given, wanted in ((username, expected[0]), (password, expected[1]))
        )
        if not valid:
            raise SoapFault("Client", "authentication failed: the HTTP basic credentials are not valid",
                            status=401, headers=challenge)

    async def schema(self, request: Request) -> Response:
        return Response(SHIPPED_XSD.read_bytes(), media_type=XML_MEDIA_TYPE)

    def _wsdl(self, request: Request) -> Response:
        address = str(request.url.replace(query=""))
        data = fill_placeholders(
            SHIPPED_WSDL.read_bytes(), soap_url=address, soap_action_base=self.config.soap_action_base
        )
        return Response(data, media_type=XML_MEDIA_TYPE)

    def _service_page(self) -> Response:
        page = f"<html><body><h1>{SERVICE}</h1><p>POST SOAP 1.1 requests to this address.</p></body></html>"
        return Response(page.encode(), media_type="text/html; charset=utf-8")

    async def _read_body(self, request: Request) -> bytes:
        limit = self.config.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise SoapFault(
                "Client", f"the request body of {declared} bytes exceeds the limit of {limit}", refusal="oversized"
            )
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise SoapFault("Client", f"the request body exceeds the limit of {limit} bytes", refusal="oversized")
            chunks.append(chunk)
        return b"".join(chunks)

    # ------------------------------------------------------------------ SOAP layer
    def _handle(self, body: bytes, request: Request) -> Response:
        utf16 = body.startswith(_UTF16_BOMS)
        if utf16 and self.faults.on("soap.utf16_request_refused"):
            # The fault: a service that reads UTF-8 only (BP R1012 allows UTF-16 as well).
            raise SoapFault("Client", "the request is not UTF-8: only UTF-8 requests are accepted")
        root = self._parse(body)
        version = envelope_version(root)
        if version is None:
            if etree.QName(root).localname == "Envelope":
                raise SoapFault("VersionMismatch", f"unknown envelope namespace {etree.QName(root).namespace}")
            # BP R1015: a Fault for any other document element.
            raise SoapFault("Client", f"the document element is {root.tag}, not a SOAP 1.1 Envelope",
                            refusal="not_an_envelope")
        if version != "1.1":
            raise SoapFault(
                "VersionMismatch", f"this service speaks SOAP 1.1 ({SOAP11_ENV_NS}), not SOAP {version}", refusal="soap12"
            )
        media, _params = content_type_parts(request.headers.get("content-type"))
        if media != "text/xml":
            # BP R1115: 415 for a media type the WSDL does not allow; the body is still a Fault.
            raise SoapFault("Client", f"Content-Type {media or 'none'} is not text/xml (SOAP 1.1 over HTTP)",
                            status=415, refusal="unsupported_media_type")
        self._check_soap_action(request.headers.get("soapaction"))
        view = inspect_envelope(root)
        problems = processing.envelope_problems(view, self.faults)
        if problems:
            raise SoapFault("Client", "the envelope is malformed", tuple(p.message for p in problems))
        processing.check_headers(view.header, self.faults)
        child = processing.body_entry(view, self.contract, self.faults)
        operation = self.contract.operation_for_input(child.tag)
        if operation is None:
            raise SoapFault(
                "Client", f"{child.tag} is not the input of any operation of this service", (child.tag,),
                refusal="wrong_body_element",
            )
        if not self.faults.on("soap.accepts_schema_invalid_request"):
            errors = self.contract.schema_errors(child)
            if errors:
                detail = tuple(f"line {line}: {message}" for line, message in errors[:_MAX_DETAIL_ENTRIES])
                raise SoapFault("Client", "the request is not valid against the types schema", detail)
        if self.faults.on("soap.valid_request_refused"):
            raise SoapFault("Server", "the message service is temporarily unable to process requests")
        return self._answer(child, utf16=utf16)

    def _answer(self, request_element: etree._Element, *, utf16: bool = False) -> Response:
        data = serialize_response(build_response(request_element, self.faults), self.faults)
        charset = "utf-8"
        if utf16 and self.faults.on("soap.utf16_answer_mislabelled"):
            # The fault: a UTF-16 request answered in UTF-16, still labelled utf-8.
            data = data.decode("utf-8").replace("encoding='UTF-8'", "encoding='UTF-16'", 1).encode("utf-16")
        if self.faults.on("soap.response_charset_mislabelled"):
            charset = "utf-16"  # the fault: UTF-8 bytes labelled utf-16
        if self.faults.on("soap.response_declaration_mismatch"):
            # The fault: an XML declaration naming another encoding than the bytes and the charset.
            data = data.replace(b"encoding='UTF-8'", b"encoding='ISO-8859-1'", 1)
        if self.faults.on("soap.response_in_latin1"):
            charset = "iso-8859-1"
            data = data.decode("utf-8").replace("encoding='UTF-8'", "encoding='ISO-8859-1'", 1).encode(
                "iso-8859-1", "xmlcharrefreplace")
        media_type = SOAP12_MEDIA_TYPE if self.faults.on("soap.soap12_content_type") else f"text/xml; charset={charset}"
        return Response(data, status_code=200, media_type=media_type)

    def _parse(self, body: bytes) -> etree._Element:
        try:
            return parse_untrusted(body, max_bytes=self.config.max_body_bytes, what="the request body").getroot()
        except XmlRefused as refused:
            if refused.reason == "doctype" and self.faults.on("soap.request_internal_entities_expanded"):
                # The fault: external entities and DTDs are refused, internal entities expanded.
                parser = etree.XMLParser(resolve_entities="internal", no_network=True, load_dtd=False)
                with contextlib.suppress(etree.XMLSyntaxError):
                    return etree.fromstring(body, parser)
            if refused.reason == "doctype" and self.faults.on("soap.request_dtd_accepted"):
                # The fault: a lenient parser that keeps the DOCTYPE (still never expanding).
                parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
                try:
                    root = etree.fromstring(body, parser)
                    etree.strip_tags(root, etree.Entity)  # drop the references, keep the text
                    return root
                except etree.XMLSyntaxError:
                    pass
            refusal = "non_xml" if refused.reason in ("not_well_formed", "empty") else ""
            raise SoapFault("Client", refused.message, (refused.message,), refusal=refusal) from None

    def _check_soap_action(self, header: str | None) -> None:
        if header is None:
            raise SoapFault("Client", "the SOAPAction header is missing", refusal="missing_soapaction")
        value = header.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        if value != self.action and not self.faults.on("soap.wrong_soapaction_accepted"):
            raise SoapFault("Client", f'SOAPAction "{value}" is not "{self.action}"')

    # ------------------------------------------------------------------ Faults
    def _fault(self, fault: SoapFault) -> Response:
        status = 200 if self.faults.on("soap.fault_with_http_200") else fault.status
        headers = {"Allow": "GET, POST"} if fault.status == 405 else dict(fault.headers) or None
        if self.faults.on("soap.html_error_page"):
            page = (
                "<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body>"
                "<h1>Internal Server Error</h1><pre>Traceback (most recent call last):\n"
                '  File "service.py", line 42, in handle\nValueError: ' + _html_escape(fault.message) + "</pre></body></html>"
            )
            return Response(page.encode(), status_code=status, headers=headers, media_type="text/html; charset=utf-8")
        code = fault.code
        if self.faults.on("soap.fault_dotted_codes") and "." not in code:
            code += ".Error"  # the fault: a dotted refinement of every code (BP R1031 advises against them)
        data = build_fault(code, fault.message, detail=fault.detail)
        if self.faults.on("soap.fault_without_faultcode"):
            data = _drop_faultcode(data)
        media_type = SOAP12_MEDIA_TYPE if self.faults.on("soap.soap12_content_type") else XML_MEDIA_TYPE
        return Response(data, status_code=status, headers=headers, media_type=media_type)


def _drop_faultcode(data: bytes) -> bytes:
    root = etree.fromstring(data)
    for code in root.iter("faultcode"):
        code.getparent().remove(code)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
