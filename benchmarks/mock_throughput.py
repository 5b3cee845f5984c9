"""Throughput of the address mock against its framework, and the latency of its searches; loopback only.

In one run (so both see the same machine):

* a bare Starlette app (one route returning a small JSON) on the same uvicorn settings as
  the mock (conformance.serving.ServerThread) and the address mock's lookup
  (GET /adressen/{id}), each with `--concurrency` keep-alive connections for `--seconds`,
  alternated `--rounds` times; prints requests/s of each, latency percentiles and the
  ratio mock/bare (target: at least 60 %). The clients run in a separate process and
  speak plain HTTP/1.1 over asyncio streams (`--client raw`, the default), so what is
  measured is the servers, not an HTTP client sharing their interpreter; `--client httpx`
  runs them as threads with one httpx.Client each in the servers' own process instead;
* the median latency, one client alone, of every search kind and lookup the mock answers
  (target: every search kind at most 5 ms), and of the free-text search at 4 clients.

Figures are printed, never asserted. Every loop is bounded in time and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import re
import statistics
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _mock import start_local_mock, valid_key  # noqa: E402

from conformance.serving import ServerThread  # noqa: E402

TARGET_RATIO = 0.60
TARGET_SEARCH_MS = 5.0
_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*([0-9]+)")


def bare_app() -> Starlette:
    async def hello(_request: Request) -> JSONResponse:
        return JSONResponse({"hello": "world"})

    return Starlette(routes=[Route("/hello", hello)])


def load(
    url: str, headers: dict[str, str], seconds: float, concurrency: int, client: str = "raw"
) -> tuple[float, list[float], int]:
    """(requests/s, sorted latencies in s, non-200 answers) of `concurrency` clients for `seconds`."""
    if client == "raw":
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            return pool.submit(_raw_load, url, headers, seconds, concurrency).result()
    return _httpx_load(url, headers, seconds, concurrency)


def _raw_load(
    url: str, headers: dict[str, str], seconds: float, concurrency: int
) -> tuple[float, list[float], int]:
    """`concurrency` keep-alive HTTP/1.1 connections on one asyncio loop (run in its own process)."""
    host, port, request = _request_bytes(url, headers)

    async def connection(deadline: float, latencies: list[float], errors: list[int]) -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                status, _size = await _exchange(reader, writer, request)
                latencies.append(time.perf_counter() - started)
                errors[0] += status != 200
        finally:
            writer.close()

    async def run() -> tuple[float, list[float], int]:
        latencies: list[float] = []
        errors = [0]
        started = time.monotonic()
        deadline = started + seconds
        await asyncio.gather(*(connection(deadline, latencies, errors) for _ in range(concurrency)))
        elapsed = time.monotonic() - started
        return len(latencies) / elapsed, sorted(latencies), errors[0]

    return asyncio.run(run())


def _httpx_load(
    url: str, headers: dict[str, str], seconds: float, concurrency: int
) -> tuple[float, list[float], int]:
    """Threads with one httpx.Client each, in this process (they share the servers' interpreter)."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def worker() -> None:
        local: list[float] = []
        bad = 0
        with httpx.Client(trust_env=False, timeout=10) as client:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                response = client.get(url, headers=headers)
                local.append(time.perf_counter() - started)
                bad += response.status_code != 200
        with lock:
            latencies.extend(local)
            errors[0] += bad

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    latencies.sort()
    return len(latencies) / elapsed, latencies, errors[0]


def _pct(values: list[float], p: float) -> float:
    return values[min(len(values) - 1, int(p * len(values)))] * 1000


def _describe(name: str, rate: float, latencies: list[float], errors: int) -> str:
    return (
        f"  {name:<14} {rate:7.0f} req/s   latency ms: median {statistics.median(latencies) * 1000:5.1f},"
        f" p95 {_pct(latencies, 0.95):5.1f}, p99 {_pct(latencies, 0.99):5.1f}; non-200: {errors}"
    )


def _request_bytes(url: str, headers: dict[str, str]) -> tuple[str, int, bytes]:
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    lines = [f"GET {target} HTTP/1.1", f"Host: {parts.netloc}", *(f"{k}: {v}" for k, v in headers.items())]
    return str(parts.hostname), int(parts.port or 80), ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[int, int]:
    """Send one request on a keep-alive connection; (status, body size) of its answer."""
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    length = _CONTENT_LENGTH.search(head)
    body = await reader.readexactly(int(length.group(1)) if length else 0)
    return int(head[9:12]), len(body)


def alone(
    urls: list[str], headers: dict[str, str], requests: int, seconds: float
) -> list[tuple[float, int, int]]:
    """(median latency in ms, status, body size) of each URL: sequential requests after a
    warm-up, one raw connection from a separate process."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(_raw_alone, urls, headers, requests, seconds).result()


def _raw_alone(
    urls: list[str], headers: dict[str, str], requests: int, seconds: float
) -> list[tuple[float, int, int]]:
    async def run() -> list[tuple[float, int, int]]:
        host, port, _ = _request_bytes(urls[0], headers)
        reader, writer = await asyncio.open_connection(host, port)
        results = []
        try:
            for url in urls:
                request = _request_bytes(url, headers)[2]
                status, size = await _exchange(reader, writer, request)
                times: list[float] = []
                deadline = time.monotonic() + seconds
                while len(times) < requests and (len(times) < 5 or time.monotonic() < deadline):
                    started = time.perf_counter()
                    status, size = await _exchange(reader, writer, request)
                    times.append(time.perf_counter() - started)
                results.append((statistics.median(times) * 1000, status, size))
        finally:
            writer.close()
        return results

    return asyncio.run(run())


def concurrent_median(url: str, headers: dict[str, str], clients: int, seconds: float) -> float:
    _rate, latencies, _errors = load(url, headers, seconds, clients, "raw")
    return statistics.median(latencies) * 1000


def search_kinds(
    client: httpx.Client, base: str, headers: dict[str, str], samples: dict[str, str]
) -> list[tuple[str, str, bool]]:
    """(label, path, is a search) of every search kind and lookup, with values read from the mock itself."""
    na, vbo, pand = samples["nummeraanduiding"], samples["verblijfsobject"], samples["pand"]
    address = client.get(f"{base}/adressen/{na}", headers=headers).json()
    street, number, postcode = address["openbareRuimteNaam"], address["huisnummer"], address["postcode"]
    place = address["woonplaatsNaam"]
    obj = client.get(f"{base}/adresseerbareobjecten/{vbo}", headers=headers).json()
    x, y = obj["verblijfsobject"]["verblijfsobject"]["geometrie"]["punt"]["coordinates"][:2]
    found = client.get(f"{base}/adressen/zoek", params={"zoek": f"{street} {number}"}, headers=headers).json()
    zoek_id = found["_embedded"]["zoekresultaten"][0]["identificatie"]
    history = samples["adresseerbaarobject_historie"]
    q = quote
    return [
        ("q street", f"/adressen?q={q(street.lower())}", True),
        ("q street+nr", f"/adressen?q={q(f'{street} {number}')}", True),
        ("q postcode+nr", f"/adressen?q={q(f'{postcode} {number}')}", True),
        ("q place", f"/adressen?q={q(place.lower())}", True),
        ("q short term", "/adressen?q=a", True),
        ("postcode+nr", f"/adressen?postcode={postcode}&huisnummer={number}", True),
        (
            "names+nr",
            f"/adressen?woonplaatsNaam={q(place)}&openbareRuimteNaam={q(street)}&huisnummer={number}",
            True,
        ),
        ("object", f"/adressen?adresseerbaarObjectIdentificatie={vbo}", True),
        ("pand", f"/adressen?pandIdentificatie={pand}", True),
        ("openbareruimte", f"/adressen?openbareRuimteIdentificatie={samples['openbareruimte']}", True),
        ("zoekresultaat", f"/adressen?zoekresultaatIdentificatie={zoek_id}", True),
        ("zoek (deprec.)", f"/adressen/zoek?zoek={q(street.lower())}", True),
        ("ext q street", f"/adressenuitgebreid?q={q(street.lower())}", True),
        ("ext postcode", f"/adressenuitgebreid?postcode={postcode}&huisnummer={number}", True),
        ("ext pand", f"/adressenuitgebreid?pandIdentificatie={pand}", True),
        ("bbox", f"/adresseerbareobjecten?bbox={samples['bbox']}", True),
        (
            "bbox geldigOp",
            f"/adresseerbareobjecten?bbox={samples['bbox']}&geldigOp={samples['historie_datum']}",
            True,
        ),
        ("point", f"/adresseerbareobjecten?bbox={x},{y},{x},{y}", True),
        ("ao by address", f"/adresseerbareobjecten?nummeraanduidingIdentificatie={na}", True),
        ("ao by pand", f"/adresseerbareobjecten?pandIdentificaties={pand}", True),
        ("address", f"/adressen/{na}", False),
        ("address expand", f"/adressen/{na}?expand=true", False),
        ("ext address", f"/adressenuitgebreid/{na}", False),
        ("object", f"/adresseerbareobjecten/{vbo}", False),
        ("object geldigOp", f"/adresseerbareobjecten/{history}?geldigOp={samples['historie_datum']}", False),
        ("life cycle", f"/adresseerbareobjecten/{vbo}/lvc?geheleLvc=true", False),
        ("bronhouder", f"/bronhouders?objectIdentificatie={vbo}", False),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8.0, help="per load phase")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3, help="bare/mock load phases, alternated")
    parser.add_argument(
        "--client",
        choices=("raw", "httpx"),
        default="raw",
        help="raw: plain HTTP/1.1 in a separate process; httpx: threads in this process",
    )
    parser.add_argument("--search-requests", type=int, default=60, help="per search kind, one client")
    parser.add_argument("--search-seconds", type=float, default=3.0, help="per search kind at most")
    args = parser.parse_args()
    bare = ServerThread(bare_app(), "bare")
    bare_url = f"http://127.0.0.1:{bare.start()}/hello"
    try:
        with start_local_mock() as cluster:
            base = cluster.urls["address"]
            headers = {"X-Api-Key": valid_key(cluster), "Accept": "application/hal+json"}
            samples = cluster.samples["address"]
            lookup = f"{base}/adressen/{samples['nummeraanduiding']}"
            _throughput(args, bare_url, lookup, headers)
            _searches(args, base, headers, samples)
    finally:
        bare.stop()


def _throughput(args: argparse.Namespace, bare_url: str, lookup: str, headers: dict[str, str]) -> None:
    clients = f"{args.concurrency} {args.client} clients"
    print(f"throughput, {clients}, {args.seconds:g} s per phase, {args.rounds} rounds:")
    load(bare_url, {}, 0.5, args.concurrency, args.client)  # warm-up of both
    load(lookup, headers, 0.5, args.concurrency, args.client)
    totals = {"bare": [0.0, 0], "mock": [0.0, 0]}
    ratios: list[float] = []
    for round_ in range(1, args.rounds + 1):
        rates = {}
        for name, url, sent in (("bare", bare_url, {}), ("mock", lookup, headers)):
            rate, latencies, errors = load(url, sent, args.seconds, args.concurrency, args.client)
            rates[name] = rate
            totals[name][0] += rate
            totals[name][1] += 1
            label = "bare starlette" if name == "bare" else "mock lookup"
            print(_describe(f"{label}", rate, latencies, errors) + f"   (round {round_})")
        ratios.append(rates["mock"] / rates["bare"])
    bare_mean = totals["bare"][0] / totals["bare"][1]
    mock_mean = totals["mock"][0] / totals["mock"][1]
    rounds = f"per round {', '.join(f'{r:.0%}' for r in ratios)}, median {statistics.median(ratios):.0%}"
    print(
        f"mock lookup / bare starlette: {mock_mean / bare_mean:.0%} of the framework "
        f"({mock_mean:.0f} / {bare_mean:.0f} req/s; {rounds}; target >= {TARGET_RATIO:.0%})"
    )


def _searches(args: argparse.Namespace, base: str, headers: dict[str, str], samples: dict[str, str]) -> None:
    with httpx.Client(trust_env=False, timeout=30) as client:
        kinds = search_kinds(client, base, headers, samples)
    bound = f"up to {args.search_requests} requests or {args.search_seconds:g} s"
    print(
        f"median latency alone (one raw client, {bound});"
        f" target: every search kind <= {TARGET_SEARCH_MS:g} ms"
    )
    measured = alone(
        [base + path for _, path, _ in kinds], headers, args.search_requests, args.search_seconds
    )
    worst = 0.0
    for (label, path, is_search), (median, status, size) in zip(kinds, measured, strict=True):
        if is_search:
            worst = max(worst, median)
        kind = "search" if is_search else "lookup"
        print(f"  {kind} {label:<16} {median:7.2f} ms   {status} {size:>7} B   {path}")
    print(f"slowest search kind: {worst:.2f} ms")
    median = concurrent_median(base + kinds[0][1], headers, 4, min(args.seconds, 3.0))
    print(f"free-text q ({kinds[0][1]}) at 4 clients: median {median:.2f} ms")


if __name__ == "__main__":
    main()
