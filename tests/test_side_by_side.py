"""Tests side by side in one worker (conformance/side_by_side.py): what a run against a slow
service uses instead of more processes than cores (issue 53, item 4).

A small pytest session runs under the plugin: three tests meet at a barrier (they pass only
when they run at once), each with its own function-scoped fixture, their module's fixture set
up once and torn down after them; a test the plugin may not run beside others finds none in
flight; a failure stays its test's. It runs in one process and in an xdist worker. Then a
run of address checks against the address mock answering in 0.2 s, described as a
deployment: no more workers than cores, and more requests in flight than workers.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import forked_cli
import pytest

from conformance.mocks.deployment import deployment_profile
from conformance.mocks.faults import FaultSet
from conformance.mocks.launcher import MockCluster
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

CONFTEST = """
from conformance.side_by_side import SideBySide


def pytest_configure(config):
    config.pluginmanager.register(SideBySide(4, lambda item: "alone" not in item.name), "side-by-side")
"""

TESTS = """
import os
import threading

import pytest

MEET = threading.Barrier(3, timeout=60)
RUNNING = []


def log(line):
    with open(os.environ["SIDE_LOG"], "a") as f:
        f.write(line + "\\n")


@pytest.fixture(scope="module")
def shared():
    log("module up")
    yield object()
    log("module down")


@pytest.fixture
def own(request):
    value = object()
    log(f"own up {request.node.name} {id(value)}")
    yield value
    log(f"own down {request.node.name} {id(value)}")


@pytest.mark.parametrize("n", range(3))
def test_meet(n, shared, own, request):
    RUNNING.append(n)
    MEET.wait()  # all three at once, or the barrier breaks
    assert request.getfixturevalue("own") is own  # its own value, not another test's
    log(f"ran {request.node.name} {id(own)}")
    RUNNING.remove(n)


def test_alone(shared):
    assert RUNNING == []
    log("alone")


def test_fails(shared, own):
    raise AssertionError("found by this test")
"""


@pytest.mark.parametrize("workers", [[], ["-n", "1"]], ids=["one-process", "xdist-worker"])
def test_tests_run_side_by_side_with_their_own_fixtures(tmp_path: Path, workers: list[str]) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_lanes.py").write_text(TESTS)
    log = tmp_path / "log.txt"
    junit = tmp_path / "junit.xml"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", os.devnull,
                           "--rootdir", str(tmp_path), f"--junitxml={junit}", *workers, str(tmp_path)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, "SIDE_LOG": str(log)})
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert "1 failed, 4 passed" in done.stdout, done.stdout[-3000:]
    assert "found by this test" in junit.read_text()  # the failure is its own test's
    lines = log.read_text().splitlines()
    assert lines.count("module up") == 1 and lines[-1] == "module down"  # once, after every test of it
    ups = {line.split()[2]: line.split()[3] for line in lines if line.startswith("own up")}
    downs = {line.split()[2]: line.split()[3] for line in lines if line.startswith("own down")}
    ran = {line.split()[1]: line.split()[2] for line in lines if line.startswith("ran")}
    assert sorted(ran) == ["test_meet[0]", "test_meet[1]", "test_meet[2]"]
    assert ups == downs and set(ups) == {*ran, "test_fails"}  # set up and torn down once per test
    assert len({ups[name] for name in ran}) == 3  # the three at once, each its own value
    assert all(ups[name] == value for name, value in ran.items())
    assert lines.index("alone") > max(lines.index(f"ran {name} {value}") for name, value in ran.items())


def test_a_slow_service_run_keeps_to_the_cores_and_sends_from_within_the_workers(tmp_path: Path) -> None:
    """`-n auto` against an address API answering in 0.2 s: the workers are at most the cores
    (issue 53: twelve processes on two cores took 40 s to start), and the service sees more
    requests in flight at once than there are workers (the tests side by side)."""
    profile = dataclasses.replace(load_profile("local-mock"), soap=None, auth=None)
    with MockCluster(profile, FaultSet(), answer_delay_s=0.2) as cluster:
        described = tmp_path / "slow.toml"
        described.write_text(deployment_profile(profile, cluster))
        report = tmp_path / "run"
        done = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--profile", str(described),
                               "--suite", "address", "--check", "address.adressen.*", "--no-html", "--seed", "3",
                               "--report-dir", str(report), "-n", "auto"],
                              capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                              env={**os.environ, **cluster.secrets})
        most = cluster.delays["address"].most_in_flight
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    progress = json.loads((report / "progress.json").read_text())
    assert 1 <= progress["workers"] <= (os.cpu_count() or 1), progress["workers"]
    assert most > progress["workers"], (most, progress["workers"])
