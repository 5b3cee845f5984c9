"""Errors the user can act on, and the exit codes they map to.

Exit codes (documented in the README):
  0  conforms: every MUST check passed
  1  does not conform: at least one MUST check failed
  2  usage or configuration error
  3  an environment was unreachable
  4  could not judge: no MUST check failed, but a MUST check was blocked (a precondition
     failed) or broke (a harness error)
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    MUST_FAILED = 1
    USAGE = 2
    UNREACHABLE = 3
    COULD_NOT_JUDGE = 4


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
    """The check does not apply to this deployment or profile (no sample configured, no
    resource server, no clock to move, budget spent): outcome `not_applicable`.

    Not for a precondition that failed on the server: that is `conformance.findings.Blocked`."""
