"""Where a mock run publishes the client's JWKS: a free loopback port, the profile's
`keys.jwks_publish_port`, or (in an xdist worker's private instance) the main process's
publisher, which a fixed port could not be bound for twice."""

from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from conformance.cli import main
from conformance.errors import HarnessError
from conformance.mocks.launcher import MockCluster
from conformance.profiles import load_profile


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _auth_only(port: int = 0):
    profile = load_profile("local-mock")
    assert profile.auth is not None
    return replace(profile, address=None, soap=None, auth=replace(profile.auth, jwks_publish_port=port))


def _kids(url: str) -> list[str]:
    return [k["kid"] for k in httpx.get(url, trust_env=False).json()["keys"]]


def test_a_free_port_by_default() -> None:
    with MockCluster(_auth_only()) as cluster:
        base = cluster.samples["auth"]["jwks_base"]
        assert base.startswith("http://127.0.0.1:") and len(_kids(f"{base}/good.json")) == 2


def test_the_profiles_port_and_a_worker_reusing_it() -> None:
    port = _free_port()
    profile = _auth_only(port)
    with MockCluster(profile) as cluster:
        base = cluster.samples["auth"]["jwks_base"]
        assert base == f"http://127.0.0.1:{port}/jwks"
        kids = _kids(f"{base}/good.json")
        # A worker's own cluster: told where the JWKS is, it publishes nothing (the port is taken).
        worker = MockCluster(profile, jwks_base=base)
        worker.secrets.update(cluster.secrets)
        try:
            info = worker.start_auth()
            assert info["jwks_base"] == base
            token = httpx.post(f"{info['auth_url']}/auth/oauth/v2/token", data={"grant_type": "nothing"},
                               trust_env=False)
            assert token.status_code == 400  # the private instance answers
        finally:
            worker.stop()
        assert _kids(f"{base}/good.json") == kids


def test_a_taken_port_is_named() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(HarnessError, match=f"port {port} of 127.0.0.1 in use"):
            MockCluster(_auth_only(port)).start()


def test_a_bad_port_in_a_profile_is_a_configuration_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (Path(load_profile("local-mock").path)).read_text()
    assert "[services.auth.keys]" not in text  # the shipped profile leaves the port free
    bad = tmp_path / "bad.toml"
    bad.write_text(text + "\n[services.auth.keys]\njwks_publish_port = 70000\n")
    assert main(["run", "--profile", str(bad), "--suite", "auth"]) == 2
    assert "jwks_publish_port" in capsys.readouterr().err


def test_a_server_that_cannot_start_says_why(monkeypatch: pytest.MonkeyPatch,
                                             capfd: pytest.CaptureFixture[str]) -> None:
    """The mocks' HTTP parser missing (conformance/serving.py names it): the reason, at once,
    not a thread's traceback and a wait for a server that will never listen."""
    import time

    import uvicorn.config
    from starlette.applications import Starlette

    from conformance.serving import HTTP_PARSER, ServerThread

    monkeypatch.setitem(uvicorn.config.HTTP_PROTOCOLS, HTTP_PARSER, "no_such_http_parser:Protocol")
    started = time.monotonic()
    with pytest.raises(HarnessError, match=r'mock server address could not start: .*"no_such_http_parser"'):
        ServerThread(Starlette(), "address").start()
    assert time.monotonic() - started < 10
    assert "Traceback" not in capfd.readouterr().err
