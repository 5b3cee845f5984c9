"""Preparing a conformance run (the controller's part of `pytest_configure`): the state every
process of the run shares (`RunState`, handed to xdist workers as JSON), the profile's secrets,
the report directory, the probes of real environments, the mocks and the samples' validation.

The pytest plugin (conformance/pytest_plugin.py) calls this once per run; nothing here is a
fixture or a hook.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import ConfigError, HarnessError, UnreachableError
from conformance.http.client import probe
from conformance.http.concurrency import in_flight_bound
from conformance.http.redaction import Redactor
from conformance.http.stops import Stopped
from conformance.mocks import faults as fault_catalogue
from conformance.paths import SUITES_DIR, reports_dir
from conformance.profiles import FUZZ_PHASES, Profile, fuzz_phases_in_order, read_secret
from conformance.reporting.summary import Summary

SERVICE_TITLES = {"address": "address API", "auth": "authorization server", "soap": "SOAP message service",
                  "address-reference": "reference address API"}


@dataclass
class RunState:
    """Everything a worker needs to know about the run, serialisable for xdist."""

    profile_ref: str
    faults: list[str]
    report_dir: str
    seed: int
    max_examples: int = 25
    fuzz_phases: list[str] = field(default_factory=lambda: list(FUZZ_PHASES))  # contract fuzzing's (profiles.py)
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
    # Per service: the seconds its probe's answer took (real services only), and the most
    # requests in flight to it (conformance/http/concurrency.py in_flight_bound).
    latency_s: dict[str, float] = field(default_factory=dict)
    in_flight: dict[str, int] = field(default_factory=dict)
    # Services whose secrets the profile lets cross plain http (allow_plain_http): the verdict says so.
    plain_http: list[str] = field(default_factory=list)
    # How the seed was chosen (SEED_SOURCES), and the environment's database of failing examples
    # contract fuzzing found (Hypothesis's example database; conformance/paths.py findings_dir).
    seed_source: str = ""
    findings_db: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RunState:
        return cls(**json.loads(text))


def is_conformance_run(config: pytest.Config) -> bool:
    """Only runs that collect from suites/ start mocks and write summaries.

    The project's own tests (tests/) also load this plugin; they must stay untouched.
    """
    args = [Path(a.split("::")[0]).resolve() for a in config.args] or [Path.cwd()]
    return any(a == SUITES_DIR or SUITES_DIR in a.parents or a in SUITES_DIR.parents for a in args)


def prepare_run(config: pytest.Config, profile: Profile, report_dir: Path, started: dict[str, Any]) -> RunState:
    """The controller's preparation of a run: secrets resolved, environments probed (exit 3
    when unreachable), mocks started (each put in `started` as soon as it runs, so the
    caller stops it whatever fails later), the seed and the deadline chosen."""
    fault_set = fault_catalogue.resolve(config.getoption("mock_fault"))
    if fault_set.names and not profile.uses_mock:
        raise ConfigError(f"--mock-fault needs a profile that starts mock servers; {profile.name} starts none")
    created = make_report_dir(report_dir)
    # A configuration error found from here on (a secret, a credential the server refuses, a
    # base URL or sample that is wrong) ends the run before its report: the folder it made goes.
    config.add_cleanup(lambda: _no_report_no_folder(config, created, report_dir))
    if getattr(config.option, "xmlpath", None) is None:
        config.option.xmlpath = str(report_dir / "junit.xml")
    if getattr(config.option, "allure_report_dir", None) is None:
        config.option.allure_report_dir = str(report_dir / "allure-results")
        config.option.clean_alluredir = True
    if getattr(config.option, "tbstyle", "auto") == "auto":
        # A finding is reported by its reason, never its traceback (run_outcomes.decide), yet pytest
        # builds its long form first, parsing the source of every frame: a fifth of a run whose
        # contract fuzzing fails. A check that breaks shows Python's own traceback.
        config.option.tbstyle = "native"
    if config.getoption("traffic"):
        return prepare_passive(config, profile, report_dir)
    comparing = bool(config.getoption("reference"))
    if profile.address is not None and not comparing:  # from the run's first address answer on: the samples' validation
        from conformance.openapi import responses

        responses.start()
    # Every secret the profile names is resolved before the first request: a missing one
    # is a configuration error naming the variable and the key, never a check skipped later.
    secrets = resolve_secrets(profile, COMPARED if comparing else None)
    consented = plain_http_consent(profile)  # secrets in clear text over a network: exit 2 unless allowed
    if profile.address is not None:  # a description that cannot be loaded: exit 2 naming it
        from conformance.openapi.loader import load_schema

        load_schema(profile.address, profile.address.base_url or "http://127.0.0.1/")
    seed, seed_source = choose_seed(config, profile)
    config.option.hypothesis_seed = seed
    state = RunState(
        profile_ref=str(profile.path), faults=sorted(fault_set.names), report_dir=str(report_dir), seed=seed,
        max_examples=config.getoption("fuzz_max_examples") or profile.fuzz.max_examples,
        fuzz_phases=chosen_fuzz_phases(config.getoption("fuzz_phases"), profile),
        plain_http=consented, seed_source=seed_source,
        findings_db=str(findings_database_dir(profile, sorted(fault_set.names))),
    )
    config.pluginmanager.register(RunRecord(state), "conformance-run-record")
    for name, service in profile.services.items():
        if not service.mock and (not comparing or name in COMPARED):  # a comparison asks only what it compares
            assert service.base_url is not None
            state.latency_s[name] = observed_latency(config, profile, name)
            state.urls[name] = service.base_url
        state.in_flight[name] = in_flight_bound(profile.limits.concurrency, profile.limits.requests_per_second,
                                                state.latency_s.get(name))
    if profile.uses_mock:
        from conformance.mocks.launcher import MockCluster

        cluster = started["cluster"] = MockCluster(profile, fault_set)
        # The mocks of the suites the run selects (a comparison's vendor side: the address API).
        wanted = {name for name in profile.services if runs_suite(config, name) or (comparing and name == "address")}
        state.urls.update(cluster.start(only=wanted))
        state.secrets.update(cluster.secrets)
        state.samples.update(cluster.samples)
    state.secrets.update(secrets)
    import tempfile

    state.schedule_dir = tempfile.mkdtemp(prefix="conformance-schedule-")
    from conformance.run_control import deadline_of

    state.deadline_s, state.deadline_at = deadline_of(config.getoption("max_duration"), profile.limits.run_deadline_s)
    state.shared_schedule = runs_workers(config)  # one process keeps its schedule in memory (run_schedule)
    if comparing:  # the requests are built from the reference's samples: the vendor's are not used
        from conformance.compare.reference import prepare_reference

        state.reference, started["reference"] = prepare_reference(config.getoption("reference"), resolve_secrets)
        state.compare_requests = [str(Path(har).resolve()) for har in config.getoption("compare_requests")]
        return state
    return state


_LATENCY = pytest.StashKey[dict]()
# What a comparison (`--reference`) sends requests to, on both sides: the address API alone.
COMPARED = ("address",)


def observed_latency(config: pytest.Config, profile: Profile, name: str) -> float:
    """The seconds a real service's probe took to its answer's head (connection set-up
    included): UnreachableError when it answers nothing. Probed once per run.
    The address API's probe is a valid query with the profile's key (a conforming server
    answers it 200, or 404 where the base URL misses the API), never one it would refuse;
    the exchange is kept for the run's traffic.har (record_probes)."""
    import time

    measured = config.stash.setdefault(_LATENCY, {})
    if name not in measured:
        service = profile.services[name]
        client_cert, client_key = getattr(service, "client_cert", None), getattr(service, "client_key", None)
        path, headers = _probe_request(profile, name)
        started = time.monotonic()
        exchange = probe(service.base_url, timeout_s=min(service.timeout_s, 10.0, profile.limits.deadline_s),
                         cert=(client_cert, client_key) if client_cert and client_key else None, trust=service.trust,
                         path=path, headers=headers)
        measured[name] = time.monotonic() - started
        config.stash.setdefault(_PROBES, []).append((name, exchange))
    return measured[name]


