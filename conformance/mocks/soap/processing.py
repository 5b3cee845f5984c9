"""How the mock processes a parsed SOAP 1.1 envelope: its header entries and the Basic
Profile's envelope rules, each broken on purpose by the fault named beside it.

Header entries (SOAP 1.1 2, 4.2): an entry is for this service when it has no actor or the
actor `http://schemas.xmlsoap.org/soap/actor/next` (4.2.2). The service understands no
header entry, so a mandatory entry for it (mustUnderstand "1") gets a MustUnderstand Fault,
without detail (4.4: the detail never carries header errors), before the Body is looked at
(BP R1025). "true" is not a SOAP 1.1 value (4.2.3 gives "1" and "0"; BP R1013 forbids it to
senders); the mock reads it as xsd:boolean true, which is mandatory too, and refuses any
other value with a Client Fault. Optional entries, entries for other actors and a
mustUnderstand attribute below an entry (4.2.1) are ignored.

Envelope rules: `inspect_envelope` lists every problem with its rule; each is a Client Fault
unless a fault tolerates that rule.
"""

from __future__ import annotations

from lxml import etree

from conformance.mocks.faults import FaultSet
from conformance.mocks.soap.errors import SoapFault
from conformance.soap import SOAP11_ENV_NS
from conformance.soap.envelope import EnvelopeView, Problem
from conformance.soap.loader import ServiceContract

_ENV = f"{{{SOAP11_ENV_NS}}}"
ACTOR_NEXT = "http://schemas.xmlsoap.org/soap/actor/next"
_MANDATORY = ("1", "true")
_OPTIONAL = (None, "0", "false")

# The envelope rules a fault lets through (the mock then processes the message as if it held).
TOLERATED_RULES = {
    "soap.element_after_body_accepted": ("WSI-BP11-R1011",),
    "soap.encoding_style_accepted": ("WSI-BP11-R1005", "WSI-BP11-R1006"),
    "soap.processing_instruction_accepted": ("WSI-BP11-R1009",),
    "soap.unqualified_body_child_accepted": ("WSI-BP11-R1014",),
}


def check_headers(header: etree._Element | None, faults: FaultSet) -> None:
    """A Fault for the first header entry this service must understand (it understands none)."""
    entries = [e for e in header if isinstance(e.tag, str)] if header is not None else []
    if entries and faults.on("soap.header_refused"):
        # The fault: a service that refuses every header entry, optional or not.
        raise SoapFault("Client", f"header entry {entries[0].tag} is not supported")
    for entry in entries:
        # The fault `soap.must_understand_anywhere` also reads the attribute below an entry.
        nodes = entry.iter() if faults.on("soap.must_understand_anywhere") else (entry,)
        for node in nodes:
            value = node.get(f"{_ENV}mustUnderstand")
            if value not in _MANDATORY + _OPTIONAL:
                raise SoapFault("Client", f"mustUnderstand {value!r} on {entry.tag} is neither \"1\" nor \"0\"")
            if value in _MANDATORY and _for_this_service(entry, faults) and not faults.on("soap.must_understand_ignored"):
                code = "Client" if faults.on("soap.must_understand_client_fault") else "MustUnderstand"
                raise SoapFault(code, f"header entry {entry.tag} is not understood")


def _for_this_service(entry: etree._Element, faults: FaultSet) -> bool:
    actor = entry.get(f"{_ENV}actor")
    return actor in (None, ACTOR_NEXT) or faults.on("soap.must_understand_any_actor")


def envelope_problems(view: EnvelopeView, faults: FaultSet) -> list[Problem]:
    tolerated = {rule for name, rules in TOLERATED_RULES.items() if faults.on(name) for rule in rules}
    return [p for p in view.problems if p.rule not in tolerated]


def body_entry(view: EnvelopeView, contract: ServiceContract, faults: FaultSet) -> etree._Element:
    """The one Body child to dispatch (BP R9981), as the faults that tolerate a rule see it."""
    children = view.body_children
    if len(children) != 1 and not (children and faults.on("soap.two_body_children_accepted")):
        raise SoapFault("Client", "the Body must hold exactly one element", (f"found {len(children)}",))
    child = children[0]  # the fault `soap.two_body_children_accepted`: the first one, the rest ignored
    if faults.on("soap.encoding_style_accepted"):
        child.attrib.pop(f"{_ENV}encodingStyle", None)
    if faults.on("soap.unqualified_body_child_accepted") and not etree.QName(child).namespace:
        inputs = [op.input_element for op in contract.operations.values() if op.input_element]
        child.tag = next((tag for tag in inputs if etree.QName(tag).localname == child.tag), child.tag)
    return child
