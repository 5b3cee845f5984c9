"""Nothing from the working directory is trusted implicitly (issue 50, item 3). In CI the
working directory is a checkout a merge request can add files to, so:

* a `./profiles/<name>.toml` that takes a shipped profile's name is refused by name (exit 2,
  naming both files and how to give the path) before anything is sent; by path it is used;
* `.env` gives only the secrets the profile names, and to no process's environment: a
  `PYTHONPATH`, `LD_PRELOAD` or `NODE_OPTIONS` in it reaches neither this process nor the
  xdist workers (the local mocks are threads of the run, no processes of their own).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import forked_cli
import pytest
from vendor_profiles import vendor_profile

from conformance.mocks.launcher import MockCluster
from conformance.paths import SHIPPED_PROFILES
from conformance.profiles import load_profile, read_secret

CLI = [sys.executable, "-m", "conformance.cli"]
PRODUCTION_KEY = "production-key-do-not-send"


@pytest.fixture
def listener() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A loopback HTTP server that answers 404 to everything: its base URL, and the headers of
    every request it got."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            seen.append(dict(self.headers))
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v2", seen
    finally:
        server.shutdown()
        server.server_close()


def _cli(cwd: Path, *args: str, env: dict[str, str]) -> forked_cli.subprocess.CompletedProcess[str]:
    return forked_cli.run([*CLI, *args], capture_output=True, text=True, timeout=600, cwd=cwd,
                          env={"PATH": os.environ["PATH"], "HOME": str(cwd), **env})


def test_a_profile_taking_a_shipped_name_is_refused_by_name_and_used_by_path(
        tmp_path: Path, listener: tuple[str, list[dict[str, str]]]) -> None:
    url, seen = listener
    (tmp_path / "profiles").mkdir()
    local = vendor_profile(tmp_path / "profiles" / "production.toml", url, key_var="REGISTRY_API_KEY",
                           name="planted")
    env = {"REGISTRY_API_KEY": PRODUCTION_KEY}
    refused = _cli(tmp_path, "run", "--profile", "production", "--no-html", env=env)
    assert refused.returncode == 2, refused.stdout[-2000:] + refused.stderr[-2000:]
    assert str(local) in refused.stderr and str(SHIPPED_PROFILES / "production.toml") in refused.stderr
    assert "--profile ./profiles/production.toml" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert seen == [], "a request was sent before the refusal"
    assert not (tmp_path / "reports").exists() or not any((tmp_path / "reports").iterdir())
    # Named by its path, the same file is the user's choice: it is loaded and its host asked.
    chosen = _cli(tmp_path, "run", "--profile", "./profiles/production.toml", "--suite", "address", "-n", "0",
                  "--no-html", "--report-dir", str(tmp_path / "report"), env=env)
    assert "names two files" not in chosen.stderr
    assert seen, chosen.stdout[-2000:] + chosen.stderr[-2000:]


def test_the_listing_says_a_name_in_both_places_is_refused(tmp_path: Path) -> None:
    (tmp_path / "profiles").mkdir()
    vendor_profile(tmp_path / "profiles" / "production.toml", "http://127.0.0.1:9/v2", key_var="X_KEY",
                   name="planted")
    listed = _cli(tmp_path, "profiles", env={})
    assert listed.returncode == 0, listed.stderr
    marked = [line for line in listed.stdout.splitlines() if "refused, give the path" in line]
    assert [line.split("]")[0] + "]" for line in marked] == ["vendor-planted  [./profiles]",
                                                             "production      [shipped]"], listed.stdout


def test_dotenv_gives_the_named_secret_and_nothing_to_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("TRUST_TEST_KEY=from-dotenv\nPYTHONPATH=/planted\nLD_PRELOAD=/planted.so\n"
                                   "NODE_OPTIONS=--require /planted.js\nTRUST_TEST_SET=from-dotenv\n"
                                   "TRUST_TEST_REF=${HOME}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRUST_TEST_SET", "from-environment")
    monkeypatch.delenv("TRUST_TEST_KEY", raising=False)
    before = dict(os.environ)
    assert read_secret("TRUST_TEST_KEY", purpose="test") == "from-dotenv"
    assert read_secret("TRUST_TEST_SET", purpose="test") == "from-environment"  # the environment wins
    assert read_secret("TRUST_TEST_REF", purpose="test") == "${HOME}"  # nothing of the environment read into it
    assert dict(os.environ) == before


@pytest.fixture(scope="module")
def mock() -> Iterator[tuple[str, str, dict[str, str]]]:
    """The local address mock as if it were a vendor's deployment: its URL, API key and samples."""
    profile = load_profile("local-mock")
    with MockCluster(profile) as cluster:
        yield (cluster.urls["address"], cluster.secrets[profile.address.secret_env["api_key"]],
               dict(cluster.samples["address"]))


def test_interpreter_settings_in_dotenv_reach_no_worker(tmp_path: Path, mock: tuple[str, str, dict[str, str]]) -> None:
    url, key, samples = mock
    planted, marker = tmp_path / "planted", tmp_path / "planted-ran"
    planted.mkdir()
    # A sitecustomize on PYTHONPATH runs at the start of every interpreter that has it.
    (planted / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'a').write('ran\\n')\n")
    (tmp_path / "profiles").mkdir()
    vendor_profile(tmp_path / "profiles" / "vendor.toml", url, samples, key_var="TRUST_TEST_API_KEY", name="trust")
    (tmp_path / ".env").write_text(f"TRUST_TEST_API_KEY={key}\nPYTHONPATH={planted}\n"
                                   f"LD_PRELOAD={planted / 'missing.so'}\nNODE_OPTIONS=--require {planted / 'x.js'}\n")
    run = _cli(tmp_path, "run", "--profile", "./profiles/vendor.toml", "--suite", "address", "-n", "2", "--no-html",
               "--check", "address.headers.api_version_present", "--report-dir", str(tmp_path / "report"), env={})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]  # the key of .env was sent and accepted
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert {e["check"]: e["outcome"] for e in summary["checks"]}["address.headers.api_version_present"] == "passed"
    assert not marker.exists(), "a process of the run started with the PYTHONPATH of .env"
    # The dynamic loader of any process started with it would say it cannot preload the file.
    assert "LD_PRELOAD" not in run.stdout + run.stderr
