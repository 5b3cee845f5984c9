"""Start and stop the local mock servers: uvicorn on 127.0.0.1, ephemeral ports, threads.

The launcher is independent of pytest: the CLI's `conformance mock` and the pytest
plugin both use it. Mock API keys are generated per start (so a report can never carry
a reusable key) and handed over in memory as `MockCluster.secrets`.
"""

from __future__ import annotations

import os
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from conformance.errors import HarnessError
from conformance.mocks.faults import FaultSet
from conformance.profiles import Profile

ADDRESS_BASE_PATH = "/lvbag/individuelebevragingen/v2"

# Restricted keys may not read the extended addresses (403 `autorisation`).
RESTRICTED_PREFIXES = ("/adressenuitgebreid",)
LIMITED_RATE = (5, 60)  # 5 requests per 60 s window: a burst of 6 is refused
QUOTA_DAY_LIMIT = 25


class ServerThread:
    """One uvicorn server in a daemon thread; `start()` returns once it listens."""

    def __init__(self, app: Any, name: str) -> None:
        config = uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="off", access_log=False
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name=f"mock-{name}", daemon=True)
        self.name = name
        self.port = 0

    def start(self, timeout_s: float = 15.0) -> int:
        self._thread.start()
        started = threading.Event()

        def wait() -> None:
            while not self._server.started and self._thread.is_alive():
                started.wait(0.01)

        waiter = threading.Thread(target=wait)
        waiter.start()
        waiter.join(timeout_s)
        if not self._server.started:
            raise HarnessError(f"mock server {self.name} did not start within {timeout_s} s")
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self.port

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)


@dataclass
class MockCluster:
    """The mock servers a profile asks for. Use as a context manager or start()/stop()."""

    profile: Profile
    faults: FaultSet = field(default_factory=FaultSet)
    urls: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)  # env var name -> value
    samples: dict[str, dict[str, str]] = field(default_factory=dict)
    _servers: list[ServerThread] = field(default_factory=list)
    _auth: Any = None  # launcher_auth.AuthMockSetup, once an auth mock was started

    def __enter__(self) -> MockCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> dict[str, str]:
        address = self.profile.address
        if address is not None and address.mock:
            self._generate_keys(address.secret_env)
            self.urls["address"] = self.start_address()
            from conformance.mocks.address.data import WELL_KNOWN

            self.samples["address"] = dict(WELL_KNOWN)
        soap = self.profile.soap
        if soap is not None and soap.mock:
            self.urls["soap"] = self.start_soap(soap.soap_action_base)
        auth = self.profile.auth
        if auth is not None and auth.mock:
            info = self.start_auth()
            self.urls["auth"] = info["auth_url"]
            self.samples["auth"] = info
        return self.urls

    def start_auth(self) -> dict[str, str]:
        """Start a mock authorization server (with its resource servers) and return where it
        is. Called again, it starts another instance with its own clock and token store,
        for checks that move the clock."""
        from conformance.mocks.auth.app import create_app
        from conformance.mocks.launcher_auth import AuthMockSetup

        if self._auth is None:
            assert self.profile.auth is not None
            self._auth = AuthMockSetup(self.profile.auth, self.secrets)
            self._auth.prepare(self._serve)
        port = self._serve(create_app(self._auth.config(), self.faults), "auth")
        return self._auth.targets_info(f"http://127.0.0.1:{port}")

    def _serve(self, app: Any, name: str) -> int:
        server = ServerThread(app, name)
        port = server.start()
        self._servers.append(server)
        return port

    def start_soap(self, soap_action_base: str) -> str:
        from conformance.mocks.soap.app import SoapMockConfig, create_app

        config = SoapMockConfig(soap_action_base=soap_action_base)
        server = ServerThread(create_app(config, self.faults), "soap")
        port = server.start()
        self._servers.append(server)
        return f"http://127.0.0.1:{port}{config.path}"

    def start_address(self, *, maintenance: bool = False) -> str:
        """Start an address mock (another instance when called again) and return its base URL."""
        from conformance.mocks.address.app import create_app
        from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
        from conformance.mocks.address.data import default_database_path, ensure_database

        env = self.profile.address.secret_env if self.profile.address else {}
        keys = {self.secrets[env["api_key"]]: KeyPolicy(rate_limit=100_000, day_limit=100_000_000)}
        if "restricted_api_key" in env:
            keys[self.secrets[env["restricted_api_key"]]] = KeyPolicy(
                rate_limit=100_000, day_limit=100_000_000, forbidden_prefixes=RESTRICTED_PREFIXES
            )
        if "limited_api_key" in env:
            limit, window = LIMITED_RATE
            keys[self.secrets[env["limited_api_key"]]] = KeyPolicy(
                rate_limit=limit, rate_window_s=window, day_limit=100_000_000
            )
        if "quota_api_key" in env:
            keys[self.secrets[env["quota_api_key"]]] = KeyPolicy(
                rate_limit=100_000, day_limit=QUOTA_DAY_LIMIT
            )
        config = AddressMockConfig(
            db_path=ensure_database(default_database_path()),
            keys=keys,
            base_path=ADDRESS_BASE_PATH,
            maintenance=maintenance,
        )
        server = ServerThread(create_app(config, self.faults), "address")
        port = server.start()
        self._servers.append(server)
        return f"http://127.0.0.1:{port}{ADDRESS_BASE_PATH}"

    def _generate_keys(self, secret_env: dict[str, str]) -> None:
        # A value already in the environment wins (tests plant canaries that way).
        for name, env_var in secret_env.items():
            generated = f"mock-{name.replace('_', '-')}-{secrets.token_hex(12)}"
            self.secrets.setdefault(env_var, os.environ.get(env_var) or generated)

    def stop(self) -> None:
        for server in reversed(self._servers):
            server.stop()
        self._servers.clear()
