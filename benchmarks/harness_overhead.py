"""The harness's contract fuzzing against a plain `schemathesis run`: same description, same
server, same example count.

One local mock is started here; both runs are serial and point at it (the harness through an
ordinary profile, as a user's would, so it starts no mock of its own). A first pair warms
the caches and the mock up and is not counted. Printed: both wall times, the ratio harness /
plain (target: at most 1.2), and where the harness's time goes: process start and
collection, the contract tests themselves, writing the report, and the garbage collection
in all of these. A third run per pair, schemathesis's own pytest integration with the same
checks and nothing of the harness (benchmarks/_pytest_reference.py), shows how much of the overhead
is that integration's rather than the harness's. The CPU time each run used (user +
system, from the operating system's accounting of the finished process) is printed beside
the wall time: on a shared virtual machine the wall time of the same run varies by a tenth
or more, its CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _mock import start_local_mock, valid_key  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DESCRIPTION = REPO / "conformance" / "openapi" / "address-v2.yaml"
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection,ignored_auth"


def _must_rules() -> str:
    """The address API's MUST exchange rules, as the harness's contract fuzzing judges them
    (registered for a plain run by SCHEMATHESIS_HOOKS=conformance.checks.address.st_checks)."""
    from conformance.checks.address.st_checks import rule_checks, seed_context

    return ",".join(check.__name__ for check in rule_checks("MUST", seed_context))


PROFILE = """
[profile]
name = "overhead-benchmark"
description = "the local mock's address API, started by the benchmark"
[services.address]
mock = false
base_url = "{url}"
openapi = "{description}"
[services.address.secrets]
api_key = "BENCH_API_KEY"
[safety]
fuzz = true
negative = true
"""


REFERENCE_CONFTEST = """
import os
from hypothesis import settings
settings.register_profile("bench", max_examples=int(os.environ["BENCH_EXAMPLES"]), deadline=None)
"""


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, int, float]:
    """Wall time, exit code and the CPU time (user + system) the command itself used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, proc.returncode, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", default="25")
    parser.add_argument("--repeat", type=int, default=3, help="pairs of runs after the warm-up; the median ratio is the figure")
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent
    ratios: list[float] = []
    references: list[float] = []
    cpu_ratios: list[float] = []
    with start_local_mock() as cluster, tempfile.TemporaryDirectory() as tmp:
        key = valid_key(cluster)
        env = {**os.environ, "SCHEMATHESIS_HOOKS": "conformance.checks.address.st_checks"}
        profile = Path(tmp) / "bench.toml"
        profile.write_text(PROFILE.format(url=cluster.urls["address"], description=DESCRIPTION.as_posix()))
        # schemathesis's pytest integration alone, in a directory without the project's pytest settings
        shutil.copy(HERE / "_pytest_reference.py", Path(tmp) / "reference_test.py")
        Path(tmp, "conftest.py").write_text(REFERENCE_CONFTEST)
        for pair in range(args.repeat + 1):
            plain, plain_code, plain_cpu = timed(
                [str(bin_dir / "schemathesis"), "run", str(DESCRIPTION), "--url", cluster.urls["address"],
                 "-H", f"X-Api-Key: {key}", "-n", args.examples, "--seed", "1", "--phases", "examples,coverage,fuzzing",
                 "-c", CHECKS + "," + _must_rules(),
                 "--continue-on-failure"],
                env, Path(tmp),  # a neutral cwd: schemathesis.toml must not be auto-discovered
            )
            harness, harness_code, harness_cpu = timed(
                [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "--profile", str(profile),
                 "-n", "0", "--no-html", "--report-dir", tmp + "/h", "--seed", "1", "--max-examples", args.examples, "--",
                 "-q", "-p", "_phases", "-k", "test_contract and not stateful and not should_rules"],
                {**os.environ, "BENCH_API_KEY": key, "BENCH_PHASES": tmp + "/phases.json",
                 "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}, REPO,
            )
            reference, reference_code, _ = timed(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:conformance", "-p", "no:allure_pytest",
                 "-p", "no:cacheprovider", "--hypothesis-seed", "1", "--hypothesis-profile", "bench", "reference_test.py"],
                {**os.environ, "DESCRIPTION": str(DESCRIPTION), "URL": cluster.urls["address"], "KEY": key,
                 "BENCH_EXAMPLES": args.examples}, Path(tmp),
            )
            phases = json.loads(Path(tmp, "phases.json").read_text())
            if pair == 0:  # a warm-up: the first run of each pays for cold caches and a mock just started
                print(f"warm-up pair (not counted): plain {plain:.1f} s, harness {harness:.1f} s")
                continue
            ratios.append(harness / plain)
            cpu_ratios.append(harness_cpu / plain_cpu)
            references.append(reference / plain)
            report(plain, plain_code, harness, harness_code, phases, args.examples)
            print(f"  CPU time (user + system): plain {plain_cpu:.1f} s, harness {harness_cpu:.1f} s; "
                  f"ratio = {harness_cpu / plain_cpu:.2f}")
            print(f"  schemathesis's own pytest integration, same checks, without the harness: {reference:.1f} s "
                  f"(exit {reference_code}); ratio to plain = {reference / plain:.2f}")
    print(f"median ratio harness/plain over {len(ratios)} pairs: {statistics.median(ratios):.2f} (target: at most 1.2)")
    print(f"median ratio of CPU time (user + system) harness/plain: {statistics.median(cpu_ratios):.2f} "
          "(steadier than wall time on a shared machine; the server's CPU is in neither)")
    print(f"median ratio of schemathesis's pytest integration alone to plain: {statistics.median(references):.2f} "
          "(the part of the overhead that is not the harness's)")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set, so pytest rewrites the asserts of every plugin's modules "
              "(schemathesis's among them) anew on each run unless their cached bytecode exists already")


def report(plain: float, plain_code: int, harness: float, harness_code: int, phases: dict[str, float], examples: str) -> None:
    print(f"plain schemathesis run: {plain:.1f} s (exit {plain_code}); harness contract tests: {harness:.1f} s "
          f"(exit {harness_code}); ratio harness/plain = {harness / plain:.2f} at {examples} examples per operation")
    steps = [("imports and pytest start", "configure"), ("profile, probe, description", "configured"),
             ("pytest start", "collection"), ("collection", "tests"), ("contract tests", "report"),
             ("summary and report", "end")]
    marks = ["imported"] + [mark for _, mark in steps]
    spent = [(name, phases[b] - phases[a]) for (name, _), a, b in zip(steps, marks[:-1], marks[1:], strict=True)]
    start_up = harness - (phases["end"] - phases["imported"])
    print("  where the harness's time goes: " + ", ".join(f"{name} {s:.1f} s" for name, s in
                                                            [("interpreter and imports before pytest", start_up), *spent])
          + f"; garbage collection in all of these {phases['gc_s']:.2f} s")


if __name__ == "__main__":
    main()
