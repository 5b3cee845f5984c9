"""A credential the server refuses is a configuration error, said once (conformance/preflight.py).

The local mocks run here and are described as a deployment (`mock = false`, as `conformance
mock --deployment-profile` writes it), so a run treats them as any vendor's servers; a
wrong value in a key's environment variable must stop the run with exit 2 before any check.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import forked_cli
import pytest

from conformance.paths import CHECKOUT as REPO_ROOT

CLI = [sys.executable, "-m", "conformance.cli"]
WRONG = "wrong-credential-0123456789"


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    from conformance.mocks.deployment import deployment_profile
    from conformance.mocks.launcher import MockCluster
    from conformance.profiles import load_profile

    profile = load_profile("local-mock")
    path = tmp_path_factory.mktemp("deployment") / "deployment.toml"
    with MockCluster(profile) as cluster:
        path.write_text(deployment_profile(profile, cluster), encoding="utf-8")
        yield path, dict(cluster.secrets)


def run(profile: Path, secrets: dict[str, str], report_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return forked_cli.run([*CLI, "run", "--profile", str(profile), "-n", "0", "--no-html", "--report-dir",
                           str(report_dir), *args], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
                          env={**os.environ, **secrets})


def assert_config_error(result: subprocess.CompletedProcess[str], report_dir: Path, key: str, env_var: str) -> None:
    out = result.stdout + result.stderr
    assert result.returncode == 2, out
    assert key in out and env_var in out and "refused" in out, out
    assert WRONG not in out and "Traceback" not in out
    assert "conformance verdict" not in out  # no check ran: no summary of failures
    summary = report_dir / "summary.json"
    assert not summary.is_file() or not json.loads(summary.read_text())["checks"]


def test_a_wrong_api_key_is_exit_2_naming_the_key_and_its_variable(deployment, tmp_path: Path) -> None:
    profile, secrets = deployment
    result = run(profile, {**secrets, "CONFORMANCE_MOCK_API_KEY": WRONG}, tmp_path / "r", "--suite", "address",
                 "--check", "address.auth.valid_key_served")
    assert_config_error(result, tmp_path / "r", "services.address.secrets.api_key", "CONFORMANCE_MOCK_API_KEY")
    assert "401 authentication" in result.stderr  # the server's answer, quoted


def test_a_wrong_restricted_key_is_named_too(deployment, tmp_path: Path) -> None:
    profile, secrets = deployment
    result = run(profile, {**secrets, "CONFORMANCE_MOCK_RESTRICTED_API_KEY": WRONG}, tmp_path / "r",
                 "--suite", "address", "--check", "address.auth.valid_key_served")
    assert_config_error(result, tmp_path / "r", "services.address.secrets.restricted_api_key",
                        "CONFORMANCE_MOCK_RESTRICTED_API_KEY")
    assert "services.address.secrets.api_key " not in result.stderr  # the right key is not blamed


def test_the_restricted_key_as_the_main_key_is_exit_2_naming_the_main_key(deployment, tmp_path: Path) -> None:
    # Issue 51: it was DOES NOT CONFORM against a conforming server (20 MUST checks failed, 56
    # blocked); the main key must have the rights of the operations the run calls.
    profile, secrets = deployment
    restricted = secrets["CONFORMANCE_MOCK_RESTRICTED_API_KEY"]
    result = run(profile, {**secrets, "CONFORMANCE_MOCK_API_KEY": restricted}, tmp_path / "r", "--suite", "address")
    assert_config_error(result, tmp_path / "r", "services.address.secrets.api_key", "CONFORMANCE_MOCK_API_KEY")
    assert "403 autorisation" in result.stderr and "restricted_api_key" in result.stderr
    assert restricted not in result.stdout + result.stderr


def test_a_wrong_client_secret_is_exit_2_naming_the_key_and_its_variable(deployment, tmp_path: Path) -> None:
    profile, secrets = deployment
    result = run(profile, {**secrets, "CONFORMANCE_MOCK_CLIENT_SECRET": WRONG}, tmp_path / "r", "--suite", "auth",
                 "--check", "auth.code.confidential_flow")
    assert_config_error(result, tmp_path / "r", "services.auth.secrets.client_secret", "CONFORMANCE_MOCK_CLIENT_SECRET")
    assert "invalid_client" in result.stderr


def test_accepted_credentials_run_as_before(deployment, tmp_path: Path) -> None:
    profile, secrets = deployment
    result = run(profile, secrets, tmp_path / "r", "--suite", "address", "--suite", "auth",
                 "--check", "address.auth.valid_key_served", "--check", "auth.code.confidential_flow")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    outcomes = {e["check"]: e["outcome"] for e in json.loads((tmp_path / "r" / "summary.json").read_text())["checks"]}
    assert outcomes == {"address.auth.valid_key_served": "passed", "auth.code.confidential_flow": "passed"}


def test_a_client_key_the_server_does_not_know_is_exit_2_naming_its_key(deployment, tmp_path: Path) -> None:
    profile, secrets = deployment
    other = tmp_path / "other-pki"
    made = forked_cli.run([*CLI, "pki", "init", "--out", str(other)], capture_output=True, text=True, timeout=120,
                          cwd=REPO_ROOT)
    assert made.returncode == 0, made.stderr
    text = re.sub(r'pki_dir = ".*"', f'pki_dir = "{other}"', profile.read_text())
    (tmp_path / "p.toml").write_text(text)
    result = run(tmp_path / "p.toml", secrets, tmp_path / "r", "--suite", "auth", "--check", "auth.code.confidential_flow")
    assert_config_error(result, tmp_path / "r", "services.auth.keys.pki_dir", "client-credentials key")
    assert "invalid_client" in result.stderr


# ---------------------------------------------------------------- the seed's aud refused, the key known
class _Result:
    def __init__(self, issued: bool) -> None:
        self.issued = issued


class _Flows:
    """Issues a token only for an assertion whose aud is `accepted`; records the auds sent."""

    def __init__(self, accepted: str) -> None:
        self.accepted, self.sent = accepted, []

    def assertion(self, *, audience: str) -> str:
        return audience

    def client_credentials(self, assertion: str) -> _Result:
        self.sent.append(assertion)
        return _Result(assertion == self.accepted)


def _key_accepted_elsewhere(audience: str | None, flows: _Flows) -> tuple[bool, list[str]]:
    from types import SimpleNamespace

    from conformance.preflight import _key_accepted_elsewhere as probe

    said: list[str] = []
    service = SimpleNamespace(audience=audience)
    targets = SimpleNamespace(auth_url="https://auth.example/", audience="auth.example:443/auth/oauth/v2/token")
    return probe(service, targets, flows, said.append), said


def test_a_server_refusing_only_the_seeds_aud_is_judged_by_the_checks_not_stopped() -> None:
    """A server that takes the key with its token endpoint URL as aud but refuses the seed's form
    fails auth.cc.valid_assertion_accepted (a MUST): a verdict on the server, so the run goes on
    (the oidc-provider interop peer, tests/interop/expected/oidc-stock.toml, is such a server)."""
    flows = _Flows(accepted="https://auth.example/auth/oauth/v2/token")
    accepted, said = _key_accepted_elsewhere(None, flows)
    assert accepted and flows.sent == ["https://auth.example/auth/oauth/v2/token"]
    assert "auth.cc.valid_assertion_accepted" in said[0]


def test_a_key_refused_with_either_aud_is_still_a_configuration_error() -> None:
    flows = _Flows(accepted="nothing")
    assert _key_accepted_elsewhere(None, flows) == (False, [])


def test_an_audience_the_profile_names_is_not_second_guessed() -> None:
    flows = _Flows(accepted="https://auth.example/auth/oauth/v2/token")
    assert _key_accepted_elsewhere("https://auth.example/other", flows) == (False, [])
    assert flows.sent == []  # no probe: the profile chose its aud, a refusal is its to fix


def test_a_service_that_does_not_answer_is_asked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deployment that holds its answers past the deadline: the credential check asks one
    key and leaves the rest to the checks (and the service's breaker), instead of waiting a
    deadline per key before the first check."""
    from conformance import preflight
    from conformance.http.limits import HttpViolation
    from conformance.profiles import load_profile
    from conformance.samples import session

    asked: list[str] = []

    class Silent:
        def has_key(self, kind: str) -> bool:
            return True

        def get(self, path: str, *, params: object = None, key: str) -> None:
            asked.append(key)
            raise HttpViolation("no_answer", "no answer within the deadline")

        def close(self) -> None:
            pass

    monkeypatch.setattr(session, "address_api", lambda *a, **kw: Silent())
    profile = load_profile("external-test")  # an API key and a restricted key
    assert len(profile.address.secret_env) >= 2
    refused = preflight._address(profile, profile.address, "https://slow.example/v2", {}, lambda name: (None, None),
                                 lambda line: None)
    assert refused == [] and asked == ["valid"]


