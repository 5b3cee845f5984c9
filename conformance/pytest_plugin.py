"""The pytest plugin (entry point `pytest11`): `pytest suites --profile NAME|PATH` works as the CLI does.

Responsibilities, in order of a run:
  1. configure (controller): load the profile, switch faults on, start the mock servers the
     profile asks for, probe real environments (exit 3 when unreachable), choose the report
     directory and the fuzzing seed; hand all of it to xdist workers in memory;
  2. collection: every test in suites/ names one registered check; it gets Allure labels
     and links, and is skipped when the profile's safety switches forbid it;
  3. each test: exchanges are recorded (redacted) and attached; its outcome becomes a
     summary entry (the outcome model is in conformance/reporting/summary.py): a Finding is
     `failed`, `Blocked` is `blocked`, NotApplicable is `not_applicable`, NotJudged (missing
     material, a spent budget) and a safety switch are `not_judged` (all three reported to
     pytest, JUnit and Allure as skipped, with the reason prefixed "blocked:", "not
     applicable:" or "not judged:"), an observation check's value (or what it found) is
     `observation`;
  4. session end (controller): summary.json, root causes, the verdict, and the exit code.
"""

from __future__ import annotations

import gc
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from conformance import run_control, run_progress, side_by_side
from conformance import run_outcomes as outcomes
from conformance import run_setup as setup
from conformance.auth.login import LoginError
from conformance.catalogue import SENDS, Severity, check_by_id
from conformance.errors import HarnessError, NotApplicable, NotJudged, UnreachableError
from conformance.findings import Blocked, Finding
from conformance.http import evidence as report_evidence
from conformance.http.client import Recorder
from conformance.http.redaction import Redactor
from conformance.http.stops import Stopped
from conformance.last_tests import LastTests
from conformance.paths import SUITES_DIR
from conformance.profiles import Profile, load_profile
from conformance.reporting import allure as allure_adapter
from conformance.run_context import RunContext, terminal_countdown
from conformance.run_setup import RunState
from conformance.xdist_order import by_severity, spread_slow_first

_STATE = pytest.StashKey["RunState"]()
_RECORDER = pytest.StashKey[Recorder]()
_RUN = pytest.StashKey[RunContext]()
_STARTED = pytest.StashKey[dict]()  # what the controller started (mocks, reference mocks): stopped at the end
_GATE = pytest.StashKey[Any]()
_STOPPED = pytest.StashKey[tuple]()

# What a check sends is its declaration's (`sends`); each kind is also a mark, to select with -m.
MARKERS = {**{kind: f"derived from @check(sends=...): the check sends {kind}" for kind in SENDS},
    "check(id)": "the declared check this test judges (exactly one per test in suites/: @check(...) applies it)",
    "mock_only": "needs control of the local mock (skipped against real environments)",
    "seed_operation(name)": "the seed operation (part 4) a contract test fuzzes, found in the description by path",
}


# --------------------------------------------------------------------------- options
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "registry conformance harness")
    group.addoption("--profile", default="local-mock", help="profile name or path to a profile TOML (default: local-mock)")
    group.addoption("--mock-fault", action="append", default=[], metavar="NAME", help="switch a fault of the catalogue on in the mock servers (repeatable)")
    group.addoption("--report-dir", default=None, help="where summary.json, junit.xml and allure-results go (default: reports/<time>-<profile>)")
    group.addoption("--traffic", action="append", default=[], metavar="HAR",
                    help="judge the exchanges of this HAR file instead of sending requests (repeatable; suites/passive)")
    group.addoption("--fuzz-max-examples", type=int, default=None, help="examples per operation for contract fuzzing (default: from the profile)")
    group.addoption("--check", action="append", default=[], metavar="ID", dest="check_ids",
                    help="run only this check (an id, or a pattern like 'soap.request.*'; repeatable)")
    group.addoption("--max-duration", type=float, default=None, metavar="SECONDS",
                    help="the run's wall-time bound: checks not run by then are blocked (default: limits.run_deadline_s)")
    group.addoption("--reference", default=None, metavar="PROFILE",
                    help="compare with this profile's environment (suites/compare; `conformance compare`)")
    group.addoption("--compare-requests", action="append", default=[], metavar="HAR",
                    help="a comparison also replays this HAR's GET requests (repeatable)")
    group.addoption("--waivers", default=None, metavar="FILE", help="accepted deviations (default: the profile's [run] waivers; conformance/reporting/waivers.py)")
    group.addoption("--fuzz-phases", default=None, metavar="PHASES", help="contract fuzzing's phases, comma-separated: examples, coverage, fuzzing, stateful (default: from the profile, all four)")
    group.addoption("--require-coverage", action="store_true", default=False,
                    help="a MUST check not judged (missing material, budget, a safety switch) makes the run exit 4")


