"""Peak memory and wall time of a whole address run against a misbehaving server, with
the default limits (README "Limits"): a 60 MiB body and a gzip bomb (about 1 MiB that
inflates to 1 GiB) on every answer, and an answer that drips a byte every 2 s. Targets on
2 cores: under 400 MB peak RSS and under 60 s for the body and the bomb, under 3 minutes
for the drip (the circuit breaker stops the address API after 5 transport failures in a row).

The run is a real `conformance run` in a subprocess (its own peak RSS, read from wait4),
against tests/misbehaving_server.py on loopback.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from misbehaving_server import MisbehavingServer  # noqa: E402

PROFILE = """
[profile]
name = "misbehaving-{mode}"
description = "benchmark: an address API that answers {mode}"
[services.address]
mock = false
base_url = "{url}/lvbag/individuelebevragingen/v2"
[services.address.secrets]
api_key = "MISBEHAVING_KEY"
[services.address.samples]
nummeraanduiding = "0363200000123456"
[safety]
fuzz = true
negative = true
[fuzz]
max_examples = {examples}
[limits]
request_budget = {budget}
"""
MODES = ("huge-body", "gzip-bomb", "drip")


def measure(mode: str, examples: int, budget: int) -> tuple[float, float, int]:
    with MisbehavingServer(mode=mode, limit_s=300) as server, tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "p.toml"
        profile.write_text(PROFILE.format(mode=mode, url=f"http://127.0.0.1:{server.port}", examples=examples,
                                          budget=budget))
        cmd = [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", "address",
               "--no-html", "--report-dir", str(Path(tmp) / "run"), "--seed", "1", "--", "-q"]
        started = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env={**os.environ, "MISBEHAVING_KEY": "k" * 16})
        _, status, usage = os.wait4(proc.pid, 0)
        return time.monotonic() - started, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=25, help="fuzzing examples per operation (profile default)")
    parser.add_argument("--budget", type=int, default=0, help="the profile's request budget (default: none)")
    parser.add_argument("--mode", choices=MODES, action="append", help="one mode (repeatable; default: all)")
    args = parser.parse_args()
    for mode in args.mode or MODES:
        wall, rss, code = measure(mode, args.examples, args.budget)
        print(f"{mode:10}  wall {wall:5.1f} s  peak RSS {rss:6.1f} MB  exit {code}  "
              f"(default limits; {args.examples} examples per operation, budget {args.budget} requests)")


if __name__ == "__main__":
    main()
