"""What a run adds to allure-results (environment, executor, categories, matrix) and the
history carried from the previous run."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from conformance import __version__
from conformance.reporting import allure_extras as extras

SECRET = "s3cr3t-canary-value"
CI_PREFIXES = ("GITHUB_", "GITLAB", "CI_", "BUILD_", "JENKINS", "TF_BUILD", "SYSTEM_")


def summary(**kw: Any) -> dict[str, Any]:
    return {
        "profile": "external-test", "started": "2026-03-01T02:00:00+00:00", "finished": "2026-03-01T02:10:00+00:00",
        "seed": 42, "faults": [], "verdict": "MUST_FAILED", "exit_code": 1,
        "targets": {"address": f"https://user:{SECRET}@api.example/lvbag/v2?key={SECRET}",
                    "soap": "http://127.0.0.1:4000/soap"},
        "checks": [
            {"check": extras.API_VERSION_CHECK, "requirements": ["ADDR-9.api-version"], "severity": "observation",
             "suite": "address", "title": "t", "test": "t1", "outcome": "observation", "reason": None,
             "value": "2.9.2"},
            {"check": "address.pagination.limits_accepted", "requirements": ["ADDR-4.pageSize"], "severity": "MUST",
             "suite": "address", "title": "t", "test": "t2", "outcome": "failed", "reason": "pageSize 100: 400"},
        ], **kw,
    }


def make_run(parent: Path, name: str, started: str | None = None, history: str | None = None) -> Path:
    run = parent / name
    (run / "allure-results").mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps(summary(**({"started": started} if started else {}))))
    if history is not None:
        (run / extras.HISTORY_FILE).write_text(history)
    return run


def parse_properties(text: str) -> dict[str, str]:
    """Enough of Java's format for these keys: the first unescaped '=' separates."""
    pairs = (re.split(r"(?<!\\)=", line, maxsplit=1) for line in text.splitlines())
    return {key.replace("\\ ", " "): value.encode().decode("unicode_escape") for key, value in pairs}


@pytest.fixture
def no_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name == "CI" or name.startswith(CI_PREFIXES):
            monkeypatch.delenv(name)


def test_environment_properties(tmp_path: Path, no_ci: None) -> None:
    run = make_run(tmp_path, "run")
    assert extras.write_run_extras(run, strict=True)
    text = (run / "allure-results" / "environment.properties").read_text()
    props = parse_properties(text)
    assert props["profile"] == "external-test" and props["harness.version"] == __version__
    assert props["api-version"] == "2.9.2"  # what the server sent, from the observation check
    assert props["target.address"] == "https://api.example/lvbag/v2"  # no user info, no query
    assert props["run.started"] == "2026-03-01T02:00:00+00:00" and props["verdict"] == "does not conform (exit 1)"
    assert SECRET not in text
    assert json.loads((run / "summary.json").read_text())["api_version"] == "2.9.2"
    assert not (run / "allure-results" / "executor.json").exists()  # not in CI


def test_properties_escaping() -> None:
    text = extras.properties_text({"a key=x": "line1\nline2 é \\"})
    assert text == "a\\ key\\=x=line1\\nline2 \\u00e9 \\\\\n"


def test_executor_from_github_and_gitlab(tmp_path: Path, no_ci: None, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com",
                        "GITHUB_REPOSITORY": "org/conformance", "GITHUB_RUN_ID": "991", "GITHUB_RUN_NUMBER": "17",
                        "GITHUB_WORKFLOW": "nightly", "GITHUB_TOKEN": SECRET}.items():
        monkeypatch.setenv(name, value)
    run = make_run(tmp_path, "run")
    extras.write_run_extras(run, strict=True)
    text = (run / "allure-results" / "executor.json").read_text()
    assert json.loads(text) == {
        "name": "GitHub Actions", "type": "github", "url": "https://github.com/org/conformance", "buildOrder": 17,
        "buildName": "nightly #17", "buildUrl": "https://github.com/org/conformance/actions/runs/991"}
    assert SECRET not in text
    gitlab = extras.executor_info({"GITLAB_CI": "true", "CI_PROJECT_URL": "https://gitlab.example/g/p",
                                   "CI_PIPELINE_IID": "5", "CI_PROJECT_PATH": "g/p", "CI_JOB_NAME": "nightly",
                                   "CI_JOB_URL": f"https://gitlab-ci-token:{SECRET}@gitlab.example/g/p/-/jobs/9",
                                   "CI_JOB_TOKEN": SECRET})
    assert gitlab == {"name": "GitLab CI", "type": "gitlab", "url": "https://gitlab.example/g/p", "buildOrder": 5,
                      "buildName": "g/p #5 nightly", "buildUrl": "https://gitlab.example/g/p/-/jobs/9"}
    assert extras.executor_info({}) is None and extras.executor_info({"CI": "false"}) is None


