"""Authentication of the SOAP message service (seed 001 part 5.5: "not shown"): the profile's
`[services.soap.auth]` (none, HTTP basic, TLS client certificate), the mock demanding it, the
client sending it, and whole soap runs proving both ways that the suite follows it."""

from __future__ import annotations

import base64
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import forked_cli
import httpx
import pytest
import soap_check_groups as catalogue

from conformance.errors import ConfigError
from conformance.http.client import ApiClient, Recorder
from conformance.http.limits import HttpViolation
from conformance.http.redaction import Redactor
from conformance.mocks.faults import FaultSet
from conformance.mocks.launcher import ServerThread, TlsOptions
from conformance.mocks.soap.app import SoapMockConfig, create_app
from conformance.mocks.soap.tls import MockTls, ensure_test_tls
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.paths import SHIPPED_PROFILES
from conformance.profiles import load_profile
from conformance.soap.envelope import build_envelope, inspect_envelope
from conformance.soap.loader import parse_untrusted
from conformance.soap.samples import sample_request

HEADERS = {"Content-Type": "text/xml; charset=utf-8",
           "SOAPAction": '"urn:registry:graafbericht/RequestNetbeheerderServiceResponse"'}
USER, PASSWORD = "operator-7", "s3cret-soap-password-canary"


# ------------------------------------------------------------------------------ profiles
def _profile_text(soap_tables: str, *, soap_extra: str = "") -> str:
    """local-mock.toml with the soap service's tables replaced."""
    text = (SHIPPED_PROFILES / "local-mock.toml").read_text(encoding="utf-8")
    soap = f'[services.soap]\nmock = true\nsoap_action_base = "urn:registry:graafbericht"\n{soap_extra}\n{soap_tables}\n'
    text, count = re.subn(r"\[services\.soap\]\n.*?(?=\n\[services\.auth\])", soap, text, flags=re.DOTALL)
    assert count == 1
    return text


def _write_profile(tmp_path: Path, soap_tables: str, **kwargs: str) -> Path:
    path = tmp_path / "soap-auth.toml"
    path.write_text(_profile_text(soap_tables, **kwargs), encoding="utf-8")
    return path


BASIC = """[services.soap.auth]
kind = "basic"

[services.soap.secrets]
username = "CONFORMANCE_MOCK_SOAP_USERNAME"
password = "CONFORMANCE_MOCK_SOAP_PASSWORD"
"""


def test_local_mock_keeps_no_authentication() -> None:
    soap = load_profile("local-mock").soap
    assert soap is not None
    assert (soap.auth_kind, soap.mock_auth_kind, soap.secret_env) == ("none", "none", {})
    assert soap.response_time_s == 2.0 < soap.timeout_s


def test_basic_profile_loads(tmp_path: Path) -> None:
    soap = load_profile(str(_write_profile(tmp_path, BASIC))).soap
    assert soap is not None and soap.auth_kind == soap.mock_auth_kind == "basic"
    assert soap.secret_env == {"username": "CONFORMANCE_MOCK_SOAP_USERNAME",
                               "password": "CONFORMANCE_MOCK_SOAP_PASSWORD"}


def test_client_certificate_files_resolve_relative_to_the_profile(tmp_path: Path) -> None:
    for name in ("client.pem", "client-key.pem", "ca.pem"):
        (tmp_path / "certs").mkdir(exist_ok=True)
        (tmp_path / "certs" / name).write_text("pem")
    tables = ('[services.soap.auth]\nkind = "client_certificate"\nclient_cert = "certs/client.pem"\n'
              'client_key = "certs/client-key.pem"\nca_file = "certs/ca.pem"\n')
    soap = load_profile(str(_write_profile(tmp_path, tables))).soap
    assert soap is not None and soap.auth_kind == "client_certificate"
    assert soap.client_cert == str((tmp_path / "certs" / "client.pem").resolve())
    assert soap.ca_file == str((tmp_path / "certs" / "ca.pem").resolve())


