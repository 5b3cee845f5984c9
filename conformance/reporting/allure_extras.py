"""What a run adds to allure-results besides the test results, and history across runs.

Written at session end (`write_run_extras`), from summary.json only, so it works the same
for serial and xdist runs and can be redone later for an old run:

* environment.properties: profile, targets, harness version, the server's api-version,
  time of run (shown as "Metadata" on the report's overview);
* executor.json: the CI system, build and URL, when the environment says so;
* categories.json: product defects (MUST failures), warnings (SHOULD), blocked, not-judged
  and not-applicable checks, observations, environment problems and harness errors. Allure 2's schema, plus a `labels` member
  (Allure 2 ignores it) that `allure3_categories` hands to Allure 3, whose categories live
  in its config and can match on labels: that is how MUST and SHOULD failures are told apart;
* the conformance matrix as global attachments (overview tab "Global Attachments"), so it
  shows in the report without adding a test to the totals;
* matrix.json and matrix.md next to summary.json;
* the statuses Allure shows, aligned with the verdict (`align_statuses`: a blocked MUST check
  is "broken", every skip labelled with why; a waived failure is skipped with its waiver,
  conformance/reporting/waivers.py; a finding is "failed" whatever exception carried it,
  conformance/run_outcomes.py), the report's name (`report_title`, with the run's coverage:
  "on 186 of 204 MUST checks (18 not judged: …)", counted in checks as the console counts)
  and what its ring counts (`verdict_statistic`: the MUST checks the verdict rests on).

History: Allure 3 keeps it in a JSONL file (`historyPath` in its config): each `generate`
reads the earlier points and appends one. `carry_history` copies the previous run's file
into this run before rendering, so every run's report shows the trend up to itself.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from conformance import __version__
from conformance.reporting import coverage, matrix
from conformance.reporting.summary import (
    judged_services,
    public_url,
    verdict_numbers,
    verdict_reason_words,
    verdict_words,
)

HISTORY_FILE = "allure-history.jsonl"
API_VERSION_CHECK = "address.headers.api_version_value"
MATRIX_FILES = ("conformance-matrix-globals.json", "conformance-matrix-attachment.html",
                "conformance-matrix-attachment.md", "conformance-root-causes-attachment.md")

# Not a verdict on the API: the environment did not answer, or answered with gateway errors.
ENVIRONMENT_REGEX = (
    r"[\s\S]*(unreachable|[Tt]imed out|[Tt]imeout|ConnectError|Connection(Refused|Reset)?Error|"
    r"RemoteProtocolError|Bad Gateway|Gateway Time-?out|Service Unavailable|actual: 50[234]\b)[\s\S]*"
)
CATEGORIES: list[dict[str, Any]] = [
    {"name": "Environment problems", "matchedStatuses": ["failed", "broken"], "messageRegex": ENVIRONMENT_REGEX,
     "description": "Unreachable, time-outs, gateway errors: rerun before judging the API."},
    # Before "Harness errors": a blocked MUST check is shown "broken" too (align_statuses).
    {"name": "Blocked MUST checks (could not judge)", "matchedStatuses": ["broken"],
     "messageRegex": r"[\s\S]*not judged \(blocked\): [\s\S]*",
     "description": "A MUST check whose precondition failed (the flow, sample or control request it starts "
                    "from): the rule was not judged, and the run cannot conform (exit 4). See the root causes."},
    {"name": "Harness errors", "matchedStatuses": ["broken"],
     "description": "A check broke with an exception other than a finding: a harness or profile problem."},
    {"name": "Product defects (MUST failures)", "matchedStatuses": ["failed"], "labels": {"tag": "^MUST$"},
     "description": "The API breaks a requirement the spec states: the run fails (exit 1)."},
    {"name": "Warnings (SHOULD failures)", "matchedStatuses": ["failed"], "labels": {"tag": "^SHOULD$"},
     "description": "The API departs from public behaviour where the spec is silent."},
    {"name": "Waived failures (accepted deviations)", "matchedStatuses": ["skipped"],
     "messageRegex": r"failed, waived [\s\S]*",
     "description": "A check failed and a waiver of the run accepts the deviation until its date (reason, "
                    "ticket and date in the message): no failure for the exit code. README \"Waivers\"."},
    {"name": "Blocked (could not judge)", "matchedStatuses": ["skipped"], "messageRegex": r"[\s\S]*blocked: [\s\S]*",
     "description": "A precondition failed (the flow, sample or control request the check starts from): "
                    "the rule was not judged. See the run's root causes."},
    {"name": "Not applicable", "matchedStatuses": ["skipped"], "messageRegex": r"[\s\S]*not applicable: [\s\S]*",
     "description": "The rule does not apply here (the reason says why)."},
    # Before "Not judged": a safety switch is one kind of it.
    {"name": "Not judged: safety switch", "matchedStatuses": ["skipped"],
     "messageRegex": r"[\s\S]*forbids checks that[\s\S]*",
     "description": "The profile's [safety] table forbids what the check does (fuzzing, negative input, floods, "
                    "real-time waits): the rule applies and was not judged, by choice."},
    {"name": "Not judged", "matchedStatuses": ["skipped"], "messageRegex": r"[\s\S]*not judged: [\s\S]*",
     "description": "The rule applies, but the run lacked what judging it takes (a key, a user, a clock hook, a "
                    "WSDL, a sample) or its request budget or quota ran out: the reason says which and how to "
                    "provide it. Not counted in the coverage of the verdict."},
    {"name": "Observations", "matchedStatuses": ["passed", "failed", "broken"], "labels": {"tag": "^observation$"},
     "description": "Values the spec leaves open, measured and recorded; never a failure."},
]


# How a skipped check is told apart (the `outcome` label each gets, for the report's filters).
_SKIP_KINDS = (("blocked: ", "blocked"), ("forbids checks that", "safety switch"), ("not judged: ", "not judged"),
               ("not applicable: ", "not applicable"))
_SUITE_TITLES = {"address": "Address API", "auth": "Authorization server", "soap": "SOAP message service",
                 "compare": "Address API comparison", "client": "Clients"}


def align_statuses(results: Path) -> int:
    """Make the report's ring and counters say what the verdict says.

    pytest reports every check it did not judge as skipped, so Allure showed blocked MUST
    checks, not-applicable checks and safety-switch skips as one grey "Skipped" bucket
    beside a green ring. A MUST check that could not judge is "broken" here, with the cause
    as its message; every skipped check gets an `outcome` label (blocked, not applicable,
    safety switch) to filter on, and the categories list each apart. Returns how many
    results became broken."""
    broken = 0
    for path in results.glob("*-result.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if data.get("status") != "skipped":
            continue
        details = data.setdefault("statusDetails", {}) or {}
        message = str(details.get("message") or "")
        kind = next((name for marker, name in _SKIP_KINDS if marker in message), None)
        labels = data.setdefault("labels", [])
        if kind is None or any(label.get("name") == "outcome" for label in labels):
            continue
        labels.append({"name": "outcome", "value": kind})
        if kind == "blocked" and any(label.get("name") == "tag" and label.get("value") == "MUST" for label in labels):
            data["status"] = "broken"
            cause = message.split("blocked: ", 1)[1]
            details["message"] = f"MUST check not judged (blocked): {cause}"
            data["statusDetails"] = details
            broken += 1
        path.write_text(json.dumps(data), encoding="utf-8")
    return broken


def report_title(report_dir: Path) -> str | None:
    """The report's name, in the user's words: the APIs, the profile, the target, the
    verdict and its reason, counted as the console counts ("Address API — vendor-x
    (api.vendor.example) — COULD NOT JUDGE (exit 4): 2 MUST checks blocked (not judged); on
    186 of 188 MUST checks (2 blocked); 204 checks, run as 512 test cases"): the last clause
    ties the checks to Allure's own total, which counts test cases."""
    try:
        summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    suites = list(dict.fromkeys(e.get("suite") for e in summary.get("checks", []) if e.get("suite")))
    apis = ", ".join(_SUITE_TITLES.get(s, s) for s in suites) or "registry-conformance"
    services = set(judged_services(summary)) if suites else set()
    hosts = sorted({urlsplit(public_url(url)).netloc for name, url in (summary.get("targets") or {}).items()
                    if url and (name in services or not services)})
    target = f" ({', '.join(hosts)})" if hosts else ""
    verdict = verdict_words(summary).upper()
    head = f"{apis} — {summary.get('profile', '?')}{target} — {verdict} (exit {summary.get('exit_code', '?')})"
    reason = verdict_reason_words(summary)
    if summary.get("checks"):
        counts = coverage.check_counts(summary["checks"])
        reason += f"; {counts['checks']} checks, run as {counts['test_cases']} test cases"
    return f"{head}: {reason}" if reason else head


# A MUST check's outcome as the report's ring shows it (Allure's statuses and colours).
_RING_STATUS = {"passed": "passed", "observation": "passed", "failed": "failed", "blocked": "broken",
                "error": "broken", "not_judged": "skipped", "waived": "skipped"}


def verdict_statistic(report_dir: Path) -> dict[str, int] | None:
    """What the report's ring counts: the MUST checks the verdict rests on (those that apply,
    as the coverage counts them), each once, by its outcome -- passed, failed, broken (blocked
    or broke: not judged) or skipped (not judged for want of material, budget or a switch;
    failed and waived) -- instead of Allure's every test case of every severity. None
    without a readable summary.json (Allure's own ring then)."""
    try:
        summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    statistic = {"total": 0}
    for entry in coverage.worst_per_check(summary.get("checks") or []).values():
        status = _RING_STATUS.get(entry["outcome"])
        if entry.get("severity") == "MUST" and status is not None:
            statistic["total"] += 1
            statistic[status] = statistic.get(status, 0) + 1
    return statistic


def verdict_in_numbers(summary: dict[str, Any]) -> str:
    """"2 MUST checks failed, 1 MUST check blocked (not judged)": summary.verdict_numbers."""
    return verdict_numbers(summary)


def write_run_extras(report_dir: Path, summary: dict[str, Any] | None = None, *, strict: bool = False) -> bool:
    """Everything above, for a finished run whose summary.json is written. These are a
    convenience: unless `strict`, a problem is reported on stderr and never changes the
    run's verdict. Returns whether everything was written."""
    try:
        _write_run_extras(report_dir, summary)
    except Exception as exc:
        if strict:
            raise
        sys.stderr.write(f"conformance: report extras (matrix, Allure metadata) not written: "
                         f"{type(exc).__name__}: {exc}\n")
        return False
    return True


def _write_run_extras(report_dir: Path, summary: dict[str, Any] | None) -> None:
    summary_path = report_dir / "summary.json"
    if summary is None:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    api_version = api_version_of(summary)
    if api_version and summary.get("api_version") != api_version:
        summary = {**summary, "api_version": api_version}
        if summary_path.is_file():  # the optional field, added to the file as written
            on_disk = json.loads(summary_path.read_text(encoding="utf-8"))
            on_disk["api_version"] = api_version
            summary_path.write_text(json.dumps(on_disk, indent=2, ensure_ascii=False, default=str) + "\n")
    rows = matrix.write_matrix(report_dir, summary)
    results = report_dir / "allure-results"
    if not results.is_dir():
        return
    (results / "environment.properties").write_text(properties_text(environment_properties(summary)))
    executor = executor_info(os.environ)
    if executor:
        (results / "executor.json").write_text(json.dumps(executor, indent=2) + "\n")
    (results / "categories.json").write_text(json.dumps(CATEGORIES, indent=2) + "\n")
    align_statuses(results)
    from conformance.reporting.waivers import mark_allure_results

    mark_allure_results(results, summary)
    _write_matrix_attachments(results, summary, rows)


def api_version_of(summary: dict[str, Any]) -> str | None:
    """The api-version header value the address API sent, as its observation check measured it."""
    for entry in summary.get("checks", []):
        value = entry.get("value")
        if entry["check"] == API_VERSION_CHECK and entry["outcome"] == "observation" and isinstance(value, str):
            return None if value == "(absent)" else value
    return summary.get("api_version")


def environment_properties(summary: dict[str, Any]) -> dict[str, str]:
    props = {"profile": str(summary.get("profile")), "harness.version": __version__}
    for name, url in sorted(summary.get("targets", {}).items()):
        props[f"target.{name}"] = public_url(str(url))
    if summary.get("api_version"):
        props["api-version"] = str(summary["api_version"])
    props["run.started"] = str(summary.get("started"))
    if summary.get("finished"):
        props["run.finished"] = str(summary["finished"])
    if summary.get("seed") is not None:
        props["fuzzing.seed"] = str(summary["seed"])
    if summary.get("faults"):
        props["mock.faults"] = ", ".join(summary["faults"])
    props["verdict"] = f"{verdict_words(summary)} (exit {summary.get('exit_code')})"
    return props


def properties_text(props: Mapping[str, str]) -> str:
    """Java .properties: escapes backslashes, separators in keys, line breaks and non-ASCII."""
    def esc(text: str, key: bool) -> str:
        out = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
        if key:
            out = out.replace(" ", "\\ ").replace("=", "\\=").replace(":", "\\:")
        return "".join(c if ord(c) < 128 else f"\\u{ord(c):04x}" for c in out)

    return "".join(f"{esc(k, True)}={esc(v, False)}\n" for k, v in props.items())


def executor_info(env: Mapping[str, str]) -> dict[str, Any] | None:
    """Allure's executor.json from well-known CI variables; None outside CI. Only names,
    numbers and URLs are read (never tokens), and URLs lose any user info."""
    get = env.get
    if get("GITHUB_ACTIONS") == "true":
        server, repo, run = get("GITHUB_SERVER_URL", "https://github.com"), get("GITHUB_REPOSITORY"), get("GITHUB_RUN_ID")
        return _executor("GitHub Actions", "github", f"{server}/{repo}" if repo else server, get("GITHUB_RUN_NUMBER"),
                         f"{get('GITHUB_WORKFLOW', 'workflow')} #{get('GITHUB_RUN_NUMBER', '?')}",
                         f"{server}/{repo}/actions/runs/{run}" if repo and run else None)
    if get("GITLAB_CI") == "true":
        return _executor("GitLab CI", "gitlab", get("CI_PROJECT_URL"), get("CI_PIPELINE_IID"),
                         f"{get('CI_PROJECT_PATH', 'pipeline')} #{get('CI_PIPELINE_IID', '?')} {get('CI_JOB_NAME', '')}".strip(),
                         get("CI_JOB_URL") or get("CI_PIPELINE_URL"))
    if get("JENKINS_URL") or (get("BUILD_URL") and get("BUILD_NUMBER")):
        return _executor("Jenkins", "jenkins", get("JENKINS_URL"), get("BUILD_NUMBER"),
                         get("BUILD_TAG") or f"{get('JOB_NAME', 'build')} #{get('BUILD_NUMBER', '?')}", get("BUILD_URL"))
    if get("TF_BUILD"):
        base = f"{get('SYSTEM_COLLECTIONURI', '')}{get('SYSTEM_TEAMPROJECT', '')}"
        return _executor("Azure Pipelines", "azure", base or None, get("BUILD_BUILDID"), get("BUILD_BUILDNUMBER"),
                         f"{base}/_build/results?buildId={get('BUILD_BUILDID')}" if base and get("BUILD_BUILDID") else None)
    if get("CI", "").lower() not in ("", "0", "false", "no"):
        return _executor(get("CI_NAME", "CI"), "ci", None, get("BUILD_NUMBER") or get("CI_BUILD_NUMBER"),
                         get("BUILD_ID") or get("CI_BUILD_ID") or get("BUILD_NUMBER"), get("BUILD_URL") or get("CI_BUILD_URL"))
    return None


def _executor(name: str, kind: str, url: str | None, order: str | None, build: str | None,
              build_url: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "type": kind}
    if url:
        out["url"] = public_url(url)
    if order and order.isdigit():
        out["buildOrder"] = int(order)
    if build:
        out["buildName"] = build
    if build_url:
        out["buildUrl"] = public_url(build_url)
    return out


def allure3_categories(results: Path) -> list[dict[str, Any]]:
    """categories.json of a results directory as Allure 3 config rules (first match wins)."""
    path = results / "categories.json"
    if not path.is_file():
        return []
    rules = []
    for cat in json.loads(path.read_text(encoding="utf-8")):
        matcher: dict[str, Any] = {"statuses": cat.get("matchedStatuses", [])}
        if cat.get("messageRegex"):
            matcher["message"] = cat["messageRegex"]
        if cat.get("labels"):
            matcher["labels"] = cat["labels"]
        rules.append({"name": cat["name"], "matchers": matcher})
    return rules


def _write_matrix_attachments(results: Path, summary: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """Fixed file names: writing them again (`conformance report`) replaces, never adds."""
    globals_file, html_file, md_file, causes_file = MATRIX_FILES
    (results / html_file).write_text(matrix.render_html(summary, rows), encoding="utf-8")
    (results / md_file).write_text(matrix.render_markdown(summary, rows), encoding="utf-8")
    (results / causes_file).write_text(render_root_causes(summary), encoding="utf-8")
    stamp = int(time.time() * 1000)
    (results / globals_file).write_text(json.dumps({"attachments": [
        {"name": "Conformance matrix", "source": html_file, "type": "text/html", "timestamp": stamp},
        {"name": "matrix.md", "source": md_file, "type": "text/markdown", "timestamp": stamp},
        {"name": "Root causes", "source": causes_file, "type": "text/markdown", "timestamp": stamp},
    ], "errors": []}, indent=2) + "\n")


def render_root_causes(summary: dict[str, Any]) -> str:
    """Each cause that took down several checks, once, with the checks (summary.json
    `root_causes`); the tests carry the same cause as a tag `cause: ...`."""
    causes = summary.get("root_causes") or []
    lines = ["# Root causes", ""]
    if not causes:
        return "\n".join([*lines, "No cause took down more than one check.", ""])
    for cause in causes:
        lines.append(f"## {cause['cause']}")
        lines.append(f"{len(cause['checks'])} checks ({cause['must']} MUST), {', '.join(cause['outcomes'])}:")
        lines += [f"- `{check}`" for check in cause["checks"]] + [""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- history
def previous_run(report_dir: Path) -> Path | None:
    """The latest other run next to this one that started earlier and has an Allure history."""
    report_dir = report_dir.resolve()
    mine = run_started(report_dir)
    earlier = [
        (run_started(d), d.name, d) for d in report_dir.parent.iterdir()
        if d.is_dir() and d != report_dir and (d / HISTORY_FILE).is_file()
    ]
    earlier = [item for item in earlier if item[0] < mine]
    return max(earlier)[2] if earlier else None


def run_started(run_dir: Path) -> datetime:
    """When a run started: summary.json's `started`, else the directory's time."""
    try:
        started = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))["started"]
        value = datetime.fromisoformat(started)
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    except (OSError, ValueError, KeyError, TypeError):
        return datetime.fromtimestamp(run_dir.stat().st_mtime, UTC)


def carry_history(report_dir: Path) -> Path:
    """This run's history file, holding the previous run's history (or nothing): Allure then
    appends this run. Redone from scratch on every render, so rendering twice never counts
    a run twice."""
    target = report_dir / HISTORY_FILE
    source = previous_run(report_dir)
    if source is not None:
        shutil.copyfile(source / HISTORY_FILE, target)
    else:
        target.unlink(missing_ok=True)
    return target
