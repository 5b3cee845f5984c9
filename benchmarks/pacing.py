"""Adaptive pacing against a loopback address API with a per-second rate limit.

The local address mock is started here with its valid key limited to --limit requests per
second (fixed windows, RateLimit-* headers, 429 with Retry-After), and a full address run
(scenario checks and contract fuzzing, -n 2) is pointed at it through an ordinary profile
whose requests_per_second equals that limit. Printed: the rate the run achieved on that
key (its requests over the time they took) as a share of the limit, and how many 429 the
server sent it. Target (issue 26): at least 95 % of the limit with no 429.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

from conformance.mocks.address.app import create_app  # noqa: E402
from conformance.mocks.address.config import AddressMockConfig, KeyPolicy  # noqa: E402
from conformance.mocks.address.data import WELL_KNOWN, default_database_path, ensure_database  # noqa: E402
from conformance.mocks.faults import FaultSet  # noqa: E402
from conformance.serving import ServerThread  # noqa: E402

KEY, RESTRICTED = "bench-valid-key-0001", "bench-restricted-key-0002"
BASE = "/lvbag/individuelebevragingen/v2"


class Counter:
    """ASGI middleware: the statuses sent to the paced key, and the first and last request
    times and count of every request (all keys share the paced client's rate)."""

    def __init__(self, app) -> None:
        self.app, self.statuses, self.first, self.last, self.total = app, {}, None, None, 0

    async def __call__(self, scope, receive, send) -> None:
        key = dict(scope.get("headers") or []).get(b"x-api-key", b"").decode() if scope["type"] == "http" else ""

        async def counting_send(message) -> None:
            if message["type"] == "http.response.start":
                if key == KEY:
                    self.statuses[message["status"]] = self.statuses.get(message["status"], 0) + 1
                now = time.monotonic()
                self.first = self.first or now
                self.last = now
                self.total += 1
            await send(message)

        await self.app(scope, receive, counting_send)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=20, help="the server's limit per second (and the profile's pace)")
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args()
    config = AddressMockConfig(db_path=ensure_database(default_database_path()), keys={
        KEY: KeyPolicy(rate_limit=args.limit, rate_window_s=1, day_limit=10_000_000),
        RESTRICTED: KeyPolicy(rate_limit=args.limit, rate_window_s=1, day_limit=10_000_000,
                              forbidden_prefixes=("/adressenuitgebreid",)),
    })
    counter = Counter(create_app(config, FaultSet()))
    server = ServerThread(counter, "bench-address")
    port = server.start()
    samples = "\n".join(f'{k} = "{v}"' for k, v in WELL_KNOWN.items())
    profile = f"""
[profile]
name = "pacing-benchmark"
description = "an address API limited to {args.limit} requests per second"
[services.address]
mock = false
base_url = "http://127.0.0.1:{port}{BASE}"
restricted_paths = ["/adressenuitgebreid"]
[services.address.secrets]
api_key = "BENCH_KEY"
restricted_api_key = "BENCH_RESTRICTED_KEY"
[services.address.samples]
{samples}
[limits]
requests_per_second = {args.limit}
[safety]
fuzz = true
negative = true
[fuzz]
max_examples = {args.examples}
"""
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "p.toml"
            path.write_text(profile)
            started = time.monotonic()
            proc = subprocess.run(
                [sys.executable, "-m", "conformance.cli", "run", "--profile", str(path), "--suite", "address", "-n", "2",
                 "--no-html", "--report-dir", str(Path(tmp) / "run"), "--seed", "1"],
                cwd=REPO, capture_output=True, text=True,
                env={**os.environ, "BENCH_KEY": KEY, "BENCH_RESTRICTED_KEY": RESTRICTED})
            wall = time.monotonic() - started
    finally:
        server.stop()
    span = (counter.last - counter.first) if counter.first and counter.last else 0.0
    rate = counter.total / span if span else 0.0
    print(f"limit {args.limit}/s, paced at {args.limit}/s with 2 workers: {counter.total} requests in {span:.1f} s "
          f"= {rate:.1f}/s ({100 * rate / args.limit:.0f} % of the limit); "
          f"429 received: {counter.statuses.get(429, 0)}; run exit {proc.returncode}, wall {wall:.1f} s")


if __name__ == "__main__":
    main()
