"""The SOAP check functions both ways, and the catalogue's consistency with suites and faults.

The WSDL checks read a file, not the mock, so mock faults cannot trip them: they are proven
here on tampered copies of the shipped WSDL.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
import soap_check_groups as catalogue
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from conformance.catalogue import check_by_id
from conformance.checks.registry import Severity
from conformance.checks.soap import messages, wsdl
from conformance.checks.soap.support import SoapSuite
from conformance.findings import Blocked, Finding
from conformance.http.exchange import Exchange, Headers
from conformance.mocks.faults import expected_failures
from conformance.mocks.soap.faults import SOAP_FAULTS
from conformance.passive.rules import exchange_rules
from conformance.soap import SHIPPED_WSDL, SHIPPED_XSD, TYPES_NS, soap_action
from conformance.soap.envelope import build_envelope, build_fault
from conformance.soap.loader import load_contract
from conformance.soap.samples import sample_request
from conformance.soap.wsdl_facts import WsdlFacts, read_facts

SUITE_DIR = Path(__file__).resolve().parents[1] / "suites" / "soap"
BASE = "urn:registry:graafbericht"
URL = "http://127.0.0.1:9/netbeheerder/graafbericht"


def _facts(*replacements: tuple[str, str]) -> WsdlFacts:
    text = SHIPPED_WSDL.read_text(encoding="utf-8").replace("{soap_url}", URL).replace("{soap_action_base}", BASE)
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    return read_facts(etree.fromstring(text.encode()), schema_versions={TYPES_NS: "1.2"})


def test_shipped_wsdl_passes_every_wsdl_check() -> None:
    facts = _facts()
    wsdl.check_port_type_operation(facts)
    wsdl.check_message_parts(facts)
    wsdl.check_binding(facts)
    wsdl.check_soap_action(facts, soap_action(BASE))
    wsdl.check_service_port(facts, URL)
    contract = load_contract(soap_url=URL, soap_action_base=BASE)
    op = contract.operations["RegistryRequestNetbeheerderServiceResponse"]
    wsdl.check_types_version(contract.facts, op.input_element, op.output_element)


@pytest.mark.parametrize(
    ("check", "replacement", "message"),
    [
        ("port_type", ('name="RegistryNetbeheerderGraafBerichtServicePortType"', 'name="OtherPortType"'), "no portType"),
        ("port_type", ('<wsdl:output message="tns:GraafberichtServiceResponseMessage"/>', ""), "request-response"),
        ("parts", ('name="body" element="gb:GraafberichtServiceRequest"', 'name="parameters" element="gb:GraafberichtServiceRequest"'), "one part"),
        ("parts", ('element="gb:GraafberichtServiceResponse"', 'type="gb:GraafberichtServiceResponseType"'), "type="),
        ("parts", ('element="gb:GraafberichtServiceRequest"', 'element="gb:Other"'), "does not refer"),
        ("binding", ('style="document"/>', 'style="rpc"/>'), "style"),
        ("binding", ('<soap:body use="literal"/>', '<soap:body use="encoded"/>'), "literal"),
        ("binding", ("http://schemas.xmlsoap.org/soap/http", "http://schemas.xmlsoap.org/soap/smtp"), "transport"),
        ("binding", ('xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"', 'xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap12/"'), "SOAP 1.1"),
        ("action", ("/RequestNetbeheerderServiceResponse", "/RegistryRequestNetbeheerderServiceResponse"), "soapAction"),
        ("service", ('name="RegistryNetbeheerderGraafBerichtServicePort"', 'name="Port1"'), "no port"),
        ("service", (f'location="{URL}"', 'location="http://elsewhere/"'), "address"),
    ],
)
def test_wsdl_checks_catch_deviations(check: str, replacement: tuple[str, str], message: str) -> None:
    facts = _facts(replacement)
    run = {
        "port_type": lambda: wsdl.check_port_type_operation(facts),
        "parts": lambda: wsdl.check_message_parts(facts),
        "binding": lambda: wsdl.check_binding(facts),
        "action": lambda: wsdl.check_soap_action(facts, soap_action(BASE)),
        "service": lambda: wsdl.check_service_port(facts, URL),
    }[check]
    with pytest.raises(Finding, match=message):
        run()


def test_types_version_check_catches_version_and_namespace(tmp_path: Path) -> None:
    for source in (SHIPPED_WSDL, SHIPPED_XSD):
        shutil.copy(source, tmp_path / source.name)
    xsd = tmp_path / SHIPPED_XSD.name
    xsd.write_text(xsd.read_text(encoding="utf-8").replace('version="1.2"', 'version="1.1"'), encoding="utf-8")
    contract = load_contract(tmp_path / SHIPPED_WSDL.name)
    op = contract.operations["RegistryRequestNetbeheerderServiceResponse"]
    with pytest.raises(Finding, match="version 1.2"):
        wsdl.check_types_version(contract.facts, op.input_element, op.output_element)
    with pytest.raises(Finding, match="date segment"):
        wsdl.check_types_version(contract.facts, "{urn:x}GraafberichtServiceRequest", op.output_element)


# ------------------------------------------------------------------------------ message checks
def _exchange(body: bytes, status: int = 200, content_type: str = "text/xml; charset=utf-8") -> Exchange:
    return Exchange("POST", URL, Headers(), b"", status, Headers([("Content-Type", content_type)]), body)


def test_message_checks_accept_a_good_fault_and_reject_bad_ones() -> None:
    good = build_fault("Client", "bad request", detail=("why",))
    messages.check_rejected(_exchange(good, 500))
    messages.check_fault_structure(_exchange(good, 500))
    cases = [
        (_exchange(good, 200), "accepted"),
        (_exchange(b"<html><body>oops</body></html>", 500, "text/html"), "HTML"),
        (_exchange(good, 500, "application/soap+xml; charset=utf-8"), "text/xml"),
        (_exchange(build_fault("Server", "x"), 500), "code"),
        (_exchange(good.replace(b"<faultcode>soapenv:Client</faultcode>", b""), 500), "malformed"),
    ]
    for exchange, message in cases:
        with pytest.raises(Finding, match=message):
            messages.check_rejected(exchange)
    with pytest.raises(Finding, match="detail"):
        messages.check_fault_structure(_exchange(build_fault("Client", "x"), 500))


def test_response_checks_refuse_hostile_bodies_quickly() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE e [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><e>&c;</e>'
    )
    for body in (bomb, b'<!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]><e>&x;</e>'):
        with pytest.raises(Finding, match="DOCTYPE"):
            messages.check_no_dtd(_exchange(body))
        with pytest.raises(Finding, match="cannot be read safely"):
            messages.check_envelope(_exchange(body))


def test_reference_check_both_ways() -> None:
    request = sample_request()
    response = etree.Element(f"{{{TYPES_NS}}}GraafberichtServiceResponse")
    ref = etree.SubElement(response, f"{{{TYPES_NS}}}Referentie")
    etree.SubElement(ref, f"{{{TYPES_NS}}}BerichtId").text = request.findtext(f"{{{TYPES_NS}}}BerichtKop/{{{TYPES_NS}}}BerichtId")
    pairs = (("BerichtKop/BerichtId", "Referentie/BerichtId"),)
    messages.check_refers_to_request(_exchange(build_envelope(response)), request, pairs)
    with pytest.raises(Finding, match="does not repeat"):
        messages.check_refers_to_request(_exchange(build_envelope(response)), sample_request(bericht_id="x"), pairs)


# ------------------------------------------------------------------------------ catalogue
def _suite_marks() -> list[str]:
    """The check id of every test function written in suites/soap (exactly one each)."""
    ids: list[str] = []
    for path in sorted(SUITE_DIR.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                marks = [
                    d.args[0].value
                    for d in node.decorator_list
                    if isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "check"
                    and isinstance(d.args[0], ast.Constant)
                ]  # fmt: skip
                assert len(marks) == 1, f"{path.name}::{node.name} carries {len(marks)} check marks"
                ids.append(marks[0])
    return ids


def test_every_check_is_implemented_by_exactly_one_suite_test() -> None:
    """A check is a test of its own in suites/soap, or an exchange rule whose test
    suites/soap/test_exchange_rules.py makes (conformance/passive/rules/soap.py): never both."""
    marks = _suite_marks() + [rule.check for rule in exchange_rules("soap")]
    assert sorted(marks) == sorted(catalogue.ALL_CHECKS)
    for check_id in marks:
        check = check_by_id(check_id)
        assert check.suite == "soap" and check.requirements
        assert check.severity in (Severity.MUST, Severity.SHOULD, Severity.OBSERVATION)


def test_every_fault_is_proven_by_a_soap_check_and_names_no_other() -> None:
    names = [f.name for f in SOAP_FAULTS]
    assert len(names) == len(set(names)) and all(n.startswith("soap.") for n in names)
    for fault in SOAP_FAULTS:
        must, may = expected_failures(fault)
        assert must and must <= catalogue.ALL_CHECKS, fault.name
        assert may <= catalogue.ALL_CHECKS and not must & may, fault.name


def test_the_groups_name_declared_checks() -> None:
    groups = [catalogue.REJECTION_CHECKS, catalogue.ENVELOPE_CHECKS, catalogue.HEADER_CHECKS,
              catalogue.ENCODING_CHECKS, catalogue.HTTP_CHECKS, catalogue.FAULT_CHECKS, catalogue.WSDL_CHECKS,
              catalogue.AUTH_CHECKS, catalogue.RESPONSE_CHECKS]
    assert all(groups) and frozenset().union(*groups) == catalogue.ALL_CHECKS


# ------------------------------------------------------------------------------ controls
class _FakeService:
    """A SOAP service that answers every POST with one canned answer, counting them."""

    def __init__(self, body: bytes, status: int, content_type: str = "text/xml; charset=utf-8") -> None:
        self.url, self.soap_action_base, self.wsdl_path = URL, BASE, SHIPPED_WSDL
        self.answer = (body, status, content_type)
        self.posts: list[bytes] = []
        self.controls: dict[bytes, Exchange] = {}

    def post(self, body: bytes, headers: dict[str, str]) -> Exchange:
        self.posts.append(body)
        return _exchange(*self.answer)


def test_control_refusal_both_ways() -> None:
    response = etree.Element(f"{{{TYPES_NS}}}GraafberichtServiceResponse")
    assert messages.control_refusal(_exchange(build_envelope(response))) is None
    # A response the harness cannot read is still no refusal: its format is judged elsewhere.
    assert messages.control_refusal(_exchange(b"<!DOCTYPE e [<!ENTITY x 'y'>]><e>&x;</e>")) is None
    said = "the caller is not admitted"
    assert messages.control_refusal(_exchange(build_fault("Client.Authentication", said), 500)) == (
        "HTTP 500 Client.Authentication Fault", said)
    assert messages.control_refusal(_exchange(build_fault("Server", "down"), 200)) == ("HTTP 200 Server Fault", "down")
    assert messages.control_refusal(_exchange(b"<html>no</html>", 401, "text/html")) == ("HTTP 401 text/html", "")


def test_a_refused_control_blocks_with_one_cause_and_the_faultstring() -> None:
    service = _FakeService(build_fault("Server", "backend down"), 500)
    suite = SoapSuite.for_service(service)
    with pytest.raises(Blocked) as blocked:
        suite.control(suite.envelope(sample_request()))
    assert blocked.value.cause == "valid GraafberichtServiceRequest -> HTTP 500 Server Fault"
    assert "backend down" in blocked.value.precondition
    with pytest.raises(Blocked) as response_blocked:
        suite.require_response(_exchange(build_fault("Server", "backend down"), 500))
    assert response_blocked.value.cause == blocked.value.cause
    with pytest.raises(Finding) as status:
        messages.check_status_ok(service.post(b"", {}), cause=suite.refusal_cause(service.post(b"", {})))
    assert status.value.cause == blocked.value.cause and "backend down" in str(status.value)


def test_the_shared_control_is_asked_once_per_run() -> None:
    accepted = _FakeService(build_envelope(etree.Element(f"{{{TYPES_NS}}}GraafberichtServiceResponse")), 200)
    suite = SoapSuite.for_service(accepted)
    suite.shared_control()
    suite.shared_control()
    assert len(accepted.posts) == 1
    assert not suite.contract.schema_errors(etree.fromstring(accepted.posts[0])[0][0])
    refused = SoapSuite.for_service(_FakeService(b"", 403, ""))
    for _ in range(2):
        with pytest.raises(Blocked, match="HTTP 403"):
            refused.shared_control()


def test_each_mutant_keeps_its_valid_original() -> None:
    contract = load_contract(soap_url=URL, soap_action_base=BASE)
    suite = SoapSuite.for_service(_FakeService(b"", 200))

    @settings(max_examples=5, deadline=None, database=None)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        mutants = data.draw(suite.invalid_request_sets())
        assert mutants and all(m.original is mutants[0].original for m in mutants)
        assert not contract.schema_errors(mutants[0].original)
        assert all(contract.schema_errors(m.element) for m in mutants)

    check()


def test_the_valid_batch_is_sent_once_and_is_every_negative_checks_control(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.checks.soap import support
    from conformance.checks.soap.probes import Probe

    few = support.suite_settings()
    monkeypatch.setattr(support, "suite_settings", lambda: settings(few, max_examples=4))
    response = build_envelope(etree.Element(f"{{{TYPES_NS}}}GraafberichtServiceResponse"))
    service = _FakeService(response, 200)
    suite = SoapSuite.for_service(service)
    judged: list[bytes] = []
    suite.judge_valid(lambda sent: judged.append(sent.exchange.body))
    SoapSuite.for_service(service).judge_valid(lambda sent: judged.append(sent.exchange.body))
    batch = service.posts[:]
    assert len(batch) == 4 and judged == [response] * 8  # drawn and sent once, judged by both
    for body in batch:
        element = etree.fromstring(body)[0][0]
        assert not suite.contract.schema_errors(element)
    # Its answers are the controls: only the variants are sent, all judged.
    seen: list[bytes] = []
    suite.judge_variants(lambda sent: [Probe("same", sent.body + b" ")],
                         lambda exchange, probe, sent: seen.append(probe.body), requests=3)
    assert service.posts[4:] == seen == [body + b" " for body in batch[:3]]
    # A refused control blocks the check before any variant is sent.
    refused = _FakeService(build_fault("Server", "down"), 500)
    with pytest.raises(Blocked, match="down"):
        SoapSuite.for_service(refused).judge_variants(lambda sent: [Probe("same", sent.body)],
                                                      lambda *_: None)
    assert len(refused.posts) == 4


def test_the_valid_batch_is_one_per_run_across_workers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """xdist workers share the run's directory: the first draws and sends the batch, the others
    read it, requests, mutants and answers -- what sending raised included, raised again where
    it is read."""
    from conformance.checks.soap import support
    from conformance.http.limits import HttpViolation

    few = support.suite_settings()
    # The run's seed makes every worker draw the same requests.
    monkeypatch.setattr(support, "suite_settings", lambda: settings(few, max_examples=3, derandomize=True))

    class _Unanswered(_FakeService):
        def post(self, body: bytes, headers: dict[str, str]) -> Exchange:
            self.posts.append(body)
            raise HttpViolation("deadline", "no answer within 1 s", cause="too slow")

    draws: list[int] = []
    draw = support.SoapSuite.draw
    monkeypatch.setattr(support.SoapSuite, "draw", lambda self, strategy, count: draws.append(count) or draw(self, strategy, count))
    first, second = _Unanswered(b"", 200), _Unanswered(b"", 200)
    first.shared_dir = second.shared_dir = str(tmp_path)  # type: ignore[attr-defined]
    raised = []
    for service in (first, second):
        with pytest.raises(HttpViolation) as violation:
            SoapSuite.for_service(service).judge_valid(lambda sent: sent.exchange)
        raised.append((violation.value.kind, violation.value.message, violation.value.cause))
    assert len(first.posts) == 3 and second.posts == []
    assert draws == [3]  # drawn by the first worker only
    assert raised == [("deadline", "no answer within 1 s", "too slow")] * 2

    def drawn(service) -> list:  # byte for byte: an empty text stays <a></a>, as sent
        return [(etree.tostring(sent.request), sent.body,
                 [(m.kind, m.target, m.detail, etree.tostring(m.element), m.original is sent.request) for m in sent.mutants])
                for sent in service.valid_batch]

    assert drawn(second) == drawn(first) and any(mutants for _, _, mutants in drawn(second))
    assert all(original for _, _, mutants in drawn(second) for *_, original in mutants)
    assert SoapSuite.for_service(second).valid_batch().sent_here is False
