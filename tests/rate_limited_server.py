"""A loopback HTTP server with a fixed-window rate limit, for the pacing tests and benchmark.

Windows are aligned to the epoch (like the local mock's), each answer carries
RateLimit-Limit/-Remaining/-Reset, and a request over the limit gets 429 with Retry-After.
It counts what it answered, so a test can prove that no 429 was provoked.
"""

from __future__ import annotations

import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class RateLimitedServer:
    def __init__(self, per_second: int, *, always_429_for: int | None = None) -> None:
        """`always_429_for`: refuse every request, asking to retry after that many seconds."""
        self.per_second = per_second
        self.always_429_for = always_429_for
        self.answered: dict[int, int] = {}
        self._window = (0, 0)  # (window start, count)
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                status, remaining, reset = outer._admit()
                body = b'{"_links":{"self":{"href":"/x"}}}' if status == 200 else b'{"status":429}'
                self.send_response(status)
                self.send_header("Content-Type", "application/hal+json" if status == 200 else "application/problem+json")
                self.send_header("RateLimit-Limit", str(outer.per_second))
                self.send_header("RateLimit-Remaining", str(remaining))
                self.send_header("RateLimit-Reset", str(reset))
                if status == 429:
                    self.send_header("Retry-After", str(reset))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _admit(self) -> tuple[int, int, int]:
        now = time.time()
        start = math.floor(now)
        reset = max(1, math.ceil(start + 1 - now))
        with self._lock:
            window, count = self._window
            if window != start:
                window, count = start, 0
            status = 200 if count < self.per_second and self.always_429_for is None else 429
            if self.always_429_for is not None:
                reset = self.always_429_for
            if status == 200:
                count += 1
            self._window = (window, count)
            self.answered[status] = self.answered.get(status, 0) + 1
            return status, max(0, self.per_second - count), reset

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> RateLimitedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
