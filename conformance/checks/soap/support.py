"""What the SOAP suite's tests share: the loaded contract, generators and request builders.

`SoapSuite.for_service(soap_service)` takes the `soap_service` fixture (attributes `url`,
`soap_action_base`, `wsdl_path`, `post(body, headers) -> Exchange`) and loads the WSDL the
profile names with the endpoint and action base filled in. The SOAPAction the suite sends
is read from the WSDL binding, never derived from the operation name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from lxml import etree

from conformance.errors import NotApplicable
from conformance.http.exchange import Exchange
from conformance.soap import OPERATION, SOAP12_ENV_NS
from conformance.soap.envelope import build_envelope
from conformance.soap.loader import OperationInfo, ServiceContract, load_contract
from conformance.soap.strategies import (
    Mutant,
    SchemaStrategies,
    UnsupportedSchema,
    invalid_elements,
    one_mutant_per_kind,
    strategies_for,
)

XML_CONTENT_TYPE = "text/xml; charset=utf-8"
OVERSIZED_REQUEST_BYTES = 4_000_000
XXE_TARGET = "file:///etc/passwd"
# (request path, response path): how a response (5b) refers to its request (5a) in the
# shipped, designed schema.
REFERENCE_PAIRS = (
    ("BerichtKop/BerichtId", "Referentie/BerichtId"),
    ("Graafmelding/MeldingNummer", "Referentie/MeldingNummer"),
)
_OMIT = object()


def suite_settings() -> settings:
    """Examples per generated check: the run's budget (--max-examples or the profile's [fuzz]
    table, loaded by the pytest plugin as the default hypothesis profile). No shrinking:
    against a live endpoint every example is a request, and the first failing one is
    reported with its detail already."""
    return settings(
        deadline=None,
        phases=(Phase.explicit, Phase.generate),
        database=None,
        report_multiple_bugs=False,
        suppress_health_check=(
            HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much, HealthCheck.large_base_example,
        ),
    )


@dataclass(frozen=True)
class SoapSuite:
    service: Any
    contract: ServiceContract
    operation: OperationInfo
    strategies: SchemaStrategies

    @classmethod
    def for_service(cls, service: Any) -> SoapSuite:
        contract = load_contract(service.wsdl_path, soap_url=service.url, soap_action_base=service.soap_action_base)
        operation = contract.operations.get(OPERATION)
        if operation is None or operation.input_element is None or operation.output_element is None:
            raise NotApplicable(f"the WSDL has no document operation {OPERATION} (see soap.wsdl.* checks)")
        try:
            strategies = strategies_for(contract, etree.QName(operation.input_element).namespace)
        except UnsupportedSchema as exc:
            raise NotApplicable(str(exc)) from None
        return cls(service, contract, operation, strategies)

    # ------------------------------------------------------------------ requests
    def headers(self, *, action: object = None, content_type: str = XML_CONTENT_TYPE) -> dict[str, str]:
        """Headers of a SOAP 1.1 request; `action=_OMIT` (see `without_action`) leaves
        SOAPAction out, a string replaces the WSDL's value."""
        headers = {"Content-Type": content_type}
        if action is not _OMIT:
            value = (self.operation.soap_action or "") if action is None else str(action)
            headers["SOAPAction"] = f'"{value}"'
        return headers

    without_action = _OMIT

    def post(self, body: bytes, **header_options: Any) -> Exchange:
        return self.service.post(body, self.headers(**header_options))

    def valid_requests(self) -> st.SearchStrategy[etree._Element]:
        assert self.operation.input_element is not None
        return self.strategies.element(self.operation.input_element)

    def valid_responses(self) -> st.SearchStrategy[etree._Element]:
        assert self.operation.output_element is not None
        return self.strategies.element(self.operation.output_element)

    def invalid_requests(self, kind: str) -> st.SearchStrategy[Mutant]:
        assert self.operation.input_element is not None
        return invalid_elements(self.strategies, self.operation.input_element, (kind,))

    def invalid_request_sets(self) -> st.SearchStrategy[list[Mutant]]:
        """Per example: one request broken once per mutation kind the schema offers."""
        assert self.operation.input_element is not None
        return one_mutant_per_kind(self.strategies, self.operation.input_element)

    # ------------------------------------------------------------------ special bodies
    @staticmethod
    def envelope(element: etree._Element) -> bytes:
        return build_envelope(element)

    @staticmethod
    def soap12_envelope(element: etree._Element) -> bytes:
        return build_envelope(element, soap_namespace=SOAP12_ENV_NS)

    @staticmethod
    def oversized_envelope(element: etree._Element, size: int = OVERSIZED_REQUEST_BYTES) -> bytes:
        """A schema-valid request made large by a comment in the Body: only the size is wrong."""
        data = build_envelope(element)
        padding = b"<!-- " + b"x" * size + b" -->"
        return data.replace(b"</soapenv:Body>", padding + b"</soapenv:Body>", 1)

    @staticmethod
    def xxe_envelope(element: etree._Element, text_path: str = "Graafmelding/Contact/Naam") -> bytes:
        """A request whose DOCTYPE declares an external file entity used in a text field."""
        namespace = etree.QName(element).namespace or ""
        target = element.find("/".join(f"{{{namespace}}}{s}" for s in text_path.split("/")))
        marker = "XXE-PROBE-MARKER"
        if target is not None:
            target.text = marker
        data = build_envelope(element)
        declaration, _, rest = data.partition(b"?>")
        doctype = f'<!DOCTYPE soapenv:Envelope [<!ENTITY xxe SYSTEM "{XXE_TARGET}">]>'.encode()
        return declaration + b"?>\n" + doctype + b"\n" + rest.lstrip().replace(marker.encode(), b"Probe &xxe;")
