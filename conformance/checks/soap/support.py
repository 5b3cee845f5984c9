"""What the SOAP suite's tests share: the loaded contract, generators and request builders.

`SoapSuite.for_service(soap_service)` takes the `soap_service` fixture (attributes `url`,
`soap_action_base`, `wsdl_path`, `post(body, headers) -> Exchange`) and loads the WSDL the
profile names with the endpoint and action base filled in. The SOAPAction the suite sends
is read from the WSDL binding, never derived from the operation name.

The valid batch: the run's schema-valid requests (`valid_batch`), `max_examples` of them
drawn once by hypothesis from the run's seed, each with its schema-invalid mutants (one per
mutation kind the schema offers), sent once, together, and kept on the service object. Every
check on the answer to a valid request judges all of the batch (`judge_valid`); the first
failing request raises its Finding. In a run with xdist workers the first worker to ask
draws and sends the batch and the others read it, requests and answers (the service's
`shared_dir`, the run's directory shared by its processes). Independent requests go
together (`post_all`), never more at once than the service's `limits.concurrency`.

Controls: a negative check changes one thing of a valid request (a schema-valid input
element in a SOAP 1.1 envelope, the WSDL's SOAPAction, text/xml) and sends the unchanged
request too (`control`): the requests it changes are the batch's, whose answers are their
controls (`judge_variants`: sent unchanged, in the batch). Its refusal counts only when the
control was accepted; a refused control raises `Blocked` with one cause per kind of refusal
("valid GraafberichtServiceRequest -> HTTP 500 Server Fault"), the cause under which
soap.response.status_ok fails and the response-element checks are blocked too, so the
run lists that one refusal once, with every check it took down. A check whose changed
request is not made from a drawn one uses `shared_control`: one fixed valid request,
answered once per run. A check with several variants of its one change (every kind of
DOCTYPE, each place of soap:encodingStyle: conformance/checks/soap/probes.py) judges every
variant of a control (`judge_each`, `judge_variants(collect=True)`).
"""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from lxml import etree

from conformance.checks.soap import messages
from conformance.checks.soap.probes import Probe
from conformance.errors import NotApplicable, NotJudged
from conformance.findings import Blocked, Finding
from conformance.http.concurrency import concurrently
from conformance.http.evidence import attach_exchanges
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
# What a Fault rule's active test needs (`require_fault`): a fault's `blocks` names it.
FAULT_NEEDED = "a request with another element in the Body must be answered with a SOAP Fault for the Fault rules to judge it"
OVERSIZED_REQUEST_BYTES = 4_000_000
# (request path, response path): how a response (5b) refers to its request (5a) in the
# shipped, designed schema.
REFERENCE_PAIRS = (
    ("BerichtKop/BerichtId", "Referentie/BerichtId"),
    ("Graafmelding/MeldingNummer", "Referentie/MeldingNummer"),
)
_OMIT = object()
T = TypeVar("T")
# A request to send: its body and the options of `SoapSuite.headers` (action, content_type).
Request = tuple[bytes, Mapping[str, Any]]
# What a request got: its answer, or what sending it raised (a bounded HTTP layer's
# HttpViolation, a spent budget), raised again where the answer is read (`answer`).
Outcome = Exchange | Exception


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


def answer(outcome: Outcome) -> Exchange:
    """The exchange a request got; what sending it raised, raised here: where a request
    sent on its own would have raised it."""
    if isinstance(outcome, Exception):
        raise outcome.with_traceback(None)
    return outcome


@dataclass(frozen=True)
class Sent:
    """A request of the run's valid batch and what it got (its answer is the control of
    every negative check that changes it)."""

    index: int  # its place in the batch
    request: etree._Element  # the schema-valid input element (never changed)
    body: bytes  # its SOAP 1.1 envelope, as sent
    # The request broken once per mutation kind the schema offers, each on its own copy.
    mutants: tuple[Mutant, ...]
    outcome: Outcome

    @property
    def exchange(self) -> Exchange:
        return answer(self.outcome)


