"""Checks: small named units that verify one requirement each (see registry.py)."""

from conformance.checks.finding import Finding
from conformance.checks.registry import Check, Severity, check_by_id, define, registered_checks

__all__ = ["Check", "Finding", "Severity", "check_by_id", "define", "registered_checks"]
