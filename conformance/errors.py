"""Errors the user can act on, and the exit codes they map to.

Exit codes (documented in the README):
  0  conforms: every MUST check passed
  1  does not conform: at least one MUST check failed
  2  usage or configuration error
  3  an environment was unreachable
  4  could not judge: no MUST check failed, but a MUST check was blocked (a precondition
     failed) or broke (a harness error); with --require-coverage, also a MUST check not judged
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
    """The rule does not apply here (the login driver cannot show a consent page, the
    description has no such operation, the deployment has no such resource server):
    outcome `not_applicable`.

    Not for a rule that applies but the run lacked what judging it takes: that is
    `NotJudged`. Not for a precondition that failed on the server: that is
    `conformance.findings.Blocked`."""


class NotJudged(Exception):
    """The rule applies, but this run could not judge it: it lacked material the profile can
    give (a restricted key, a quota key, a second user, a clock hook, a WSDL file, a sample),
    its request budget, quota or wait budget ran out, or a safety switch forbade it.
    Outcome `not_judged`.

    `what` is the short, shared reason ("no restricted key", "request budget of 150 used
    up"): the coverage line groups by it. `how` says how to provide it."""

    def __init__(self, what: str, how: str = "") -> None:
        self.what, self.how = what, how
        super().__init__(f"{what} ({how})" if how else what)
