"""Wall time of a suite against a slow service: serial (`[limits] concurrency = 1`) vs
concurrent (the default concurrency).

The local mock of the suite's service is started with every answer held --delay seconds
(`MockCluster(answer_delay_s=...)`, as `conformance mock --answer-delay`; requests in flight
together wait together) and described as a deployment (`mock = false`, the harness's
default limits but `requests_per_second = --rate`), and `conformance run --suite S` is
pointed at it in a subprocess (`-n auto`: as many workers as cores; the requests in flight
follow the probe's latency and the rate, conformance/http/concurrency.py, and the tests run
side by side within the workers, conformance/side_by_side.py). Printed per run: suite,
delay, concurrency, wall time, exit code, verdict and the requests sent (the entries of the
run's traffic.har); the workers and how long they took to start (progress.json: from the
tests' loop to the first test); then the floor no concurrency gets under: the requests / the
rate, the wall time's multiple of it, and the longest check (its answers in a row x the
delay, read from junit.xml's time of the slowest test). With --compare the same run against
the mock without a delay, and whether every check's outcome is the same. Targets (reported,
not asserted; 2 cores): the address suite at 0.2 s and 50 requests/s within 1.5 times the
floor, its workers ready within 5 s; the SOAP suite at 5 s within 60 s.

The serial run at 5 s takes long: it runs only with --serial; otherwise its time is
estimated from the concurrent run's requests as requests x delay (concurrency 1 is one
request in flight to the service across all the run's workers, conformance/http/concurrency.py).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

from conformance.mocks.deployment import deployment_profile  # noqa: E402
from conformance.mocks.faults import FaultSet  # noqa: E402
from conformance.mocks.launcher import MockCluster  # noqa: E402
from conformance.profiles import load_profile  # noqa: E402

SERVICES = ("address", "soap", "auth")
TARGET_S = {"soap": 60.0}  # at 5 s per answer
TARGET_FLOORS = {"address": 1.5}  # at 0.2 s per answer: the wall time within this multiple of requests / rate
WORKERS_READY_S = 5.0


@dataclasses.dataclass
class Run:
    concurrency: str
    wall_s: float
    exit_code: int
    verdict: str
    requests: int
    outcomes: dict[tuple[str, str], str] = dataclasses.field(default_factory=dict)
    longest_s: float = 0.0  # the slowest test (junit.xml)
    workers: int = 0  # progress.json: the xdist workers (1: one process)
    workers_ready_s: float = 0.0  # progress.json: from the tests' loop to the first test


def run_suite(profile_text: str, suite: str, workers: str, concurrency: str, tmp: Path, env: dict[str, str],
              rate: float) -> Run:
    """`conformance run` of `suite` against the described mocks at `rate` requests/s (0:
    unpaced); `concurrency` "1" adds `[limits] concurrency = 1`, "default" leaves it out."""
    folder = tmp / f"concurrency-{concurrency}-{len(list(tmp.iterdir()))}"
    folder.mkdir()
    profile = folder / "slow-deployment.toml"
    limits = "\n[limits]\n" + (f"requests_per_second = {rate:g}\n" if rate else "")
    limits += "concurrency = 1\n" if concurrency == "1" else ""
    profile.write_text(profile_text + limits, encoding="utf-8")
    report = folder / "run"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", suite, "--no-html",
         "--report-dir", str(report), "--seed", "1", "-n", workers, "--", "-q"],
        cwd=REPO, capture_output=True, text=True, env=env,
    )
    wall = time.monotonic() - started
    verdict, requests, outcomes = "no summary.json", 0, {}
    try:
        summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
        verdict = summary["verdict_text"]
        outcomes = {(e["check"], e["test"]): e["outcome"] for e in summary["checks"]}
    except (OSError, ValueError, KeyError):
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        verdict += f" ({' / '.join(tail)})" if tail else ""
    with contextlib.suppress(OSError, ValueError, KeyError):  # no traffic.har: 0 requests shown
        requests = len(json.loads((report / "traffic.har").read_text(encoding="utf-8"))["log"]["entries"])
    run = Run(concurrency, wall, proc.returncode, verdict, requests, outcomes, longest_test_s(report / "junit.xml"))
    with contextlib.suppress(OSError, ValueError, KeyError):  # no progress.json: nothing measured
        progress = json.loads((report / "progress.json").read_text(encoding="utf-8"))
        run.workers, run.workers_ready_s = int(progress["workers"]), float(progress["startup_s"])
    return run


# The response-schema check runs last in its worker and waits there for the other workers'
# tests to end: its time is theirs, not a chain of its own answers.
WAITS_FOR_OTHERS = ("test_every_answer_matches_its_response_schema",)


def longest_test_s(junit: Path) -> float:
    """The slowest test's seconds: its answers in a row x the delay, at least (0: none read)."""
    import xml.etree.ElementTree as ET

    try:
        return max((float(case.get("time") or 0) for case in ET.parse(junit).iter("testcase")
                    if case.get("name") not in WAITS_FOR_OTHERS), default=0.0)
    except (OSError, ET.ParseError, ValueError):
        return 0.0


