"""Loopback HTTP servers in a thread: the mock servers and the client JWKS publisher.

Kept apart from the mocks so that what the harness publishes for real environments (the
JWKS of `conformance pki serve`) does not depend on the mock package.
"""

from __future__ import annotations

import contextlib
import signal
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn

from conformance.errors import HarnessError


@dataclass(frozen=True)
class TlsOptions:
    """TLS for a mock server: its certificate and key, and, with `client_ca`, a client
    certificate issued by that CA is required for the handshake (mutual TLS)."""

    certfile: str
    keyfile: str
    client_ca: str | None = None

    def uvicorn_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"ssl_certfile": self.certfile, "ssl_keyfile": self.keyfile}
        if self.client_ca is not None:
            kwargs.update(ssl_ca_certs=self.client_ca, ssl_cert_reqs=ssl.CERT_REQUIRED)
        return kwargs


# uvicorn's C HTTP parser and event loop, named rather than left to "auto": every mock parses
# requests the same way wherever it runs, and a missing one is an error, not a slower mock.
# They take a third of the mocks' CPU away (benchmarks/cpu_per_exchange.py: 1.5 to 1.8 ms of
# mock CPU per exchange with h11 and asyncio, 1.2 to 1.25 with these; benchmarks/README.md).
HTTP_PARSER = "httptools"
EVENT_LOOP = "uvloop"


class ServerThread:
    """One uvicorn server in a daemon thread; `start()` returns once it listens."""

    def __init__(self, app: Any, name: str, *, ssl: TlsOptions | None = None, port: int = 0) -> None:
        config = uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", access_log=False,
            http=HTTP_PARSER, loop=EVENT_LOOP,
            timeout_graceful_shutdown=2,  # a client that keeps its connection open cannot hold a stop up
            **(ssl.uvicorn_kwargs() if ssl is not None else {}),
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name=f"mock-{name}", daemon=True)
        self.name = name
        self.port = 0
        self._error: Exception | None = None

    def _run(self) -> None:
        # uvicorn exits (SystemExit) when it cannot bind; start() reports that as a HarnessError,
        # and any other failure to start (HTTP_PARSER or EVENT_LOOP not installed) with its reason.
        try:
            with contextlib.suppress(SystemExit):
                self._server.run()
        except Exception as exc:  # noqa: BLE001 - the thread's end: start() says why
            self._error = exc

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
            if self._error is not None:
                raise HarnessError(f"mock server {self.name} could not start: {self._error} "
                                   "(scripts/bootstrap installs what it needs)")
            wanted = self._server.config.port
            why = f" (is port {wanted} of 127.0.0.1 in use?)" if wanted else ""
            raise HarnessError(f"mock server {self.name} did not start within {timeout_s} s{why}")
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self.port

    def stop(self) -> None:
        self.signal_stop()
        self._thread.join(10)

    def signal_stop(self) -> None:
        self._server.should_exit = True


def wait_until_stopped(stop: threading.Event | None = None, *, ready: Callable[[], None] | None = None) -> None:
    """Block until Ctrl-C, SIGTERM or `stop`. The signals only set the event, so no
    KeyboardInterrupt can land in the middle of a server's shutdown (called from the main
    thread; elsewhere only `stop` ends the wait). `ready` runs once the handlers are in
    place: a "Ctrl-C stops" printed there is true from the moment a reader sees it."""
    stop = stop or threading.Event()
    signalled: list[int] = []  # the handler only appends: taking a lock there could deadlock
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda number, _frame: signalled.append(number))
    try:
        if ready is not None:
            ready()
        while not signalled and not stop.wait(0.2):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
