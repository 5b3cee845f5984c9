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

import contextlib
import gc
import json
import random
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from conformance.auth.login import LoginError
from conformance.checks.finding import Blocked, Finding
from conformance.checks.registry import Severity, check_by_id
from conformance.errors import ConfigError, ExitCode, HarnessError, NotApplicable, NotJudged, UnreachableError
from conformance.http.address import AddressApi
from conformance.http.client import Recorder, probe
from conformance.http.redaction import Redactor
from conformance.http.stops import Stopped
from conformance.mocks import faults as fault_catalogue
from conformance.paths import SUITES_DIR, reports_dir
from conformance.profiles import Profile, load_profile, read_secret
from conformance.reporting import allure as allure_adapter
from conformance.reporting.summary import Entry, Summary
from conformance.xdist_order import by_severity, spread_slow_first

_STATE = pytest.StashKey["RunState"]()
_REPORT_DIR = pytest.StashKey[tuple]()
_RECORDER = pytest.StashKey[Recorder]()
_CLUSTER = pytest.StashKey[Any]()
_REFERENCE_CLUSTER = pytest.StashKey[Any]()  # a comparison's reference mocks (conformance/compare/reference.py)
_GATE = pytest.StashKey[Any]()
_STOPPED = pytest.StashKey[tuple]()

MARKERS = {
    "check(id)": "the registered check this test implements (exactly one per test in suites/)",
    "negative": "sends invalid input on purpose (skipped when the profile forbids it)",
    "flood": "exceeds rate limits or quotas on purpose (skipped when the profile forbids it)",
    "fuzz": "generated requests (skipped when the profile forbids fuzzing)",
    "mock_only": "needs control of the local mock (skipped against real environments)",
    "waits": "moves the clock: instant on the mock, real-time waits elsewhere (opt-in: safety.waits)",
    "seed_operation(name)": "the seed operation (part 4) a contract test fuzzes, found in the description by path",
}


@dataclass
class RunState:
    """Everything a worker needs to know about the run, serialisable for xdist."""

    profile_ref: str
    faults: list[str]
    report_dir: str
    seed: int
    max_examples: int = 25
    urls: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)  # env var name -> value
    samples: dict[str, dict[str, str]] = field(default_factory=dict)
    schedule_dir: str = ""  # the run's shared pacing schedules (conformance/http/schedule.py)
    shared_schedule: bool = True  # False: the run is one process, its schedules stay in memory
    traffic: list[str] = field(default_factory=list)  # HAR files a passive run judges
    # Samples discover verified that miss their contract now: sample -> what changed.
    sample_regressions: dict[str, str] = field(default_factory=dict)
    unobserved: list[str] = field(default_factory=list)  # a passive run: services without traffic
    # The run deadline (wall-clock, the same for every process; conformance/run_control.py).
    deadline_s: float = 0.0
    deadline_at: float = 0.0
    # A comparison (`--reference`): the reference side (conformance/compare/reference.py)
    # and the HAR files whose requests it replays.
    reference: dict[str, Any] = field(default_factory=dict)
    compare_requests: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RunState:
        return cls(**json.loads(text))


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
        config.stash[_STATE] = state
        # xdist workers re-parse the command line: what the controller chose (Allure
        # directory, fuzzing seed) reaches them only through the handed-over state.
        if getattr(config.option, "allure_report_dir", None) is None:
            config.option.allure_report_dir = str(Path(state.report_dir) / "allure-results")
        if config.getoption("hypothesis_seed", None) is None:
            config.option.hypothesis_seed = state.seed
        _load_hypothesis_profile(state)
        _watch_response_schemas(config, state, config.workerinput["workerid"])
        _gate_stops(config, state)
        return
    if not _is_conformance_run(config):
        return
    try:
        state = _prepare_run(config)
    except HarnessError as exc:
        _stop_cluster(config)
        if isinstance(exc, UnreachableError):
            _write_unreachable_summary(config, exc)
        pytest.exit(f"conformance: {exc}", returncode=int(exc.exit_code))
    config.stash[_STATE] = state
    _load_hypothesis_profile(state)
    summary = Summary(profile=load_profile(state.profile_ref).name, seed=state.seed if not state.traffic else None,
                      faults=state.faults, traffic=list(state.traffic))
    summary.targets = dict(state.urls)
    if state.reference:
        summary.reference = {"profile": state.reference["name"], "url": state.reference["url"]}
    summary.sample_regressions = dict(state.sample_regressions)
    summary.unobserved = [_SERVICE_TITLES.get(name, name) for name in state.unobserved]
    config.pluginmanager.register(_SummaryCollector(summary, Path(state.report_dir)), "conformance-summary")
    _watch_response_schemas(config, state, "main")
    _gate_stops(config, state)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHandOver(state), "conformance-xdist")


