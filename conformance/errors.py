"""Errors the user can act on, and the exit codes they map to.

Exit codes (documented in the README):
  0  every MUST check passed
  1  at least one MUST check failed (or could not be evaluated)
  2  usage or configuration error
  3  an environment was unreachable
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    MUST_FAILED = 1
    USAGE = 2
    UNREACHABLE = 3


class HarnessError(Exception):
    """Base class of errors that end a run with a clear message instead of a traceback."""

    exit_code: ExitCode = ExitCode.USAGE


class ConfigError(HarnessError):
    """A profile, option or environment variable is wrong. The message names the key or variable."""

    exit_code = ExitCode.USAGE


class UnreachableError(HarnessError):
    """The target environment could not be reached: not a conformance verdict."""

    exit_code = ExitCode.UNREACHABLE


class NotApplicable(Exception):
    """A check cannot run here (no sample, no key, budget spent). Reported as skipped."""
