"""Checks of the message service as a whole: its response time and its authentication.

* `post_in_time`: a schema-valid request through a client whose deadline is the profile's
  response-time limit. No answer in time is the service's fault: a Finding with the time
  waited.
* `answer_without_credentials`: what the endpoint does with a schema-valid request that
  carries no credentials: the measured value of the observation soap.auth.credentials_required
  (the seed: "Authentication of the SOAP message service: not shown").
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from conformance.errors import UnreachableError
from conformance.findings import Finding
from conformance.http.exchange import Exchange
from conformance.http.limits import HttpViolation


def post_in_time(endpoint: Any, body: bytes, headers: Mapping[str, str], limit_s: float) -> Exchange:
    """POST through `endpoint` (whose client times out after `limit_s`); a Finding when no
    answer came in time."""
    started = time.monotonic()
    try:
        exchange = endpoint.post(body, headers)
    except HttpViolation as exc:
        if exc.kind not in ("no_answer", "deadline"):
            raise
        waited = time.monotonic() - started
        raise Finding(
            f"no answer to a schema-valid request within {limit_s:g} s ({exc.message})",
            expected=f"an answer within {limit_s:g} s", actual=f"gave up after {waited:.1f} s",
        ) from None
    if exchange.elapsed_ms > limit_s * 1000:  # the time-out bounds each read, not the whole answer
        raise Finding(
            f"the answer to a schema-valid request took longer than {limit_s:g} s",
            expected=f"an answer within {limit_s:g} s", actual=f"{exchange.elapsed_ms / 1000:.1f} s",
        )
    return exchange


def answer_without_credentials(endpoint: Any, body: bytes, headers: Mapping[str, str], *,
                               auth_kind: str) -> dict[str, Any]:
    """Send a valid request without credentials and describe the answer (never a Finding)."""
    observed: dict[str, Any] = {"profile_auth": auth_kind}
    try:
        exchange = endpoint.post(body, headers)
    except (UnreachableError, HttpViolation) as exc:
        refused = isinstance(exc, UnreachableError) or exc.kind in ("tls", "reset")
        if not refused or auth_kind != "client_certificate" or not str(endpoint.url).startswith("https://"):
            raise  # nothing would explain a refused connection but the environment
        observed.update(required=True, answer=f"connection refused without a client certificate ({exc})")
        return observed
    challenge = exchange.response_headers.get("www-authenticate")
    if exchange.status in (401, 403):
        observed.update(required=True, answer=f"HTTP {exchange.status}")
    elif exchange.status == 200:
        observed.update(required=False, answer="HTTP 200")
    else:
        observed.update(required=None, answer=f"HTTP {exchange.status}")
    if challenge:
        observed["challenge"] = challenge.split(" ", 1)[0]  # the scheme only
    return observed
