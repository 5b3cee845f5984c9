"""The check registry: one entry per check id, with its requirements and severity.

A check is declared once, with `define(...)`, in the catalogue module of its suite
(for example conformance/checks/address/catalogue.py). Tests in suites/ name the check
they implement with `@pytest.mark.check("<id>")`; the pytest plugin reads requirement
ids and severity from here, so they are never repeated in test code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    MUST = "MUST"  # a failure fails the run (exit code 1)
    SHOULD = "SHOULD"  # a failure is a warning
    OBSERVATION = "observation"  # a measured fact the spec leaves open; never fails the run


@dataclass(frozen=True)
class Check:
    id: str
    title: str
    requirements: tuple[str, ...]
    severity: Severity
    suite: str
    # Optional grouping for reports: seed part or RFC area ("part 4 / pagination").
    feature: str = ""
    # Mock faults this check exists to catch: under each, it must fail (meta-tested).
    proven_by: tuple[str, ...] = field(default_factory=tuple)
    # Faults under which it may plausibly fail as collateral (another rule broke first).
    may_fail_under: tuple[str, ...] = field(default_factory=tuple)
    # What the check can judge (conformance traffic, passive mode): "exchange" (one observed
    # exchange), "flow" (several observed exchanges together) or "probe" (only a request
    # of its own: an active run).
    observes: str = "probe"
    # Why the check is SHOULD or an observation although every requirement it names is a MUST
    # of the seed or an RFC (the MUST audit flags such a check without a reason).
    downgrade_reason: str = ""


OBSERVES = ("exchange", "flow", "probe")
_REGISTRY: dict[str, Check] = {}


def define(
    check_id: str,
    title: str,
    *,
    requirements: tuple[str, ...] | list[str],
    severity: Severity,
    suite: str,
    feature: str = "",
    proven_by: tuple[str, ...] | list[str] = (),
    may_fail_under: tuple[str, ...] | list[str] = (),
    observes: str = "probe",
    downgrade_reason: str = "",
) -> Check:
    """Declare a check. Ids are unique; redefining one with other metadata is an error."""
    if not requirements:
        raise ValueError(f"check {check_id!r} names no requirement")
    if observes not in OBSERVES:
        raise ValueError(f"check {check_id!r}: observes must be one of {OBSERVES}")
    check = Check(
        check_id, title, tuple(requirements), severity, suite, feature,
        tuple(proven_by), tuple(may_fail_under), observes, downgrade_reason,
    )
    existing = _REGISTRY.get(check_id)
    if existing is not None and existing != check:
        raise ValueError(f"check {check_id!r} is defined twice with different metadata")
    _REGISTRY[check_id] = check
    return check


def check_by_id(check_id: str) -> Check:
    load_catalogues()
    try:
        return _REGISTRY[check_id]
    except KeyError:
        raise KeyError(f"unknown check id {check_id!r}") from None


def registered_checks(suite: str | None = None) -> list[Check]:
    load_catalogues()
    return sorted(
        (c for c in _REGISTRY.values() if suite is None or c.suite == suite), key=lambda c: c.id
    )


def select_checks(patterns: list[str]) -> set[str]:
    """The ids of the registered checks the patterns name (an id, or a shell-style pattern
    such as 'soap.request.*'); a pattern that names none is a configuration error."""
    from fnmatch import fnmatchcase

    from conformance.errors import ConfigError

    known = [c.id for c in registered_checks()]
    wanted: set[str] = set()
    for pattern in patterns:
        matched = {cid for cid in known if fnmatchcase(cid, pattern)}
        if not matched:
            raise ConfigError(f"--check {pattern}: no check has that id (summary.json and the README's check "
                              "tables name them)")
        wanted |= matched
    return wanted


def load_catalogues() -> None:
    """Import every suite's catalogue so the registry is complete."""
    import importlib

    for module in _CATALOGUES:
        importlib.import_module(module)


# Each suite adds its catalogue module here.
_CATALOGUES: tuple[str, ...] = (
    "conformance.checks.address.catalogue",
    "conformance.checks.soap.catalogue",
    "conformance.checks.auth.catalogue",
    "conformance.checks.client.catalogue",
    "conformance.checks.compare.catalogue",
)
