"""Interop peer 1: the auth suite against oidc-provider (npm, OpenID certified), unmodified.

tests/interop/oidc/server.mjs configures oidc-provider to look like the seed's authorization
server (seed 001: the authorize and token paths, PKCE S256 required, the code, refresh and
client-credentials grants, a confidential, a public and a private_key_jwt client whose JWKS is
the harness's test PKI, users with and without the role, HTML login and consent forms) and
serves the filing WSDL and the inquiry API, which check its access tokens. It runs in two
configurations: `stock` (the library's defaults wherever the seed leaves room) and `seedlike`
(as close to the seed as its options go).

Per configuration the test starts the server on a free loopback port, writes the profile a
user would write for it (from tests/interop/oidc/profile.toml.template), runs `conformance run
--suite auth` in a subprocess and compares every check's outcome with
tests/interop/expected/oidc-<configuration>.toml. A difference fails the test and names the
check, the expected and the actual outcome and the run's reason.
"""

from __future__ import annotations

import json
import os
import shutil
import string
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import forked_cli
import pytest
from peers import read_first_line, require_peer
from verdicts import differences as verdict_differences
from verdicts import load_expected, outcomes_by_check

from conformance.catalogue import registered_checks

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
PEER_DIR = Path(__file__).parent / "oidc"
SERVER = PEER_DIR / "server.mjs"
TEMPLATE = PEER_DIR / "profile.toml.template"
FIXTURES = PEER_DIR / "fixtures.json"
EXPECTED_DIR = Path(__file__).parent / "expected"
PACKAGE = ROOT / "tools" / "node_modules" / "oidc-provider" / "package.json"
CONFIGURATIONS = ("stock", "seedlike")
# The form login driver stops at the redirect to this address; nothing listens there.
REDIRECT_URI = "http://127.0.0.1:8765/callback"
# Measured: a second or two alone; on a CI machine running three test workers on two cores
# it once printed nothing within 30 s (the failure now says whether it had exited).
START_TIMEOUT_S = 90.0
RUN_TIMEOUT_S = 180.0  # budget: about 90 s for the run on the 2-core machine (measured: a few seconds)
SECRET_VARIABLES = {  # profile secret -> environment variable (as the template names them)
    "client_secret": "OIDC_PEER_CLIENT_SECRET",
    "username": "OIDC_PEER_USERNAME",
    "password": "OIDC_PEER_PASSWORD",
    "username_without_role": "OIDC_PEER_USERNAME_WITHOUT_ROLE",
    "password_without_role": "OIDC_PEER_PASSWORD_WITHOUT_ROLE",
}


# ---------------------------------------------------------------- the peer
def _require_node() -> None:
    """Skipped only where Node.js (or the tools' oidc-provider) is absent and CI is unset."""
    missing = None
    if shutil.which("node") is None:
        missing = "Node.js is not installed (node not on PATH)"
    elif not PACKAGE.is_file():
        missing = "oidc-provider is not installed (npm ci --prefix tools)"
    require_peer(missing, "oidc-provider")


