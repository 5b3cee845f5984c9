"""How the project's own tests are spread over xdist workers (`pytest -n auto tests`).

Their lengths differ by four orders of magnitude: a fault meta-test's runs take up to a
minute, most tests a few milliseconds. xdist's default ("load") hands each worker a queue
at the start and never takes it back, so one worker can be left working through a queue
of whole-run tests while the other has nothing left: measured, one of two workers idle
for the last 316 s of a 915 s run. With work stealing an idle worker takes pending tests
from a busy one. A `--dist` other than the default is left as given.

A third worker on two cores, tried for the CPU the waiting tests leave idle, was slower:
each test took about a third longer.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # unknown without xdist (-p no:xdist)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)
