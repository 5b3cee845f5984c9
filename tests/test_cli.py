"""The CLI's answers to bad input: exit codes 2 and 3 with clear messages, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import forked_cli
import pytest

from conformance.paths import CHECKOUT as REPO_ROOT

CLI = [sys.executable, "-m", "conformance.cli"]


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return forked_cli.run([*CLI, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=REPO_ROOT, env={**os.environ, **(env or {})})


def vendor_profile(tmp_path: Path, base_url: str, key_env: str = "VENDOR_TEST_KEY") -> str:
    path = tmp_path / "vendor.toml"
    path.write_text(f"""
[profile]
name = "vendor"
description = "test"
[services.address]
mock = false
base_url = "{base_url}"
[services.address.secrets]
api_key = "{key_env}"
""")
    return str(path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stdout + result.stderr


def test_profiles_lists_shipped_profiles() -> None:
    result = run_cli("profiles")
    assert result.returncode == 0
    for name in ("local-mock", "production", "external-test"):
        assert name in result.stdout
    assert "local mock" in result.stdout


def test_malformed_profile_is_exit_2_naming_the_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[profile]\nname = "x"\ndescription = "y"\n[services.address]\nmock = true\nsecrets = {api_key = "K"}\nsurprise = 1\n')
    result = run_cli("run", "--profile", str(path), "--no-html")
    assert result.returncode == 2
    assert "unknown key services.address.surprise" in result.stderr and "bad.toml" in result.stderr
    assert_clean(result)


def test_unreachable_environment_is_exit_3(tmp_path: Path) -> None:
    # A loopback port nobody listens on: unreachable without leaving the machine.
    profile = vendor_profile(tmp_path, f"http://127.0.0.1:{free_port()}/v2")
    result = run_cli("run", "--profile", profile, "--no-html", "--report-dir", str(tmp_path / "r"),
                     env={"VENDOR_TEST_KEY": "x" * 12})
    assert result.returncode == 3, result.stdout + result.stderr
    assert "unreachable" in (result.stdout + result.stderr)
    assert_clean(result)
    # the report directory says so too
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert (summary["verdict"], summary["exit_code"]) == ("UNREACHABLE", 3) and "unreachable" in summary["stopped"]


def test_missing_secret_is_named_even_when_the_server_is_down(tmp_path: Path) -> None:
    profile = vendor_profile(tmp_path, f"http://127.0.0.1:{free_port()}/v2", key_env="VENDOR_UNSET_KEY")
    env = {k: v for k, v in os.environ.items() if k != "VENDOR_UNSET_KEY"}
    result = forked_cli.run([*CLI, "run", "--profile", profile, "--no-html", "--report-dir", str(tmp_path / "r")],
                            capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "VENDOR_UNSET_KEY" in result.stderr and "services.address.secrets.api_key" in result.stderr
    assert_clean(result)


def test_every_named_secret_of_every_service_is_required(tmp_path: Path) -> None:
    path = tmp_path / "vendor-auth.toml"
    path.write_text(f"""
