"""A conformance finding: what was expected, what the server did.

It subclasses AssertionError on purpose: pytest and Allure then report it as *failed*
(a product defect), while any other exception shows as *broken* (a harness or
environment problem).
"""

from __future__ import annotations

from typing import Any


class Finding(AssertionError):
    def __init__(self, message: str, *, expected: Any = None, actual: Any = None) -> None:
        self.message = message
        self.expected = expected
        self.actual = actual
        parts = [message]
        if expected is not None:
            parts.append(f"expected: {expected}")
        if actual is not None:
            parts.append(f"actual: {actual}")
        super().__init__("; ".join(parts))


def expect(condition: bool, message: str, *, expected: Any = None, actual: Any = None) -> None:
    """Raise a Finding unless condition holds. The one-line reason goes into summary.json."""
    if not condition:
        raise Finding(message, expected=expected, actual=actual)