@pytest.mark.parametrize(
    ("tables", "extra", "message"),
    [
        ('[services.soap.auth]\nkind = "digest"\n', "", "services.soap.auth.kind"),
        ('[services.soap.auth]\nkind = "basic"\n', "", "services.soap.secrets.username"),
        ('[services.soap.auth]\nkind = "basic"\n[services.soap.secrets]\nusername = "U"\n', "",
         "services.soap.secrets.password"),
        ('[services.soap.auth]\nkind = "basic"\n[services.soap.secrets]\nusername = "U"\npassword = "not a name"\n',
         "", "services.soap.secrets.password"),
        ('[services.soap.auth]\nkind = "client_certificate"\nclient_cert = "missing.pem"\nclient_key = "k.pem"\n',
         "", "services.soap.auth.client_cert: file not found"),
        ('[services.soap.auth]\nca_file = "nowhere/ca.pem"\n', "", "services.soap.auth.ca_file: file not found"),
        ('[services.soap.auth]\nkind = "none"\nuser = "x"\n', "", "unknown key services.soap.auth.user"),
        ("", "timeout_s = 1\nresponse_time_s = 5", "services.soap.response_time_s"),
    ],
)
def test_bad_soap_auth_table_names_the_key(tmp_path: Path, tables: str, extra: str, message: str) -> None:
    path = _write_profile(tmp_path, tables, soap_extra=extra)
    with pytest.raises(ConfigError) as info:
        load_profile(str(path))
    assert str(path) in str(info.value) and message in str(info.value)


def test_client_certificate_for_a_real_service_needs_the_files(tmp_path: Path) -> None:
    path = tmp_path / "vendor.toml"
    path.write_text('[profile]\nname = "v"\ndescription = ""\n[services.soap]\nmock = false\n'
                    'url = "https://soap.vendor.example/svc"\n[services.soap.auth]\nkind = "client_certificate"\n')
    with pytest.raises(ConfigError, match="missing required key services.soap.auth.client_cert"):
        load_profile(str(path))


# ------------------------------------------------------------------------------ the mock
@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> MockTls:
    return ensure_test_tls(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def basic_endpoint() -> Iterator[str]:
    config = SoapMockConfig(basic_credentials=(USER, PASSWORD))
    server = ServerThread(create_app(config, FaultSet()), "soap-basic")
    port = server.start()
    yield f"http://127.0.0.1:{port}{config.path}"
    server.stop()


@pytest.fixture(scope="module")
def mtls_endpoint(tls: MockTls) -> Iterator[str]:
    config = SoapMockConfig()
    options = TlsOptions(str(tls.server_cert), str(tls.server_key), client_ca=str(tls.ca_file))
    server = ServerThread(create_app(config, FaultSet()), "soap-mtls", ssl=options)
    port = server.start()
    yield f"https://127.0.0.1:{port}{config.path}"
    server.stop()


def _body() -> bytes:
    return build_envelope(sample_request())


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize("authorization", [None, _basic(USER, "wrong"), _basic("other", PASSWORD), "Basic !!!", "Bearer x"])
def test_mock_refuses_missing_or_wrong_basic_credentials(basic_endpoint: str, authorization: str | None) -> None:
    headers = dict(HEADERS) | ({"Authorization": authorization} if authorization else {})
    response = httpx.post(basic_endpoint, content=_body(), headers=headers, trust_env=False, timeout=10)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith('Basic realm="')
    assert response.headers["content-type"] == "text/xml; charset=utf-8"
    view = inspect_envelope(parse_untrusted(response.content).getroot())
    assert view.fault is not None and view.fault.soap_code == "Client"


def test_mock_answers_with_basic_credentials(basic_endpoint: str) -> None:
    headers = dict(HEADERS) | {"Authorization": _basic(USER, PASSWORD)}
    response = httpx.post(basic_endpoint, content=_body(), headers=headers, trust_env=False, timeout=10)
    assert response.status_code == 200


def test_api_client_sends_basic_credentials_and_records_them_redacted(basic_endpoint: str) -> None:
    recorder = Recorder()
    client = ApiClient(basic_endpoint, redactor=Redactor([USER, PASSWORD]), recorder=recorder, auth=(USER, PASSWORD))
    try:
        exchange = client.request("POST", basic_endpoint, content=_body(), headers=HEADERS)
    finally:
        client.close()
    assert exchange.status == 200
    recorded = repr(recorder.take())
    assert PASSWORD not in recorded and _basic(USER, PASSWORD).split()[1] not in recorded


def test_mock_with_tls_requires_a_client_certificate(mtls_endpoint: str, tls: MockTls) -> None:
    recorder = Recorder()
    with_cert = ApiClient(mtls_endpoint, redactor=Redactor(), recorder=recorder,
                          cert=(str(tls.client_cert), str(tls.client_key)), verify=str(tls.ca_file))
    without = ApiClient(mtls_endpoint, redactor=Redactor(), recorder=recorder, verify=str(tls.ca_file))
    try:
        assert with_cert.request("POST", mtls_endpoint, content=_body(), headers=HEADERS).status == 200
        with pytest.raises(HttpViolation) as info:  # a finding of the check that sent it
            without.request("POST", mtls_endpoint, content=_body(), headers=HEADERS)
        assert info.value.kind in ("tls", "reset"), info.value
    finally:
        with_cert.close()
        without.close()


def test_the_test_certificates_are_made_once(tmp_path: Path) -> None:
    first = ensure_test_tls(tmp_path)
    stamp = first.server_cert.read_bytes()
    assert ensure_test_tls(tmp_path).server_cert.read_bytes() == stamp
    assert oct(first.client_key.stat().st_mode & 0o777) == "0o600"


# ------------------------------------------------------------------------------ whole runs
def _run(tmp_path: Path, tables: str, env: dict[str, str] | None = None) -> tuple[int, dict, str]:
    profile = _write_profile(tmp_path, tables)
    report = tmp_path / "report"
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", "soap",
           "-n", "0", "--no-html", "--max-examples", "3", "--report-dir", str(report)]
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
                          env={**os.environ, **(env or {})})
    summary = report / "summary.json"
    assert summary.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.returncode, json.loads(summary.read_text()), proc.stdout + proc.stderr