def _watch_response_schemas(config: pytest.Config, state: RunState, process: str) -> None:
    """This process's part of address.response.schema_valid (next to the check, in
    conformance/checks/address/response_schema_watch.py): every address answer it receives."""
    if state.traffic or load_profile(state.profile_ref).address is None:
        return
    from conformance.checks.address.response_schema_watch import ResponseSchemaWatch

    config.pluginmanager.register(ResponseSchemaWatch(state.report_dir, process), "conformance-response-schema")


def _gate_stops(config: pytest.Config, state: RunState) -> None:
    """The run's deadline and SIGINT/SIGTERM stop this process's checks (conformance/run_control.py)."""
    if state.traffic or not state.schedule_dir:
        return
    from conformance.run_control import StopGate

    gate = StopGate(_run_stop(state))
    gate.install_signals()
    config.stash[_GATE] = gate
    config.pluginmanager.register(gate, "conformance-stop-gate")


def _run_stop(state: RunState):
    from conformance.run_control import run_stop

    return run_stop(state.schedule_dir, state.deadline_at or None, state.deadline_s or None)


def _service_bounds(state: RunState, profile: Profile, service: str):
    from conformance.run_control import service_bounds

    return service_bounds(_run_stop(state), state.schedule_dir, state.shared_schedule, service,
                          _SERVICE_TITLES.get(service, service), concurrency=profile.limits.concurrency,
                          breaker_failures=profile.limits.breaker_failures, deadline_s=profile.limits.deadline_s)


def _load_hypothesis_profile(state: RunState) -> None:
    """The run's example budget, for every generated test that does not set its own."""
    from hypothesis import settings

    settings.register_profile("conformance-run", max_examples=state.max_examples, deadline=None)
    settings.load_profile("conformance-run")


def _is_conformance_run(config: pytest.Config) -> bool:
    """Only runs that collect from suites/ start mocks and write summaries.

    The project's own tests (tests/) also load this plugin; they must stay untouched.
    """
    args = [Path(a.split("::")[0]).resolve() for a in config.args] or [Path.cwd()]
    return any(a == SUITES_DIR or SUITES_DIR in a.parents or a in SUITES_DIR.parents for a in args)


def _prepare_run(config: pytest.Config) -> RunState:
    profile = load_profile(config.getoption("profile"))
    fault_set = fault_catalogue.resolve(config.getoption("mock_fault"))
    if fault_set.names and not profile.uses_mock:
        raise ConfigError(f"--mock-fault needs a profile that starts mock servers; {profile.name} starts none")
    report_dir = Path(config.getoption("report_dir") or _default_report_dir(profile.name)).resolve()
    make_report_dir(report_dir)
    config.stash[_REPORT_DIR] = (profile.name, report_dir)
    if getattr(config.option, "xmlpath", None) is None:
        config.option.xmlpath = str(report_dir / "junit.xml")
    if getattr(config.option, "allure_report_dir", None) is None:
        config.option.allure_report_dir = str(report_dir / "allure-results")
        config.option.clean_alluredir = True
    if config.getoption("traffic"):
        return _prepare_passive(config, profile, report_dir)
    comparing = bool(config.getoption("reference"))
    if profile.address is not None and not comparing:  # from the run's first address answer on: the samples' validation
        from conformance.openapi import responses

        responses.start()
    # Every secret the profile names is resolved before the first request: a missing one
    # is a configuration error naming the variable and the key, never a check skipped later.
    secrets = resolve_secrets(profile)
    if profile.address is not None:  # a description that cannot be loaded: exit 2 naming it
        from conformance.openapi.loader import load_schema

        load_schema(profile.address, profile.address.base_url or "http://127.0.0.1/")
    seed = config.getoption("hypothesis_seed", None)
    if seed is None:
        seed = profile.fuzz.seed if profile.fuzz.seed is not None else random.SystemRandom().randrange(2**32)
        config.option.hypothesis_seed = seed
    state = RunState(
        profile_ref=str(profile.path), faults=sorted(fault_set.names), report_dir=str(report_dir), seed=int(seed),
        max_examples=config.getoption("fuzz_max_examples") or profile.fuzz.max_examples,
    )
    for name, service in profile.services.items():
        if not service.mock:
            assert service.base_url is not None
            client_cert, client_key = getattr(service, "client_cert", None), getattr(service, "client_key", None)
            probe(service.base_url, timeout_s=min(service.timeout_s, 10.0, profile.limits.deadline_s),
                  cert=(client_cert, client_key) if client_cert and client_key else None,
                  verify=getattr(service, "ca_file", None) or True)
            state.urls[name] = service.base_url
    if profile.uses_mock:
        from conformance.mocks.launcher import MockCluster

        cluster = MockCluster(profile, fault_set)
        config.stash[_CLUSTER] = cluster
        state.urls.update(cluster.start())
        state.secrets.update(cluster.secrets)
        state.samples.update(cluster.samples)
    state.secrets.update(secrets)
    import tempfile

    state.schedule_dir = tempfile.mkdtemp(prefix="conformance-schedule-")
    from conformance.run_control import deadline_of

    state.deadline_s, state.deadline_at = deadline_of(config.getoption("max_duration"), profile.limits.run_deadline_s)
    state.shared_schedule = _runs_workers(config)  # one process keeps its schedule in memory (run_schedule)
    for name in state.urls:  # the probe was the service's first request: the budget counts it (issue 34)
        if name in profile.services and not profile.services[name].mock:
            run_schedule(state, name).reserve(0.0, 0, paced=False)
    if comparing:  # the requests are built from the reference's samples: the vendor's are not used
        from conformance.compare.reference import prepare_reference

        state.reference, config.stash[_REFERENCE_CLUSTER] = prepare_reference(config.getoption("reference"),
                                                                             resolve_secrets)
        state.compare_requests = [str(Path(har).resolve()) for har in config.getoption("compare_requests")]
        return state
    address = profile.address
    if address is not None and address.samples and address.verify_samples and "address" in state.urls \
            and _runs_suite(config, "address"):
        _validate_samples(profile, state)
    return state


