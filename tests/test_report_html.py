"""The HTML report: rendered offline by the pinned Allure 3, opened from file:// in headless
Chromium, it shows the run's totals; the next run's report carries the history.

Needs Node.js with tools/node_modules and Chromium (Debian's `chromium`); skipped without
them, except in CI (the environment variable CI is set), where .ci/run installs both.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.reporting.allure_extras import HISTORY_FILE, write_run_extras
from conformance.reporting.html import GATE_FILE, allure_cli, render_allure_html

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
# (test, status, severity tag): 3 passed, 1 failed, 1 skipped.
RESULTS = [("pagination", "passed", "MUST"), ("api_version", "passed", "observation"),
           ("fault_format", "passed", "MUST"), ("page_size_101", "failed", "MUST"), ("fuzz", "skipped", "MUST")]


def require(ok: bool, what: str) -> None:
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing; CI installs it (.ci/run)")
    pytest.skip(f"{what} is not installed")


def require_allure() -> None:
    require(shutil.which("node") is not None and allure_cli() is not None, "Node.js with tools/node_modules (Allure 3)")


def make_run(parent: Path, name: str, started: str, results_of: list[tuple[str, str, str]] = RESULTS) -> Path:
    """A run as the plugin leaves it: allure-results, summary.json, and the extras. A test
    named check[param] is a test case of the check `check`."""
    run = parent / name
    results = run / "allure-results"
    results.mkdir(parents=True)
    entries = []
    for index, (test, status, tag) in enumerate(results_of):
        check = f"address.x.{test.split('[')[0]}"
        result = {
            "uuid": str(uuid.uuid4()), "historyId": f"h-{test}", "testCaseId": f"h-{test}",
            "fullName": f"suites.address.test_x#{test}", "name": test, "status": status, "stage": "finished",
            "start": 1_780_000_000_000 + index, "stop": 1_780_000_000_100 + index,
            "labels": [{"name": "epic", "value": "Address API (seed 000)"}, {"name": "tag", "value": tag},
                       {"name": "feature", "value": "pagination"}, {"name": "story", "value": test},
                       {"name": "check_id", "value": check}],
        }
        if status == "failed":
            result["statusDetails"] = {"message": "pageSize 101 answered 200"}
        (results / f"{result['uuid']}-result.json").write_text(json.dumps(result))
        outcome = {"skipped": "skipped", "failed": "failed"}.get(status, "observation" if tag == "observation" else status)
        entries.append({"check": check, "requirements": ["ADDR-4.pageSize"], "severity": tag,
                        "suite": "address", "title": test, "test": test, "outcome": outcome,
                        "reason": "pageSize 101 answered 200" if status == "failed" else None,
                        "value": "2.9.2" if tag == "observation" else None})
    (run / "summary.json").write_text(json.dumps({
        "profile": "external-test", "started": started, "verdict": "MUST_FAILED", "exit_code": 1,
        "targets": {"address": "https://api.example/v2"}, "checks": entries}))
    assert write_run_extras(run, strict=True)
    return run


def metadata_counts(dom: str) -> dict[str, int]:
    """The overview's counters: data-testid="metadata-item-<status>" … metadata-value … <number>."""
    pattern = (r'data-testid="metadata-item-(\w+)"(?:(?!metadata-item-).)*?'
               r'data-testid="metadata-value"[^>]*>(?:<div[^>]*></div>)?\s*<span[^>]*>(\d+)</span>')
    return {name: int(value) for name, value in re.findall(pattern, dom, re.S)}


def test_the_report_shows_the_runs_totals_in_chromium(tmp_path: Path) -> None:
    require_allure()
    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    require(chromium is not None, "Chromium (Debian package chromium)")
    run = make_run(tmp_path, "20260301T020000Z-external-test", "2026-03-01T02:00:00+00:00")
    index = render_allure_html(run)
    assert index is not None and index == run / "allure-report" / "index.html"
    assert "googletagmanager" not in index.read_text(encoding="utf-8")
    browser = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}",
         "--virtual-time-budget=8000", "--dump-dom", index.as_uri()],
        capture_output=True, text=True, timeout=180,
    )
    assert browser.returncode == 0, browser.stderr[-2000:]
    dom = browser.stdout
    counts = metadata_counts(dom)
    assert counts.get("total") == len(RESULTS), counts
    assert (counts.get("passed"), counts.get("failed"), counts.get("skipped")) == (3, 1, 1), counts
    attachments = re.search(r"Global Attachments\s*<small[^>]*>(\d+)</small>", dom)
    assert attachments and attachments.group(1) == "3", "the conformance matrix (HTML and markdown), the root causes"
    assert "harness.version" in dom  # environment.properties, shown as metadata