# --------------------------------------------------------------------------- configure
@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    config.stash[_RECORDER] = Recorder()
    if hasattr(config, "workerinput"):
        if "conformance_state" not in config.workerinput:
            return  # a worker of a run that is not a conformance run (the project's own tests)
        state = RunState.from_json(config.workerinput["conformance_state"])
        _start_process(config, state)
        # xdist workers re-parse the command line: what the controller chose (Allure
        # directory, fuzzing seed) reaches them only through the handed-over state.
        if getattr(config.option, "allure_report_dir", None) is None:
            config.option.allure_report_dir = str(Path(state.report_dir) / "allure-results")
        if config.getoption("hypothesis_seed", None) is None:
            config.option.hypothesis_seed = state.seed
        _watch_and_gate(config, state, config.workerinput["workerid"])
        side_by_side.install(config, state, _declared)
        run_control.end_worker_without_teardown()
        return
    if not setup.is_conformance_run(config):
        return
    where: tuple[str, Path] | None = None  # (profile, report directory) once chosen
    setup.private_files(config)
    try:
        profile = load_profile(config.getoption("profile"))
        report_dir = Path(config.getoption("report_dir") or setup.default_report_dir(profile.name)).resolve()
        where = (profile.name, report_dir)
        waivers = setup.read_waivers(config, profile)  # a malformed file: exit 2, now
        config.stash[_STARTED] = started = {}
        state = setup.prepare_run(config, profile, report_dir, started)
        run = _start_process(config, state, cluster=started.get("cluster"))
        setup.record_probes(config, profile, state, run)
        silent = setup.check_credentials(config, profile, state, run)  # a refused key or secret: exit 2 naming it
        # A service that gave no answer in time would make the samples wait as long: its checks say why.
        if "address" not in silent and setup.needs_sample_validation(config, profile, state):
            setup.validate_samples(profile, state, run)
    except HarnessError as exc:
        _stop_cluster(config)
        if isinstance(exc, UnreachableError) and where is not None:
            setup.write_unreachable_summary(*where, exc)
        pytest.exit(f"conformance: {exc}", returncode=int(exc.exit_code))
    summary = setup.summary_of(profile, state)
    config.pluginmanager.register(outcomes.SummaryCollector(summary, Path(state.report_dir), waivers), "conformance-summary")
    _watch_and_gate(config, state, "main")
    run_progress.install(config, run, state, profile)
    if not setup.runs_workers(config):  # else the workers run the tests
        side_by_side.install(config, state, _declared)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHandOver(state), "conformance-xdist")


def _start_process(config: pytest.Config, state: RunState, *, cluster: Any = None) -> RunContext:
    """This process's share of the run: its state and the RunContext the suites' fixtures use."""
    config.stash[_STATE] = state
    setup.load_hypothesis_profile(state)
    run = RunContext(state, load_profile(state.profile_ref), config.stash[_RECORDER], cluster=cluster,
                     countdown=terminal_countdown(config),
                     process=getattr(config, "workerinput", {}).get("workerid", "main"))
    config.stash[_RUN] = run
    return run


def _watch_and_gate(config: pytest.Config, state: RunState, process: str) -> None:
    """This process's watch of the address answers (address.response.schema_valid) and its
    gate of the run's deadline and signals (conformance/run_control.py)."""
    watch = setup.response_schema_watch(state, process)
    if watch is not None:
        config.pluginmanager.register(watch, "conformance-response-schema")
    if not state.traffic:  # the tests that judge what the rest of the run sent go last
        config.pluginmanager.register(LastTests(state.report_dir, process, SUITES_DIR,
                                                         lambda item: item.stash.get(_SENDS, ())), "conformance-last")
    gate = setup.stop_gate(state)
    if gate is not None:
        config.stash[_GATE] = gate
        config.pluginmanager.register(gate, "conformance-stop-gate")


class _XdistHandOver:
    def __init__(self, state: RunState) -> None:
        self._state = state

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput["conformance_state"] = self._state.to_json()


def pytest_unconfigure(config: pytest.Config) -> None:
    gate = config.stash.get(_GATE, None)
    if gate is not None:
        gate.uninstall_signals()
    _stop_cluster(config)
    state = config.stash.get(_STATE, None)
    if state is not None and state.schedule_dir and not hasattr(config, "workerinput"):
        import shutil

        shutil.rmtree(state.schedule_dir, ignore_errors=True)


def _stop_cluster(config: pytest.Config) -> None:
    started = config.stash.get(_STARTED, {})
    for key in ("cluster", "reference"):
        cluster = started.pop(key, None)
        if cluster is not None:
            cluster.stop()