def _prepare_passive(config: pytest.Config, profile: Profile, report_dir: Path) -> RunState:
    """Judging recorded traffic: nothing is started, probed or sent. Secrets the profile
    names are not needed (the HAR holds what was sent); those that are set are masked too."""
    import os

    from conformance.passive.har import read_har

    files = [str(Path(f).resolve()) for f in config.getoption("traffic")]
    for file in files:
        if not Path(file).is_file():
            raise ConfigError(f"HAR file {file} does not exist")
        read_har(file)  # a file that is no HAR: exit 2 naming it, before any check
    state = RunState(profile_ref=str(profile.path), faults=[], report_dir=str(report_dir), seed=0, traffic=files)
    for service in profile.services.values():
        for env_var in getattr(service, "secret_env", {}).values():
            if os.environ.get(env_var):
                state.secrets[env_var] = os.environ[env_var]
    # Nothing observed is no pass: a service of the profile without one exchange in the traffic.
    from conformance.passive.traffic import load_traffic

    traffic = load_traffic(files, profile, Redactor(state.secrets.values()))
    state.unobserved = [name for name in profile.services if not getattr(traffic, name)]
    return state


def _runs_suite(config: pytest.Config, suite: str) -> bool:
    target = SUITES_DIR / suite
    args = [Path(a.split("::")[0]).resolve() for a in config.args] or [Path.cwd()]
    return any(a == target or target in a.parents or a in target.parents for a in args)


def _validate_samples(profile: Profile, state: RunState) -> None:
    """Every sample the profile names meets its contract, or the run stops here (exit 2)
    naming the sample and what it lacks: a wrong sample is no conformance failure. A sample
    `conformance discover` verified before that misses it now is the environment's change:
    the run goes on and the report says so (conformance.samples.session.validate)."""
    import sys

    from conformance.samples.session import address_api, getter, validate

    api = address_api(profile, state.urls["address"], state.secrets, schedule=run_schedule(state, "address"),
                      bounds=_service_bounds(state, profile, "address"))
    try:
        state.sample_regressions = validate(profile, getter(api),
                                            log=lambda line: print(f"conformance: {line}", file=sys.stderr))
    except Stopped as stopped:  # the address API stopped answering: its checks will be blocked for it
        print(f"conformance: samples not validated: {stopped.stop}", file=sys.stderr)
    finally:
        api.close()


def resolve_secrets(profile: Profile) -> dict[str, str]:
    """env var -> value for every secret the profile names for a real service."""
    out: dict[str, str] = {}
    for name, service in profile.services.items():
        if service.mock:
            continue
        for secret, env_var in getattr(service, "secret_env", {}).items():
            value = read_secret(env_var, purpose=f"{_SERVICE_TITLES.get(name, name)} {secret}, "
                                f"profile key services.{name}.secrets.{secret}")
            assert value is not None
            out[env_var] = value
    return out


_SERVICE_TITLES = {"address": "address API", "auth": "authorization server", "soap": "SOAP message service",
                   "address-reference": "reference address API"}


def make_report_dir(report_dir: Path) -> None:
    """The report directory, writable; exit 2 with a message otherwise."""
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
        probe_file = report_dir / ".writable"
        probe_file.write_text("")
        probe_file.unlink()
    except OSError as exc:
        raise ConfigError(f"report directory {report_dir} is not writable ({exc.strerror or exc})") from None


def _write_unreachable_summary(config: pytest.Config, exc: UnreachableError) -> None:
    """An unreachable environment still leaves a report directory saying so."""
    where = config.stash.get(_REPORT_DIR, None)
    if where is None:
        return
    name, report_dir = where
    summary = Summary(profile=name, stopped=f"unreachable: {exc}")
    with contextlib.suppress(OSError):
        summary.write(report_dir)


