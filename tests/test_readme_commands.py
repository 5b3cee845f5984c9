"""Every shell command the README, the manual's pages (docs/*.md) and CONTRIBUTING.md show runs
in a test (issue 53). Each is listed in COMMANDS with the test that runs it: a test of this
module that runs its text as written (through bash, from a folder with the checkout's
virtualenv, `<...>` filled in), another test of the project that runs it (named by its node
id), or why no test can (an exemption, with its reason). A command a page gains without an
entry, or an entry no page shows, fails `test_every_documented_command_runs_in_a_test`.

Also the commands the pages and tox.ini show for the checkout's layout: `pytest suites
--profile local-mock` (the suites are plain pytest), a suite folder of its own, the lint
`tox -e lint` and .ci/run run (scripts/lint), and a team's own profile in ./profiles/ found by
name."""

from __future__ import annotations

import configparser
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.paths import CHECKOUT

assert CHECKOUT is not None
ROOT = CHECKOUT
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXT = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
PYTEST = [sys.executable, "-m", "pytest"]
SHELL_FENCES = ("sh", "bash", "shell")


def documented_commands() -> dict[str, list[str]]:
    """Each command of a shell block of the pages (a line, its continuations joined, without its
    comment) -> the pages that show it."""
    found: dict[str, list[str]] = {}
    for page in PAGES:
        for body in shell_blocks(page.read_text(encoding="utf-8")):
            for line in body.replace("\\\n", " ").splitlines():
                command = re.split(r"\s+#\s", line.strip(), maxsplit=1)[0].strip()
                if command and not command.startswith("#"):
                    found.setdefault(" ".join(command.split()), []).append(page.name)
    return found


def shell_blocks(text: str) -> list[str]:
    """The bodies of the fenced blocks marked sh, bash or shell, fence by fence."""
    blocks: list[str] = []
    fence: str | None = None
    body: list[str] = []
    for line in text.splitlines():
        if fence is None and line.startswith("```"):
            fence, body = line[3:].strip(), []
        elif fence is not None and line.startswith("```"):
            if fence in SHELL_FENCES:
                blocks.append("\n".join(body))
            fence = None
        elif fence is not None:
            body.append(line)
    return blocks


HERE = "here: "  # a test of this module runs the command as written
ELSEWHERE = "test: "  # another test of the project runs it
EXEMPT = "exempt: "  # no test can, and why

RECIPE = "test: tests/test_contributing_recipe.py::test_a_rule_added_by_the_recipes_three_files_is_proven_both_ways"

