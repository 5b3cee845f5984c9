"""How the project's own tests are spread over xdist workers (`pytest -n auto tests`).

Their lengths differ by four orders of magnitude: a fault meta-test's runs take up to a
minute, most tests a few milliseconds. xdist's default ("load") hands each worker a queue
at the start and never takes it back, so one worker can be left working through a queue
of whole-run tests while the other has nothing left: measured, one of two workers idle
for the last 316 s of a 915 s run. With work stealing an idle worker takes pending tests
from a busy one. A `--dist` other than the default is left as given.

The checkout's modules are byte-compiled once before the tests (`pytest_configure`): the
tests start a few hundred processes (runs, their workers, mocks), and with
PYTHONDONTWRITEBYTECODE set, as on CI machines, each one parsed and compiled them again
(about 0.7 s of a 2.8 s run that selects nothing).

`-n auto` starts one worker more than there are cores (`pytest_xdist_auto_num_workers`): many
tests wait -- on a misbehaving server's drip, a deadline, a signal, a mock's clock -- and
leave their core idle. Measured on two cores (`CI=true .venv/bin/pytest -n N tests`, the
same tree): 806 s and 1,387 CPU-seconds with two workers, 762 s and 1,457 with three. Each
test takes longer, the whole takes less.

The tests that start whole runs go first (HEAVY_FIRST, measured with `--durations`): a
long test started last keeps one worker busy while the others have nothing left. And they
are dealt out (`dealt`): work stealing first hands each worker a contiguous share of the
collection (the first third to the first worker...) and an idle worker later steals the
end of another's queue. With the whole-run tests merely first, all of them fell into the
first worker's share and ran one after another there (seen: its last one still running
four minutes after the others had run out). Dealt, each worker's share starts with its
third of them and ends with light tests, the ones that get stolen.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from session_files import in_memory_root
from xdist_shares import dealt


@pytest.hookimpl(optionalhook=True)  # unknown without xdist (-p no:xdist)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # the user's number, which xdist reads itself
    return (os.cpu_count() or 1) + 1


# Files whose tests start whole runs, longest first (order only: every test is independent).
HEAVY_FIRST = ("test_contributing_recipe.py", "test_fault_catalogue.py", "test_concurrent_verdicts.py",
               "test_misbehaving_runs.py", "test_variants.py", "test_docs_site.py", "test_side_by_side.py",
               "test_root_causes.py", "test_hostile_servers.py",
               "test_report_first_screen.py", "test_installed_tool.py", "test_slow_services.py",
               "test_coverage_verdict.py", "test_parallel_verdicts.py", "test_safety_by_construction.py",
               "test_reproducible_runs.py", "test_passive_traffic.py", "test_proxy.py",
               "test_prism_address.py", "test_environment_matrix.py", "test_contract_auth_probes.py",
               "test_contract_pass.py", "test_readme_commands.py", "test_no_secret_in_reports.py",
               "test_any_description.py", "test_address_blocked.py")

# Whole-run files whose module-scoped fixture is costly (a wheel built and installed, a
# server counting requests across tests, three environments' runs, Prism): dealt as one unit, built
# by one worker.
KEEP_TOGETHER = ("test_installed_tool.py", "test_coverage_verdict.py", "test_environment_matrix.py",
                 "test_prism_address.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The fault meta-test's batches are named after their first fault: every fault of a batch
    # is a keyword of its test, so `-k <fault>` selects the batch that proves it (CONTRIBUTING.md).
    for item in items:
        batch = getattr(getattr(item, "callspec", None), "params", {}).get("batch")
        if batch is not None and hasattr(batch, "faults"):
            item.extra_keyword_matches.update(fault.name for fault in batch.faults)
    rank = {name: index for index, name in enumerate(HEAVY_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    items[:] = dealt(items, workers, lambda item: unit(item, rank))


def unit(item: pytest.Item, rank: dict[str, int]) -> str | None:
    """How a test is dealt: light (None), alone (its node id) or with its module (KEEP_TOGETHER)."""
    name = item.path.name
    if name not in rank:
        return None
    return name if name in KEEP_TOGETHER else item.nodeid


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # unknown without xdist (-p no:xdist)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return  # the controller compiles, once
    import compileall
    import tempfile

    if root := in_memory_root():
        config.stash[SESSION_ROOT] = root
        os.environ["TMPDIR"] = root  # tmp_path, and every process the tests start, inherit it
        tempfile.tempdir = None  # read TMPDIR again
    # The runs of a test session keep the failing examples they find (the README's "The same
    # verdict twice") in a folder of their own: none replays what another session found.
    os.environ.setdefault("CONFORMANCE_FINDINGS_DIR", tempfile.mkdtemp(prefix="conformance-findings-"))

    from conformance.paths import CHECKOUT

    if CHECKOUT is None:
        return
    for folder in ("conformance", "suites", "benchmarks", "tests"):
        compileall.compile_dir(CHECKOUT / folder, quiet=2)


SESSION_ROOT = pytest.StashKey[str]()  # tests/session_files.py says why, and where


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    root = session.config.stash.get(SESSION_ROOT, None)
    if root is None:
        return
    if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    else:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"the session's files are kept in {root} (in memory, until a later "
                                "session fails; remove it when done)")