def _default_report_dir(profile_name: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return reports_dir() / f"{stamp}-{profile_name}"


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
    for key in (_CLUSTER, _REFERENCE_CLUSTER):
        cluster = config.stash.get(key, None)
        if cluster is not None:
            cluster.stop()
            del config.stash[key]


# --------------------------------------------------------------------------- collection
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    profile = load_profile(state.profile_ref)
    switches = {
        "negative": (profile.safety.negative, "send invalid input"),
        "flood": (profile.safety.flood, "exceed rate limits on purpose"),
        "fuzz": (profile.safety.fuzz, "fuzz"),
        # The mock has a clock to move; elsewhere lifetimes take real minutes to days.
        # Instant with the mock's clock or the environment's own clock hook.
        "waits": (profile.safety.waits or (profile.auth is not None and (profile.auth.mock or bool(profile.auth.clock))),
                  "wait out lifetimes in real time"),
    }
    wanted = _wanted_checks(config.getoption("check_ids"))
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
        for marker, (allowed, what) in switches.items():
            if item.get_closest_marker(marker) and not allowed:
                # Not judged, not "not applicable": the rule applies, the profile chose not to judge it.
                item.stash[_NOT_JUDGED] = ("not_judged", f"forbidden by safety.{marker} = false")
                item.add_marker(pytest.mark.skip(reason=f"not judged: profile {profile.name} forbids checks that "
                                                        f"{what} (safety.{marker} = false)"))
                break
        if item.get_closest_marker("mock_only") and not profile.uses_mock:
            item.add_marker(pytest.mark.skip(reason="needs control of the local mock"))
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item not in deselected]
    if profile.limits.request_budget or profile.limits.daily_quota_reserve:
        items[:] = by_severity(items, lambda item: _severity_of(item))  # a budget is spent on MUST checks first
    workers = int(getattr(config, "workerinput", {}).get("workercount", 0))
    items[:] = spread_slow_first(items, workers, lambda item: item.get_closest_marker("fuzz") is not None)


def _severity_of(item: pytest.Item) -> str | None:
    check_id = item.stash.get(_CHECK_ID, None)
    return str(check_by_id(check_id).severity) if check_id else None


def _wanted_checks(patterns: list[str]) -> set[str] | None:
    """The check ids `--check` selects (None: all)."""
    if not patterns:
        return None
    from conformance.checks.registry import select_checks

    try:
        return select_checks(patterns)
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None


_CHECK_ID = pytest.StashKey[str]()
_TEST_ID = pytest.StashKey[str]()
_OBSERVED = pytest.StashKey[list]()
_NOT_JUDGED = pytest.StashKey[tuple]()
_WAITS = pytest.StashKey[Any]()
_HOOK_CLOCK = pytest.StashKey[Any]()


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
def redactor(conformance_state: RunState) -> Redactor:
    return Redactor([*conformance_state.secrets.values(), *conformance_state.reference.get("secrets", {}).values()])


@pytest.fixture(scope="session")
def address_api(pytestconfig: pytest.Config, conformance_state: RunState, profile: Profile, redactor: Redactor):
    service = profile.address
    if service is None or "address" not in conformance_state.urls:
        pytest.skip(f"profile {profile.name} has no address service")
    keys = {name: conformance_state.secrets[env] for name, env in service.secret_env.items() if env in conformance_state.secrets}
    samples = {**conformance_state.samples.get("address", {}), **service.samples}
    api = AddressApi(
        service,
        base_url=conformance_state.urls["address"],
        keys=keys,
        samples=samples,
        limits=profile.limits,
        redactor=redactor,
        recorder=pytestconfig.stash[_RECORDER],
        schedule=run_schedule(conformance_state, "address"),
        bounds=_service_bounds(conformance_state, profile, "address"),
    )
    yield api
    api.close()


@pytest.fixture(scope="session")
def reference_address_api(pytestconfig: pytest.Config, conformance_state: RunState, redactor: Redactor):
    """A comparison's reference side (`--reference`): its own keys, samples, pacing and bounds."""
    reference = conformance_state.reference
    if not reference:
        pytest.skip("not a comparison (conformance compare --reference PROFILE)")
    profile = load_profile(reference["profile_ref"])
    service = profile.address
    assert service is not None  # prepare_reference refused a profile without one
    keys = {name: reference["secrets"][env] for name, env in service.secret_env.items() if env in reference["secrets"]}
    api = AddressApi(service, base_url=reference["url"], keys=keys, samples=reference["samples"],
                     limits=profile.limits, redactor=redactor, recorder=pytestconfig.stash[_RECORDER],
                     schedule=run_schedule(conformance_state, "address-reference"),
                     bounds=_service_bounds(conformance_state, profile, "address-reference"))
    yield api
    api.close()