[profile]
name = "vendor-auth"
description = "an authorization server whose client secret is not exported"
[services.auth]
mock = false
auth_url = "http://127.0.0.1:{free_port()}"
filing_base = "http://127.0.0.1:9"
inquiry_base = "http://127.0.0.1:9"
redirect_uri = "http://127.0.0.1:8765/callback"
[services.auth.secrets]
client_secret = "VENDOR_UNSET_CLIENT_SECRET"
[services.address]
mock = false
base_url = "http://127.0.0.1:{free_port()}/v2"
[services.address.secrets]
api_key = "VENDOR_SET_KEY"
""")
    env = {**{k: v for k, v in os.environ.items() if k != "VENDOR_UNSET_CLIENT_SECRET"}, "VENDOR_SET_KEY": "k" * 12}
    for args in (["run", "--profile", str(path), "--no-html", "--report-dir", str(tmp_path / "r")],
                 ["run", "--profile", str(path), "--suite", "address", "--no-html", "--report-dir", str(tmp_path / "r")]):
        result = forked_cli.run([*CLI, *args], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
        assert result.returncode == 2, result.stdout + result.stderr
        assert "VENDOR_UNSET_CLIENT_SECRET" in result.stderr and "services.auth.secrets.client_secret" in result.stderr
        assert "authorization server" in result.stderr
        assert_clean(result)


def test_unwritable_report_dir_is_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = run_cli("run", "--suite", "soap", "--no-html", "--report-dir", str(blocker / "run"))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "report directory" in result.stderr and "not writable" in result.stderr
    assert_clean(result)


def test_missing_secret_is_exit_2_naming_the_variable(tmp_path: Path) -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        profile = vendor_profile(tmp_path, f"http://127.0.0.1:{server.server_port}/v2", key_env="VENDOR_UNSET_KEY")
        env = {k: v for k, v in os.environ.items() if k != "VENDOR_UNSET_KEY"}
        result = forked_cli.run([*CLI, "run", "--profile", profile, "--no-html", "--report-dir", str(tmp_path / "r")],
                                capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    finally:
        server.shutdown()
    assert result.returncode == 2, result.stdout + result.stderr
    assert "VENDOR_UNSET_KEY" in result.stdout + result.stderr
    assert_clean(result)


def test_mock_fault_needs_a_mock_profile() -> None:
    result = run_cli("run", "--profile", "production", "--mock-fault", "address.api_version_missing", "--no-html")
    assert result.returncode == 2 and "starts none" in result.stderr
    assert_clean(result)


def test_unknown_fault_is_exit_2() -> None:
    result = run_cli("run", "--mock-fault", "address.no_such_fault", "--no-html")
    assert result.returncode == 2 and "address.no_such_fault" in result.stderr


def test_list_faults_prints_the_catalogue() -> None:
    from conformance.mocks.faults import catalogue, variants

    result = run_cli("mock", "--list-faults")
    assert result.returncode == 0
    faults, _, rest = result.stdout.strip().partition("\n\nVariants")
    lines = faults.splitlines()
    assert len(lines) == len(catalogue()) > 0
    assert all(line.split()[0].startswith(("address.", "soap.", "auth.")) and len(line.split()) > 1 for line in lines)
    listed = rest.splitlines()[1:]
    assert len(listed) == len(variants()) > 0 and all("[allowed by " in line for line in listed)


def start_mock(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    """`conformance mock ARGS` in the foreground, and what it printed up to its "Ctrl-C" line."""
    proc = subprocess.Popen([*CLI, "mock", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=REPO_ROOT)
    lines = []
    for line in proc.stdout:  # type: ignore[union-attr]
        lines.append(line)
        if "Ctrl-C" in line:
            break
    return proc, lines


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_mock_runs_in_foreground_and_stops_on_ctrl_c(tmp_path: Path, stop_signal: int) -> None:
    keys = tmp_path / "keys.env"
    proc, lines = start_mock("--keys-file", str(keys))
    try:
        url = next(line.split(": ", 1)[1].strip() for line in lines if line.startswith("address: "))
        assert url.startswith("http://127.0.0.1:")
        import httpx

        assert httpx.get(url + "/adressen", trust_env=False).status_code == 401  # it serves, and wants a key
        assert oct(keys.stat().st_mode & 0o777) == "0o600"
        secret = keys.read_text().split("=", 1)[1].split()[0]
        assert secret not in "".join(lines)  # keys go to the file, never to the console
        proc.send_signal(stop_signal)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "stopping" in out and "Traceback" not in err


def test_plain_pytest_on_suites_is_a_conformance_run(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "suites/soap", "--profile", "local-mock", "--mock-fault",
         "soap.fault_with_http_200", "--report-dir", str(tmp_path), "-q"],
        capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
    )
    assert result.returncode == 1, result.stdout[-2000:]  # a MUST check failed under the fault
    assert "conformance verdict" in result.stdout
    import json

    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["faults"] == ["soap.fault_with_http_200"]
    assert any(e["outcome"] == "failed" and e["severity"] == "MUST" for e in summary["checks"])
    assert (tmp_path / "junit.xml").is_file() and any((tmp_path / "allure-results").iterdir())


def test_a_suite_the_profile_has_no_service_for_is_exit_2(tmp_path: Path) -> None:
    profile = vendor_profile(tmp_path, f"http://127.0.0.1:{free_port()}/v2")
    result = run_cli("run", "--profile", profile, "--suite", "soap", "--no-html", "--report-dir", str(tmp_path / "r"),
                     env={"VENDOR_TEST_KEY": "x" * 12})
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--suite soap" in result.stderr and "no [services.soap]" in result.stderr
    assert_clean(result)


def test_a_run_that_selects_no_check_is_exit_2(tmp_path: Path) -> None:
    result = run_cli("run", "--suite", "soap", "-n", "0", "--no-html", "--report-dir", str(tmp_path),
                     "--", "-k", "no_check_is_called_this")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "no checks selected" in result.stdout
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["exit_code"], summary["counts"]["passed"]) == (2, 0) and "nothing to run" in summary["verdict_reason"]


def test_check_selects_the_checks_it_names(tmp_path: Path) -> None:
    result = run_cli("run", "--suite", "soap", "-n", "0", "--no-html", "--report-dir", str(tmp_path),
                     "--check", "soap.request.*_rejected", "--check", "soap.response.status_ok")
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    ran = {e["check"] for e in summary["checks"]}
    assert list(summary["targets"]) == ["soap"], "only the selected suite's mock is started"
    assert "soap.response.status_ok" in ran and "soap.request.doctype_rejected" in ran
    assert all(c == "soap.response.status_ok" or (c.startswith("soap.request.") and c.endswith("_rejected"))
               for c in ran), ran


def test_a_check_that_names_no_check_is_exit_2() -> None:
    result = run_cli("run", "--suite", "soap", "--no-html", "--check", "soap.no_such_check")
    assert result.returncode == 2 and "--check soap.no_such_check: no check has that id" in result.stderr
    assert_clean(result)


def test_a_run_in_which_no_check_executed_is_exit_4(tmp_path: Path) -> None:
    """Every selected check is switched off by the profile: nothing was judged, so no "conforms"."""
    text = (REPO_ROOT / "profiles" / "local-mock.toml").read_text()
    text = text.replace('"../openapi/', f'"{REPO_ROOT}/conformance/openapi/').replace("negative = true", "negative = false")
    profile = tmp_path / "no-negative.toml"
    profile.write_text(text)
    result = run_cli("run", "--profile", str(profile), "--suite", "soap", "-n", "0", "--no-html",
                     "--report-dir", str(tmp_path / "r"), "--", "-k", "test_soap_bad_requests")
    assert result.returncode == 4, result.stdout + result.stderr
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    counts = summary["counts"]
    # A safety switch leaves a check not judged (issue 34: it applies, the profile chose not to judge it).
    assert counts["not_judged"] > 0 and sum(counts[o] for o in ("passed", "failed", "blocked", "error", "observation")) == 0
    assert summary["verdict_reason"].startswith("could not judge: no checks ran")
    assert "could not judge: no checks ran" in result.stdout


def test_mock_takes_fixed_ports_and_describes_itself_as_a_deployment(tmp_path: Path) -> None:
    port = free_port()
    deployment = tmp_path / "deployment.toml"
    proc, lines = start_mock("--port", f"address={port}", "--keys-file", str(tmp_path / "keys.env"),
                             "--deployment-profile", str(deployment))
    try:
        address = next(line.split(": ", 1)[1].strip() for line in lines if line.startswith("address: "))
        assert address.startswith(f"http://127.0.0.1:{port}/")
        assert any(str(deployment) in line for line in lines)
        from conformance.profiles import load_profile

        described = load_profile(str(deployment))
        assert not described.uses_mock and described.address.base_url == address
        assert described.auth is not None and described.auth.clock["url"].endswith("/__mock__/clock")
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0


def test_a_bad_mock_port_is_exit_2() -> None:
    result = run_cli("mock", "--port", "adress=8000")
    assert result.returncode == 2 and "SERVICE=PORT" in result.stderr
    assert_clean(result)


def test_soap_wsdl_writes_a_wsdl_a_client_loads(tmp_path: Path) -> None:
    import zeep

    url = "http://127.0.0.1:18501/netbeheerder/graafbericht"
    result = run_cli("soap", "wsdl", "--out", str(tmp_path), "--url", url)
    assert result.returncode == 0, result.stderr
    wsdl = Path(result.stdout.strip())
    assert b"{soap_url}" not in wsdl.read_bytes() and b"{soap_action_base}" not in wsdl.read_bytes()
    client = zeep.Client(str(wsdl), settings=zeep.Settings(strict=True, forbid_dtd=True, forbid_entities=True,
                                                           forbid_external=True))
    port = client.wsdl.services["RegistryNetbeheerderGraafBerichtService"].ports["RegistryNetbeheerderGraafBerichtServicePort"]
    assert port.binding_options["address"] == url
    operation = port.binding.get("RegistryRequestNetbeheerderServiceResponse")  # seed 001 part 4
    assert operation.soapaction == "urn:registry:graafbericht/RequestNetbeheerderServiceResponse"


def test_a_configuration_error_in_the_run_leaves_no_folder_it_made(tmp_path: Path) -> None:
    """Issue 43: every configuration error left an empty run folder (and `matrix reports/*` failed
    on them). Found once the run has started (here: a waivers file that is not there), the
    folders the run made go; a folder the user named that was there before stays."""
    missing = str(tmp_path / "no-waivers.toml")
    nested = tmp_path / "reports" / "nightly" / "vendor-a"
    result = run_cli("run", "--suite", "soap", "-n", "0", "--no-html", "--waivers", missing, "--report-dir", str(nested))
    assert result.returncode == 2 and "no-waivers.toml" in result.stderr, result.stdout[-2000:] + result.stderr[-2000:]
    assert_clean(result)
    assert not (tmp_path / "reports").exists(), "neither the run folder nor the parents it made stay"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("kept")
    result = run_cli("run", "--suite", "soap", "-n", "0", "--no-html", "--waivers", missing, "--report-dir", str(mine))
    assert result.returncode == 2
    assert (mine / "notes.txt").read_text() == "kept"
    # The same through pytest itself, found by the plugin's preparation after it made the folder
    # (a secret not set): no folder of its making stays.
    plain = tmp_path / "plain" / "run"
    env = {k: v for k, v in os.environ.items() if k != "UNSET_VENDOR_KEY"}
    result = subprocess.run([sys.executable, "-m", "pytest", "suites/address", "-p", "no:cacheprovider", "-q",
                             "--profile", vendor_profile(tmp_path, "http://127.0.0.1:9/v2", "UNSET_VENDOR_KEY"),
                             "--report-dir", str(plain)],
                            capture_output=True, text=True, timeout=120, cwd=REPO_ROOT, env=env)
    assert result.returncode == 2 and "UNSET_VENDOR_KEY" in result.stdout + result.stderr, result.stdout[-2000:]
    assert not (tmp_path / "plain").exists()


def test_the_seed_option_takes_a_number_or_random() -> None:
    from conformance.cli import build_parser, build_pytest_args

    parser = build_parser()
    args = parser.parse_args(["run", "--seed", "12"])
    assert "--hypothesis-seed" in (built := build_pytest_args(args, profile_ref="p", report_dir=Path("/r"), suites=[]))
    assert built[built.index("--hypothesis-seed") + 1] == "12"
    assert parser.parse_args(["run", "--seed", "random"]).seed == "random"
    default = build_pytest_args(parser.parse_args(["run"]), profile_ref="p", report_dir=Path("/r"), suites=[])
    assert "--hypothesis-seed" not in default  # the run derives it from the profile
    with pytest.raises(SystemExit):
        parser.parse_args(["run", "--seed", "-3"])


def test_a_run_leaves_out_assert_rewriting_and_the_finalizer_collections_unless_told() -> None:
    """conformance/runner.py: both cost seconds per process and judge nothing; `--` wins."""
    from conformance.runner import with_defaults

    assert with_defaults(["suites/soap"]) == ["--assert=plain", "-p", "no:unraisableexception", "suites/soap"]
    assert with_defaults(["suites/soap", "--assert=rewrite"]) == ["-p", "no:unraisableexception", "suites/soap",
                                                                  "--assert=rewrite"]
    assert with_defaults(["-p", "unraisableexception", "--assert", "rewrite"]) == [
        "-p", "unraisableexception", "--assert", "rewrite"]


def test_a_runs_worker_ends_after_every_exit_function_without_taking_its_objects_apart(tmp_path: Path) -> None:
    """An xdist worker of a run registers `end_after_exit_functions` last: it runs the exit
    functions registered before it (a log's flush, a lock's removal), flushes what was printed
    and ends the process, skipping only the interpreter's own teardown."""
    marker = tmp_path / "ran.txt"
    script = f"""
import atexit, sys
from pathlib import Path
atexit.register(lambda: Path({str(marker)!r}).write_text("earlier exit function ran"))
from conformance.run_control import end_after_exit_functions
atexit.register(end_after_exit_functions)
class Noisy:
    def __del__(self):
        print("taken apart", flush=True)
kept = Noisy()
sys.stdout.write("printed before the end")
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert marker.read_text() == "earlier exit function ran"
    assert proc.stdout == "printed before the end"  # flushed, and no finalizer ran after it
