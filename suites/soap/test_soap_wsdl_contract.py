"""The WSDL the profile names (or, for the local mock, the shipped one it serves) carries the
seed's names (part 4, part 9). For a real service whose profile names no WSDL there is
nothing of the server's to judge: the shipped template would pass on any server."""

from __future__ import annotations

import pytest

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


@pytest.mark.check("soap.wsdl.port_type_operation")
def test_port_type_has_the_operation(contract: ServiceContract) -> None:
    wsdl.check_port_type_operation(contract.facts)


@pytest.mark.check("soap.wsdl.message_parts")
def test_messages_have_one_body_part_by_element(contract: ServiceContract) -> None:
    wsdl.check_message_parts(contract.facts)


@pytest.mark.check("soap.wsdl.binding_document_literal")
def test_binding_is_soap11_document_literal_http(contract: ServiceContract) -> None:
    wsdl.check_binding(contract.facts)


@pytest.mark.check("soap.wsdl.soap_action")
def test_soap_action_is_the_seeds(contract: ServiceContract, soap_service) -> None:
    wsdl.check_soap_action(contract.facts, soap_action(soap_service.soap_action_base))


@pytest.mark.check("soap.wsdl.service_port")
def test_service_and_port_at_the_endpoint(contract: ServiceContract, soap_service) -> None:
    wsdl.check_service_port(contract.facts, soap_service.url)


@pytest.mark.check("soap.wsdl.types_version")
def test_types_namespace_and_version(contract: ServiceContract) -> None:
    operation = contract.operations.get(OPERATION)
    wsdl.check_types_version(
        contract.facts,
        operation.input_element if operation else None,
        operation.output_element if operation else None,
    )
