"""benchmarks/cpu_per_exchange.py runs as benchmarks/README.md shows it (the figures are the
benchmark's, not a test's), and times each layer as its own: a layer entered inside another
is the inner one's."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import threading
import time

from conformance.paths import CHECKOUT

_SPEC = importlib.util.spec_from_file_location("cpu_per_exchange", CHECKOUT / "benchmarks" / "cpu_per_exchange.py")
assert _SPEC is not None and _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def _busy(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_layer_counts_its_own_cpu_not_the_inner_layers_nor_a_wait() -> None:
    meter = bench.Meter()
    inner = meter.timed("inner", lambda: _busy(0.05))

    def outer() -> None:
        _busy(0.03)
        inner()
        threading.Event().wait(0.1)  # waiting costs no CPU

    meter.timed("outer", outer)()
    assert 0.045 <= meter.own["inner"] <= 0.08, meter.own
    assert 0.025 <= meter.own["outer"] <= 0.06, meter.own  # its 30 ms, not the inner 50 nor the 100 ms wait
    by_argument = meter.timed(lambda kind: f"layer {kind}", lambda kind: _busy(0.01))
    by_argument("a")
    assert meter.own["layer a"] >= 0.009


def test_the_benchmark_runs_as_documented() -> None:
    proc = subprocess.run([sys.executable, "benchmarks/cpu_per_exchange.py", "--suite", "soap"], cwd=CHECKOUT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    head, *layers = proc.stdout.strip().splitlines()
    # the verdict is the run's (a loaded machine may be slow to answer): the figures are printed either way
    assert re.search(r"soap: exit \d, .* \d+ exchanges: [\d.]+ ms of CPU per exchange", head), proc.stdout
    shares = {line.split("ms/exchange", 1)[1].strip(): float(line.split("%", 1)[0]) for line in layers}
    measured = {bench.MOCKS, "redaction", "sending: the harness's HTTP layer and httpx", "report evidence (Allure)",
                "exchange rules (judging every exchange)", bench.TESTS}
    assert measured <= set(shares) and all(shares[layer] > 0 for layer in measured), proc.stdout
    assert all(share >= 0 for share in shares.values()) and 99 <= sum(shares.values()) <= 101, proc.stdout
