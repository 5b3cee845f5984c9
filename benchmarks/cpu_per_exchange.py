"""Where a run's CPU goes, per exchange: a local-mock run in one process (`-n 0`, the mocks in
its threads), each layer's CPU counted on the kernel's per-thread clock.

    .venv/bin/python benchmarks/cpu_per_exchange.py [--suite address|auth|soap]

The harness's layers are timed where they are entered and left (their own time: a layer
called inside another is the inner one's): sending (the harness's HTTP layer, httpx and
its transport: `ApiClient.request_revealing`), recording (`ApiClient.record`, the traffic
log's `TrafficLog.write` and `join`), redaction (`Redactor`), the exchange rules (every
`ExchangeRule` and `judge_each`), the report's evidence (`attach_exchanges` and Allure's
file writer), and the tests themselves (pytest's call of each test: the contract fuzzing's
-- hypothesis and schemathesis generating, and schemathesis's checks -- apart from the
others). The mock servers are their threads' CPU, read every 20 ms (the last 20 ms of each
may be missed). The rest is pytest around the tests, the fixtures, collection, imports, the
run's start and its end. Printed: CPU-seconds, exchanges (traffic.har), CPU per exchange,
and each layer's share and milliseconds per exchange.

A sampling profiler charges the CPU a thread used since the last sample to where it is
found, which, for threads that compute for a millisecond and then wait for an answer,
charges the computing to the waiting (an earlier version of this script put a quarter of
the CPU in httpcore's socket write). Timing the layers themselves has no such bias; its
cost, two clock reads per call, is in the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FUZZING = "contract fuzzing: generation, schemathesis and its checks"
TESTS = "the other tests' own code"
MOCKS = "mock servers"
REST = "the rest: pytest around the tests, fixtures, collection, imports, start and end"


class Meter:
    """Each layer's own CPU time, per thread (a layer entered inside another is the inner one's)."""

    def __init__(self) -> None:
        self.own: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._local = threading.local()

    def timed(self, layer: str | Callable[..., str], function: Callable[..., Any]) -> Callable[..., Any]:
        """`function`, its time counted as `layer`'s (or as the layer `layer(*args)` names); its
        attributes kept (Allure's writer is registered by its hook markers)."""
        @functools.wraps(function)
        def measured(*args: Any, **kwargs: Any) -> Any:
            stack = self._local.__dict__.setdefault("stack", [])
            stack.append(0.0)  # the time of the layers entered inside this one
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent = time.thread_time() - started
                inner = stack.pop()
                name = layer(*args) if callable(layer) else layer
                with self._lock:
                    self.own[name] += spent - inner
                if stack:
                    stack[-1] += spent

        return measured


def _patch(owner: Any, name: str, meter: Meter, layer: str | Callable[..., str]) -> None:
    setattr(owner, name, meter.timed(layer, getattr(owner, name)))


def instrument(meter: Meter) -> None:
    """Time each layer where it is entered (the module docstring)."""
    import _pytest.python
    from allure_commons.logger import AllureFileLogger

    from conformance.catalogue import load
    from conformance.http import evidence
    from conformance.http.client import ApiClient
    from conformance.http.redaction import Redactor
    from conformance.passive import judge
    from conformance.passive.har import TrafficLog
    from conformance.passive.rules.registry import EXCHANGE_RULES

    _patch(ApiClient, "request_revealing", meter, "sending: the harness's HTTP layer and httpx")
    _patch(ApiClient, "record", meter, "recording")
    for name in ("write", "join"):
        _patch(TrafficLog, name, meter, "recording")
    for name in ("text", "url", "headers", "learn", "body", "exchange"):
        _patch(Redactor, name, meter, "redaction")
    load()  # every rule registered, then each one timed
    rules = "exchange rules (judging every exchange)"
    for rule in EXCHANGE_RULES.values():
        for name in ("applies", "judge"):
            object.__setattr__(rule, name, meter.timed(rules, getattr(rule, name)))
    _patch(judge, "judge_each", meter, rules)
    evidence_layer = "report evidence (Allure)"
    _patch(evidence, "attach_exchanges", meter, evidence_layer)
    for name in ("report_result", "report_container", "report_attached_data", "report_attached_file"):
        _patch(AllureFileLogger, name, meter, evidence_layer)
    _patch(_pytest.python.Function, "runtest", meter,
           lambda item: FUZZING if item.get_closest_marker("fuzz") else TESTS)


class MockClock(threading.Thread):
    """The CPU of the mock servers' threads, read every 20 ms while they run."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.seen: dict[int, float] = {}
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.02):
            for thread in threading.enumerate():
                if thread.name.startswith("mock-") and thread.ident is not None:  # conformance/serving.py names them
                    with contextlib.suppress(OSError, OverflowError):  # ended meanwhile
                        self.seen[thread.ident] = time.clock_gettime(time.pthread_getcpuclockid(thread.ident))

    def stop(self) -> float:
        self._done.set()
        self.join()
        return sum(self.seen.values())


def exchanges_in(report_dir: Path) -> int:
    har = report_dir / "traffic.har"
    return len(json.loads(har.read_text(encoding="utf-8"))["log"]["entries"]) if har.is_file() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=["address", "auth", "soap"], help="one suite (default: all three)")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from conformance.cli import main as conformance

    meter = Meter()
    instrument(meter)
    with tempfile.TemporaryDirectory(prefix="cpu-per-exchange-") as tmp:
        report = Path(tmp) / "run"
        command = ["run", "-n", "0", "--no-html", "--report-dir", str(report)]
        if args.suite:
            command += ["--suite", args.suite]
        mocks = MockClock()
        cpu, wall = time.process_time(), time.perf_counter()
        mocks.start()
        with contextlib.redirect_stdout(io.StringIO()):
            code = conformance(command)
        spent = dict(meter.own)
        spent[MOCKS] = mocks.stop()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        exchanges = exchanges_in(report)
    if exchanges == 0:
        print(f"the run (exit {code}) recorded no exchange", file=sys.stderr)
        return 1
    spent[REST] = max(0.0, cpu - sum(spent.values()))
    print(f"{args.suite or 'all suites'}: exit {code}, {wall:.1f} s wall, {cpu:.1f} CPU-s, {exchanges} exchanges: "
          f"{1000 * cpu / exchanges:.1f} ms of CPU per exchange")
    for layer, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {100 * seconds / cpu:5.1f} %  {1000 * seconds / exchanges:6.2f} ms/exchange  {layer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
