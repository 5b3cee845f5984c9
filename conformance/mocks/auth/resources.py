"""The two resource servers behind the mock (seed part 4; RFC 6750): the filing API's WSDL
(scope `registry.cto.aanbieden.verzoeken`, text/xml) and the inquiry API (scope
`registry-inzage`, JSON). A token is judged by signature, issuer, `exp` at the mock clock,
revocation and scope; refusals carry a Bearer challenge (RFC 6750 3).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from conformance.mocks.auth.config import FILING_SCOPE, INQUIRY_SCOPE
from conformance.mocks.auth.state import AuthMock
from conformance.mocks.faults import fault, variant

# Declared beside what it changes (CONTRIBUTING.md); the older faults are in faults.py.
INSUFFICIENT_SCOPE_AS_401 = fault(
    "auth.insufficient_scope_as_401",
    'a valid token without the API\'s scope is answered 401 error="invalid_token", not 403 insufficient_scope '
    "(still refused)", shows="scope")

# Issue 51: RFC 6750 3.1 advises 401 for a refused token (SHOULD); a 403 with the same Bearer
# challenge is allowed.
REFUSED_TOKEN_403 = variant(
    "auth.variant.refused_token_403",
    "a request without a token, or with a token that is not valid, is refused with 403 (the Bearer challenge and "
    "its error code as before)",
    allowed_by="RFC 6750 3.1: invalid_token 'The resource SHOULD respond with the HTTP 401 (Unauthorized) status "
               "code'; RFC 6750 3: the WWW-Authenticate field MUST be sent 'if the protected resource request does not "
               "include authentication credentials or does not contain an access token that enables access'")

# Issue 51: a token rule judged at one resource server only lets this pass.
FILING_TOKEN_NOT_VERIFIED = fault(
    "auth.filing_token_not_verified",
    "the filing API serves a token whose signature or payload was changed, or that has expired (the inquiry API "
    "still refuses both)", shows="filing")

REALM = 'Bearer realm="registry"'
EARLY_ACCESS_DEATH_S = 1800  # under auth.access_token_dies_early: half the stated 3600 s
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")

FILING_WSDL = b"""<?xml version="1.0" encoding="UTF-8"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"
    xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:tns="urn:registry:aanbiedenverzoeken:v1"
    targetNamespace="urn:registry:aanbiedenverzoeken:v1" name="AanbiedenVerzoeken">
  <wsdl:types>
    <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:registry:aanbiedenverzoeken:v1"
        elementFormDefault="qualified">
      <xsd:element name="AanbiedenVerzoek" type="xsd:string"/>
      <xsd:element name="AanbiedenVerzoekResponse" type="xsd:string"/>
    </xsd:schema>
  </wsdl:types>
  <wsdl:message name="AanbiedenVerzoekRequest"><wsdl:part name="body" element="tns:AanbiedenVerzoek"/></wsdl:message>
  <wsdl:message name="AanbiedenVerzoekResponse"><wsdl:part name="body" element="tns:AanbiedenVerzoekResponse"/></wsdl:message>
  <wsdl:portType name="AanbiedenVerzoekenPortType">
    <wsdl:operation name="AanbiedenVerzoek">
      <wsdl:input message="tns:AanbiedenVerzoekRequest"/>
      <wsdl:output message="tns:AanbiedenVerzoekResponse"/>
    </wsdl:operation>
  </wsdl:portType>
  <wsdl:binding name="AanbiedenVerzoekenBinding" type="tns:AanbiedenVerzoekenPortType">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <wsdl:operation name="AanbiedenVerzoek">
      <soap:operation soapAction="urn:registry:aanbiedenverzoeken:v1/AanbiedenVerzoek"/>
      <wsdl:input><soap:body use="literal"/></wsdl:input>
      <wsdl:output><soap:body use="literal"/></wsdl:output>
    </wsdl:operation>
  </wsdl:binding>
  <wsdl:service name="AanbiedenVerzoekenService">
    <wsdl:port name="AanbiedenVerzoekenPort" binding="tns:AanbiedenVerzoekenBinding">
      <soap:address location="http://127.0.0.1/filing/aanbiedenverzoeken/v1"/>
    </wsdl:port>
  </wsdl:service>
