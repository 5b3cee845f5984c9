"""Where a run's CPU goes, per exchange: a local-mock run in one process (`-n 0`, the mocks in
its threads), sampled every few milliseconds. Each sample charges every thread's CPU time
since the previous sample (the kernel's per-thread clock, so a thread waiting for an answer
costs nothing) to the layer its stack is in at that moment: the innermost frame that belongs
to a known layer decides (a JSON decode inside an exchange rule is the rule's). Printed: the
run's CPU time, its exchanges (traffic.har), the CPU per exchange, and each layer's share
and milliseconds per exchange.

    .venv/bin/python benchmarks/cpu_per_exchange.py [--suite address|auth|soap] [--interval-ms 2]

A sample sees where a thread is, not where it was during the whole interval, so a layer's
share is an estimate that steadies with the number of samples (thousands in a full run);
CPU of threads that ended between two samples is printed as "not attributed".
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

MOCK_THREAD = "/conformance/serving.py"  # a frame of the mock servers' threads
# (path fragment, layer), innermost frame first: the first fragment a frame's file holds names it.
LAYERS = (
    ("/conformance/http/redaction.py", "redaction"),
    ("/conformance/http/secret_forms.py", "redaction"),
    ("/conformance/http/", "harness HTTP layer (bounds, pacing, recording)"),
    ("/conformance/passive/", "exchange rules (judging every exchange)"),
    ("/allure", "report evidence (Allure)"),
    ("/httpx/", "HTTP client libraries"),
    ("/httpcore/", "HTTP client libraries"),
    ("/h11/", "HTTP client libraries"),
    ("/requests/", "HTTP client libraries"),
    ("/urllib3/", "HTTP client libraries"),
    ("/hypothesis/", "generation: hypothesis"),
    ("/schemathesis/", "contract fuzzing: schemathesis (cases, its checks)"),
    ("/conformance/", "the harness's checks and the rest of it"),
    ("/suites/", "the harness's checks and the rest of it"),
    ("/_pytest/", "pytest"),
    ("/pluggy/", "pytest"),
    ("importlib", "imports"),
)


def layer_of(frame) -> str:
    """The layer a thread's stack is in (see LAYERS)."""
    stack = []
    while frame is not None:
        stack.append(frame.f_code.co_filename)
        frame = frame.f_back
    if any(MOCK_THREAD in name for name in stack):
        return "mock servers"
    for name in stack:
        for fragment, layer in LAYERS:
            if fragment in name:
                return layer
    return "other"


class Sampler(threading.Thread):
    """Charges each thread's CPU since the last sample to the layer it is in."""

    def __init__(self, interval_s: float) -> None:
        super().__init__(daemon=True)
        self.interval_s = interval_s
        self.charged: Counter[str] = Counter()
        self.samples = 0
        self._last: dict[int, float] = {}
        self._done = threading.Event()

    def run(self) -> None:
        me = threading.get_ident()
        while not self._done.wait(self.interval_s):
            self.samples += 1
            for ident, frame in sys._current_frames().items():  # noqa: SLF001 - what a sampling profiler reads
                if ident == me:
                    continue
                try:
                    cpu = time.clock_gettime(time.pthread_getcpuclockid(ident))
                except (OSError, OverflowError):  # the thread ended meanwhile
                    continue
                before = self._last.get(ident)
                self._last[ident] = cpu
                if before is not None and cpu >= before:  # less: a new thread under an ended one's id
                    self.charged[layer_of(frame)] += cpu - before

    def stop(self) -> None:
        self._done.set()
        self.join()


def exchanges_in(report_dir: Path) -> int:
    har = report_dir / "traffic.har"
    return len(json.loads(har.read_text(encoding="utf-8"))["log"]["entries"]) if har.is_file() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=["address", "auth", "soap"], help="one suite (default: all three)")
    parser.add_argument("--interval-ms", type=float, default=2.0, help="sampling interval (default 2 ms)")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from conformance.cli import main as conformance

    with tempfile.TemporaryDirectory(prefix="cpu-per-exchange-") as tmp:
        report = Path(tmp) / "run"
        command = ["run", "-n", "0", "--no-html", "--report-dir", str(report)]
        if args.suite:
            command += ["--suite", args.suite]
        sampler = Sampler(args.interval_ms / 1000)
        cpu, wall = time.process_time(), time.perf_counter()
        sampler.start()
        with contextlib.redirect_stdout(io.StringIO()):
            code = conformance(command)
        sampler.stop()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        exchanges = exchanges_in(report)
    if exchanges == 0:
        print(f"the run (exit {code}) recorded no exchange", file=sys.stderr)
        return 1
    charged = dict(sampler.charged)
    charged["not attributed"] = max(0.0, cpu - sum(charged.values()))
    print(f"{args.suite or 'all suites'}: exit {code}, {wall:.1f} s wall, {cpu:.1f} CPU-s, {exchanges} exchanges: "
          f"{1000 * cpu / exchanges:.1f} ms of CPU per exchange ({sampler.samples} samples)")
    for layer, seconds in sorted(charged.items(), key=lambda item: -item[1]):
        print(f"  {100 * seconds / cpu:5.1f} %  {1000 * seconds / exchanges:6.2f} ms/exchange  {layer}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
