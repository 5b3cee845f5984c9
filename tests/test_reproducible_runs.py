"""The same verdict twice, findings remembered, and a base URL mistake said as such (issue 43).

A vendor's environment as the harness meets one (a profile with `mock = false`): the local
address mock behind a gateway that serves the API only under its path prefix (as a real
deployment does; the mock itself answers below any prefix), with one defect that only some
fuzzing seeds find: X-Pagination-Page is echoed as a floating-point number for a page above
10**9 (the issue's vendor echoed it wrongly "for a page number near 9.35e30"). The defect can
be switched off, as a vendor fixes it.

* two default runs (the seed derived from the profile) give the same verdict and findings;
* a failing example one run finds is replayed first by the next run, whose own seed does not
  find it (a control run with that seed and no saved findings passes), until the server
  passes it: then Hypothesis drops it, and the run after keeps none;
* a base URL without its path prefix is exit 2 naming services.address.base_url and the URL
  to use, within a handful of requests, and leaves no report folder; so is `discover`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import forked_cli
import pytest

from conformance.mocks.launcher import MockCluster
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

BASE_PATH = "/lvbag/individuelebevragingen/v2"
KEY_VAR = "REPRODUCIBLE_TEST_KEY"
STATEFUL = "address.contract.stateful_links"
STATEFUL_TEST = "address/test_contract.py::test_stateful_links"
# Seeds tried for one that finds the defect and one that does not (about half of them find it).
SEEDS = range(1, 17)


class Gateway:
    """ASGI middleware in front of the address mock: 404 (an HTML page, as a gateway answers)
    outside the API's path prefix; with `defect` on, X-Pagination-Page of a page above 10**9
    is the page as a float ("9.35e+30"). Counts the requests it is sent."""

    def __init__(self, app: Any) -> None:
        self.app, self.defect, self.requests = app, True, 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.requests += 1
        if not scope["path"].startswith(BASE_PATH + "/"):
            await send({"type": "http.response.start", "status": 404, "headers": [(b"content-type", b"text/html")]})
            await send({"type": "http.response.body", "body": b"<html><body>404 Not Found</body></html>"})
            return
        pages = [v for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1")) if k == "page"]
        huge = next((int(v) for v in pages if v.isdigit() and int(v) > 10**9), None)

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and huge is not None and self.defect:
                message = {**message, "headers": [(n, repr(float(huge)).encode()) if n.lower() == b"x-pagination-page"
                                                  else (n, v) for n, v in message["headers"]]}
            await send(message)

        await self.app(scope, receive, sending)


@dataclass
class Vendor:
    url: str  # the API's base URL, prefix included
    root: str  # the same server without the prefix
    key: str
    gateway: Gateway


@pytest.fixture(scope="module")
def vendor() -> Iterator[Vendor]:
    gateways: list[Gateway] = []

    class Cluster(MockCluster):
        def _serve(self, app: Any, name: str, port: int = 0, ssl: Any = None) -> int:
            if name == "address":
                gateways.append(Gateway(app))
                app = gateways[-1]
            return super()._serve(app, name, port, ssl)

    local = load_profile("local-mock")
    with Cluster(local) as cluster:
        url = cluster.urls["address"]
        yield Vendor(url, url.removesuffix(BASE_PATH), cluster.secrets[local.address.secret_env["api_key"]], gateways[0])


def profile(path: Path, base_url: str, extra: str = "") -> Path:
    path.write_text(f"""[profile]
name = "vendor-rare"
description = "the mock behind a gateway, with a defect only some seeds find"

[services.address]
mock = false
base_url = "{base_url}"

[services.address.secrets]
api_key = "{KEY_VAR}"

