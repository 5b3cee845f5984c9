"""SOAP 1.1 envelopes and Faults: building them, and reading their structure.

`inspect_envelope` reports what is wrong with a parsed envelope as `Problem`s, each with
the requirement it breaks (SOAP 1.1 sections, WS-I Basic Profile 1.1 rules), so the same
reading serves the validate command, the mock server and the suite's checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from copy import deepcopy
from dataclasses import dataclass, field

from lxml import etree

from conformance.soap import SOAP11_ENV_NS, SOAP12_ENV_NS

SOAP11_FAULT_CODES = ("VersionMismatch", "MustUnderstand", "Client", "Server")
FAULT_CHILDREN = ("faultcode", "faultstring", "faultactor", "detail")
# The mock's own namespace for fault detail entries (SOAP 1.1 4.4: detail entries are
# application elements; BP wants them qualified like any other body content).
DETAIL_NS = "urn:registry-conformance:soap-mock:fault-detail"

_ENV = f"{{{SOAP11_ENV_NS}}}"
_ENCODING_STYLE = f"{_ENV}encodingStyle"


@dataclass(frozen=True)
class Problem:
    rule: str  # requirement id: SOAP11-<section> or WSI-BP11-R<nnnn>
    message: str
    line: int | None = None


@dataclass(frozen=True)
class FaultView:
    code: str | None  # the faultcode text as written
    code_qname: str | None  # resolved to Clark notation; None when unresolvable
    string: str | None
    actor: str | None
    has_detail: bool
    problems: tuple[Problem, ...] = ()

    @property
    def soap_code(self) -> str | None:
        """`Client` for soapenv:Client (and soapenv:Client.Authentication); None when the
        code is not in the SOAP 1.1 namespace."""
        if self.code_qname and self.code_qname.startswith(_ENV):
            return self.code_qname[len(_ENV) :].split(".", 1)[0]
        return None


@dataclass(frozen=True)
class EnvelopeView:
    version: str | None  # "1.1", "1.2" or None (not an envelope)
    header: etree._Element | None
    body: etree._Element | None
    body_children: tuple[etree._Element, ...]
    fault: FaultView | None
    problems: tuple[Problem, ...] = field(default_factory=tuple)

    @property
    def is_fault(self) -> bool:
        return self.fault is not None


# ------------------------------------------------------------------------------ building
def build_envelope(
    body_children: etree._Element | Sequence[etree._Element] = (),
    *,
    header_children: Iterable[etree._Element] = (),
    soap_namespace: str = SOAP11_ENV_NS,
) -> bytes:
    """An envelope around copies of the given elements, as UTF-8 bytes with a declaration."""
    envelope = etree.Element(f"{{{soap_namespace}}}Envelope", nsmap={"soapenv": soap_namespace})
    headers = list(header_children)
    if headers:
        header = etree.SubElement(envelope, f"{{{soap_namespace}}}Header")
        header.extend(_copy(h) for h in headers)
    body = etree.SubElement(envelope, f"{{{soap_namespace}}}Body")
    children = [body_children] if isinstance(body_children, etree._Element) else list(body_children)
    body.extend(_copy(c) for c in children)
    return etree.tostring(envelope, xml_declaration=True, encoding="UTF-8")


def build_fault(code: str, message: str, *, detail: Sequence[str] = (), actor: str | None = None) -> bytes:
    """A SOAP 1.1 Fault envelope. `code` is a SOAP 1.1 code (`Client`, `Server`, ...);
    `detail` entries are only given when the Body could not be processed (SOAP 1.1 4.4)."""
    envelope = etree.Element(f"{_ENV}Envelope", nsmap={"soapenv": SOAP11_ENV_NS})
    fault = etree.SubElement(etree.SubElement(envelope, f"{_ENV}Body"), f"{_ENV}Fault")
    etree.SubElement(fault, "faultcode").text = f"soapenv:{code}"
    etree.SubElement(fault, "faultstring").text = message
    if actor:
        etree.SubElement(fault, "faultactor").text = actor
    if detail:
        holder = etree.SubElement(fault, "detail")
        for entry in detail:
            etree.SubElement(holder, f"{{{DETAIL_NS}}}problem", nsmap={"d": DETAIL_NS}).text = entry
    return etree.tostring(envelope, xml_declaration=True, encoding="UTF-8")


def _copy(element: etree._Element) -> etree._Element:
    return deepcopy(element)


# ------------------------------------------------------------------------------ reading
def envelope_version(root: etree._Element) -> str | None:
    if not isinstance(root.tag, str) or etree.QName(root).localname != "Envelope":
        return None
    return {SOAP11_ENV_NS: "1.1", SOAP12_ENV_NS: "1.2"}.get(etree.QName(root).namespace or "")


def inspect_envelope(root: etree._Element) -> EnvelopeView:
    """Read a parsed document as a SOAP 1.1 envelope and list every structural problem."""
    version = envelope_version(root)
    if version != "1.1":
        what = "a SOAP 1.2 envelope" if version == "1.2" else f"root element {root.tag}"
        problem = Problem(
            "SOAP11-4.1.2" if version else "SOAP11-4.1.1",
            f"expected a SOAP 1.1 Envelope ({SOAP11_ENV_NS}), found {what}",
            root.sourceline,
        )
        return EnvelopeView(version, None, None, (), None, (problem,))
    problems: list[Problem] = []
    problems += _processing_instructions(root)
    header, body = _header_and_body(root, problems)
    children: tuple[etree._Element, ...] = ()
    fault: FaultView | None = None
    if body is not None:
        _no_text(body, problems)
        children = tuple(c for c in body if isinstance(c.tag, str))
        for child in children:
            if not etree.QName(child).namespace:
                problems.append(Problem("WSI-BP11-R1014", f"body child {child.tag} is not namespace-qualified", child.sourceline))
            if child.get(_ENCODING_STYLE) is not None:
                problems.append(Problem("WSI-BP11-R1006", "soap:encodingStyle on a child of soap:Body", child.sourceline))
        faults = [c for c in children if c.tag == f"{_ENV}Fault"]
        if faults:
            if len(children) > 1:
                problems.append(Problem("SOAP11-4.4", "a Fault must be the only entry of the Body", faults[0].sourceline))
            fault = read_fault(faults[0])
    if header is not None:
        for entry in header:
            if isinstance(entry.tag, str) and not etree.QName(entry).namespace:
                problems.append(Problem("SOAP11-4.2", f"header entry {entry.tag} is not namespace-qualified", entry.sourceline))
    for element in (root, header, body):
        if element is not None and element.get(_ENCODING_STYLE) is not None:
            problems.append(Problem("WSI-BP11-R1005", f"soap:encodingStyle on {etree.QName(element).localname}", element.sourceline))
    return EnvelopeView("1.1", header, body, children, fault, tuple(problems))


def _header_and_body(root: etree._Element, problems: list[Problem]) -> tuple[etree._Element | None, etree._Element | None]:
    _no_text(root, problems)
    elements = [c for c in root if isinstance(c.tag, str)]
    header = body = None
    for index, child in enumerate(elements):
        if child.tag == f"{_ENV}Header" and index == 0:
            header = child
        elif child.tag == f"{_ENV}Body" and body is None:
            body = child
        elif body is not None:
            problems.append(Problem("WSI-BP11-R1011", f"element {child.tag} after soap:Body", child.sourceline))
        else:
            problems.append(Problem("SOAP11-4.1.1", f"unexpected element {child.tag} before soap:Body", child.sourceline))
    if body is None:
        problems.append(Problem("SOAP11-4.3", "the envelope has no soap:Body", root.sourceline))
    return header, body


def _no_text(element: etree._Element, problems: list[Problem]) -> None:
    texts = [element.text] + [c.tail for c in element]
    if any(t and t.strip() for t in texts):
        problems.append(Problem("SOAP11-4.1.1", f"character content directly in {etree.QName(element).localname}", element.sourceline))


def _processing_instructions(root: etree._Element) -> list[Problem]:
    nodes = list(root.itersiblings(preceding=True)) + list(root.itersiblings()) + list(root.iter())
    return [
        Problem("WSI-BP11-R1009", f"processing instruction <?{pi.target}?> in the envelope", pi.sourceline)
        for pi in nodes
        if isinstance(pi, etree._ProcessingInstruction)
    ]


def read_fault(fault: etree._Element) -> FaultView:
    problems: list[Problem] = []
    found: dict[str, etree._Element] = {}
    for child in fault:
        if not isinstance(child.tag, str):
            continue
        qname = etree.QName(child)
        if qname.namespace:
            problems.append(Problem("WSI-BP11-R1001", f"Fault child {child.tag} is namespace-qualified", child.sourceline))
        if qname.localname not in FAULT_CHILDREN:
            problems.append(Problem("WSI-BP11-R1000", f"unexpected Fault child {qname.localname}", child.sourceline))
        elif qname.localname in found:
            problems.append(Problem("SOAP11-4.4", f"{qname.localname} appears twice", child.sourceline))
        else:
            found[qname.localname] = child
    code_el, string_el = found.get("faultcode"), found.get("faultstring")
    code = (code_el.text or "").strip() if code_el is not None else None
    code_qname = _resolve(code_el, code) if code_el is not None and code else None
    if code_el is None or not code:
        problems.append(Problem("SOAP11-4.4", "the Fault has no faultcode", fault.sourceline))
    elif code_qname is None:
        problems.append(Problem("SOAP11-4.4.1", f"faultcode {code!r} is not a QName with a bound prefix", code_el.sourceline))
    elif code_qname.startswith(_ENV) and code_qname[len(_ENV) :].split(".", 1)[0] not in SOAP11_FAULT_CODES:
        problems.append(Problem("SOAP11-4.4.1", f"faultcode {code!r} is not a SOAP 1.1 fault code", code_el.sourceline))
    string = string_el.text if string_el is not None else None
    if string_el is None or not (string or "").strip():
        problems.append(Problem("SOAP11-4.4", "the Fault has no (or an empty) faultstring", fault.sourceline))
    actor_el = found.get("faultactor")
    return FaultView(
        code=code,
        code_qname=code_qname,
        string=string,
        actor=actor_el.text if actor_el is not None else None,
        has_detail="detail" in found,
        problems=tuple(problems),
    )


def _resolve(element: etree._Element, value: str) -> str | None:
    prefix, sep, local = value.partition(":")
    if not sep or not prefix or not local:
        return None
    namespace = element.nsmap.get(prefix)
    return f"{{{namespace}}}{local}" if namespace else None
