"""Meta-tests, the other half of the proof (issue 51): no MUST check fails a server that does
what the specifications allow.

A variant (conformance/mocks/faults.py `variant`) is behaviour the specification allows that
the mock's default does not show, declared beside the behaviour it changes with what allows
it. Each suite runs against its mock with all its variants switched on at once (each is
allowed, so together they are too): no MUST check may fail or break, and every SHOULD check
that names a variant in `proven_by` fails (the public behaviour it follows is not what the
variant does). A SHOULD check that fails under a variant it does not name is a warning.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import forked_cli
import pytest

from conformance.catalogue import check_by_id, registered_checks
from conformance.checks.registry import Severity
from conformance.mocks.faults import catalogue, variants
from conformance.paths import CHECKOUT as REPO_ROOT

# Named by the issue that asked for variants; each must stay declared.
REQUIRED = {
    "address.variant.single_address_page_of_one",
    "address.variant.empty_and_repeated_values_read",
    "auth.variant.verifier_checked_by_hash_only",
    "auth.variant.aud_token_endpoint_url",
    "auth.variant.refused_token_403",
}
SUITES = sorted({v.server for v in variants()})


def test_the_variants_the_issue_names_are_declared_with_what_allows_them() -> None:
    declared = {v.name: v for v in variants()}
    assert set(declared) >= REQUIRED, REQUIRED - set(declared)
    for variant in declared.values():
        assert variant.allowed_by and ("seed" in variant.allowed_by or "RFC" in variant.allowed_by), variant.name
        assert variant.name not in {f.name for f in catalogue()}  # a variant is no fault


def test_no_must_check_names_a_variant() -> None:
    names = {v.name for v in variants()}
    for check in registered_checks():
        named = names & (set(check.proven_by) | set(check.may_fail_under))
        if check.severity is Severity.MUST:
            assert not named, f"{check.id} is MUST and names the variant(s) {sorted(named)}: a server may do that"


@pytest.mark.parametrize("suite", SUITES)
def test_no_must_check_fails_under_the_variants(suite: str, tmp_path: Path) -> None:
    names = [v.name for v in variants(suite)]
    report = tmp_path / "run"
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", suite, "-n", "0", "--no-html",
           "--report-dir", str(report), "--max-examples", "8", "--seed", "20261129"]
    for name in names:
        cmd += ["--mock-fault", name]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=900, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary = report / "summary.json"
    assert summary.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    entries = json.loads(summary.read_text(encoding="utf-8"))["checks"]
    outcomes: dict[str, set[str]] = {}
    reasons: dict[str, str] = {}
    for entry in entries:
        outcomes.setdefault(entry["check"], set()).add(entry["outcome"])
        if entry["outcome"] in ("failed", "error"):
            reasons.setdefault(entry["check"], f"{entry['test']}: {entry.get('reason')}")
    broken = {c: reasons[c] for c, seen in outcomes.items() if seen & {"failed", "error"}}
    must = {c: r for c, r in broken.items() if check_by_id(c).severity is Severity.MUST}
    assert not must, f"MUST checks fail a server that does what the specifications allow ({', '.join(names)}):\n" \
        + "\n".join(f"  {c}: {r}" for c, r in must.items())
    errors = {c: r for c, seen in outcomes.items() for r in [reasons.get(c)] if "error" in seen}
    assert not errors, errors
    proven = {c.id for c in registered_checks(suite) if set(c.proven_by) & set(names)}
    not_failed = {c for c in proven if "failed" not in outcomes.get(c, set())}
    assert not not_failed, f"SHOULD checks that name a variant of {suite} did not fail under it: {sorted(not_failed)}"
    for check, reason in broken.items():
        if check not in proven:
            warnings.warn(f"the SHOULD check {check} fails under the variants of {suite}: {reason}", stacklevel=1)
