"""Mutation strategies: schema-invalid instances made from schema-valid ones.

A valid instance is drawn, walked alongside its declarations, and one site is broken:

* `required_element_dropped`: an element of a plain sequence whose occurrences equal its
  minOccurs loses one (only where the enclosing sequence occurs exactly once, so the drop
  cannot turn into a legal absence of the whole group);
* `required_attribute_dropped`: a `use="required"` attribute is removed;
* `pattern_broken`: a value of a pattern-restricted type is replaced by one that fails it;
* `enumeration_outside`: an enumerated value is replaced by one outside the set;
* `range_exceeded`: a numeric value goes just beyond its minimum or maximum;
* `length_exceeded`: a string goes beyond its maxLength (or below its minLength);
* `wrong_namespace`: an element moves to another namespace (the date segment changed).

Replacement values are checked against the type (xmlschema) before use, so each mutant
breaks exactly the constraint its kind names; lxml's verdict on them is proven in tests.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from lxml import etree

if TYPE_CHECKING:  # imported where used (conformance/soap/generation.py says why)
    from xmlschema.validators import XsdElement, XsdGroup

from conformance.soap import TYPES_DATE_SEGMENT
from conformance.soap.generation import SchemaStrategies, has_patterns

MUTATION_KINDS = (
    "required_element_dropped",
    "required_attribute_dropped",
    "pattern_broken",
    "enumeration_outside",
    "range_exceeded",
    "length_exceeded",
    "wrong_namespace",
)


@dataclass(frozen=True)
class Mutant:
    kind: str
    target: str  # a readable path to the broken site: /Request/Graafmelding/MeldingNummer
    detail: str
    element: etree._Element  # the (now invalid) instance
    # The valid instance it was made from, untouched: the control a negative check sends
    # unchanged, so that a refusal of `element` counts only when this one is accepted.
    original: etree._Element | None = None


@dataclass(frozen=True)
class _Site:
    kind: str
    node: etree._Element
    target: str
    values: tuple[str, ...] = ()  # replacement texts, for value mutations
    attribute: str | None = None


def invalid_elements(
    strategies: SchemaStrategies, name: str, kinds: tuple[str, ...] = MUTATION_KINDS
) -> st.SearchStrategy[Mutant]:
    """Schema-invalid instances of the global element `name`, one broken site each."""
    unknown = set(kinds) - set(MUTATION_KINDS)
    if unknown:
        raise ValueError(f"unknown mutation kinds: {sorted(unknown)}")
    decl = strategies.declaration(name)
    valid = strategies.element(name)

    @st.composite
    def build(draw: st.DrawFn) -> Mutant:
        # The drawn element is built fresh for this draw, so it is mutated in place.
        element = draw(valid)
        original = deepcopy(element)
        sites = [s for s in find_sites(element, decl) if s.kind in kinds]
        if not sites:
            raise ValueError(f"no site for mutations {kinds} in {name}")
        available = sorted({s.kind for s in sites})
        kind = draw(st.sampled_from(available))
        site = draw(st.sampled_from([s for s in sites if s.kind == kind]))
        return replace(_apply(draw, site, element), original=original)

    return build()


def one_mutant_per_kind(
    strategies: SchemaStrategies, name: str, kinds: tuple[str, ...] = MUTATION_KINDS
) -> st.SearchStrategy[list[Mutant]]:
    """One valid instance, broken once per available kind (each on its own copy): every
    kind in every example, at the cost of a single generated tree. Each mutant's
    `original` is that one instance (never mutated): one control serves them all."""
    decl = strategies.declaration(name)
    valid = strategies.element(name)

    @st.composite
    def build(draw: st.DrawFn) -> list[Mutant]:
        original = draw(valid)
        # The sites are found once, on the original: each kind's copy is the same tree, node for
        # node in document order, so a site moves to its copy by position. Walking every copy
        # (validating each candidate value against its type) was a third of the valid batch's draw.
        sites = find_sites(original, decl)
        nodes = list(original.iter())
        mutants: list[Mutant] = []
        for kind in kinds:
            of_kind = [s for s in sites if s.kind == kind]
            if of_kind:
                site = draw(st.sampled_from(of_kind))
                copy = deepcopy(original)
                moved = replace(site, node=list(copy.iter())[nodes.index(site.node)])
                mutants.append(replace(_apply(draw, moved, copy), original=original))
        return mutants

    return build()


def find_sites(root: etree._Element, decl: XsdElement) -> list[_Site]:
    """Every breakable site of a valid instance, in document order."""
    sites: list[_Site] = []
    _walk(root, decl, f"/{etree.QName(root).localname}", sites)
    return sites


def _walk(node: etree._Element, decl: XsdElement, path: str, sites: list[_Site]) -> None:
    from xmlschema.validators import XsdElement

    xsd_type = decl.type
    namespace = etree.QName(node).namespace
    if namespace:
        sites.append(_Site("wrong_namespace", node, path))
    if xsd_type.is_complex():
        for name, attribute in xsd_type.attributes.items():
            if name is not None and getattr(attribute, "use", None) == "required" and node.get(name) is not None:
                sites.append(_Site("required_attribute_dropped", node, f"{path}/@{name}", attribute=name))
    value_type = xsd_type if xsd_type.is_simple() else (xsd_type.content if xsd_type.has_simple_content() else None)
    if value_type is not None and decl.fixed is None:
        sites += _value_sites(node, value_type, path)
    if not xsd_type.is_complex() or xsd_type.has_simple_content() or xsd_type.is_empty():
        return
    group: XsdGroup = xsd_type.content
    declarations = {e.name: e for e in group.iter_elements() if isinstance(e, XsdElement)}
    if group.model == "sequence" and group.min_occurs == 1 and group.max_occurs == 1:
        for particle in group:
            if isinstance(particle, XsdElement) and particle.min_occurs >= 1:
                present = [c for c in node if c.tag == particle.name]
                if len(present) == particle.min_occurs:
                    child_path = f"{path}/{etree.QName(particle.name).localname}"
                    sites.append(_Site("required_element_dropped", present[-1], child_path))
    for child in node:
        child_decl = declarations.get(child.tag) if isinstance(child.tag, str) else None
        if child_decl is not None:
            _walk(child, child_decl, f"{path}/{etree.QName(child).localname}", sites)


def _value_sites(node: etree._Element, xsd_type: Any, path: str) -> list[_Site]:
    current = node.text or ""
    sites: list[_Site] = []

    def invalid(candidates: list[str]) -> tuple[str, ...]:
        seen: list[str] = []
        for value in candidates:
            if value != current and value not in seen and not xsd_type.text_is_valid(value):
                seen.append(value)
        return tuple(seen)

    enumeration = getattr(xsd_type, "enumeration", None)
    if enumeration:
        values = invalid([current + "X", current.lower(), current.upper(), "Onbekend", current[:-1], "-"])
        if values:
            sites.append(_Site("enumeration_outside", node, path, values))
        return sites  # an enumerated value has no other facet worth breaking
    if has_patterns(xsd_type):
        swapped = "".join("A" if c.isdigit() else ("9" if c.isalpha() else c) for c in current)
        values = invalid([current + "#", "#" + current, current[:-1], current + current, swapped, current.swapcase()])
        if values:
            sites.append(_Site("pattern_broken", node, path, values))
    numbers = _out_of_range(xsd_type)
    if numbers:
        values = invalid(numbers)
        if values:
            sites.append(_Site("range_exceeded", node, path, values))
    lengths: list[str] = []
    if xsd_type.max_length is not None:
        lengths.append((current or "x") * (xsd_type.max_length // max(len(current), 1) + 1) + "x")
    if xsd_type.min_length:
        lengths.append(current[: xsd_type.min_length - 1])
    if lengths and not xsd_type.is_list():
        values = invalid(lengths)
        if values:
            sites.append(_Site("length_exceeded", node, path, values))
    return sites


def _out_of_range(xsd_type: Any) -> list[str]:
    values: list[str] = []
    for bound, step in ((xsd_type.max_value, 1), (xsd_type.min_value, -1)):
        if bound is None:
            continue
        try:
            number = Decimal(str(bound))
        except (InvalidOperation, ValueError):
            continue  # a date or duration bound: not a numeric range
        values.append(format(number + step, "f"))
    return values


def _apply(draw: st.DrawFn, site: _Site, root: etree._Element) -> Mutant:
    node = site.node
    if site.kind == "required_element_dropped":
        parent = node.getparent()
        assert parent is not None
        parent.remove(node)
        detail = f"removed required element {etree.QName(node).localname}"
    elif site.kind == "required_attribute_dropped":
        assert site.attribute is not None
        del node.attrib[site.attribute]
        detail = f"removed required attribute {site.attribute}"
    elif site.kind == "wrong_namespace":
        qname = etree.QName(node)
        wrong = _wrong_namespace(qname.namespace or "")
        node.tag = f"{{{wrong}}}{qname.localname}"
        detail = f"moved {qname.localname} to namespace {wrong}"
    else:
        before = node.text
        node.text = draw(st.sampled_from(site.values))
        detail = f"{site.kind}: {before!r} -> {node.text!r}"
    return Mutant(site.kind, site.target, detail, root)


def _wrong_namespace(namespace: str) -> str:
    if TYPES_DATE_SEGMENT in namespace:
        return namespace.replace(TYPES_DATE_SEGMENT, "20080723")
    return namespace.rstrip("/") + "/other"