def _first_match(rules: list[dict[str, Any]], status: str, tag: str, message: str = "") -> str | None:
    """Allure 3's matching (core-api matchCategory): the first rule whose matcher holds."""
    for rule in rules:
        m = rule["matchers"]
        if status not in m["statuses"]:
            continue
        if any(not re.search(rx, tag) for label, rx in m.get("labels", {}).items() if label == "tag"):
            continue
        if "message" in m and not re.search(m["message"], message):
            continue
        return rule["name"]
    return None


def test_categories_separate_defects_warnings_observations_environment_and_harness(tmp_path: Path) -> None:
    run = make_run(tmp_path, "run")
    extras.write_run_extras(run, strict=True)
    rules = extras.allure3_categories(run / "allure-results")
    assert _first_match(rules, "failed", "MUST", "expected 400; actual: 200") == "Product defects (MUST failures)"
    assert _first_match(rules, "failed", "SHOULD", "no warning header") == "Warnings (SHOULD failures)"
    assert _first_match(rules, "passed", "observation") == "Observations"
    assert _first_match(rules, "broken", "MUST", "UnreachableError: https://x is unreachable: ConnectError") \
        == "Environment problems"
    assert _first_match(rules, "failed", "MUST", "expected 200; actual: 503") == "Environment problems"
    assert _first_match(rules, "broken", "MUST", "KeyError: 'samples'") == "Harness errors"
    assert _first_match(rules, "passed", "MUST") is None
    # Allure 2 reads the same file: its keys are there, and its regex matching is whole-message.
    raw = json.loads((run / "allure-results" / "categories.json").read_text())
    assert all(set(c) >= {"name", "matchedStatuses"} for c in raw)
    assert re.fullmatch(raw[0]["messageRegex"], "httpx.ReadTimeout: timed out\nmore")


def test_matrix_is_attached_once(tmp_path: Path) -> None:
    run = make_run(tmp_path, "run")
    extras.write_run_extras(run, strict=True)
    extras.write_run_extras(run, strict=True)  # `conformance report` may write them again
    results = run / "allure-results"
    globals_files = list(results.glob("*-globals.json"))
    assert len(globals_files) == 1
    attachments = json.loads(globals_files[0].read_text())["attachments"]
    assert [a["name"] for a in attachments] == ["Conformance matrix", "matrix.md", "Root causes"]
    html = (results / attachments[0]["source"]).read_text()
    assert "ADDR-4.pageSize" in html and "pageSize 100: 400" in html
    assert (run / "matrix.md").read_text() == (results / attachments[1]["source"]).read_text()


def test_root_causes_are_a_global_attachment() -> None:
    text = extras.render_root_causes({"root_causes": [
        {"cause": "GET /adressen/1 -> 404", "checks": ["a.one", "a.two"], "outcomes": ["blocked"], "must": 2}]})
    assert "## GET /adressen/1 -> 404" in text and "- `a.one`" in text and "2 checks (2 MUST), blocked" in text
    assert "No cause" in extras.render_root_causes({"root_causes": []})


def test_a_broken_summary_warns_and_never_raises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "summary.json").write_text("{")
    assert extras.write_run_extras(tmp_path) is False
    assert "report extras" in capsys.readouterr().err
    with pytest.raises(json.JSONDecodeError):
        extras.write_run_extras(tmp_path, strict=True)


