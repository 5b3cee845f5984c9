"""Render allure-results into one self-contained HTML file with Allure 3 (Node.js, no Java).

The Node tools live in the checkout's tools/node_modules (installed by `npm ci --prefix
tools`), or for an installed copy in $CONFORMANCE_NODE_TOOLS/node_modules. When they are
missing, the run still has its allure-results, junit.xml and summary.json.
"""

from __future__ import annotations

import json
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


def render_allure_html(report_dir: Path, *, timeout_s: float = 120.0) -> Path | None:
    """allure-report/index.html for a run, or None (no Node tools, no results, Allure failed).

    The previous run's history is carried over first (trends across runs), the categories
    of allure-results/categories.json go into Allure 3's config (where it reads them), and
    the test tree is grouped by API (epic), then endpoint or flow (feature), then rule (story).
    """
    from conformance.reporting.allure_extras import allure3_categories, carry_history

    node = shutil.which("node")
    results = report_dir / "allure-results"
    cli = allure_cli()
    if node is None or cli is None or not results.is_dir():
        return None
    out = report_dir / "allure-report"
    history = carry_history(report_dir)
    config = report_dir / "allurerc.json"
    settings: dict[str, Any] = {
        "name": f"registry-conformance {report_dir.name}",
        "output": str(out),
        "historyPath": str(history),
        "historyLimit": HISTORY_LIMIT,
        "plugins": {"awesome": {"options": {
            "singleFile": True, "reportName": report_dir.name, "groupBy": ["epic", "feature", "story"],
        }}},
    }
    categories = allure3_categories(results)
    if categories:
        settings["categories"] = {"rules": categories}
    command = [node, str(cli), "generate", str(results), "--config", str(config)]
    for attempt in ("with history", "without history"):
        config.write_text(json.dumps(settings, indent=2))
        try:
            subprocess.run(command, check=True, capture_output=True, timeout=timeout_s, cwd=report_dir)
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