COMMANDS = {
    # The README's two first commands.
    # The full run is its three suites against the clean mock (scripts/bootstrap: below).
    "scripts/bootstrap && .venv/bin/conformance run": "test: tests/test_fault_catalogue.py::test_clean_mock_passes_every_check",
    "scripts/bootstrap && .venv/bin/pytest -n auto tests":
        EXEMPT + "it is CI itself: .ci/run ends with it (test_ci_runs_the_readmes_second_command), and a test "
                 "cannot run the session it belongs to",
    # Testing your own deployment (README, docs/getting-started.md).
    "scripts/bootstrap":
        EXEMPT + "it made the virtualenv this session runs in (.ci/run starts with it); its install is checked by "
                 "tests/test_dependency_lock.py and the installed tool's tests",
    ".venv/bin/conformance profile new vendor-x": HERE + "test_your_own_deployment_as_the_pages_write_it",
    "$EDITOR vendor-x.toml":
        EXEMPT + "a person's edit: test_your_own_deployment_as_the_pages_write_it makes it (base_url, the rate)",
    "export VENDOR_X_API_KEY=...": HERE + "test_your_own_deployment_as_the_pages_write_it",
    ".venv/bin/conformance discover --profile vendor-x.toml": HERE + "test_your_own_deployment_as_the_pages_write_it",
    ".venv/bin/conformance pki init --out pki-vendor-x": HERE + "test_your_own_deployment_as_the_pages_write_it",
    ".venv/bin/conformance run --profile vendor-x.toml --suite address":
        HERE + "test_your_own_deployment_as_the_pages_write_it",
    ".venv/bin/conformance report --open": HERE + "test_your_own_deployment_as_the_pages_write_it",
    # docs/install.md: tests/test_installed_tool.py runs each block as the page writes it.
    ".venv/bin/python -m build --no-isolation": "test: tests/test_installed_tool.py::checkout",
    "wheel=dist/registry_conformance-0.1.0-py3-none-any.whl":
        "test: tests/test_installed_tool.py::test_the_readme_pipx_install_takes_the_lock_and_the_wheel_by_their_hashes",
    'PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE=1 pipx install --pip-args="--require-hashes -r '
    '$PWD/tools/requirements.lock" "registry-conformance @ file://$PWD/$wheel#sha256=$(sha256sum "$wheel" | '
    "cut -d' ' -f1)\"":
        "test: tests/test_installed_tool.py::test_the_readme_pipx_install_takes_the_lock_and_the_wheel_by_their_hashes",
    "cd /where/reports/should/go && conformance run --profile vendor-x.toml --suite address":
        "test: tests/test_installed_tool.py::test_an_installed_run_from_an_empty_directory_judges_and_reports_there",
    "python -m pip install --require-hashes -r tools/requirements.lock": "test: tests/test_installed_tool.py::installed",
    "python -m pip install --no-deps dist/registry_conformance-0.1.0-py3-none-any.whl":
        "test: tests/test_installed_tool.py::installed",
    "mkdir -p ~/.local/share/registry-conformance":
        "test: tests/test_installed_tool.py::test_the_report_renderer_is_installed_from_the_npm_lock",
    "cp tools/package.json tools/package-lock.json ~/.local/share/registry-conformance/":
        "test: tests/test_installed_tool.py::test_the_report_renderer_is_installed_from_the_npm_lock",
    "npm ci --prefix ~/.local/share/registry-conformance":
        "test: tests/test_installed_tool.py::test_the_report_renderer_is_installed_from_the_npm_lock",
    # docs/cli.md: the suites are plain pytest.
    ".venv/bin/pytest suites --profile local-mock": HERE + "test_pytest_suites_with_a_profile_is_a_conformance_run",
    ".venv/bin/pytest suites/address --profile my-vendor.toml -n 4": HERE + "test_pytest_on_one_suite_folder_with_workers",
    ".venv/bin/conformance run --check 'address.pagination.*'": "test: tests/test_cli.py::test_check_selects_the_checks_it_names",
    ".venv/bin/conformance run --check soap.request.doctype_rejected": HERE + "test_one_check_and_one_test_by_name",
    ".venv/bin/conformance run -- -k pagination": HERE + "test_one_check_and_one_test_by_name",
    '.venv/bin/conformance run -- -k "test_page_size"': HERE + "test_one_check_and_one_test_by_name",
    '.venv/bin/conformance run -- -m "not fuzz"': HERE + "test_one_check_and_one_test_by_name",
    ".venv/bin/conformance run --seed 1234 -- -k test_contract": HERE + "test_one_check_and_one_test_by_name",
    # docs/check-reference.md
    ".venv/bin/conformance run --suite address --check address.headers.api_version_present":
        HERE + "test_one_check_and_one_test_by_name",
    ".venv/bin/conformance mock --list-faults": "test: tests/test_cli.py::test_list_faults_prints_the_catalogue",
    ".venv/bin/conformance requirements": HERE + "test_the_requirements_commands_and_scripts_regenerate",
    # docs/requirements.md, CONTRIBUTING.md: the specification texts live outside the repository.
    ".venv/bin/conformance requirements --audit --seeds ../shared/seeds":
        HERE + "test_the_requirements_commands_and_scripts_regenerate",
    # CONTRIBUTING.md's recipe, run as written in a copy of the tree (without the specification
    # texts, scripts/regenerate says so in one line: test_the_requirements_commands_and_scripts_regenerate).
    "CONFORMANCE_SEEDS_DIR=../shared/seeds scripts/regenerate": RECIPE,
    ".venv/bin/pytest tests/test_fault_catalogue.py -k address.allow_missing_on_405": RECIPE,
    ".venv/bin/pytest tests/test_variants.py -k address": RECIPE,
    ".venv/bin/conformance run --suite address --check address.operations.allow_on_405": RECIPE,
    # docs/token-flows.md: a test PKI served on another port.
    ".venv/bin/conformance pki init --out pki-vendor-x --crl-base http://127.0.0.1:9100/crl":
        HERE + "test_a_test_pki_made_for_a_port_is_served_there",
    ".venv/bin/conformance pki show pki-vendor-x": HERE + "test_a_test_pki_made_for_a_port_is_served_there",
    ".venv/bin/conformance pki serve pki-vendor-x": HERE + "test_a_test_pki_made_for_a_port_is_served_there",
    # docs/reports.md
    ".venv/bin/conformance report reports/<run>": "test: tests/test_report_html.py::test_report_command_renders_and_prints_the_url",
    ".venv/bin/conformance diff reports/<old run> reports/<new run>": "test: tests/test_diff.py::test_pass_to_fail_is_a_regression",
    "node --import ./conformance/reporting/node_polyfills.mjs tools/node_modules/allure/cli.js quality-gate "
    "reports/<run>/allure-results --config reports/<run>/allurerc.mjs":
        "test: tests/test_report_html.py::test_the_ring_and_the_gate_count_must_checks_as_the_verdict_does",
    # docs/security.md: relocking asks the package index, which no test reaches.
    "scripts/bootstrap --relock":
        EXEMPT + "it asks the package index (PyPI), beyond the loopback the tests may reach; "
                 "tests/test_dependency_lock.py checks the command it runs and the lock it writes",
    "scripts/bootstrap --relock --upgrade-package NAME":
        EXEMPT + "it asks the package index (PyPI), beyond the loopback the tests may reach; "
                 "tests/test_dependency_lock.py checks the command it runs and the lock it writes",
    # docs/traffic.md: the mocks as a deployment, behind the proxy.
    ".venv/bin/conformance traffic traffic.har --profile vendor-x.toml":
        "test: tests/test_passive_traffic.py::test_faithful_traffic_passes_every_server_check",
    ".venv/bin/conformance mock --base-port 18400":
        "test: tests/test_cli.py::test_mock_takes_fixed_ports_and_describes_itself_as_a_deployment",
    "set -a; . reports/mock-keys.env; set +a": HERE + "test_your_own_deployment_as_the_pages_write_it",
    ".venv/bin/conformance proxy --profile reports/mock-deployment.toml --listen 127.0.0.1:18500":
        "test: tests/test_proxy.py::test_a_client_through_the_proxy_is_judged_live_and_in_the_report",
    ".venv/bin/conformance soap wsdl --out wsdl/ --url http://127.0.0.1:18501/netbeheerder/graafbericht":
        "test: tests/test_cli.py::test_soap_wsdl_writes_a_wsdl_a_client_loads",
    # docs/compare.md: the register's production is beyond loopback; its profile, pointed at a mock.
    ".venv/bin/conformance compare --profile vendor-x.toml --reference production":
        HERE + "test_a_comparison_asks_only_for_the_address_apis_secrets",
    ".venv/bin/conformance compare --profile vendor-x.toml --reference production --requests integrator.har":
        "test: tests/test_compare.py::test_a_hars_get_requests_are_replayed_against_both_sides",
    # docs/proven-against.md: the interop tier is part of this test session.
    ".venv/bin/pytest -p no:xdist -q -s tests/interop/test_oidc_provider.py -k seedlike":
        EXEMPT + "a module of this test session (tests/interop): the session runs it",
    ".venv/bin/pytest -p no:xdist -q -s tests/interop/test_prism_address.py":
        EXEMPT + "a module of this test session (tests/interop): the session runs it",
    ".venv/bin/pytest -p no:xdist -q -s tests/interop/test_soap_peer.py":
        EXEMPT + "a module of this test session (tests/interop): the session runs it",
    ".venv/bin/python tests/interop/record.py": "test: tests/interop/test_prism_address.py::test_the_recording_script_starts_as_scripts_regenerate_runs_it",
    # docs/ci.md
    ".venv/bin/conformance matrix reports/* --out matrix/":
        "test: tests/test_environment_matrix.py::test_matrix_over_reports_star_with_a_configuration_error_attempt",
    # docs/contributing.md: the manual, the lint, tox.
    "scripts/docs site/": "test: tests/test_docs_site.py::test_the_manual_builds_strictly_with_a_page_per_check_id",
    "scripts/lint": HERE + "test_the_lint_of_tox_and_ci_is_scripts_lint",
    "CONFORMANCE_AUDIT_OFFLINE=skip scripts/lint": HERE + "test_the_lint_of_tox_and_ci_is_scripts_lint",
    ".venv/bin/tox -e lint":
        EXEMPT + "tox builds a virtualenv of its own from the package index; test_the_lint_of_tox_and_ci_is_scripts_lint "
                 "checks that tox.ini's lint is scripts/lint, and runs it",
}


