"""The WSDL the profile names (or, for the local mock, the shipped one it serves) carries the
seed's names (part 4, part 9). For a real service whose profile names no WSDL there is
nothing of the server's to judge: the shipped template would pass on any server."""

from __future__ import annotations

import pytest

from conformance.checks.registry import MUST, check
from conformance.checks.soap import wsdl
from conformance.errors import NotJudged
from conformance.soap import OPERATION, soap_action
from conformance.soap.loader import ServiceContract, load_contract


@pytest.fixture(scope="module")
def contract(soap_service, profile) -> ServiceContract:
    if not profile.soap.mock and not profile.soap.wsdl:
        raise NotJudged("no WSDL file", "name the service's own WSDL in services.soap.wsdl: only it can be judged")
    return load_contract(
        soap_service.wsdl_path, soap_url=soap_service.url, soap_action_base=soap_service.soap_action_base
    )


@check("soap.wsdl.port_type_operation", MUST, "The port type RegistryNetbeheerderGraafBerichtServicePortType has the operation RegistryRequestNetbeheerderServiceResponse with an input and an output",
       requirements=["SOAP-4.port-type", "SOAP-4.operation"],
       feature="part 4 / WSDL")
def test_port_type_has_the_operation(contract: ServiceContract) -> None:
    wsdl.check_port_type_operation(contract.facts)


@check("soap.wsdl.message_parts", MUST, "Input and output messages have one part `body` referring by element= to GraafberichtServiceRequest and GraafberichtServiceResponse",
       requirements=["SOAP-4.input", "SOAP-4.output", "WSI-BP11-R2204", "WSI-BP11-R2210"],
       feature="part 4 / WSDL")
def test_messages_have_one_body_part_by_element(contract: ServiceContract) -> None:
    wsdl.check_message_parts(contract.facts)


@check("soap.wsdl.binding_document_literal", MUST, "The binding RegistryNetbeheerderGraafBerichtServiceBinding implements the port type with SOAP 1.1, document style, literal use and the SOAP/HTTP transport",
       requirements=["SOAP-4.binding", "WSI-BP11-R2702", "WSI-BP11-R2705", "WSI-BP11-R2706", "WSI-BP11-R2201"],
       feature="part 4 / WSDL")
def test_binding_is_soap11_document_literal_http(contract: ServiceContract) -> None:
    wsdl.check_binding(contract.facts)


@check("soap.wsdl.soap_action", MUST, "The operation's soapAction is {soap_action_base}/RequestNetbeheerderServiceResponse",
       requirements=["SOAP-4.soapAction"],
       feature="part 4 / WSDL")
def test_soap_action_is_the_seeds(contract: ServiceContract, soap_service) -> None:
    wsdl.check_soap_action(contract.facts, soap_action(soap_service.soap_action_base))


@check("soap.wsdl.service_port", MUST, "The service RegistryNetbeheerderGraafBerichtService has the port RegistryNetbeheerderGraafBerichtServicePort on the binding, at the endpoint address",
       requirements=["SOAP-4.service", "SOAP-4.port"],
       feature="part 4 / WSDL")
def test_service_and_port_at_the_endpoint(contract: ServiceContract, soap_service) -> None:
    wsdl.check_service_port(contract.facts, soap_service.url)


@check("soap.wsdl.types_version", MUST, "Both elements are declared in a types namespace with the date segment 20080722, schema version 1.2",
       requirements=["SOAP-9.types-version", "SOAP-2.message-elements"],
       feature="part 4 / WSDL")
def test_types_namespace_and_version(contract: ServiceContract) -> None:
    operation = contract.operations.get(OPERATION)
    wsdl.check_types_version(
        contract.facts,
        operation.input_element if operation else None,
        operation.output_element if operation else None,
    )