def test_history_comes_from_the_latest_earlier_run(tmp_path: Path) -> None:
    make_run(tmp_path, "a-oldest", "2026-01-01T00:00:00+00:00", history='{"uuid": "A"}\n')
    make_run(tmp_path, "b-previous", "2026-01-02T00:00:00+00:00", history='{"uuid": "A"}\n{"uuid": "B"}\n')
    make_run(tmp_path, "c-no-html", "2026-01-02T12:00:00+00:00")  # rendered no report: no history
    current = make_run(tmp_path, "d-current", "2026-01-03T00:00:00+00:00", history="stale\n")
    make_run(tmp_path, "e-later", "2026-01-04T00:00:00+00:00", history='{"uuid": "E"}\n')
    assert extras.previous_run(current) == (tmp_path / "b-previous").resolve()
    assert extras.carry_history(current).read_text() == '{"uuid": "A"}\n{"uuid": "B"}\n'
    first = make_run(tmp_path / "alone", "first", history="left over from an earlier render\n")
    assert not extras.carry_history(first).exists()  # nothing earlier: the history starts here


def test_only_the_fixture_containers_the_report_shows_are_written(tmp_path: Path) -> None:
    """A container linked to no test, or holding only the harness's own passed fixtures, is
    not written; one that shows a user's fixture, a failure or a step is, as Allure writes it;
    and allure-pytest can still unregister its logger by name."""
    from allure_commons import plugin_manager
    from allure_commons.logger import AllureFileLogger
    from allure_commons.model2 import TestAfterResult, TestBeforeResult, TestResultContainer, TestStepResult

    from conformance.reporting.allure import write_only_shown_containers

    logger = AllureFileLogger(str(tmp_path))
    plugin_manager.register(logger, "the-file-logger")
    try:
        write_only_shown_containers()
        write_only_shown_containers()  # once is enough: the filter is not stacked
        internal = TestBeforeResult(name="_findings_replayed", status="passed")
        cases = {
            "no test": TestResultContainer(uuid="a", children=[], befores=[TestBeforeResult(name="suite", status="passed")]),
            "internal": TestResultContainer(uuid="b", children=["t"], befores=[internal],
                                            afters=[TestAfterResult(name="_findings_replayed::0", status="passed")]),
            "user fixture": TestResultContainer(uuid="c", children=["t"], befores=[TestBeforeResult(name="suite", status="passed")]),
            "internal failed": TestResultContainer(uuid="d", children=["t"],
                                                   befores=[TestBeforeResult(name="_findings_replayed", status="broken")]),
            "internal step": TestResultContainer(uuid="e", children=["t"], befores=[TestBeforeResult(
                name="_findings_replayed", status="passed", steps=[TestStepResult(name="replayed")])]),
        }
        for container in cases.values():
            plugin_manager.hook.report_container(container=container)
    finally:
        plugin_manager.unregister(name="the-file-logger")
    written = {json.loads(p.read_text())["uuid"] for p in tmp_path.glob("*-container.json")}
    assert written == {"c", "d", "e"}
    assert logger not in plugin_manager.get_plugins()


@pytest.mark.parametrize("indent", ["", "1"], ids=["compact", "ALLURE_INDENT_OUTPUT"])
def test_a_result_is_written_as_allure_writes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indent: str) -> None:
    """The harness writes each result with json.dumps (C-encoded): the same text as allure's
    own json.dump, non-ASCII, nested steps and all."""
    from allure_commons.logger import AllureFileLogger
    from allure_commons.model2 import Attachment, Label, TestResult, TestStepResult

    from conformance.reporting.allure import _write_item

    monkeypatch.setenv("ALLURE_INDENT_OUTPUT", indent)
    result = TestResult(uuid="u", name="GET /adressen — één", status="failed", labels=[Label(name="epic", value="Adres")],
                        steps=[TestStepResult(name="stap", status="passed", attachments=[Attachment(name="a", source="s")])])
    theirs, ours = tmp_path / "allure", tmp_path / "harness"
    AllureFileLogger(str(theirs))._report_item(result)
    _write_item(AllureFileLogger(str(ours)), result)
    (their_file,), (our_file,) = list(theirs.iterdir()), list(ours.iterdir())
    assert our_file.name.endswith("-result.json") and our_file.read_bytes() == their_file.read_bytes()
