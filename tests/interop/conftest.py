"""The interop tier (marker `interop`): real, unmodified third-party servers on loopback.

A peer whose runtime is missing is skipped with the reason, but only where the variable CI
is unset: in CI a missing peer fails, so the tier cannot silently run nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import prism_peer
import pytest
from peers import require_peer


@pytest.fixture(scope="module")
def prism_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """Stoplight Prism mocking conformance/openapi/address-v2.yaml: (its origin, its log file)."""
    require_peer(prism_peer.missing_tools(), "Stoplight Prism")
    log = tmp_path_factory.mktemp("prism") / "prism.log"
    with prism_peer.running_prism(log) as origin:
        yield origin, log


# The tier's wall time, printed at the end of every session that ran interop tests.
_SPAN: list[float] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "interop" in report.keywords:
        _SPAN.extend((report.start, report.stop))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _SPAN:
        terminalreporter.write_line(f"interop tier wall time: {max(_SPAN) - min(_SPAN):.1f} s")
