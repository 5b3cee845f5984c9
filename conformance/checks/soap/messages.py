"""Checks on recorded SOAP exchanges: pure functions of an Exchange that raise Finding.

Where a Fault says why (faultcode, faultstring), a Finding quotes it, so the failure line
shows the server's own reason. `control_refusal` judges the control of a negative check
(the unchanged, valid request): accepted, or refused with a stable description.

Server responses are untrusted: they are parsed only through the hardened parser (no DTD,
no entity expansion, no network, bounded size), so a hostile answer becomes a Finding in
bounded time and memory instead of being expanded.
"""

from __future__ import annotations

from collections.abc import Iterable

from lxml import etree

from conformance.findings import Finding, expect
from conformance.http.exchange import Exchange
from conformance.soap import SOAP11_ENV_NS
from conformance.soap.envelope import EnvelopeView, FaultView, inspect_envelope
from conformance.soap.loader import MAX_XML_BYTES, ServiceContract, XmlRefused, parse_untrusted
from conformance.soap.validate import content_type_parts

XML_CHARSETS = ("utf-8", "utf-16")


# The WS-I policy (README "SOAP message service"): the seed cites SOAP 1.1 only. A MUST check
# rests on a MUST of SOAP 1.1, XML 1.0, RFC 3023 or the seed, with the Basic Profile cited
# beside it; a rule only the Basic Profile states is SHOULD, with this reason
# (tests/test_wsi_policy.py holds every check to it).
WSI_ONLY = ("the seed cites SOAP 1.1, not the WS-I Basic Profile: a rule only the Basic Profile states is the public "
            "interoperability practice (SHOULD), not a requirement of the seed")


# ------------------------------------------------------------------------------ reading
def read_envelope(exchange: Exchange, *, max_bytes: int = MAX_XML_BYTES) -> EnvelopeView:
    """The response body as an envelope; a Finding when it cannot be read safely."""
    if exchange.truncated:
        raise Finding("the response body exceeds the recorded limit; refused", actual=exchange.summary())
    try:
        tree = parse_untrusted(exchange.body, max_bytes=max_bytes, what="the response body")
    except XmlRefused as exc:
        raise Finding(f"the response cannot be read safely: {exc.message}", actual=exchange.summary()) from None
    return inspect_envelope(tree.getroot())


def _soap11_view(exchange: Exchange) -> EnvelopeView:
    view = read_envelope(exchange)
    expect(
        view.version == "1.1",
        "the response is not a SOAP 1.1 envelope",
        expected=f"{{{SOAP11_ENV_NS}}}Envelope",
        actual=view.problems[0].message if view.problems else view.version,
    )
    return view


def _is_html(exchange: Exchange) -> bool:
    head = exchange.body[:512].lstrip().lower()
    return exchange.media_type in ("text/html", "application/xhtml+xml") or head.startswith((b"<!doctype html", b"<html"))


def _describe(exchange: Exchange) -> str:
    """The answer in one line, with the Fault's code and string when the body is one."""
    if _is_html(exchange):
        return f"{exchange.summary()} (an HTML page)"
    fault = _fault_or_none(exchange)
    if fault is not None:
        return f"{exchange.summary()} with Fault {fault.code}: {fault.string!r}"
    return exchange.summary()


def _fault_or_none(exchange: Exchange) -> FaultView | None:
    """The Fault in the body, if the body is a readable envelope holding one."""
    if not exchange.body or _is_html(exchange):
        return None
    try:
        return read_envelope(exchange).fault
    except Finding:
        return None  # whether the body is readable is judged by the envelope checks


def _fault_code(fault: FaultView) -> str:
    """The faultcode without its prefix (`Server`, `Client.Authentication`), as a cause says it."""
    if fault.code_qname and fault.code_qname.startswith(f"{{{SOAP11_ENV_NS}}}"):
        return fault.code_qname.split("}", 1)[1]
    return fault.code or "no faultcode"


# ------------------------------------------------------------------------------ controls
def control_refusal(exchange: Exchange) -> tuple[str, str] | None:
    """None when the control of a negative check was accepted: HTTP 200 and no Fault (the
    response's own format is judged by soap.response.*, not here). Otherwise (answer, said):
    `answer` is stable for every check the same refusal blocks ("HTTP 500 Server Fault",
    "HTTP 401 text/html"); `said` is the server's reason (its faultstring), or ""."""
    fault = _fault_or_none(exchange)
    if exchange.status == 200 and fault is None:
        return None
    if fault is not None:
        return f"HTTP {exchange.status} {_fault_code(fault)} Fault", fault.string or ""
    return f"HTTP {exchange.status} {exchange.media_type or 'without a media type'}", ""


# ------------------------------------------------------------------------------ valid requests
def check_status_ok(exchange: Exchange, *, cause: str | None = None) -> None:
    """HTTP 200 and no Fault for a schema-valid request. `cause` names the refusal as the
    checks it blocks name it (SoapSuite.refusal_cause), so the run lists it once."""
    expect(exchange.status == 200 and _fault_or_none(exchange) is None,
           "a schema-valid request was not answered with HTTP 200 and a response",
           expected="200 with GraafberichtServiceResponse", actual=_describe(exchange), cause=cause)


