"""A comparison run (`conformance compare --profile VENDOR --reference REFERENCE`): the
corpus is sent once per run, before the first check, and every check reads its outcomes.

The vendor side is the run's address API (the `address_api` fixture: the run's profile);
the reference side is `reference_address_api` (the `--reference` profile). The corpus comes
from the reference: its samples, its answer for the sample address, its description.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.checks.address import fixtures
from conformance.compare import corpus as C
from conformance.compare.address import Comparison
from conformance.compare.described import Description
from conformance.openapi.operations import seed_operation
from conformance.profiles import load_profile

# The address API's fixtures, shared with the other suites that use it (conformance/checks/address/fixtures.py).
address_api = fixtures.address_api
reference_address_api = fixtures.reference_address_api


@pytest.fixture(scope="session")
def address_comparison(address_api, reference_address_api, conformance_state, profile) -> Comparison:
    from conformance.openapi.loader import load_description, load_schema

    reference_profile = load_profile(conformance_state.reference["profile_ref"])
    service = reference_profile.address
    raw = load_description(service)
    templates = {}
    for path, item in (raw.get("paths") or {}).items():
        name = seed_operation("GET", path) if isinstance(item, dict) and "get" in item else None
        if name is not None:
            templates[name] = path

    def send(api):
        return lambda request: api.get(request.path, params=list(request.params), headers=dict(request.headers))

    comparison = Comparison(
        reference=send(reference_address_api), vendor=send(address_api),
        reference_base=reference_address_api.base_url, vendor_base=address_api.base_url,
        description=Description(raw), templates=templates,
        ignore_paths=(*profile.compare.ignore_paths, *reference_profile.compare.ignore_paths),
        ignore_headers=(*profile.compare.ignore_headers, *reference_profile.compare.ignore_headers),
    )
    samples = reference_address_api.samples
    corpus = C.Corpus()
    for request in C.scenario_requests(samples):
        corpus.add(request)
    if samples.get("nummeraanduiding"):
        answer = reference_address_api.get(f"/adressen/{samples['nummeraanduiding']}")
        for request in C.from_address(answer.json if answer.status == 200 else None):
            corpus.add(request)
    schema = load_schema(service, reference_address_api.base_url)
    for request in C.generated_requests(schema, profile.compare.generated_per_operation, conformance_state.seed):
        corpus.add(request)
    base_paths = [_path_of(reference_address_api.base_url), _path_of(address_api.base_url)]
    for har in conformance_state.compare_requests:
        C.har_requests(Path(har), base_paths, corpus)
    comparison.left_out.update(corpus.left_out)
    comparison.run(corpus.requests)
    return comparison


def _path_of(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).path.rstrip("/")
