"""A run under pytest-xdist gives the same verdicts as a serial run, with the seed and
the Allure evidence produced by the workers."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import forked_cli
import pytest

from conformance.paths import CHECKOUT as REPO_ROOT


def run(report_dir: Path, workers: str, *extra: str) -> tuple[int, dict]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "-n", workers, "--no-html", "--seed", "4242",
           "--max-examples", "5", "--report-dir", str(report_dir), *extra]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env={**os.environ, **forked_cli.other_hash_seed()})
    return proc.returncode, json.loads((report_dir / "summary.json").read_text())


@pytest.mark.parametrize(
    "selection",
    [
        ("--suite", "soap", "--mock-fault", "soap.schema_invalid_response"),
        ("--suite", "auth", "--mock-fault", "auth.code_reusable"),
        # The address suite: tests/test_concurrent_verdicts.py, whole, under four faults.
    ],
    ids=["soap", "auth"],
)
def test_parallel_and_serial_verdicts_agree(selection: tuple[str, ...], tmp_path: Path) -> None:
    serial_code, serial = run(tmp_path / "serial", "0", *selection)
    parallel_code, parallel = run(tmp_path / "parallel", "2", *selection)
    verdicts = lambda s: {(e["check"], e["test"]): e["outcome"] for e in s["checks"]}  # noqa: E731
    assert verdicts(serial) == verdicts(parallel)
    assert serial_code == parallel_code == 1
    assert serial["seed"] == parallel["seed"] == 4242
    for name in ("serial", "parallel"):
        results = list((tmp_path / name / "allure-results").glob("*-result.json"))
        assert len(results) >= len(serial["checks"]), f"{name}: Allure results missing"
