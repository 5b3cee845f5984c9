"""Throughput of the address mock on an address lookup (GET /adressen/{id}), loopback only.

Concurrent clients (threads, one httpx.Client each) for a fixed time; prints requests/s
and latency percentiles. The loop is bounded in time and stops by itself.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _mock import start_local_mock, valid_key  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    with start_local_mock() as cluster:
        url = cluster.urls["address"] + "/adressen/" + cluster.samples["address"]["nummeraanduiding"]
        headers = {"X-Api-Key": valid_key(cluster), "Accept": "application/hal+json"}
        latencies: list[float] = []
        errors = [0]
        lock = threading.Lock()
        deadline = time.monotonic() + args.seconds

        def worker() -> None:
            local: list[float] = []
            with httpx.Client(trust_env=False, timeout=10) as client:
                while time.monotonic() < deadline:
                    started = time.perf_counter()
                    response = client.get(url, headers=headers)
                    local.append(time.perf_counter() - started)
                    if response.status_code != 200:
                        with lock:
                            errors[0] += 1
            with lock:
                latencies.extend(local)

        threads = [threading.Thread(target=worker) for _ in range(args.concurrency)]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - started
    latencies.sort()
    pct = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000  # noqa: E731
    print(f"address lookup: {len(latencies)} requests in {elapsed:.1f} s with {args.concurrency} clients "
          f"= {len(latencies) / elapsed:.0f} req/s; non-200: {errors[0]}")
    print(f"latency ms: median {statistics.median(latencies) * 1000:.1f}, p95 {pct(0.95):.1f}, p99 {pct(0.99):.1f}")


if __name__ == "__main__":
    main()