# --------------------------------------------------------------------------- collection
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    profile = load_profile(state.profile_ref)
    wanted = setup.wanted_checks(config.getoption("check_ids"))
    deselected = []
    for item in items:
        if SUITES_DIR not in Path(str(item.path)).parents:
            continue
        marks = list(item.iter_markers("check"))
        if len(marks) != 1 or not marks[0].args:
            raise pytest.UsageError(f"{item.nodeid}: a suite test must carry exactly one @pytest.mark.check('<id>')")
        check = check_by_id(marks[0].args[0])
        if wanted is not None and check.id not in wanted:
            deselected.append(item)
            continue
        item.stash[_CHECK_ID] = check.id
        # schemathesis renames nodes per operation while subtests run: keep the real id.
        item.stash[_TEST_ID] = item.nodeid
        allure_adapter.label_item(item, check)
        sends = item.stash[_SENDS] = setup.test_case_sends(Path(str(item.path)), check)  # `-m fuzz`: derived marks
        [item.add_marker(kind) for kind in sends]
        forbidden = setup.forbidden_by(profile, sends)
        if forbidden is not None:  # not judged (not "not applicable"): the profile chose not to judge it
            switch, what = forbidden
            item.stash[_NOT_JUDGED] = ("not_judged", f"forbidden by safety.{switch} = false")
            item.add_marker(pytest.mark.skip(reason=f"not judged: profile {profile.name} forbids checks that "
                                                    f"{what} (safety.{switch} = false)"))
        if item.get_closest_marker("mock_only") and not profile.uses_mock:
            item.add_marker(pytest.mark.skip(reason="needs control of the local mock"))
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item not in deselected]
    if profile.limits.request_budget or profile.limits.daily_quota_reserve:
        items[:] = by_severity(items, _severity)  # a budget goes to MUST checks first
    workers = int(getattr(config, "workerinput", {}).get("workercount", 0))
    # Long: contract fuzzing, but a group judged on a contract pass (suites/address/conftest.py: last).
    long = lambda i: "fuzz" in i.stash.get(_SENDS, ()) and "judged_on_contract_pass" not in i.fixturenames  # noqa: E731
    items[:] = spread_slow_first(items, workers, long, getattr(config.option, "maxschedchunk", None))


def _declared(item: pytest.Item) -> tuple[str | None, tuple[str, ...]]:  # its check and what it sends
    return item.stash.get(_CHECK_ID, None), item.stash.get(_SENDS, ())


def _severity(item: pytest.Item) -> Any:  # the item's check's, None for another test
    check_id = item.stash.get(_CHECK_ID, None)
    return check_by_id(check_id).severity if check_id else None


_CHECK_ID = pytest.StashKey[str]()
_TEST_ID = pytest.StashKey[str]()
_OBSERVED = pytest.StashKey[list]()
_NOT_JUDGED = pytest.StashKey[tuple]()
_SENDS = pytest.StashKey[tuple]()  # what the test case sends (run_setup.test_case_sends)


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def conformance_state(pytestconfig: pytest.Config) -> RunState:
    state = pytestconfig.stash.get(_STATE, None)
    if state is None:
        pytest.skip("not a conformance run (collect from suites/ to start one)")
    return state


@pytest.fixture(scope="session")
def profile(conformance_state: RunState) -> Profile:
    return load_profile(conformance_state.profile_ref)


@pytest.fixture(scope="session")
def run_context(pytestconfig: pytest.Config, conformance_state: RunState) -> RunContext:
    """What this process of the run shares with the suites' fixtures (conformance/run_context.py)."""
    return pytestconfig.stash[_RUN]


@pytest.fixture(scope="session")
def redactor(run_context: RunContext) -> Redactor:
    """The process's redactor (conformance/http/redaction.py), which the report hook uses too."""
    return run_context.redactor


@pytest.fixture
def observe(request: pytest.FixtureRequest):
    """Record the measured value of an observation check: observe(value, unit=None)."""
    values: list[Any] = request.node.stash.setdefault(_OBSERVED, [])

    def record(value: Any, *, unit: str | None = None, once_per: str | None = None) -> None:
        if once_per is not None:  # one value per key (a generated test runs many examples)
            if any(isinstance(v, dict) and v.get("_key") == once_per for v in values):
                return
            value = {"_key": once_per, "value": value}
        values.append({"value": value, "unit": unit} if unit else value)

    return record


@pytest.fixture
def evidence(pytestconfig: pytest.Config):
    """Attach exchanges to the current test's evidence (a passive check's offending exchanges)."""
    recorder = pytestconfig.stash[_RECORDER]
    return lambda exchanges: [recorder.show(ex) for ex in exchanges]


