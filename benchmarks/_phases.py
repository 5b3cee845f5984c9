"""A pytest plugin for the benchmarks: when each phase of a run began (`-p _phases`, with
BENCH_PHASES naming the JSON file to write). Monotonic seconds since the process started."""

from __future__ import annotations

import json
import os
import time

import pytest

_T: dict[str, float] = {"imported": time.monotonic()}


def _mark(name: str) -> None:
    _T[name] = time.monotonic()


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    _mark("configure")  # every plugin's pytest_configure runs after this


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _mark("configured")


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    _mark("collection")


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    _mark("tests")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    _mark("report")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    _mark("end")
    with open(os.environ["BENCH_PHASES"], "w", encoding="utf-8") as handle:
        json.dump(_T, handle)
