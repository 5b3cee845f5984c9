"""A vendor's profile of the local mock's address API, as a user writes it, for the tests
that run the harness against the mock as if it were a vendor's deployment."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


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


@contextmanager
def address_behind(wrap: Callable[[Any], Any], *faults: str) -> Iterator[tuple[Any, Any]]:
    """The local mocks (with `faults`) with the address API's app wrapped in ASGI middleware
    `wrap(app)` (a witness, a hostile gateway): (the cluster, the middleware)."""
    from conformance.mocks.faults import FaultSet
    from conformance.mocks.launcher import MockCluster
    from conformance.profiles import load_profile

    made: list[Any] = []

    class Cluster(MockCluster):
        def _serve(self, app: Any, name: str, port: int = 0, ssl: Any = None) -> int:
            if name == "address":
                made.append(wrap(app))
                app = made[-1]
            return super()._serve(app, name, port, ssl)

    with Cluster(load_profile("local-mock"), FaultSet(frozenset(faults))) as cluster:
        yield cluster, made[0]
