"""Meta-tests: a negative check of the SOAP suite never passes on a refusal it did not cause.

Under `soap.every_request_refused` the message service refuses every POST -- valid or not --
with a soapenv:Client.Authentication Fault, HTTP 500: a refusal that has nothing to do with
any rule of the message. Before the controls, eight rejection and Fault-format checks
passed there (a Client Fault with HTTP 500 is what they look for). Each now sends the
unchanged, valid request as its control; the control is refused too, so each is `blocked`,
all under one cause that soap.response.status_ok fails under, listed once in root_causes.
`soap.valid_request_refused` (a Server Fault for every valid request, while bad ones still
get their Client Fault) blocks the same checks under its own cause.

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
import pytest
import soap_check_groups as c

from conformance.paths import CHECKOUT as REPO_ROOT

# Every check that judges a refusal or the Fault given for a bad request, or compares the
# answer to a changed request with its control's (header entries, a UTF-16 request).
NEGATIVE_CHECKS = (
    c.REJECTION_CHECKS | c.FAULT_CHECKS | c.ENVELOPE_CHECKS | c.HEADER_CHECKS | c.HTTP_CHECKS
    | {c.REQUEST_UTF16_UNDERSTOOD, c.REQUEST_UTF16_ACCEPTED}
)
# Every check that judges the response to a valid request: its envelope (a 200's: a Fault's is
# soap.fault.soap_envelope's) and its element.
RESPONSE_ELEMENT_CHECKS = {c.RESPONSE_ENVELOPE, c.RESPONSE_BODY_ELEMENT, c.RESPONSE_SCHEMA_VALID,
                           c.RESPONSE_REFERS_TO_REQUEST}


def conformance_run(report_dir: Path, *faults: str) -> tuple[int, dict[str, Any]]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "soap", "-n", "0", "--no-html",
           "--report-dir", str(report_dir), "--max-examples", "3"]
    for name in faults:
        cmd += ["--mock-fault", name]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary_path = report_dir / "summary.json"
    assert summary_path.is_file(), f"no summary.json; exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.returncode, json.loads(summary_path.read_text())


@pytest.mark.parametrize(
    ("fault", "cause", "said"),
    [
        ("soap.every_request_refused", "valid GraafberichtServiceRequest -> HTTP 500 Client.Authentication Fault",
         "the caller is not admitted to this service"),
        ("soap.valid_request_refused", "valid GraafberichtServiceRequest -> HTTP 500 Server Fault",
         "temporarily unable to process requests"),
    ],
)
def test_a_refused_control_blocks_every_negative_check(tmp_path: Path, fault: str, cause: str, said: str) -> None:
    code, summary = conformance_run(tmp_path, fault)
    by_check = {e["check"]: e for e in summary["checks"]}
    for check in sorted(NEGATIVE_CHECKS | RESPONSE_ELEMENT_CHECKS):
        entry = by_check[check]
        assert entry["outcome"] == "blocked", f"{check}: {entry['outcome']} ({entry['reason']})"
        assert entry["cause"] == cause, entry["cause"]
        assert said in entry["reason"], entry["reason"]  # the server's faultstring, in the reason
    # The refusal itself is a finding of its own check, under the same cause...
    status = by_check[c.RESPONSE_STATUS_OK]
    assert status["outcome"] == "failed" and status["cause"] == cause and said in status["reason"]
    # ...and the run lists it once, with every check it took down.
    causes = [r for r in summary["root_causes"] if r["cause"] == cause]
    assert len(causes) == 1, summary["root_causes"]
    assert set(causes[0]["checks"]) == NEGATIVE_CHECKS | RESPONSE_ELEMENT_CHECKS | {c.RESPONSE_STATUS_OK}
    assert causes[0]["outcomes"] == ["blocked", "failed"]
    assert not [e for e in summary["checks"] if e["outcome"] == "error"]
    assert code == 1  # a MUST check failed: the service does not conform


def test_a_bad_request_accepted_is_one_root_cause_with_the_fault_checks_it_takes_down(tmp_path: Path) -> None:
    """Under soap.wrong_body_element_accepted the request the Fault checks judge gets a normal
    response: no Fault to judge. They are blocked under the cause its acceptance fails under,
    and the run lists that one defect once."""
    code, summary = conformance_run(tmp_path, "soap.wrong_body_element_accepted")
    assert code == 1
    by_check = {e["check"]: e for e in summary["checks"] if not e["test"].startswith("passive/")}
    cause = "a Body holding another element -> HTTP 200 text/xml"
    assert by_check["soap.request.wrong_body_element_rejected"]["outcome"] == "failed"
    for check in c.FAULT_CHECKS:
        assert by_check[check]["outcome"] == "blocked" and by_check[check]["cause"] == cause, by_check[check]
    (root,) = [r for r in summary["root_causes"] if r["cause"] == cause]
    assert set(root["checks"]) == c.FAULT_CHECKS | {"soap.request.wrong_body_element_rejected"}
