"""The `soap_service` fixture's object: the SOAP endpoint plus what the service checks need.

`SoapServiceEndpoint` is a `SoapEndpoint` (url, soap_action_base, wsdl_path, client, post)
that also knows the profile's authentication kind and response-time limit, and makes
other clients to the same endpoint, recorded and redacted like the first: one that sends
no credentials (soap.auth.credentials_required) and one with a short time-out
(soap.response.answered_in_time). It also keeps the run's answers to shared control
requests (see conformance/checks/soap/support.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from conformance.http.client import ApiClient
from conformance.http.exchange import Exchange
from conformance.http.limits import DEFAULT_LIMITS
from conformance.http.soap import SoapEndpoint

# ApiClient factory: keyword overrides (timeout_s, auth, cert) -> a new client.
ClientFactory = Callable[..., ApiClient]


@dataclass
class SoapServiceEndpoint(SoapEndpoint):
    auth_kind: str = "none"  # none | basic | client_certificate (the profile's services.soap.auth.kind)
    # The requests are built from the service's own types (the local mock, or a profile naming
    # the register's WSDL): a real service judged on the shipped types is not (issue 51).
    vendor_types: bool = True
    response_time_s: float = 10.0
    client_options: Mapping[str, Any] = field(default_factory=dict)  # what `client` was made with
    make_client: ClientFactory | None = None
    # The answer to each shared control request (a negative check's unchanged request that
    # is the same for every check using it), by request body: asked once per run.
    controls: dict[bytes, Exchange] = field(default_factory=dict)
    # The answer to each shared bad request (the Fault rules judge one), by request body.
    answers: dict[bytes, Exchange] = field(default_factory=dict)

    @contextmanager
    def variant(self, *, anonymous: bool = False, timeout_s: float | None = None) -> Iterator[SoapEndpoint]:
        """The same endpoint through a new client (a new connection): without credentials
        (`anonymous`: no basic credentials, no client certificate; the server is still
        verified as configured) and/or with another time-out."""
        assert self.make_client is not None, "the soap_service fixture makes variants"
        options = dict(self.client_options)
        if anonymous:
            options.pop("auth", None)
            options.pop("cert", None)
            if self.auth_kind != "none":  # the service demands credentials: each request is refused by design
                options["refused_because"] = f"no credentials where the service demands them ({self.auth_kind})"
        if timeout_s is not None:
            # The whole answer within timeout_s, not each read.
            limits = options.get("limits", DEFAULT_LIMITS)
            options["timeout_s"] = timeout_s
            options["limits"] = dataclasses.replace(limits, deadline_s=min(limits.deadline_s, timeout_s))
        client = self.make_client(**options)
        try:
            yield SoapEndpoint(self.url, self.soap_action_base, self.wsdl_path, client)
        finally:
            client.close()
