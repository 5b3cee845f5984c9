"""The harness installed as a tool behaves as the checkout does, and every documented install
takes the versions of the lock with their hashes (the manual's "Installing it as a tool",
docs/install.md).

The sdist is built from the checkout and the wheel from that sdist (the README's build
command, with --outdir), and each install command the README documents runs as written, in
a folder laid out as the checkout (dist/, tools/): pipx's, the virtualenv's, the
Dockerfile's COPY and RUN lines (outside a container: no container engine runs here, so the
recipe's file system is a folder and its `pip` a fresh virtualenv's), and `npm ci` of the
report renderer. Then `conformance run` starts from an empty directory.

Offline: the build uses the project's own setuptools (--no-isolation), and the package index
is stood in for by the project's virtualenv (`index`), whose distributions are exactly the
lock (scripts/bootstrap installed them with --require-hashes). A fresh environment reaches
it through a path entry (a .pth file, or pipx's shared libraries), and pip, with
PIP_NO_INDEX set, finds every pin of the lock installed: a lock that disagreed with what the
project runs would make it look for the index, and fail. The harness's own editable install
is left out of the stand-in, so `conformance` is the wheel's copy, which the tests check.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from conformance.paths import CHECKOUT as REPO_ROOT

assert REPO_ROOT is not None
# The page that documents the installs (the README links it).
README = (REPO_ROOT / "docs" / "install.md").read_text(encoding="utf-8")
LOCK = "tools/requirements.lock"
PROJECT_BIN = Path(sys.executable).parent


def _block(language: str, containing: str) -> str:
    """The README's fenced code block of `language` that holds `containing`."""
    blocks = [b.split("\n", 1)[1] for b in README.split("```")[1::2] if b.startswith(language + "\n")]
    found = [b for b in blocks if containing in b]
    assert len(found) == 1, f"the README shows {len(found)} {language} blocks with {containing!r}: update this test"
    return found[0]