def check_content_type(exchange: Exchange) -> None:
    """SOAP 1.1 section 6: text/xml."""
    media, _ = content_type_parts(exchange.response_headers.get("content-type"))
    expect(media == "text/xml", "the response media type is not text/xml (SOAP 1.1 over HTTP)",
           expected="text/xml; charset=utf-8", actual=exchange.response_headers.get("content-type") or "none")


def check_utf8_or_utf16(exchange: Exchange) -> None:
    """WS-I Basic Profile R1012: the envelope is UTF-8 or UTF-16 (SOAP 1.1 and XML allow others)."""
    media, params = content_type_parts(exchange.response_headers.get("content-type"))
    if media != "text/xml":
        return  # check_content_type's finding
    charset = params.get("charset", "").lower()
    expect(charset in XML_CHARSETS, "the text/xml response names no utf-8 or utf-16 charset",
           expected="charset=utf-8", actual=exchange.response_headers.get("content-type"))


def check_envelope(exchange: Exchange) -> None:
    view = _soap11_view(exchange)
    expect(not view.problems, "the response envelope is malformed",
           actual="; ".join(f"{p.rule}: {p.message}" for p in view.problems))


def check_body_element(exchange: Exchange, expected_tag: str) -> None:
    view = _soap11_view(exchange)
    tags = [c.tag for c in view.body_children]
    expect(tags == [expected_tag], "the Body does not hold exactly the WSDL output element",
           expected=expected_tag, actual=", ".join(tags) or "an empty Body")


def check_schema_valid(exchange: Exchange, contract: ServiceContract) -> None:
    view = _soap11_view(exchange)
    expect(len(view.body_children) == 1, "the Body does not hold exactly one element",
           actual=len(view.body_children))
    errors = contract.schema_errors(view.body_children[0])
    expect(not errors, "the response element is not valid against the types schema",
           actual="; ".join(f"line {line}: {message}" for line, message in errors[:5]))


def check_refers_to_request(exchange: Exchange, request: etree._Element, pairs: Iterable[tuple[str, str]]) -> None:
    """Each (request path, response path) pair holds the same text. Paths are relative to
    the Body children and use the request element's namespace for every step."""
    view = _soap11_view(exchange)
    expect(len(view.body_children) == 1, "the Body does not hold exactly one element", actual=len(view.body_children))
    response = view.body_children[0]
    namespace = etree.QName(request).namespace or ""
    for request_path, response_path in pairs:
        wanted = request.findtext(_qualify(request_path, namespace))
        found = response.findtext(_qualify(response_path, namespace))
        expect(wanted is not None and found == wanted,
               f"the response's {response_path} does not repeat the request's {request_path}",
               expected=wanted, actual=found)


def _qualify(path: str, namespace: str) -> str:
    return "/".join(f"{{{namespace}}}{step}" for step in path.split("/"))


def check_no_dtd(exchange: Exchange) -> None:
    try:
        parse_untrusted(exchange.body, what="the response body")
    except XmlRefused as exc:
        expect(exc.reason != "doctype", "the response carries a DOCTYPE or entity declarations "
               "(refused, not expanded)", actual=exc.message)


# ------------------------------------------------------------------------------ faults
def read_fault(exchange: Exchange) -> FaultView:
    """The one Fault of a text/xml SOAP 1.1 envelope, or a Finding saying what came instead."""
    expect(not _is_html(exchange), "the error is an HTML page, not a SOAP Fault", actual=_describe(exchange))
    media, _params = content_type_parts(exchange.response_headers.get("content-type"))
    expect(media == "text/xml", "the Fault is not sent as text/xml", expected="text/xml; charset=utf-8",
           actual=exchange.response_headers.get("content-type") or "none")
    view = _soap11_view(exchange)
    expect(view.fault is not None and len(view.body_children) == 1, "the Body does not hold exactly one Fault",
           actual=", ".join(c.tag for c in view.body_children) or "an empty Body")
    assert view.fault is not None
    return view.fault


def check_fault_http_500(exchange: Exchange) -> None:
    expect(exchange.status == 500, "an error was not answered with HTTP 500 (a Fault travels with 500)",
           expected=500, actual=_describe(exchange))


def check_fault_envelope(exchange: Exchange) -> None:
    read_fault(exchange)


def check_fault_structure(exchange: Exchange, *, body_unprocessable: bool = True) -> None:
    fault = read_fault(exchange)
    expect(not fault.problems, "the Fault is malformed", actual="; ".join(f"{p.rule}: {p.message}" for p in fault.problems))
    expect(fault.soap_code == "Client", "a bad request is not answered with a Client fault",
           expected="soapenv:Client", actual=f"{fault.code}: {fault.string!r}")
    if body_unprocessable:
        expect(fault.has_detail, "the Fault has no detail although the Body could not be processed (SOAP 1.1 4.4)")


