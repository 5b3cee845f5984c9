"""Issue 51: a real SOAP service is judged on requests built from its own WSDL and types. The
seed does not show the messages' content: a request valid against the shipped types may
rightly be refused by a vendor's service, so without `services.soap.wsdl` the checks of valid
requests are not judged, naming the key; with it they are."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import forked_cli
import pytest

from conformance.mocks.launcher import MockCluster
from conformance.paths import CHECKOUT
from conformance.profiles import load_profile
from conformance.soap import SHIPPED_WSDL


@pytest.fixture(scope="module")
def soap_url() -> Iterator[str]:
    with MockCluster(load_profile("local-mock")) as cluster:
        yield cluster.urls["soap"]


def _outcome(tmp_path: Path, soap_url: str, wsdl: Path | None) -> dict:
    profile = tmp_path / "vendor.toml"
    profile.write_text(f"""[profile]
name = "vendor-soap"
description = "the mock's message service as a vendor's"
[services.soap]
mock = false
url = "{soap_url}"
soap_action_base = "urn:registry:graafbericht"
""" + (f'wsdl = "{wsdl}"\n' if wsdl else ""), encoding="utf-8")
    report = tmp_path / "run"
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", "soap",
                           "-n", "0", "--no-html", "--report-dir", str(report), "--check", "soap.response.status_ok"],
                          capture_output=True, text=True, timeout=300, cwd=CHECKOUT)
    assert (report / "summary.json").is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    entries = json.loads((report / "summary.json").read_text(encoding="utf-8"))["checks"]
    return next(e for e in entries if e["check"] == "soap.response.status_ok")


def test_without_the_services_wsdl_valid_requests_are_not_judged(soap_url: str, tmp_path: Path) -> None:
    entry = _outcome(tmp_path, soap_url, None)
    assert entry["outcome"] == "not_judged" and "services.soap.wsdl" in entry["reason"], entry


def test_with_the_services_wsdl_they_are(soap_url: str, tmp_path: Path) -> None:
    own = tmp_path / "wsdl"
    shutil.copytree(SHIPPED_WSDL.parent, own)
    entry = _outcome(tmp_path, soap_url, own / SHIPPED_WSDL.name)
    assert entry["outcome"] == "passed", entry
