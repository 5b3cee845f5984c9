"""The SOAP message service as the suites see it: an endpoint, its WSDL, a recorded POST."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conformance.http.client import ApiClient
from conformance.http.exchange import Exchange


@dataclass
class SoapEndpoint:
    url: str
    soap_action_base: str
    wsdl_path: Path
    client: ApiClient

    def post(self, body: bytes, headers: Mapping[str, str]) -> Exchange:
        """POST raw bytes with exactly the given headers; the exchange is recorded, redacted."""
        return self.client.request("POST", self.url, content=body, headers=dict(headers))

    def close(self) -> None:
        self.client.close()
