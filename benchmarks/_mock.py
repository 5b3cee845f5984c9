"""Start the local-mock profile's servers for a benchmark (shared by the scripts here)."""

from __future__ import annotations

from conformance.mocks.faults import FaultSet
from conformance.mocks.launcher import MockCluster
from conformance.profiles import load_profile


def start_local_mock() -> MockCluster:
    cluster = MockCluster(load_profile("local-mock"), FaultSet())
    cluster.start()
    return cluster


def valid_key(cluster: MockCluster) -> str:
    env = cluster.profile.address.secret_env["api_key"]  # type: ignore[union-attr]
    return cluster.secrets[env]
