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
# Every Allure report embeds an analytics tag that can only fail offline: strip it.
_ANALYTICS = re.compile(r"<script[^>]*googletagmanager[^>]*>\s*</script>", re.IGNORECASE)


def allure_cli() -> Path | None:
    """Allure 3's cli.js in the Node tools folder (conformance.paths.node_tools_dir), if installed."""
    tools = node_tools_dir()
    cli = tools / "node_modules" / "allure" / "cli.js" if tools is not None else None
    return cli if cli is not None and cli.is_file() else None


# The harness's own gate as Allure 3's quality gate (the report's "Quality Gates" tab, and
# `allure quality-gate` with this config): no MUST check failed, none was left unjudged
# (blocked or broken; allure_extras.align_statuses shows those as "broken"). The same
# two counts decide the exit code (1, then 4), so the gate passes exactly when the exit
# code is 0 -- but for a run stopped before it judged anything (3, or 4 with no check).
QUALITY_GATE_JS = """
const must = (tr) => (tr.labels || []).some((label) => label.name === "tag" && label.value === "MUST");
settings.qualityGate = {
  rules: [
    { id: "MUST failures", maxFailures: 0, filter: (tr) => must(tr) && tr.status === "failed" },
    { id: "MUST not judged", maxFailures: 0, filter: (tr) => must(tr) && tr.status === "broken" },
  ],
};
export default settings;
"""
GATE_FILE = "quality-gate.json"  # the gate's results, beside summary.json
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
    the report is named after the run's verdict (allure_extras.report_title) and the
    harness's gate is evaluated as its quality gate (QUALITY_GATE_JS, quality-gate.json).
    """
    from conformance.reporting.allure_extras import allure3_categories, carry_history, report_title

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
    command = [node, str(_RENDER_SCRIPT), str(tools), str(config), str(results), str(gate)]
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
    index.write_text(_ANALYTICS.sub("", index.read_text(encoding="utf-8")), encoding="utf-8")
    return index
