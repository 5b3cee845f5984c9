"""Render allure-results into one self-contained HTML file with Allure 3 (Node.js, no Java).

The Node tools live in the checkout's tools/node_modules (installed by `npm ci --prefix
tools`), or for an installed copy in $CONFORMANCE_NODE_TOOLS/node_modules. When they are
missing, the run still has its allure-results, junit.xml and summary.json.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from conformance.paths import node_tools_dir

HISTORY_LIMIT = 30  # runs kept in a report's history (one JSON line each)
# Every Allure report embeds an analytics tag that can only fail offline: strip it. On the
# file's bytes: decoding, searching and encoding a report of some 50 MB as text took 1.5 s.
_ANALYTICS = re.compile(rb"<script[^>]*googletagmanager[^>]*>\s*</script>", re.IGNORECASE)


def allure_cli() -> Path | None:
    """Allure 3's cli.js in the Node tools folder (conformance.paths.node_tools_dir), if installed."""
    tools = node_tools_dir()
    cli = tools / "node_modules" / "allure" / "cli.js" if tools is not None else None
    return cli if cli is not None and cli.is_file() else None


# The harness's own gate as Allure 3's quality gate (the report's "Quality Gates" tab, and
# `allure quality-gate` with this config), counting what the verdict counts: MUST checks, not
# test cases (a check is one rule, run as one or more test cases; its `check_id` label). A
# check failed when one of its test cases failed (exit 1); it was not judged when one was
# blocked or broke and none failed (allure_extras.align_statuses shows a blocked MUST check
# "broken"; exit 4). The gate passes exactly when the exit code is 0 -- but for a run
# stopped before it judged anything (3, or 4 with no check).
QUALITY_GATE_JS = """
const label = (tr, name) => ((tr.labels || []).find((l) => l.name === name) || {}).value;
const must = (tr) => (tr.labels || []).some((l) => l.name === "tag" && l.value === "MUST");
// check -> its test results' statuses; a check's outcome as the verdict reads it.
const checksOf = (trs) => {
  const checks = new Map();
  for (const tr of trs) {
    const check = label(tr, "check_id") || tr.fullName || tr.id;
    checks.set(check, [...(checks.get(check) || []), tr]);
  }
  return checks;
};
const outcomeOf = (trs) => trs.some((tr) => tr.status === "failed") ? "failed"
  : trs.some((tr) => tr.status === "broken") ? "not judged" : "judged";
const plural = (n) => `${n} MUST check${n === 1 ? "" : "s"}`;
const mustChecksRule = (rule, outcome, said) => ({
  rule,
  message: ({ actual, expected }) => `${plural(actual)} ${said}; the verdict allows ${expected}`,
  successMessage: ({ actual, expected }) => `${plural(actual)} ${said}; the verdict allows ${expected}`,
  validate: async ({ trs, expected, state }) => {
    const counted = [...checksOf(trs).values()].filter((checkTrs) => outcomeOf(checkTrs) === outcome);
    const testResults = counted.flat().filter((tr) => tr.status !== "passed").map((tr) => tr.id);
    state.setResult(counted.length, testResults);
    return { success: counted.length <= expected, actual: counted.length, testResults };
  },
});
settings.qualityGate = {
  use: [mustChecksRule("maxMustChecksFailed", "failed", "failed"),
        mustChecksRule("maxMustChecksNotJudged", "not judged", "blocked or broken (not judged)")],
  rules: [
    { id: "MUST failures", maxMustChecksFailed: 0, filter: must },
    { id: "MUST not judged", maxMustChecksNotJudged: 0, filter: must },
  ],
};
export default settings;
"""
# The report opens at its top, on the verdict, its counts and its target, for a failing run
# as for a passing one. Allure's tree focuses its first test on load -- the first one of the
# groups it expands, which are those with failed or broken tests -- and scrolls it into
# view: a failing report opened scrolled down to it, the title with the verdict above the
# fold. Until the reader acts (a key, a click, the wheel, a touch), any scroll is undone;
# a link to a test (its route after # in the address) keeps Allure's own scroll to it.
SCROLL_GUARD = """<script>
(function () {
  if (location.hash && location.hash !== "#") return;
  var held = true;
  ["keydown", "pointerdown", "mousedown", "wheel", "touchstart"].forEach(function (kind) {
    window.addEventListener(kind, function () { held = false; }, { capture: true, once: true, passive: true });
  });
  document.addEventListener("scroll", function (event) {
    if (!held) return;
    var scrolled = event.target === document ? document.scrollingElement : event.target;
    if (scrolled && scrolled.scrollTop) scrolled.scrollTop = 0;
  }, true);
})();
</script>"""
GATE_FILE = "quality-gate.json"  # the gate's results, beside summary.json
RING_FILE = "allure-ring.json"  # the MUST checks by outcome, which the report's ring shows
_RENDER_SCRIPT = Path(__file__).with_name("allure_render.mjs")


