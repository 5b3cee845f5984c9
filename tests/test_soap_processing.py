"""The checks of SOAP 1.1 / Basic Profile processing rules, proven both ways on crafted
exchanges: DOCTYPE probes and entity expansion, header entries, envelope rules, character
encoding, the HTTP binding and the Fault code's dot notation. The probes themselves are
proven to change exactly the one thing their variant names."""

from __future__ import annotations

import codecs

import pytest
from lxml import etree

from conformance.checks.soap import charset, messages, probes
from conformance.checks.soap.support import SoapSuite
from conformance.findings import Finding
from conformance.http.exchange import Exchange, Headers
from conformance.soap import SHIPPED_WSDL, SOAP11_ENV_NS, TYPES_NS
from conformance.soap.envelope import build_envelope, build_fault, inspect_envelope
from conformance.soap.loader import load_contract
from conformance.soap.samples import sample_request

URL = "http://127.0.0.1:9/netbeheerder/graafbericht"
CONTRACT = load_contract(soap_url=URL, soap_action_base="urn:registry:graafbericht")
OUTPUT = f"{{{TYPES_NS}}}GraafberichtServiceResponse"  # the WSDL output element
UTF8 = "text/xml; charset=utf-8"


def _exchange(body: bytes, status: int = 200, content_type: str = UTF8) -> Exchange:
    return Exchange("POST", URL, Headers(), b"", status, Headers([("Content-Type", content_type)]), body)