def test_the_next_run_carries_the_history(tmp_path: Path) -> None:
    require_allure()
    first = make_run(tmp_path, "run-1", "2026-03-01T02:00:00+00:00")
    second = make_run(tmp_path, "run-2", "2026-03-02T02:00:00+00:00")
    assert render_allure_html(first) and render_allure_html(second)
    assert render_allure_html(second)  # rendering again must not count the run twice
    assert len((second / HISTORY_FILE).read_text().splitlines()) == 2
    new_tests = [json.loads((run / "allure-report" / "summary.json").read_text())["newTests"] for run in (first, second)]
    assert len(new_tests[0]) == len(RESULTS) and new_tests[1] == []  # known from the first run's history


def test_allure_applies_the_categories(tmp_path: Path) -> None:
    """Allure 3 reads categories from its config, not from categories.json: the rendered
    report's categories widget proves the hand-over (pinned Allure 3.18 embeds widgets as
    d("widgets/categories.json", "<base64>") in the single file)."""
    require_allure()
    index = render_allure_html(make_run(tmp_path, "run", "2026-03-01T02:00:00+00:00"))
    assert index is not None
    blob = re.search(r'd\("widgets/categories\.json","([A-Za-z0-9+/=]+)"\)', index.read_text(encoding="utf-8"))
    assert blob, "categories widget not found: did the Allure version change?"
    widget = json.loads(base64.b64decode(blob.group(1)))
    stats = {widget["nodes"][node]["name"]: widget["nodes"][node]["statistic"] for node in widget["roots"]}
    assert stats["Product defects (MUST failures)"] == {"total": 1, "failed": 1}
    assert stats["Observations"] == {"total": 1, "passed": 1}


def embedded_widget(index: Path, name: str) -> object:
    """A widget of the single-file report: d("widgets/<name>", "<base64 JSON>") (pinned Allure 3.18)."""
    blob = re.search(rf'd\("widgets/{re.escape(name)}","([A-Za-z0-9+/=]+)"\)', index.read_text(encoding="utf-8"))
    assert blob, f"{name} widget not found: did the Allure version change?"
    return json.loads(base64.b64decode(blob.group(1)))


def test_the_ring_and_the_gate_count_must_checks_as_the_verdict_does(tmp_path: Path) -> None:
    """Issue 43: Allure's ring counts every test case of every severity (a failing run's
    MUST failure beside hundreds of passing test cases: a green 99.78 %). The ring shows the
    MUST checks the verdict rests on, each once; the gate counts checks, not test cases."""
    require_allure()
    cases = [*RESULTS, ("page_size_101[other]", "failed", "MUST"), ("pagination[2]", "passed", "MUST")]
    run = make_run(tmp_path, "run", "2026-03-01T02:00:00+00:00", cases)
    index = render_allure_html(run)
    assert index is not None
    ring = embedded_widget(index, "pie_chart.json")
    assert isinstance(ring, dict)
    # MUST checks: pagination and fault_format passed, page_size_101 failed (in two test
    # cases); fuzz was skipped (outside the count); the observation is not a MUST check.
    assert {s["status"]: s["count"] for s in ring["slices"]} == {"passed": 2, "failed": 1}
    assert ring["percentage"] == 66.66
    statistic = embedded_widget(index, "statistic.json")
    assert statistic == {**statistic, "total": 7, "failed": 2, "passed": 4}  # Allure's counters: test cases
    gate = {r["rule"]: r for r in json.loads((run / GATE_FILE).read_text())}
    assert gate["MUST failures/maxMustChecksFailed"]["actual"] == 1  # one check, two failed test cases
    assert gate["MUST failures/maxMustChecksFailed"]["message"] == "1 MUST check failed; the verdict allows 0"
    assert gate["MUST not judged/maxMustChecksNotJudged"]["success"] is True