# --------------------------------------------------------------------------- running
# The run's heap before its first test (pytest, the plugins, the harness, the collected
# items and the description: about 180 000 objects) lives until the end; without this every
# full collection walks it again. Generation makes objects by the million, nearly all freed
# by reference counting, so the youngest generation is collected after 10 000 net
# allocations instead of 700. Together about 0.3 s less garbage collection in a fuzzing run
# of 1300 requests (benchmarks/harness_overhead.py); what a cycle holds waits a little longer.
_GC_THRESHOLD = (10_000, 10, 10)


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session):
    if _STATE not in session.config.stash:  # not a conformance run (the project's own tests)
        return (yield)
    allure_adapter.write_only_shown_containers()
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*_GC_THRESHOLD)
    try:
        return (yield)
    finally:  # as it was: a run may be one call in a longer process (tests call `main`)
        gc.set_threshold(*threshold)
        gc.unfreeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    # Start the test's evidence here, so requests its fixtures make are attached too.
    recorder = item.config.stash.get(_RECORDER, None)
    if recorder is not None:
        recorder.clear()
    if _CHECK_ID not in item.stash:  # not a check of suites/ (the project's own tests)
        return (yield)
    try:
        return (yield)
    except (NotApplicable, NotJudged, Blocked) as exc:  # a fixture found no sample, or its flow failed
        _not_judged(item, exc)
    except LoginError as exc:
        _not_judged(item, outcomes.login_blocked(exc))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    recorder = item.config.stash.get(_RECORDER, None)
    if _CHECK_ID not in item.stash:  # not a check of suites/ (the project's own tests)
        return (yield)
    try:
        return (yield)
    except (NotApplicable, NotJudged, Blocked) as exc:
        _not_judged(item, exc)
    except LoginError as exc:
        _not_judged(item, outcomes.login_blocked(exc))
    except Finding as exc:
        if _CHECK_ID not in item.stash or check_by_id(item.stash[_CHECK_ID]).severity is not Severity.OBSERVATION:
            report_evidence.tag_cause(exc.cause, item.config.stash[_RUN].redactor.text)
            raise
        # An observation never fails: what it found is the observed value.
        item.stash.setdefault(_OBSERVED, []).append({"finding": str(exc)})
    finally:
        if recorder is not None and _CHECK_ID in item.stash:
            exchanges = recorder.take()
            item.config.stash[_RUN].traffic_log().write(exchanges)  # what this test sent, once
            report_evidence.attach_exchanges(exchanges + recorder.take_shown())
            for value in item.stash.get(_OBSERVED, []):
                report_evidence.attach_observation(value)


def _not_judged(item: pytest.Item, exc: NotApplicable | NotJudged | Blocked) -> None:
    """Report the check to pytest (so JUnit and Allure) as skipped, the reason prefixed with
    which; `from None`, or rendering the message walks `exc`'s frames (a tenth of a run)."""
    if isinstance(exc, Blocked):
        item.stash[_NOT_JUDGED] = ("blocked", exc.cause)
        if isinstance(exc, Stopped):
            item.stash[_STOPPED] = (exc.stop, exc.unreachable)
        report_evidence.tag_cause(exc.cause, item.config.stash[_RUN].redactor.text)
    elif isinstance(exc, NotJudged):
        item.stash[_NOT_JUDGED] = ("not_judged", exc.what)  # the coverage line groups by `what`
    else:
        item.stash[_NOT_JUDGED] = ("not_applicable", None)
    raise pytest.skip.Exception(f"{item.stash[_NOT_JUDGED][0].replace('_', ' ')}: {exc}") from None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report: pytest.TestReport = yield
    check_id = item.stash.get(_CHECK_ID, None)
    if check_id is None:
        return report
    run = item.config.stash.get(_RUN, None)
    if run is not None:  # before anything reads them: Allure, JUnit, the console, summary.json
        outcomes.redact_report(report, call, run.redactor)
    deciding = call.when == "call" or (call.when == "setup" and not report.passed)
    if not deciding:
        return report
    entry = outcomes.decide(check_by_id(check_id), item.stash.get(_TEST_ID, item.nodeid), report, call,
                            not_judged=item.stash.get(_NOT_JUDGED, ("skipped", None)),
                            stopped=item.stash.get(_STOPPED, (None, False)), observed=item.stash.get(_OBSERVED, []))
    entry_json = json.dumps(asdict(entry), default=str)
    report.conformance_entry = run.redactor.text(entry_json) if run is not None else entry_json  # type: ignore[attr-defined]
    return report
