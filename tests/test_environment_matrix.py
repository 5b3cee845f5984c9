"""`conformance matrix RUN_DIR...`: one table of environments x requirements from many runs.

Three real runs of the SOAP suite (`conformance run`, each writing its own summary.json): the
local mock as it is (conforms), the mock with a fault that breaks a MUST rule (a Fault with
HTTP 200 instead of 500), and a profile whose message service listens on a closed loopback
port (unreachable). The table must give each environment its own verdicts.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_cli import free_port, run_cli
from test_report_html import CHROMIUM_FLAGS, require

from conformance.cli import main
from conformance.reporting.environments import HTML_FILE, MARKDOWN_FILE, build_table, load_runs

# The MUST rule the fault breaks: SOAP 1.1 section 6.2, a Fault goes with HTTP 500.
FAULT_RULE = "SOAP11-6.2"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("environments")
    down = base / "vendor-down.toml"
    down.write_text(f"""
[profile]
name = "vendor-down"
description = "a SOAP message service nobody answers for"
[services.soap]
mock = false
url = "http://127.0.0.1:{free_port()}/netbeheerder/graafbericht"
soap_action_base = "urn:registry:graafbericht"
""")
    plan = {
        "conforming": (["--suite", "soap", "-n", "0"], 0),
        "must-failure": (["--suite", "soap", "-n", "0", "--mock-fault", "soap.fault_with_http_200"], 1),
        "unreachable": (["--profile", str(down), "--suite", "soap", "-n", "0"], 3),
    }
    dirs = {}
    for name, (args, expected) in plan.items():
        run_dir = base / name
        result = run_cli("run", *args, "--no-html", "--report-dir", str(run_dir), "--", "-q")
        assert result.returncode == expected, f"{name}: {result.stdout[-3000:]}{result.stderr[-3000:]}"
        assert json.loads((run_dir / "summary.json").read_text())["exit_code"] == expected
        dirs[name] = run_dir
    return dirs


def _ordered(runs: dict[str, Path]) -> list[Path]:
    return [runs["conforming"], runs["must-failure"], runs["unreachable"]]


def test_each_environment_gets_its_own_verdicts(runs: dict[str, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    columns = load_runs(_ordered(runs))
    # two runs of the one profile local-mock: told apart by their run directories
    assert [c.label for c in columns] == ["local-mock (conforming)", "local-mock (must-failure)", "vendor-down"]
    assert [c.verdict for c in columns] == ["CONFORMS (exit 0)", "DOES NOT CONFORM (exit 1)", "UNREACHABLE (exit 3)"]
    assert [c.suites for c in columns] == [["soap"], ["soap"], []]
    table = build_table(columns)
    by_id = {row["id"]: row for row in table.rows}
    verdicts = {req: [v for v, _ in row["cells"]] for req, row in by_id.items()}
    assert verdicts[FAULT_RULE] == ["passed", "failed", "not tested"]
    failed_somewhere = {req for req, v in verdicts.items() if "failed" in v}
    assert FAULT_RULE in failed_somewhere
    assert all(v[1] == "failed" and v[0] == "passed" for req, v in verdicts.items() if req in failed_somewhere)
    assert all(by_id[req]["severity"] == "MUST" for req in failed_somewhere)
    # the conforming run judged the message service and nothing else
    assert {v[0] for req, v in verdicts.items() if by_id[req]["api"] == "soap"} <= {"passed", "observed", "not tested"}
    assert "passed" in {v[0] for v in verdicts.values()}
    assert {v[0] for req, v in verdicts.items() if by_id[req]["api"] != "soap"} == {"not tested"}
    # the unreachable environment: nothing judged, and the reason is the run's, not "deselected"
    assert {v[2] for v in verdicts.values()} == {"not tested"}
    reason = by_id[FAULT_RULE]["cells"][2][1]
    assert "unreachable" in reason and "127.0.0.1" in reason
    assert "failed" not in by_id[FAULT_RULE]["cells"][0][1]

    out = tmp_path / "table"
    code = main(["matrix", *map(str, _ordered(runs)), "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 1, printed  # the worst environment's: a MUST check failed in one
    assert "DOES NOT CONFORM (exit 1)" in printed.out and "UNREACHABLE (exit 3)" in printed.out
    assert str(out / MARKDOWN_FILE) in printed.out
    md = (out / MARKDOWN_FILE).read_text(encoding="utf-8")
    header = next(line for line in md.splitlines() if line.startswith("| requirement |"))
    assert header.split(" | ")[-3:] == ["local-mock (conforming)", "local-mock (must-failure)", "vendor-down |"]
    row = next(line for line in md.splitlines() if line.startswith(f"| `{FAULT_RULE}` |"))
    assert row.endswith("| passed | **failed** | not tested |"), row
    assert re.search(r"\| vendor-down \| \*\*UNREACHABLE \(exit 3\)\*\*", md)

    # without the failing environment, the worst is the unreachable one
    assert main(["matrix", str(runs["conforming"]), str(runs["unreachable"]), "--out", str(out)]) == 3
    assert main(["matrix", str(runs["conforming"]), "--out", str(out)]) == 0
    capsys.readouterr()


def test_the_html_table_shows_the_environments_in_chromium(runs: dict[str, Path], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    require(chromium is not None, "Chromium (Debian package chromium)")
    out = tmp_path / "table"
    assert main(["matrix", *map(str, _ordered(runs)), "--out", str(out)]) == 1
    capsys.readouterr()
    page = out / HTML_FILE
    source = page.read_text(encoding="utf-8")
    assert "<script" not in source and "http://" not in source.split("<body>")[0]  # nothing to fetch
    browser = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=180,
    )
    assert browser.returncode == 0, browser.stderr[-2000:]
    dom = browser.stdout
    # the environments, each with its overall verdict
    environments = re.search(r"<table id=\"environments\">.*?</table>", dom, re.S)
    assert environments, dom[:2000]
    rows = re.findall(r"<tr><th>([^<]+)</th><td class=\"verdict\"[^>]*><b>([^<]+)</b>", environments.group(0))
    assert rows == [("local-mock (conforming)", "CONFORMS (exit 0)"),
                    ("local-mock (must-failure)", "DOES NOT CONFORM (exit 1)"),
                    ("vendor-down", "UNREACHABLE (exit 3)")]
    # the rule the fault breaks: one cell per environment, the verdict word in each
    row = re.search(rf"<tr class=\"[^\"]*\" data-requirement=\"{re.escape(FAULT_RULE)}\">(.*?)</tr>", dom, re.S)
    assert row, f"no row for {FAULT_RULE}"
    cells = re.findall(r"<td class=\"v v-([\w-]+)[^\"]*\"(?: title=\"([^\"]*)\")?>([^<]+)</td>", row.group(1))
    assert [(css, word) for css, _, word in cells] == [("passed", "passed"), ("failed", "failed"),
                                                        ("not-tested", "not tested")]
    assert "soap.fault.http_500" in html.unescape(cells[1][1])  # the failing check and why, as the tooltip
    assert "unreachable" in html.unescape(cells[2][1])


def test_what_is_not_a_run_is_skipped_and_nothing_but_that_is_exit_2(runs: dict[str, Path], tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "not-a-run"
    empty.mkdir()
    note = tmp_path / "README.md"
    note.write_text("# reports\n")
    assert main(["matrix", str(runs["conforming"]), str(empty), str(note), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr()
    assert f"skipped {empty}: no summary.json" in printed.err and f"skipped {note}: a file" in printed.err
    assert (tmp_path / "out" / MARKDOWN_FILE).is_file()
    # Nothing that is a run: exit 2, naming them, and nothing written.
    assert main(["matrix", str(empty), str(note), "--out", str(tmp_path / "out2")]) == 2
    printed = capsys.readouterr()
    assert f"none of {empty}, {note} is a run directory" in printed.err
    assert "Traceback" not in printed.out + printed.err
    assert not (tmp_path / "out2").exists()  # nothing half-written
    assert main(["matrix", str(tmp_path / "no-such-run"), "--out", str(tmp_path / "out2")]) == 2
    assert "no-such-run: no such run directory" in capsys.readouterr().err

    broken = tmp_path / "broken-run"
    broken.mkdir()
    (broken / "summary.json").write_text("{not json")
    assert main(["matrix", str(broken), "--out", str(tmp_path / "out")]) == 2
    printed = capsys.readouterr()
    assert str(broken / "summary.json") in printed.err and "Traceback" not in printed.out + printed.err

    assert main(["matrix"]) == 2  # argparse: at least one RUN_DIR
    capsys.readouterr()


def test_matrix_over_reports_star_with_a_configuration_error_attempt(runs: dict[str, Path], tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 43: `conformance matrix reports/*`, the README's and the CI recipe's command, over a
    reports folder with its README.md, the empty folder an older harness left for a configuration
    error, and a configuration-error attempt of this one (which leaves no folder at all)."""
    reports = tmp_path / "reports"
    reports.mkdir()
    for name, run in runs.items():
        shutil.copytree(run, reports / name)
    (reports / "README.md").write_text("the nightly runs\n")
    (reports / "20260101T000000Z-vendor-old").mkdir()  # what a configuration error used to leave
    attempt = reports / "vendor-attempt"
    result = run_cli("run", "--suite", "soap", "-n", "0", "--no-html", "--waivers", str(tmp_path / "missing.toml"),
                     "--report-dir", str(attempt))
    assert result.returncode == 2, result.stdout[-2000:] + result.stderr[-2000:]
    assert "missing.toml" in result.stderr
    assert not attempt.exists(), "a configuration error leaves no run folder"
    assert main(["matrix", *sorted(str(p) for p in reports.iterdir()), "--out", str(tmp_path / "matrix")]) == 1
    printed = capsys.readouterr()
    assert "README.md: a file, not a run directory" in printed.err
    assert "20260101T000000Z-vendor-old: no summary.json" in printed.err
    table = (tmp_path / "matrix" / MARKDOWN_FILE).read_text()
    for verdict in ("CONFORMS (exit 0)", "DOES NOT CONFORM (exit 1)", "UNREACHABLE (exit 3)"):
        assert verdict in table
