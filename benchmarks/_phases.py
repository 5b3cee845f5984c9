"""A pytest plugin for the benchmarks: when each phase of a run began (`-p _phases`, with
BENCH_PHASES naming the JSON file to write). Monotonic seconds since the process started;
"gc_s" is the time spent in garbage collection from this plugin's import to the end."""

from __future__ import annotations

import gc
import json
import os
import time

import pytest

_T: dict[str, float] = {"imported": time.monotonic(), "gc_s": 0.0}
_GC_STARTED = [0.0]


def _gc_timer(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _GC_STARTED[0] = time.perf_counter()
    else:
        _T["gc_s"] += time.perf_counter() - _GC_STARTED[0]


gc.callbacks.append(_gc_timer)


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
