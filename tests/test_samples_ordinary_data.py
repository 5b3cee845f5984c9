"""Ordinary data: a deployment without an accommodation object in two buildings and without
a box holding all three kinds of object (the mock's "ordinary" data set, driven as a
vendor's server). `discover` fills every other capability, the address suite judges with
them, and only the checks that truly need the missing capability do not apply; the bbox,
type-filter and key-rights faults are still found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import forked_cli
import pytest

from conformance.mocks import faults
from conformance.mocks.address.data import WELL_KNOWN
from conformance.mocks.launcher import MockCluster
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import ADDRESS_SAMPLES, load_profile

KEYS = ("api_key", "restricted_api_key")
FAULTS = ("address.bbox_area_not_enforced", "address.type_filter_ignored", "address.restricted_key_not_enforced")
# What ordinary data lacks, and the checks that need it (README "Samples").
MISSING = {"verblijfsobject_panden"}
# At most this many test cases may not apply: the ones that need what the data lacks.
MOST_NOT_APPLICABLE = 3
KNOWN_ADDRESS = WELL_KNOWN["nummeraanduiding"]


def cluster(*fault_names: str) -> MockCluster:
    profile = load_profile("local-mock")
    assert profile.address is not None
    ordinary = replace(profile, address=replace(profile.address, mock_data="ordinary"), soap=None, auth=None)
    return MockCluster(ordinary, faults.resolve(list(fault_names)))


def vendor_profile(path: Path, url: str, secret_env: dict[str, str]) -> Path:
    """As a user writes it: the keys, the restricted paths and one address they know. (In the
    mock's data only one house number has both letter and addition variants, so a search
    would have to be lucky to meet it; real data has them on many streets.)"""
    keys = "".join(f'{name} = "{secret_env[name]}"\n' for name in KEYS)
    path.write_text(f"""[profile]
name = "vendor-ordinary"
description = "the mock's ordinary data set, as if it were a vendor's deployment"
[services.address]
mock = false
base_url = "{url}"
restricted_paths = ["/adressenuitgebreid"]
[services.address.secrets]
{keys}
[services.address.samples]
nummeraanduiding = "{KNOWN_ADDRESS}"
[safety]
negative = true
""")
    return path


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return forked_cli.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          timeout=900, cwd=REPO_ROOT, env={**os.environ, **env})


def outcomes(summary: dict[str, Any], outcome: str) -> list[dict[str, Any]]:
    return [e for e in summary["checks"] if e["outcome"] == outcome]


@pytest.fixture(scope="module")
def discovered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str], str]]:
    """The vendor profile with the samples discover wrote, the keys, and the server's URL."""
    tmp = tmp_path_factory.mktemp("ordinary")
    profile = load_profile("local-mock")
    assert profile.address is not None
    with cluster() as mock:
        env = {var: mock.secrets[var] for name, var in profile.address.secret_env.items() if name in KEYS}
        url = mock.urls["address"]
        path = vendor_profile(tmp / "vendor.toml", url, profile.address.secret_env)
        found = cli("discover", "--profile", str(path), env=env)
        assert found.returncode == 1, found.stdout[-3000:] + found.stderr[-2000:]  # 1: some sample not found
        yield path, env, url


def run(profile: Path, report_dir: Path, env: dict[str, str], *selection: str) -> tuple[int, dict[str, Any]]:
    proc = cli("run", "--profile", str(profile), "--suite", "address", "-n", "0", "--no-html",
               "--report-dir", str(report_dir), "--", "-q", *selection, env=env)
    summary = report_dir / "summary.json"
    assert summary.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.returncode, json.loads(summary.read_text())


def test_discover_fills_every_capability_the_data_has(discovered: tuple[Path, dict[str, str], str]) -> None:
    path, _, _ = discovered
    samples = load_profile(str(path)).address.samples  # type: ignore[union-attr]
    assert set(ADDRESS_SAMPLES) - set(samples) == MISSING, samples
    boxes = {samples[f"bbox_{kind}"] for kind in ("ligplaats", "standplaats", "verblijfsobject")}
    assert len(boxes) > 1  # no one box holds every kind here


def test_only_what_needs_the_missing_capability_does_not_apply(discovered: tuple[Path, dict[str, str], str],
                                                               tmp_path: Path) -> None:
    path, env, _ = discovered
    code, summary = run(path, tmp_path / "run", env, "-m", "not fuzz")
    assert code == 0, [(e["check"], e["reason"]) for e in summary["checks"] if e["outcome"] in ("failed", "blocked")]
    # A sample the data lacks leaves its checks not judged (issue 34); a rule that does not apply, not applicable.
    # Not the data's either: what the profile forbids or lacks, and a rule judged on every exchange
    # that no exchange of the run was for (a 429 or a 503 the profile never provokes).
    not_applicable = [e for e in outcomes(summary, "not_applicable")
                      if not (e["reason"] or "").startswith("no exchange of this run")] + [
        e for e in outcomes(summary, "not_judged")
        if not (e["cause"] or "").startswith(("forbidden by safety.", "no maintenance_url"))]
    assert len(not_applicable) <= MOST_NOT_APPLICABLE, [(e["check"], e["reason"]) for e in not_applicable]
    assert len(outcomes(summary, "passed")) > 200


def test_bbox_type_filter_and_key_rights_faults_are_still_found(discovered: tuple[Path, dict[str, str], str],
                                                                tmp_path: Path) -> None:
    path, env, url = discovered
    with cluster(*FAULTS) as faulty:
        profile = tmp_path / "faulty.toml"
        profile.write_text(path.read_text().replace(url, faulty.urls["address"]))
        keys = {var: faulty.secrets[var] for var in env}  # each mock makes its own keys
        code, summary = run(profile, tmp_path / "run", keys, "-k", "bbox_area_limit or type_filter or key_without_rights")
    failed = {e["check"] for e in outcomes(summary, "failed") if e["severity"] == "MUST"}
    assert code == 1
    assert {"address.adresseerbareobjecten.bbox_area_limit", "address.adresseerbareobjecten.type_filter",
            "address.auth.key_without_rights_forbidden"} <= failed, failed