@dataclass(frozen=True)
class ValidBatch:
    """The run's valid batch as one test sees it. `sent_here`: this test sent it, so the
    client recorded its exchanges as this test's evidence already; any other test that
    judges them attaches them to its report (`show`), without recording them again."""

    entries: tuple[Sent, ...]
    sent_here: bool

    def first(self, count: int | None) -> ValidBatch:
        return self if count is None else replace(self, entries=self.entries[:count])

    def show(self, judged: Iterable[Sent]) -> None:
        if not self.sent_here:
            attach_exchanges([sent.outcome for sent in judged if isinstance(sent.outcome, Exchange)])


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

    @property
    def concurrency(self) -> int:
        """How many requests to the service may be in flight at once (limits.concurrency)."""
        return max(1, int(getattr(getattr(self.service, "client", None), "concurrency", 1)))

    def post_all(self, items: Sequence[Request]) -> list[Exchange]:
        """Send requests that do not depend on each other together (at most `concurrency`
        at once); their exchanges in order. After all are answered, what the first one
        (in order) raised is raised."""
        calls = [partial(self.post, body, **options) for body, options in items]
        return concurrently(calls, self.concurrency)

    def post_each(self, items: Sequence[Request]) -> list[Outcome]:
        """`post_all`, keeping what a request raised as its outcome (see `answer`)."""
        calls = [partial(_outcome, self.post, body, options) for body, options in items]
        return concurrently(calls, self.concurrency)

    def draw(self, strategy: st.SearchStrategy[T], count: int) -> list[T]:
        """`count` examples of `strategy`, drawn by hypothesis (with the run's seed, so the
        same for a given --seed); nothing is sent while drawing."""
        drawn: list[T] = []
        if count < 1:
            return drawn

        @settings(suite_settings(), max_examples=count)
        @given(strategy)
        def collect(value: T) -> None:
            drawn.append(value)

        collect()
        return drawn

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

    # ------------------------------------------------------------------ the valid batch
    def valid_batch(self) -> ValidBatch:
        """The run's schema-valid requests and their answers: drawn and sent (together) by
        the first test that asks, kept on the service object (`valid_batch`) for the others.
        Each request is the original of its mutants (`invalid_request_sets`)."""
        entries = getattr(self.service, "valid_batch", None)
        if entries is not None:
            return ValidBatch(entries, sent_here=False)

        @st.composite
        def requests(draw: st.DrawFn) -> tuple[etree._Element, list[Mutant]]:
            mutants = draw(self.invalid_request_sets(), label="mutants")
            request = mutants[0].original if mutants else None
            return (request if request is not None else draw(self.valid_requests(), label="request")), mutants

        def draw_and_send() -> tuple[list[Drawn], list[bytes], list[Outcome]]:
            # As the other workers read it back (an empty text is <a/> once parsed): every
            # process, and a run with workers or without, sends the same bytes.
            drawn = [_unpacked_drawn(_packed_drawn(item)) for item in self.draw(requests(), suite_settings().max_examples)]
            bodies = [self.envelope(request) for request, _ in drawn]
            return drawn, bodies, self.post_each([(body, {}) for body in bodies])

        batch_of = (str(getattr(self.service, "wsdl_path", "")), self.operation.input_element,
                    suite_settings().max_examples)
        (drawn, bodies, outcomes), sent_here = _run_wide(getattr(self.service, "shared_dir", None), batch_of,
                                                         draw_and_send)
        entries = tuple(Sent(index, request, body, tuple(mutants), outcome)
                        for index, ((request, mutants), body, outcome) in enumerate(zip(drawn, bodies, outcomes, strict=True)))
        self.service.valid_batch = entries
        return ValidBatch(entries, sent_here=sent_here)

    def judge_valid(self, judge: Callable[[Sent], None]) -> None:
        """Judge the answer to every request of the valid batch, in order: the first that
        fails raises (a check on valid requests). Against a real service whose profile names
        no WSDL, not judged: the requests are valid against the shipped types schema, and the
        seed does not show the messages' content, so a vendor's service may rightly refuse
        them (its refusal is no finding; a negative check's control is then refused and the
        check blocked, as ever)."""
        if not getattr(self.service, "vendor_types", True):
            raise NotJudged("no WSDL of the service's own (services.soap.wsdl)",
                            "set services.soap.wsdl to the WSDL the register hands out, its types schema beside it: "
                            "a request valid against the shipped types may not be valid for this service")
        batch = self.valid_batch()
        judged: list[Sent] = []
        try:
            for sent in batch.entries:
                judged.append(sent)
                judge(sent)
        finally:
            batch.show(judged)

    def judge_variants(self, make: Callable[[Sent], Sequence[Probe]], judge: Callable[[Exchange, Probe, Sent], None],
                       *, requests: int | None = None, collect: bool = False) -> None:
        """A negative check on the first `requests` of the valid batch (all: None): `make`
        changes one thing of a request (its `Probe`s; a probe's `header_options` change the
        headers); the batch's answer to the unchanged request is its control. As one
        request after another would: a request's variants are judged only when its
        control was accepted (else `Blocked`), and the first failure raises; with
        `collect`, one Finding per request naming every variant of it that failed
        (`judge_each`). The variants of all accepted controls are sent together."""
        batch = self.valid_batch().first(requests)
        planned: list[tuple[Sent, list[Probe]]] = []
        stop: Exception | None = None
        for sent in batch.entries:
            try:
                variants = list(make(sent))
                self.require_accepted(sent.exchange)
            except Exception as exc:  # what a serial run would have stopped at, after the ones before
                stop = exc
                batch.show([s for s, _ in planned] + [sent])
                break
            planned.append((sent, variants))
        else:
            batch.show([s for s, _ in planned])
        outcomes = self.post_each([(p.body, p.header_options) for _, variants in planned for p in variants])
        at = 0
        for sent, variants in planned:
            mine, at = outcomes[at:at + len(variants)], at + len(variants)
            if collect:
                self._judge_answers(variants, mine, lambda exchange, probe, sent=sent: judge(exchange, probe, sent))
            else:
                for probe, outcome in zip(variants, mine, strict=True):
                    judge(answer(outcome), probe, sent)
        if stop is not None:
            raise stop

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

    def fault_answer(self) -> Exchange:
        """The answer to a bad request whose Fault the Fault checks judge: an empty output
        element as the request (no operation takes it, whatever the schema), after the run's
        shared control. Sent once per process (the service's `answers`); the first check
        records it as sent, the others attach it to their evidence."""
        assert self.operation.output_element is not None
        self.shared_control()
        body = self.envelope(etree.Element(self.operation.output_element))
        kept = getattr(self.service, "answers", None)
        if kept is None:
            return self.post(body)
        if body in kept:
            attach_exchanges([kept[body]])
        else:
            kept[body] = self.post(body)
        return kept[body]

    def require_fault(self, exchange: Exchange) -> None:
        """Blocked: the bad request of `fault_answer` got no answer the Fault rule judges (no
        Fault, or none this rule reads). Its acceptance is soap.request.wrong_body_element_rejected's
        finding, under the same cause (one defect, one root cause); an HTML page is
        soap.fault.soap_envelope's."""
        raise Blocked(f"{FAULT_NEEDED} ({_said(exchange)})", another_element_cause(exchange))

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
        """Send every probe (after the check's control), together, and judge each answer in
        order; one Finding naming every variant that failed, so a run shows all of a
        server's gaps at once."""
        probes = list(probes)
        outcomes = self.post_each([(probe.body, {**options, **probe.header_options}) for probe in probes])
        self._judge_answers(probes, outcomes, judge)

    @staticmethod
    def _judge_answers(probes: Sequence[Probe], outcomes: Sequence[Outcome],
                       judge: Callable[[Exchange, Probe], None]) -> None:
        failures: list[str] = []
        for probe, outcome in zip(probes, outcomes, strict=True):
            try:
                judge(answer(outcome), probe)
            except Finding as finding:
                failures.append(f"{probe.variant}: {finding}")
        if failures:
            raise Finding(f"{len(failures)} of {len(probes)} variants failed -- " + " | ".join(failures))

    def get(self) -> Exchange:
        """GET on the endpoint itself (not the ?wsdl query), through the same bounded client."""
        return self.service.client.request("GET", self.service.url)


