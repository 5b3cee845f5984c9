"""Start and stop the local mock servers: uvicorn on 127.0.0.1, ephemeral ports, threads.

The launcher is independent of pytest: the CLI's `conformance mock` and the pytest
plugin both use it. Mock API keys are generated per start (so a report can never carry
a reusable key) and handed over in memory as `MockCluster.secrets`.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from dataclasses import dataclass, field
from typing import Any

from conformance.mocks.faults import FaultSet
from conformance.profiles import Profile
from conformance.serving import ServerThread, TlsOptions, wait_until_stopped  # noqa: F401  (re-exported)

ADDRESS_BASE_PATH = "/lvbag/individuelebevragingen/v2"

# Restricted keys may not read the extended addresses (403 `autorisation`).
RESTRICTED_PREFIXES = ("/adressenuitgebreid",)
LIMITED_RATE = (5, 60)  # 5 requests per 60 s window: a burst of 6 is refused
QUOTA_DAY_LIMIT = 25


class AnswerDelay:
    """ASGI middleware: every HTTP request waits `delay_s` before the app sees it.

    To try the harness against a slow environment (benchmarks/slow_service.py, `conformance
    mock --answer-delay`). The wait is an `asyncio.sleep` on the server's event loop, so
    requests in flight together are delayed together, not queued behind each other; the
    most that were (`most_in_flight`) says how many a client kept waiting at once."""

    def __init__(self, app: Any, delay_s: float) -> None:
        self.app, self.delay_s = app, delay_s
        self.in_flight = self.most_in_flight = 0  # one event loop: no lock

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1


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
    # Where the run's JWKS documents are already published (an xdist worker's private
    # instances reuse the main process's publisher, whose port may be fixed by the profile).
    jwks_base: str | None = None
    # Fixed loopback ports of the first instance of each service (`conformance mock --port`);
    # any other, and any service not named, takes a free port.
    ports: dict[str, int] = field(default_factory=dict)
    # Seconds every HTTP answer of every server of the cluster is held (AnswerDelay): a slow
    # environment on loopback. 0: answered at once.
    answer_delay_s: float = 0.0
    delays: dict[str, AnswerDelay] = field(default_factory=dict)  # by service, when answers are held

    def __enter__(self) -> MockCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, only: set[str] | None = None) -> dict[str, str]:
        """Start the profile's mocks (`only`: of these services; a run of one suite starts
        one mock, not three: about 0.6 s of a process that never imports the others)."""
        try:
            return self._start(only)
        except BaseException:
            self.stop()  # what did start must not outlive a failed start
            raise

    def start_address_service(self) -> dict[str, str]:
        """Only the profile's address mock, with its keys and samples (a comparison's
        reference side needs no other service)."""
        try:
            self._start_address_service()
            return self.urls
        except BaseException:
            self.stop()
            raise

    def _start_address_service(self) -> None:
        address = self.profile.address
        if address is not None and address.mock:
            self._generate_keys(address.secret_env)
            self.urls["address"] = self.start_address()
            from conformance.mocks.address.data import well_known

            # The samples of the data set the mock serves (services.address.mock_data).
            self.samples["address"] = well_known(self._address_data_set())

    def _start(self, only: set[str] | None) -> dict[str, str]:
        wanted = set(self.profile.services) if only is None else only
        if "address" in wanted:
            self._start_address_service()
        soap = self.profile.soap
        if soap is not None and soap.mock and "soap" in wanted:
            self.urls["soap"] = self.start_soap(soap.soap_action_base)
        auth = self.profile.auth
        if auth is not None and auth.mock and "auth" in wanted:
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
            self._auth.prepare(self._serve, jwks_base=self.jwks_base)
        port = self._serve(create_app(self._auth.config(), self.faults), "auth", self._first_port("auth"))
        return self._auth.targets_info(f"http://127.0.0.1:{port}")

    def _first_port(self, service: str) -> int:
        return self.ports.pop(service, 0)

    def _serve(self, app: Any, name: str, port: int = 0, ssl: TlsOptions | None = None) -> int:
        if self.answer_delay_s > 0:
            app = self.delays[name] = AnswerDelay(app, self.answer_delay_s)
        server = ServerThread(app, name, ssl=ssl, port=port)
        port = server.start()
        self._servers.append(server)
        return port

    def start_soap(self, soap_action_base: str) -> str:
        """Start the SOAP mock, demanding what the profile's `[services.soap.auth]` asks of
        it (`mock_kind`, default `kind`): nothing, HTTP basic credentials (generated like
        the API keys, under the profile's `secrets` names), or a TLS client certificate
        (https with the test certificates of conformance/mocks/soap/tls.py). Where the
        client finds the certificates and the CA goes to `samples["soap"]`."""
        from conformance.mocks.soap.app import SoapMockConfig, create_app
        from conformance.mocks.soap.tls import ensure_test_tls

        service = self.profile.soap
        demands = service.mock_auth_kind if service is not None else "none"
        secret_env = service.secret_env if service is not None else {}
        self._generate_keys(secret_env)
        credentials = None
        if demands == "basic":
            if {"username", "password"} <= secret_env.keys():
                credentials = (self.secrets[secret_env["username"]], self.secrets[secret_env["password"]])
            else:  # the profile sends none: credentials nobody knows
                credentials = ("mock-soap-user", secrets.token_hex(12))
        # Longer than the harness's response-time limit, shorter than its time-out.
        limit, timeout = (service.response_time_s, service.timeout_s) if service is not None else (2.0, 10.0)
        hang_s = min(limit + 1.0, (limit + timeout) / 2) if timeout > limit else limit + 1.0
        config = SoapMockConfig(soap_action_base=soap_action_base, basic_credentials=credentials, hang_s=hang_s)
        tls = None
        scheme = "http"
        if demands == "client_certificate":
            files = ensure_test_tls()
            tls = TlsOptions(str(files.server_cert), str(files.server_key), client_ca=str(files.ca_file))
            scheme = "https"
            self.samples["soap"] = {
                "ca_file": str(files.ca_file),
                "client_cert": str(files.client_cert),
                "client_key": str(files.client_key),
            }
        port = self._serve(create_app(config, self.faults), "soap", self._first_port("soap"), ssl=tls)
        return f"{scheme}://127.0.0.1:{port}{config.path}"

    def start_address(self, *, maintenance: bool = False) -> str:
        """Start an address mock (another instance when called again) and return its base URL."""
        from conformance.mocks.address.app import create_app
        from conformance.mocks.address.config import AddressMockConfig, KeyPolicy
        from conformance.mocks.address.data import default_database_path, ensure_database
        from conformance.mocks.address.faults_general import UNVERSIONED_BASE_PATH

        env = self.profile.address.secret_env if self.profile.address else {}
        keys = {self.secrets[env["api_key"]]: KeyPolicy(rate_limit=100_000, day_limit=100_000_000)}
        if "restricted_api_key" in env:
            keys[self.secrets[env["restricted_api_key"]]] = KeyPolicy(
                # The profile's fact (services.address.restricted_paths) is what the mock enforces.
                rate_limit=100_000, day_limit=100_000_000,
                forbidden_prefixes=self.profile.address.restricted_paths if self.profile.address else RESTRICTED_PREFIXES,
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
        base_path = ADDRESS_BASE_PATH
        if self.faults.on(UNVERSIONED_BASE_PATH.name):
            base_path = base_path.removesuffix("/v2")
        data_set = self._address_data_set()
        config = AddressMockConfig(
            db_path=ensure_database(default_database_path(data_set), data_set),
            keys=keys,
            base_path=base_path,
            maintenance=maintenance,
        )
        port = self._serve(create_app(config, self.faults), "address", self._first_port("address"))
        return f"http://127.0.0.1:{port}{base_path}"

    def _address_data_set(self) -> str:
        """The address mock's data set: the profile's services.address.mock_data ("full" or
        "ordinary", see conformance.mocks.address.data), "full" when it names none."""
        return getattr(self.profile.address, "mock_data", "full") if self.profile.address else "full"

    def _generate_keys(self, secret_env: dict[str, str]) -> None:
        # A value already in the environment wins (tests plant canaries that way).
        for name, env_var in secret_env.items():
            generated = f"mock-{name.replace('_', '-')}-{secrets.token_hex(12)}"
            self.secrets.setdefault(env_var, os.environ.get(env_var) or generated)

    def stop(self) -> None:
        for server in self._servers:  # all at once: the stop takes the longest one's time, not the sum
            server.signal_stop()
        for server in reversed(self._servers):
            server.stop()
        self._servers.clear()
