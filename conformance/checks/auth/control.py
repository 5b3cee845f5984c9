"""Negative checks of the token flows against a control.

A negative check changes ONE thing of an otherwise valid request and, in the same test,
sends the unchanged request as its control: an authorization that must give a code, a code
exchange, a client assertion or an API call that must be accepted. The refusal counts only
when the control was accepted; a refused control means the server refuses for some other
reason, so the check could not judge its rule and is `Blocked`, with a cause that reads the
same in every check the same failing step takes down ("authorize (confidential client) ->
error=temporarily_unavailable").

Where the server states why it refused (OAuth `error` and `error_description`), the reason
goes into the verdict (and, for a pass, into an Allure step), and a refusal for a plainly
unrelated reason is not a pass: an unavailable server, or a complaint about something the
control had too (the scope, the grant type, the client's authentication when only the
code or the verifier changed).
"""

from __future__ import annotations

from conformance.auth.flows import CC_CONTROL_CAUSE, EXCHANGE_CAUSE, AuthFlows, Authorization
from conformance.auth.login import CredentialsRefused, LoginError
from conformance.auth.rfc6749 import TokenResult
from conformance.checks.auth.checks import ensure_token_refused
from conformance.findings import Blocked, expect, require
from conformance.http.evidence import step
from conformance.http.exchange import Exchange

# What an implicit or hybrid response would hand over instead of a code (RFC 6749 4.2.2, OIDC).
TOKEN_PARAMETERS = frozenset({"access_token", "id_token"})
# Never an answer to the one thing a negative case changed.
UNAVAILABLE = frozenset({"server_error", "temporarily_unavailable"})
# At the token endpoint, besides: what the control's identical scope and grant type would
# have drawn too, and "authenticated, but not allowed this grant" (so the change was accepted).
TOKEN_UNRELATED = UNAVAILABLE | {"invalid_scope", "unsupported_grant_type", "unauthorized_client"}
# When only the code, its verifier or its redirect_uri changed: the client authenticated in the
# control with the same credentials, so a client-authentication failure is another matter.
CODE_UNRELATED = TOKEN_UNRELATED | {"invalid_client"}


# --- controls ------------------------------------------------------------------------------------
def control_code(flows: AuthFlows, **kwargs) -> Authorization:
    """The unchanged authorization request gives a code (else the check is blocked)."""
    return flows.authorize_for_code(**kwargs)


def control_exchange(flows: AuthFlows, *, client: str = "confidential", **authorize: object) -> TokenResult:
    """A fresh code of `client`, redeemed unchanged by that client, gives a token."""
    authz = flows.authorize_for_code(client=client, **authorize)
    return require_token(flows.exchange(authz), "the unchanged code exchange accepted",
                         EXCHANGE_CAUSE.format(client, "{}"))


def control_assertion(flows: AuthFlows, **fields: str) -> TokenResult:
    """A fresh valid assertion (with the same extra body `fields`) gives a token."""
    result = flows.client_credentials(flows.assertion(), **fields)
    cause = CC_CONTROL_CAUSE if not fields else "client credentials (valid assertion, " + \
        ", ".join(f"{k} of its client" for k in fields) + ") -> {}"
    return require_token(result, "the unchanged client assertion accepted", cause)


def require_token(result: TokenResult, precondition: str, cause: str) -> TokenResult:
    require(result.issued, precondition, cause.format(result.answer))
    return result


def control_served(ex: Exchange, what: str) -> None:
    """The API call with the valid token (the control of a refused call) is served."""
    path = ex.url.rsplit("/", 2)
    require(ex.status == 200, f"{what} served with a valid token",
            f"GET .../{path[-2]}/{path[-1]} with a valid token -> {ex.status}")


# --- refusals ------------------------------------------------------------------------------------
def authorization_refused(flows: AuthFlows, what: str, **kwargs) -> str:
    """The changed authorization request gets no code, for a reason that can be the change.
    Returns the server's answer (it goes into the check's evidence)."""
    try:
        authz = flows.authorize(**kwargs)
    except CredentialsRefused as exc:
        raise Blocked(f"a login for {what}", f"authorize ({what}) -> {exc}") from None
    except LoginError as exc:
        answer = f"an error page, no redirect ({exc})"
    else:
        expect(authz.code is None, f"{what}: a code was issued", expected="an error redirect or page",
               actual=authz.result.answer)
        issued = sorted(TOKEN_PARAMETERS & authz.result.extra_params.keys())
        expect(not issued, f"{what}: the redirect carries a token", expected="an error redirect or page",
               actual=f"redirect with {', '.join(issued)}")
        if authz.result.error in UNAVAILABLE:
            raise Blocked(f"an answer to {what}", f"authorize ({what}) -> {authz.result.answer}")
        answer = authz.result.answer
    _evidence(what, answer)
    return answer


def token_refused(result: TokenResult, what: str, *, unrelated: frozenset[str] = TOKEN_UNRELATED) -> str:
    """Refused (400/401, no token) with an error that can be the answer to the change."""
    ensure_token_refused(result, what)
    if result.error in unrelated:
        raise Blocked(f"a refusal of {what} for the rule under test", f"token endpoint ({what}) -> {result.answer}")
    _evidence(what, result.answer)
    return result.answer


def _evidence(what: str, answer: str) -> None:
    with step(f"refused as the rule requires: {what} -> {answer}"):
        pass
