"""The fault catalogue: named misbehaviours of the mock servers.

Every fault names the checks it exists to trip (`must_trip`) and the checks that may
plausibly fail with it (`may_trip`). The meta-tests in tests/test_fault_catalogue.py run
the suites once per fault and assert that every `must_trip` check fails and nothing
outside `must_trip | may_trip` does.

A mock server receives a FaultSet and asks `faults.on("name")` at the point where it
misbehaves. Fault names are global and prefixed with their server ("address.", "auth.",
"soap.").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.errors import ConfigError


@dataclass(frozen=True)
class Fault:
    name: str
    server: str
    description: str
    must_trip: frozenset[str]
    may_trip: frozenset[str] = field(default_factory=frozenset)


_CATALOGUE: dict[str, Fault] = {}


def fault(
    name: str,
    description: str,
    *,
    must_trip: set[str] | frozenset[str],
    may_trip: set[str] | frozenset[str] = frozenset(),
) -> Fault:
    server = name.split(".", 1)[0]
    if name in _CATALOGUE:
        raise ValueError(f"fault {name!r} declared twice")
    entry = Fault(name, server, description, frozenset(must_trip), frozenset(may_trip))
    _CATALOGUE[name] = entry
    return entry


def catalogue(server: str | None = None) -> list[Fault]:
    _load()
    return sorted(
        (f for f in _CATALOGUE.values() if server is None or f.server == server),
        key=lambda f: f.name,
    )


def expected_failures(fault: Fault) -> tuple[frozenset[str], frozenset[str]]:
    """(must fail, may fail) check ids under a fault: the fault's own lists plus the
    checks that name it in `proven_by` / `may_fail_under` (conformance/checks/registry.py)."""
    from conformance.checks.registry import registered_checks

    checks = registered_checks()
    must = fault.must_trip | {c.id for c in checks if fault.name in c.proven_by}
    may = fault.may_trip | {c.id for c in checks if fault.name in c.may_fail_under}
    return frozenset(must), frozenset(may)


def _load() -> None:
    import importlib

    for module in _SERVER_FAULT_MODULES:
        importlib.import_module(module)


# Each mock server adds the module that declares its faults.
_SERVER_FAULT_MODULES: tuple[str, ...] = (
    "conformance.mocks.address.faults",
    "conformance.mocks.address.faults_general",
    "conformance.mocks.address.faults_params",
    "conformance.mocks.address.faults_schema",
    "conformance.mocks.address.faults_compare",
    "conformance.mocks.soap.faults",
    "conformance.mocks.auth.faults",
)


class FaultSet:
    """The faults switched on for one mock server run."""

    def __init__(self, names: frozenset[str] = frozenset()) -> None:
        self._names = frozenset(names)

    def on(self, name: str) -> bool:
        return name in self._names

    @property
    def names(self) -> frozenset[str]:
        return self._names

    def __repr__(self) -> str:
        return f"FaultSet({sorted(self._names)})"


def resolve(names: list[str] | tuple[str, ...]) -> FaultSet:
    """Validate fault names given by a user; an unknown one is a usage error naming it."""
    known = {f.name for f in catalogue()}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(
            f"unknown mock fault(s): {', '.join(unknown)} "
            "(list them with `conformance mock --list-faults`)"
        )
    return FaultSet(frozenset(names))
