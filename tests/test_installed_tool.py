"""The harness installed as a tool behaves as the checkout does (README "Installing it as a tool").

The sdist is built from the checkout and the wheel from that sdist (what `pip install` of a
git URL or an sdist does), the wheel goes into a fresh virtualenv outside the checkout, and
`conformance run` starts from an empty directory. Offline: the build uses the project's own
setuptools (--no-isolation), and the fresh environment reaches the harness's dependencies
through a path entry to the project's virtualenv, whose editable install of the harness is
not activated by it (only .pth files in a site directory are), so `conformance` is the
wheel's copy, which the test checks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from conformance.paths import CHECKOUT as REPO_ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with only the wheel of the harness installed in it: its bin/."""
    root = tmp_path_factory.mktemp("installed")
    dist = root / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(REPO_ROOT)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheel = next(dist.glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for shipped in ("conformance/suites/address/test_contract.py", "conformance/suites/pytest.ini",
                    "conformance/profiles_shipped/local-mock.toml", "conformance/openapi/address-v2.yaml",
                    "conformance/soap/wsdl/graafbericht-1.2.xsd", "conformance/requirements/catalogue.toml"):
        assert shipped in names, f"{shipped} is not in {wheel.name}"
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-deps",
                    "--no-index", "--quiet", str(wheel)], check=True, timeout=300, capture_output=True)
    site = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "_harness_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def _clean_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONFORMANCE_", "PYTEST_", "PYTHON"))}
    # The user's cache goes here, so nothing of the checkout's .cache is reused or written.
    env["XDG_CACHE_HOME"] = str(tmp / "user-cache")
    env["XDG_DATA_HOME"] = str(tmp / "user-data")
    return env


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
    # Fewer fuzzing examples than the profile's 25: what is proven is where the run reads and
    # writes, not how much it fuzzes.
    result = subprocess.run([str(installed / "conformance"), "run", "-n", "0", "--max-examples", "3"],
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
