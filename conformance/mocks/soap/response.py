"""The mock's answer (message 5b) to a GraafberichtServiceRequest (message 5a).

The answer is deterministic for a request (same request, same answer apart from its
timestamp) and refers to it: Referentie carries the request's BerichtId and MeldingNummer.
The operator's reaction is derived from the excavation area: interest (Belang, status S03,
with an attachment reference) when the polygon's first point lies west of x = 150000,
otherwise no interest (GeenBelang, status S02).

Response faults (wrong namespace, missing element, hostile DOCTYPEs, padding) are applied
here, at the last moment, so the faithful path stays plain.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation

from lxml import etree

from conformance.mocks.faults import FaultSet
from conformance.soap import RESPONSE_ELEMENT, TYPES_NS
from conformance.soap.envelope import build_envelope

MOCK_OIN = "00000001003214345000"
_T = f"{{{TYPES_NS}}}"
_MARKER = "@@HOSTILE-ENTITY@@"
OVERSIZE_PADDING = 2_200_000  # above conformance.soap.loader.MAX_XML_BYTES

EXTERNAL_ENTITY_DTD = (
    '<!DOCTYPE soapenv:Envelope [\n  <!ENTITY ext SYSTEM "file:///etc/hostname">\n]>\n'
)
ENTITY_BOMB_DTD = (
    "<!DOCTYPE soapenv:Envelope [\n"
    '  <!ENTITY lol "lol">\n'
    + "".join(
        f'  <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n' for i in range(1, 10)
    )
    + "]>\n"
)


def _text(request: etree._Element, path: str, fallback: str) -> str:
    found = request.findtext(_qualified(path))
    return found.strip() if found and found.strip() else fallback


def _qualified(path: str) -> str:
    return "/".join(f"{_T}{step}" for step in path.split("/"))


def build_response(request: etree._Element, faults: FaultSet) -> etree._Element:
    """A GraafberichtServiceResponse for `request` (the request's Body child)."""
    request_id = _text(request, "BerichtKop/BerichtId", "00000000-0000-0000-0000-000000000000")
    melding = _text(request, "Graafmelding/MeldingNummer", "00G000000")
    first_x = _decimal(_text(request, "Graafmelding/Graafgebied/Polygoon/Coordinaat/X", "0"))
    digest = hashlib.sha256(request_id.encode()).hexdigest()

    response = etree.Element(f"{_T}{RESPONSE_ELEMENT}", nsmap={"gb": TYPES_NS}, versie="1.2")
    kop = etree.SubElement(response, f"{_T}BerichtKop")
    etree.SubElement(kop, f"{_T}BerichtId").text = str(uuid.uuid5(uuid.NAMESPACE_URL, f"graafbericht:{request_id}"))
    etree.SubElement(kop, f"{_T}Tijdstip").text = datetime.now(UTC).replace(microsecond=0).isoformat()
    etree.SubElement(kop, f"{_T}Afzender").text = MOCK_OIN
    referentie = etree.SubElement(response, f"{_T}Referentie")
    # The fault answers with another, well-formed, message id: schema-valid but unrelated.
    referred = str(uuid.uuid5(uuid.NAMESPACE_URL, "another message")) if faults.on("soap.response_reference_wrong") else request_id
    etree.SubElement(referentie, f"{_T}BerichtId").text = referred
    etree.SubElement(referentie, f"{_T}MeldingNummer").text = melding
    interest = first_x < Decimal(150000)
    if not faults.on("soap.schema_invalid_response"):
        reactie = etree.SubElement(response, f"{_T}Reactie")
        etree.SubElement(reactie, f"{_T}Belang").text = "Belang" if interest else "GeenBelang"
        etree.SubElement(reactie, f"{_T}StatusCode").text = "S03" if interest else "S02"
        toelichting = etree.SubElement(reactie, f"{_T}Toelichting")
        toelichting.text = "Gebiedsinformatie volgt als bijlage." if interest else "Geen belang in het graafgebied."
    if interest:
        bijlage = etree.SubElement(etree.SubElement(response, f"{_T}Bijlagen"), f"{_T}Bijlage")
        etree.SubElement(bijlage, f"{_T}BijlageId").text = f"GBI-{int(digest[:8], 16) % 10**8:08d}"
        etree.SubElement(bijlage, f"{_T}Bestandsnaam").text = f"{melding}-gebiedsinformatie.pdf"
        etree.SubElement(bijlage, f"{_T}MimeType").text = "application/pdf"
        etree.SubElement(bijlage, f"{_T}OmvangBytes").text = str(1 + int(digest[8:16], 16) % 20_000_000)
    if faults.on("soap.response_wrong_namespace"):
        response.tag = f"{{{TYPES_NS.replace('20080722', '20080723')}}}{RESPONSE_ELEMENT}"
    return response


def serialize_response(response: etree._Element, faults: FaultSet) -> bytes:
    hostile = faults.on("soap.response_with_external_entity") or faults.on("soap.response_with_entity_bomb")
    if hostile:
        target = response.find(f"{_T}Reactie/{_T}Toelichting")
        if target is None:
            target = response.find(f"{_T}Referentie/{_T}MeldingNummer")
        if target is not None:
            target.text = _MARKER
    data = build_envelope(response)
    if hostile:
        external = faults.on("soap.response_with_external_entity")
        dtd = EXTERNAL_ENTITY_DTD if external else ENTITY_BOMB_DTD
        declaration, _, rest = data.partition(b"?>")
        data = declaration + b"?>\n" + dtd.encode() + rest.lstrip()
        data = data.replace(_MARKER.encode(), b"&ext;" if external else b"&lol9;")
    if faults.on("soap.oversized_response"):
        # A comment is legal after the root element; only the size is hostile.
        data += b"\n<!-- " + b"padding " * (OVERSIZE_PADDING // 8) + b"-->\n"
    return data


def _decimal(text: str) -> Decimal:
    try:
        return Decimal(text)
    except (InvalidOperation, ValueError):
        return Decimal(0)
