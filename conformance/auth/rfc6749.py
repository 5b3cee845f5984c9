"""The token endpoint as a client sees it (RFC 6749 sections 4.1.3, 4.4, 5 and 6), with the
four request bodies of seed 001 part 4.

Every request goes through the recorded, redacted ApiClient. A `TokenResult` keeps the raw
token values for the flow that must send them on, and the redacted exchange for checks
and reports: a check never gets a raw value, so a failure message cannot leak one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from conformance.auth.rfc7523 import ASSERTION_TYPE
from conformance.http.client import ApiClient
from conformance.http.exchange import Exchange, parse_json

TOKEN_PATH = "/auth/oauth/v2/token"
AUTHORIZE_PATH = "/auth/oauth/v2/authorize"
FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class TokenResult:
    exchange: Exchange  # redacted: what checks read
    _raw: dict[str, Any] = field(repr=False, default_factory=dict)  # the raw JSON body

    @property
    def status(self) -> int:
        return self.exchange.status

    @property
    def issued(self) -> bool:
        """A token came back: the request was accepted."""
        return self.status == 200 and isinstance(self._raw.get("access_token"), str)

    @property
    def access_token(self) -> str | None:
        value = self._raw.get("access_token")
        return value if isinstance(value, str) else None

    @property
    def refresh_token(self) -> str | None:
        value = self._raw.get("refresh_token")
        return value if isinstance(value, str) else None

    @property
    def error(self) -> str | None:
        value = self._raw.get("error")
        return value if isinstance(value, str) else None

    @property
    def error_description(self) -> str | None:
        """From the redacted body: it goes into reasons and reports."""
        value = self.body.get("error_description")
        return value if isinstance(value, str) else None

    @property
    def answer(self) -> str:
        """The answer in one line, without the address (its port differs per mock instance, and
        causes must read the same for every check one failing step takes down): the status,
        and the server's `error` and `error_description` when it stated why it refused."""
        if self.issued:
            return f"{self.status} with a token"
        if self.error is None:
            return f"{self.status} {self.exchange.media_type or '-'} without an OAuth error"
        return f"{self.status} error={self.error}" + (f" ({self.error_description})" if self.error_description else "")

    @property
    def body(self) -> dict[str, Any]:
        """The redacted JSON body (token values masked)."""
        parsed = self.exchange.json
        return parsed if isinstance(parsed, dict) else {}


class TokenEndpoint:
    """POSTs form bodies to `{auth_url}/auth/oauth/v2/token`."""

    def __init__(self, client: ApiClient, auth_url: str) -> None:
        self._client = client
        self.url = auth_url.rstrip("/") + TOKEN_PATH

    def post(self, fields: Sequence[tuple[str, str]], *, content_type: str = FORM) -> TokenResult:
        body = urlencode(list(fields)).encode("ascii")
        redacted, raw = self._client.request_revealing(
            "POST", self.url, content=body, headers={"Content-Type": content_type, "Accept": "application/json"}
        )
        parsed = parse_json(raw.body)
        return TokenResult(redacted, parsed if isinstance(parsed, dict) else {})

    def exchange_code(
        self, *, code: str | None, client_id: str, redirect_uri: str | None, code_verifier: str | None,
        client_secret: str | None = None,
    ) -> TokenResult:
        """Seed part 4: confidential (with client_secret) or public client. None omits a field."""
        fields = [("grant_type", "authorization_code"), ("code", code), ("client_id", client_id),
                  ("client_secret", client_secret), ("code_verifier", code_verifier), ("redirect_uri", redirect_uri)]
        return self.post([(k, v) for k, v in fields if v is not None])

    def refresh(self, *, refresh_token: str, client_id: str, client_secret: str | None) -> TokenResult:
        fields = [("grant_type", "refresh_token"), ("refresh_token", refresh_token), ("client_id", client_id),
                  ("client_secret", client_secret)]
        return self.post([(k, v) for k, v in fields if v is not None])

    def client_credentials(self, *, assertion: str, scope: str, assertion_type: str = ASSERTION_TYPE,
                           client_id: str | None = None) -> TokenResult:
        """Seed part 4's body; `client_id` (RFC 7521 4.2: optional) is added when given."""
        fields = [("grant_type", "client_credentials"), ("scope", scope), ("client_assertion", assertion),
                  ("client_assertion_type", assertion_type)]
        return self.post(fields + ([("client_id", client_id)] if client_id is not None else []))


def authorize_url(
    auth_url: str, *, client_id: str, redirect_uri: str, scope: str, state: str, nonce: str,
    code_challenge: str | None, code_challenge_method: str | None = "S256",
    extra: Sequence[tuple[str, str]] = (), response_type: str = "code",
) -> str:
    """The authorization request of seed part 2. None leaves a PKCE parameter out."""
    params = [("response_type", response_type), ("client_id", client_id), ("state", state), ("scope", scope),
              ("redirect_uri", redirect_uri), ("nonce", nonce)]
    if code_challenge is not None:
        params.append(("code_challenge", code_challenge))
    if code_challenge_method is not None:
        params.append(("code_challenge_method", code_challenge_method))
    return auth_url.rstrip("/") + AUTHORIZE_PATH + "?" + urlencode(params + list(extra))
