"""Wall time of a suite against a slow service: serial (`[limits] concurrency = 1`) vs
concurrent (the default concurrency).

The local mock of the suite's service is started with every answer held --delay seconds
(`MockCluster(answer_delay_s=...)`, as `conformance mock --answer-delay`; requests in flight
together wait together) and described as a deployment (`mock = false`, the harness's
default limits), and `conformance run --suite S` is pointed at it in a subprocess. Printed
per run: suite, delay, concurrency, wall time, exit code, verdict and the requests sent
(the entries of the run's traffic.har). Target (reported, not asserted): the SOAP suite
against a service answering in 5 s takes at most 5 minutes with the default limits.

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
TARGET_S = 300.0  # the SOAP suite at 5 s per answer


@dataclasses.dataclass
class Run:
    concurrency: str
    wall_s: float
    exit_code: int
    verdict: str
    requests: int


def run_suite(profile_text: str, suite: str, workers: str, concurrency: str, tmp: Path, env: dict[str, str]) -> Run:
    """`conformance run` of `suite` against the described mocks; `concurrency` "1" adds
    `[limits] concurrency = 1`, "default" leaves the key out."""
    folder = tmp / f"concurrency-{concurrency}"
    folder.mkdir()
    profile = folder / "slow-deployment.toml"
    limits = "\n[limits]\nconcurrency = 1\n" if concurrency == "1" else ""
    profile.write_text(profile_text + limits, encoding="utf-8")
    report = folder / "run"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", suite, "--no-html",
         "--report-dir", str(report), "--seed", "1", "-n", workers, "--", "-q"],
        cwd=REPO, capture_output=True, text=True, env=env,
    )
    wall = time.monotonic() - started
    verdict, requests = "no summary.json", 0
    try:
        verdict = json.loads((report / "summary.json").read_text(encoding="utf-8"))["verdict_text"]
    except (OSError, ValueError, KeyError):
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        verdict += f" ({' / '.join(tail)})" if tail else ""
    with contextlib.suppress(OSError, ValueError, KeyError):  # no traffic.har: 0 requests shown
        requests = len(json.loads((report / "traffic.har").read_text(encoding="utf-8"))["log"]["entries"])
    return Run(concurrency, wall, proc.returncode, verdict, requests)


def show(suite: str, delay: float, run: Run) -> None:
    print(f"{suite:7}  delay {delay:g} s  concurrency {run.concurrency:7}  wall {run.wall_s:7.1f} s  "
          f"exit {run.exit_code}  verdict: {run.verdict}  requests sent: {run.requests}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="soap", choices=("soap", "address"))
    parser.add_argument("--delay", type=float, default=5.0, help="seconds every answer is held (default: 5)")
    parser.add_argument("--workers", default="auto", help="pytest-xdist workers of each run (default: auto)")
    parser.add_argument("--serial", action=argparse.BooleanOptionalAction, default=False,
                        help="also run with concurrency 1 (long: about requests x delay); default: estimate it")
    args = parser.parse_args()
    local = load_profile("local-mock")
    # Only the suite's service: the others would only add their start and preflight.
    profile = dataclasses.replace(local, **{name: None for name in SERVICES if name != args.suite})
    with MockCluster(profile, FaultSet(), answer_delay_s=args.delay) as cluster, \
            tempfile.TemporaryDirectory(prefix="slow-service-") as folder:
        described = deployment_profile(profile, cluster)
        env = {**os.environ, **cluster.secrets}
        print(f"{args.suite} mock answering in {args.delay:g} s at {cluster.urls[args.suite]}; -n {args.workers}",
              flush=True)
        concurrent = run_suite(described, args.suite, args.workers, "default", Path(folder), env)
        show(args.suite, args.delay, concurrent)
        if args.serial:
            show(args.suite, args.delay, run_suite(described, args.suite, args.workers, "1", Path(folder), env))
        else:
            estimate = concurrent.requests * args.delay
            print(f"{args.suite:7}  delay {args.delay:g} s  concurrency 1        estimated {estimate:7.1f} s "
                  f"({concurrent.requests} requests x {args.delay:g} s, one at a time; --serial runs it)")
    if args.suite == "soap":
        print(f"target: the SOAP suite at 5 s per answer within {TARGET_S:.0f} s with the default limits; "
              f"this run (delay {args.delay:g} s): {concurrent.wall_s:.1f} s")


if __name__ == "__main__":
    main()
