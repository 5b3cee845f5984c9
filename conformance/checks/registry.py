"""The check registry: one entry per check id, declared where the check is judged.

A check is declared once, with `check(...)`, on the test that judges it (suites/) or on the
passive rule that judges it (conformance/passive/rules/, for the client checks): its id,
severity, title, the requirements it verifies, the faults that prove it (the link lives
here only), and what it sends (valid requests, requests designed to be refused, floods,
fuzzing, real-time waits). The registry, `conformance requirements` and its audit, the
Allure labels, the matrix and the tables derive from that one declaration; the registry is
complete once every suite module and the passive rules are imported: `conformance/catalogue.py`
loads them explicitly; the views here refuse to answer before.

    @check("address.hal.links_within_base", MUST, "Every link of an answer stays below the base URL",
           requirements=["ADDR-1.base"], proven_by=["address.links_to_other_origin"], observes="exchange")
    def test_links_within_base(address_api): ...

CONTRIBUTING.md is the recipe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Severity(StrEnum):
    MUST = "MUST"  # a failure fails the run (exit code 1)
    SHOULD = "SHOULD"  # a failure is a warning
    OBSERVATION = "observation"  # a measured fact the spec leaves open; never fails the run


MUST, SHOULD, OBSERVATION = Severity.MUST, Severity.SHOULD, Severity.OBSERVATION

# What a check sends (conformance/http/intent.py): its kinds decide which safety switch a
# profile must set for it to be judged; the client enforces the same switches on every
# request whatever a check declares. "waits": it waits out lifetimes (safety.waits);
# "nothing": it judges exchanges others sent (traffic, the run's own).
SENDS = ("valid", "refused", "flood", "fuzz", "waits", "nothing")
OBSERVES = ("exchange", "flow", "probe")


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
    # Faults under which it may plausibly fail as collateral (another rule broke first);
    # "*": any fault (a check that judges every answer with every rule: contract fuzzing).
    may_fail_under: tuple[str, ...] = field(default_factory=tuple)
    # What the check can judge: "exchange" (one observed exchange: judged on every exchange
    # of a run and of a capture), "flow" (several exchanges together) or "probe" (only a
    # request of its own: an active run).
    observes: str = "probe"
    # Why the check is SHOULD or an observation although every requirement it names is a MUST
    # of the seed or an RFC (the MUST audit flags such a check without a reason).
    downgrade_reason: str = ""
    # What it sends (SENDS).
    sends: tuple[str, ...] = ("valid",)


class Declared:
    """A declared check: the decorator that marks the tests judging it (any number of them,
    generated ones included), and its id for a passive rule."""

    def __init__(self, check: Check) -> None:
        self.check = check
        self.id = check.id

    @property
    def mark(self) -> Any:
        """The pytest mark of a test (or a `pytest.param`) that judges this check."""
        import pytest

        return pytest.mark.check(self.id)

    def __call__(self, function: F) -> F:
        return self.mark(function)


_REGISTRY: dict[str, Check] = {}


def check(
    check_id: str,
    severity: Severity,
    title: str,
    *,
    requirements: Iterable[str],
    proven_by: Iterable[str] = (),
    may_fail_under: Iterable[str] = (),
    sends: Iterable[str] = ("valid",),
    observes: str = "probe",
    feature: str = "",
    downgrade_reason: str = "",
) -> Declared:
    """Declare a check where it is judged. Ids are unique; declaring one again with other
    metadata is an error (the same declaration imported twice is one)."""
    requirements, sends = tuple(requirements), tuple(sends)
    if not requirements:
        raise ValueError(f"check {check_id!r} names no requirement")
    if observes not in OBSERVES:
        raise ValueError(f"check {check_id!r}: observes must be one of {OBSERVES}")
    if not sends or any(kind not in SENDS for kind in sends):
        raise ValueError(f"check {check_id!r}: sends must be some of {SENDS}")
    declared = Check(check_id, title, requirements, Severity(severity), check_id.split(".", 1)[0], feature,
                     tuple(proven_by), tuple(may_fail_under), observes, downgrade_reason, sends)
    existing = _REGISTRY.get(check_id)
    if existing is not None and existing != declared:
        raise ValueError(f"check {check_id!r} is declared twice with different metadata")
    _REGISTRY[check_id] = declared
    return Declared(declared)


def check_by_id(check_id: str) -> Check:
    """A declared check (the catalogue loaded: conformance.catalogue.check_by_id loads it)."""
    _loaded_first()
    try:
        return _REGISTRY[check_id]
    except KeyError:
        raise KeyError(f"unknown check id {check_id!r}") from None


def registered_checks(suite: str | None = None) -> list[Check]:
    """Every declared check of `suite` (or all), by id; the catalogue loaded."""
    _loaded_first()
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


_COMPLETE: list[bool] = []


def mark_complete() -> None:
    """Called by conformance.catalogue.load once every declaring module is imported."""
    _COMPLETE[:] = [True]


def is_complete() -> bool:
    return bool(_COMPLETE)


def _loaded_first() -> None:
    """A view of a registry that is not loaded would answer with part of it, silently."""
    if not _COMPLETE:
        raise RuntimeError("the check catalogue is not loaded: call conformance.catalogue.load() "
                           "(or use its registered_checks / check_by_id)")
