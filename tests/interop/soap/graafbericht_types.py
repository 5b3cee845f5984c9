"""The message service's types (graafbericht-1.2.xsd), declared with spyne's own type system.

Written by hand from conformance/soap/wsdl/graafbericht-1.2.xsd, not generated from it and not
taken from the project's mock: this peer is an independent reading of the schema. Every
element the XSD requires is `min_occurs=1, nillable=False` (spyne's defaults are 0 and true);
a `fixed` attribute becomes a one-value enumeration (spyne has no `fixed`).
"""

from __future__ import annotations

from spyne import ComplexModel, Date, DateTime, Decimal, Integer32, Unicode, XmlAttribute

TYPES_NS = "http://www.registry.example/graafbericht/20080722"


def required(model, **options):
    return model.customize(min_occurs=1, nillable=False, **options)


def optional(model, **options):
    return model.customize(min_occurs=0, nillable=False, **options)


def text(**facets):
    return Unicode(**facets)


# ------------------------------------------------------------------------ simple types
BerichtId = text(pattern="[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
Oin = text(pattern="[0-9]{20}")
MeldingNummer = text(pattern="[0-9]{2}G[0-9]{6}")
MeldingSoort = text(values=["Graafmelding", "Calamiteitenmelding", "Orientatieverzoek"])
NetbeheerderCode = text(pattern="[A-Z][A-Z0-9]{2,9}")
Naam = text(min_len=1, max_len=100)
Omschrijving = text(min_len=1, max_len=255)
RdX = Decimal(ge=-7000, le=300000, fraction_digits=3)
RdY = Decimal(ge=289000, le=629000, fraction_digits=3)
SoortWerk = text(values=["Aanleg", "Onderhoud", "Reparatie", "Verwijdering", "Sondering", "Overig"])
GraafdiepteCm = Integer32(ge=1, le=2000)
Telefoon = text(pattern=r"(\+31|0)[1-9][0-9]{8}")
Email = text(max_len=254, pattern=r"[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9\-]{1,63}(\.[A-Za-z0-9\-]{1,63})*\.[a-z]{2,10}")
KvkNummer = text(pattern="[0-9]{8}")
Belang = text(values=["Belang", "GeenBelang"])
StatusCode = text(values=["S01", "S02", "S03", "F01", "F02"])
BijlageId = text(pattern="[A-Z]{3}-[0-9]{8}")
Bestandsnaam = text(pattern=r"[A-Za-z0-9_\-]{1,60}\.(pdf|png|zip|xml)")
MimeType = text(values=["application/pdf", "image/png", "application/zip", "application/xml"])
Omvang = Integer32(ge=1, le=20000000)
Versie = XmlAttribute(Unicode(values=["1.2"], min_occurs=1), use="required")


class _Graafbericht(ComplexModel):
    __namespace__ = TYPES_NS


# ------------------------------------------------------------------------ request (5a)
class BerichtKopType(_Graafbericht):
    _type_info = [
        ("BerichtId", required(BerichtId)),
        ("Tijdstip", required(DateTime)),
        ("Afzender", required(Oin)),
    ]


class NetbeheerderType(_Graafbericht):
    _type_info = [
        ("Code", required(NetbeheerderCode)),
        ("Naam", required(Naam)),
        ("Oin", optional(Oin)),
    ]


class CoordinaatType(_Graafbericht):
    _type_info = [("X", required(RdX)), ("Y", required(RdY))]


class PolygoonType(_Graafbericht):
    _type_info = [
        ("Coordinaat", required(CoordinaatType, max_occurs=100).customize(min_occurs=4)),
        ("srsName", XmlAttribute(Unicode(values=["EPSG:28992"], min_occurs=1), use="required")),
    ]


class GraafgebiedType(_Graafbericht):
    _type_info = [("Polygoon", required(PolygoonType))]


class WerkperiodeType(_Graafbericht):
    _type_info = [("Begindatum", required(Date)), ("Einddatum", required(Date))]


class WerkzaamhedenType(_Graafbericht):
    _type_info = [
        ("SoortWerk", required(SoortWerk, max_occurs=5)),
        ("Omschrijving", optional(Omschrijving)),
        ("GraafdiepteCm", optional(GraafdiepteCm)),
    ]


class ContactType(_Graafbericht):
    _type_info = [
        ("Naam", required(Naam)),
        ("Telefoon", required(Telefoon)),
        ("Email", optional(Email)),
        ("Organisatie", optional(Naam)),
        ("KvkNummer", optional(KvkNummer)),
    ]


class GraafmeldingType(_Graafbericht):
    _type_info = [
        ("MeldingNummer", required(MeldingNummer)),
        ("MeldingSoort", required(MeldingSoort)),
        ("Netbeheerder", required(NetbeheerderType)),
        ("Graafgebied", required(GraafgebiedType)),
        ("Werkperiode", required(WerkperiodeType)),
        ("Werkzaamheden", required(WerkzaamhedenType)),
        ("Contact", required(ContactType)),
    ]


class GraafberichtServiceRequestType(_Graafbericht):
    _type_info = [
        ("BerichtKop", required(BerichtKopType)),
        ("Graafmelding", required(GraafmeldingType)),
        ("versie", Versie),
    ]


# ------------------------------------------------------------------------ response (5b)
class ReferentieType(_Graafbericht):
    _type_info = [("BerichtId", required(BerichtId)), ("MeldingNummer", required(MeldingNummer))]


class ReactieType(_Graafbericht):
    _type_info = [
        ("Belang", required(Belang)),
        ("StatusCode", required(StatusCode)),
        ("Toelichting", optional(Omschrijving)),
    ]


class BijlageType(_Graafbericht):
    _type_info = [
        ("BijlageId", required(BijlageId)),
        ("Bestandsnaam", required(Bestandsnaam)),
        ("MimeType", required(MimeType)),
        ("OmvangBytes", required(Omvang)),
    ]


class BijlagenType(_Graafbericht):
    _type_info = [("Bijlage", required(BijlageType, max_occurs=10))]


class GraafberichtServiceResponseType(_Graafbericht):
    _type_info = [
        ("BerichtKop", required(BerichtKopType)),
        ("Referentie", required(ReferentieType)),
        ("Reactie", required(ReactieType)),
        ("Bijlagen", optional(BijlagenType)),
        ("versie", Versie),
    ]