@pytest.fixture(scope="session")
def soap_service(pytestconfig: pytest.Config, conformance_state: RunState, profile: Profile, redactor: Redactor):
    service = profile.soap
    if service is None or "soap" not in conformance_state.urls:
        pytest.skip(f"profile {profile.name} has no SOAP message service")
    from functools import partial

    from conformance.checks.soap.endpoint import SoapServiceEndpoint
    from conformance.http.client import ApiClient
    from conformance.soap import SHIPPED_WSDL

    url = conformance_state.urls["soap"]
    # [services.soap.auth]: HTTP basic credentials from the run's secrets (so the redactor
    # knows them), a TLS client certificate and the CA verifying the server from the
    # profile, or from the launcher when a mock made its own test certificates.
    made = conformance_state.samples.get("soap", {})
    options: dict[str, Any] = {"timeout_s": service.timeout_s, "limits": profile.limits.http()}
    if service.auth_kind == "basic":
        values = []
        for name in ("username", "password"):
            env_var = service.secret_env[name]
            value = conformance_state.secrets.get(env_var)
            if not value:
                raise ConfigError(f"environment variable {env_var} is not set (it holds the soap {name})")
            values.append(value)
        options["auth"] = (values[0], values[1])
    cert, key = service.client_cert or made.get("client_cert"), service.client_key or made.get("client_key")
    if service.auth_kind == "client_certificate" and cert and key:
        options["cert"] = (cert, key)
    ca_file = service.ca_file or made.get("ca_file")
    if ca_file:
        options["verify"] = ca_file
    make_client = partial(
        ApiClient,
        url,
        redactor=redactor,
        recorder=pytestconfig.stash[_RECORDER],
        pacer=worker_pacer(conformance_state, profile, "soap"),
    )
    endpoint = SoapServiceEndpoint(
        url, service.soap_action_base, Path(service.wsdl) if service.wsdl else SHIPPED_WSDL, make_client(**options),
        auth_kind=service.auth_kind, response_time_s=service.response_time_s, client_options=options,
        make_client=make_client,
    )
    yield endpoint
    endpoint.close()


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
    return lambda exchanges: [recorder.record(ex) for ex in exchanges]


@pytest.fixture(scope="session")
def observed_traffic(conformance_state: RunState, profile: Profile, redactor: Redactor):
    """The exchanges of the run's HAR files (--traffic), redacted, sorted by service."""
    if not conformance_state.traffic:
        pytest.skip("not a passive run (conformance traffic FILE.har)")
    from conformance.passive.traffic import load_traffic

    if profile.address is not None:
        redactor.add_header(profile.address.api_key_header)
    return load_traffic(conformance_state.traffic, profile, redactor)


@dataclass
class MockControls:
    cluster: Any

    def start_private(self, *, maintenance: bool = False) -> str:
        """An isolated address mock instance (same keys and data), stopped with the run."""
        return self.cluster.start_address(maintenance=maintenance)

    def start_private_auth(self) -> dict[str, str]:
        """An isolated authorization server (same clients, users and keys; its own clock)."""
        return self.cluster.start_auth()


def _cluster_for(pytestconfig: pytest.Config, profile: Profile, state: RunState):
    """(cluster, own): the run's mock cluster, or in an xdist worker, which has none, a
    private one with the run's keys, faults and JWKS publisher; the caller stops its own."""
    from conformance.mocks import faults
    from conformance.mocks.launcher import MockCluster

    cluster = pytestconfig.stash.get(_CLUSTER, None)
    if cluster is not None:
        return cluster, False
    cluster = MockCluster(profile, faults.FaultSet(frozenset(state.faults)),
                          jwks_base=state.samples.get("auth", {}).get("jwks_base"))
    cluster.secrets.update(state.secrets)
    return cluster, True


@pytest.fixture(scope="session")
def address_mock(pytestconfig: pytest.Config, profile: Profile, conformance_state: RunState):
    if not profile.uses_mock:
        pytest.skip("needs control of the local mock")
    cluster, own = _cluster_for(pytestconfig, profile, conformance_state)
    yield MockControls(cluster)
    if own:
        cluster.stop()


