"""The SOAP mock: valid requests get schema-valid answers; every protocol violation gets a
SOAP 1.1 Fault (Client, or VersionMismatch for another envelope), HTTP 500,
`text/xml; charset=utf-8`; never a traceback or an HTML page."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from lxml import etree

from conformance.checks.soap import probes
from conformance.mocks.faults import FaultSet
from conformance.mocks.launcher import ServerThread
from conformance.mocks.soap import app as mock_app
from conformance.mocks.soap.app import SoapMockConfig, create_app
from conformance.soap import PORT, SHIPPED_XSD, SOAP11_ENV_NS, SOAP12_ENV_NS, TYPES_NS
from conformance.soap.envelope import build_envelope, inspect_envelope
from conformance.soap.loader import load_contract, parse_untrusted
from conformance.soap.samples import sample_request

ACTION = '"urn:registry:graafbericht/RequestNetbeheerderServiceResponse"'
HEADERS = {"Content-Type": "text/xml; charset=utf-8", "SOAPAction": ACTION}
T = f"{{{TYPES_NS}}}"
CONFIG = SoapMockConfig(max_body_bytes=64_000)
CONTRACT = load_contract(soap_url="", soap_action_base=CONFIG.soap_action_base)


def _request(melding: str = "24G000123", x: str = "100000") -> etree._Element:
    return sample_request(melding=melding, x=x)


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server = ServerThread(create_app(CONFIG, FaultSet()), "soap-test")
    port = server.start()
    yield f"http://127.0.0.1:{port}{CONFIG.path}"
    server.stop()


@pytest.fixture(scope="module")
def post(endpoint: str) -> Iterator[Callable[..., httpx.Response]]:
    with httpx.Client(timeout=10, trust_env=False) as client:

        def send(body: bytes | Iterator[bytes], headers: dict[str, str] | None = None) -> httpx.Response:
            return client.post(endpoint, content=body, headers=HEADERS if headers is None else headers)

        yield send


def _fault_code(response: httpx.Response, *, status: int = 500) -> str:
    """Assert the SOAP 1.1 Fault format and return the faultcode's local part."""
    assert response.status_code == status
    assert response.headers["content-type"] == "text/xml; charset=utf-8"
    text = response.text
    assert "Traceback" not in text and "<html" not in text.lower()
    view = inspect_envelope(parse_untrusted(response.content).getroot())
    assert view.version == "1.1" and not view.problems
    assert view.fault is not None and not view.fault.problems
    assert view.fault.code_qname and view.fault.code_qname.startswith(f"{{{SOAP11_ENV_NS}}}")
    return view.fault.soap_code or ""


def test_valid_request_gets_a_schema_valid_response(post) -> None:
    request = _request()
    response = post(build_envelope(request))
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/xml; charset=utf-8"
    view = inspect_envelope(parse_untrusted(response.content).getroot())
    assert not view.problems and len(view.body_children) == 1
    answer = view.body_children[0]
    assert answer.tag == f"{T}GraafberichtServiceResponse"
    assert CONTRACT.schema_errors(answer) == []
    assert answer.findtext(f"{T}Referentie/{T}BerichtId") == request.findtext(f"{T}BerichtKop/{T}BerichtId")
    assert answer.findtext(f"{T}Reactie/{T}Belang") == "Belang"  # x < 150000: interest
    assert answer.find(f"{T}Bijlagen") is not None


def test_no_interest_east_of_the_line(post) -> None:
    answer = inspect_envelope(parse_untrusted(post(build_envelope(_request(x="200000"))).content).getroot())
    assert answer.body_children[0].findtext(f"{T}Reactie/{T}Belang") == "GeenBelang"


VALID = build_envelope(_request())
WRONG_ELEMENT = build_envelope(etree.Element(f"{T}GraafberichtServiceResponse", versie="1.2"))
UNKNOWN_ELEMENT = build_envelope(etree.Element("{urn:other}Iets"))
TWO_CHILDREN = build_envelope([_request(), _request()])
INVALID = VALID.replace(b">24G000123<", b">24-000123<")
XXE = VALID.replace(b"?>", b'?>\n<!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]>', 1).replace(
    b">Netbeheer Voorbeeld<", b">Netbeheer &x;<"
)
AFTER_BODY = VALID.replace(b"</soapenv:Envelope>", b"<extra xmlns='urn:x'/></soapenv:Envelope>")
MUST_UNDERSTAND = build_envelope(
    _request(),
    header_children=[etree.fromstring(f'<h:Sec xmlns:h="urn:sec" xmlns:s="{SOAP11_ENV_NS}" s:mustUnderstand="1"/>')],
)


@pytest.mark.parametrize(
    ("case", "body", "headers", "code"),
    [
        ("missing SOAPAction", VALID, {"Content-Type": "text/xml; charset=utf-8"}, "Client"),
        ("wrong SOAPAction", VALID, {**HEADERS, "SOAPAction": '"urn:registry:graafbericht/Other"'}, "Client"),
        ("non-XML body", b"this is not XML", HEADERS, "Client"),
        ("truncated XML", VALID[:-40], HEADERS, "Client"),
        ("root is not an Envelope", etree.tostring(_request()), HEADERS, "Client"),
        ("SOAP 1.2 envelope", build_envelope(_request(), soap_namespace=SOAP12_ENV_NS), HEADERS, "VersionMismatch"),
        ("wrong body element", WRONG_ELEMENT, HEADERS, "Client"),
        ("unknown body element", UNKNOWN_ELEMENT, HEADERS, "Client"),
        ("two body children", TWO_CHILDREN, HEADERS, "Client"),
        ("schema-invalid body", INVALID, HEADERS, "Client"),
        ("DOCTYPE with external entity", XXE, HEADERS, "Client"),
        ("element after Body", AFTER_BODY, HEADERS, "Client"),
        ("mustUnderstand header", MUST_UNDERSTAND, HEADERS, "MustUnderstand"),
        ("oversized body", VALID + b"<!--" + b"x" * 70_000 + b"-->", HEADERS, "Client"),
    ],
)
def test_protocol_violation_gets_a_soap11_fault(post, case: str, body: bytes, headers: dict[str, str], code: str) -> None:
    response = post(body, headers)
    assert _fault_code(response) == code, case
    assert "root:" not in response.text


