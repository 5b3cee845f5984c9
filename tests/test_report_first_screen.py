"""The report's first screen tells the verdict (issue 27): rendered by `conformance run` as a
user's run renders it, opened from file:// in headless Chromium, for a conforming run, a
failing run and a run that could not judge. The title carries the APIs, the profile, the
target and the verdict with its exit code; a blocked MUST check is counted "broken", never
a harmless skip; the harness's gate is Allure's quality gate and agrees with the exit code,
both in the report (quality-gate.json) and by Allure's own `quality-gate` command.

Needs Node.js with tools/node_modules and Chromium; skipped without them, except in CI.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_report_html import CHROMIUM_FLAGS, metadata_counts, require, require_allure

from conformance.paths import CHECKOUT
from conformance.reporting.html import GATE_FILE, allure_cli

TIME_TRAVEL_NEGATIVE = ("address.params.geldig_op_malformed_rejected",
                        "address.params.beschikbaar_op_malformed_rejected")
RUNS = {
    # name: (command arguments, exit code, what the title says)
    "conforming": (["--suite", "soap"], 0, "SOAP message service — local-mock (127.0.0.1:"),
    "failing": (["--suite", "soap", "--mock-fault", "soap.fault_with_http_200"], 1, "SOAP message service — local-mock"),
    # Time travel refused whatever the date: the negative time-travel checks' control is
    # refused, so they are blocked, and nothing else is selected.
    "could-not-judge": (["--suite", "address", "--mock-fault", "address.time_travel_forbidden",
                         *[a for c in TIME_TRAVEL_NEGATIVE for a in ("--check", c)]], 4, "Address API — local-mock"),
}
VERDICTS = {0: "CONFORMS (exit 0): all", 1: "DOES NOT CONFORM (exit 1): ", 4: "COULD NOT JUDGE (exit 4): "}


def _run(report_dir: Path, args: list[str]) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "-n", "0", "--report-dir", str(report_dir),
                           *args, "--", "-q"], capture_output=True, text=True, timeout=300, cwd=CHECKOUT)
    summary = report_dir / "summary.json"
    assert summary.is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.returncode, json.loads(summary.read_text())


def _first_screen(chromium: str, index: Path, profile_dir: Path) -> str:
    """The DOM once the overview has rendered its counters: on a loaded machine the report's
    scripts may not have read its data within Chromium's virtual-time budget (seen in CI: a
    first screen without counters), so a dump without them is taken again with a longer one."""
    for budget in (8000, 30000, 60000):
        browser = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}",
                                  f"--virtual-time-budget={budget}", "--dump-dom", index.as_uri()],
                                 capture_output=True, text=True, timeout=180)
        assert browser.returncode == 0, browser.stderr[-2000:]
        if 'data-testid="metadata-item-' in browser.stdout:
            break
    return browser.stdout


@pytest.mark.parametrize("name", list(RUNS))
def test_the_first_screen_shows_the_verdict(name: str, tmp_path: Path) -> None:
    require_allure()
    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    require(chromium is not None, "Chromium (Debian package chromium)")
    args, expected_code, apis = RUNS[name]
    run = tmp_path / name
    code, summary = _run(run, args)
    assert code == expected_code == summary["exit_code"]
    index = run / "allure-report" / "index.html"
    assert index.is_file(), "the run rendered its report"
    dom = _first_screen(chromium, index, tmp_path / "chromium")
    title = apis + (VERDICTS[expected_code])
    assert apis in dom and VERDICTS[expected_code] in dom, f"the first screen does not say {title!r}"
    counts = metadata_counts(dom)
    must_blocked = len([e for e in summary["checks"] if e["outcome"] == "blocked" and e["severity"] == "MUST"])
    must_failed = len([e for e in summary["checks"] if e["outcome"] == "failed" and e["severity"] == "MUST"])
    assert counts.get("broken", 0) == must_blocked, counts
    if expected_code == 4:
        assert must_blocked > 0 and counts.get("passed", 0) == 0, "no green ring for a run that could not judge"
        assert "MUST checks blocked (not judged)" in dom
    if expected_code == 1:
        assert counts.get("failed", 0) >= must_failed > 0
    assert "Quality Gates" in dom and "Global Attachments" in dom  # the gate, the matrix and the root causes
    # The harness's gate as Allure's quality gate: it passes exactly when the run conforms.
    gate = json.loads((run / GATE_FILE).read_text())
    assert {r["rule"].split("/")[0] for r in gate} == {"MUST failures", "MUST not judged"}
    assert all(r["success"] for r in gate) is (expected_code == 0)
    assert next(r for r in gate if r["rule"].startswith("MUST failures"))["success"] is (expected_code != 1)
    # ... and Allure's own command, with the same config, says the same.
    polyfills = CHECKOUT / "conformance" / "reporting" / "node_polyfills.mjs"
    own = subprocess.run(["node", "--import", polyfills.as_uri(), str(allure_cli()), "quality-gate",
                          str(run / "allure-results"), "--config", str(run / "allurerc.mjs")],
                         capture_output=True, text=True, timeout=120, cwd=run)
    assert (own.returncode == 0) is (expected_code == 0), own.stdout[-1500:] + own.stderr[-1500:]