_PROBES = pytest.StashKey[list]()


def _probe_request(profile: Profile, name: str) -> tuple[str, dict[str, str] | None]:
    """What the probe of a service sends: for the address API the base-URL check's first
    valid query with the main key (a missing key is the configuration error that names
    every missing secret, before anything is sent); else a GET of the base URL."""
    address = profile.address
    if name != "address" or address is None:
        return "", None
    from urllib.parse import urlencode

    from conformance.samples.session import BASE_PROBES

    key = read_secret(address.secret_env["api_key"], purpose="", required=False)
    if key is None:
        resolve_secrets(profile)  # raises, naming every missing secret
    path, params = BASE_PROBES[0]
    return f"{path}?{urlencode(params)}", {address.api_key_header: key or "", "Accept": "application/hal+json"}


def needs_sample_validation(config: pytest.Config, profile: Profile, state: RunState) -> bool:
    """Whether the run asks the address API before its checks: a real one's base URL always
    (validate_samples), the profile's samples when it names any and verifies them."""
    address = profile.address
    if address is None or "address" not in state.urls or state.reference or not runs_suite(config, "address"):
        return False
    return not address.mock or bool(address.samples and address.verify_samples)


def prepare_passive(config: pytest.Config, profile: Profile, report_dir: Path) -> RunState:
    """Judging recorded traffic: nothing is started, probed or sent. Secrets the profile
    names are not needed (the HAR holds what was sent); those that are set (environment or
    .env) are masked too."""
    from conformance.passive.har import read_har

    files = [str(Path(f).resolve()) for f in config.getoption("traffic")]
    for file in files:
        if not Path(file).is_file():
            raise ConfigError(f"HAR file {file} does not exist")
        read_har(file)  # a file that is no HAR: exit 2 naming it, before any check
    state = RunState(profile_ref=str(profile.path), faults=[], report_dir=str(report_dir), seed=0, traffic=files)
    for service in profile.services.values():
        for env_var in getattr(service, "secret_env", {}).values():
            if value := read_secret(env_var, purpose="", required=False):
                state.secrets[env_var] = value
    # Nothing observed is no pass: a service of the profile without one exchange in the traffic.
    from conformance.passive.traffic import load_traffic

    traffic = load_traffic(files, profile, Redactor(state.secrets.values()))
    state.unobserved = [name for name in profile.services if not getattr(traffic, name)]
    return state


