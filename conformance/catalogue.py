"""The check catalogue: every declared check, loaded explicitly.

Checks are declared where they are judged (conformance/checks/registry.py `check`): on the
suites' tests and on the passive rules. `load()` imports those modules by name, once per
process, so the registry holds every check; the views here load first. The registry itself
imports none of them (it is the base those modules import: loading it from there made a
circle, issue 52), and its own views refuse to answer before a load.
"""

from __future__ import annotations

import importlib
import pkgutil

from conformance.checks import registry
from conformance.checks.registry import SENDS, Check, Severity

__all__ = ["SENDS", "Check", "Severity", "check_by_id", "load", "registered_checks", "select_checks"]


def load() -> None:
    """Import every module that declares checks: the passive rules and the suites' test
    modules (conformance.suites, the checkout's suites/). Idempotent."""
    if registry.is_complete():
        return
    importlib.import_module("conformance.passive.rules")
    suites = importlib.import_module("conformance.suites")
    for info in pkgutil.walk_packages(suites.__path__, "conformance.suites."):
        if info.name.rsplit(".", 1)[-1].startswith("test_"):
            importlib.import_module(info.name)
    registry.mark_complete()


def registered_checks(suite: str | None = None) -> list[Check]:
    load()
    return registry.registered_checks(suite)


def check_by_id(check_id: str) -> Check:
    load()
    return registry.check_by_id(check_id)


def select_checks(patterns: list[str]) -> set[str]:
    load()
    return registry.select_checks(patterns)
