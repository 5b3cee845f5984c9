"""A conformance run tunes the garbage collector for its tests only (conformance/pytest_plugin.py,
pytest_runtestloop): the heap built before the first test is frozen and the youngest
generation is collected less often; after the tests both are as they were, because a run
may be one call of `main` in a longer process. A probe plugin reads the collector's state
inside a check and after the test loop."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from conformance.paths import CHECKOUT as REPO_ROOT

PROBE = '''
import gc, json, os
import pytest

SEEN = {"before": [list(gc.get_threshold()), gc.get_freeze_count()]}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    SEEN["during"] = [list(gc.get_threshold()), gc.get_freeze_count()]
    return (yield)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    SEEN["after"] = [list(gc.get_threshold()), gc.get_freeze_count()]
    with open(os.environ["GC_PROBE_OUT"], "w") as out:
        json.dump(SEEN, out)
'''


def test_a_run_tunes_the_collector_for_its_tests_and_restores_it(tmp_path: Path) -> None:
    (tmp_path / "gc_probe.py").write_text(PROBE)
    out = tmp_path / "seen.json"
    env = {**os.environ, "GC_PROBE_OUT": str(out),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "-n", "0", "--no-html",
         "--report-dir", str(tmp_path / "run"), "--max-examples", "2", "--",
         "-p", "gc_probe", "-k", "test_contract and test_bevraagAdressen and not MetNumId"],
        capture_output=True, text=True, timeout=300, cwd=REPO_ROOT, env=env)
    assert out.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    seen = json.loads(out.read_text())
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert [e["check"] for e in summary["checks"]] == ["address.contract.bevraagAdressen"], summary["checks"]
    default_threshold, unfrozen = seen["before"]
    assert unfrozen == 0
    threshold, frozen = seen["during"]
    assert threshold == [10_000, 10, 10]
    assert frozen > 10_000, "the heap built before the first test is frozen"
    assert seen["after"] == [default_threshold, 0]
    assert default_threshold == list(gc.get_threshold())  # the interpreter's own default, as here
