"""What every interop peer's test needs: the skip-or-fail rule and reading a server's
readiness line."""

from __future__ import annotations

import os
import select
import subprocess
import time

import pytest


def require_peer(missing: str | None, peer: str) -> None:
    """Skip (or, with CI set, fail) when `missing` says why the peer cannot run: in CI a
    missing peer fails, so the tier cannot silently run nothing."""
    if missing is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{missing}: the interop tier must run in CI ({peer})", pytrace=False)
    pytest.skip(f"{missing}: the {peer} interop peer cannot run (set up with scripts/bootstrap)")


def read_first_line(proc: subprocess.Popen[str], deadline: float) -> str:
    """The server's first stdout line, waiting at most until `deadline` (time.monotonic)."""
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if ready:
            return proc.stdout.readline()
    return ""