def check_rejected(exchange: Exchange, *, codes: tuple[str, ...] = ("Client",), allow_400: bool = False,
                   accepted_cause: str | None = None) -> None:
    """A bad request: never 200, a SOAP 1.1 Fault with HTTP 500 and one of `codes`
    (or, where `allow_400`, a 400 that is not an HTML page). `accepted_cause`: the cause its
    acceptance is stated under, when other checks share it."""
    expect(exchange.status != 200, "the bad request was accepted (HTTP 200)", actual=_describe(exchange),
           cause=accepted_cause)
    if allow_400 and exchange.status == 400:
        expect(not _is_html(exchange), "the 400 answer is an HTML page", actual=_describe(exchange))
        return
    expect(exchange.status == 500, "the bad request was not answered with a Fault and HTTP 500",
           expected=500, actual=_describe(exchange))
    fault = read_fault(exchange)
    expect(fault.code is not None and fault.string is not None and not fault.problems,
           "the Fault is malformed", actual="; ".join(p.message for p in fault.problems))
    expect(fault.soap_code in codes, "the Fault code does not match the error",
           expected=" or ".join(f"soapenv:{c}" for c in codes), actual=f"{fault.code}: {fault.string!r}")


def check_not_expanded(exchange: Exchange, markers: Iterable[str]) -> None:
    """None of `markers` (text only an expanded entity could put there) is in the answer's raw
    bytes, in UTF-8 or either UTF-16 byte order. Nothing is parsed: a hostile answer cannot hide it."""
    found = [m for m in markers if any(m.encode(codec) in exchange.body for codec in ("utf-8", "utf-16-le", "utf-16-be"))]
    expect(not found, "the answer holds text only an expanded entity can put there: the DOCTYPE was processed",
           actual=", ".join(found))


# ------------------------------------------------------------------------------ processing
def answer_kind(exchange: Exchange, contract: ServiceContract) -> str:
    """What an answer is, in the words two answers to the same request share: its status, and
    the Fault's code or the Body's element and whether the schema takes it ("HTTP 200
    {ns}GraafberichtServiceResponse, schema-valid"; "HTTP 500 Client Fault"; "HTTP 200, not
    readable")."""
    fault = _fault_or_none(exchange)
    if fault is not None:
        return f"HTTP {exchange.status} {_fault_code(fault)} Fault"
    try:
        view = _soap11_view(exchange)
    except Finding:
        return f"HTTP {exchange.status}, not a readable SOAP 1.1 envelope"
    if len(view.body_children) != 1:
        return f"HTTP {exchange.status} with {len(view.body_children)} Body children"
    valid = "schema-valid" if not contract.schema_errors(view.body_children[0]) else "not schema-valid"
    return f"HTTP {exchange.status} {view.body_children[0].tag}, {valid}"


def check_processed(exchange: Exchange, control: Exchange, contract: ServiceContract, *, what: str) -> None:
    """Answered like the unchanged request (the check's control, accepted): the same status and
    the same Body element, as valid against the schema as the control's. The response's own
    format is soap.response.*'s to judge, not this."""
    expected, actual = answer_kind(control, contract), answer_kind(exchange, contract)
    expect(actual == expected, f"{what} was not answered like the unchanged request",
           expected=expected, actual=f"{actual} ({_describe(exchange)})")


def check_must_understand_fault(exchange: Exchange) -> None:
    """HTTP 500 and a soapenv:MustUnderstand Fault without detail (SOAP 1.1 4.4: a detail is for
    errors of the Body, never of header entries)."""
    expect(exchange.status != 200, "a mandatory header entry the service cannot understand was not refused (HTTP 200)",
           expected="500 with soapenv:MustUnderstand", actual=_describe(exchange))
    expect(exchange.status == 500, "the mandatory header entry was not answered with a Fault and HTTP 500",
           expected=500, actual=_describe(exchange))
    fault = read_fault(exchange)
    expect(not fault.problems, "the Fault is malformed", actual="; ".join(p.message for p in fault.problems))
    expect(fault.soap_code == "MustUnderstand", "the Fault's code is not MustUnderstand in the SOAP 1.1 envelope namespace",
           expected="soapenv:MustUnderstand", actual=f"{fault.code}: {fault.string!r}")
    expect(not fault.has_detail, "the MustUnderstand Fault carries a detail, which SOAP 1.1 4.4 keeps for errors of the Body",
           actual=f"{fault.code}: {fault.string!r} with a detail")


def check_status(exchange: Exchange, status: int, message: str) -> None:
    expect(exchange.status == status, message, expected=status, actual=_describe(exchange))


def check_fault_code_undotted(exchange: Exchange) -> None:
    fault = read_fault(exchange)
    local = (fault.code or "").rpartition(":")[2]
    expect("." not in local, "the faultcode refines its code with SOAP 1.1's dot notation (BP R1031 advises against it)",
           expected=f"soapenv:{local.split('.', 1)[0]}", actual=fault.code)
