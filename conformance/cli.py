"""The `conformance` command: a thin layer over the library and the pytest plugin.

    conformance run      [--profile P] [--suite address|auth|soap ...] [--report-dir D] [--mock-fault F ...] [-- PYTEST_ARGS]
    conformance mock     [--profile P] [--fault F ...] | --list-faults
    conformance profiles | profile new NAME
    conformance discover --profile P [--all] [--dry-run]
    conformance traffic FILE.har... [--profile P] [--report-dir D]
    conformance proxy --profile P [--listen 127.0.0.1:PORT] [--duration S]
    conformance soap validate FILE...
    conformance pki init --out DIR | pki show DIR
    conformance report [RUN_DIR] [--open] | diff OLD_RUN NEW_RUN | matrix RUN_DIR... [--out DIR]
    conformance waive RUN_DIR --reason TEXT --until YYYY-MM-DD [--reference TICKET]
    conformance compare --profile VENDOR --reference REFERENCE [--requests FILE.har ...]

Exit codes: 0 conforms (every MUST check passed); 1 does not conform (a MUST check
failed); 2 usage or configuration error; 3 an environment was unreachable; 4 could not
judge (a MUST check was blocked or broke, none failed).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from conformance.auth.pki_cli import add_pki_commands
from conformance.catalogue import select_checks
from conformance.errors import ConfigError, ExitCode, HarnessError
from conformance.mocks import faults as fault_catalogue
from conformance.paths import SUITES_DIR, reports_dir
from conformance.profiles import Profile, load_profile, local_profiles, read_secret, shipped_profiles
from conformance.reporting.cli import add_report_commands
from conformance.reporting.waive_cli import add_waive_command
from conformance.requirements.audit import add_requirements_commands
from conformance.runner import run_and_report
from conformance.samples.cli import add_discover_command
from conformance.soap.cli import add_soap_commands

SUITES = ("address", "auth", "soap")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="conformance", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run the conformance suites against a profile's environment")
    run.add_argument("--profile", default="local-mock", help="profile name or path (default: local-mock)")
    run.add_argument("--suite", action="append", choices=SUITES, help="suite to run (repeatable; default: all)")
    run.add_argument("--report-dir", help="report directory (default: reports/<UTC time>-<profile>)")
    run.add_argument("--mock-fault", action="append", default=[], metavar="NAME", help="switch a mock fault on (repeatable)")
    run.add_argument("--seed", type=_seed, metavar="N|random",
                     help="fuzzing seed: a number, or 'random' for a new one (default: the profile's [fuzz] seed, "
                          "else derived from the profile's name and targets, the same every run; always reported)")
    run.add_argument("--max-examples", type=int, help="fuzzing examples per operation (default: the profile's)")
    run.add_argument("--fuzz-phases", metavar="PHASES",
                     help="contract fuzzing's phases, comma-separated, of examples, coverage, fuzzing, stateful "
                          "(default: the profile's [fuzz] phases, all four; the run's summary records them)")
    run.add_argument("--check", action="append", default=[], metavar="ID",
                     help="run only this check: an id, or a pattern like 'soap.request.*' (repeatable)")
    run.add_argument("--max-duration", type=_positive_seconds, metavar="SECONDS",
                     help="the run's wall-time bound: checks not run by then are blocked, the report is "
                          "written, exit 4 (default: the profile's limits.run_deadline_s, 1800)")
    run.add_argument("--require-coverage", action="store_true",
                     help="a MUST check not judged (missing material, budget, a safety switch) makes the run exit 4")
    run.add_argument("-n", "--workers", default="auto", help="pytest-xdist workers: a number, 'auto' (the cores; against a slow deployment "
                     "each runs its tests side by side; one process when --check selects one check), or 0 for "
                     "serial (default: auto)")
    run.add_argument("--no-html", action="store_true", help="do not render the Allure HTML report")
    run.add_argument("--waivers", metavar="FILE", help="accepted deviations (default: the profile's [run] waivers)")
    run.add_argument("pytest_args", nargs=argparse.REMAINDER, help="after --: passed to pytest")
    run.set_defaults(handler=cmd_run)

    traffic = commands.add_parser("traffic", help="judge recorded traffic (HAR files) with the same checks, sending nothing")
    traffic.add_argument("files", nargs="+", metavar="FILE.har", help="HAR 1.2 captures (browsers, Postman, mitmproxy, a run's traffic.har)")
    traffic.add_argument("--profile", default="local-mock", help="profile whose services the traffic belongs to (default: local-mock)")
    traffic.add_argument("--report-dir", help="report directory (default: reports/<UTC time>-<profile>-traffic)")
    traffic.add_argument("--no-html", action="store_true", help="do not render the Allure HTML report")
    traffic.set_defaults(handler=cmd_traffic)

    proxy = commands.add_parser("proxy", help="a recording reverse proxy that judges each exchange as it passes")
    proxy.add_argument("--profile", required=True, help="profile whose services the proxy forwards to (their base "
                       "URLs); a profile of local mocks (local-mock) starts them first")
    proxy.add_argument("--listen", default="127.0.0.1:0", help="127.0.0.1:PORT of the first service; the next ones "
                       "take the following ports (default: free ports, printed)")
    proxy.add_argument("--duration", type=float, help="stop after this many seconds (default: at Ctrl-C)")
    proxy.add_argument("--report-dir", help="report directory (default: reports/<UTC time>-<profile>-proxy)")
    proxy.add_argument("--no-html", action="store_true", help="do not render the Allure HTML report")
    proxy.set_defaults(handler=cmd_proxy)

    mock = commands.add_parser("mock", help="start the local mock servers in the foreground")
    mock.add_argument("--profile", default="local-mock", help="profile whose mock services to start")
    mock.add_argument("--fault", action="append", default=[], metavar="NAME", help="switch a fault on (repeatable)")
    mock.add_argument("--list-faults", action="store_true", help="print the fault catalogue and exit")
    mock.add_argument("--keys-file", help="where to write the mock's API keys (default: reports/mock-keys.env)")
    mock.add_argument("--base-port", type=int, help="fixed ports: the address API on PORT, the authorization server on "
                      "PORT+1, the SOAP service on PORT+2 (default: free ports)")
    mock.add_argument("--port", action="append", default=[], metavar="SERVICE=PORT",
                      help="a fixed port for one service: address, soap or auth (repeatable)")
    mock.add_argument("--deployment-profile", help="where to write a profile of the running mocks as a deployment, "
                      "for `conformance proxy` (default: reports/mock-deployment.toml)")
    mock.add_argument("--answer-delay", type=float, default=0.0, metavar="SECONDS",
                      help="hold every answer of every mock server this long: a slow environment (default: 0)")
    mock.set_defaults(handler=cmd_mock)

    profiles = commands.add_parser("profiles", help="list the shipped profiles")
    profiles.set_defaults(handler=cmd_profiles)

    profile = commands.add_parser("profile", help="write a profile for a vendor's deployment")
    profile_commands = profile.add_subparsers(dest="profile_command", required=True)
    new = profile_commands.add_parser("new", help="a commented skeleton with every key, and the next steps")
    new.add_argument("name", help="the profile's name (letters, digits, '.', '_', '-')")
    new.add_argument("--out", type=Path, help="file or directory to write (default: ./NAME.toml)")
    new.set_defaults(handler=cmd_profile_new)

    add_discover_command(commands)
    add_soap_commands(commands)
    add_pki_commands(commands)
    add_report_commands(commands)
    add_waive_command(commands)
    from conformance.compare.cli import add_compare_command

    add_compare_command(commands)
    add_requirements_commands(commands)
    return parser


def _seed(text: str) -> int | str:
    if text == "random":
        return text
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed: a number (0 or more), or 'random'")
    return int(text)


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, as we document
        return int(exc.code or 0)
    # What a command writes holds traffic and keys: private to the user, whatever the umask
    # (the run's processes inherit it); as it was afterwards (tests call `main`).
    umask = os.umask(0o077)
    try:
        return int(args.handler(args))
    except HarnessError as exc:
        print(f"conformance: {exc}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("conformance: interrupted", file=sys.stderr)
        return int(ExitCode.USAGE)
    finally:
        os.umask(umask)


# --------------------------------------------------------------------------- run
def cmd_run(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile)  # fail early with exit 2, before pytest starts
    selected_suites(args.suite, profile)
    fault_catalogue.resolve(args.mock_fault)
    if args.workers == "auto" and args.check and len(select_checks(args.check)) == 1:
        # One check's tests: a second process would only import and collect the suites (about
        # 2.7 CPU-seconds and most of a second); side by side against a slow service they still run.
        args.workers = "0"
    from conformance.worker_fork import preloaded_workers

    with preloaded_workers(args.workers) as plugins:  # the workers' imports start now, on the other core
        return _run(args, profile, plugins)


def _run(args: argparse.Namespace, profile: Profile, plugins: list[object]) -> int:
    select_checks(args.check)  # an unknown check id: exit 2 before anything starts
    if args.mock_fault and not profile.uses_mock:
        raise ConfigError(f"--mock-fault needs a profile that starts mock servers; {profile.name} starts none")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report_dir = Path(args.report_dir or reports_dir() / f"{stamp}-{profile.name}").resolve()
    from conformance.run_setup import (
        SEED_SOURCE_ENV,
        make_report_dir,
        remove_unused_report_dir,
        resolve_secrets,
    )

    resolve_secrets(profile)  # every secret the profile names, before the first request (and any folder)
    created = make_report_dir(report_dir)  # exit 2 with a message, before anything starts
    (report_dir / "summary.json").unlink(missing_ok=True)  # the verdict read below is this run's
    suites = selected_suites(args.suite, profile)
    source = None
    if args.seed == "random":  # drawn here: the run's workers must all get the number
        import random

        args.seed, source = random.SystemRandom().randrange(2**32), "random"
    pytest_args = build_pytest_args(args, profile_ref=str(profile.path), report_dir=report_dir, suites=suites)
    before = os.environ.get(SEED_SOURCE_ENV)
    os.environ.pop(SEED_SOURCE_ENV, None)
    if source:
        os.environ[SEED_SOURCE_ENV] = source
    try:
        code = run_and_report(pytest_args, report_dir, html=not args.no_html, plugins=plugins)
    finally:
        os.environ.pop(SEED_SOURCE_ENV, None)
        if before is not None:
            os.environ[SEED_SOURCE_ENV] = before
    if code == ExitCode.USAGE:  # a configuration error before the report: no empty run folder stays
        remove_unused_report_dir(created, report_dir)
    return code


def cmd_traffic(args: argparse.Namespace) -> int:
    """Passive conformance: the checks one observed exchange can judge, over HAR files."""
    profile = load_profile(args.profile)
    missing = [f for f in args.files if not Path(f).is_file()]
    if missing:
        raise ConfigError(f"HAR file {missing[0]} does not exist")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report_dir = Path(args.report_dir or reports_dir() / f"{stamp}-{profile.name}-traffic").resolve()
    from conformance.run_setup import make_report_dir

    make_report_dir(report_dir)
    (report_dir / "summary.json").unlink(missing_ok=True)
    pytest_args = [str(SUITES_DIR / "passive"), "--profile", str(profile.path), "--report-dir", str(report_dir), "-q"]
    for file in args.files:
        pytest_args += ["--traffic", str(Path(file).resolve())]
    return run_and_report(pytest_args, report_dir, html=not args.no_html)


def cmd_proxy(args: argparse.Namespace) -> int:
    """Forward a client's traffic to the profile's services, judging it live; then the run directory."""
    import shutil
    import threading

    from conformance.mocks.launcher import wait_until_stopped
    from conformance.passive.proxy import RecordingProxy
    from conformance.run_setup import make_report_dir

    profile = load_profile(args.profile)
    host, _, port = args.listen.rpartition(":")
    if host not in ("127.0.0.1", "localhost") or not port.isdigit():
        raise ConfigError(f"--listen {args.listen}: the proxy listens on 127.0.0.1:PORT only")
    if profile.uses_mock:  # the local mocks behind the proxy: started here, described as a deployment
        return _proxy_local_mocks(args, profile)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report_dir = Path(args.report_dir or reports_dir() / f"{stamp}-{profile.name}-proxy").resolve()
    make_report_dir(report_dir)
    (report_dir / "summary.json").unlink(missing_ok=True)
    # Secrets that are set (environment or .env) are masked in what is printed and kept; none is required.
    secrets = {env: value for svc in profile.services.values() for env in getattr(svc, "secret_env", {}).values()
               if (value := read_secret(env, purpose="", required=False))}
    proxy = RecordingProxy(profile, secrets=secrets, first_port=int(port))
    listeners = proxy.start()

    def ready() -> None:  # printed once Ctrl-C is handled: a client may act on these lines at once
        for name, listener in listeners.items():
            print(f"{name}: {listener} -> {profile.services[name].base_url}", flush=True)
        print("judging each exchange as it passes; Ctrl-C (or --duration) ends it and writes the report", flush=True)

    stop = threading.Event()
    if args.duration:
        threading.Timer(args.duration, stop.set).start()
    try:
        wait_until_stopped(stop, ready=ready)
    finally:
        stop.set()
        proxy.stop()
    capture, redacted = proxy.write_capture(report_dir)
    print(f"{len(proxy.raw)} exchanges passed; {proxy.live_findings} findings live, {proxy.upstream_findings} "
          "answers the upstream broke", flush=True)
    # Judged from the unmasked private capture (client checks read what secrets hide); a
    # session that saw nothing is judged too: its services unobserved, exit 4, never a pass.
    try:
        pytest_args = [str(SUITES_DIR / "passive"), "--profile", str(profile.path), "--report-dir",
                       str(report_dir), "-q", "--traffic", str(capture or redacted)]
        code = run_and_report(pytest_args, report_dir, html=not args.no_html,
                              traffic_shown=redacted if capture is not None else None)
        proxy.name_gaps(report_dir / "summary.json")  # what the capture could not keep
        return code
    finally:
        if capture is not None:
            shutil.rmtree(capture.parent, ignore_errors=True)


def _proxy_local_mocks(args: argparse.Namespace, profile: Profile) -> int:
    import tempfile

    from conformance.mocks.deployment import deployment_profile
    from conformance.mocks.launcher import MockCluster

    with MockCluster(profile) as cluster, tempfile.TemporaryDirectory(prefix="conformance-mocks-") as folder:
        described = Path(folder) / f"{profile.name}-deployment.toml"
        described.write_text(deployment_profile(profile, cluster), encoding="utf-8")
        os.environ.update(cluster.secrets)  # what the deployment profile names; masked like any secret
        print(f"local mocks started for the proxy; their keys: {', '.join(sorted(cluster.secrets))}", flush=True)
        return cmd_proxy(argparse.Namespace(**{**vars(args), "profile": str(described)}))


def selected_suites(requested: list[str] | None, profile: Profile) -> list[str]:
    """The suites a run collects: those asked for, each of which the profile must have a
    service for (exit 2 otherwise); by default, the suites of every service it has."""
    if not requested:
        return [s for s in SUITES if s in profile.services]
    missing = [s for s in requested if s not in profile.services]
    if missing:
        raise ConfigError(f"--suite {missing[0]}: profile {profile.name} has no [services.{missing[0]}] "
                          f"(it has: {', '.join(profile.services) or 'none'})")
    return list(dict.fromkeys(requested))


def build_pytest_args(args: argparse.Namespace, *, profile_ref: str, report_dir: Path, suites: list[str]) -> list[str]:
    # suites/passive too: the rules of one exchange judge every exchange of the run, at its end.
    out = [str(SUITES_DIR / s) for s in suites] + [str(SUITES_DIR / "passive")]
    out += ["--profile", profile_ref, "--report-dir", str(report_dir)]
    for name in args.mock_fault:
        out += ["--mock-fault", name]
    if args.seed is not None:
        out += ["--hypothesis-seed", str(args.seed)]
    if args.max_examples is not None:
        out += ["--fuzz-max-examples", str(args.max_examples)]
    if getattr(args, "fuzz_phases", None) is not None:
        out += ["--fuzz-phases", args.fuzz_phases]
    if args.max_duration is not None:
        out += ["--max-duration", str(args.max_duration)]
    for pattern in args.check:
        out += ["--check", pattern]
    if getattr(args, "waivers", None):
        out += ["--waivers", str(Path(args.waivers).resolve())]
    if getattr(args, "require_coverage", False):
        out.append("--require-coverage")
    if str(args.workers) not in ("0", "1"):
        out += ["-n", str(args.workers)]
    extra = list(args.pytest_args or [])
    if extra and extra[0] == "--":
        extra = extra[1:]
    return out + extra


# --------------------------------------------------------------------------- mock
def cmd_mock(args: argparse.Namespace) -> int:
    if args.list_faults:
        for fault in fault_catalogue.catalogue():
            print(f"{fault.name:55} {fault.description}")
        print("\nVariants (behaviour the specifications allow; no MUST check may fail under one):")
        for variant in fault_catalogue.variants():
            print(f"{variant.name:55} {variant.description} [allowed by {variant.allowed_by}]")
        return 0
    from conformance.mocks.deployment import deployment_profile
    from conformance.mocks.launcher import MockCluster, wait_until_stopped

    profile = load_profile(args.profile)
    if not profile.uses_mock:
        raise ConfigError(f"profile {profile.name} starts no mock servers")
    if not 0 <= args.answer_delay < float("inf"):  # NaN fails the comparison too
        raise ConfigError(f"--answer-delay {args.answer_delay:g}: expected a number of seconds, 0 or more")
    cluster = MockCluster(profile, fault_catalogue.resolve(args.fault), ports=_mock_ports(args),
                          answer_delay_s=args.answer_delay)
    with cluster:
        keys_file = Path(args.keys_file or reports_dir() / "mock-keys.env")
        _write_keys(keys_file, cluster.secrets)
        deployment = Path(args.deployment_profile or reports_dir() / "mock-deployment.toml")
        deployment.write_text(deployment_profile(profile, cluster), encoding="utf-8")
        for name, url in cluster.urls.items():
            print(f"{name}: {url}")
        auth = cluster.samples.get("auth", {})
        if auth:
            print(f"  filing API: {auth['filing_base']}  inquiry API: {auth['inquiry_base']}  aud: {auth['audience']}")
            clients = ", ".join(f"{k.removeprefix('client.')}={v}" for k, v in auth.items() if k.startswith("client."))
            print(f"  clients: {clients}; test PKI (signing keys): {auth['pki_dir']}")
            print(f"  client JWKS published at {auth['jwks_base']}/<document>.json (good.json: current and next keys)")
        if args.fault:
            print(f"faults on: {', '.join(args.fault)}")
        if args.answer_delay:
            print(f"every answer held {args.answer_delay:g} s")
        print(f"API keys written to {keys_file} (source it, or copy it to .env)")
        print(f"the mocks as a deployment: {deployment} (conformance proxy --profile {deployment})")
        wait_until_stopped(ready=lambda: print("Ctrl-C stops.", flush=True))
        print("stopping mock servers", flush=True)
    return 0


def _mock_ports(args: argparse.Namespace) -> dict[str, int]:
    ports = {}
    if args.base_port is not None:
        ports = {name: args.base_port + offset for offset, name in enumerate(SUITES)}
    for given in args.port:
        name, _, port = given.partition("=")
        if name not in SUITES or not port.isdigit():
            raise ConfigError(f"--port {given}: expected SERVICE=PORT with SERVICE one of {', '.join(SUITES)}")
        ports[name] = int(port)
    for name, port in ports.items():
        if not 1 <= port <= 65535:
            raise ConfigError(f"--port {name}={port}: not a port number (1 to 65535)")
    return ports


def _write_keys(path: Path, secrets: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # an existing file keeps its mode through O_CREAT: made private before the keys go in
    with os.fdopen(fd, "w") as handle:
        handle.writelines(f"{name}={value}\n" for name, value in sorted(secrets.items()))


# --------------------------------------------------------------------------- profiles
def cmd_profile_new(args: argparse.Namespace) -> int:
    from conformance.profile_new import next_steps, write_skeleton

    path = write_skeleton(args.name, args.out)
    print(next_steps(args.name, path), end="")
    return int(ExitCode.OK)


def cmd_profiles(args: argparse.Namespace) -> int:
    """The profiles: ./profiles/ of the working directory, then the shipped ones. A name both
    have is refused by `--profile` (conformance.profiles._refuse_shadowing): the note says so."""
    both = {p.stem for p in local_profiles()} & {p.stem for p in shipped_profiles()}
    for where, paths in (("./profiles", local_profiles()), ("shipped", shipped_profiles())):
        for path in paths:
            note = " (name in ./profiles and shipped: refused, give the path)" if path.stem in both else ""
            try:
                profile = load_profile(str(path))
            except ConfigError as exc:
                print(f"{path.stem:15} [{where}] INVALID: {exc}")
                continue
            targets = ", ".join(
                f"{name}: {'local mock' if svc.mock else svc.base_url}" for name, svc in profile.services.items()
            )
            switches = ", ".join(k for k in ("fuzz", "negative", "flood") if getattr(profile.safety, k)) or "none"
            print(f"{profile.name:15} [{where}]{note} {profile.description}")
            print(f"{'':15} {path}")
            print(f"{'':15} targets: {targets}; allows: {switches}")
    return 0


def console() -> None:
    """The `conformance` command and `python -m conformance.cli`: `main`, then a quick exit.

    By the time `main` returns every report is written and closed and the exit functions
    (atexit) are run here, and the interpreter's teardown is skipped
    (`conformance.run_control.end_process`: about 0.25 s per run, a tenth of the harness's
    overhead on contract fuzzing, benchmarks/harness_overhead.py). Tests call `main`, which
    returns."""
    try:
        code = main()
    except BrokenPipeError:  # `conformance profiles | head`: the reader has gone, say nothing more
        code = 1
    from conformance.run_control import end_process

    end_process(code)


if __name__ == "__main__":
    console()