def _response() -> bytes:
    """A schema-valid GraafberichtServiceResponse in an envelope."""
    request = sample_request()
    response = etree.Element(OUTPUT, nsmap={"gb": TYPES_NS}, versie="1.2")
    kop = etree.SubElement(response, f"{{{TYPES_NS}}}BerichtKop")
    for name, text in (("BerichtId", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f1"), ("Tijdstip", "2024-03-01T10:00:01Z"),
                       ("Afzender", "00000001003214345000")):
        etree.SubElement(kop, f"{{{TYPES_NS}}}{name}").text = text
    ref = etree.SubElement(response, f"{{{TYPES_NS}}}Referentie")
    for name, path in (("BerichtId", "BerichtKop/BerichtId"), ("MeldingNummer", "Graafmelding/MeldingNummer")):
        etree.SubElement(ref, f"{{{TYPES_NS}}}{name}").text = request.findtext(
            "/".join(f"{{{TYPES_NS}}}{s}" for s in path.split("/")))
    reactie = etree.SubElement(response, f"{{{TYPES_NS}}}Reactie")
    etree.SubElement(reactie, f"{{{TYPES_NS}}}Belang").text = "GeenBelang"
    etree.SubElement(reactie, f"{{{TYPES_NS}}}StatusCode").text = "S02"
    assert CONTRACT.schema_errors(response) == []
    return build_envelope(response)


# ------------------------------------------------------------------------------ DOCTYPE
def test_doctype_probes_hold_their_marker_only_once_expanded() -> None:
    request = sample_request()
    before = etree.tostring(request)
    found = probes.doctype_probes(request)
    assert etree.tostring(request) == before  # the drawn request is left as it is
    control = build_envelope(request).split(b"?>", 1)[1].lstrip()
    for probe in found:
        head, _, rest = probe.body.partition(b"\n<soapenv:Envelope")
        assert b"<!DOCTYPE soapenv:Envelope" in head, probe.variant
        for marker in probe.markers:
            assert marker.encode() not in probe.body, probe.variant  # never written whole
        if not probe.markers:  # no entity used: the envelope is the control's, byte for byte
            assert b"<soapenv:Envelope" + rest == control, probe.variant
    internal, parameter = found[2], found[3]
    # Parsed by an expanding (trusted, local) parser, the marker appears: that is its point.
    expanding = etree.XMLParser(resolve_entities=True, load_dtd=True, no_network=True)
    for probe in (internal, parameter):
        text = etree.tostring(etree.fromstring(probe.body, expanding))
        assert probe.markers[0].encode() in text, probe.variant
        assert not CONTRACT.schema_errors(etree.fromstring(probe.body, expanding)[0][0])


def test_expansion_is_found_in_any_answer_and_any_utf() -> None:
    marker = "c4d9aeff-aa00-4889-964f-5291ced97b5e"
    messages.check_not_expanded(_exchange(build_fault("Client", "DOCTYPE refused"), 500), [marker])
    for body in (f"<e>{marker}</e>".encode(), f"<e>{marker}</e>".encode("utf-16-le"), f"x{marker}".encode("utf-16-be")):
        with pytest.raises(Finding, match="expanded entity"):
            messages.check_not_expanded(_exchange(body, 500, "text/plain"), [marker])


# ------------------------------------------------------------------------------ headers
def test_header_entries_carry_exactly_their_attributes() -> None:
    mu = f"{{{SOAP11_ENV_NS}}}mustUnderstand"
    actor = f"{{{SOAP11_ENV_NS}}}actor"
    entry = probes.header_entry(must_understand="1", actor=probes.ACTOR_NEXT)
    assert entry.get(mu) == "1" and entry.get(actor) == probes.ACTOR_NEXT
    assert probes.describe_entry(entry) == f'a header entry with mustUnderstand="1" actor="{probes.ACTOR_NEXT}"'
    plain = probes.header_entry()
    assert plain.get(mu) is None and plain.get(actor) is None
    assert probes.describe_entry(plain) == "a header entry with no mustUnderstand and no actor"
    nested = probes.header_entry(nested_must_understand=True)
    assert nested.get(mu) is None and nested[0].get(mu) == "1"
    view = inspect_envelope(etree.fromstring(probes.with_header(sample_request(), entry)))
    assert not view.problems and view.header is not None and len(view.header) == 1
    assert not CONTRACT.schema_errors(view.body_children[0])


def test_must_understand_fault_both_ways() -> None:
    good = build_fault("MustUnderstand", "header entry {urn:x}Trace is not understood")
    messages.check_must_understand_fault(_exchange(good, 500))
    messages.check_must_understand_fault(_exchange(good.replace(b"MustUnderstand", b"MustUnderstand.Header", 1), 500))
    cases = [
        (_exchange(_response(), 200), "not refused"),
        (_exchange(good, 400), "HTTP 500"),
        (_exchange(build_fault("Client", "header not understood"), 500), "not MustUnderstand"),
        (_exchange(build_fault("MustUnderstand", "x", detail=("header Trace",)), 500), "detail"),
        (_exchange(good.replace(b"soapenv:MustUnderstand", b"x:MustUnderstand").replace(
            b"<faultcode>", b'<faultcode xmlns:x="urn:other">'), 500), "not MustUnderstand"),
        (_exchange(b"<html>error</html>", 500, "text/html"), "HTML"),
    ]
    for exchange, message in cases:
        with pytest.raises(Finding, match=message):
            messages.check_must_understand_fault(exchange)


def test_processed_like_the_unchanged_request_both_ways() -> None:
    control = _exchange(_response())
    messages.check_processed(_exchange(_response()), control, CONTRACT, what="the request with a header")
    with pytest.raises(Finding, match="the request with a header was not answered like the unchanged request"):
        messages.check_processed(_exchange(build_fault("Client", "no headers"), 500), control, CONTRACT,
                                 what="the request with a header")
    invalid = _response().replace(b"<gb:Reactie>", b"<gb:Reactie><gb:Extra/>")
    with pytest.raises(Finding, match="not schema-valid"):
        messages.check_processed(_exchange(invalid), control, CONTRACT, what="x")
    with pytest.raises(Finding, match="not a readable"):
        messages.check_processed(_exchange(b"<html>ok</html>", 200, "text/html"), control, CONTRACT, what="x")
    # Judged against the control: a response the service always gets wrong is the response
    # checks' finding, not this one's.
    messages.check_processed(_exchange(invalid), _exchange(invalid), CONTRACT, what="x")


# ------------------------------------------------------------------------------ envelope rules
@pytest.mark.parametrize(
    ("rule", "problems"),
    [
        ("after_body", {"WSI-BP11-R1011"}),
        ("encoding_style", {"WSI-BP11-R1005", "WSI-BP11-R1006"}),
        ("unqualified", {"WSI-BP11-R1014"}),
        ("processing_instruction", {"WSI-BP11-R1009"}),
        ("two_children", set()),  # legal SOAP 1.1; R9981 is judged on the count
    ],
)
def test_each_envelope_probe_breaks_its_rule_only(rule: str, problems: set[str]) -> None:
    found = probes.envelope_probes(sample_request())[rule]
    rules = set()
    for probe in found:
        view = inspect_envelope(etree.fromstring(probe.body))
        assert len({p.rule for p in view.problems}) <= 1, probe.variant
        rules |= {p.rule for p in view.problems}
        if rule == "two_children":
            assert len(view.body_children) == 2
    assert rules == problems


def test_not_an_envelope_probe_is_the_request_element_itself() -> None:
    (probe,) = probes.envelope_probes(sample_request())["not_an_envelope"]
    root = etree.fromstring(probe.body)
    assert root.tag == f"{{{TYPES_NS}}}GraafberichtServiceRequest" and not CONTRACT.schema_errors(root)


# ------------------------------------------------------------------------------ encoding
def test_utf16_envelope_is_the_same_message_in_utf16() -> None:
    data = probes.utf16_envelope(sample_request())
    assert data.startswith(codecs.BOM_UTF16_LE) and charset.declared_encoding(data) == "utf-16"
    assert etree.tostring(etree.fromstring(data)) == etree.tostring(etree.fromstring(build_envelope(sample_request())))


def test_charset_matches_body_both_ways() -> None:
    text = _response().decode("utf-8")
    charset.check_charset_matches_body(_exchange(text.encode("utf-8")))
    charset.check_charset_matches_body(_exchange(text.encode("utf-16"), content_type="text/xml; charset=utf-16"))
    charset.check_charset_matches_body(_exchange(text.encode("ascii"), content_type="text/xml"))  # us-ascii default
    cases = [
        (_exchange(text.encode("utf-8"), content_type="text/xml; charset=utf-16"), "byte order mark"),
        (_exchange(text.encode("utf-16"), content_type=UTF8), "not utf-8"),
        (_exchange(text.encode("utf-16-le"), content_type=UTF8), "NUL"),
        (_exchange("<e>é</e>".encode(), content_type="text/xml"), "not us-ascii"),
        (_exchange(b"\xef\xbb\xbfhello", content_type=UTF8), "markup"),
        (_exchange(text.encode("utf-8"), content_type="text/xml; charset=x-unknown"), "knows"),
    ]
    for exchange, message in cases:
        with pytest.raises(Finding, match=message):
            charset.check_charset_matches_body(exchange)


def test_declaration_agrees_both_ways() -> None:
    text = _response().decode("utf-8")
    charset.check_declaration_agrees(_exchange(text.encode("utf-8")))
    charset.check_declaration_agrees(_exchange(text.split("?>", 1)[1].encode()))  # no declaration: UTF-8
    utf16 = text.replace("encoding='UTF-8'", "encoding='UTF-16'").encode("utf-16")
    charset.check_declaration_agrees(_exchange(utf16, content_type="text/xml; charset=utf-16"))
    charset.check_declaration_agrees(_exchange(text.encode(), content_type="text/xml"))  # no charset: not this check's
    with pytest.raises(Finding, match="another encoding"):
        charset.check_declaration_agrees(_exchange(text.replace("UTF-8", "ISO-8859-1").encode()))
    with pytest.raises(Finding, match="another encoding"):
        charset.check_declaration_agrees(_exchange(utf16, content_type=UTF8))


def test_a_utf16_request_is_understood_or_refused_never_garbage() -> None:
    control = _exchange(_response())
    charset.check_understood(_exchange(_response()), control, CONTRACT)
    charset.check_understood(_exchange(build_fault("Client", "only UTF-8", detail=("x",)), 500), control, CONTRACT)
    garbage = [
        (_exchange(b"A server error occurred.", 500, "text/plain"), "not a SOAP Fault|text/xml"),
        (_exchange(_response().decode().replace("'UTF-8'", "'UTF-16'").encode("utf-16"), 200), "not utf-8"),
        (_exchange(b"", 400, "text/plain"), "neither a response nor a Fault"),
        (_exchange(build_fault("Client", "x"), 200), "not answered like the unchanged request"),
    ]
    for exchange, message in garbage:
        with pytest.raises(Finding, match=message):
            charset.check_understood(exchange, control, CONTRACT)


# ------------------------------------------------------------------------------ HTTP and Faults
def test_status_and_dot_notation_both_ways() -> None:
    messages.check_status(_exchange(build_fault("Client", "GET"), 405), 405, "no 405")
    with pytest.raises(Finding, match="no 405"):
        messages.check_status(_exchange(b"<html/>", 200, "text/html"), 405, "no 405")
    messages.check_fault_code_undotted(_exchange(build_fault("Client", "x", detail=("y",)), 500))
    with pytest.raises(Finding, match="dot notation"):
        messages.check_fault_code_undotted(_exchange(build_fault("Client.SchemaValidationError", "x"), 500))


class _Canned:
    """A service answering each POST with the next canned exchange."""

    def __init__(self, *answers: Exchange) -> None:
        self.url, self.soap_action_base, self.wsdl_path = URL, "urn:registry:graafbericht", SHIPPED_WSDL
        self.answers = list(answers)
        self.controls: dict[bytes, Exchange] = {}

    def post(self, body: bytes, headers: dict[str, str]) -> Exchange:
        return self.answers.pop(0)


def test_judge_each_names_every_failing_variant() -> None:
    fault = _exchange(build_fault("Client", "refused", detail=("x",)), 500)
    suite = SoapSuite.for_service(_Canned(fault, _exchange(_response()), _exchange(_response())))
    variants = [probes.Probe(f"variant {n}", b"<e/>") for n in (1, 2, 3)]
    with pytest.raises(Finding) as failed:
        suite.judge_each(variants, lambda exchange, _: messages.check_rejected(exchange))
    assert str(failed.value).startswith("2 of 3 variants failed")
    assert "variant 2" in str(failed.value) and "variant 3" in str(failed.value) and "variant 1:" not in str(failed.value)
