"""The SOAP message service: WSDL and types schema, hardened loading, envelopes, validation.

Names marked "seed" come from part (b) of the authorization/SOAP seed (001) and are never
derived from one another: the soapAction's last segment deliberately lacks the `Registry`
prefix of the operation name, so it is always read from the WSDL binding.
"""

from __future__ import annotations

from pathlib import Path

SOAP11_ENV_NS = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12_ENV_NS = "http://www.w3.org/2003/05/soap-envelope"
WSDL_NS = "http://schemas.xmlsoap.org/wsdl/"
WSDL_SOAP11_NS = "http://schemas.xmlsoap.org/wsdl/soap/"
WSDL_SOAP12_NS = "http://schemas.xmlsoap.org/wsdl/soap12/"
XSD_NS = "http://www.w3.org/2001/XMLSchema"
SOAP_HTTP_TRANSPORT = "http://schemas.xmlsoap.org/soap/http"

# --- seed names (part 4 and part 9) ------------------------------------------------------
OPERATION = "RegistryRequestNetbeheerderServiceResponse"
SOAP_ACTION_SUFFIX = "/RequestNetbeheerderServiceResponse"
PORT_TYPE = "RegistryNetbeheerderGraafBerichtServicePortType"
BINDING = "RegistryNetbeheerderGraafBerichtServiceBinding"
SERVICE = "RegistryNetbeheerderGraafBerichtService"
PORT = "RegistryNetbeheerderGraafBerichtServicePort"
PART_NAME = "body"
REQUEST_ELEMENT = "GraafberichtServiceRequest"
RESPONSE_ELEMENT = "GraafberichtServiceResponse"
TYPES_DATE_SEGMENT = "20080722"
TYPES_SCHEMA_VERSION = "1.2"

# --- designed (the seed does not show them) ----------------------------------------------
TYPES_NS = "http://www.registry.example/graafbericht/20080722"
DEFAULT_SOAP_ACTION_BASE = "urn:registry:graafbericht"

SHIPPED_DIR = Path(__file__).parent / "wsdl"
SHIPPED_WSDL = SHIPPED_DIR / "RegistryNetbeheerderGraafBerichtService.wsdl"
SHIPPED_XSD = SHIPPED_DIR / "graafbericht-1.2.xsd"


def soap_action(soap_action_base: str) -> str:
    """The seed's soapAction for a deployment's action base."""
    return soap_action_base.rstrip("/") + SOAP_ACTION_SUFFIX


def clark(namespace: str, local: str) -> str:
    return f"{{{namespace}}}{local}"
