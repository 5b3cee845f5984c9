"""The order of the project's own tests: the modules whose tests mostly wait (a server that
drips until the run's breaker stops it, runs that must end within a bound, an installed copy
built from scratch, full runs compared serial and parallel) start first, so that under xdist
they overlap the CPU-bound tests instead of running alone at the end of the session. Whole
modules move, in their own order, so module-scoped fixtures are set up once per worker."""

from __future__ import annotations

import pytest

LONG_FIRST = ("test_slow_services.py", "test_misbehaving_runs.py", "test_installed_tool.py",
              "test_concurrent_verdicts.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: index for index, name in enumerate(LONG_FIRST)}
    first = sorted((i for i in items if i.path.name in rank), key=lambda i: rank[i.path.name])
    if first:
        items[:] = first + [i for i in items if i.path.name not in rank]