def runs_suite(config: pytest.Config, suite: str) -> bool:
    target = SUITES_DIR / suite
    args = [Path(a.split("::")[0]).resolve() for a in config.args] or [Path.cwd()]
    return any(a == target or target in a.parents or a in target.parents for a in args)


def validate_samples(profile: Profile, state: RunState, run: Any) -> None:
    """Before the first check, against a real address API: its base URL reaches the API (two
    requests; exit 2 naming services.address.base_url and the prefix it lacks otherwise:
    conformance.samples.session.check_base_url), and every sample the profile names meets
    its contract, or the run stops here (exit 2) naming the sample and what it lacks: a wrong
    sample is no conformance failure. A sample `conformance discover` verified before that
    misses it now is the environment's change: the run goes on and the report says so
    (conformance.samples.session.validate). `run`: the controller's RunContext
    (conformance/run_context.py), for the address API's pacing and bounds."""
    import sys

    from conformance.samples.session import address_api, check_base_url, getter, validate

    assert profile.address is not None
    schedule, bounds = run.schedule("address"), run.bounds("address")
    recorder = run.preflight_recorder()
    api = address_api(profile, state.urls["address"], state.secrets, schedule=schedule, bounds=bounds,
                      recorder=recorder)
    others: list[Any] = []

    def on_base(url: str) -> Any:
        other = address_api(profile, url, state.secrets, schedule=schedule, bounds=bounds, recorder=recorder)
        others.append(other)
        return getter(other)

    try:
        if not profile.address.mock:
            check_base_url(profile, getter(api), probe_base=on_base)
        if profile.address.samples and profile.address.verify_samples:
            state.sample_regressions = validate(profile, getter(api), concurrency=api.client.concurrency,
                                                log=lambda line: print(f"conformance: {line}", file=sys.stderr))
    except Stopped as stopped:  # the address API stopped answering: its checks will be blocked for it
        print(f"conformance: samples not validated: {stopped.stop}", file=sys.stderr)
    finally:
        for client in (api, *others):
            client.close()


