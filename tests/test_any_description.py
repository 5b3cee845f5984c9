"""Contract fuzzing works from any description of the address API, on any base path.

The second description (tests/interop/vendor-address-openapi.yaml) is what a vendor might
publish: other operationIds, no links, unquoted example dates, no /v2 in its server URL,
an operation the seed does not have. Runs are real `conformance run`s against the local
mock, served without /v2 (the mock fault `address.unversioned_base_path`).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import forked_cli

from conformance.openapi import operations as ops
from conformance.openapi.loader import load_description, load_schema
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

VENDOR = REPO_ROOT / "tests" / "interop" / "vendor-address-openapi.yaml"


def vendor_profile(tmp_path: Path, openapi: Path = VENDOR) -> Path:
    text = (REPO_ROOT / "profiles" / "local-mock.toml").read_text()
    assert "[services.address]\nmock = true\n" in text
    text = text.replace("[services.address]\nmock = true\n", f'[services.address]\nmock = true\nopenapi = "{openapi}"\n')
    text = text.replace('name = "local-mock"', 'name = "vendor-description"')
    path = tmp_path / "vendor-description.toml"
    path.write_text(text)
    return path


def run(tmp_path: Path, profile: Path, *faults: str) -> tuple[int, dict[str, Any], str]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "--profile", str(profile),
           "-n", "0", "--no-html", "--report-dir", str(tmp_path / "run"), "--max-examples", "4", "--seed", "7"]
    for fault in faults:
        cmd += ["--mock-fault", fault]
    proc = forked_cli.run([*cmd, "--", "-q", "-m", "fuzz"], capture_output=True, text=True, timeout=600,
                          cwd=REPO_ROOT, env={**os.environ, "PYTHONHASHSEED": "0"})
    summary_file = tmp_path / "run" / "summary.json"
    assert summary_file.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.returncode, json.loads(summary_file.read_text()), proc.stdout + proc.stderr


def outcomes(summary: dict[str, Any]) -> dict[str, str]:
    return {e["check"]: e["outcome"] for e in summary["checks"]}


def test_dates_stay_strings_as_schemathesis_reads_them(tmp_path: Path) -> None:
    raw = load_description(load_profile(str(vendor_profile(tmp_path))).address)
    assert raw["components"]["parameters"]["geldigOp"]["example"] == "2019-06-01"


def test_seed_operations_are_found_by_path_whatever_their_id() -> None:
    assert ops.seed_operation("GET", "/adressen/{nummeraanduidingIdentificatie}") == "bevraagAdressenMetNumId"
    assert ops.seed_operation("get", "/adressen/{id}/") == "bevraagAdressenMetNumId"
    assert ops.seed_operation("GET", "/adressen/zoek") == "zoek"
    assert ops.seed_operation("POST", "/adressen") is None and ops.seed_operation("GET", "/status") is None
    prefixed = {"openapi": "3.0.3", "paths": {"/lvbag/v2/adressen": {}, "/lvbag/v2/adressen/{id}": {}}}
    assert set(ops.relative_to_base(prefixed, "/lvbag/v2")["paths"]) == {"/adressen", "/adressen/{id}"}


def test_an_unloadable_description_is_exit_2_naming_it(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("openapi: 3.0.3\npaths: [unclosed\n")
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "--profile",
                           str(vendor_profile(tmp_path, broken)), "--no-html", "--report-dir", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "broken.yaml" in proc.stderr and "not valid YAML" in proc.stderr and "Traceback" not in proc.stderr


def test_every_operation_of_a_vendor_description_is_fuzzed_without_v2(tmp_path: Path) -> None:
    code, summary, output = run(tmp_path, vendor_profile(tmp_path), "address.unversioned_base_path")
    got = outcomes(summary)
    assert all(got[f"address.contract.{name}"] == "passed" for name in ops.SEED_OPERATIONS), got
    assert got["address.contract.stateful_links"] == "not_applicable"
    stateful = next(e for e in summary["checks"] if e["check"] == "address.contract.stateful_links")
    assert "no OpenAPI links" in stateful["reason"]
    # GET /status is not the seed's: fuzzed, judged by schemathesis, observed (the mock has no such path)
    other = next(e for e in summary["checks"] if e["check"] == "address.contract.other_operations")
    assert other["outcome"] == "observation" and "finding" in json.dumps(other["value"]), other
    assert "error" not in got.values(), output[-3000:]
    assert code == 0, output[-3000:]


def test_domain_checks_apply_on_a_base_path_without_v2(tmp_path: Path) -> None:
    # Without /v2 in the base URL the domain checks must still judge: a missing api-version
    # header (a MUST of seed part 9) fails every seed operation's contract check.
    code, summary, output = run(tmp_path, vendor_profile(tmp_path), "address.unversioned_base_path",
                                "address.api_version_missing")
    failed = {c for c, o in outcomes(summary).items() if o == "failed"}
    assert {f"address.contract.{name}" for name in ops.SEED_OPERATIONS} <= failed, output[-3000:]
    assert any("api-version" in (e["reason"] or "") for e in summary["checks"] if e["check"] in failed)
    assert code == 1


def test_load_schema_rewrites_paths_that_repeat_the_base_path(tmp_path: Path) -> None:
    text = VENDOR.read_text().replace("\n  /", "\n  /adresregister/")
    prefixed = tmp_path / "prefixed.yaml"
    prefixed.write_text(text)
    schema = load_schema(load_profile(str(vendor_profile(tmp_path, prefixed))).address,
                         "https://vendor-x.example/adresregister")
    assert "/adressen/zoek" in schema.raw_schema["paths"]
