"""Checks on a WSDL document: pure functions of its WsdlFacts that raise Finding.

A vendor's published WSDL is held to the seed's names (part 4), with the expected values
passed in, so the same functions judge the shipped template and a deployment's file.
"""

from __future__ import annotations

from conformance.findings import expect
from conformance.soap import (
    BINDING,
    OPERATION,
    PART_NAME,
    PORT,
    PORT_TYPE,
    REQUEST_ELEMENT,
    RESPONSE_ELEMENT,
    SERVICE,
    SOAP_HTTP_TRANSPORT,
    TYPES_DATE_SEGMENT,
    TYPES_SCHEMA_VERSION,
    WSDL_SOAP11_NS,
)
from conformance.soap.wsdl_facts import BindingFact, PortTypeOperationFact, WsdlFacts


def _local(qname: str | None) -> str:
    return (qname or "").rsplit("}", 1)[-1]


def _namespace(qname: str | None) -> str:
    return (qname or "").partition("}")[0].lstrip("{") if qname and qname.startswith("{") else ""


def _operation(facts: WsdlFacts) -> PortTypeOperationFact:
    operations = facts.port_types.get(facts.qname(PORT_TYPE))
    expect(operations is not None, f"the WSDL has no portType {PORT_TYPE}",
           actual=", ".join(_local(n) for n in facts.port_types) or "none")
    assert operations is not None
    operation = operations.get(OPERATION)
    expect(operation is not None, f"the portType has no operation {OPERATION}", actual=", ".join(operations) or "none")
    assert operation is not None
    return operation


def _binding(facts: WsdlFacts) -> BindingFact:
    binding = facts.bindings.get(facts.qname(BINDING))
    expect(binding is not None, f"the WSDL has no binding {BINDING}",
           actual=", ".join(_local(n) for n in facts.bindings) or "none")
    assert binding is not None
    return binding


def check_port_type_operation(facts: WsdlFacts) -> None:
    operation = _operation(facts)
    expect(operation.input_message is not None and operation.output_message is not None,
           f"operation {OPERATION} is not request-response (input and output)",
           actual=f"input={operation.input_message}, output={operation.output_message}")


def check_message_parts(facts: WsdlFacts) -> None:
    operation = _operation(facts)
    for direction, message, element in (
        ("input", operation.input_message, REQUEST_ELEMENT),
        ("output", operation.output_message, RESPONSE_ELEMENT),
    ):
        parts = facts.messages.get(message or "")
        expect(parts is not None, f"the {direction} message {message} is not defined in the WSDL")
        assert parts is not None
        expect(len(parts) == 1 and parts[0].name == PART_NAME,
               f"the {direction} message has not exactly one part named {PART_NAME!r}",
               actual=[p.name for p in parts])
        part = parts[0]
        expect(part.element is not None and part.type is None,
               f"the {direction} part refers by type= instead of element= (document/literal needs element=)",
               actual=part.type)
        expect(_local(part.element) == element and TYPES_DATE_SEGMENT in _namespace(part.element),
               f"the {direction} part does not refer to {element} in the types namespace",
               expected=f"{{…{TYPES_DATE_SEGMENT}…}}{element}", actual=part.element)


def check_binding(facts: WsdlFacts) -> None:
    binding = _binding(facts)
    expect(binding.type == facts.qname(PORT_TYPE), "the binding does not implement the seed's port type",
           expected=facts.qname(PORT_TYPE), actual=binding.type)
    expect(binding.soap_namespace == WSDL_SOAP11_NS, "the binding is not a SOAP 1.1 binding",
           expected=WSDL_SOAP11_NS, actual=binding.soap_namespace)
    expect(binding.transport == SOAP_HTTP_TRANSPORT, "the binding's transport is not SOAP over HTTP",
           expected=SOAP_HTTP_TRANSPORT, actual=binding.transport)
    operation = binding.operations.get(OPERATION)
    expect(operation is not None, f"the binding has no operation {OPERATION}", actual=", ".join(binding.operations))
    assert operation is not None
    expect(operation.style == "document", "the operation's style is not document", actual=operation.style)
    expect(operation.input_use == "literal" and operation.output_use == "literal",
           "input and output soap:body are not use=\"literal\"",
           actual=f"input={operation.input_use}, output={operation.output_use}")
    for parts in (operation.input_parts, operation.output_parts):
        expect(parts is None or len(parts.split()) <= 1, "a soap:body lists more than one part", actual=parts)


def check_soap_action(facts: WsdlFacts, expected_action: str) -> None:
    operation = _binding(facts).operations.get(OPERATION)
    expect(operation is not None, f"the binding has no operation {OPERATION}")
    assert operation is not None
    expect(operation.soap_action == expected_action, "the soapAction is not the seed's",
           expected=expected_action, actual=operation.soap_action)


def check_service_port(facts: WsdlFacts, expected_address: str | None) -> None:
    ports = facts.services.get(SERVICE)
    expect(ports is not None, f"the WSDL has no service {SERVICE}", actual=", ".join(facts.services) or "none")
    assert ports is not None
    port = ports.get(PORT)
    expect(port is not None, f"the service has no port {PORT}", actual=", ".join(ports) or "none")
    assert port is not None
    expect(port.binding == facts.qname(BINDING), "the port does not use the seed's binding",
           expected=facts.qname(BINDING), actual=port.binding)
    expect(port.address_namespace == WSDL_SOAP11_NS and bool(port.address),
           "the port has no SOAP 1.1 soap:address", actual=port.address)
    if expected_address:
        expect(port.address == expected_address, "the port's address is not the endpoint",
               expected=expected_address, actual=port.address)


def check_types_version(facts: WsdlFacts, request_element: str | None, response_element: str | None) -> None:
    """`request_element`/`response_element`: the operation's elements as zeep resolved them
    against the compiled schema (None when they are not declared)."""
    for name, qname in ((REQUEST_ELEMENT, request_element), (RESPONSE_ELEMENT, response_element)):
        expect(qname is not None and _local(qname) == name, f"the element {name} is not declared in the types",
               actual=qname)
        namespace = _namespace(qname)
        expect(TYPES_DATE_SEGMENT in namespace, f"the namespace of {name} lacks the date segment {TYPES_DATE_SEGMENT}",
               actual=namespace)
        version = facts.schema_versions.get(namespace)
        expect(version == TYPES_SCHEMA_VERSION, f"the types schema of {namespace} is not version {TYPES_SCHEMA_VERSION}",
               expected=TYPES_SCHEMA_VERSION, actual=version or "no version attribute")