def resolve_secrets(profile: Profile, services: tuple[str, ...] | None = None) -> dict[str, str]:
    """env var -> value for every secret the profile names for a real service (of `services`
    only, when given: a comparison and `discover` use the address API alone, and ask for no
    other service's secrets). Every one that is not set is named at once (a configuration
    error), with its profile key."""
    out: dict[str, str] = {}
    missing: list[str] = []
    for name, service in profile.services.items():
        if service.mock or (services is not None and name not in services):
            continue
        for secret, env_var in getattr(service, "secret_env", {}).items():
            purpose = f"{SERVICE_TITLES.get(name, name)} {secret}, profile key services.{name}.secrets.{secret}"
            value = read_secret(env_var, purpose=purpose, required=False)
            if value is None:
                missing.append((env_var, purpose))
            else:
                out[env_var] = value
    if len(missing) == 1:
        raise ConfigError(f"environment variable {missing[0][0]} is not set (it holds the {missing[0][1]})")
    if missing:
        raise ConfigError(f"{len(missing)} environment variables are not set: "
                          + "; ".join(f"{var} (it holds the {purpose})" for var, purpose in missing))
    return out


def summary_of(profile: Profile, state: RunState) -> Summary:
    """The run's summary as the controller starts it: what the preparation found."""
    summary = Summary(profile=profile.name, seed=state.seed if not state.traffic else None,
                      faults=state.faults, traffic=list(state.traffic))
    summary.targets = dict(state.urls)
    if state.reference:
        summary.reference = {"profile": state.reference["name"], "url": state.reference["url"]}
    summary.sample_regressions = dict(state.sample_regressions)
    summary.unobserved = [SERVICE_TITLES.get(name, name) for name in state.unobserved]
    summary.plain_http = list(state.plain_http)
    if not state.traffic:
        summary.fuzzing = {"max_examples": state.max_examples, "phases": list(state.fuzz_phases),
                           "left_out": [name for name in FUZZ_PHASES if name not in state.fuzz_phases]}
    return summary


def plain_http_consent(profile: Profile) -> list[str]:
    """The real services whose secrets would go over plain http to a host that is not this
    machine, each as the verdict names it; a service whose profile section does not allow it
    (`allow_plain_http = true`) is a configuration error before any request."""
    from conformance.http import origins

    consented = []
    for name, service in profile.services.items():
        if service.mock:
            continue
        for url in service.bases:
            if origins.exposed_by_plain_http(url):
                if not service.trust.allow_plain_http:
                    origins.refuse_plain_http(url, service.trust.key)
                consented.append(f"{SERVICE_TITLES.get(name, name)} at {url} ({service.trust.key}.allow_plain_http = true)")
    return consented



def private_files(config: pytest.Config) -> None:
    """What the run writes holds its traffic: private to the user whatever the umask (the
    run's workers and mocks inherit it), and the umask as it was when the run ends."""
    umask = os.umask(0o077)
    config.add_cleanup(lambda: os.umask(umask))


def make_report_dir(report_dir: Path) -> Path | None:
    """The report directory, writable and private to the user (it holds the run's traffic);
    exit 2 with a message otherwise. Returns the outermost folder it made (None: the report
    directory was there), for `remove_unused_report_dir`."""
    created = None
    for folder in (report_dir, *report_dir.parents):
        if folder.exists():
            break
        created = folder
    try:
        report_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        report_dir.chmod(0o700)
        probe_file = report_dir / ".writable"
        probe_file.write_text("")
        probe_file.unlink()
    except OSError as exc:
        raise ConfigError(f"report directory {report_dir} is not writable ({exc.strerror or exc})") from None
    return created