def _shown(command: str) -> None:
    assert command in TEXT, f"no page shows `{command}` any more: update this test with it"


def _node(reference: str) -> bool:
    """Whether `path::name` names a test function or fixture of the project."""
    path, _, name = reference.partition("::")
    file = ROOT / path
    return file.is_file() and re.search(rf"^(?:async )?def {re.escape(name)}\(", file.read_text(encoding="utf-8"),
                                        re.M) is not None


def test_every_documented_command_runs_in_a_test() -> None:
    shown = documented_commands()
    assert sorted(set(shown) - set(COMMANDS)) == [], "commands the pages show that no test runs (add them to COMMANDS)"
    assert sorted(set(COMMANDS) - set(shown)) == [], "COMMANDS lists commands no page shows any more"
    module = sys.modules[__name__]
    for command, how in COMMANDS.items():
        if how.startswith(HERE):
            assert callable(getattr(module, how.removeprefix(HERE), None)), f"{command!r}: no test {how}"
        elif how.startswith(ELSEWHERE):
            assert _node(how.removeprefix(ELSEWHERE)), f"{command!r}: {how} does not exist"
        else:
            assert how.startswith(EXEMPT) and len(how.split()) >= 8, f"{command!r}: an exemption says why"


def _plain_pytest(tmp_path: Path, *args: str) -> dict:
    report = tmp_path / "report"
    proc = subprocess.run([*PYTEST, *args, "--report-dir", str(report), "-q", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads((report / "summary.json").read_text())


def test_pytest_suites_with_a_profile_is_a_conformance_run(tmp_path: Path) -> None:
    _shown(".venv/bin/pytest suites --profile local-mock")
    summary = _plain_pytest(tmp_path, "suites", "--profile", "local-mock", "-k", "test_limits_accepted")
    assert summary["exit_code"] == 0
    assert {e["check"] for e in summary["checks"]} == {"address.pagination.limits_accepted"}


def test_pytest_on_one_suite_folder_with_workers(tmp_path: Path) -> None:
    _shown(".venv/bin/pytest suites/address --profile my-vendor.toml -n 4")
    profile = tmp_path / "my-vendor.toml"
    shutil.copy(ROOT / "profiles" / "local-mock.toml", profile)
    summary = _plain_pytest(tmp_path, "suites/address", "--profile", str(profile), "-n", "2",
                            "-k", "test_page_size_below_minimum_rejected")
    assert summary["profile"] == "local-mock"
    assert {e["check"] for e in summary["checks"]} == {"address.pagination.page_size_below_minimum_rejected"}
    assert {e["outcome"] for e in summary["checks"]} == {"passed"}


def test_the_lint_of_tox_and_ci_is_scripts_lint() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini")
    assert tox["testenv:lint"]["commands"].strip() == "{toxinidir}/scripts/lint"
    assert "scripts/lint" in (ROOT / ".ci" / "run").read_text()
    if not (ROOT / "tools" / "node_modules" / ".bin" / "spectral").exists() and not os.environ.get("CI"):
        pytest.skip("spectral is not installed (scripts/bootstrap installs it where npm is)")
    # The audits' databases pointed at a closed loopback port: no network beyond this machine,
    # and the lint says it could not audit (a warning with CONFORMANCE_AUDIT_OFFLINE=skip).
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "CONFORMANCE_AUDIT_OFFLINE": "skip", "PIP_AUDIT_VULNERABILITY_SERVICE": "osv",
           "PIP_AUDIT_OSV_URL": "http://127.0.0.1:9/v1/query", "npm_config_registry": "http://127.0.0.1:9/"}
    proc = subprocess.run([str(ROOT / "scripts" / "lint")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "All checks passed" in proc.stdout
    assert "SKIPPED pip-audit" in proc.stdout and "SKIPPED npm audit" in proc.stdout


def test_a_teams_profile_in_profiles_is_found_by_name_and_listed(tmp_path: Path) -> None:
    _shown("profiles/<name>.toml")
    (tmp_path / "profiles").mkdir()
    text = (ROOT / "profiles" / "local-mock.toml").read_text().replace('name = "local-mock"', 'name = "vendor-x"')
    (tmp_path / "profiles" / "vendor-x.toml").write_text(text)
    (tmp_path / "profiles" / "production.toml").write_text(text.replace('name = "vendor-x"', 'name = "production"'))
    listed = subprocess.run([sys.executable, "-m", "conformance.cli", "profiles"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert any(line.startswith("vendor-x") and "[./profiles]" in line for line in lines)
    assert any(line.startswith("production") and "[shipped] (name in ./profiles and shipped: refused, give the path)"
               in line for line in lines)
    run = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--profile", "vendor-x", "--suite", "address",
                          "--check", "address.pagination.limits_accepted", "-n", "0", "--no-html",
                          "--report-dir", str(tmp_path / "report")], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert json.loads((tmp_path / "report" / "summary.json").read_text())["profile"] == "vendor-x"


# ----------------------------------------------------------------------------- as written
def _folder(tmp_path: Path) -> Path:
    """A folder to run the pages' commands in as written: the checkout's virtualenv as .venv,
    the checkout's scripts as scripts/ (reports and files go here, not into the checkout)."""
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "scripts").symlink_to(ROOT / "scripts")
    return tmp_path


def _env(**extra: str) -> dict[str, str]:
    """The user's environment, but no report renderer (every run's HTML costs seconds; the
    report's tests render it) and no browser to open."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONFORMANCE_", "PYTEST_"))}
    return {**env, "CONFORMANCE_NODE_TOOLS": "/nonexistent/node-tools", "BROWSER": "true", **extra}


def _sh(command: str, cwd: Path, env: dict[str, str], *, written: str | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run a command a page shows, as written (or as `written`: the same with a placeholder filled,
    a free port, or the additions NARROWED names)."""
    _shown(command)
    return subprocess.run(["bash", "-c", written or command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _block(containing: str) -> list[str]:
    """The commands of the README's shell block that holds `containing`, in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("\n", 1)[1] for b in readme.split("```")[1::2] if b.startswith("sh\n") and containing in b]
    assert len(blocks) == 1, f"the README shows {len(blocks)} shell blocks with {containing!r}"
    return [re.split(r"\s+#\s", line.strip(), maxsplit=1)[0].strip() for line in blocks[0].splitlines() if line.strip()]


def _start(command: str, cwd: Path, env: dict[str, str], until: str) -> tuple[subprocess.Popen[str], list[str]]:
    """A command that serves until Ctrl-C, and what it printed up to the line holding `until`."""
    proc = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    for line in proc.stdout:  # type: ignore[union-attr]
        lines.append(line)
        if until in line:
            return proc, lines
    proc.wait(timeout=30)
    raise AssertionError(f"{command} ended before {until!r}: {''.join(lines)[-3000:]}")


def _stop(proc: subprocess.Popen[str]) -> int:
    import signal

    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc.returncode


def _keys(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if "=" in line)


def test_ci_runs_the_readmes_second_command() -> None:
    _shown("scripts/bootstrap && .venv/bin/pytest -n auto tests")
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert lines[-1] == ".venv/bin/pytest -n auto tests" and "scripts/bootstrap" in lines


def test_your_own_deployment_as_the_pages_write_it(tmp_path: Path) -> None:
    """The README's "Test your own deployment", command by command, against the local mocks
    served as a vendor's deployment (`conformance mock`): the skeleton, the person's edit (the
    base URL, the deployment's rate), the key, discover, the test PKI, the run, the report."""
    folder = _folder(tmp_path)
    env = {k: v for k, v in _env().items() if k != "CONFORMANCE_NODE_TOOLS"}  # `report --open` renders
    mock, printed = _start(".venv/bin/conformance mock", folder, env, "Ctrl-C")
    try:
        address = next(line.split(": ", 1)[1].strip() for line in printed if line.startswith("address: "))
        loaded = _sh("set -a; . reports/mock-keys.env; set +a", folder, env,
                     written="set -a; . reports/mock-keys.env; set +a; env")
        keys = _keys(folder / "reports" / "mock-keys.env")
        assert loaded.returncode == 0 and all(f"{k}={v}" in loaded.stdout for k, v in keys.items())
        import tomllib

        deployment = tomllib.loads((folder / "reports" / "mock-deployment.toml").read_text(encoding="utf-8"))
        key = keys[deployment["services"]["address"]["secrets"]["api_key"]]
        commands = _block(".venv/bin/conformance profile new vendor-x")
        assert 5 <= len(commands) <= 10, "at most ten commands"
        for command in commands:
            if command == "scripts/bootstrap":
                continue  # it made this virtualenv (COMMANDS)
            if command.startswith("$EDITOR "):  # what the person writes: the base URL, the deployment's rate
                profile = folder / "vendor-x.toml"
                text = profile.read_text(encoding="utf-8").replace(
                    "https://<host>/lvbag/individuelebevragingen/v2", address)
                profile.write_text(text.replace("requests_per_second = 5 ", "requests_per_second = 0 ")
                                   .replace("# request_budget = 2000", "request_budget = 300"), encoding="utf-8")
                continue
            if command == "export VENDOR_X_API_KEY=...":
                _shown(command)
                env["VENDOR_X_API_KEY"] = key
                continue
            result = _sh(command, folder, env)
            said = result.stdout[-3000:] + result.stderr[-3000:]
            assert "Traceback" not in said, said
            if " discover " in command:  # 1: a sample the mock's data cannot give (its checks: not judged)
                assert result.returncode in (0, 1), said
            elif " report --open" in command and not (ROOT / "tools" / "node_modules").is_dir() \
                    and not os.environ.get("CI"):  # Node tools not installed here: said so in one line
                assert result.returncode == 2 and "Allure 3 not installed" in said, said
            else:
                assert result.returncode == 0, said
        summary = json.loads(next((folder / "reports").glob("*-vendor-x/summary.json")).read_text())
        assert summary["profile"] == "vendor-x" and summary["exit_code"] == 0
        assert summary["targets"]["address"] == address
        assert (folder / "pki-vendor-x" / "jwks.json").is_file()
    finally:
        assert _stop(mock) == 0


# Commands that run too long as written beside the other tests: what is added to their text, and why.
NARROWED = {
    '.venv/bin/conformance run -- -m "not fuzz"': ("--suite soap", "every suite's scenario checks take a minute"),
    ".venv/bin/conformance run --seed 1234 -- -k test_contract": ("--max-examples 2 --fuzz-phases examples,fuzzing,stateful",
                                                                  "25 examples and some 1,000 coverage cases of 9 operations"),
}


def test_one_check_and_one_test_by_name(tmp_path: Path) -> None:
    """docs/cli.md's and docs/check-reference.md's ways of running part of the suites, against the
    local mock, each judging what it selects and nothing else."""
    folder = _folder(tmp_path)
    expected = {
        ".venv/bin/conformance run --check soap.request.doctype_rejected": {"soap.request.doctype_rejected"},
        ".venv/bin/conformance run --suite address --check address.headers.api_version_present":
            {"address.headers.api_version_present"},
        '.venv/bin/conformance run -- -k "test_page_size"': "address.pagination.page_size",
        ".venv/bin/conformance run -- -k pagination": "pagination",
        '.venv/bin/conformance run -- -m "not fuzz"': "soap.",
        ".venv/bin/conformance run --seed 1234 -- -k test_contract": "address.contract.",
    }
    for number, (command, selects) in enumerate(expected.items()):
        written = command
        if command in NARROWED:
            written = written.replace(" run ", f" run {NARROWED[command][0]} ", 1)
        report = folder / f"run-{number}"
        result = _sh(command, folder, _env(), written=written.replace(" run ", f" run --report-dir {report} ", 1))
        assert result.returncode == 0, command + "\n" + result.stdout[-3000:] + result.stderr[-3000:]
        checks = {e["check"] for e in json.loads((report / "summary.json").read_text())["checks"]}
        if isinstance(selects, set):
            assert checks == selects, command
        else:
            assert checks and all(selects in c for c in checks), (command, sorted(checks)[:5])
    assert ' "test_contract"' not in str(NARROWED)  # the seed replay stays a contract test


def test_the_requirements_commands_and_scripts_regenerate(tmp_path: Path) -> None:
    """The MUST audit reads the specification texts from ../shared/seeds of the checkout; without
    them it, and scripts/regenerate, which runs it, say so in one line and exit 2."""
    env = _env()
    counted = _sh(".venv/bin/conformance requirements", ROOT, env)
    assert counted.returncode == 0 and "rules," in counted.stdout, counted.stderr
    audit = ".venv/bin/conformance requirements --audit --seeds ../shared/seeds"
    if (ROOT.parent / "shared" / "seeds").is_dir():
        audited = _sh(audit, ROOT, env)
        assert audited.returncode == 0 and "MUST audit: 0 flagged" in audited.stderr, audited.stderr[-3000:]
    empty = tmp_path / "no-seeds"
    empty.mkdir()
    for command in (audit.replace("../shared/seeds", str(empty)), "scripts/regenerate"):
        result = subprocess.run(["bash", "-c", command], cwd=ROOT, env={**env, "CONFORMANCE_SEEDS_DIR": str(empty)},
                                capture_output=True, text=True, timeout=300)
        _shown(command.split(" --seeds")[0] if "--seeds" in command else command)
        assert result.returncode == 2, command + result.stdout + result.stderr
        assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "the specification texts" in result.stderr and "--seeds" in result.stderr


def test_a_test_pki_made_for_a_port_is_served_there(tmp_path: Path) -> None:
    """docs/token-flows.md: `pki init --crl-base` for another port, then `show` and `serve`
    without --port: the JWKS and the CRLs the leaves name are where they say (issue 53)."""
    import httpx

    port = _free_port()
    folder = _folder(tmp_path)
    env = _env()
    init = ".venv/bin/conformance pki init --out pki-vendor-x --crl-base http://127.0.0.1:9100/crl"
    _shown(init)
    made = subprocess.run(["bash", "-c", init.replace("9100", str(port))], cwd=folder, env=env,  # a free port
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    shown = _sh(".venv/bin/conformance pki show pki-vendor-x", folder, env)
    assert shown.returncode == 0 and f"http://127.0.0.1:{port}/jwks/good.json" in shown.stdout, shown.stdout
    serve, printed = _start(".venv/bin/conformance pki serve pki-vendor-x", folder, env, "Ctrl-C")
    try:
        _shown(".venv/bin/conformance pki serve pki-vendor-x")
        assert f"published at http://127.0.0.1:{port}/jwks/good.json" in "".join(printed)
        assert "note:" not in "".join(printed)  # the leaves' CRL addresses are where it serves
        crl = httpx.get(f"http://127.0.0.1:{port}/crl/tsp-ca.crl", trust_env=False, timeout=10)
        assert crl.status_code == 200 and crl.headers["content-type"] == "application/pkix-crl"
    finally:
        assert _stop(serve) == 0


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_comparison_asks_only_for_the_address_apis_secrets(tmp_path: Path) -> None:
    """docs/compare.md's `compare --profile vendor-x.toml --reference production`, with the
    production profile pointed at the local mock (production itself is beyond loopback): only
    the address API is compared, so only the address API's keys are asked for; the
    authorization server's secrets of either profile are not (issue 53)."""
    import tomllib

    folder = _folder(tmp_path)
    env = _env()
    mock, printed = _start(".venv/bin/conformance mock", folder, env, "Ctrl-C")
    try:
        address = next(line.split(": ", 1)[1].strip() for line in printed if line.startswith("address: "))
        keys = _keys(folder / "reports" / "mock-keys.env")
        vendor = (folder / "reports" / "mock-deployment.toml").read_text(encoding="utf-8")
        (folder / "vendor-x.toml").write_text(vendor, encoding="utf-8")
        described = tomllib.loads(vendor)
        assert "auth" in described["services"], "the vendor's profile names its authorization server too"
        samples = "\n".join(f'{k} = "{v}"' for k, v in described["services"]["address"].get("samples", {}).items())
        production = (ROOT / "profiles" / "production.toml").read_text(encoding="utf-8")
        production = production.replace("https://api.bag.kadaster.nl/lvbag/individuelebevragingen/v2", address)
        production = re.sub(r"\[services\.address\.samples\]\n(.*?\n)\n",
                            lambda m: f"[services.address.samples]\n{samples}\n\n", production, flags=re.S)
        # Its pace of 2 requests a second is production's: the mock here takes them unpaced.
        production = production.replace("requests_per_second = 2\n", "requests_per_second = 0\n")
        # Production's negative = false stays: the comparison sends no request designed to be
        # refused (a generated one the seed's rules refuse is left out, conformance/compare/corpus.py).
        (folder / "production-here.toml").write_text(production, encoding="utf-8")
        address_keys = {var: keys[var] for var in described["services"]["address"]["secrets"].values()}
        # Only the address API's keys are set, the vendor's and the reference's (production's
        # REGISTRY_API_KEY): no secret of either side's authorization server or SOAP service.
        run_env = {k: v for k, v in env.items() if not k.startswith("REGISTRY_")}
        run_env = {**run_env, **address_keys, "REGISTRY_API_KEY": address_keys[
            described["services"]["address"]["secrets"]["api_key"]]}
        assert set(keys) - set(address_keys), "the mock's keys file holds other services' secrets too"
        command = ".venv/bin/conformance compare --profile vendor-x.toml --reference production"
        _shown(command)
        result = subprocess.run(["bash", "-c", command.replace("production", "production-here.toml")], cwd=folder,
                                env=run_env, capture_output=True, text=True, timeout=600)
        said = result.stdout[-3000:] + result.stderr[-3000:]
        assert "not set" not in said and "Traceback" not in said, said
        assert result.returncode == 0, said
        summary = json.loads(next((folder / "reports").glob("*-vs-production/summary.json")).read_text())
        assert summary["mode"] == "compare" and summary["exit_code"] == 0
        compared = {e["check"]: e["outcome"] for e in summary["checks"] if e["check"].startswith("compare.")}
        assert compared and set(compared.values()) <= {"passed", "observation"}, compared  # judged, not stopped
    finally:
        assert _stop(mock) == 0