def another_element_cause(exchange: Exchange) -> str:
    """The cause under which a request with another element in its Body was answered without
    a Fault, the same for every check it takes down (no address or port in it)."""
    media_type = (exchange.response_headers.get("content-type") or "no Content-Type").split(";")[0].strip()
    return f"a Body holding another element -> HTTP {exchange.status} {media_type}"


BATCH_FILE = "soap-valid-batch"


Drawn = tuple[etree._Element, list[Mutant]]  # a valid request and its mutants


def _run_wide(directory: str | Path | None, batch_of: Any,
              draw_and_send: Callable[[], tuple[list[Drawn], list[bytes], list[Outcome]]],
              ) -> tuple[tuple[list[Drawn], list[bytes], list[Outcome]], bool]:
    """((drawn, bodies, outcomes), drawn and sent by this process) of the valid batch. With
    the run's shared directory (xdist workers), the first process to ask draws and sends it
    and keeps all of it there; the others wait for it (a lock) and read it: one batch per
    run, drawn once (drawing it from the types schema took each worker 1.5 to 2 CPU-seconds
    of a run). `batch_of` names the batch (WSDL, input element, size): a kept batch of
    another is drawn and sent here."""
    if not directory:
        return draw_and_send(), True
    folder = Path(directory)
    fd = os.open(folder / f"{BATCH_FILE}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # held while the first process draws and sends: the others need it
        kept = folder / f"{BATCH_FILE}.pickle"
        try:
            stored_of, drawn, bodies, stored = pickle.loads(kept.read_bytes())
            if stored_of == batch_of:
                return ([_unpacked_drawn(item) for item in drawn], bodies, [_unpacked(item) for item in stored]), False
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError,
                etree.XMLSyntaxError):
            pass  # none kept yet (or unreadable): draw and send here
        made = draw_and_send()
        drawn, bodies, outcomes = made
        try:
            data = pickle.dumps((batch_of, [_packed_drawn(item) for item in drawn], bodies,
                                 [_packed(outcome) for outcome in outcomes]))
        except (pickle.PicklingError, TypeError, AttributeError):
            return made, True  # not to be shared: the others draw and send their own
        partial_file = folder / f"{BATCH_FILE}.{os.getpid()}.tmp"
        partial_file.write_bytes(data)
        partial_file.replace(kept)
        return made, True
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