def remove_unused_report_dir(created: Path | None, report_dir: Path) -> None:
    """A run that ended before its report (a configuration error: exit 2 before any check)
    leaves no folder behind: the report directory goes, and the parents `make_report_dir`
    made with it while empty. A folder that was there before (one the user named, reused) is
    never touched, nor one holding a summary.json."""
    if created is None or (report_dir / "summary.json").exists():
        return
    import shutil

    shutil.rmtree(report_dir, ignore_errors=True)
    for folder in report_dir.parents:
        if folder == created.parent:
            break
        try:
            folder.rmdir()  # only when empty: another run may write beside this one
        except OSError:
            break


def _no_report_no_folder(config: pytest.Config, created: Path | None, report_dir: Path) -> None:
    """The run's end: when its preparation stopped it (no summary collector was registered)
    and it wrote no summary.json, the report folder it made goes (remove_unused_report_dir)."""
    if config.pluginmanager.get_plugin("conformance-summary") is None:
        remove_unused_report_dir(created, report_dir)


def default_report_dir(profile_name: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return reports_dir() / f"{stamp}-{profile_name}"


def runs_workers(config: pytest.Config) -> bool:
    """Whether this run hands its tests to xdist workers (-n N with N > 0, or auto)."""
    return bool(getattr(config.option, "numprocesses", None)) and getattr(config.option, "dist", "no") != "no"


# What a check sends (its declaration's `sends`) -> the switch that allows it, and what such checks do.
SWITCHES = {"refused": ("negative", "send requests designed to be refused"),
            "flood": ("flood", "exceed rate limits on purpose"), "fuzz": ("fuzz", "fuzz"),
            "waits": ("waits", "wait out lifetimes in real time")}


def test_case_sends(path: Path, check: Any) -> tuple[str, ...]:
    """What a test case sends: its check's declaration, except for the second test case of a
    server check judged on every exchange (suites/passive), which only reads traffic: a 429 the
    run met is judged even where the profile forbids provoking one."""
    passive = SUITES_DIR / "passive" in path.parents
    return ("nothing",) if passive and not check.id.startswith("client.") else check.sends


def forbidden_by(profile: Profile, sends: tuple[str, ...]) -> tuple[str, str] | None:
    """(switch, what) of the first safety switch that forbids a check sending `sends`, or None.
    A check that also sends valid requests is not forbidden for its refused ones: the client
    leaves those out when they are about to be sent (conformance/http/intent.py), and the
    check's valid cases are judged."""
    auth = profile.auth
    allowed = {"negative": profile.safety.negative, "flood": profile.safety.flood, "fuzz": profile.safety.fuzz,
               # The mock has a clock to move; elsewhere lifetimes take real minutes to days.
               # Instant with the mock's clock or the environment's own clock hook.
               "waits": profile.safety.waits or (auth is not None and (auth.mock or bool(auth.clock)))}
    for kind in sends:
        if kind not in SWITCHES or (kind == "refused" and "valid" in sends):
            continue
        switch, what = SWITCHES[kind]
        if not allowed[switch]:
            return switch, what
    return None




def wanted_checks(patterns: list[str]) -> set[str] | None:
    """The check ids `--check` selects (None: all)."""
    if not patterns:
        return None
    from conformance.catalogue import select_checks

    try:
        return select_checks(patterns)
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None


def write_unreachable_summary(profile_name: str, report_dir: Path, exc: UnreachableError) -> None:
    """An unreachable environment still leaves a report directory saying so."""
    summary = Summary(profile=profile_name, stopped=f"unreachable: {exc}")
    with contextlib.suppress(OSError):
        summary.write(report_dir)


def load_hypothesis_profile(state: RunState) -> None:
    """The run's example budget, for every generated test that does not set its own, and the
    environment's database of failing examples (FindingsDatabase): what an earlier run found
    against this environment is replayed first, until the server passes it."""
    from hypothesis import settings

    database = FINDINGS.use(state)
    # Built on Hypothesis's "default" profile, not on whatever is loaded: with CI set in the
    # environment Hypothesis loads its "ci" profile (derandomize=True, no database), which
    # would refuse the findings database and make the verdict depend on where it runs. The
    # run is reproducible by its own seed (choose_seed), not by derandomizing.
    settings.register_profile("conformance-run", parent=settings.get_profile("default"),
                              max_examples=state.max_examples, deadline=None, derandomize=False,
                              database=database if state.findings_db else None)
    settings.load_profile("conformance-run")


# --------------------------------------------------------------------------- seed and findings
SEED_SOURCES = ("derived", "profile", "--seed", "random")
# `conformance run --seed random` draws the seed itself and hands the number to pytest; this
# variable, set for that run only, says so (a worker re-reads the command line, not this).
SEED_SOURCE_ENV = "CONFORMANCE_SEED_SOURCE"


def choose_seed(config: pytest.Config, profile: Profile) -> tuple[int, str]:
    """The run's fuzzing seed and how it was chosen: `--seed` (pytest: --hypothesis-seed),
    else the profile's [fuzz] seed, else derived from the profile's name and its targets, so
    that the same profile against the same environment fuzzes alike every run. Random only
    when asked (`--seed random`)."""
    given = config.getoption("hypothesis_seed", None)
    if given is not None:
        try:
            seed = int(given)
        except (TypeError, ValueError):
            raise ConfigError(f"--hypothesis-seed {given!r}: expected a number "
                              "(`conformance run --seed random` draws one)") from None
        return seed, "random" if os.environ.get(SEED_SOURCE_ENV) == "random" else "--seed"
    if profile.fuzz.seed is not None:
        return int(profile.fuzz.seed), "profile"
    return derived_seed(profile), "derived"


def derived_seed(profile: Profile) -> int:
    """A seed from what names the environment: the profile's name and each service's base URL
    (a local mock's port changes every run: it counts as "local mock")."""
    import hashlib

    facts = json.dumps([profile.name, _targets(profile)], sort_keys=True)
    return int.from_bytes(hashlib.sha256(facts.encode()).digest()[:4], "big")


def _targets(profile: Profile) -> dict[str, str]:
    return {name: "local mock" if service.mock else str(service.base_url)
            for name, service in profile.services.items()}


def findings_database_dir(profile: Profile, faults: list[str]) -> Path:
    """The folder of this environment's failing examples: one per profile name and targets
    (a local mock's by its data set and faults), so that vendor A's findings never replay
    against vendor B. Made by the first finding; beside it, <folder>.json then says which
    environment it is (RunRecord)."""
    import hashlib
    import re

    from conformance.paths import findings_dir

    digest = hashlib.sha256(json.dumps(_environment(profile, faults), sort_keys=True).encode()).hexdigest()[:12]
    return findings_dir() / f"{re.sub(r'[^A-Za-z0-9_.-]+', '-', profile.name)}-{digest}"


def _environment(profile: Profile, faults: list[str]) -> dict[str, Any]:
    targets = _targets(profile)
    if profile.address is not None and profile.address.mock:
        targets["address"] = f"local mock ({profile.address.mock_data} data)"
    return {"profile": profile.name, "targets": targets, "faults": faults if profile.uses_mock else []}


class FindingsDatabase:
    """The run's example database, one object for the process (the suites' @settings capture
    it when they are imported, and a process may run several runs: `use` points it at each
    run's folder). A Hypothesis DirectoryBasedExampleDatabase underneath: one file per
    example, safe for the run's xdist workers together. Each example replayed from a test's
    primary key (the failing examples Hypothesis keeps; it deletes one that passes again) is
    noted in the run's shared folder, by test, for the report (RunRecord)."""

    def __init__(self) -> None:
        self._db: Any = None
        self._tally: Path | None = None
        self._proxy: Any = None

    def use(self, state: RunState) -> Any:
        from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

        self._db = DirectoryBasedExampleDatabase(state.findings_db) if state.findings_db else None
        self._tally = Path(state.schedule_dir) / f"replayed-{os.getpid()}.log" if state.schedule_dir else None
        if self._proxy is None:
            owner = self

            class _Proxy(ExampleDatabase):
                def save(self, key: bytes, value: bytes) -> None:
                    if owner._db is not None:
                        owner._db.save(key, value)

                def fetch(self, key: bytes) -> Any:
                    if owner._db is None:
                        return
                    for value in owner._db.fetch(key):
                        owner._note(key)
                        yield value

                def delete(self, key: bytes, value: bytes) -> None:
                    if owner._db is not None:
                        owner._db.delete(key, value)

                def move(self, src: bytes, dest: bytes, value: bytes) -> None:
                    if owner._db is not None:
                        owner._db.move(src, dest, value)

                def __repr__(self) -> str:
                    return f"FindingsDatabase({owner._db!r})"

            self._proxy = _Proxy()
        return self._proxy

    def _note(self, key: bytes) -> None:
        if self._tally is None or key.endswith(_DERIVED_KEYS):
            return
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0] or "?"
        with contextlib.suppress(OSError), open(self._tally, "a", encoding="utf-8") as tally:
            tally.write(test + "\n")