def show(suite: str, delay: float, run: Run, rate: float) -> None:
    print(f"{suite:7}  delay {delay:g} s  concurrency {run.concurrency:7}  wall {run.wall_s:7.1f} s  "
          f"exit {run.exit_code}  verdict: {run.verdict}  requests sent: {run.requests}", flush=True)
    print(f"{'':7}  workers {run.workers}, ready {run.workers_ready_s:.1f} s after the tests' start "
          f"(target: at most the cores, {os.cpu_count()}, within {WORKERS_READY_S:g} s)", flush=True)
    by_rate = run.requests / rate if rate else 0.0
    chain = round(run.longest_s / delay) if delay else 0
    times = f" (wall {run.wall_s / by_rate:.2f} x the floor)" if by_rate else ""
    print(f"{'':7}  floor {by_rate:7.1f} s: {run.requests} requests / {rate:g} per s{times}; longest check "
          f"{run.longest_s:.1f} s (about {chain} answers in a row x {delay:g} s)", flush=True)


def compare(delayed: Run, undelayed: Run) -> None:
    """Whether every check's outcome is the same with the delay as without."""
    differ = {key: (undelayed.outcomes.get(key), outcome) for key, outcome in delayed.outcomes.items()
              if undelayed.outcomes.get(key) != outcome}
    differ.update({key: (outcome, None) for key, outcome in undelayed.outcomes.items() if key not in delayed.outcomes})
    same = not differ and delayed.verdict == undelayed.verdict and delayed.exit_code == undelayed.exit_code
    print(f"without delay: wall {undelayed.wall_s:.1f} s, exit {undelayed.exit_code}, verdict: {undelayed.verdict}, "
          f"{len(undelayed.outcomes)} checks; outcomes {'identical' if same else 'DIFFER'}", flush=True)
    for (check, test), (before, after) in sorted(differ.items())[:20]:
        print(f"  {check} {test}: {before} without delay, {after} with", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="soap", choices=("soap", "address"))
    parser.add_argument("--delay", type=float, default=5.0, help="seconds every answer is held (default: 5)")
    parser.add_argument("--workers", default="auto", help="pytest-xdist workers of each run (default: auto)")
    parser.add_argument("--serial", action=argparse.BooleanOptionalAction, default=False,
                        help="also run with concurrency 1 (long: about requests x delay); default: estimate it")
    parser.add_argument("--rate", type=float, default=50.0, help="the profile's requests_per_second (default: 50; 0: unpaced)")
    parser.add_argument("--compare", action=argparse.BooleanOptionalAction, default=False,
                        help="also run against the mock without a delay and compare every check's outcome")
    args = parser.parse_args()
    local = load_profile("local-mock")
    # Only the suite's service: the others would only add their start and preflight.
    profile = dataclasses.replace(local, **{name: None for name in SERVICES if name != args.suite})
    with tempfile.TemporaryDirectory(prefix="slow-service-") as folder:
        with MockCluster(profile, FaultSet(), answer_delay_s=args.delay) as cluster:
            described = deployment_profile(profile, cluster)
            env = {**os.environ, **cluster.secrets}
            print(f"{args.suite} mock answering in {args.delay:g} s at {cluster.urls[args.suite]}; -n {args.workers}; "
                  f"{args.rate:g} requests/s", flush=True)
            concurrent = run_suite(described, args.suite, args.workers, "default", Path(folder), env, args.rate)
            show(args.suite, args.delay, concurrent, args.rate)
            if args.serial:
                serial = run_suite(described, args.suite, args.workers, "1", Path(folder), env, args.rate)
                show(args.suite, args.delay, serial, args.rate)
            else:
                estimate = concurrent.requests * args.delay
                print(f"{args.suite:7}  delay {args.delay:g} s  concurrency 1        estimated {estimate:7.1f} s "
                      f"({concurrent.requests} requests x {args.delay:g} s, one at a time; --serial runs it)")
        if args.compare:
            with MockCluster(profile, FaultSet()) as cluster:
                undelayed = run_suite(deployment_profile(profile, cluster), args.suite, args.workers, "default",
                                      Path(folder), {**os.environ, **cluster.secrets}, args.rate)
            compare(concurrent, undelayed)
    target = {"soap": 5.0, "address": 0.2}[args.suite]
    within = (f"{TARGET_FLOORS[args.suite]:g} x requests / rate" if args.suite in TARGET_FLOORS
              else f"{TARGET_S[args.suite]:.0f} s")
    print(f"target: the {args.suite} suite at {target:g} s per answer within {within}; "
          f"this run (delay {args.delay:g} s, {args.rate:g} requests/s): {concurrent.wall_s:.1f} s")

if __name__ == "__main__":
    main()
