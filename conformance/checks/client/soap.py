"""A client's SOAP request, judged as `conformance soap validate` judges a captured message."""

from __future__ import annotations

from conformance.findings import expect
from conformance.http.exchange import Exchange
from conformance.soap.loader import ServiceContract
from conformance.soap.validate import Issue, validate_message

_ACTION_RULES = frozenset({"SOAP11-6.1.1", "WSI-BP11-R1109", "WSI-BP11-R2744", "WSI-BP11-R2745"})


def _issues(ex: Exchange, contract: ServiceContract) -> list[Issue]:
    """The request as an HTTP capture (request line, headers, body), validated."""
    head = f"{ex.method} {ex.path or '/'} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in ex.request_headers.items())
    return list(validate_message(head.encode("utf-8", "replace") + b"\r\n" + ex.request_body, contract,
                                 source=ex.url).issues)


def soap_action(ex: Exchange, contract: ServiceContract) -> None:
    bad = [f"{i.rule}: {i.message}" for i in _issues(ex, contract) if i.rule in _ACTION_RULES]
    expect(not bad, "; ".join(bad), actual=ex.request_headers.get("soapaction") or "(no SOAPAction)")


def request_valid(ex: Exchange, contract: ServiceContract) -> None:
    bad = [f"{i.rule}: {i.message}" for i in _issues(ex, contract) if i.rule not in _ACTION_RULES]
    expect(not bad, "; ".join(bad[:5]), actual=bad)