_DERIVED_KEYS = (b".secondary", b".pareto")  # Hypothesis's other corpora beside a test's failing examples
FINDINGS = FindingsDatabase()


def chosen_fuzz_phases(option: str | None, profile: Profile) -> list[str]:
    """Contract fuzzing's phases: --fuzz-phases (comma-separated), else the profile's [fuzz]
    phases; in the order schemathesis runs them. A name it does not know is exit 2."""
    if option is None:
        return list(profile.fuzz.phases)
    named = [name.strip() for name in option.split(",") if name.strip()]
    unknown = [name for name in named if name not in FUZZ_PHASES]
    if unknown or not named:
        raise ConfigError(f"--fuzz-phases {option!r}: {'unknown phase ' + repr(unknown[0]) if unknown else 'no phase'}; "
                          f"expected one or more of {', '.join(FUZZ_PHASES)}, comma-separated")
    return list(fuzz_phases_in_order(named))


def kept_findings(folder: Path) -> int:
    """The failing examples an environment's database holds now: what the next run replays."""
    from hypothesis.database import DirectoryBasedExampleDatabase

    if not folder.is_dir():
        return 0
    db = DirectoryBasedExampleDatabase(folder)
    keys = [key for key in db.fetch(DirectoryBasedExampleDatabase._metakeys_name) if not key.endswith(_DERIVED_KEYS)]
    return sum(1 for key in keys for _ in db.fetch(key))


