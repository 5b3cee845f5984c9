"""The reference side of a comparison run (`--reference PROFILE`), prepared once in the
run's main process: its profile, where its address API is (its own local mock when the
profile says so, started here with no fault), its keys and its samples.

The vendor side is the run's own profile, prepared as for any run; the comparison uses the
reference's samples for both sides, since the requests must be the same.
"""

from __future__ import annotations

from typing import Any

from conformance.errors import ConfigError, UnreachableError
from conformance.http.client import probe
from conformance.profiles import load_profile


def prepare_reference(reference_ref: str, resolve_secrets: Any) -> tuple[dict[str, Any], Any]:
    """(what the run's state keeps about the reference, its mock cluster or None).

    `resolve_secrets(profile, services)`: env var -> value of every secret a real service of
    `services` names (the plugin's, so a missing one names its variable the same way): the
    address API's only, the one compared."""
    profile = load_profile(reference_ref)
    service = profile.address
    if service is None:
        raise ConfigError(f"--reference {reference_ref}: profile {profile.name} has no address service "
                          "([services.address]); a comparison needs the address API on both sides")
    secrets = resolve_secrets(profile, ("address",))
    cluster = None
    samples: dict[str, str] = {}
    if service.mock:
        from conformance.mocks.launcher import MockCluster

        cluster = MockCluster(profile)
        url = cluster.start_address_service()["address"]
        secrets.update(cluster.secrets)
        samples.update(cluster.samples.get("address", {}))
    else:
        assert service.base_url is not None
        try:
            probe(service.base_url, timeout_s=min(service.timeout_s, 10.0, profile.limits.deadline_s))
        except UnreachableError as exc:  # exit 3, naming which side did not answer
            raise UnreachableError(f"the reference environment ({profile.name}, --reference): {exc}") from None
        url = service.base_url
    samples.update(service.samples)
    info = {"profile_ref": str(profile.path), "name": profile.name, "url": url,
            "secrets": secrets, "samples": samples}
    return info, cluster
