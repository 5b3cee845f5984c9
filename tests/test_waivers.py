"""Accepted deviations (conformance/reporting/waivers.py): a waived failure conforms, an
expired waiver no longer waives, a waiver whose check passes is no longer needed, a
malformed file is exit 2, and `conformance waive` writes a file that waives the same run.

The runs use the SOAP message service's mock with a fault that fails one MUST check
(soap.fault.http_500); the other checks selected pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import forked_cli
import pytest

from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.reporting.summary import Entry, Summary
from conformance.reporting.waivers import Waiver, apply, load

CLI = [sys.executable, "-m", "conformance.cli"]
FAULT = "soap.fault_with_http_200"
CHECK = "soap.fault.http_500"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return forked_cli.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT, env=dict(os.environ))


def run(report_dir: Path, *args: str, fault: bool = True) -> subprocess.CompletedProcess[str]:
    return cli("run", "--suite", "soap", "-n", "0", "--no-html", "--report-dir", str(report_dir), "--check", CHECK,
               *(["--mock-fault", FAULT] if fault else []), *args)


def waivers_file(path: Path, until: str = "2099-12-31", check: str = CHECK, extra: str = "") -> Path:
    path.write_text(f'[[waiver]]\ncheck = "{check}"\nreason = "HTTP 200 Faults accepted by the register"\n'
                    f'reference = "REG-42"\nuntil = {until}\n{extra}', encoding="utf-8")
    return path


def summary(report_dir: Path) -> dict:
    """The run's summary, its check entries those of the check's own test: the test case that
    judges every exchange of the run (suites/passive) is waived or not alike."""
    data = json.loads((report_dir / "summary.json").read_text())
    every_exchange = [e for e in data["checks"] if e["test"].startswith("passive/")]
    assert {e["outcome"] for e in every_exchange} <= {e["outcome"] for e in data["checks"] if e not in every_exchange}
    return {**data, "checks": [e for e in data["checks"] if e not in every_exchange]}


def test_a_waived_must_failure_conforms_and_says_so_everywhere(tmp_path: Path) -> None:
    result = run(tmp_path / "r", "--waivers", str(waivers_file(tmp_path / "w.toml")))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("  WAIV "))
    assert CHECK in line and "failed, waived (HTTP 200 Faults accepted by the register; REG-42; until 2099-12-31)" in line
    data = summary(tmp_path / "r")
    (entry,) = data["checks"]
    assert entry["outcome"] == "waived" and entry["waiver"]["reference"] == "REG-42"
    assert data["counts"]["waived"] >= 1 and data["counts"]["must_failures"] == 0
    assert data["waivers"]["file"] == str(tmp_path / "w.toml") and data["waivers"]["warnings"] == []
    matrix = (tmp_path / "r" / "matrix.md").read_text()
    assert "| waived |" in matrix and "REG-42" in matrix
    allure = [json.loads(p.read_text()) for p in (tmp_path / "r" / "allure-results").glob("*-result.json")]
    (result_json,) = [r for r in allure if "passive" not in r["fullName"]]
    assert result_json["status"] == "skipped" and {"name": "outcome", "value": "waived"} in result_json["labels"]
    assert result_json["statusDetails"]["message"].startswith("failed, waived (")


def test_an_expired_waiver_no_longer_waives_and_warns(tmp_path: Path) -> None:
    result = run(tmp_path / "r", "--waivers", str(waivers_file(tmp_path / "w.toml", until="2020-01-31")))
    assert result.returncode == 1, result.stdout[-3000:]
    cases = len(json.loads((tmp_path / "r" / "summary.json").read_text())["checks"])  # its own, and every exchange
    failures = "1 failure counts" if cases == 1 else f"{cases} failures count"
    assert f"WARNING waiver 1 (soap.fault.http_500, REG-42) expired on 2020-01-31 and no longer waives: {failures} " \
           "again" in result.stdout
    data = summary(tmp_path / "r")
    assert [e["outcome"] for e in data["checks"]] == ["failed"] and "expired" in data["waivers"]["warnings"][0]


def test_a_waiver_whose_check_passes_is_no_longer_needed(tmp_path: Path) -> None:
    result = run(tmp_path / "r", "--waivers", str(waivers_file(tmp_path / "w.toml")), fault=False)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "WARNING waiver 1 (soap.fault.http_500, REG-42) is no longer needed: the check passed" in result.stdout
    assert [e["outcome"] for e in summary(tmp_path / "r")["checks"]] == ["passed"]


def test_the_profile_names_the_waivers_file_relative_to_itself(tmp_path: Path) -> None:
    text = (REPO_ROOT / "profiles" / "local-mock.toml").read_text()
    text = text.replace('"../openapi/', f'"{REPO_ROOT}/conformance/openapi/') + '\n[run]\nwaivers = "w.toml"\n'
    (tmp_path / "p.toml").write_text(text)
    waivers_file(tmp_path / "w.toml")
    result = run(tmp_path / "r", "--profile", str(tmp_path / "p.toml"))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert summary(tmp_path / "r")["checks"][0]["outcome"] == "waived"


def test_conformance_waive_writes_a_file_that_waives_the_same_run(tmp_path: Path) -> None:
    first = run(tmp_path / "r1")
    assert first.returncode == 1
    out = tmp_path / "waivers.toml"
    written = cli("waive", str(tmp_path / "r1"), "--reason", "accepted", "--until", "2099-01-01",
                  "--reference", "REG-7", "--out", str(out))
    assert written.returncode == 0 and "1 waiver written" in written.stdout, written.stderr
    assert [w.check for w in load(out)] == [CHECK]
    again = run(tmp_path / "r2", "--waivers", str(out))
    assert again.returncode == 0, again.stdout[-3000:]
    assert summary(tmp_path / "r2")["checks"][0]["waiver"]["reference"] == "REG-7"
    assert cli("waive", str(tmp_path / "r1"), "--reason", "x", "--until", "2099-01-01", "--out", str(out)).returncode == 2
    diff = cli("diff", str(tmp_path / "r1"), str(tmp_path / "r2"))
    cases = len(json.loads((tmp_path / "r2" / "summary.json").read_text())["checks"])  # its own, and every exchange
    assert diff.returncode == 0 and f"WAIVED (failed, waived: accepted deviations): {cases}" in diff.stdout
    # Its own test case (the Fault rule's scenario) and the one judging every exchange.
    changed = [ln.strip() for ln in diff.stdout.splitlines() if CHECK in ln and " -> " in ln]
    assert len(changed) == 2 and all("  failed -> waived  " in ln for ln in changed), diff.stdout
    table = cli("matrix", str(tmp_path / "r1"), str(tmp_path / "r2"), "--out", str(tmp_path / "env"))
    assert table.returncode == 1  # the run without waivers does not conform
    row = next(ln for ln in (tmp_path / "env" / "environments.md").read_text().splitlines() if "`SOAP11-6.2`" in ln)
    assert row.endswith("| **failed** | waived |"), row


def test_waive_refuses_a_date_that_is_not_one(tmp_path: Path) -> None:
    result = cli("waive", str(tmp_path), "--reason", "x", "--until", "31-12-2099")
    assert result.returncode == 2 and "--until 31-12-2099" in result.stderr


@pytest.mark.parametrize(("content", "named"), [
    ('[[waiver]]\ncheck = "soap.fault.http_500"\nreason = "r"\n', "missing required key waiver.until"),
    ('[[waiver]]\ncheck = "soap.fault.http_500"\nreason = "r"\nuntil = "soon"\n', "key waiver.until must be a date"),
    ('[[waiver]]\ncheck = "soap.no_such_check"\nreason = "r"\nuntil = 2099-01-01\n', "key waiver.check"),
    ('[[waiver]]\ncheck = "soap.fault.http_500"\nreason = "r"\nuntil = 2099-01-01\nticket = "x"\n',
     "unknown key waiver.ticket"),
    ('[[waiver]\n', "not valid TOML"),
])
def test_a_malformed_waivers_file_is_exit_2_naming_the_file_and_key(tmp_path: Path, content: str, named: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(content)
    result = run(tmp_path / "r", "--waivers", str(path))
    assert result.returncode == 2, result.stdout[-2000:]
    assert str(path) in result.stderr and named in result.stderr and "Traceback" not in result.stderr


def test_a_waiver_for_one_case_waives_that_case_only() -> None:
    def entry(test: str) -> Entry:
        return Entry("address.x.y", ["R"], "MUST", "address", "t", f"suites/a.py::test_y[{test}]", "failed", "why")

    entries = [entry("page-1"), entry("page-2")]
    summary = Summary(profile="p", entries=entries)
    warnings = apply(summary.entries, [Waiver(1, "address.x.*", "ok", date(2099, 1, 1), case="page-2")],
                     today=date(2030, 1, 1))
    assert [e.outcome for e in entries] == ["failed", "waived"] and warnings == []
    assert summary.exit_code() == 1 and summary.by_requirement()["R"]["verdict"] == "failed"
    entries[0].outcome = "passed"
    assert summary.exit_code() == 0 and summary.by_requirement()["R"]["verdict"] == "waived"


def test_the_starting_file_names_each_failed_case_literally(tmp_path: Path) -> None:
    from conformance.reporting.waivers import starting_file

    tests = ["s.py::test_a[page-1]", "s.py::test_a[q[0]*]", "s.py::test_b"]
    summary = {"profile": "p", "checks": [
        {"check": "soap.fault.http_500", "test": tests[0], "outcome": "failed"},
        {"check": "soap.fault.http_500", "test": tests[1], "outcome": "failed"},
        {"check": "soap.response.status_ok", "test": tests[2], "outcome": "failed"},
        {"check": "soap.response.status_ok", "test": "s.py::test_c", "outcome": "passed"}]}
    text, count = starting_file(summary, reason="ok", until=date(2099, 1, 1), reference=None)
    (tmp_path / "w.toml").write_text(text)
    waivers = load(tmp_path / "w.toml")
    assert count == 3 and [w.case for w in waivers] == ["page-1", "q[[]0[]][*]", ""]
    assert waivers[1].matches("soap.fault.http_500", tests[1]) and not waivers[1].matches("soap.fault.http_500",
                                                                                          "s.py::test_a[q[0]x]")
    assert waivers[2].matches("soap.response.status_ok", "s.py::test_c")  # no case: every case of the check
