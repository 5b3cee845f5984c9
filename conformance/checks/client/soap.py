"""A client's SOAP request, judged as `conformance soap validate` judges a captured message.

The harness is held to the same rules: `refusal` reads each request of its own by them, so
that one that breaks them is "designed to be refused" by construction
(conformance/http/intent.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import httpx

from conformance.findings import expect
from conformance.http.exchange import Exchange, Headers
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


def refusal(contract: ServiceContract) -> Callable[[httpx.Request], str | None]:
    """Why a request to the SOAP message service breaks the SOAP 1.1 / WS-I rules and the
    WSDL's for a client (method, Content-Type, SOAPAction, envelope, the types schema), or None.
    One request at a time: the contract's lxml schema keeps its error log on itself, and the
    suite sends independent requests from several threads (a race lost a schema error)."""
    lock = threading.Lock()

    def classify(request: httpx.Request) -> str | None:
        ex = Exchange(method=request.method, url=str(request.url),
                      request_headers=Headers(list(request.headers.multi_items())),
                      request_body=request.content or b"", status=0, response_headers=Headers(), body=b"")
        with lock:
            issues = _issues(ex, contract)
        return "; ".join(f"{i.rule}: {i.message}" for i in issues[:3]) or None
    return classify