def _locked_pip(command: str, lock: str) -> None:
    """Each `pip install` of a documented command installs the lock with --require-hashes, or the
    harness's wheel alone (--no-deps): never a requirement a lower bound resolves."""
    for part in re.split(r"&&|;|\n", command.replace("\\\n", " ")):
        words = shlex.split(part)
        if words[:2] != ["pip", "install"] and words[1:4] != ["-m", "pip", "install"]:
            continue
        given = [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
        if "--require-hashes" in words:
            assert words[words.index("-r") + 1] == lock and given == [lock], part
        else:
            assert "--no-deps" in words and all("registry_conformance-" in w for w in given), part


def _clean_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONFORMANCE_", "PYTEST_", "PYTHON"))}
    # The user's cache goes here, so nothing of the checkout's .cache is reused or written.
    env["XDG_CACHE_HOME"] = str(tmp / "user-cache")
    env["XDG_DATA_HOME"] = str(tmp / "user-data")
    return env


def _offline(tmp: Path, *first_on_path: Path) -> dict[str, str]:
    """The environment the install commands run in: no index, no pip configuration of this machine."""
    env = _clean_env(tmp)
    env.update(PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
    env["PATH"] = os.pathsep.join([*map(str, first_on_path), env["PATH"]])
    return env


def _site(python: Path) -> Path:
    return Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())


def _fresh_venv(where: Path, index: Path) -> Path:
    """A virtualenv that reaches the index's stand-in (and its pip, the lock's) by a path entry: its bin/."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    (_site(where / "bin" / "python") / "_index_standin.pth").write_text(f"{index}\n")
    return where / "bin"


def _sh(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder laid out as the checkout for the README's commands: dist/ (what its build command
    makes) and tools/ (the locks)."""
    root = tmp_path_factory.mktemp("checkout")
    assert ".venv/bin/python -m build --no-isolation" in README
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(root / "dist"),
                            str(REPO_ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheel = next((root / "dist").glob("*.whl"))
    assert f"dist/{wheel.name}" in README, f"the README names another wheel than {wheel.name}"
    names = zipfile.ZipFile(wheel).namelist()
    for shipped in ("conformance/suites/address/test_contract.py", "conformance/suites/pytest.ini",
                    "conformance/profiles_shipped/local-mock.toml", "conformance/openapi/address-v2.yaml",
                    "conformance/soap/wsdl/graafbericht-1.2.xsd", "conformance/requirements/catalogue.toml"):
        assert shipped in names, f"{shipped} is not in {wheel.name}"
    (root / "tools").mkdir()
    for name in ("requirements.lock", "package.json", "package-lock.json"):
        shutil.copy(REPO_ROOT / "tools" / name, root / "tools" / name)
    return root


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package index's stand-in: links to the project virtualenv's distributions, less the
    harness's editable install (its dist-info, finder and .pth files)."""
    folder = tmp_path_factory.mktemp("index")
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.suffix != ".pth" and not entry.name.startswith(("registry_conformance", "__editable__", "__pycache__")):
            (folder / entry.name).symlink_to(entry)
    return folder


@pytest.fixture(scope="module")
def installed(checkout: Path, index: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel installed by the README's virtualenv commands: its bin/."""
    root = tmp_path_factory.mktemp("installed")
    commands = _block("sh", "python -m pip install --no-deps")
    _locked_pip(commands, LOCK)
    bin_dir = _fresh_venv(root / "venv", index)
    done = _sh(commands, checkout, _offline(root, bin_dir))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # What the lock installed is all the wheel needs.
    check = subprocess.run([str(bin_dir / "python"), "-m", "pip", "check"], capture_output=True, text=True,
                           env=_offline(root))
    assert check.returncode == 0, check.stdout + check.stderr
    return bin_dir


def test_the_installed_harness_is_the_wheels_copy(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run([str(installed / "python"), "-c", "import conformance; print(conformance.__file__)"],
                           capture_output=True, text=True, check=True, cwd=tmp_path, env=_clean_env(tmp_path)).stdout
    assert str(installed.parent) in where and str(REPO_ROOT) not in where
    listed = subprocess.run([str(installed / "conformance"), "profiles"], capture_output=True, text=True,
                            cwd=tmp_path, env=_clean_env(tmp_path), timeout=120)
    assert listed.returncode == 0, listed.stderr
    for name in ("local-mock", "external-test", "production"):
        assert name in listed.stdout


def test_an_installed_run_from_an_empty_directory_judges_and_reports_there(installed: Path, tmp_path: Path) -> None:
    work = tmp_path / "empty"
    work.mkdir()
    # Fewer fuzzing examples than the profile's 25, and no coverage phase (some 1,000 requests):
    # what is proven is where the run reads and writes, not how much it fuzzes. Two workers:
    # forked from the installed copy's preloaded process (conformance/worker_fork.py).
    result = subprocess.run([str(installed / "conformance"), "run", "-n", "2", "--max-examples", "3",
                             "--fuzz-phases", "examples,fuzzing,stateful"],
                            capture_output=True, text=True,
                            cwd=work, env=_clean_env(tmp_path), timeout=900)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    runs = list((work / "reports").iterdir())
    assert len(runs) == 1 and runs[0].name.endswith("-local-mock")
    summary = json.loads((runs[0] / "summary.json").read_text())
    assert (summary["verdict"], summary["exit_code"]) == ("OK", 0)
    suites = {c["suite"] for c in summary["checks"]}
    assert suites == {"address", "auth", "soap"}
    counts = summary["counts"]
    # As many checks judged as from the checkout: hundreds, not zero.
    assert counts["passed"] + counts["observation"] > 300, counts
    for name in ("junit.xml", "traffic.har", "matrix.md"):
        assert (runs[0] / name).is_file()
    # Nothing was written beside the installed package: caches went to the user's cache.
    package = Path(subprocess.run([str(installed / "python"), "-c", "import conformance; print(conformance.__file__)"],
                                  capture_output=True, text=True, check=True, cwd=work).stdout.strip()).parent
    assert not (package.parent / "reports").exists() and not (package.parent / ".cache").exists()
    assert (tmp_path / "user-cache" / "registry-conformance").is_dir()


def _pipx_shared_libraries(shared: Path, index: Path) -> None:
    """pipx's shared libraries made before pipx runs, holding the index's stand-in: every pipx
    virtualenv reaches them (pipx_shared.pth), so pip finds the lock installed. pipx takes them
    as they are (bin/pip and pip in site-packages make them valid; the README's
    PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE keeps it from upgrading their pip)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(shared)], check=True, timeout=120)
    site = _site(shared / "bin" / "python")
    for entry in index.iterdir():
        (site / entry.name).symlink_to(entry.resolve())
    pip = shared / "bin" / "pip"
    pip.write_text('#!/bin/sh\nexec "$(dirname "$0")/python" -m pip "$@"\n')
    pip.chmod(0o755)


def test_the_readme_pipx_install_takes_the_lock_and_the_wheel_by_their_hashes(
        checkout: Path, index: Path, tmp_path: Path) -> None:
    lines = _block("sh", "pipx install").splitlines()
    assert lines[0].startswith(".venv/bin/python -m build --no-isolation")  # the fixture's build
    assert lines[-1].startswith("cd /where/reports/should/go && conformance run")
    install = "\n".join(lines[1:-1])
    words = shlex.split(install.replace("\\\n", " ").split("pipx install", 1)[1])
    assert words[0] == "--pip-args=--require-hashes -r $PWD/tools/requirements.lock", words
    assert words[1].startswith("registry-conformance @ file://$PWD/$wheel#sha256=")
    pipx = tmp_path / "pipx"
    _pipx_shared_libraries(pipx / "shared", index)
    env = {**_offline(tmp_path, PROJECT_BIN), "PIPX_HOME": str(pipx), "PIPX_BIN_DIR": str(tmp_path / "bin"),
           "PIPX_MAN_DIR": str(tmp_path / "man")}
    done = _sh(install, checkout, env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    venv = pipx / "venvs" / "registry-conformance"
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import conformance; print(conformance.__file__)"],
                           capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert where.startswith(str(venv)), where
    listed = subprocess.run([str(tmp_path / "bin" / "conformance"), "profiles"], capture_output=True, text=True,
                            cwd=tmp_path, env=_clean_env(tmp_path), timeout=120)
    assert listed.returncode == 0 and "local-mock" in listed.stdout, listed.stderr
    # pipx keeps the pip arguments for its later upgrades and reinstalls: those take the lock too.
    metadata = json.loads((venv / "pipx_metadata.json").read_text())
    assert metadata["main_package"]["pip_args"] == ["--require-hashes", "-r", str(checkout / LOCK)]


def _instructions(dockerfile: str) -> list[tuple[str, str]]:
    joined = dockerfile.replace("\\\n", " ")
    return [(line.split(None, 1)[0], line.split(None, 1)[1].strip()) for line in joined.splitlines() if line.strip()]


def test_the_dockerfile_installs_the_lock_with_hashes_then_the_wheel_alone(
        checkout: Path, index: Path, tmp_path: Path) -> None:
    """No container engine runs here: the recipe's COPY lines copy into a folder that stands for
    the image's file system, and its RUN lines run there with `pip` a fresh virtualenv's."""
    steps = _instructions(_block("dockerfile", "FROM python"))
    # The lock is for CPython 3.11 on Linux (its header; scripts/bootstrap --relock refuses another).
    assert steps[0] == ("FROM", "python:3.11-slim")
    image = tmp_path / "image"
    bin_dir = _fresh_venv(tmp_path / "venv", index)
    pip = tmp_path / "pip-bin" / "pip"  # the image's `pip`
    pip.parent.mkdir()
    pip.write_text(f'#!/bin/sh\nexec {bin_dir / "python"} -m pip "$@"\n')
    pip.chmod(0o755)
    copied: dict[str, str] = {}
    for keyword, argument in steps[1:]:
        if keyword == "COPY":
            source, target = argument.split()
            for path in checkout.glob(source):
                into = image / target.lstrip("/")
                into = into / path.name if target.endswith("/") else into
                into.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, into)
            copied[target] = source
        elif keyword == "RUN":
            _locked_pip(argument, "/tmp/requirements.lock")
            assert argument.index("--require-hashes") < argument.index("--no-deps"), "the lock goes in first"
            done = _sh(argument.replace("/tmp/", f"{image}/tmp/"), tmp_path,
                       _offline(tmp_path, tmp_path / "pip-bin", bin_dir))
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        elif keyword == "ENTRYPOINT":
            assert json.loads(argument) == ["conformance"]
        else:
            assert keyword == "WORKDIR", keyword
    assert copied["/tmp/requirements.lock"] == LOCK and copied["/tmp/"] == "dist/registry_conformance-*.whl"
    assert not any((image / "tmp").iterdir()), "the recipe leaves its copies behind"
    listed = subprocess.run([str(bin_dir / "conformance"), "profiles"], capture_output=True, text=True,
                            cwd=tmp_path, env=_clean_env(tmp_path), timeout=120)
    assert listed.returncode == 0 and "local-mock" in listed.stdout, listed.stderr


def test_the_report_renderer_is_installed_from_the_npm_lock(checkout: Path, installed: Path, tmp_path: Path) -> None:
    if shutil.which("npm") is None and not os.environ.get("CI"):
        pytest.skip("npm is not installed (without it no HTML report is rendered)")
    commands = _block("sh", "npm ci")
    assert "npm install" not in commands and "allure@" not in commands
    cache = subprocess.run(["npm", "config", "get", "cache"], capture_output=True, text=True, check=True).stdout.strip()
    home = tmp_path / "home"
    env = {**_clean_env(tmp_path), "HOME": str(home), "npm_config_cache": cache, "npm_config_offline": "true",
           "npm_config_audit": "false", "npm_config_fund": "false", "npm_config_update_notifier": "false",
           "SCARF_ANALYTICS": "false"}
    env.pop("XDG_DATA_HOME")  # ~/.local/share: where an installed copy looks
    done = _sh(commands, checkout, env)
    if "ENOTCACHED" in done.stderr and not os.environ.get("CI"):
        pytest.skip("the npm cache lacks a package of tools/package-lock.json (scripts/bootstrap's npm ci fills it)")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    tools = home / ".local" / "share" / "registry-conformance"
    locked = json.loads((checkout / "tools" / "package-lock.json").read_text())["packages"]
    for path, entry in locked.items():
        if path.startswith("node_modules/") and not entry.get("optional"):
            assert json.loads((tools / path / "package.json").read_text())["version"] == entry["version"], path
    found = subprocess.run([str(installed / "python"), "-c",
                            "from conformance.reporting.html import allure_cli; print(allure_cli())"],
                           capture_output=True, text=True, check=True, cwd=tmp_path, env=env).stdout.strip()
    assert found == str(tools / "node_modules" / "allure" / "cli.js")