class RunRecord:
    """The controller's record of how the run fuzzed, added to summary.json once it is
    written: `seed_source` (how the seed was chosen: SEED_SOURCES) and `replay` (the
    environment's findings database, how many saved failing examples the run replayed, by
    test, and how many it keeps for the next run); and a line on the console."""

    def __init__(self, state: RunState) -> None:
        self.state = state
        self._record: dict[str, Any] | None = None

    def record(self) -> dict[str, Any]:
        if self._record is None:
            by_test: dict[str, int] = {}
            folder = Path(self.state.schedule_dir) if self.state.schedule_dir else None
            for tally in sorted(folder.glob("replayed-*.log")) if folder and folder.is_dir() else []:
                with contextlib.suppress(OSError):
                    for line in tally.read_text(encoding="utf-8").splitlines():
                        by_test[line] = by_test.get(line, 0) + 1
            database = Path(self.state.findings_db) if self.state.findings_db else None
            described = database.with_suffix(".json") if database is not None else None
            if database is not None and described is not None and database.is_dir() and not described.exists():
                from conformance.profiles import load_profile

                with contextlib.suppress(OSError, HarnessError):
                    environment = _environment(load_profile(self.state.profile_ref), self.state.faults)
                    described.write_text(json.dumps(environment, indent=2) + "\n", encoding="utf-8")
            self._record = {
                "seed_source": self.state.seed_source,
                "replay": {"database": self.state.findings_db, "replayed": sum(by_test.values()),
                           "by_test": dict(sorted(by_test.items())),
                           "kept": kept_findings(Path(self.state.findings_db)) if self.state.findings_db else 0},
            }
        return self._record

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Any:
        result = yield  # the summary collector writes summary.json (trylast) within
        summary = Path(self.state.report_dir) / "summary.json"
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(summary.read_text(encoding="utf-8"))
            data.update(self.record())
            summary.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
        return result

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        record = self.record()
        replay = record["replay"]
        how = {"derived": "derived from the profile's name and targets", "profile": "the profile's [fuzz] seed",
               "--seed": "given with --seed", "random": "drawn at random (--seed random)"}[record["seed_source"]]
        terminalreporter.write_line(
            f"fuzzing seed {self.state.seed} ({how}); {replay['replayed']} saved failing example(s) of earlier runs "
            f"replayed first, {replay['kept']} kept for the next run ({replay['database']})")
        left_out = [name for name in FUZZ_PHASES if name not in self.state.fuzz_phases]
        if left_out:  # less was judged than a full run judges: said aloud, as summary.json records it
            terminalreporter.write_line(f"contract fuzzing's phases: {', '.join(self.state.fuzz_phases)} "
                                        f"({', '.join(left_out)} left out: --fuzz-phases or the profile's [fuzz] phases)")


