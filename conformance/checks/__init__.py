"""Checks: small named units that verify one requirement each (see registry.py)."""

from conformance.checks.registry import Check, Severity, check_by_id, define, registered_checks
from conformance.findings import Finding

__all__ = ["Check", "Finding", "Severity", "check_by_id", "define", "registered_checks"]
