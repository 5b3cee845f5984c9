"""The outcome of a check, as the check itself states it.

* `Finding` -- the server did not conform (outcome `failed`). It subclasses AssertionError
  on purpose: pytest and Allure then report it as *failed* (a product defect), while any
  other exception shows as *broken* (a harness or environment problem, outcome `error`).
* `Blocked` -- a precondition of the check failed (the positive flow it starts from, the
  sample it needs, the control request of a negative case): the check could not judge its
  rule here (outcome `blocked`). Never a pass, never a failure.
* `conformance.errors.NotApplicable` -- the check does not apply to this deployment or
  profile (no sample configured, no resource server, no clock): outcome `not_applicable`.

`cause` names what was observed to go wrong in a form that is the same for every check it
took down ("GET /adressen/0363200000000000 -> 404"): the run lists each cause once, with the
checks it blocked or failed (summary.json `root_causes`).
"""

from __future__ import annotations

from typing import Any


class Finding(AssertionError):
    def __init__(self, message: str, *, expected: Any = None, actual: Any = None, cause: str | None = None) -> None:
        self.message = message
        self.expected = expected
        self.actual = actual
        self.cause = cause
        parts = [message]
        if expected is not None:
            parts.append(f"expected: {expected}")
        if actual is not None:
            parts.append(f"actual: {actual}")
        super().__init__("; ".join(parts))


class Blocked(Exception):
    """A precondition failed: `precondition` says what the check needed, `cause` what was seen."""

    def __init__(self, precondition: str, cause: str) -> None:
        self.precondition = precondition
        self.cause = cause
        super().__init__(f"{precondition}: {cause}")


def expect(condition: bool, message: str, *, expected: Any = None, actual: Any = None, cause: str | None = None) -> None:
    """Raise a Finding unless condition holds. The reason goes into summary.json in full."""
    if not condition:
        raise Finding(message, expected=expected, actual=actual, cause=cause)


def require(condition: bool, precondition: str, cause: str) -> None:
    """Raise Blocked unless a precondition holds (a control request accepted, a sample found...)."""
    if not condition:
        raise Blocked(precondition, cause)
