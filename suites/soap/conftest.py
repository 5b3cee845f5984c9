"""Fixtures of the SOAP suite: the run's valid batch is one per run, across xdist workers.

The schema-valid requests every valid-request check judges and every negative check takes
its controls from (conformance/checks/soap/support.py) are sent once: in a run with workers,
by the first worker that needs them, its answers kept in the run's shared directory for the
others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.errors import ConfigError


@pytest.fixture(scope="session", autouse=True)
def _one_valid_batch_per_run(soap_service, conformance_state) -> None:
    if conformance_state.shared_schedule and conformance_state.schedule_dir:
        soap_service.shared_dir = conformance_state.schedule_dir


@pytest.fixture(scope="session")
def soap_service(conformance_state, profile, redactor, run_context):
    service = profile.soap
    if service is None or "soap" not in conformance_state.urls:
        pytest.skip(f"profile {profile.name} has no SOAP message service")
    from functools import partial

    from conformance.checks.soap.endpoint import SoapServiceEndpoint
    from conformance.http.client import ApiClient
    from conformance.soap import SHIPPED_WSDL

    url = conformance_state.urls["soap"]
    # [services.soap.auth]: HTTP basic credentials from the run's secrets (so the redactor
    # knows them), a TLS client certificate and the CA verifying the server from the
    # profile, or from the launcher when a mock made its own test certificates.
    made = conformance_state.samples.get("soap", {})
    options: dict[str, Any] = {"timeout_s": service.timeout_s, "limits": profile.limits.http()}
    if service.auth_kind == "basic":
        values = []
        for name in ("username", "password"):
            env_var = service.secret_env[name]
            value = conformance_state.secrets.get(env_var)
            if not value:
                raise ConfigError(f"environment variable {env_var} is not set (it holds the soap {name})")
            values.append(value)
        options["auth"] = (values[0], values[1])
    cert, key = service.client_cert or made.get("client_cert"), service.client_key or made.get("client_key")
    if service.auth_kind == "client_certificate" and cert and key:
        options["cert"] = (cert, key)
    ca_file = service.ca_file or made.get("ca_file")
    if ca_file:
        options["verify"] = ca_file
    # Every request is read by the SOAP and WSDL rules for a client: one that breaks them is
    # designed to be refused, and leaves only where the profile's safety switches allow it.
    from conformance.checks.client.soap import refusal
    from conformance.http.intent import Switches
    from conformance.soap.loader import load_contract

    wsdl = Path(service.wsdl) if service.wsdl else SHIPPED_WSDL
    contract = load_contract(wsdl, soap_url=url, soap_action_base=service.soap_action_base)
    make_client = partial(ApiClient, url, redactor=redactor, recorder=run_context.recorder,
                          pacer=run_context.pacer("soap"), trust=service.trust,
                          switches=Switches.of(profile.safety), classify=refusal(contract))
    endpoint = SoapServiceEndpoint(
        url, service.soap_action_base, wsdl, make_client(**options),
        auth_kind=service.auth_kind, response_time_s=service.response_time_s, client_options=options,
        make_client=make_client, vendor_types=service.mock or service.wsdl is not None,
    )
    yield endpoint
    endpoint.close()
