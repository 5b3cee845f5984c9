"""Render allure-results into one self-contained HTML file with Allure 3 (Node.js, no Java).

The Node tools live in tools/node_modules (installed by `npm ci --prefix tools`). When
they are missing, the run still has its allure-results, junit.xml and summary.json.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from conformance.profiles import REPO_ROOT

ALLURE_CLI = REPO_ROOT / "tools" / "node_modules" / "allure" / "cli.js"
# Every Allure report embeds an analytics tag that can only fail offline: strip it.
_ANALYTICS = re.compile(r"<script[^>]*googletagmanager[^>]*>\s*</script>", re.IGNORECASE)


def render_allure_html(report_dir: Path, *, timeout_s: float = 120.0) -> Path | None:
    node = shutil.which("node")
    results = report_dir / "allure-results"
    if node is None or not ALLURE_CLI.is_file() or not results.is_dir():
        return None
    out = report_dir / "allure-report"
    config = report_dir / "allurerc.json"
    config.write_text(json.dumps({
        "name": f"registry-conformance {report_dir.name}",
        "output": str(out),
        "plugins": {"awesome": {"options": {"singleFile": True, "reportName": report_dir.name}}},
    }))
    try:
        subprocess.run(
            [node, str(ALLURE_CLI), "generate", str(results), "--config", str(config)],
            check=True, capture_output=True, timeout=timeout_s, cwd=report_dir,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return None
    index = out / "index.html"
    if not index.is_file():
        return None
    index.write_text(_ANALYTICS.sub("", index.read_text(encoding="utf-8")), encoding="utf-8")
    return index