def test_every_attachment_is_embedded_as_written_and_a_missing_one_is_left_out(tmp_path: Path) -> None:
    """allure_render.mjs reads the results' files whole, at once (Allure's own reader streams
    them one after another): each attachment is embedded byte for byte, a result's JSON is
    read as written, and an attachment whose file is gone is left out, the report rendered."""
    require_allure()
    run = make_run(tmp_path, "run", "2026-03-01T02:00:00+00:00")
    results = run / "allure-results"
    written: dict[str, bytes] = {}
    for number, result_file in enumerate(sorted(results.glob("*-result.json"))):
        result = json.loads(result_file.read_text())
        names = []
        for kind in ("kept", "gone"):
            source = f"{uuid.uuid4()}-attachment.txt"
            written[source] = f"{number} {kind} \u00e9 GET /adressen -> 200\n".encode() + bytes(range(256))
            (results / source).write_bytes(written[source])
            names.append({"name": f"{number:02d} {kind}", "source": source, "type": "text/plain"})
        result["attachments"] = names
        result_file.write_text(json.dumps(result))
    gone = {source for source in written if "gone" in written[source].decode("latin-1")}
    for source in gone:
        (results / source).unlink()
    index = render_allure_html(run)
    assert index is not None
    page = index.read_text(encoding="utf-8")
    embedded = [base64.b64decode(blob) for blob in re.findall(r'd\("data/attachments/[^"]+","([A-Za-z0-9+/=]*)"\)', page)]
    ours = [content for content in embedded if content in written.values()]  # beside them: the run's matrix
    assert sorted(ours) == sorted(content for source, content in written.items() if source not in gone)
    tests = [json.loads(base64.b64decode(blob)) for blob in re.findall(r'd\("data/test-results/[^"]+","([A-Za-z0-9+/=]*)"\)', page)]
    assert sorted(t["name"] for t in tests) == sorted(test for test, _, _ in RESULTS)


def test_the_locked_allure_has_the_reader_the_render_reads_whole() -> None:
    """allure_render.mjs reads whole files only where Allure's reader is laid out as in the
    lock (another Allure keeps its own, slower reading): with the locked one, it is."""
    require_allure()
    from conformance.paths import node_tools_dir

    module = node_tools_dir() / "node_modules" / "@allurereport" / "reader-api" / "dist" / "index.js"
    probe = (f"const m = await import({json.dumps(module.as_uri())}); "
             "process.exit(typeof m.PathResultFile?.prototype?.asBuffer === 'function' ? 0 : 1);")
    assert subprocess.run(["node", "--input-type=module", "-e", probe], timeout=60).returncode == 0


def test_the_report_opens_at_its_top(tmp_path: Path) -> None:
    """The scroll guard is in the rendered page, before Allure's own scripts
    (tests/test_report_first_screen.py proves in Chromium what it does)."""
    require_allure()
    from conformance.reporting.html import SCROLL_GUARD

    index = render_allure_html(make_run(tmp_path, "run", "2026-03-01T02:00:00+00:00"))
    assert index is not None
    page = index.read_text(encoding="utf-8")
    assert page.count(SCROLL_GUARD) == 1 and page.index("<script") == page.index(SCROLL_GUARD)  # before Allure's


def test_report_command_renders_and_prints_the_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require_allure()
    run = make_run(tmp_path, "run", "2026-03-01T02:00:00+00:00")
    assert main(["report", str(run)]) == 0
    assert (run / "allure-report" / "index.html").as_uri() in capsys.readouterr().out.splitlines()


def test_report_command_refuses_what_it_cannot_render(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["report", str(tmp_path)]) == 2
    assert "no allure-results" in capsys.readouterr().err
    run = make_run(tmp_path, "run", "2026-03-01T02:00:00+00:00")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["report", str(run)]) == 2
    assert "Node.js (node) not found" in capsys.readouterr().err


def test_report_defaults_to_the_run_that_started_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.reporting import cli as report_cli

    assert report_cli.latest_run(tmp_path) is None
    make_run(tmp_path, "b-earlier", "2026-03-01T02:00:00+00:00")
    later = make_run(tmp_path, "a-later", "2026-03-02T02:00:00+00:00")  # names do not decide
    (tmp_path / "not-a-run").mkdir()
    assert report_cli.latest_run(tmp_path) == later
    monkeypatch.chdir(tmp_path / "not-a-run")  # the default is ./reports of the working directory
    assert main(["report"]) == 2
    assert "no run with allure-results" in capsys.readouterr().err



def test_a_damaged_history_costs_the_trend_not_the_report(tmp_path: Path) -> None:
    require_allure()
    previous = make_run(tmp_path, "run-1", "2026-03-01T02:00:00+00:00")
    (previous / HISTORY_FILE).write_text("{not json\n")
    current = make_run(tmp_path, "run-2", "2026-03-02T02:00:00+00:00")
    assert render_allure_html(current) is not None
    history = (current / HISTORY_FILE).read_text().splitlines()
    assert len(history) == 1 and json.loads(history[0])["name"].startswith("Address API — external-test (api.example)")
