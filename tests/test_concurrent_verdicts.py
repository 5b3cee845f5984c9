"""Requests sent together give the verdicts of a serial run (README "Limits": concurrency).

The same run twice against the local mock -- once with `limits.concurrency = 1` (every
request after the previous one's answer) and once with the default -- gives every check the
same outcome, on a faithful mock and on one with a fault the concurrent parts judge. The
address suite likewise in one process and in several xdist workers, faults included; and
against the mock described as a deployment, where each worker runs its tests side by side
(conformance/side_by_side.py), sends contract fuzzing's explicit examples ahead and the
stateful shards together, against one test and one request at a time.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
from pathlib import Path

import forked_cli
import pytest

from conformance.mocks.deployment import deployment_profile
from conformance.mocks.faults import FaultSet, catalogue, expected_failures
from conformance.mocks.launcher import MockCluster
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.paths import OPENAPI_DESCRIPTION, SHIPPED_PROFILES
from conformance.profiles import load_profile


def profile_with(tmp_path: Path, concurrency: int | None) -> Path:
    text = (SHIPPED_PROFILES / "local-mock.toml").read_text()
    text = re.sub(r'(?m)^openapi = .*$', f'openapi = "{OPENAPI_DESCRIPTION}"', text)
    if concurrency is not None:
        text = text.replace("[limits]\n", f"[limits]\nconcurrency = {concurrency}\n", 1)
    path = tmp_path / f"local-mock-{concurrency or 'default'}.toml"
    path.write_text(text)
    return path


def run(tmp_path: Path, concurrency: int | None, *extra: str, workers: str = "0", examples: int = 8) -> tuple[int, dict]:
    report = tmp_path / f"run-{concurrency or 'default'}-{workers}"
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile_with(tmp_path, concurrency)),
           "-n", workers, "--no-html", "--seed", "4242", "--max-examples", str(examples), "--report-dir", str(report),
           *extra]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env={**os.environ, **forked_cli.other_hash_seed()})
    assert (report / "summary.json").is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.returncode, json.loads((report / "summary.json").read_text())


# Three faults the concurrent parts of the SOAP suite judge, served together (their checks
# are apart): one run pair instead of three.
SOAP_FAULTS = ("soap.accepts_schema_invalid_request", "soap.request_dtd_accepted", "soap.response_reference_wrong")


@pytest.mark.parametrize("faults", [(), SOAP_FAULTS], ids=["faithful", "faults"])
def test_concurrent_and_serial_runs_agree(tmp_path: Path, faults: tuple[str, ...]) -> None:
    selection = ("--suite", "soap", *(arg for fault in faults for arg in ("--mock-fault", fault)))
    serial_code, serial = run(tmp_path, 1, *selection)
    concurrent_code, concurrent = run(tmp_path, None, *selection)
    verdicts = lambda s: {(e["check"], e["test"]): e["outcome"] for e in s["checks"]}  # noqa: E731
    assert verdicts(serial) == verdicts(concurrent)
    assert serial_code == concurrent_code
    failed = {e["check"] for e in concurrent["checks"] if e["outcome"] == "failed"}
    assert bool(failed) == bool(faults), failed  # the faults are found, the faithful mock conforms
    for name in faults:  # each by the checks it exists to trip
        must, _ = expected_failures(next(f for f in catalogue("soap") if f.name == name))
        assert must & failed, (name, sorted(must))


# One fault of each kind the address suite judges: a scenario check's (paging links), a
# negative check's (a bound not enforced), the response schema's and the contract
# fuzzing's (a number served as a string), a header every answer should carry. The mock
# serves them together in one run (a full address run is the expensive part: two runs per
# case, serial and in two workers); the checks the faults leave alone pass in both runs, so
# the run also compares the faithful verdicts (tests/test_parallel_verdicts.py compares the
# SOAP and authorization suites, tests/test_fault_catalogue.py the faithful mock serially).
ADDRESS_FAULTS = ("address.paging_links_missing", "address.page_size_maximum_not_enforced",
                  "address.huisnummer_as_string", "address.api_version_missing")


def test_address_suite_in_one_process_and_in_several_agrees(tmp_path: Path) -> None:
    faults = ADDRESS_FAULTS
    # Three examples per operation: the fuzzing's fault shows in the first answer's schema. No
    # coverage phase: its cases are the same every run and in every process (and sent ahead
    # only against a deployment: test_side_by_side_and_one_at_a_time_agree); the seeded
    # generated cases are what processes could disagree on.
    selection = ("--suite", "address", "--fuzz-phases", "examples,fuzzing,stateful",
                 *(arg for fault in faults for arg in ("--mock-fault", fault)))
    serial_code, serial = run(tmp_path, None, *selection, workers="0", examples=3)
    parallel_code, parallel = run(tmp_path, None, *selection, workers="2", examples=3)
    verdicts = lambda s: {(e["check"], e["test"]): e["outcome"] for e in s["checks"]}  # noqa: E731
    assert verdicts(serial) == verdicts(parallel)
    assert serial_code == parallel_code
    assert serial["seed"] == parallel["seed"] == 4242
    for workers, summary in (("0", serial), ("2", parallel)):  # the workers' Allure evidence is there
        results = list((tmp_path / f"run-default-{workers}" / "allure-results").glob("*-result.json"))
        assert len(results) >= len(summary["checks"]), f"-n {workers}: Allure results missing"
    failed = {e["check"] for e in parallel["checks"] if e["outcome"] == "failed"}
    passed = {e["check"] for e in parallel["checks"] if e["outcome"] == "passed"}
    assert failed and len(passed) > 100, (failed, len(passed))
    for name in faults:  # each fault is found by the checks it exists to trip
        must, _ = expected_failures(next(f for f in catalogue("address") if f.name == name))
        assert must & failed, (name, sorted(must))


def test_side_by_side_and_one_at_a_time_agree(tmp_path: Path) -> None:
    """The address mock described as a deployment (a real service to the run: its latency is
    measured), under the four faults above: two workers running their tests side by side,
    and one process with `limits.concurrency = 1` (one test, one request at a time)."""
    profile = dataclasses.replace(load_profile("local-mock"), soap=None, auth=None)
    with MockCluster(profile, FaultSet(frozenset(ADDRESS_FAULTS))) as cluster:
        described = deployment_profile(profile, cluster)
        runs = {}
        for name, limits, workers in (("side-by-side", "", "2"), ("one-at-a-time", "[limits]\nconcurrency = 1\n", "0")):
            (tmp_path / f"{name}.toml").write_text(described + limits)
            report = tmp_path / name
            proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--profile", str(tmp_path / f"{name}.toml"),
                                   "--suite", "address", "-n", workers, "--no-html", "--seed", "4242", "--max-examples", "3",
                                   "--report-dir", str(report)],
                                  capture_output=True, text=True, timeout=900, cwd=REPO_ROOT,
                                  env={**os.environ, **cluster.secrets, **forked_cli.other_hash_seed()})
            assert (report / "summary.json").is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
            runs[name] = proc.returncode, json.loads((report / "summary.json").read_text())
    verdicts = lambda s: {(e["check"], e["test"]): e["outcome"] for e in s["checks"]}  # noqa: E731
    (side_code, side), (serial_code, serial) = runs["side-by-side"], runs["one-at-a-time"]
    assert verdicts(side) == verdicts(serial)
    assert side_code == serial_code == 1
    failed = {e["check"] for e in side["checks"] if e["outcome"] == "failed"}
    for name in ADDRESS_FAULTS:  # each fault is found by the checks it exists to trip
        must, _ = expected_failures(next(f for f in catalogue("address") if f.name == name))
        assert must & failed, (name, sorted(must))
