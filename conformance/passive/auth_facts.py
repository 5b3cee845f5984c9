"""What the authorization server's exchanges in a capture show, read from the raw exchange
before it is redacted and kept only as facts that are not secret: a verifier's length and
alphabet and its S256 transform (which is the public challenge), a code's digest (to link
its issue to its redemption), an assertion's header and claims (not its signature), the
scheme of an Authorization header. Nothing a report shows can be replayed.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlsplit

from conformance.http.exchange import Exchange, parse_json
from conformance.http.redaction import MASK

TOKEN_PATH = "/auth/oauth/v2/token"
AUTHORIZE_PATH = "/auth/oauth/v2/authorize"
# Seed part 2's authorization request, besides PKCE (judged on its own).
AUTHORIZATION_PARAMETERS = ("response_type", "client_id", "state", "scope", "redirect_uri", "nonce")
RESOURCE_PATHS = ("/aanbiedenverzoeken/v1/", "/registry-inzage/v6")  # seed part 4
VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


@dataclass(frozen=True)
class AuthExchange:
    exchange: Exchange  # redacted: what reports show
    kind: str           # authorize | token | resource | redirect (an answer that sends a code back)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        ex = self.exchange
        what = f" grant_type={self.facts['grant_type']}" if self.facts.get("grant_type") else ""
        return f"{ex.method} {urlsplit(ex.url).path}{what} -> {ex.status}"


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:16]


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii", "replace")).digest()).rstrip(b"=").decode()


def _jwt_part(token: str, index: int) -> dict[str, Any] | None:
    """A JWT's header or claims; None when it is not a JSON object. Read with parse_json,
    bounded in size and depth: a captured assertion is untrusted input (json.loads of one
    nested 5,000 deep raised RecursionError here, out of `conformance traffic`)."""
    try:
        part = token.split(".")[index]
        data = parse_json(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (IndexError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _moment(ex: Exchange) -> float | None:
    try:
        return datetime.fromisoformat(str(ex.notes.get("startedDateTime")).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _basic_client(value: str | None) -> str | None:
    """The client_id of HTTP Basic client authentication (RFC 6749 2.3.1: form-encoded, then
    RFC 7617); MASK when a capture masked the header; None without one."""
    if value is None:
        return None
    if MASK in value:
        return MASK
    scheme, _, credentials = value.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    user, colon, _password = decoded.partition(":")
    return unquote_plus(user) if colon and user else None


def classify(raw: Exchange) -> tuple[str, dict[str, Any]] | None:
    """(kind, facts) of an exchange of the authorization server or its resource servers."""
    path = urlsplit(raw.url).path
    location = raw.response_headers.get("location") or ""
    returned = dict(parse_qsl(urlsplit(location).query, keep_blank_values=True))
    facts: dict[str, Any] = {"at": _moment(raw)}
    if "code" in returned:  # whichever request it answers (authorize, a login form): a code goes back
        facts |= {"code_returned": True, "state_returned": returned.get("state")}
        if MASK not in returned["code"]:  # a capture that masked it cannot link it to its redemption
            facts["code"] = digest(returned["code"])
    if path.endswith(TOKEN_PATH) and raw.method == "POST":
        sent = dict(parse_qsl(raw.request_body.decode("utf-8", "replace"), keep_blank_values=True))
        # A capture whose secrets were masked (a run's own traffic.har) shows none of them:
        # what they would have shown is not observed, never judged on the mask.
        form = {k: v for k, v in sent.items() if MASK not in v}
        facts["masked"] = sorted(k for k, v in sent.items() if MASK in v)
        # RFC 6749 2.3.1: a client with a password may authenticate with HTTP Basic instead of
        # client_id and client_secret in the body (every server MUST support it; the body is
        # "NOT RECOMMENDED"): the credentials sent in the header count as sent.
        by_header = _basic_client(raw.request_headers.get("authorization"))
        if by_header == MASK:  # the capture masked the header: what it carried is not observed
            facts["masked"] = sorted({*facts["masked"], "client_id", "client_secret"})
        facts |= {"grant_type": form.get("grant_type"), "content_type": raw.request_headers.get("content-type"),
                  "scope": form.get("scope"), "client_id": form.get("client_id") or (
                      by_header if by_header not in (None, MASK) else None),
                  "verifier_sent": "code_verifier" in sent, "client_auth": "basic" if by_header else "body",
                  # the parameters' names, never their values
                  "sent": sorted({*(k for k, v in sent.items() if v),
                                  *(("client_id", "client_secret") if by_header not in (None, MASK) else ())})}
        if "code" in form:
            facts["code"] = digest(form["code"])
        if "code_verifier" in form:
            verifier = form["code_verifier"]
            facts |= {"verifier_length": len(verifier), "verifier_syntax": bool(VERIFIER.fullmatch(verifier)),
                      "verifier_s256": s256(verifier)}
        if "client_assertion" in form:
            facts |= {"assertion_type": form.get("client_assertion_type"),
                      "assertion_header": _jwt_part(form["client_assertion"], 0),
                      "assertion_claims": _jwt_part(form["client_assertion"], 1)}
        return "token", facts
    if path.endswith(AUTHORIZE_PATH):
        query = dict(parse_qsl(urlsplit(raw.url).query, keep_blank_values=True))
        facts |= {"state": query.get("state"), "challenge": query.get("code_challenge"),
                  "challenge_method": query.get("code_challenge_method"),
                  "parameters": {k: query[k] for k in AUTHORIZATION_PARAMETERS if k in query}}
        return "authorize", facts
    if any(marker in path for marker in RESOURCE_PATHS):
        value = raw.request_headers.get("authorization")
        if value is not None and MASK in value:
            return "resource", facts  # the capture masked it: its scheme is not observed
        return "resource", facts | {"auth_scheme": (value or "").partition(" ")[0]}
    if "code" in returned:
        return "redirect", facts
    document = parse_json(raw.body) if raw.method == "GET" and raw.status == 200 else None
    if isinstance(document, dict) and isinstance(document.get("keys"), list):
        return "jwks", facts | {"jwks": document}  # a published JWKS: public keys and certificates only
    return None