def _auth_flows(pytestconfig: pytest.Config, profile: Profile, info: dict[str, str], secrets: dict[str, str],
                redactor: Redactor, *, private: bool):
    from conformance.auth.browser import Browser
    from conformance.auth.flows import AuthFlows, HookClock, MockClock, RealClock
    from conformance.auth.shared_clock import ClockLedger
    from conformance.auth.targets import build_targets
    from conformance.http.client import ApiClient

    assert profile.auth is not None
    service = profile.auth
    recorder = pytestconfig.stash[_RECORDER]
    pacer = worker_pacer(pytestconfig.stash[_STATE], profile, "auth")
    api = ApiClient(info.get("auth_url") or service.base_url or "", redactor=redactor, recorder=recorder,
                    pacer=pacer, timeout_s=service.timeout_s, limits=profile.limits.http())
    clock = None
    if service.clock and not service.mock:
        # One clock hook per process: once it moved the environment's time, every later
        # assertion of the run, shared flows included, must be dated by the moved time. The
        # session's flows make it first (auth_clocked depends on auth_flows), so its client
        # lives as long as the run.
        clock = pytestconfig.stash.get(_HOOK_CLOCK, None)
        if clock is None:
            hook = service.clock
            clock = pytestconfig.stash[_HOOK_CLOCK] = HookClock(
                api, hook["url"], method=hook.get("method", "POST"), parameter=hook.get("parameter", "advance_s"),
                encoding=hook.get("encoding", "json"), ledger=ClockLedger(pytestconfig.stash[_STATE].schedule_dir))
    elif private:
        if info.get("clock") == "mock":
            clock = MockClock(api, info["auth_url"])
        else:
            clock = RealClock(_visible_countdown(pytestconfig), _wait_budget(pytestconfig, profile),
                              ledger=ClockLedger(pytestconfig.stash[_STATE].schedule_dir))
    targets = build_targets(service, info=info, secrets=secrets, clock=clock)
    flows = AuthFlows(targets, api, lambda: Browser(redactor, recorder, timeout_s=service.timeout_s, pacer=pacer,
                                                    limits=profile.limits.http()))
    return flows, api


def run_schedule(state: RunState, service: str):
    """This process's handle on the run's schedule of a service (one per process): shared
    through a locked file with the other xdist workers, or in memory when the run is this
    one process (a lock and two file operations per request saved)."""
    from conformance.http.schedule import Schedule, SharedSchedule

    if not state.schedule_dir:
        return None
    key = (state.schedule_dir, service)  # the directory is the run's own: no run takes up an earlier run's schedule
    if key not in _SCHEDULES:
        _SCHEDULES[key] = SharedSchedule(Path(state.schedule_dir) / service) if state.shared_schedule else Schedule()
    return _SCHEDULES[key]


def _runs_workers(config: pytest.Config) -> bool:
    """Whether this run hands its tests to xdist workers (-n N with N > 0, or auto)."""
    return bool(getattr(config.option, "numprocesses", None)) and getattr(config.option, "dist", "no") != "no"


_SCHEDULES: dict[tuple[str, str], Any] = {}


def worker_pacer(state: RunState, profile: Profile, service: str):
    """A pacer that keeps the profile's rate and request budget for the whole run, shared
    with the other xdist workers."""
    from conformance.http.client import Pacer

    return Pacer(profile.limits.requests_per_second, profile.limits.request_budget,
                 schedule=run_schedule(state, service), bounds=_service_bounds(state, profile, service))


def _wait_budget(config: pytest.Config, profile: Profile):
    """One budget of real-time waits per process (safety.max_wait_s)."""
    from conformance.auth.flows import WaitBudget

    budget = config.stash.get(_WAITS, None)
    if budget is None:
        budget = config.stash[_WAITS] = WaitBudget(profile.safety.max_wait_s)
    return budget


def _visible_countdown(config: pytest.Config):
    """The countdown of a real-time wait, past pytest's output capture, on the terminal."""
    from conformance.reporting.console import wait_progress

    capture = config.pluginmanager.getplugin("capturemanager")

    def show(seconds_left: float) -> None:
        if capture is None:
            wait_progress(seconds_left)
            return
        with capture.global_and_fixture_disabled():
            wait_progress(seconds_left)

    return show


@pytest.fixture(scope="session")
def auth_flows(pytestconfig: pytest.Config, conformance_state: RunState, profile: Profile, redactor: Redactor):
    """The token flows against the profile's authorization server (shared: nobody moves its clock)."""
    if profile.auth is None or "auth" not in conformance_state.urls:
        pytest.skip(f"profile {profile.name} has no authorization service")
    flows, api = _auth_flows(pytestconfig, profile, conformance_state.samples.get("auth", {}),
                             conformance_state.secrets, redactor, private=False)
    yield flows
    api.close()


@pytest.fixture(scope="module")
def auth_clocked(pytestconfig: pytest.Config, conformance_state: RunState, profile: Profile, redactor: Redactor,
                 auth_flows):
    """Flows whose clock a check may move: a private mock instance with its own clock, or
    the real environment, where moving the clock means waiting (marker `waits`)."""
    if not profile.auth or not profile.auth.mock:
        flows, api = _auth_flows(pytestconfig, profile, {}, conformance_state.secrets, redactor, private=True)
        yield flows
        api.close()
        return
    cluster, own = _cluster_for(pytestconfig, profile, conformance_state)
    info = cluster.start_auth()
    flows, api = _auth_flows(pytestconfig, profile, info, conformance_state.secrets, redactor, private=True)
    yield flows
    api.close()
    if own:
        cluster.stop()


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
        recorder.take()
    if _CHECK_ID not in item.stash:  # not a check of suites/ (the project's own tests)
        return (yield)
    try:
        return (yield)
    except (NotApplicable, NotJudged, Blocked) as exc:  # a fixture found no sample, or its flow failed
        _not_judged(item, exc)
    except LoginError as exc:
        _not_judged(item, _login_blocked(exc))


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
        _not_judged(item, _login_blocked(exc))
    except Finding as exc:
        if _CHECK_ID not in item.stash or check_by_id(item.stash[_CHECK_ID]).severity is not Severity.OBSERVATION:
            allure_adapter.tag_cause(exc.cause)
            raise
        # An observation never fails: what it found is the observed value.
        item.stash.setdefault(_OBSERVED, []).append({"finding": str(exc)})
    finally:
        if recorder is not None and _CHECK_ID in item.stash:
            exchanges = recorder.take()
            _traffic_log(item.config).write(exchanges)
            allure_adapter.attach_exchanges(exchanges)
            for value in item.stash.get(_OBSERVED, []):
                allure_adapter.attach_observation(value)


