"""Generated valid messages validate (lxml and xmlschema agree); generated invalid ones do not."""

from __future__ import annotations

from pathlib import Path

import pytest
import xmlschema
import zeep
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from conformance.soap import OPERATION, SHIPPED_XSD, SOAP11_ENV_NS, TYPES_NS
from conformance.soap.loader import ServiceContract, load_contract, zeep_settings
from conformance.soap.strategies import (
    MUTATION_KINDS,
    SchemaStrategies,
    envelopes_of,
    find_sites,
    invalid_elements,
    load_xmlschema,
    one_mutant_per_kind,
    strategies_for,
)

REQUEST = f"{{{TYPES_NS}}}GraafberichtServiceRequest"
RESPONSE = f"{{{TYPES_NS}}}GraafberichtServiceResponse"
MANY = settings(max_examples=100, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])
PER_KIND = settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])

CONTRACT: ServiceContract = load_contract(soap_url="http://127.0.0.1/svc", soap_action_base="urn:registry:graafbericht")
STRATEGIES: SchemaStrategies = strategies_for(CONTRACT)
# A second opinion on validity, from xmlschema (the verdict of the harness is lxml's).
XMLSCHEMA = xmlschema.XMLSchema(str(SHIPPED_XSD))


@MANY
@given(STRATEGIES.element(REQUEST))
def test_generated_requests_are_valid(element: etree._Element) -> None:
    assert CONTRACT.schema_errors(element) == []
    assert XMLSCHEMA.is_valid(element)


@settings(MANY, max_examples=60)
@given(STRATEGIES.element(RESPONSE))
def test_generated_responses_are_valid(element: etree._Element) -> None:
    assert CONTRACT.schema_errors(element) == []


@settings(MANY, max_examples=40)
@given(envelopes_of(STRATEGIES.element(REQUEST)))
def test_generated_envelopes_survive_serialization(envelope: bytes) -> None:
    """Through bytes and back (escaping of markup characters in text included)."""
    body = etree.fromstring(envelope).find(f"{{{SOAP11_ENV_NS}}}Body")
    assert body is not None and len(body) == 1
    assert CONTRACT.schema_errors(body[0]) == []


@pytest.mark.parametrize("kind", MUTATION_KINDS)
def test_each_mutation_kind_is_invalid(kind: str) -> None:
    seen: list[str] = []

    @PER_KIND
    @given(invalid_elements(STRATEGIES, REQUEST, (kind,)))
    def check(mutant) -> None:
        assert mutant.kind == kind
        errors = CONTRACT.schema_errors(mutant.element)
        assert errors, f"{mutant.detail} at {mutant.target} is still valid"
        assert not XMLSCHEMA.is_valid(mutant.element)
        seen.append(mutant.target)

    check()
    assert seen


@settings(PER_KIND, max_examples=3)
@given(invalid_elements(STRATEGIES, REQUEST, ("wrong_namespace",)))
def test_wrong_namespace_changes_the_date_segment(mutant) -> None:
    assert "20080723" in mutant.detail


@settings(PER_KIND, max_examples=10)
@given(one_mutant_per_kind(STRATEGIES, REQUEST))
def test_one_mutant_per_kind_breaks_its_own_copy_of_one_valid_request(mutants) -> None:
    """The valid batch's mutants: the sites are found once, on the original, and each moves
    to its kind's copy, so each mutant is invalid where its site says, the original stays valid
    and unchanged, and no two share a node."""
    original = mutants[0].original
    offered = {site.kind for site in find_sites(original, STRATEGIES.declaration(REQUEST))}
    assert [m.kind for m in mutants] == [k for k in MUTATION_KINDS if k in offered]
    before = etree.tostring(original)
    assert CONTRACT.schema_errors(original) == []
    for mutant in mutants:
        assert mutant.original is original and mutant.element is not original
        assert CONTRACT.schema_errors(mutant.element), f"{mutant.detail} at {mutant.target} is still valid"
    assert etree.tostring(original) == before
    assert len({etree.tostring(m.element) for m in mutants}) == len(mutants)


def test_unknown_mutation_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown mutation"):
        invalid_elements(STRATEGIES, REQUEST, ("swap_everything",))