[safety]
fuzz = true
negative = true
{extra}""")
    return path


def conformance(vendor: Vendor, *args: str, findings: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, KEY_VAR: vendor.key, "CONFORMANCE_FINDINGS_DIR": str(findings), **forked_cli.other_hash_seed()}
    env.pop("CONFORMANCE_SEED_SOURCE", None)
    return forked_cli.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          timeout=600, cwd=REPO_ROOT, env=env)


def run(vendor: Vendor, profile_file: Path, report: Path, findings: Path, *args: str) -> dict[str, Any]:
    result = conformance(vendor, "run", "--profile", str(profile_file), "--suite", "address", "--check", STATEFUL,
                         "-n", "0", "--no-html", "--report-dir", str(report), *args, findings=findings)
    assert (report / "summary.json").is_file(), result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads((report / "summary.json").read_text())
    assert summary["exit_code"] == result.returncode, result.stdout[-2000:]
    return summary


def findings(summary: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((e["check"], e["outcome"], e.get("reason") or "") for e in summary["checks"])


def page_echo_found(summary: dict[str, Any]) -> bool:
    return any(e["outcome"] == "failed" and "X-Pagination-Page" in (e.get("reason") or "") for e in summary["checks"])


def test_two_default_runs_give_the_same_verdict_and_findings(vendor: Vendor, tmp_path: Path) -> None:
    """Each run with a database of its own, so that neither replays the other's findings:
    the same seed, derived from the profile, asks the same questions; the answers are the same."""
    from conformance.run_setup import derived_seed

    file = profile(tmp_path / "vendor.toml", vendor.url)
    first = run(vendor, file, tmp_path / "first", tmp_path / "db-first")
    second = run(vendor, file, tmp_path / "second", tmp_path / "db-second")
    assert first["seed_source"] == second["seed_source"] == "derived"
    assert first["seed"] == second["seed"] == derived_seed(load_profile(str(file)))
    assert first["replay"]["replayed"] == second["replay"]["replayed"] == 0
    assert first["exit_code"] == second["exit_code"] and first["exit_code"] in (0, 1)
    assert findings(first) == findings(second)
    # Another profile name is another environment: another seed (and another findings folder).
    other = profile(tmp_path / "other.toml", vendor.url)
    other.write_text(other.read_text().replace('name = "vendor-rare"', 'name = "vendor-rare-2"'))
    assert derived_seed(load_profile(str(other))) != first["seed"]


def test_a_finding_is_replayed_by_the_next_run_until_the_server_passes_it(vendor: Vendor, tmp_path: Path) -> None:
    file = profile(tmp_path / "vendor.toml", vendor.url)
    db = tmp_path / "findings"
    # A seed that finds the defect, its finding kept in the environment's database ...
    for finds in SEEDS:
        found = run(vendor, file, tmp_path / f"found-{finds}", db, "--seed", str(finds))
        if page_echo_found(found):
            break
    else:
        pytest.fail(f"no seed of {SEEDS} finds the defect")
    assert found["exit_code"] == 1 and found["seed_source"] == "--seed" and found["replay"]["kept"] >= 1
    # ... and another, which on its own does not find it (the control, with no saved findings) ...
    for misses in (seed for seed in SEEDS if seed != finds):
        control = run(vendor, file, tmp_path / "control", tmp_path / f"fresh-{misses}", "--seed", str(misses))
        if not page_echo_found(control):
            break
        shutil.rmtree(tmp_path / "control")
    else:
        pytest.fail(f"every seed of {SEEDS} finds the defect: it is not one only some seeds find")
    assert control["exit_code"] == 0, findings(control)
    # ... finds it first thing with the saved example.
    replayed = run(vendor, file, tmp_path / "replayed", db, "--seed", str(misses))
    assert replayed["exit_code"] == 1 and page_echo_found(replayed), findings(replayed)
    assert replayed["replay"]["replayed"] >= 1 and replayed["replay"]["by_test"].get(STATEFUL_TEST, 0) >= 1
    assert replayed["replay"]["database"] == found["replay"]["database"]
    # `diff` of the control and the replaying run: the same seed, a regression, and why.
    result = conformance(vendor, "diff", str(tmp_path / "control"), str(tmp_path / "replayed"), findings=db)
    assert result.returncode == 1, result.stdout
    assert "the new run replayed" in result.stdout and "saved failing example(s) of this test first" in result.stdout
    # The vendor fixes the defect: the saved example passes, and Hypothesis drops it.
    vendor.gateway.defect = False
    try:
        fixed = run(vendor, file, tmp_path / "fixed", db, "--seed", str(misses))
    finally:
        vendor.gateway.defect = True
    assert fixed["exit_code"] == 0, findings(fixed)
    assert fixed["replay"]["replayed"] >= 1 and fixed["replay"]["kept"] == 0


def test_a_random_seed_only_when_asked(vendor: Vendor, tmp_path: Path) -> None:
    file = profile(tmp_path / "vendor.toml", vendor.url, "[fuzz]\nmax_examples = 1\nseed = 4242\n")
    given = run(vendor, file, tmp_path / "given", tmp_path / "db", "--seed", "7")
    assert (given["seed"], given["seed_source"]) == (7, "--seed")
    assert (tmp_path / "given" / "seed.txt").read_text().strip() == "7"
    from_profile = run(vendor, file, tmp_path / "profile", tmp_path / "db")
    assert (from_profile["seed"], from_profile["seed_source"]) == (4242, "profile")
    drawn = [run(vendor, file, tmp_path / f"random-{i}", tmp_path / "db", "--seed", "random") for i in (1, 2)]
    assert [d["seed_source"] for d in drawn] == ["random", "random"]
    assert drawn[0]["seed"] != drawn[1]["seed"]  # 1 in 2**32 to be equal by chance
    bad = conformance(vendor, "run", "--profile", str(file), "--seed", "soon", findings=tmp_path / "db")
    assert bad.returncode == 2 and "'soon' is not a seed" in bad.stderr


def test_a_base_url_without_its_prefix_is_exit_2_within_a_handful_of_requests(vendor: Vendor, tmp_path: Path) -> None:
    """The issue's run: 2,409 requests in 60 s, 17 "CHANGED sample", DOES NOT CONFORM (exit 1).
    Its samples had been verified by discover with the right base URL, as here."""
    samples = "\n".join(f'{k} = "{v}"' for k, v in {"nummeraanduiding": "1951200000000101",
                                                       "pand": "1951100000000120"}.items())
    file = profile(tmp_path / "vendor.toml", vendor.root,
                   f"[services.address.samples]\n{samples}\n[services.address.samples_verified]\n"
                   f'at = "2026-11-01 09:00 UTC"\n{samples}\n')
    before = vendor.gateway.requests
    result = conformance(vendor, "run", "--profile", str(file), "--suite", "address", "-n", "0", "--no-html",
                         "--report-dir", str(tmp_path / "run"), findings=tmp_path / "db")
    sent = vendor.gateway.requests - before
    out = result.stdout + result.stderr
    assert result.returncode == 2, out[-3000:]
    assert f'key services.address.base_url = "{vendor.root}" does not reach the address API' in out
    assert "GET /adressen?q=Amsterdam -> 404 and GET /adressenuitgebreid?q=Amsterdam -> 404" in out
    assert f'set base_url = "{vendor.url}"' in out
    assert "CHANGED sample" not in out and "Traceback" not in out
    assert sent <= 6, f"{sent} requests before the configuration error"
    assert not (tmp_path / "run").exists(), "a configuration error leaves no report folder"
    before = vendor.gateway.requests
    found = conformance(vendor, "discover", "--profile", str(file), findings=tmp_path / "db")
    assert found.returncode == 2 and f'set base_url = "{vendor.url}"' in found.stderr, found.stdout + found.stderr
    assert "Nothing was discovered" in found.stderr and vendor.gateway.requests - before <= 4
    assert "samples_verified" in file.read_text() and vendor.root in file.read_text()  # the profile as it was


def test_a_ci_environment_changes_neither_the_seed_nor_the_findings_database(tmp_path: Path) -> None:
    """With CI set, Hypothesis loads its own "ci" profile (derandomize, no database) at import:
    the run's profile is built on Hypothesis's default instead, so a run in CI replays the
    environment's findings with the run's own seed like a run anywhere else."""
    from hypothesis import settings

    from conformance.run_setup import RunState, load_hypothesis_profile

    settings.load_profile("ci")
    try:
        state = RunState(profile_ref="mock", faults=[], report_dir=str(tmp_path), seed=7,
                         max_examples=3, findings_db=str(tmp_path / "findings"))
        load_hypothesis_profile(state)
        run_settings = settings.default
        assert run_settings is not None
        assert run_settings.derandomize is False
        assert run_settings.database is not None and "FindingsDatabase" in repr(run_settings.database)
        assert run_settings.max_examples == 3
    finally:
        settings.load_profile("default")