def _by_check(summary: dict) -> dict[str, dict]:
    return {e["check"]: e for e in summary["checks"]}


def test_run_with_basic_credentials_passes_and_never_reports_the_password(tmp_path: Path) -> None:
    canary = "soap-basic-canary-5b0c1e"
    code, summary, output = _run(tmp_path, BASIC, env={"CONFORMANCE_MOCK_SOAP_PASSWORD": canary})
    checks = _by_check(summary)
    assert code == 0, output[-3000:]
    assert not [c for c, e in checks.items() if e["outcome"] in ("failed", "error")]
    assert checks["soap.auth.credentials_required"]["value"] == {
        "profile_auth": "basic", "required": True, "answer": "HTTP 401", "challenge": "Basic"}
    for path in (tmp_path / "report").rglob("*"):
        if path.is_file():
            assert canary not in path.read_text(errors="replace"), path
    assert canary not in output


def test_run_with_a_client_certificate_passes(tmp_path: Path) -> None:
    code, summary, output = _run(tmp_path, '[services.soap.auth]\nkind = "client_certificate"\n')
    checks = _by_check(summary)
    assert code == 0, output[-3000:]
    assert summary["targets"]["soap"].startswith("https://127.0.0.1:")
    assert not [c for c, e in checks.items() if e["outcome"] in ("failed", "error")]
    value = checks["soap.auth.credentials_required"]["value"]
    assert value["profile_auth"] == "client_certificate" and value["required"] is True


def test_run_fails_when_the_service_demands_credentials_the_profile_does_not_send(tmp_path: Path) -> None:
    code, summary, output = _run(tmp_path, '[services.soap.auth]\nkind = "none"\nmock_kind = "basic"\n')
    checks = _by_check(summary)
    assert code == 1, output[-3000:]
    assert checks["soap.response.status_ok"]["outcome"] == "failed"
    assert "401" in checks["soap.response.status_ok"]["reason"]
    assert checks["soap.auth.credentials_required"]["value"]["required"] is True
    # A 401 for every request is no refusal of a bad message: the negative checks' control
    # is refused too, so they are blocked under the one cause, never passed or failed.
    cause = "valid GraafberichtServiceRequest -> HTTP 401 Client Fault"
    assert checks["soap.response.status_ok"]["cause"] == cause
    for check in sorted(catalogue.REJECTION_CHECKS | catalogue.FAULT_CHECKS):
        assert (checks[check]["outcome"], checks[check]["cause"]) == ("blocked", cause), check
        assert "credentials are missing" in checks[check]["reason"]  # the server's faultstring
