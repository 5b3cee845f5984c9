"""Small named checks of the token flows, in the manner of the OpenID conformance suite's
conditions (EnsureErrorIsInvalidGrant ...). Each takes what a flow produced (redacted
exchanges, results without raw values) and raises a Finding when the server deviates.

They judge only what the standards require and accept what they allow: extra redirect
parameters, media-type parameters in any case, 400 or 401 for a refused client. The form of
the authorization response (a 302, code and state in the query: seed parts 2 and 4) is one
check of its own (ensure_authorization_response_form); the others take the code wherever
it came.
"""

from __future__ import annotations

from typing import Any

from conformance.auth.login import AuthorizationResult
from conformance.auth.rfc6749 import TokenResult
from conformance.errors import NotJudged
from conformance.findings import Finding, expect
from conformance.http.evidence import step
from conformance.http.exchange import Exchange

REFUSED_STATUSES = (400, 401)


def ensure_token_issued(result: TokenResult, what: str) -> None:
    expect(result.issued, f"{what}: no token was issued",
           expected="200 with access_token", actual=_token_answer(result))


def ensure_token_refused(result: TokenResult, what: str) -> None:
    """The token endpoint said no: a 400 or 401 and no access token (RFC 6749 5.2)."""
    expect(not result.issued, f"{what} was accepted: a token was issued", expected="400/401 error", actual=_token_answer(result))
    expect(result.status in REFUSED_STATUSES, f"{what}: refused with an unexpected status",
           expected="400 or 401", actual=_token_answer(result))


def ensure_error_code(result: TokenResult, allowed: tuple[str, ...], what: str) -> None:
    expect(result.error in allowed, f"{what}: wrong error code", expected=" or ".join(allowed), actual=result.answer)


def ensure_code_issued(result: AuthorizationResult, what: str) -> None:
    expect(result.code is not None, f"{what}: the authorization ended without a code",
           expected="redirect with code", actual=_authz_answer(result))


def ensure_authorization_response_form(result: AuthorizationResult) -> None:
    """Seed part 4 ("via 302 redirect") and part 2 ("The redirect back to redirect_uri
    carries query parameters `state` and `code`"). The status is judged where the driver saw
    it; the check raises NotJudged after judging the query when it did not (a human's browser)."""
    where = "the fragment" if result.in_fragment else "the query"
    expect(not result.in_fragment, "code and state came back in the redirect's fragment, not its query",
           expected="redirect_uri?code=...&state=...", actual=f"parameters in {where}")
    missing = [name for name, value in (("code", result.code), ("state", result.state)) if value is None]
    expect(not missing, "the redirect's query lacks response parameters", expected="code and state",
           actual=f"missing {', '.join(missing)}")
    if result.status is None:
        raise NotJudged("the redirect's status: the login driver did not see it (a browser followed it)",
                        "use the form or the immediate login driver (services.auth.login.driver)")
    expect(result.status == 302, "the authorization response is not the seed's 302 redirect", expected=302,
           actual=result.status)


def ensure_no_code(result: AuthorizationResult, what: str) -> None:
    expect(result.code is None, f"{what}: a code was issued", expected="an error redirect or page", actual=_authz_answer(result))


def ensure_api_served(ex: Exchange, what: str) -> None:
    expect(ex.status == 200, f"{what}: the API did not serve a valid token", expected=200, actual=ex.summary())


def ensure_api_served_if_present(flows: Any, api: str, token: str | None, what: str) -> None:
    """A positive flow ends at the API that takes its token; a deployment without that API
    (services.auth.resource_servers) is judged up to the token response."""
    if not flows.has_api(api):
        with step(f"the deployment has no {api} API: the flow is judged up to its token"):
            pass
        return
    ensure_api_served(flows.call_filing(token) if api == "filing" else flows.call_inquiry(token), what)


def ensure_api_not_served(ex: Exchange, what: str) -> None:
    """Refused, whatever the status: a 4xx (what RFC 6750 3.1 advises is another check's)."""
    expect(400 <= ex.status < 500, f"{what}: the API did not refuse", expected="a 4xx refusal", actual=ex.summary())