_KEPT_XML = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


def _packed_drawn(item: Drawn) -> tuple[bytes, list[tuple[str, str, str, bytes]]]:
    """A drawn request and its mutants as bytes (lxml elements do not pickle); each mutant's
    original is the request itself (one_mutant_per_kind)."""
    request, mutants = item
    return etree.tostring(request), [(m.kind, m.target, m.detail, etree.tostring(m.element)) for m in mutants]


def _unpacked_drawn(packed: tuple[bytes, list[tuple[str, str, str, bytes]]]) -> Drawn:
    request_xml, mutants = packed
    request = etree.fromstring(request_xml, _KEPT_XML)
    return request, [Mutant(kind, target, detail, etree.fromstring(xml, _KEPT_XML), original=request)
                     for kind, target, detail, xml in mutants]


def _packed(outcome: Outcome) -> tuple[str, Any]:
    """An outcome to keep in a file: an exception by its class and state (a Finding's
    constructor does not take back its own args)."""
    if isinstance(outcome, Exception):
        return "raised", (type(outcome), outcome.args, dict(outcome.__dict__))
    return "answered", outcome


def _unpacked(item: tuple[str, Any]) -> Outcome:
    kind, value = item
    if kind == "answered":
        return value
    cls, args, state = value
    exc = cls.__new__(cls)
    exc.args = args
    exc.__dict__.update(state)
    return exc


def _outcome(post: Callable[..., Exchange], body: bytes, options: Mapping[str, Any]) -> Outcome:
    try:
        return post(body, **options)
    except Exception as exc:  # kept, raised where its answer is read (`answer`)
        return exc


def _said(exchange: Exchange) -> str:
    refusal = messages.control_refusal(exchange)
    said = refusal[1] if refusal else ""
    return exchange.summary() + (f", faultstring {said!r}" if said else "")
