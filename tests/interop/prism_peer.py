"""Interop peer 2: Stoplight Prism (npm `@stoplight/prism-cli`, pinned in tools/package-lock.json)
serving the shipped address API description as a stateless example server.

Shared by the tests (test_prism_address.py, through the fixture in conftest.py) and the
maintainer script record.py: start and stop Prism, write the profile for the port it got,
run `conformance run --suite address` in a subprocess, and compare the run's outcomes with
the expected-verdict table tests/interop/expected/prism-address.toml.

The table: [peer] name, version, suite, exit_code (the whole suite) and contract_exit_code
(the contract fuzzing alone, the description given as the profile's own `openapi`);
[checks] check id -> {outcome, why (every non-pass, one line), observed (observations: the
observed value as JSON text)}. A check that several tests report (parameters, subtests)
has one row: its worst outcome, ranked as summary.json ranks repeated reports.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import forked_cli
from verdicts import (  # noqa: F401  (the table helpers, shared by every peer)
    OUTCOMES,
    TODO,
    differences,
    load_expected,
    observed_json,
    outcomes_by_check,
    table_problems,
)

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PRISM = ROOT / "tools" / "node_modules" / ".bin" / "prism"
PRISM_PACKAGE = ROOT / "tools" / "node_modules" / "@stoplight" / "prism-cli" / "package.json"
DESCRIPTION = ROOT / "conformance" / "openapi" / "address-v2.yaml"
PROFILE = HERE / "profiles" / "prism-address.toml"
EXPECTED = HERE / "expected" / "prism-address.toml"
CONTRACT_PREFIX = "address.contract."
# The variables the profile names for its keys; Prism accepts any value.
SECRETS = {"PRISM_PEER_API_KEY": "prism-peer-key", "PRISM_PEER_RESTRICTED_API_KEY": "prism-peer-restricted-key"}
START_TIMEOUT_S = 30.0  # measured: Prism listens about 1.5 s after its start on the 2-core machine
STOP_TIMEOUT_S = 10.0
RUN_TIMEOUT_S = 300.0
# The run's fuzzing: small and fixed, so the verdicts are the same on every run.
RUN_OPTIONS = ["-n", "0", "--no-html", "--max-examples", "5", "--seed", "1"]


# ---------------------------------------------------------------- the peer
def missing_tools() -> str | None:
    """Why Prism cannot run here, or None."""
    if shutil.which("node") is None:
        return "Node.js is not installed (node not on PATH)"
    if not PRISM.is_file():
        return f"Stoplight Prism is not installed ({PRISM.relative_to(ROOT)} is missing: run scripts/bootstrap)"
    return None


def installed_version() -> str:
    return json.loads(PRISM_PACKAGE.read_text(encoding="utf-8"))["version"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def running_prism(log_path: Path, spec: Path = DESCRIPTION) -> Iterator[str]:
    """Prism mocking `spec` on a free loopback port; yields its origin, stops it afterwards.

    The binary is started directly, not through npx: killing npx would leave its node child
    running. Its log (one line per request and violation) goes to `log_path`, not a pipe
    nobody reads."""
    port = free_port()
    with log_path.open("w", encoding="utf-8") as log:
        proc = subprocess.Popen([str(PRISM), "mock", str(spec), "-h", "127.0.0.1", "-p", str(port)],
                                stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _answers(port):
            try:  # waits a tenth of a second for the port, and notices an early exit
                code = proc.wait(timeout=0.1)
            except subprocess.TimeoutExpired:
                code = None
            if code is not None or time.monotonic() > deadline:
                state = f"exited with {code}" if code is not None else f"not listening after {START_TIMEOUT_S:g} s"
                raise RuntimeError(f"Prism {state} on port {port}; its log ends:\n{log_path.read_text()[-3000:]}")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ---------------------------------------------------------------- the profile and the run
def write_profile(directory: Path, origin: str, *, own_openapi: bool = False) -> Path:
    """The checked-in profile with Prism's actual address as base_url; with `own_openapi`
    the description is named in the profile's `openapi` key (the file Prism serves)."""
    text = PROFILE.read_text(encoding="utf-8")
    text, count = re.subn(r'(?m)^base_url = "[^"]*"$', f'base_url = "{origin}"', text)
    assert count == 1, f"{PROFILE.name}: expected one base_url line"
    if own_openapi:
        text = text.replace(f'base_url = "{origin}"', f'base_url = "{origin}"\nopenapi = "{DESCRIPTION.as_posix()}"')
    name = "prism-address-openapi.toml" if own_openapi else PROFILE.name
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def run_suite(profile: Path, report_dir: Path, *pytest_args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`conformance run --suite address` against the profile; (the process, summary.json)."""
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "--profile", str(profile),
           "--report-dir", str(report_dir), *RUN_OPTIONS]
    if pytest_args:
        cmd += ["--", *pytest_args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")} | SECRETS | {"PYTHONHASHSEED": "0"}
    run = forked_cli.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    summary_file = report_dir / "summary.json"
    if not summary_file.is_file():
        raise AssertionError(f"no summary.json (exit {run.returncode})\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
    return run, json.loads(summary_file.read_text(encoding="utf-8"))
