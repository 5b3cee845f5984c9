"""Hypothesis strategies for the message service, built from its types schema.

The public face of generation.py (schema-valid instances: the XSD components walked with
xmlschema; patterns through `from_regex(fullmatch=True)`, enumerations, lengths, numeric
ranges, optional elements) and mutations.py (schema-invalid instances: a required element
dropped, a pattern broken, an enumeration outside its set, a wrong namespace, and more).

    strategies = strategies_for(contract)                # from a loaded ServiceContract
    requests = strategies.element(REQUEST_TAG)           # SearchStrategy[lxml element]
    invalid = invalid_elements(strategies, REQUEST_TAG)  # SearchStrategy[Mutant]
    envelopes = envelopes_of(requests)                   # SearchStrategy[bytes]
"""

from __future__ import annotations

from hypothesis import strategies as st
from lxml import etree

from conformance.soap.envelope import build_envelope
from conformance.soap.generation import SchemaStrategies, UnsupportedSchema, load_xmlschema
from conformance.soap.loader import ServiceContract
from conformance.soap.mutations import (
    MUTATION_KINDS,
    Mutant,
    find_sites,
    invalid_elements,
    one_mutant_per_kind,
)

__all__ = [
    "MUTATION_KINDS",
    "Mutant",
    "SchemaStrategies",
    "UnsupportedSchema",
    "envelopes_of",
    "find_sites",
    "invalid_elements",
    "load_xmlschema",
    "one_mutant_per_kind",
    "strategies_for",
]


def strategies_for(contract: ServiceContract, namespace: str | None = None) -> SchemaStrategies:
    """Strategies over the XSD file of `namespace` (default: the first operation's input)."""
    if namespace is None:
        inputs = [o.input_element for o in contract.operations.values() if o.input_element]
        if not inputs:
            raise UnsupportedSchema("the WSDL has no document operation with an input element")
        namespace = etree.QName(inputs[0]).namespace or ""
    source = contract.xmlschema_source(namespace)
    if source is None:
        raise UnsupportedSchema(f"the types of {namespace} are inline in the WSDL; generation needs an XSD file")
    return SchemaStrategies(load_xmlschema(source))


def envelopes_of(elements: st.SearchStrategy[etree._Element]) -> st.SearchStrategy[bytes]:
    """SOAP 1.1 envelopes (UTF-8 bytes) around the drawn Body elements."""
    return elements.map(build_envelope)
