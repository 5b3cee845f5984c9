"""The address API's fixtures, shared by the suites that talk to it: suites/address (the
run's address API) and suites/compare (the vendor's, and the reference's). Each suite's
conftest.py imports the fixtures it uses from here; they build their clients from what the
run shares (`run_context`), never from the plugin's internals."""

from __future__ import annotations

import pytest

from conformance.checks.client import requests as client_requests
from conformance.http.address import AddressApi
from conformance.http.intent import Switches
from conformance.profiles import load_profile


@pytest.fixture(scope="session")
def address_api(conformance_state, profile, redactor, run_context):
    service = profile.address
    if service is None or "address" not in conformance_state.urls:
        pytest.skip(f"profile {profile.name} has no address service")
    keys = {name: conformance_state.secrets[env] for name, env in service.secret_env.items()
            if env in conformance_state.secrets}
    samples = {**conformance_state.samples.get("address", {}), **service.samples}
    # Every request is read by the seed's rules for the client: one that breaks them is
    # designed to be refused, and leaves only where the profile's safety switches allow it.
    api = AddressApi(service, base_url=conformance_state.urls["address"], keys=keys, samples=samples,
                     limits=profile.limits, redactor=redactor, recorder=run_context.recorder,
                     schedule=run_context.schedule("address"), bounds=run_context.bounds("address"),
                     switches=Switches.of(profile.safety), refusal=client_requests.refusal)
    yield api
    api.close()


@pytest.fixture(scope="session")
def reference_address_api(conformance_state, redactor, run_context):
    """A comparison's reference side (`--reference`): its own keys, samples, pacing and bounds."""
    reference = conformance_state.reference
    if not reference:
        pytest.skip("not a comparison (conformance compare --reference PROFILE)")
    profile = load_profile(reference["profile_ref"])
    service = profile.address
    assert service is not None  # prepare_reference refused a profile without one
    keys = {name: reference["secrets"][env] for name, env in service.secret_env.items() if env in reference["secrets"]}
    api = AddressApi(service, base_url=reference["url"], keys=keys, samples=reference["samples"],
                     limits=profile.limits, redactor=redactor, recorder=run_context.recorder,
                     schedule=run_context.schedule("address-reference"),
                     bounds=run_context.bounds("address-reference", profile),
                     switches=Switches.of(profile.safety), refusal=client_requests.refusal)
    yield api
    api.close()