def test_zeep_built_request_validates() -> None:
    """Interop: what a zeep client sends for the operation passes the same schema."""
    client = zeep.Client(wsdl=str(CONTRACT.wsdl_path), settings=zeep_settings())
    envelope = client.create_message(
        client.service,
        OPERATION,
        versie="1.2",
        BerichtKop={"BerichtId": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "Tijdstip": "2024-03-01T10:00:00Z",
                    "Afzender": "00000001003214345000"},
        Graafmelding={
            "MeldingNummer": "24G000123", "MeldingSoort": "Graafmelding",
            "Netbeheerder": {"Code": "NETB01", "Naam": "Netbeheer Voorbeeld"},
            "Graafgebied": {"Polygoon": {"srsName": "EPSG:28992", "Coordinaat": [
                {"X": "155000.000", "Y": "463000.000"}, {"X": "155010.000", "Y": "463000.000"},
                {"X": "155010.000", "Y": "463010.000"}, {"X": "155000.000", "Y": "463000.000"}]}},
            "Werkperiode": {"Begindatum": "2024-04-01", "Einddatum": "2024-04-05"},
            "Werkzaamheden": {"SoortWerk": ["Aanleg"]},
            "Contact": {"Naam": "J. Jansen", "Telefoon": "0612345678"},
        },
    )  # fmt: skip
    body = envelope.find(f"{{{SOAP11_ENV_NS}}}Body")
    assert CONTRACT.schema_errors(body[0]) == []


GENERIC_XSD = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:generic"
    targetNamespace="urn:generic" elementFormDefault="qualified">
  <xs:element name="Root">
    <xs:complexType>
      <xs:sequence>
        <xs:choice>
          <xs:element name="Code" type="t:Code"/>
          <xs:element name="Number" type="t:Small"/>
        </xs:choice>
        <xs:element name="Points" type="t:Points" minOccurs="0"/>
        <xs:element name="Either" type="t:Either" maxOccurs="unbounded"/>
        <xs:element name="Measure" minOccurs="0">
          <xs:complexType><xs:simpleContent><xs:extension base="xs:decimal">
            <xs:attribute name="unit" type="t:Unit" use="required"/>
          </xs:extension></xs:simpleContent></xs:complexType>
        </xs:element>
        <xs:element name="Flag" type="xs:boolean"/>
        <xs:element name="Token" type="xs:token" minOccurs="0"/>
        <xs:element name="Bytes" type="xs:base64Binary" minOccurs="0"/>
      </xs:sequence>
      <xs:attribute name="id" type="xs:NCName"/>
    </xs:complexType>
  </xs:element>
  <xs:simpleType name="Code"><xs:restriction base="xs:string"><xs:pattern value="\\d{2}-[A-Z]{2,3}"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Small"><xs:restriction base="xs:integer"><xs:minExclusive value="0"/><xs:maxExclusive value="10"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Points"><xs:restriction><xs:simpleType><xs:list itemType="xs:double"/></xs:simpleType><xs:minLength value="2"/><xs:maxLength value="6"/></xs:restriction></xs:simpleType>
  <xs:simpleType name="Either"><xs:union memberTypes="xs:date t:Small"/></xs:simpleType>
  <xs:simpleType name="Unit"><xs:restriction base="xs:string"><xs:enumeration value="m"/><xs:enumeration value="cm"/></xs:restriction></xs:simpleType>
</xs:schema>
"""


@pytest.fixture(scope="module")
def generic(tmp_path_factory: pytest.TempPathFactory) -> tuple[SchemaStrategies, etree.XMLSchema]:
    path: Path = tmp_path_factory.mktemp("generic") / "generic.xsd"
    path.write_text(GENERIC_XSD, encoding="utf-8")
    return SchemaStrategies(load_xmlschema(path)), etree.XMLSchema(etree.parse(str(path)))


def test_generic_schema_constructs_are_generated_validly(generic) -> None:
    strategies, schema = generic

    @settings(MANY, max_examples=60)
    @given(strategies.element("{urn:generic}Root"))
    def check(element: etree._Element) -> None:
        assert schema.validate(element), schema.error_log

    check()


def test_generic_schema_mutations_are_invalid(generic) -> None:
    strategies, schema = generic

    @settings(MANY, max_examples=40)
    @given(invalid_elements(strategies, "{urn:generic}Root"))
    def check(mutant) -> None:
        assert not schema.validate(mutant.element), mutant.detail

    check()


def test_strategies_draw_independent_trees() -> None:
    """Mutation happens in place on a fresh draw: two draws never share nodes."""

    @settings(MANY, max_examples=5)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        first = data.draw(STRATEGIES.element(REQUEST))
        second = data.draw(invalid_elements(STRATEGIES, REQUEST))
        assert first is not second.element
        assert CONTRACT.schema_errors(first) == []

    check()