def ensure_api_refused(ex: Exchange, status: int, what: str) -> None:
    expect(ex.status == status, f"{what}: the API did not refuse as RFC 6750 says", expected=status, actual=ex.summary())


def ensure_www_authenticate(ex: Exchange, *, error: str | None) -> None:
    """RFC 6750 3: a Bearer challenge; `error` when a token was sent and refused."""
    challenge = ex.response_headers.get("www-authenticate") or ""
    expect(challenge.lower().startswith("bearer"), "401 without a Bearer WWW-Authenticate challenge",
           expected="WWW-Authenticate: Bearer ...", actual=challenge or "(absent)")
    if error is not None:
        expect(f'error="{error}"' in challenge, "the Bearer challenge names no error code",
               expected=f'error="{error}"', actual=challenge)


def ensure_media_type_json(ex: Exchange) -> None:
    expect(ex.media_type == "application/json", "the token response is not JSON",
           expected="application/json", actual=ex.response_headers.get("content-type"))


def ensure_seed_media_spelling(ex: Exchange) -> None:
    value = (ex.response_headers.get("content-type") or "").replace(" ", "")
    expect(value.lower() == "application/json;charset=utf-8", "the token response's media type is not the seed's",
           expected="application/json;charset=UTF-8", actual=value or "(absent)")


def ensure_utf8_without_bom(ex: Exchange) -> None:
    """The seed's charset=UTF-8 and RFC 8259 8.1: the body's bytes are UTF-8, and do not start
    with a byte order mark (a reader that takes them as the label says then sees JSON)."""
    body = ex.body
    expect(not body.startswith(b"\xef\xbb\xbf"), "the token response starts with a byte order mark",
           expected="UTF-8 JSON without a byte order mark", actual="EF BB BF, then the JSON")
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        expect(False, "the token response is not UTF-8", expected="UTF-8 (charset=UTF-8)",
               actual=f"byte {exc.start} is no UTF-8" + (" (a UTF-16 byte order mark)" if body[:2] in (b"\xff\xfe", b"\xfe\xff") else ""))


def ensure_header_value(ex: Exchange, name: str, token: str) -> None:
    values = ",".join(ex.response_headers.get_all(name)).lower()
    expect(token in [v.strip() for v in values.split(",")], f"the token response lacks {name}: {token}",
           expected=f"{name}: {token}", actual=values or "(absent)")


def ensure_token_members(result: TokenResult, *, refresh: bool, scope: str) -> None:
    """Seed part 2, token response table."""
    body = result.body
    missing = [m for m in ("access_token", "token_type", "expires_in", "scope") if m not in body]
    if refresh:
        missing += [] if "refresh_token" in body else ["refresh_token"]
    expect(not missing, "the token response lacks members", expected="access_token, token_type, expires_in, scope"
           + (", refresh_token" if refresh else ""), actual=f"missing {missing}")
    expect(str(body["token_type"]).lower() == "bearer", "token_type is not Bearer", expected="Bearer", actual=body["token_type"])
    expect(isinstance(body["expires_in"], int) and not isinstance(body["expires_in"], bool),
           "expires_in is not an integer", expected="integer seconds", actual=repr(body["expires_in"]))
    expect(set(str(body["scope"]).split()) == set(scope.split()), "the granted scope is not the requested one",
           expected=scope, actual=body["scope"])


def state_mismatch(sent: str, result: AuthorizationResult) -> Finding | None:
    if result.state == sent:
        return None
    return Finding("state did not come back unchanged", expected=repr(sent), actual=repr(result.state))


def _token_answer(result: TokenResult) -> str:
    """The request line and the server's answer, with its error_description."""
    return f"{result.exchange.summary()}: {result.answer}"


def _authz_answer(result: AuthorizationResult) -> str:
    return "redirect with a code" if result.code is not None else result.answer
