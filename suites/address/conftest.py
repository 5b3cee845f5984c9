"""Fixtures of the address suite beyond those of the plugin: the loaded OpenAPI schema."""

from __future__ import annotations

import pytest
import schemathesis

from conformance.openapi.loader import load_description


@pytest.fixture(scope="session")
def fuzz_max_examples(conformance_state) -> int:
    """The run's example budget (--max-examples, else the profile's [fuzz] max_examples)."""
    return conformance_state.max_examples


@pytest.fixture(scope="session")
def address_schema(address_api, profile):
    schema = schemathesis.openapi.from_dict(load_description(profile.address))
    # Headers set here are sent on every generated call, the stateful ones included.
    schema.config.update(base_url=address_api.base_url, headers=address_api.auth_headers())
    return schema