@pytest.fixture(scope="module")
def peer_pki(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """`conformance pki init` once for both configurations: (PKI directory, directory of its JWKS
    documents, which the server registers, one client per document)."""
    from conformance.auth.pki import load_test_pki

    _require_node()  # before the PKI is made: nothing to set up for a skipped peer
    base = tmp_path_factory.mktemp("oidc-pki")
    pki_dir, jwks_dir = base / "pki", base / "jwks"
    forked_cli.run([sys.executable, "-m", "conformance.cli", "pki", "init", "--out", str(pki_dir)],
                   cwd=ROOT, check=True, capture_output=True, timeout=120)
    jwks_dir.mkdir()
    for name, document in load_test_pki(pki_dir).jwks_documents().items():
        (jwks_dir / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    return pki_dir, jwks_dir


@pytest.fixture(params=CONFIGURATIONS)
def oidc_peer(request: pytest.FixtureRequest, peer_pki: tuple[Path, Path], tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(configuration, origin) of a running server; stopped afterwards."""
    _require_node()
    config = request.param
    log = tmp_path / f"server-{config}.log"
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            ["node", str(SERVER), "--config", config, "--port", "0", "--jwks-dir", str(peer_pki[1]),
             "--redirect-uri", REDIRECT_URI],
            stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=ROOT,
        )
    try:
        line = read_first_line(proc, time.monotonic() + START_TIMEOUT_S)
        if not line.startswith("listening "):
            state = f"exited with {proc.poll()}" if proc.poll() is not None else f"still running after {START_TIMEOUT_S:g} s"
            pytest.fail(f"the oidc-provider peer ({config}) did not start ({state}): {line!r}\n{log.read_text()[-3000:]}")
        yield config, line.split()[1]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def write_profile(directory: Path, config: str, origin: str, pki_dir: Path) -> Path:
    """The profile a user of this server would write. `stock` follows the seed literally (the
    assertion `aud` in the seed's form); `seedlike` names the `aud` oidc-provider documents (its
    token endpoint URL), since the seed's form cannot be configured there."""
    fixtures = json.loads(FIXTURES.read_text(encoding="utf-8"))
    audience = "" if config == "stock" else f'audience = "{origin}/auth/oauth/v2/token"'
    text = string.Template(TEMPLATE.read_text(encoding="utf-8")).substitute(
        config=config, origin=origin, audience_line=audience, redirect_uri=REDIRECT_URI, pki_dir=pki_dir,
        consent_scope=fixtures["consent_scope"],
        **{f"client_{role}": client_id for role, client_id in fixtures["clients"].items()},
    )
    profile = directory / f"oidc-provider-{config}.toml"
    profile.write_text(text, encoding="utf-8")
    return profile


def secret_environment() -> dict[str, str]:
    fixtures = json.loads(FIXTURES.read_text(encoding="utf-8"))
    with_role, without_role = (
        next(name for name, user in fixtures["users"].items() if bool(user["roles"]) is has_role)
        for has_role in (True, False)
    )
    values = {
        "client_secret": fixtures["client_secret"],
        "username": with_role, "password": fixtures["users"][with_role]["password"],
        "username_without_role": without_role, "password_without_role": fixtures["users"][without_role]["password"],
    }
    return {SECRET_VARIABLES[name]: value for name, value in values.items()}


# ---------------------------------------------------------------- the test
def test_auth_suite_against_oidc_provider_matches_the_table(oidc_peer: tuple[str, str], peer_pki: tuple[Path, Path],
                                                            tmp_path: Path) -> None:
    config, origin = oidc_peer
    expected_file = EXPECTED_DIR / f"oidc-{config}.toml"
    expected = load_expected(expected_file)
    installed = json.loads(PACKAGE.read_text(encoding="utf-8"))["version"]
    assert installed == expected["peer"]["version"], f"oidc-provider {installed} is installed: review {expected_file.name}"
    profile = write_profile(tmp_path, config, origin, peer_pki[0])
    report = tmp_path / "report"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")} | secret_environment()
    started = time.monotonic()
    run = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--suite", "auth", "--profile", str(profile),
         "-n", "0", "--no-html", "--report-dir", str(report)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
    )
    print(f"oidc-provider {installed} ({config}): auth run took {time.monotonic() - started:.1f} s")
    summary_file = report / "summary.json"
    assert summary_file.is_file(), f"no summary.json (exit {run.returncode})\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    auth_checks = frozenset(check.id for check in registered_checks("auth"))
    differences = verdict_differences(expected["checks"], outcomes_by_check(summary), auth_checks)
    if run.returncode != expected["peer"]["exit_code"]:
        differences.append(f"exit code: expected {expected['peer']['exit_code']}, actual {run.returncode}; "
                           f"the run's output ends:\n{run.stdout[-2000:]}{run.stderr[-1000:]}")
    assert not differences, (
        f"the auth suite's verdicts against oidc-provider ({config}) differ from {expected_file.name} "
        f"(seed {summary.get('seed')}):\n  " + "\n  ".join(differences)
    )