def _traffic_log(config: pytest.Config):
    """This process's part of the run's traffic.har (redacted exchanges, as attached)."""
    from conformance.passive.har import TrafficLog

    log = config.stash.get(_TRAFFIC, None)
    if log is None:
        state = config.stash[_STATE]
        worker = getattr(config, "workerinput", {}).get("workerid", "main")
        # A passive run sent nothing: its evidence is the input's, not new traffic.
        log = config.stash[_TRAFFIC] = TrafficLog(state.report_dir, worker) if not state.traffic else _NoLog()
    return log


class _NoLog:
    def write(self, exchanges: object) -> None:
        return None


_TRAFFIC = pytest.StashKey[Any]()


def _login_blocked(exc: Exception) -> Blocked:
    """A login the profile's driver could not walk (a loop, another origin, no usable form):
    the checks that start from it could not judge their rules."""
    return Blocked("a login through the profile's login driver", f"login: {exc}")


def _not_judged(item: pytest.Item, exc: NotApplicable | NotJudged | Blocked) -> None:
    """Report a blocked, not-judged or not-applicable check to pytest (and so JUnit and
    Allure) as skipped, its reason prefixed with which."""
    if isinstance(exc, Blocked):
        item.stash[_NOT_JUDGED] = ("blocked", exc.cause)
        if isinstance(exc, Stopped):
            item.stash[_STOPPED] = (exc.stop, exc.unreachable)
        allure_adapter.tag_cause(exc.cause)
        pytest.skip(f"blocked: {exc}")
    if isinstance(exc, NotJudged):
        item.stash[_NOT_JUDGED] = ("not_judged", exc.what)  # the coverage line groups by `what`
        pytest.skip(f"not judged: {exc}")
    item.stash[_NOT_JUDGED] = ("not_applicable", None)
    pytest.skip(f"not applicable: {exc}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report: pytest.TestReport = yield
    check_id = item.stash.get(_CHECK_ID, None)
    if check_id is None:
        return report
    deciding = call.when == "call" or (call.when == "setup" and not report.passed)
    if not deciding:
        return report
    check = check_by_id(check_id)
    entry = Entry(
        check=check.id,
        requirements=list(check.requirements),
        severity=str(check.severity),
        suite=check.suite,
        title=check.title,
        test=item.stash.get(_TEST_ID, item.nodeid),
        outcome="passed",
        duration_s=round(report.duration, 3),
    )
    if report.skipped:
        entry.outcome, entry.cause = item.stash.get(_NOT_JUDGED, ("skipped", None))
        entry.reason = _skip_reason(report)
        entry.stop, entry.unreachable = item.stash.get(_STOPPED, (None, False))
    elif report.failed and call.excinfo is not None and _only(call.excinfo.value, Blocked):
        # Blocked inside a schemathesis subtest or a group: the run stopped mid-fuzzing.
        first = _flatten(call.excinfo.value)[0]
        assert isinstance(first, Blocked)
        entry.outcome, entry.cause, entry.reason = "blocked", first.cause, _full(str(first))
        if isinstance(first, Stopped):
            entry.stop, entry.unreachable = first.stop, first.unreachable
        allure_adapter.tag_cause(first.cause)
        report.outcome, report.longrepr = "skipped", (str(item.path), 0, f"blocked: {entry.reason}")
    elif report.failed and check.severity is Severity.OBSERVATION and call.excinfo is not None \
            and _is_finding(call.excinfo.value):
        # An observation never fails: what it found is the observed value (schemathesis
        # subtests report here, past the call wrapper's own conversion).
        entry.outcome, entry.value = "observation", {"finding": _failure_reason(call.excinfo)}
        report.outcome, report.longrepr = "passed", None
    elif report.failed and call.excinfo is not None and _only(call.excinfo.value, NotJudged | NotApplicable):
        # Raised inside a schemathesis subtest (the request budget ran out mid-fuzzing).
        leaves = _flatten(call.excinfo.value)
        judged = [e for e in leaves if isinstance(e, NotJudged)]
        entry.outcome = "not_judged" if judged else "not_applicable"
        entry.cause = judged[0].what if judged else None
        entry.reason = _failure_reason(call.excinfo)
        report.outcome, report.longrepr = "skipped", (str(item.path), 0,
                                                      f"{entry.outcome.replace('_', ' ')}: {entry.reason}")
    elif report.failed:
        excinfo = call.excinfo
        is_finding = excinfo is not None and _is_finding(excinfo.value)
        entry.outcome = "failed" if is_finding else "error"
        entry.unreachable = excinfo is not None and excinfo.errisinstance(UnreachableError)
        entry.reason = _failure_reason(excinfo) if excinfo else _full(report.longreprtext)
        entry.cause = getattr(excinfo.value, "cause", None) if excinfo else None
        if is_finding:  # a finding is the environment's, not the harness's: its reason, no traceback
            report.longrepr = f"{check.severity} {check.id} [{', '.join(check.requirements)}]: {entry.reason}"
    elif check.severity is Severity.OBSERVATION:
        observed = item.stash.get(_OBSERVED, [])
        if observed:
            entry.outcome = "observation"
            entry.value = observed[0] if len(observed) == 1 else observed
        else:
            entry.outcome = "error"
            entry.reason = "observation check recorded no value"
    report.conformance_entry = json.dumps(asdict(entry), default=str)  # type: ignore[attr-defined]
    return report


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        text = str(longrepr[2]).removeprefix("Skipped: ")
    else:
        text = _full(str(longrepr))
    return text.removeprefix("blocked: ").removeprefix("not applicable: ").removeprefix("not judged: ")


def _is_finding(exc: BaseException) -> bool:
    """A conformance finding: an AssertionError, or a group (schemathesis) of them; cases a
    spent request budget stopped (NotJudged) may be among them."""
    if isinstance(exc, BaseExceptionGroup):
        flat = _flatten(exc)
        return any(isinstance(e, AssertionError) for e in flat) and \
            all(isinstance(e, AssertionError | NotJudged | NotApplicable | Blocked) for e in flat)
    return isinstance(exc, AssertionError)


def _only(exc: BaseException, kind: type[BaseException]) -> bool:
    return all(isinstance(e, kind) for e in _flatten(exc))


def _flatten(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _flatten(sub)]
    return [exc]


def _failure_reason(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    """The whole reason, on one line; for an exception group (schemathesis), the distinct
    sub-failures. Never cut here: summary.json keeps it all (the console shortens)."""
    exc = excinfo.value
    if isinstance(exc, BaseExceptionGroup):
        leaves = _flatten(exc)
        findings = [e for e in leaves if isinstance(e, AssertionError)] or leaves
        parts = []
        for sub in findings:
            lines = [ln.strip() for ln in str(sub).splitlines() if ln.strip()]
            parts.append(" ".join(lines[:2]))
        return _full("; ".join(dict.fromkeys(parts)))
    if isinstance(exc, Finding):
        return _full(str(exc))
    return _full(excinfo.exconly())


def _full(text: str) -> str:
    """Lines joined into one, without the exception class prefix."""
    text = " ".join(line.strip() for line in text.splitlines() if line.strip())
    return text.removeprefix("conformance.checks.finding.Finding: ").removeprefix("AssertionError: ")


class _SummaryCollector:
    """Registered in the controller only: gathers entries from local and xdist reports."""

    def __init__(self, summary: Summary, report_dir: Path) -> None:
        self.summary = summary
        self.report_dir = report_dir

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.summary.require_coverage = bool(session.config.getoption("require_coverage"))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        raw = getattr(report, "conformance_entry", None)
        if raw is not None:
            # Subtests (schemathesis runs one per operation) report several times for one
            # test: the summary keeps one entry per test, with its worst outcome. The test's
            # own report after its subtests says only that the loop ran: it never counts as
            # a pass of its own (a check whose cases were all stopped is not "passed").
            entry = Entry(**json.loads(raw))
            entry.subtest = type(report).__name__ == "SubtestReport" or bool(getattr(report, "_schemathesis_subtest", False))
            self.summary.add(entry)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.summary.write(self.report_dir)
        from conformance.passive.har import TrafficLog

        TrafficLog.join(self.report_dir)  # the run's exchanges, redacted: `conformance traffic` reads them
        from conformance.reporting.allure_extras import write_run_extras

        write_run_extras(self.report_dir)  # matrix.json/.md, Allure metadata; never fatal
        if int(exitstatus) in (ExitCode.OK, ExitCode.MUST_FAILED):
            session.exitstatus = int(self.summary.exit_code())

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from conformance.reporting.console import verdict_lines

        terminalreporter.section("conformance verdict")
        for line in verdict_lines(self.summary.to_json(), self.report_dir):
            terminalreporter.write_line(line)
