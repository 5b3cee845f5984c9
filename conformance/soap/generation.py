"""Hypothesis strategies built from the types schema: schema-valid instances of an element.

The schema's components are walked with xmlschema: model groups (sequence, choice, all)
with their occurrence bounds, optional elements, attributes (required, optional, fixed),
and simple types with their facets (patterns through `from_regex(fullmatch=True)`,
enumerations, lengths, numeric ranges, digits, lists and unions). Every simple value is
finally filtered through xmlschema's own facet check, so a combination the generator does
not aim for precisely (a pattern plus a length) still never yields an invalid value.

The verdict on generated messages belongs to lxml's XMLSchema (see loader.py); tests prove
that both agree. Import from strategies.py, the public face of generation and mutation.
"""

from __future__ import annotations

import base64
import functools
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from lxml import etree

if TYPE_CHECKING:  # imported where used: a run without the SOAP suite never loads xmlschema (0.3 s)
    import xmlschema
    from xmlschema.validators import XsdElement, XsdGroup

XSD = "{http://www.w3.org/2001/XMLSchema}"
MAX_EXTRA_OCCURS = 2  # an unbounded (or large) maxOccurs is capped to minOccurs + this
MAX_DEPTH = 16  # recursive content models stop here (optional particles are left out)
DEFAULT_MAX_LENGTH = 24  # strings without maxLength

# Characters that are legal in XML 1.0 text: no controls, surrogates or non-characters.
# Markup characters are included on purpose: the serializer must escape them.
XML_TEXT_CHARS = st.characters(exclude_categories=("Cc", "Cs", "Cn", "Co"))
_PLAIN_CHARS = st.characters(
    min_codepoint=0x20, max_codepoint=0x17F, exclude_categories=("Cc", "Cs", "Cn")
)
_TIMEZONES = st.sampled_from(
    [None, UTC, timezone(timedelta(hours=1)), timezone(timedelta(hours=2))]
)


class UnsupportedSchema(Exception):
    """The schema uses a construct the generator does not cover (named in the message)."""


