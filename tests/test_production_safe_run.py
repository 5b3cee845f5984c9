"""A production-safe run (the production profile's switches and budget) against a conforming
deployment: the server is asked nothing it would refuse -- every answer is 200, or 404 for a
lookup of what does not exist -- and the run's traffic.har holds every request the server
received, the run's own before its checks (the reachability probe, the credentials, the base
URL, the samples) included."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import forked_cli
import pytest
from vendor_profiles import address_behind, vendor_profile

from conformance.paths import CHECKOUT
from conformance.profiles import load_profile

KEY_VAR = "PRODUCTION_SAFE_TEST_API_KEY"


class Witness:
    """ASGI middleware in front of the address mock: what it was asked, and what it answered."""

    def __init__(self, app: Any) -> None:
        self.app, self.seen = app, []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        target = scope["path"] + (("?" + scope["query_string"].decode("latin-1")) if scope.get("query_string") else "")

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                self.seen.append((scope["method"], target, message["status"]))
            await send(message)

        await self.app(scope, receive, sending)


@contextmanager
def witnessed(*faults: str) -> Iterator[tuple[str, str, dict[str, str], Witness]]:
    """The address mock (with `faults`) behind a Witness: its base URL, key, samples and witness."""
    with address_behind(Witness, *faults) as (cluster, witness):
        yield (cluster.urls["address"], cluster.secrets[load_profile("local-mock").address.secret_env["api_key"]],
               dict(cluster.samples["address"]), witness)


@pytest.fixture(scope="module")
def deployment() -> Iterator[tuple[str, str, dict[str, str], Witness]]:
    with witnessed() as found:
        yield found


def _vendor_profile(path: Path, base_url: str, samples: dict[str, str], extra: str = "") -> Path:
    return vendor_profile(path, base_url, samples, extra, key_var=KEY_VAR, name="production-safe")


def test_a_production_safe_run_gets_only_200_and_404_and_records_every_request(deployment, tmp_path: Path) -> None:
    base_url, key, samples, witness = deployment
    profile = _vendor_profile(tmp_path / "vendor-production.toml", base_url, samples, """[limits]
request_budget = 800

[safety]
fuzz = false
negative = false
flood = false
waits = false
""")
    report = tmp_path / "run"
    witness.seen.clear()
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite",
                           "address", "-n", "2", "--no-html", "--report-dir", str(report)],
                          capture_output=True, text=True, timeout=600, cwd=CHECKOUT, env={**os.environ, KEY_VAR: key})
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    statuses = Counter(status for _m, _t, status in witness.seen)
    assert set(statuses) <= {200, 404}, [s for s in witness.seen if s[2] not in (200, 404)][:10]
    entries = json.loads((report / "traffic.har").read_text(encoding="utf-8"))["log"]["entries"]
    recorded = Counter((e["request"]["method"], _target(e["request"]["url"]), e["response"]["status"]) for e in entries)
    received = Counter(witness.seen)
    assert sum(received.values()) > 50
    # Every request the server received is in traffic.har, once (the key masked in neither the
    # path nor the query: these requests carry it in a header).
    assert received == recorded, (received - recorded, recorded - received)


def test_a_failing_runs_traffic_holds_each_exchange_once(tmp_path: Path) -> None:
    # Issue 51: a passive check's offending exchanges are its evidence, not traffic sent again;
    # a server that omits api-version everywhere had each exchange in traffic.har twice.
    with witnessed("address.api_version_missing") as (base_url, key, samples, witness):
        profile = _vendor_profile(tmp_path / "vendor.toml", base_url, samples)
        report = tmp_path / "run"
        proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite",
                               "address", "-n", "0", "--no-html", "--report-dir", str(report), "--", "-k", "headers"],
                              capture_output=True, text=True, timeout=600, cwd=CHECKOUT,
                              env={**os.environ, KEY_VAR: key})
        assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
        entries = json.loads((report / "traffic.har").read_text(encoding="utf-8"))["log"]["entries"]
        assert len(entries) == len(witness.seen) > 10
        # The evidence is still attached: the passive check's failure shows the exchanges.
        summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
        assert any(c["outcome"] == "failed" and c["test"].startswith("passive/") for c in summary["checks"])


def _target(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")
