"""Meta-tests: a negative check of the auth suite never passes on a refusal it did not cause.

* Under `auth.authorize_unavailable` every authorization request is refused for a reason
  that has nothing to do with any rule (temporarily_unavailable). The checks whose rule is
  "this authorization gets no code" used to pass there; their control authorization now
  gets no code either, so they are `blocked`, all by the one cause, listed once.
* Under `auth.assertion_client_by_iss` the server picks the client by `iss` and refuses an
  unknown `iss` as an unknown client, but never compares `sub`. A changed assertion naming
  an unregistered client "was refused" without the rule iss = sub being judged; the check
  now swaps in a registered client both ways, so it fails (never passes).

Each run is a real `conformance run` in a subprocess, read back from its summary.json
(as tests/test_fault_catalogue.py does).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import forked_cli

from conformance.paths import CHECKOUT as REPO_ROOT

REFUSED_AUTHORIZATION_CHECKS = ("auth.code.role_required", "auth.pkce.challenge_required", "auth.pkce.plain_refused")
ISS_SUB_CHECKS = ("auth.cc.iss_differs_from_sub_refused",)


def conformance_run(report_dir: Path, *faults: str) -> tuple[int, dict[str, Any]]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "auth", "-n", "0", "--no-html",
           "--report-dir", str(report_dir)]
    for name in faults:
        cmd += ["--mock-fault", name]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary_path = report_dir / "summary.json"
    assert summary_path.is_file(), f"no summary.json; exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.returncode, json.loads(summary_path.read_text())


def entries(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["check"]: e for e in summary["checks"]}


def test_unrelated_authorization_refusal_blocks_the_negative_authorization_checks(tmp_path: Path) -> None:
    _, summary = conformance_run(tmp_path, "auth.authorize_unavailable")
    by_check = entries(summary)
    for check in REFUSED_AUTHORIZATION_CHECKS:
        entry = by_check[check]
        assert entry["outcome"] == "blocked", f"{check}: {entry['outcome']} ({entry['reason']})"
        assert "temporarily_unavailable" in entry["reason"], entry["reason"]
    # One cause, stated once, with every check it took down.
    causes = [c for c in summary["root_causes"] if set(REFUSED_AUTHORIZATION_CHECKS) <= set(c["checks"])]
    assert len(causes) == 1, summary["root_causes"]
    assert causes[0]["cause"].startswith("authorize (confidential client) -> error=temporarily_unavailable")
    assert causes[0]["outcomes"] == ["blocked"]
    # Whatever else the fault does, nothing that starts from an authorization passes.
    passed = {c for c, e in by_check.items() if e["outcome"] == "passed"}
    assert not {c for c in passed if c.startswith(("auth.code.", "auth.pkce.", "auth.refresh."))}, sorted(passed)


def test_an_unknown_client_refusal_does_not_pass_the_iss_sub_check(tmp_path: Path) -> None:
    _, summary = conformance_run(tmp_path, "auth.assertion_client_by_iss")
    by_check = entries(summary)
    for check in ISS_SUB_CHECKS:
        entry = by_check[check]
        assert entry["outcome"] in ("failed", "blocked"), f"{check} passed under an iss-picked client"
        assert entry["outcome"] == "failed", entry["reason"]  # the swapped sub is accepted: a finding


# Clients registered with the test PKI's bad material (conformance pki init).
BAD_MATERIAL_CHECKS = ("auth.cc.jwk_without_x5c_refused", "auth.cc.untrusted_root_refused",
                       "auth.cc.expired_certificate_refused", "auth.cc.oin_unregistered_refused",
                       "auth.cc.x5c_key_mismatch_refused", "auth.cc.certificate_without_oin_refused")


def test_a_refusal_that_reads_like_an_unknown_clients_blocks_the_certificate_checks(tmp_path: Path) -> None:
    # Issue 51: a server answering every refusal with one bare error cannot show that it
    # refused the material rather than a client it never registered: blocked, never passed.
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "auth", "-n", "0", "--no-html",
           "--report-dir", str(tmp_path), "--mock-fault", "auth.token_errors_not_rfc6749"]
    for check in BAD_MATERIAL_CHECKS:
        cmd += ["--check", check]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT)
    by_check = entries(json.loads((tmp_path / "summary.json").read_text()))
    for check in BAD_MATERIAL_CHECKS:
        assert by_check[check]["outcome"] == "blocked", (check, by_check[check])
        assert "a client nobody registered" in by_check[check]["reason"]
    assert proc.returncode == 4, proc.stdout[-2000:]