</wsdl:definitions>
"""


def _filing(mock: AuthMock, claims: dict) -> Response:
    media_type = "application/json" if mock.on("auth.filing_wsdl_not_xml") else "text/xml"
    return Response(FILING_WSDL, media_type=media_type)


def _inquiry(mock: AuthMock, claims: dict) -> Response:
    body = {"api": "registry-inzage", "version": "v6", "client_id": claims.get("client_id"), "resultaten": []}
    return Response(json.dumps(body).encode(), media_type="application/json")


async def filing(mock: AuthMock, request: Request) -> Response:
    return _protected(mock, request, FILING_SCOPE, _filing)


async def inquiry(mock: AuthMock, request: Request) -> Response:
    return _protected(mock, request, INQUIRY_SCOPE, _inquiry)


def _protected(mock: AuthMock, request: Request, scope: str,
               serve: Callable[[AuthMock, dict], Response]) -> Response:
    if request.method not in ("GET", "HEAD"):
        return _error(mock, 405, None, {"Allow": "GET"})
    values = request.headers.getlist("authorization")
    if len(values) > 1:
        return _error(mock, 400, 'error="invalid_request"')
    scheme, _, token = values[0].strip().partition(" ") if values else ("", "", "")
    if scheme.lower() != "bearer":  # no credentials for this scheme: no error code (RFC 6750 3)
        if mock.on("auth.resource_open"):
            return serve(mock, {})
        return _error(mock, 401, None)
    token = token.strip()
    if not _B64TOKEN.fullmatch(token):
        return _error(mock, 401, 'error="invalid_token"')
    lax = mock.on(FILING_TOKEN_NOT_VERIFIED.name) and scope == FILING_SCOPE
    claims = mock.tokens.decode_access(token, verify_signature=not (mock.on("auth.resource_token_not_verified") or lax))
    if claims is None:
        return _error(mock, 401, 'error="invalid_token"')
    if claims["exp"] <= mock.now() and not (mock.on("auth.resource_accepts_expired_token") or lax):
        return _error(mock, 401, 'error="invalid_token"')
    if mock.on("auth.access_token_dies_early") and claims["iat"] + EARLY_ACCESS_DEATH_S <= mock.now():
        return _error(mock, 401, 'error="invalid_token"')
    if mock.tokens.access_revoked(claims):
        return _error(mock, 401, 'error="invalid_token"')
    if scope not in claims["scope"].split() and not mock.on("auth.resource_scope_not_checked"):
        if mock.on(INSUFFICIENT_SCOPE_AS_401):
            return _error(mock, 401, 'error="invalid_token"')
        return _error(mock, 403, f'error="insufficient_scope", scope="{scope}"')
    if mock.on("auth.resource_rejects_valid_token"):
        return _error(mock, 401, 'error="invalid_token"')
    return serve(mock, claims)


def _error(mock: AuthMock, status: int, params: str | None, headers: dict[str, str] | None = None) -> Response:
    headers = dict(headers or {})
    if status == 401 and mock.on(REFUSED_TOKEN_403.name):
        status = 403  # the challenge is sent all the same (below)
    if status == 401 and mock.on("auth.www_authenticate_no_error"):
        params = None  # the fault: a bare challenge, whatever was wrong with the token
    if status != 405 and not (status == 401 and mock.on("auth.www_authenticate_missing")):
        headers["WWW-Authenticate"] = f"{REALM}, {params}" if params else REALM
    error = params.split('"')[1] if params else ("method_not_allowed" if status == 405 else "unauthorized")
    return Response(json.dumps({"error": error}).encode(), status_code=status, headers=headers,
                    media_type="application/json")
