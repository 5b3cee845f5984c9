"""Checks: small named units that verify one requirement each, declared where they are
judged (see registry.py)."""

from conformance.checks.registry import Check, Severity, check, check_by_id, registered_checks
from conformance.findings import Finding

__all__ = ["Check", "Finding", "Severity", "check", "check_by_id", "registered_checks"]