def _with_client(profile: Path, tmp_path: Path, role: str, client_id: str) -> Path:
    text = re.sub(rf'(?m)^{role} = ".*"$', f'{role} = "{client_id}"', profile.read_text())
    assert f'{role} = "{client_id}"' in text
    (tmp_path / "p.toml").write_text(text)
    return tmp_path / "p.toml"


def test_a_public_client_the_server_does_not_know_is_exit_2_naming_its_key(deployment, tmp_path: Path) -> None:
    # Issue 51: every PKCE check of the public client would fail or block on invalid_client.
    profile, secrets = deployment
    result = run(_with_client(profile, tmp_path, "public", "filing-nobody"), secrets, tmp_path / "r",
                 "--suite", "auth", "--check", "auth.code.confidential_flow")
    out = result.stdout + result.stderr
    assert result.returncode == 2 and "services.auth.clients.public" in out and "invalid_client" in out, out
    assert "services.auth.secrets.client_secret" not in out  # the confidential client is not blamed


def test_a_client_the_server_may_not_let_use_the_grant_or_scope_is_named_by_its_role() -> None:
    # RFC 6749 5.2: unauthorized_client and invalid_scope speak of the client's registration;
    # every check of that client would be refused for it. Other errors are the checks' to judge.
    from types import SimpleNamespace

    from conformance.preflight import _registration

    for error in ("unauthorized_client", "invalid_scope"):
        result = SimpleNamespace(error=error, answer=f"400 error={error}")
        (refusal,) = _registration(result, "client_credentials", "inquiry-service", "the client credentials grant")
        assert "services.auth.clients.client_credentials" in str(refusal) and error in str(refusal)
    for error in (None, "invalid_grant", "invalid_request"):
        assert _registration(SimpleNamespace(error=error, answer=""), "public", "x", "the grant") == []
    assert _registration(None, "public", "x", "the grant") == []  # no answer in time: the checks say why
