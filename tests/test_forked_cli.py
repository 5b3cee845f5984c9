"""A forked `conformance` command (tests/forked_cli.py) answers as a fresh interpreter does:
the same exit code, stdout and stderr for the same arguments, environment and working
directory, so the tests that run commands through it prove what they would prove with
`subprocess`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import forked_cli
import pytest

from conformance.paths import CHECKOUT as REPO_ROOT


def vendor_profile(folder: Path) -> Path:
    path = folder / "vendor.toml"
    path.write_text('[profile]\nname = "vendor"\n[services.address]\nmock = false\n'
                    'base_url = "http://127.0.0.1:9/v2"\n[services.address.secrets]\napi_key = "FORKED_CLI_UNSET_KEY"\n')
    return path


@pytest.mark.parametrize("args", [
    ["profiles"],  # stdout, exit 0
    ["run", "--no-such-option"],  # usage on stderr, exit 2
    ["run", "--profile", "vendor.toml", "--no-html"],  # the missing secret, read from the environment, exit 2
], ids=["profiles", "usage", "missing-secret"])
def test_a_forked_command_answers_as_a_fresh_interpreter(tmp_path: Path, args: list[str]) -> None:
    vendor_profile(tmp_path)  # relative to the working directory given
    env = {k: v for k, v in os.environ.items() if k != "FORKED_CLI_UNSET_KEY"}
    fresh = subprocess.run([*forked_cli.CLI, *args], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    forked = forked_cli.run([*forked_cli.CLI, *args], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.stdout or fresh.stderr


def test_output_together_and_a_timeout_as_subprocess_has_them(tmp_path: Path) -> None:
    together = forked_cli.run([*forked_cli.CLI, "run", "--no-such-option"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=120, cwd=REPO_ROOT)
    assert together.returncode == 2 and "usage: conformance" in together.stdout and together.stderr is None
    vendor = vendor_profile(tmp_path)
    with pytest.raises(subprocess.TimeoutExpired):  # a run against a closed port outlasts 1 ms
        forked_cli.run([*forked_cli.CLI, "run", "--profile", str(vendor), "--no-html"], capture_output=True,
                       timeout=0.001, cwd=tmp_path, env={**os.environ, "FORKED_CLI_UNSET_KEY": "k" * 12})


def test_anything_else_is_left_to_subprocess(tmp_path: Path) -> None:
    done = forked_cli.run([sys.executable, "-c", "import os; print(os.getpid() != int(os.environ['PARENT']))"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PARENT": str(os.getpid())})
    assert (done.returncode, done.stdout) == (0, "True\n")


def test_two_runs_that_must_agree_start_from_interpreters_of_other_hash_seeds() -> None:
    first, second = forked_cli.other_hash_seed(), forked_cli.other_hash_seed()
    assert first != second
    for seed in (first, second):  # the preloaded process each is forked from started with it
        # A command forked from it first: its environ in /proc is read once it has started
        # (read while the interpreter is still being exec'd, it can come back empty).
        listed = forked_cli.run(forked_cli.CLI + ["profiles"], capture_output=True, text=True, timeout=120,
                                env={**os.environ, **seed})
        assert listed.returncode == 0, listed.stderr
        zygote = forked_cli._zygote({**os.environ, **seed})  # noqa: SLF001 - what the forks inherit
        started_with = Path(f"/proc/{zygote.proc.pid}/environ").read_bytes().split(b"\0")
        assert f"PYTHONHASHSEED={seed['PYTHONHASHSEED']}".encode() in started_with
