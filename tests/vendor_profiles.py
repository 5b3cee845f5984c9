"""A vendor's profile of the local mock's address API, as a user writes it, for the tests
that run the harness against the mock as if it were a vendor's deployment."""

from __future__ import annotations

from pathlib import Path


def vendor_profile(path: Path, base_url: str, samples: dict[str, str] | None = None, extra: str = "", *,
                   key_var: str, name: str = "samples", address: str = "") -> Path:
    """`samples`: the [services.address.samples] table; `address`: more lines of
    [services.address]; `extra`: more tables at the end. The profile is named vendor-<name>
    (the name sets the derived seed and the findings folder); the API key is read from
    `key_var`."""
    table = "".join(f'{k} = "{v}"\n' for k, v in (samples or {}).items())
    path.write_text(f"""# a vendor's profile, as a user writes it
[profile]
name = "vendor-{name}"
description = "the mock, as if it were a vendor's deployment"

[services.address]
mock = false
base_url = "{base_url}"   # the deployment
timeout_s = 10
{address}

[services.address.secrets]
api_key = "{key_var}"

[services.address.samples]
{table}
{extra}""")
    return path