# All the renderer needs of the environment: the profile's secrets live in the run's
# environment (API keys, client secrets, a private key), and Node has no use for them.
_RENDERER_ENVIRONMENT = ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "SYSTEMROOT")


def renderer_environment() -> dict[str, str]:
    return {name: os.environ[name] for name in _RENDERER_ENVIRONMENT if name in os.environ}


def render_allure_html(report_dir: Path, *, timeout_s: float = 120.0) -> Path | None:
    """allure-report/index.html for a run, or None (no Node tools, no results, Allure failed).

    The previous run's history is carried over first (trends across runs), the categories
    of allure-results/categories.json go into Allure 3's config (where it reads them), the
    test tree is grouped by API (epic), then endpoint or flow (feature), then rule (story),
    the report is named after the run's verdict (allure_extras.report_title), its ring
    counts the MUST checks the verdict counts (allure_extras.verdict_statistic), the
    harness's gate is evaluated as its quality gate (QUALITY_GATE_JS, quality-gate.json) and
    the page opens at its top (SCROLL_GUARD).
    """
    from conformance.reporting.allure_extras import (
        allure3_categories,
        carry_history,
        report_title,
        verdict_statistic,
    )

    node = shutil.which("node")
    results = report_dir / "allure-results"
    cli = allure_cli()
    tools = node_tools_dir()
    if node is None or cli is None or tools is None or not results.is_dir():
        return None
    out = report_dir / "allure-report"
    history = carry_history(report_dir)
    config = report_dir / "allurerc.mjs"
    title = report_title(report_dir) or f"registry-conformance {report_dir.name}"
    settings: dict[str, Any] = {
        "name": title,
        "output": str(out),
        "historyPath": str(history),
        "historyLimit": HISTORY_LIMIT,
        "plugins": {"awesome": {"options": {
            "singleFile": True, "reportName": title, "groupBy": ["epic", "feature", "story"],
        }}},
    }
    categories = allure3_categories(results)
    if categories:
        settings["categories"] = {"rules": categories}
    gate = report_dir / GATE_FILE
    ring = report_dir / RING_FILE
    statistic = verdict_statistic(report_dir)
    if statistic is not None:
        ring.write_text(json.dumps(statistic), encoding="utf-8")
    command = [node, str(_RENDER_SCRIPT), str(tools), str(config), str(results), str(gate),
               *([str(ring)] if statistic is not None else [])]
    for attempt in ("with history", "without history"):
        config.write_text(f"const settings = {json.dumps(settings, indent=2)};\n{QUALITY_GATE_JS}", encoding="utf-8")
        try:
            subprocess.run(command, check=True, capture_output=True, timeout=timeout_s, cwd=report_dir,
                           env=renderer_environment())
            break
        except subprocess.CalledProcessError:
            if attempt == "without history" or not history.is_file():
                return None
            history.unlink()  # a damaged history file must not cost the report
        except subprocess.TimeoutExpired:
            return None
    index = out / "index.html"
    if not index.is_file():
        return None
    page = _ANALYTICS.sub(b"", index.read_bytes())
    index.write_bytes(page.replace(b"<head>", b"<head>" + SCROLL_GUARD.encode("utf-8"), 1))
    return index
