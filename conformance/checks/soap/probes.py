"""Requests that break one processing rule of SOAP 1.1 or WS-I Basic Profile 1.1.

Each builder takes the schema-valid request element a check drew (the Body child of its
control, which is sent unchanged too: a request of the run's valid batch) and returns
`Probe`s: the bytes of an envelope that differs from the control only in what `variant`
names. The drawn element is never changed.

DOCTYPE probes carry a `marker`: text that can appear in an answer only when the server
expanded an entity. It is a fresh UUID (a valid BerichtId) split over two entities
(`&rca;&rcb;`), so no part of the request holds it whole: a server that echoes the raw
request or its DOCTYPE does not produce it, one that expands the entities does.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from conformance.soap import SOAP11_ENV_NS
from conformance.soap.envelope import build_envelope

PROBE_NS = "urn:registry-conformance:probe"
ACTOR_NEXT = "http://schemas.xmlsoap.org/soap/actor/next"  # SOAP 1.1 4.2.2: the first SOAP application
OTHER_ACTOR = "urn:registry-conformance:actor:another-node"  # a node that is not the service
SOAP_ENCODING = "http://schemas.xmlsoap.org/soap/encoding/"
XXE_TARGET = "file:///etc/passwd"
# Text that would show that the external file entity was read into an answer.
LEAK_MARKERS = ("root:x:0:0", ":/bin/sh", ":/usr/sbin/nologin")
# Where an entity reference goes: a field the service echoes in its answer (5b refers to 5a),
# so an expansion shows even in a normal response.
ECHOED_FIELD = "BerichtKop/BerichtId"
_ENV = f"{{{SOAP11_ENV_NS}}}"
_PLACEHOLDER = "RC-ENTITY-PLACEHOLDER"


@dataclass(frozen=True)
class Probe:
    variant: str  # what differs from the control, in the spec's words
    body: bytes
    # Text an answer holds only when the server expanded an entity (None: nothing to look for).
    markers: tuple[str, ...] = ()
    # How its headers differ from the control's: options of SoapSuite.headers (action,
    # content_type); none: the same headers.
    header_options: Mapping[str, Any] = field(default_factory=dict, hash=False)


# ------------------------------------------------------------------------------ DOCTYPE
def doctype_probes(element: etree._Element) -> list[Probe]:
    """Every kind of DOCTYPE (SOAP 1.1 3, BP R1008): none of them may be processed."""
    internal = _marker()
    parameter = _marker()
    return [
        _with_doctype(element, "a DOCTYPE without declarations", "<!DOCTYPE soapenv:Envelope>"),
        _with_doctype(element, "a DOCTYPE naming an external DTD", '<!DOCTYPE soapenv:Envelope SYSTEM "rc-probe.dtd">'),
        _with_doctype(
            element, "a DOCTYPE whose internal subset declares two general entities",
            f'<!DOCTYPE soapenv:Envelope [<!ENTITY rca "{internal[:18]}"><!ENTITY rcb "{internal[18:]}">]>',
            "&rca;&rcb;", internal,
        ),
        _with_doctype(
            element, "a DOCTYPE declaring an entity through a parameter entity",
            f"<!DOCTYPE soapenv:Envelope [<!ENTITY % rcp \"<!ENTITY rcb '{parameter[18:]}'>\"> %rcp; "
            f'<!ENTITY rca "{parameter[:18]}">]>',
            "&rca;&rcb;", parameter,
        ),
        _with_doctype(
            element, f"a DOCTYPE declaring an external entity ({XXE_TARGET})",
            f'<!DOCTYPE soapenv:Envelope [<!ENTITY rcx SYSTEM "{XXE_TARGET}">]>',
            "&rcx;", *LEAK_MARKERS, field="Graafmelding/Contact/Naam", keep_text=True,
        ),
    ]


def _marker() -> str:
    return str(uuid.uuid4())  # 36 characters; a valid BerichtId


def _with_doctype(element: etree._Element, variant: str, doctype: str, reference: str = "", *markers: str,
                  field: str = ECHOED_FIELD, keep_text: bool = False) -> Probe:
    element = deepcopy(element)
    if reference:
        target = _field(element, field)
        if target is None:  # not the shipped schema: the first leaf with text
            target = next((e for e in element.iter() if isinstance(e.tag, str) and len(e) == 0 and e.text), element)
        target.text = ((target.text or "") + " " if keep_text else "") + _PLACEHOLDER
    data = build_envelope(element)
    declaration, _, rest = data.partition(b"?>")
    body = declaration + b"?>\n" + doctype.encode() + b"\n" + rest.lstrip()
    return Probe(variant, body.replace(_PLACEHOLDER.encode(), reference.encode()), tuple(markers))


def _field(element: etree._Element, path: str) -> etree._Element | None:
    namespace = etree.QName(element).namespace or ""
    return element.find("/".join(f"{{{namespace}}}{step}" for step in path.split("/")))


# ------------------------------------------------------------------------------ headers
def header_entry(*, must_understand: str | None = None, actor: str | None = None,
                 nested_must_understand: bool = False) -> etree._Element:
    """A header entry in the probe namespace that no service understands (SOAP 1.1 4.2)."""
    entry = etree.Element(f"{{{PROBE_NS}}}Trace", nsmap={"rc": PROBE_NS, "soapenv": SOAP11_ENV_NS})
    if must_understand is not None:
        entry.set(f"{_ENV}mustUnderstand", must_understand)
    if actor is not None:
        entry.set(f"{_ENV}actor", actor)
    hop = etree.SubElement(entry, f"{{{PROBE_NS}}}Hop")
    hop.text = "registry-conformance"
    if nested_must_understand:  # SOAP 1.1 4.2.1: only on an immediate child of Header does it count
        hop.set(f"{_ENV}mustUnderstand", "1")
    return entry


def with_header(element: etree._Element, entry: etree._Element) -> bytes:
    return build_envelope(element, header_children=[entry])


def describe_entry(entry: etree._Element) -> str:
    """The header entry's SOAP attributes as written: 'mustUnderstand="1" actor="…next"'."""
    parts = [f'{name}="{entry.get(_ENV + name)}"' for name in ("mustUnderstand", "actor") if entry.get(_ENV + name)]
    return "a header entry with " + (" ".join(parts) or "no mustUnderstand and no actor")