def load_xmlschema(path: Path) -> xmlschema.XMLSchema:
    """The types schema for walking: local files below its directory only, no entities.

    Built once per file as it is on disk (its path, size and modification time): building
    takes about 0.15 s, and each SOAP test module asks for it (a run's SOAP suite built it
    ten times over). The schema object is only read after it is built."""
    stat = path.stat()
    return _built_xmlschema(str(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _built_xmlschema(path: str, _size: int, _mtime_ns: int) -> xmlschema.XMLSchema:
    import xmlschema

    return xmlschema.XMLSchema(path, allow="sandbox", defuse="always")


def builtin_name(xsd_type: Any) -> str:
    """Local name of the XSD built-in type a simple type derives from (`int`, `string`)."""
    current = xsd_type
    while current is not None:
        name = current.name or ""
        if name.startswith(XSD):
            return name[len(XSD) :]
        current = getattr(current, "base_type", None)
    return "anySimpleType"


def has_patterns(xsd_type: Any) -> bool:
    current = xsd_type
    while current is not None and not (current.name or "").startswith(XSD):
        if getattr(current, "patterns", None):
            return True
        current = getattr(current, "base_type", None)
    return False


def list_item_type(xsd_type: Any) -> Any:
    current = xsd_type
    while current is not None:
        item = getattr(current, "item_type", None)
        if item is not None:
            return item
        current = getattr(current, "base_type", None)
    raise UnsupportedSchema(f"list type {xsd_type} without an item type")


class SchemaStrategies:
    """Strategies for one schema. Simple-value strategies are built once per type (regex
    compilation is the costly part); the memo belongs to this object, not the module."""

    def __init__(self, schema: xmlschema.XMLSchema) -> None:
        self.schema = schema
        self._values: dict[int, st.SearchStrategy[str]] = {}

    def declaration(self, name: str) -> XsdElement:
        decl = self.schema.elements.get(name) or self.schema.maps.elements.get(name)
        if decl is None:
            local = name.rsplit("}", 1)[-1]
            decl = self.schema.elements.get(local)
        if decl is None:
            raise UnsupportedSchema(f"no global element {name} in the schema")
        return decl

    def element(self, name: str) -> st.SearchStrategy[etree._Element]:
        """Schema-valid instances of the global element `name` (Clark or local name)."""
        decl = self.declaration(name)

        @st.composite
        def build(draw: st.DrawFn) -> etree._Element:
            return self._draw_element(draw, decl, None, 0)

        return build()

    # -------------------------------------------------------------------- structure
    def _draw_element(
        self, draw: st.DrawFn, decl: XsdElement, parent: etree._Element | None, depth: int
    ) -> etree._Element:
        if decl.abstract:
            raise UnsupportedSchema(f"abstract element {decl.name} (substitution groups)")
        tag = decl.name
        if parent is None:
            namespace = etree.QName(tag).namespace
            node = etree.Element(tag, nsmap={"t": namespace} if namespace else None)
        else:
            node = etree.SubElement(parent, tag)
        xsd_type = decl.type
        if xsd_type.is_complex():
            self._draw_attributes(draw, xsd_type, node)
        if decl.fixed is not None:
            node.text = str(decl.fixed)
        elif xsd_type.is_simple():
            node.text = draw(self.simple_values(xsd_type))
        elif xsd_type.has_simple_content():
            node.text = draw(self.simple_values(xsd_type.content))
        elif not xsd_type.is_empty():
            self._draw_group(draw, xsd_type.content, node, depth + 1)
        return node

    def _draw_attributes(self, draw: st.DrawFn, xsd_type: Any, node: etree._Element) -> None:
        for name, attribute in xsd_type.attributes.items():
            if name is None or not hasattr(attribute, "use"):
                continue  # an attribute wildcard: nothing is required
            if attribute.use == "prohibited":
                continue
            if attribute.use != "required" and not draw(st.booleans()):
                continue
            if attribute.fixed is not None:
                node.set(name, str(attribute.fixed))
            else:
                node.set(name, draw(self.simple_values(attribute.type)))

    def _draw_group(self, draw: st.DrawFn, group: XsdGroup, node: etree._Element, depth: int) -> None:
        for _ in range(self._occurrences(draw, group, depth)):
            if group.model == "choice":
                options = [p for p in group if depth < MAX_DEPTH or p.min_occurs > 0] or list(group)
                self._draw_particle(draw, draw(st.sampled_from(options)), node, depth)
            else:  # sequence; for `all` the declared order is one of the allowed orders
                for particle in group:
                    self._draw_particle(draw, particle, node, depth)

    def _draw_particle(self, draw: st.DrawFn, particle: Any, node: etree._Element, depth: int) -> None:
        from xmlschema.validators import XsdAnyElement, XsdElement, XsdGroup

        if isinstance(particle, XsdGroup):
            self._draw_group(draw, particle, node, depth + 1)
        elif isinstance(particle, XsdAnyElement):
            if particle.min_occurs > 0:
                raise UnsupportedSchema("a required xs:any wildcard")
        elif isinstance(particle, XsdElement):
            for _ in range(self._occurrences(draw, particle, depth)):
                self._draw_element(draw, particle, node, depth + 1)
        else:  # pragma: no cover - xmlschema has no other particle kinds
            raise UnsupportedSchema(f"particle {particle!r}")

    @staticmethod
    def _occurrences(draw: st.DrawFn, particle: Any, depth: int) -> int:
        low = particle.min_occurs
        if depth >= MAX_DEPTH:
            return low
        high = particle.max_occurs
        high = low + MAX_EXTRA_OCCURS if high is None else min(high, low + MAX_EXTRA_OCCURS)
        return draw(st.integers(low, max(low, high)))

    # -------------------------------------------------------------------- simple values
    def simple_values(self, xsd_type: Any) -> st.SearchStrategy[str]:
        key = id(xsd_type)
        if key not in self._values:
            self._values[key] = self._simple(xsd_type).filter(xsd_type.text_is_valid)
        return self._values[key]

    def _simple(self, xsd_type: Any) -> st.SearchStrategy[str]:
        if xsd_type.is_union():
            return st.one_of([self.simple_values(m) for m in xsd_type.member_types])
        if xsd_type.is_list():
            item = self.simple_values(list_item_type(xsd_type))
            low = xsd_type.min_length or 0
            high = xsd_type.max_length if xsd_type.max_length is not None else low + 5
            return st.lists(item, min_size=low, max_size=high).map(" ".join)
        enumeration = getattr(xsd_type, "enumeration", None)
        if enumeration:
            return st.sampled_from([_lexical(v) for v in enumeration])
        if has_patterns(xsd_type) and xsd_type.patterns:
            regexps = list(xsd_type.patterns.regexps)
            return st.one_of([_from_xsd_regex(r) for r in regexps])
        return _by_builtin(builtin_name(xsd_type), xsd_type)


def _from_xsd_regex(regexp: str) -> st.SearchStrategy[str]:
    from elementpath.regex import translate_pattern

    python = translate_pattern(regexp, anchors=False)
    # elementpath anchors the translation as ^(...)$(?!\n\Z); from_regex wants the body.
    if python.startswith("^(") and python.endswith(")$(?!\\n\\Z)"):
        python = python[2 : -len(")$(?!\\n\\Z)")]
    # Latin characters first: libxml2's Unicode tables are older than Python's (it rejects
    # a Tamil digit for \d), and its verdict is the one that counts. A pattern that needs
    # other characters gets the whole XML alphabet.
    try:
        strategy = st.from_regex(python, fullmatch=True, alphabet=_PLAIN_CHARS)
        strategy.validate()
    except InvalidArgument:
        strategy = st.from_regex(python, fullmatch=True, alphabet=XML_TEXT_CHARS)
    return strategy


def _lexical(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def _bounds(xsd_type: Any, default_low: Any, default_high: Any) -> tuple[Any, Any]:
    low = xsd_type.min_value if xsd_type.min_value is not None else default_low
    high = xsd_type.max_value if xsd_type.max_value is not None else default_high
    return low, high


def _by_builtin(name: str, xsd_type: Any) -> st.SearchStrategy[str]:
    integers = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
                "nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt",
                "unsignedShort", "unsignedByte"}  # fmt: skip
    if name in integers:
        low, high = _bounds(xsd_type, -(10**9), 10**9)
        return st.integers(int(max(low, -(10**12))), int(min(high, 10**12))).map(str)
    if name == "decimal":
        low, high = _bounds(xsd_type, Decimal(-(10**9)), Decimal(10**9))
        fraction = xsd_type.get_facet(f"{XSD}fractionDigits")
        places = fraction.value if fraction is not None else 4
        return st.decimals(low, high, places=places, allow_nan=False, allow_infinity=False).map(_lexical)
    if name in ("float", "double"):
        low, high = _bounds(xsd_type, -1e9, 1e9)
        return st.floats(float(low), float(high), allow_nan=False, allow_infinity=False).map(repr)
    if name == "boolean":
        return st.sampled_from(["true", "false", "1", "0"])
    if name == "dateTime":
        return st.datetimes(datetime(2000, 1, 1), datetime(2099, 12, 31), timezones=_TIMEZONES).map(
            lambda d: d.isoformat()
        )
    if name == "date":
        return st.dates(date(2000, 1, 1), date(2099, 12, 31)).map(date.isoformat)
    if name == "time":
        return st.times().map(lambda t: t.isoformat())
    if name == "gYear":
        return st.integers(1900, 2100).map(str)
    if name == "duration":
        return st.sampled_from(["P1D", "PT1H", "P1Y2M3DT4H5M6S", "PT0S"])
    if name == "base64Binary":
        return st.binary(max_size=30).map(lambda b: base64.b64encode(b).decode())
    if name == "hexBinary":
        return st.binary(max_size=30).map(lambda b: b.hex().upper())
    if name == "anyURI":
        return st.from_regex(r"https://[a-z]{1,12}\.example/[a-z0-9]{0,16}", fullmatch=True)
    if name == "language":
        return st.sampled_from(["nl", "en", "nl-NL", "en-GB"])
    if name in ("Name", "NCName", "ID", "IDREF", "ENTITY", "NMTOKEN"):
        return st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,15}", fullmatch=True)
    if name in ("string", "normalizedString", "token", "anySimpleType", "anyType"):
        low = xsd_type.min_length or 0
        high = xsd_type.max_length if xsd_type.max_length is not None else max(low, DEFAULT_MAX_LENGTH)
        return st.text(_PLAIN_CHARS, min_size=low, max_size=min(high, low + 60))
    raise UnsupportedSchema(f"values of xs:{name} ({xsd_type})")
