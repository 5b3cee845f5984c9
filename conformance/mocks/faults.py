"""The fault catalogue: named misbehaviours of the mock servers.

A fault is a name and what goes wrong, declared beside the mock behaviour it changes. The
link to the checks lives on the checks only (conformance/checks/registry.py): the checks
it exists to trip name it in `proven_by`, those that may plausibly fail with it in
`may_fail_under`. The meta-tests in tests/test_fault_catalogue.py run the suites under
every fault and assert that every check proven by it fails and nothing else does.

A mock server receives a FaultSet and asks `faults.on("name")` at the point where it
misbehaves. Fault names are global and prefixed with their server ("address.", "auth.",
"soap.").

A *variant* is the other half of the proof: behaviour the specification allows that the
mock's default does not show, declared the same way with `variant(name, description,
allowed_by=...)`, where `allowed_by` quotes the sentence or names the RFC section that
allows it. A MUST check never fails under a variant (tests/test_variants.py runs every check
under every variant; the registry refuses a MUST check that names one); a SHOULD check may,
and then names it in `proven_by` like a fault. Variants are switched on like faults
(`--mock-fault NAME`) and listed apart (`conformance mock --list-faults`).
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.errors import ConfigError


@dataclass(frozen=True)
class Fault:
    name: str
    server: str
    description: str
    allowed_by: str | None = None  # a variant: what in the specification allows it
    # What the checks it takes a precondition from say when they are blocked by it (substrings
    # of their reason: a sample it breaks, a control it refuses): the fault meta-test accepts a
    # MUST check blocked under it only for such a reason, or when the check declares it.
    blocks: tuple[str, ...] = ()
    # What the fault changes, as the findings of the checks it proves name it (substrings of
    # their reason, any case: a header, a member, a code): the fault meta-test accepts a
    # check's failure under the fault only for such a reason, never for another.
    shows: tuple[str, ...] = ()

    @property
    def is_variant(self) -> bool:
        return self.allowed_by is not None


_CATALOGUE: dict[str, Fault] = {}


def fault(name: str, description: str, *, allowed_by: str | None = None, blocks: tuple[str, ...] = (),
          shows: str | tuple[str, ...] = ()) -> Fault:
    server = name.split(".", 1)[0]
    if name in _CATALOGUE:
        raise ValueError(f"fault {name!r} declared twice")
    entry = Fault(name, server, description, allowed_by, tuple(blocks), (shows,) if isinstance(shows, str) else tuple(shows))
    _CATALOGUE[name] = entry
    return entry


def variant(name: str, description: str, *, allowed_by: str) -> Fault:
    """Behaviour the specification allows (`allowed_by`: the sentence or RFC section), which
    no MUST check may fail."""
    return fault(name, description, allowed_by=allowed_by)


def catalogue(server: str | None = None) -> list[Fault]:
    """The faults (not the variants)."""
    return [f for f in _everything(server) if not f.is_variant]


def variants(server: str | None = None) -> list[Fault]:
    return [f for f in _everything(server) if f.is_variant]


def _everything(server: str | None) -> list[Fault]:
    _load()
    return sorted(
        (f for f in _CATALOGUE.values() if server is None or f.server == server),
        key=lambda f: f.name,
    )


def expected_failures(fault: Fault) -> tuple[frozenset[str], frozenset[str]]:
    """(must fail, may fail) check ids under a fault: the checks that name it in
    `proven_by` / `may_fail_under` (conformance/checks/registry.py); "*" in a check's
    `may_fail_under` is any fault of the server its suite judges."""
    from conformance.catalogue import registered_checks

    checks = registered_checks()
    must = {c.id for c in checks if fault.name in c.proven_by}
    # "*" is any fault, never a variant: what the specification allows breaks no rule.
    may = {c.id for c in checks if fault.name in c.may_fail_under
           or ("*" in c.may_fail_under and c.suite == fault.server and not fault.is_variant)} - must
    return frozenset(must), frozenset(may)


def _load() -> None:
    import importlib

    for module in _SERVER_FAULT_MODULES:
        importlib.import_module(module)


# Each mock server adds the module that declares its faults.
_SERVER_FAULT_MODULES: tuple[str, ...] = (
    "conformance.mocks.address.app",
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
    """Validate fault (and variant) names given by a user; an unknown one is a usage error naming it."""
    known = {f.name for f in _everything(None)}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(
            f"unknown mock fault(s): {', '.join(unknown)} "
            "(list them with `conformance mock --list-faults`)"
        )
    return FaultSet(frozenset(names))