def test_media_type_other_than_text_xml_is_415_with_a_fault(post) -> None:
    # BP R1115: 415 for a Content-Type the WSDL's SOAP 1.1 binding does not allow.
    for media_type in ("application/json", "text/plain; charset=utf-8"):
        assert _fault_code(post(VALID, {**HEADERS, "Content-Type": media_type}), status=415) == "Client"


def _header(must_understand: str | None = None, actor: str | None = None, nested: bool = False) -> bytes:
    entry = probes.header_entry(must_understand=must_understand, actor=actor, nested_must_understand=nested)
    return probes.with_header(_request(), entry)


@pytest.mark.parametrize(
    ("must_understand", "actor", "nested", "code"),
    [
        ("1", None, False, "MustUnderstand"),  # SOAP 1.1 4.2.3: for the ultimate destination
        ("1", probes.ACTOR_NEXT, False, "MustUnderstand"),  # 4.2.2: the first SOAP application
        ("true", None, False, "MustUnderstand"),  # xsd:boolean true (BP R1013 forbids it to senders)
        ("yes", None, False, "Client"),  # no mustUnderstand value at all
        ("1", probes.OTHER_ACTOR, False, None),  # for another node: not this service's to check
        ("0", None, False, None),
        (None, None, False, None),
        ("0", probes.ACTOR_NEXT, False, None),
        (None, None, True, None),  # 4.2.1: only on an immediate child of Header does it count
    ],
)
def test_header_entries_are_processed_as_soap_1_1_says(post, must_understand, actor, nested, code) -> None:
    response = post(_header(must_understand, actor, nested))
    if code is None:
        assert response.status_code == 200
        return
    assert _fault_code(response) == code
    fault = parse_untrusted(response.content).getroot().find(f".//{{{SOAP11_ENV_NS}}}Fault")
    assert fault is not None and fault.find("detail") is None  # SOAP 1.1 4.4: no detail for header errors


@pytest.mark.parametrize("rule", ["after_body", "two_children", "encoding_style", "unqualified",
                                  "processing_instruction", "not_an_envelope"])
def test_envelope_rules_are_enforced(post, rule: str) -> None:
    for probe in probes.envelope_probes(_request())[rule]:
        assert _fault_code(post(probe.body)) == "Client", probe.variant


def test_every_doctype_is_refused_and_nothing_expanded(post) -> None:
    for probe in probes.doctype_probes(_request()):
        response = post(probe.body)
        assert _fault_code(response) == "Client", probe.variant
        assert not any(m.encode() in response.content for m in probe.markers), probe.variant


def test_a_utf16_request_is_understood(post) -> None:
    response = post(probes.utf16_envelope(_request()), {**HEADERS, "Content-Type": "text/xml; charset=utf-16"})
    assert response.status_code == 200 and response.headers["content-type"] == "text/xml; charset=utf-8"
    view = inspect_envelope(parse_untrusted(response.content).getroot())
    assert CONTRACT.schema_errors(view.body_children[0]) == []


def test_body_errors_carry_detail_header_errors_do_not(post) -> None:
    invalid = parse_untrusted(post(INVALID).content).getroot()
    assert invalid.find(f".//{{{SOAP11_ENV_NS}}}Fault/detail") is not None
    assert b"MeldingNummer" in etree.tostring(invalid)
    missing_action = parse_untrusted(post(VALID, {"Content-Type": "text/xml; charset=utf-8"}).content).getroot()
    assert missing_action.find(f".//{{{SOAP11_ENV_NS}}}Fault/detail") is None


def test_oversized_streamed_body_without_length(post) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(20):
            yield b"<!--" + b"y" * 8_000 + b"-->"

    assert _fault_code(post(chunks())) == "Client"


def test_get_without_wsdl_query_is_405_with_a_fault(endpoint: str) -> None:
    response = httpx.get(endpoint, trust_env=False)
    assert _fault_code(response, status=405) == "Client"
    assert response.headers["allow"] == "GET, POST"


def test_wsdl_is_served_with_address_and_loads_offline(endpoint: str, tmp_path: Path) -> None:
    wsdl = httpx.get(endpoint + "?wsdl", trust_env=False)
    assert wsdl.status_code == 200 and wsdl.headers["content-type"] == "text/xml; charset=utf-8"
    xsd_url = str(httpx.URL(endpoint).join(SHIPPED_XSD.name))
    (tmp_path / "service.wsdl").write_bytes(wsdl.content)
    (tmp_path / SHIPPED_XSD.name).write_bytes(httpx.get(xsd_url, trust_env=False).content)
    contract = load_contract(tmp_path / "service.wsdl")
    assert contract.addresses[PORT] == endpoint
    assert next(iter(contract.operations.values())).soap_action == ACTION.strip('"')


def test_unexpected_error_is_a_server_fault_without_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(mock_app, "build_response", explode)
    server = ServerThread(create_app(CONFIG, FaultSet()), "soap-broken")
    port = server.start()
    try:
        response = httpx.post(f"http://127.0.0.1:{port}{CONFIG.path}", content=VALID, headers=HEADERS, trust_env=False)
    finally:
        server.stop()
    assert _fault_code(response) == "Server"
    assert "secret internal detail" not in response.text
