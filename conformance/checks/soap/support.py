"""What the SOAP suite's tests share: the loaded contract, generators and request builders.

`SoapSuite.for_service(soap_service)` takes the `soap_service` fixture (attributes `url`,
`soap_action_base`, `wsdl_path`, `post(body, headers) -> Exchange`) and loads the WSDL the
profile names with the endpoint and action base filled in. The SOAPAction the suite sends
is read from the WSDL binding, never derived from the operation name.

Controls: a negative check changes one thing of a valid request (a schema-valid input
element in a SOAP 1.1 envelope, the WSDL's SOAPAction, text/xml) and sends the unchanged
request too, first (`control`). Its refusal counts only when the control was accepted;
a refused control raises `Blocked` with one cause per kind of refusal
("valid GraafberichtServiceRequest -> HTTP 500 Server Fault"), the cause under which
soap.response.status_ok fails and the response-element checks are blocked too, so the
run lists that one refusal once, with every check it took down. A check whose changed
request is not made from a drawn one uses `shared_control`: one fixed valid request,
answered once per run. A check with several variants of its one change (every kind of
DOCTYPE, each place of soap:encodingStyle: conformance/checks/soap/probes.py) sends its
control once and judges every variant (`judge_each`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from lxml import etree

from conformance.checks.finding import Blocked, Finding
from conformance.checks.soap import messages
from conformance.checks.soap.probes import Probe
from conformance.errors import NotApplicable
from conformance.http.exchange import Exchange
from conformance.soap import OPERATION, SOAP12_ENV_NS
from conformance.soap.envelope import build_envelope
from conformance.soap.loader import OperationInfo, ServiceContract, load_contract
from conformance.soap.samples import sample_request
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

    # ------------------------------------------------------------------ controls
    def control(self, body: bytes) -> Exchange:
        """Send the unchanged request of a negative check (with the default headers);
        Blocked unless it is accepted."""
        exchange = self.post(body)
        self.require_accepted(exchange)
        return exchange

    def shared_control(self) -> None:
        """The control of a check whose changed request is not made from a drawn request
        (a body that is not XML, the Fault-format probe): the reference request, sent once
        per run (the service's `controls` cache) -- the same request gets the same answer
        within a run, and one answer gives all those checks the same cause."""
        body = self.envelope(self.reference_request())
        cache = getattr(self.service, "controls", None)
        if cache is None:
            self.control(body)
            return
        if body not in cache:
            cache[body] = self.post(body)
        self.require_accepted(cache[body])

    def refusal_cause(self, exchange: Exchange) -> str | None:
        """None when a valid request's answer is an acceptance (HTTP 200, no Fault); else
        the cause, stated the same by every check the refusal takes down (the negative
        checks whose control it was, the response checks, soap.response.status_ok)."""
        refusal = messages.control_refusal(exchange)
        if refusal is None:
            return None
        assert self.operation.input_element is not None
        return f"valid {etree.QName(self.operation.input_element).localname} -> {refusal[0]}"

    def require_accepted(self, exchange: Exchange) -> None:
        """Blocked unless the control of a negative check was accepted."""
        cause = self.refusal_cause(exchange)
        if cause is not None:
            raise Blocked(f"the unchanged, schema-valid request (control) must be accepted for a refusal "
                          f"of the changed one to count; it was refused ({_said(exchange)})", cause)

    def require_response(self, exchange: Exchange) -> None:
        """Blocked unless a valid request got a response to judge (soap.response.status_ok
        fails under the same cause)."""
        cause = self.refusal_cause(exchange)
        if cause is not None:
            raise Blocked(f"a schema-valid request answered with a response, not a Fault ({_said(exchange)})", cause)

    def reference_request(self) -> etree._Element:
        """A fixed schema-valid request: the hand-written sample where it fits the profile's
        schema, else the simplest instance the schema allows."""
        sample = sample_request()
        if sample.tag == self.operation.input_element and not self.contract.schema_errors(sample):
            return sample
        return find(self.valid_requests(), lambda _: True,
                    settings=settings(database=None, derandomize=True, max_examples=1))

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

    # ------------------------------------------------------------------ probes
    def judge_each(self, probes: Iterable[Probe], judge: Callable[[Exchange, Probe], None], **options: Any) -> None:
        """Send every probe (after the check's control) and judge each answer; one Finding
        naming every variant that failed, so a run shows all of a server's gaps at once."""
        failures: list[str] = []
        sent = 0
        for probe in probes:
            sent += 1
            try:
                judge(self.post(probe.body, **options), probe)
            except Finding as finding:
                failures.append(f"{probe.variant}: {finding}")
        if failures:
            raise Finding(f"{len(failures)} of {sent} variants failed -- " + " | ".join(failures))

    def get(self) -> Exchange:
        """GET on the endpoint itself (not the ?wsdl query), through the same bounded client."""
        return self.service.client.request("GET", self.service.url)


def _said(exchange: Exchange) -> str:
    refusal = messages.control_refusal(exchange)
    said = refusal[1] if refusal else ""
    return exchange.summary() + (f", faultstring {said!r}" if said else "")
