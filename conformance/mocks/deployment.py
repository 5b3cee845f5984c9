"""The running local mocks described as a deployment: a profile with `mock = false` and
their base URLs, for `conformance proxy` (and runs) to treat them as any vendor's servers.

`conformance mock` writes it beside the keys file and prints where; `conformance proxy
--profile local-mock` starts the mocks and uses it itself. The keys stay in the environment
variables the shipped profile names (the keys file holds their values)."""

from __future__ import annotations

import json
from typing import Any

from conformance.mocks.launcher import MockCluster
from conformance.profiles import Profile


def _toml(value: Any) -> str:
    # JSON's strings, numbers, booleans and arrays of them are TOML too.
    return json.dumps(value)


def _table(name: str, values: dict[str, Any]) -> list[str]:
    return [f"[{name}]", *(f"{key} = {_toml(value)}" for key, value in values.items() if value is not None), ""]


def deployment_profile(profile: Profile, cluster: MockCluster) -> str:
    """TOML of a profile for the mocks `cluster` runs for `profile`."""
    lines = [f"# The local mocks of profile {profile.name} as a deployment (written by `conformance mock`).",
             "# Their API keys and passwords are in the keys file `conformance mock` printed: source it first.", ""]
    lines += _table("profile", {"name": f"{profile.name}-deployment",
                                "description": f"the mocks of {profile.name} on 127.0.0.1, as a deployment"})
    address = profile.address
    if address is not None and "address" in cluster.urls:
        lines += _table("services.address", {"mock": False, "base_url": cluster.urls["address"],
                                             "restricted_paths": list(address.restricted_paths)})
        lines += _table("services.address.secrets", dict(address.secret_env))
        lines += _table("services.address.samples", dict(cluster.samples.get("address", {})))
    soap = profile.soap
    if soap is not None and "soap" in cluster.urls:
        made = cluster.samples.get("soap", {})
        lines += _table("services.soap", {"mock": False, "url": cluster.urls["soap"],
                                          "soap_action_base": soap.soap_action_base})
        kind = soap.mock_auth_kind
        if kind != "none":
            lines += _table("services.soap.auth", {"kind": kind, "client_cert": made.get("client_cert"),
                                                   "client_key": made.get("client_key"), "ca_file": made.get("ca_file")})
        if kind == "basic":
            lines += _table("services.soap.secrets", dict(soap.secret_env))
    auth = profile.auth
    info = cluster.samples.get("auth")
    if auth is not None and info:
        lines += _table("services.auth", {"mock": False, "auth_url": info["auth_url"],
                                          "filing_base": info["filing_base"], "inquiry_base": info["inquiry_base"],
                                          "redirect_uri": auth.redirect_uri})
        lines += _table("services.auth.clients", {k.removeprefix("client."): v for k, v in info.items()
                                                  if k.startswith("client.")})
        lines += _table("services.auth.secrets", dict(auth.secret_env))
        lines += _table("services.auth.keys", {"pki_dir": info["pki_dir"]})
        # The mock's own time travel, as a vendor's test environment offers one.
        lines += _table("services.auth.clock", {"url": info["auth_url"] + "/__mock__/clock"})
        lines += _table("services.auth.login", {"driver": "form"})
    lines += _table("safety", {"fuzz": profile.safety.fuzz, "negative": profile.safety.negative,
                               "flood": profile.safety.flood})
    return "\n".join(lines)
