"""The exception the mock raises while handling a request; the endpoint answers it as a Fault."""

from __future__ import annotations


class SoapFault(Exception):
    """Raised while handling a request; becomes a Fault response."""

    def __init__(
        self, code: str, message: str, detail: tuple[str, ...] = (), *, status: int = 500, refusal: str = "",
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = detail
        # 500 for every Fault (SOAP 1.1 6.2); 405 for a wrong method (BP R1114), 415 for a wrong
        # media type (BP R1115), 401 unauthenticated.
        self.status = status
        # Which protocol violation this refuses: the fault `soap.<refusal>_accepted` lets it through.
        self.refusal = refusal
        self.headers = headers or {}
