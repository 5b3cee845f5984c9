"""What a WSDL 1.1 document says, read with lxml into plain values.

The WSDL checks are pure functions of these facts (conformance/checks/soap/wsdl.py). They
are read from the document itself rather than from zeep's model, because a conformance
check must see what is written (a `type=` part, a SOAP 1.2 binding, an rpc style) even
where a toolkit would quietly adapt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from conformance.soap import WSDL_NS, WSDL_SOAP11_NS, WSDL_SOAP12_NS

_SOAP_BINDING_NAMESPACES = (WSDL_SOAP11_NS, WSDL_SOAP12_NS)


@dataclass(frozen=True)
class PartFact:
    name: str
    element: str | None  # Clark notation; doc/literal parts use element=
    type: str | None


@dataclass(frozen=True)
class PortTypeOperationFact:
    name: str
    input_message: str | None
    output_message: str | None


@dataclass(frozen=True)
class BindingOperationFact:
    name: str
    soap_action: str | None
    style: str | None
    input_use: str | None
    output_use: str | None
    input_parts: str | None  # the `parts` attribute of soap:body, when given
    output_parts: str | None


@dataclass(frozen=True)
class BindingFact:
    name: str
    type: str | None
    soap_namespace: str | None  # namespace of the soap:binding element (1.1 or 1.2)
    style: str | None
    transport: str | None
    operations: dict[str, BindingOperationFact] = field(default_factory=dict)


@dataclass(frozen=True)
class PortFact:
    name: str
    binding: str | None
    address: str | None
    address_namespace: str | None


@dataclass(frozen=True)
class WsdlFacts:
    target_namespace: str
    messages: dict[str, list[PartFact]]
    port_types: dict[str, dict[str, PortTypeOperationFact]]
    bindings: dict[str, BindingFact]
    services: dict[str, dict[str, PortFact]]
    schema_versions: dict[str, str]  # types namespace -> xs:schema/@version

    def qname(self, local: str) -> str:
        return f"{{{self.target_namespace}}}{local}"


def resolve_qname(element: etree._Element, value: str | None) -> str | None:
    """A QName-valued attribute in Clark notation, using the element's in-scope prefixes.
    An unbound prefix yields `{?prefix}local`, which never matches an expected name."""
    if not value:
        return None
    prefix, _, local = value.rpartition(":")
    namespace = element.nsmap.get(prefix or None)
    if namespace is None:
        return f"{{?{prefix}}}{local}" if prefix else local
    return f"{{{namespace}}}{local}"


def read_facts(root: etree._Element, *, schema_versions: dict[str, str] | None = None) -> WsdlFacts:
    tns = root.get("targetNamespace", "")
    w = f"{{{WSDL_NS}}}"
    messages = {
        f"{{{tns}}}{m.get('name')}": [
            PartFact(
                name=p.get("name", ""),
                element=resolve_qname(p, p.get("element")),
                type=resolve_qname(p, p.get("type")),
            )
            for p in m.iterfind(f"{w}part")
        ]
        for m in root.iterfind(f"{w}message")
    }
    port_types = {
        f"{{{tns}}}{pt.get('name')}": {
            op.get("name", ""): PortTypeOperationFact(
                name=op.get("name", ""),
                input_message=_message_ref(op, "input"),
                output_message=_message_ref(op, "output"),
            )
            for op in pt.iterfind(f"{w}operation")
        }
        for pt in root.iterfind(f"{w}portType")
    }
    bindings = {f"{{{tns}}}{b.get('name')}": _binding(b) for b in root.iterfind(f"{w}binding")}
    services = {
        s.get("name", ""): {p.get("name", ""): _port(p) for p in s.iterfind(f"{w}port")}
        for s in root.iterfind(f"{w}service")
    }
    return WsdlFacts(tns, messages, port_types, bindings, services, dict(schema_versions or {}))


def _message_ref(operation: etree._Element, direction: str) -> str | None:
    node = operation.find(f"{{{WSDL_NS}}}{direction}")
    return resolve_qname(node, node.get("message")) if node is not None else None


def _soap_child(parent: etree._Element | None, local: str) -> etree._Element | None:
    if parent is None:
        return None
    for namespace in _SOAP_BINDING_NAMESPACES:
        found = parent.find(f"{{{namespace}}}{local}")
        if found is not None:
            return found
    return None


def _binding(binding: etree._Element) -> BindingFact:
    soap_binding = _soap_child(binding, "binding")
    default_style = soap_binding.get("style") if soap_binding is not None else None
    operations: dict[str, BindingOperationFact] = {}
    for op in binding.iterfind(f"{{{WSDL_NS}}}operation"):
        soap_op = _soap_child(op, "operation")
        body_in = _soap_child(op.find(f"{{{WSDL_NS}}}input"), "body")
        body_out = _soap_child(op.find(f"{{{WSDL_NS}}}output"), "body")
        name = op.get("name", "")
        operations[name] = BindingOperationFact(
            name=name,
            soap_action=soap_op.get("soapAction") if soap_op is not None else None,
            # WSDL 1.1 section 3.4: the operation's style defaults to the binding's.
            style=(soap_op.get("style") if soap_op is not None else None) or default_style,
            input_use=body_in.get("use") if body_in is not None else None,
            output_use=body_out.get("use") if body_out is not None else None,
            input_parts=body_in.get("parts") if body_in is not None else None,
            output_parts=body_out.get("parts") if body_out is not None else None,
        )
    return BindingFact(
        name=binding.get("name", ""),
        type=resolve_qname(binding, binding.get("type")),
        soap_namespace=etree.QName(soap_binding).namespace if soap_binding is not None else None,
        style=default_style,
        transport=soap_binding.get("transport") if soap_binding is not None else None,
        operations=operations,
    )


def _port(port: etree._Element) -> PortFact:
    address = _soap_child(port, "address")
    return PortFact(
        name=port.get("name", ""),
        binding=resolve_qname(port, port.get("binding")),
        address=address.get("location") if address is not None else None,
        address_namespace=etree.QName(address).namespace if address is not None else None,
    )
