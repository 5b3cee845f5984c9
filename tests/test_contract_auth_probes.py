"""schemathesis's ignored_auth inside the harness's contract tests: as its CLI runs it.

Once an operation has refused a request without credentials and one with wrong credentials,
it is not probed again in that run (before, every 2xx answer cost two probes). An operation
that serves a wrong key is still caught. Real `conformance run`s of the fuzzing tests
against the local mock.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import forked_cli

from conformance.paths import CHECKOUT as REPO_ROOT


def fuzz_run(report_dir: Path, *faults: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
           "--report-dir", str(report_dir), "--max-examples", "6", "--seed", "11"]
    for fault in faults:
        cmd += ["--mock-fault", fault]
    proc = forked_cli.run([*cmd, "--", "-q", "-m", "fuzz and not stateful"], capture_output=True, text=True,
                          timeout=600, cwd=REPO_ROOT, env={**os.environ, "PYTHONHASHSEED": "0"})
    assert (report_dir / "summary.json").is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads((report_dir / "summary.json").read_text())


def statuses_by_path(har: Path) -> dict[str, Counter[int]]:
    out: dict[str, Counter[int]] = {}
    for entry in json.loads(har.read_text())["log"]["entries"]:
        path = entry["request"]["url"].split("?")[0].split("/v2", 1)[-1]
        out.setdefault(path, Counter())[entry["response"]["status"]] += 1
    return out


def test_each_operation_is_probed_for_ignored_auth_once_per_run(tmp_path: Path) -> None:
    summary = fuzz_run(tmp_path)
    assert {e["outcome"] for e in summary["checks"]} <= {"passed", "not_applicable"}, summary["checks"]
    by_path = statuses_by_path(tmp_path / "traffic.har")
    served = {p: c for p, c in by_path.items() if sum(n for s, n in c.items() if 200 <= s < 300) >= 3}
    assert served, by_path  # operations that answered 2xx often enough to tell once from each time
    for path, counts in served.items():
        answered = sum(n for s, n in counts.items() if 200 <= s < 300)
        # one probe without a key and one with a wrong key, plus the few generated requests
        # that leave the key out themselves (negative mode; the public-behaviour and SHOULD
        # tests judge the operation test's answers, but fuzz on their own after a finding: the
        # same example up to three times); each 2xx answer used to cost two more
        assert counts[401] <= 6 < 2 * answered, (path, counts)


def test_an_operation_that_serves_a_wrong_key_is_still_caught(tmp_path: Path) -> None:
    summary = fuzz_run(tmp_path, "address.invalid_key_served")
    caught = {e["check"] for e in summary["checks"]
              if e["outcome"] == "failed" and "invalid authentication" in e["reason"]}
    assert {"address.contract.zoek", "address.contract.bevraagAdressen"} <= caught, summary["checks"]
