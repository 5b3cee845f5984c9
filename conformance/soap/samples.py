"""A hand-written, schema-valid request of the shipped types schema: for docs, demos and tests."""

from __future__ import annotations

from lxml import etree

from conformance.soap import TYPES_NS

_REQUEST = """<gb:GraafberichtServiceRequest xmlns:gb="{ns}" versie="1.2">
  <gb:BerichtKop>
    <gb:BerichtId>{bericht_id}</gb:BerichtId>
    <gb:Tijdstip>2024-03-01T10:00:00Z</gb:Tijdstip>
    <gb:Afzender>00000001003214345000</gb:Afzender>
  </gb:BerichtKop>
  <gb:Graafmelding>
    <gb:MeldingNummer>{melding}</gb:MeldingNummer>
    <gb:MeldingSoort>Graafmelding</gb:MeldingSoort>
    <gb:Netbeheerder><gb:Code>NETB01</gb:Code><gb:Naam>Netbeheer Voorbeeld</gb:Naam></gb:Netbeheerder>
    <gb:Graafgebied><gb:Polygoon srsName="EPSG:28992">
      <gb:Coordinaat><gb:X>{x}</gb:X><gb:Y>463000</gb:Y></gb:Coordinaat>
      <gb:Coordinaat><gb:X>{x}</gb:X><gb:Y>463010</gb:Y></gb:Coordinaat>
      <gb:Coordinaat><gb:X>155010</gb:X><gb:Y>463010</gb:Y></gb:Coordinaat>
      <gb:Coordinaat><gb:X>{x}</gb:X><gb:Y>463000</gb:Y></gb:Coordinaat>
    </gb:Polygoon></gb:Graafgebied>
    <gb:Werkperiode><gb:Begindatum>2024-04-01</gb:Begindatum><gb:Einddatum>2024-04-05</gb:Einddatum></gb:Werkperiode>
    <gb:Werkzaamheden><gb:SoortWerk>Aanleg</gb:SoortWerk></gb:Werkzaamheden>
    <gb:Contact><gb:Naam>J. Jansen</gb:Naam><gb:Telefoon>0612345678</gb:Telefoon></gb:Contact>
  </gb:Graafmelding>
</gb:GraafberichtServiceRequest>"""


def sample_request(
    *, melding: str = "24G000123", x: str = "155000", bericht_id: str = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
) -> etree._Element:
    """A GraafberichtServiceRequest (message 5a); `x` moves the polygon east or west."""
    return etree.fromstring(_REQUEST.format(ns=TYPES_NS, melding=melding, x=x, bericht_id=bericht_id))