# ------------------------------------------------------------------------------ the envelope
def envelope_probes(element: etree._Element) -> dict[str, list[Probe]]:
    """Envelopes a document/literal service refuses, by the rule they break."""
    return {
        "after_body": [Probe("an element after soap:Body (BP R1011)", _after_body(element))],
        "two_children": [Probe("two children in soap:Body (BP R9981)", build_envelope([element, element]))],
        "encoding_style": [
            Probe(f"soap:encodingStyle on soap:{where} (BP R{rule})", _encoding_style(element, where))
            for where, rule in (("Envelope", 1005), ("Body", 1005), ("Body child", 1006))
        ],
        "unqualified": [Probe("a soap:Body child without a namespace (BP R1014)", _unqualified(element))],
        "processing_instruction": [
            Probe("a processing instruction in soap:Body (SOAP 1.1 3, BP R1009)", _processing_instruction(element))
        ],
        "not_an_envelope": [Probe("the request element as the document element, no soap:Envelope (BP R1015)",
                                  etree.tostring(element, xml_declaration=True, encoding="UTF-8"))],
    }


def _parse_envelope(element: etree._Element | Sequence[etree._Element]) -> etree._Element:
    return etree.fromstring(build_envelope(element))


def _serialize(envelope: etree._Element) -> bytes:
    return etree.tostring(envelope, xml_declaration=True, encoding="UTF-8")


def _after_body(element: etree._Element) -> bytes:
    envelope = _parse_envelope(element)
    etree.SubElement(envelope, f"{{{PROBE_NS}}}Trailer", nsmap={"rc": PROBE_NS}).text = "after the Body"
    return _serialize(envelope)


def _encoding_style(element: etree._Element, where: str) -> bytes:
    envelope = _parse_envelope(element)
    body = envelope.find(f"{_ENV}Body")
    assert body is not None
    target = {"Envelope": envelope, "Body": body, "Body child": body[0]}[where]
    target.set(f"{_ENV}encodingStyle", SOAP_ENCODING)
    return _serialize(envelope)


def _unqualified(element: etree._Element) -> bytes:
    envelope = _parse_envelope(element)
    body = envelope.find(f"{_ENV}Body")
    assert body is not None
    body[0].tag = etree.QName(body[0]).localname  # its descendants keep their namespace
    return _serialize(envelope)


def _processing_instruction(element: etree._Element) -> bytes:
    envelope = _parse_envelope(element)
    body = envelope.find(f"{_ENV}Body")
    assert body is not None
    body.insert(0, etree.ProcessingInstruction("registry-conformance", "probe"))
    return _serialize(envelope)


# ------------------------------------------------------------------------------ encoding
def utf16_envelope(element: etree._Element) -> bytes:
    """The envelope of `element` serialized as UTF-16 with a byte order mark (BP R1012 allows
    UTF-8 and UTF-16; XML 1.0 4.3.3: UTF-16 begins with the BOM), declared UTF-16."""
    text = build_envelope(element).decode("utf-8").replace("encoding='UTF-8'", "encoding='UTF-16'", 1)
    return text.encode("utf-16")  # Python's utf-16 codec writes the BOM
