"""benchmarks/cpu_per_exchange.py runs as benchmarks/README.md shows it (the figures are the
benchmark's, not a test's), and charges what it samples to the layer the stack is in."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from types import SimpleNamespace

from conformance.paths import CHECKOUT

_SPEC = importlib.util.spec_from_file_location("cpu_per_exchange", CHECKOUT / "benchmarks" / "cpu_per_exchange.py")
assert _SPEC is not None and _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def _stack(*files: str) -> SimpleNamespace:
    """A thread's stack, outermost file first: its innermost frame, linked to its callers."""
    frame = None
    for name in files:
        frame = SimpleNamespace(f_code=SimpleNamespace(co_filename=name), f_back=frame)
    return frame


def test_a_stack_is_charged_to_its_innermost_known_layer() -> None:
    site = "/venv/lib/python3.11/site-packages"
    rule_decoding_json = _stack(f"{site}/_pytest/runner.py", "/repo/conformance/passive/judge.py",
                                "/usr/lib/python3.11/json/decoder.py")
    assert bench.layer_of(rule_decoding_json) == "exchange rules (judging every exchange)"
    fuzzing_sending = _stack(f"{site}/schemathesis/generation/case.py", "/repo/conformance/http/client.py",
                             f"{site}/httpx/_client.py")
    assert bench.layer_of(fuzzing_sending) == "HTTP client libraries"
    masking = _stack("/repo/conformance/http/client.py", "/repo/conformance/http/redaction.py", "/usr/lib/re.py")
    assert bench.layer_of(masking) == "redaction"
    mock = _stack("/usr/lib/threading.py", "/repo/conformance/serving.py", f"{site}/starlette/routing.py",
                  "/repo/conformance/http/exchange.py")  # the mock's thread, whatever it calls
    assert bench.layer_of(mock) == "mock servers"
    assert bench.layer_of(_stack("/usr/lib/python3.11/threading.py")) == "other"


def test_the_benchmark_runs_as_documented() -> None:
    proc = subprocess.run([sys.executable, "benchmarks/cpu_per_exchange.py", "--suite", "soap"], cwd=CHECKOUT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    head, *layers = proc.stdout.strip().splitlines()
    # the verdict is the run's (a loaded machine may be slow to answer): the figures are printed either way
    assert re.search(r"soap: exit \d, .* \d+ exchanges: [\d.]+ ms of CPU per exchange", head), proc.stdout
    shares = {line.split("ms/exchange", 1)[1].strip(): float(line.split("%", 1)[0]) for line in layers}
    assert {"mock servers", "redaction", "exchange rules (judging every exchange)"} <= set(shares), shares
    assert all(share >= 0 for share in shares.values()) and 99 <= sum(shares.values()) <= 101, proc.stdout
