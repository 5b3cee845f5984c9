"""Hardened, offline loading of untrusted XML, of the WSDL and of its types schemas.

Everything here treats its input as hostile (a vendor's WSDL, a server's response, a
captured message): no DTDs, no entity expansion, no network, bounded sizes. Local imports
(`schemaLocation`, `wsdl:import`) are read only from the WSDL's own directory tree, which
for a profile's WSDL is the profile's directory.

Two consumers read the result: zeep (is the WSDL consumable by a SOAP toolkit, what does
its binding say) and lxml's XMLSchema (the validity verdict; zeep does not enforce every
facet, see tooling-notes section 4).
"""

from __future__ import annotations

import io
import os
from copy import deepcopy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from xml.sax.saxutils import escape

import zeep
import zeep.exceptions
from lxml import etree

from conformance.errors import ConfigError
from conformance.soap import SHIPPED_WSDL, WSDL_NS, XSD_NS
from conformance.soap.wsdl_facts import WsdlFacts, read_facts

MAX_XML_BYTES = 2_000_000  # the largest WSDL, XSD or message this harness parses

PLACEHOLDERS = ("{soap_url}", "{soap_action_base}")


class XmlRefused(Exception):
    """Untrusted XML that was not parsed: too large, a DTD or entity, or not well-formed.

    `reason` is one of: too_large, empty, doctype, not_well_formed.
    """

    def __init__(self, reason: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.line = line


class WsdlLoadError(ConfigError):
    """The WSDL or a schema it imports cannot be loaded safely (exit 2, message names it)."""


def hardened_parser() -> etree.XMLParser:
    """A parser for hostile XML (auth-and-soap.md section 7). A new one per use: parsers
    carry state (error logs, resolvers), so none is shared between threads."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        attribute_defaults=False,
        huge_tree=False,
        remove_pis=False,  # kept so a check can see (and reject) processing instructions
        remove_comments=False,
    )


def parse_untrusted(
    data: bytes, *, max_bytes: int = MAX_XML_BYTES, what: str = "document", base_url: str | None = None
) -> etree._ElementTree:
    """Parse hostile bytes or raise XmlRefused. A DOCTYPE is refused, never loaded or
    expanded (WS-I BP 1.1 R1008 forbids DTDs in envelopes; WSDL and XSD need none)."""
    if len(data) > max_bytes:
        raise XmlRefused("too_large", f"{what} is {len(data)} bytes, above the limit of {max_bytes}")
    if not data.strip():
        raise XmlRefused("empty", f"{what} is empty")
    try:
        root = etree.fromstring(data, hardened_parser(), base_url=base_url)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if isinstance(exc.lineno, int) else None
        text = str(exc.msg)
        # libxml2 refuses entity-amplification bombs while reading the DTD, even with
        # resolve_entities=False: nothing was expanded, and the DTD is the reason.
        if "amplification" in text or "entity reference loop" in text.lower():
            raise XmlRefused(
                "doctype", f"{what} carries a DOCTYPE with an entity-expansion bomb ({text}); refused, nothing expanded", line
            ) from None
        raise XmlRefused("not_well_formed", f"{what} is not well-formed XML: {text}", line) from None
    tree = root.getroottree()
    info = tree.docinfo
    if info.doctype or info.internalDTD is not None or info.externalDTD is not None:
        entities = [e.name for e in info.internalDTD.iterentities()] if info.internalDTD is not None else []
        detail = f" declaring entities {', '.join(entities)}" if entities else ""
        raise XmlRefused("doctype", f"{what} carries a DOCTYPE{detail}; refused, nothing expanded", 1)
    return tree


# ------------------------------------------------------------------------------ local files
@dataclass(frozen=True)
class LocalFiles:
    """Reads files below one directory only; every other location is refused."""

    root: Path
    max_bytes: int = MAX_XML_BYTES

    def path_for(self, location: str, base: Path | None = None) -> Path:
        parts = urlsplit(location)
        if parts.scheme == "file":
            if parts.netloc not in ("", "localhost"):
                raise WsdlLoadError(f"refused import {location!r}: not a local file")
            location = unquote(parts.path)
        elif parts.scheme and len(parts.scheme) > 1:  # one letter: a Windows drive
            raise WsdlLoadError(
                f"refused import {location!r}: only files next to the WSDL are read (no network)"
            )
        candidate = Path(location)
        if not candidate.is_absolute():
            candidate = (base.parent if base else self.root) / candidate
        resolved = Path(os.path.realpath(candidate))
        root = Path(os.path.realpath(self.root))
        if resolved != root and root not in resolved.parents:
            raise WsdlLoadError(f"refused import {location!r}: outside {root}")
        return resolved

    def read(self, path: Path) -> bytes:
        try:
            size = path.stat().st_size
            if size > self.max_bytes:
                raise WsdlLoadError(f"{path} is {size} bytes, above the limit of {self.max_bytes}")
            return path.read_bytes()
        except OSError as exc:
            raise WsdlLoadError(f"cannot read {path}: {exc.strerror or exc}") from None


class _LocalTransport(zeep.Transport):
    """zeep's transport, restricted to LocalFiles. `forbid_external` already blocks http(s)
    imports; this also closes plain paths outside the directory and every other scheme."""

    def __init__(self, files: LocalFiles) -> None:
        super().__init__(cache=None, timeout=5)
        self._files = files

    def load(self, url: str) -> bytes:
        return self._files.read(self._files.path_for(url))

    def _load_remote_data(self, url: str) -> bytes:  # pragma: no cover - load() never calls it
        raise WsdlLoadError(f"refused to fetch {url!r}")


def zeep_settings() -> zeep.Settings:
    # force_https=False: with True, zeep rewrites a file:/// schemaLocation to https:///
    # (tooling-notes section 4); no request is ever sent either way.
    return zeep.Settings(
        strict=True,
        xml_huge_tree=False,
        forbid_dtd=True,
        forbid_entities=True,
        forbid_external=True,
        force_https=False,
    )


# ------------------------------------------------------------------------------ the contract
@dataclass(frozen=True)
class OperationInfo:
    name: str
    soap_action: str | None
    style: str | None
    input_element: str | None  # Clark notation
    output_element: str | None


@dataclass(frozen=True)
class ServiceContract:
    """A loaded WSDL with its types: what validation, checks, mocks and strategies read."""

    wsdl_path: Path
    wsdl_bytes: bytes  # after the placeholders were filled
    facts: WsdlFacts
    operations: dict[str, OperationInfo]
    addresses: dict[str, str]  # port name -> soap:address location
    schema: etree.XMLSchema
    schema_sources: dict[str, Path] = field(default_factory=dict)  # namespace -> XSD file

    def operation_for_input(self, tag: str) -> OperationInfo | None:
        return next((o for o in self.operations.values() if o.input_element == tag), None)

    def operation_for_output(self, tag: str) -> OperationInfo | None:
        return next((o for o in self.operations.values() if o.output_element == tag), None)

    def schema_errors(self, element: etree._Element) -> list[tuple[int | None, str]]:
        """(line, message) of every XSD error of `element`; empty when valid. Lines are
        those of the element's own document, so validate it in place, not a copy."""
        if self.schema.validate(element):
            return []
        return [(e.line or None, e.message) for e in self.schema.error_log]

    def xmlschema_source(self, namespace: str) -> Path | None:
        return self.schema_sources.get(namespace)


def fill_placeholders(data: bytes, *, soap_url: str, soap_action_base: str) -> bytes:
    values = {"{soap_url}": soap_url, "{soap_action_base}": soap_action_base.rstrip("/")}
    for placeholder, value in values.items():
        data = data.replace(placeholder.encode(), escape(value, {'"': "&quot;"}).encode())
    return data


def load_contract(
    wsdl_path: Path | None = None, *, soap_url: str = "", soap_action_base: str = ""
) -> ServiceContract:
    """Load a WSDL (the shipped one when None) and its schemas; WsdlLoadError otherwise."""
    path = Path(os.path.realpath(wsdl_path or SHIPPED_WSDL))
    files = LocalFiles(path.parent)
    raw = files.read(path)
    data = fill_placeholders(raw, soap_url=soap_url, soap_action_base=soap_action_base)
    try:
        root = parse_untrusted(data, what=str(path), base_url=str(path)).getroot()
    except XmlRefused as exc:
        raise WsdlLoadError(f"{path}: {exc.message}") from None
    if root.tag != f"{{{WSDL_NS}}}definitions":
        raise WsdlLoadError(f"{path}: the root element is {root.tag}, not wsdl:definitions")
    documents = _collect_schema_documents(root, path, files)
    schema, sources = _build_schema(root, path, documents)
    operations, addresses = _zeep_view(data, path, files)
    return ServiceContract(
        wsdl_path=path,
        wsdl_bytes=data,
        facts=read_facts(root, schema_versions=_schema_versions(documents)),
        operations=operations,
        addresses=addresses,
        schema=schema,
        schema_sources=sources,
    )


def _zeep_view(data: bytes, path: Path, files: LocalFiles) -> tuple[dict[str, OperationInfo], dict[str, str]]:
    try:
        document = zeep.wsdl.Document(
            io.BytesIO(data), _LocalTransport(files), base=str(path), settings=zeep_settings()
        )
    except WsdlLoadError:
        raise
    except (zeep.exceptions.Error, etree.LxmlError, ValueError, LookupError, AttributeError, TypeError) as exc:
        # zeep raises many types for a broken WSDL; the user needs the message, not a trace.
        raise WsdlLoadError(f"{path}: zeep cannot load the WSDL: {type(exc).__name__}: {exc}") from None
    operations: dict[str, OperationInfo] = {}
    for binding in document.bindings.values():
        for name, op in binding.all().items():
            operations.setdefault(
                name,
                OperationInfo(
                    name=name,
                    soap_action=getattr(op, "soapaction", None),
                    style=getattr(op, "style", None),
                    input_element=_body_qname(op.input),
                    output_element=_body_qname(op.output),
                ),
            )
    addresses = {
        port_name: str(port.binding_options.get("address", ""))
        for service in document.services.values()
        for port_name, port in service.ports.items()
    }
    return operations, addresses


def _body_qname(message: Any) -> str | None:
    body = getattr(message, "body", None)
    qname = getattr(body, "qname", None)
    return str(qname) if qname is not None else None


# ------------------------------------------------------------------------------ schemas
def _collect_schema_documents(
    wsdl_root: etree._Element, wsdl_path: Path, files: LocalFiles
) -> dict[Path, etree._Element]:
    """Every schema document reachable from wsdl:types, keyed by (real or synthetic) path.

    Inline schemas get a synthetic path next to the WSDL so their relative imports resolve
    as they would from the WSDL itself.
    """
    documents: dict[Path, etree._Element] = {}
    pending: list[tuple[Path, etree._Element]] = []
    for index, inline in enumerate(wsdl_root.iterfind(f"{{{WSDL_NS}}}types/{{{XSD_NS}}}schema")):
        synthetic = wsdl_path.parent / f".inline-schema-{index}.xsd"
        pending.append((synthetic, _standalone_schema(inline)))
    while pending:
        location, schema = pending.pop()
        if location in documents:
            continue
        documents[location] = schema
        for ref in schema.iterfind(f"{{{XSD_NS}}}*"):
            if etree.QName(ref).localname not in ("import", "include", "redefine"):
                continue
            target = ref.get("schemaLocation")
            if not target:
                continue  # a namespace import without location: resolved from what is loaded
            child = files.path_for(target, base=location)
            if child in documents:
                continue
            try:
                tree = parse_untrusted(files.read(child), what=str(child), base_url=str(child))
            except XmlRefused as exc:
                raise WsdlLoadError(f"{child}: {exc.message}") from None
            pending.append((child, tree.getroot()))
    return documents


def _standalone_schema(inline: etree._Element) -> etree._Element:
    """An inline schema as its own document, keeping every namespace declaration in scope
    (QName-valued attributes such as type="tns:X" rely on prefixes of wsdl:definitions)."""
    copy = etree.Element(inline.tag, attrib=dict(inline.attrib), nsmap=inline.nsmap)
    copy.text = inline.text
    for child in inline:
        copy.append(deepcopy(child))
    return copy


class _MapResolver(etree.Resolver):
    """Serves exactly the pre-read schema documents; anything else fails to load."""

    def __init__(self, documents: dict[str, bytes]) -> None:
        super().__init__()
        self._documents = documents

    def resolve(self, url: str, pubid: str | None, context: Any) -> Any:
        path = unquote(urlsplit(url).path) if url.startswith("file:") else url
        key = os.path.realpath(path) if path else path
        if key in self._documents:
            return self.resolve_string(self._documents[key], context, base_url=key)
        raise WsdlLoadError(f"refused schema location {url!r}")


def _build_schema(
    wsdl_root: etree._Element, wsdl_path: Path, documents: dict[Path, etree._Element]
) -> tuple[etree.XMLSchema, dict[str, Path]]:
    serialized = {str(p): etree.tostring(doc) for p, doc in documents.items()}
    sources: dict[str, Path] = {}
    wrapper = etree.Element(f"{{{XSD_NS}}}schema", nsmap={"xs": XSD_NS})
    seen: set[str] = set()
    for path, doc in sorted(documents.items(), key=lambda item: str(item[0])):
        namespace = doc.get("targetNamespace")
        if not namespace or namespace in seen:
            continue  # chameleon or no-namespace schemas are reached through their includer
        seen.add(namespace)
        if not path.name.startswith(".inline-schema-"):
            sources.setdefault(namespace, path)
        etree.SubElement(
            wrapper, f"{{{XSD_NS}}}import", namespace=namespace, schemaLocation=str(path)
        )
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    parser.resolvers.add(_MapResolver(serialized))
    try:
        wrapper_doc = etree.fromstring(etree.tostring(wrapper), parser, base_url=str(wsdl_path))
        return etree.XMLSchema(wrapper_doc), sources
    except etree.XMLSchemaParseError as exc:
        raise WsdlLoadError(f"{wsdl_path}: the types schema does not compile: {exc}") from None


def _schema_versions(documents: dict[Path, etree._Element]) -> dict[str, str]:
    return {
        doc.get("targetNamespace", ""): doc.get("version", "")
        for doc in documents.values()
        if doc.get("targetNamespace")
    }
