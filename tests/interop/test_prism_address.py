"""Interop peer 2: the address suite against Stoplight Prism serving the shipped description.

Prism (`prism mock`, unmodified, pinned in tools/package-lock.json) is a stateless example
server: it answers the description's examples (or values it derives from the schemas),
validates requests against the description only, and knows no data. The suite must run to
the end without harness errors (no outcome `error`), and every check must give the verdict
tests/interop/expected/prism-address.toml records, with its reason. The profile is
tests/interop/profiles/prism-address.toml with the port Prism got.

Two runs: the whole suite with the profile as written (no `openapi` key: the shipped
description), and the contract fuzzing alone with the same description named by the
profile's own `openapi` key. A difference from the table fails the test and names the
check, the expected and actual outcome and the run's reason. After a deliberate change,
`python tests/interop/record.py --write` updates the outcomes, keeping the reasons.
"""

from __future__ import annotations

import time
from pathlib import Path

import prism_peer
import pytest

from conformance.catalogue import registered_checks

pytestmark = pytest.mark.interop


@pytest.fixture(scope="module")
def table() -> dict:
    table = prism_peer.load_expected(prism_peer.EXPECTED)
    installed = prism_peer.installed_version()
    assert installed == table["peer"]["version"], (
        f"Prism {installed} is installed, the table is for {table['peer']['version']}: rerun record.py and review")
    return table


def _judge(table: dict, run, summary: dict, *, contract_only: bool, log: Path) -> None:
    actual = prism_peer.outcomes_by_check(summary)
    errors = {c: e["reason"] for c, e in actual.items() if e["outcome"] == "error"}
    assert not errors, "harness errors (checks broke instead of judging):\n  " + "\n  ".join(
        f"{c}: {(r or '').splitlines()[0] if r else ''}" for c, r in errors.items())
    expected = table["checks"]
    known = frozenset(c.id for c in registered_checks("address"))
    exit_key = "exit_code"
    if contract_only:
        keep = prism_peer.CONTRACT_PREFIX
        expected = {c: e for c, e in expected.items() if c.startswith(keep)}
        actual = {c: e for c, e in actual.items() if c.startswith(keep)}
        known = frozenset(c for c in known if c.startswith(keep))
        exit_key = "contract_exit_code"
    lines = prism_peer.differences(expected, actual, known)
    if run.returncode != table["peer"][exit_key]:
        lines.append(f"exit code: expected {table['peer'][exit_key]}, actual {run.returncode}; "
                     f"the run's output ends:\n{run.stdout[-1500:]}{run.stderr[-1500:]}")
    assert not lines, (
        f"the address suite's verdicts against Prism differ from {prism_peer.EXPECTED.name} "
        f"(seed {summary.get('seed')}; Prism's log: {log}):\n  " + "\n  ".join(lines))


def test_address_suite_against_prism_matches_the_table(prism_address, table, tmp_path: Path) -> None:
    origin, log = prism_address
    profile = prism_peer.write_profile(tmp_path, origin)
    started = time.monotonic()
    run, summary = prism_peer.run_suite(profile, tmp_path / "report")
    print(f"Prism {table['peer']['version']}: address suite took {time.monotonic() - started:.1f} s")
    _judge(table, run, summary, contract_only=False, log=log)


def test_contract_fuzzing_with_the_profiles_own_description(prism_address, table, tmp_path: Path) -> None:
    origin, log = prism_address
    profile = prism_peer.write_profile(tmp_path, origin, own_openapi=True)
    started = time.monotonic()
    run, summary = prism_peer.run_suite(profile, tmp_path / "report", "-m", "fuzz")
    print(f"Prism {table['peer']['version']}: contract fuzzing (profile's openapi) took "
          f"{time.monotonic() - started:.1f} s")
    assert summary["targets"].get("address") == origin, f"the run targeted {summary['targets']}, not Prism"
    _judge(table, run, summary, contract_only=True, log=log)


def test_the_recording_script_starts_as_scripts_regenerate_runs_it() -> None:
    # scripts/regenerate runs `python tests/interop/record.py --write`: it must find its imports
    # (tests/forked_cli.py) when run as a script (issue 52). --help stops before Prism starts.
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "tests/interop/record.py", "--help"], cwd=root, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and "--write" in proc.stdout, proc.stderr[-2000:]