def record_probes(config: pytest.Config, profile: Profile, state: RunState, run: Any) -> None:
    """The reachability probe was each real service's first request: its budget counts it,
    and the run's traffic.har records it (redacted), as it records every request it sends."""
    for name in state.urls:
        if name in profile.services and not profile.services[name].mock:
            run.schedule(name).reserve(0.0, 0, paced=False)
    probes = config.stash.get(_PROBES, [])
    if probes and not state.traffic:
        for _name, exchange in probes:
            run.redactor.learn(exchange)
        run.traffic_log().write([run.redactor.exchange(exchange) for _name, exchange in probes])


def response_schema_watch(state: RunState, process: str) -> Any:
    """This process's part of address.response.schema_valid (next to the check, in
    conformance/checks/address/response_schema_watch.py): every address answer it receives."""
    from conformance.profiles import load_profile

    if state.traffic or load_profile(state.profile_ref).address is None:
        return None
    from conformance.checks.address.response_schema_watch import ResponseSchemaWatch

    return ResponseSchemaWatch(state.report_dir, process)


def stop_gate(state: RunState) -> Any:
    """The run's deadline and SIGINT/SIGTERM stop this process's checks (conformance/run_control.py)."""
    if state.traffic or not state.schedule_dir:
        return None
    from conformance.run_control import StopGate, run_stop

    gate = StopGate(run_stop(state.schedule_dir, state.deadline_at or None, state.deadline_s or None))
    gate.install_signals()
    return gate


def read_waivers(config: pytest.Config, profile: Profile) -> Any:
    """The run's accepted deviations (--waivers, else the profile's [run] waivers); a malformed
    file is a configuration error naming it, before anything starts."""
    from conformance.reporting.waivers import run_waivers

    return run_waivers(profile.waivers, config.getoption("waivers"))


def check_credentials(config: pytest.Config, profile: Profile, state: RunState, run: Any) -> set[str]:
    """Once per run, before the first check: a credential the server refuses is exit 2 naming
    its profile key and variable (conformance/preflight.py). Not in a passive run. Returns
    the services that gave no answer in time."""
    if state.traffic:
        return set()
    from conformance.preflight import check_credentials as ask

    return ask(profile, state.urls, state.secrets, [name for name in profile.services if runs_suite(config, name)],
               lambda name: (run.schedule(name), run.bounds(name)), recorder=run.preflight_recorder())
