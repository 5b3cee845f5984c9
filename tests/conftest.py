"""How the project's own tests are spread over xdist workers (`pytest -n auto tests`).

Their lengths differ by four orders of magnitude: a fault meta-test's runs take up to a
minute, most tests a few milliseconds. xdist's default ("load") hands each worker a queue
at the start and never takes it back, so one worker can be left working through a queue
of whole-run tests while the other has nothing left: measured, one of two workers idle
for the last 316 s of a 915 s run. With work stealing an idle worker takes pending tests
from a busy one. A `--dist` other than the default is left as given.

The checkout's modules are byte-compiled once before the tests (`pytest_configure`): the
tests start a few hundred processes (runs, their workers, mocks), and with
PYTHONDONTWRITEBYTECODE set, as on CI machines, each one parsed and compiled them again
(about 0.7 s of a 2.8 s run that selects nothing).

A third worker on two cores, tried for the CPU the waiting tests leave idle, was slower:
each test took about a third longer.
"""

from __future__ import annotations

import os
from typing import Any

import pytest


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # unknown without xdist (-p no:xdist)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return  # the controller compiles, once
    import compileall
    import tempfile

    # The runs of a test session keep the failing examples they find (the README's "The same
    # verdict twice") in a folder of their own: none replays what another session found.
    os.environ.setdefault("CONFORMANCE_FINDINGS_DIR", tempfile.mkdtemp(prefix="conformance-findings-"))

    from conformance.paths import CHECKOUT

    if CHECKOUT is None:
        return
    for folder in ("conformance", "suites", "benchmarks", "tests"):
        compileall.compile_dir(CHECKOUT / folder, quiet=2)
