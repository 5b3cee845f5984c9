"""`conformance soap validate`: good and bad captures, line numbers, exit codes, no tracebacks."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import forked_cli
import pytest
from lxml import etree

from conformance.cli import main
from conformance.soap import SHIPPED_WSDL, SHIPPED_XSD, TYPES_NS
from conformance.soap.envelope import build_envelope, build_fault
from conformance.soap.loader import load_contract
from conformance.soap.samples import sample_request
from conformance.soap.validate import split_capture, validate_message

ACTION = '"urn:registry:graafbericht/RequestNetbeheerderServiceResponse"'
T = f"{{{TYPES_NS}}}"


def _request() -> etree._Element:
    return sample_request()


def _pretty(envelope: bytes) -> bytes:
    return etree.tostring(etree.fromstring(envelope), pretty_print=True, xml_declaration=True, encoding="UTF-8")


def _http(body: bytes, *, content_type: str = "text/xml; charset=utf-8", action: str | None = ACTION) -> bytes:
    head = [b"POST /netbeheerder/graafbericht HTTP/1.1", b"Host: registry.example", f"Content-Type: {content_type}".encode()]
    if action is not None:
        head.append(f"SOAPAction: {action}".encode())
    return b"\r\n".join(head) + b"\r\n\r\n" + body


@pytest.fixture
def captures(tmp_path: Path) -> dict[str, Path]:
    good = _pretty(build_envelope(_request()))
    bad = good.replace(b"<gb:MeldingSoort>Graafmelding", b"<gb:MeldingSoort>Graafwerk", 1)
    files = {
        "bare": good,
        "http": _http(good),
        "bad_bare": bad,
        "bad_http": _http(bad, content_type="text/xml", action="urn:wrong"),
        "fault_200": b"HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\n\r\n" + build_fault("Client", "nope"),
        "doctype": b'<?xml version="1.0"?>\n<!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n' + good.split(b"?>", 1)[1],
        "not_xml": b'<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/">\n  <e:Body>\n</e:Envelope>\n',
    }
    paths = {}
    for name, data in files.items():
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_bytes(data)
    return paths


def _line_of(path: Path, needle: bytes) -> int:
    return path.read_bytes().split(b"\n").index(next(li for li in path.read_bytes().split(b"\n") if needle in li)) + 1


def test_good_captures_exit_0(captures: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soap", "validate", str(captures["bare"]), str(captures["http"])]) == 0
    out = capsys.readouterr().out
    assert out.count(": valid (request of RegistryRequestNetbeheerderServiceResponse)") == 2


def test_schema_error_is_reported_with_the_file_line(captures: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soap", "validate", str(captures["bad_bare"]), str(captures["bad_http"])]) == 1
    out = capsys.readouterr().out
    bare_line = _line_of(captures["bad_bare"], b"Graafwerk")
    http_line = _line_of(captures["bad_http"], b"Graafwerk")
    assert http_line == bare_line + 5  # start line, three headers, blank line
    assert f"line {bare_line}: [XSD]" in out and f"line {http_line}: [XSD]" in out
    assert "[WSI-BP11-R1012]" in out  # text/xml without charset
    assert "line 4: [WSI-BP11-R1109]" in out and "line 4: [WSI-BP11-R2744]" in out


def test_fault_with_http_200_and_hostile_or_broken_xml(captures: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(captures[n]) for n in ("fault_200", "doctype", "not_xml")]
    assert main(["soap", "validate", "--json", *paths]) == 1
    reports = json.loads(capsys.readouterr().out)
    rules = [{i["rule"] for i in r["issues"]} for r in reports]
    assert rules[0] == {"WSI-BP11-R1126"}
    assert rules[1] == {"WSI-BP11-R1008"} and "root:" not in json.dumps(reports[1])
    assert rules[2] == {"XML"} and reports[2]["issues"][0]["line"] == 3


def test_missing_file_is_a_usage_error_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.xml"
    assert main(["soap", "validate", str(missing)]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "Traceback" not in err


def test_unloadable_wsdl_is_a_usage_error(tmp_path: Path, captures: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    for source in (SHIPPED_WSDL, SHIPPED_XSD):
        shutil.copy(source, tmp_path / source.name)
    wsdl = tmp_path / SHIPPED_WSDL.name
    wsdl.write_text(wsdl.read_text().replace('schemaLocation="graafbericht-1.2.xsd"', 'schemaLocation="https://evil.example/x.xsd"'))
    assert main(["soap", "validate", "--wsdl", str(wsdl), str(captures["bare"])]) == 2
    err = capsys.readouterr().err
    assert "refused import" in err and "Traceback" not in err


def test_soap_action_base_fills_the_template(captures: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["soap", "validate", "--soap-action-base", "urn:other", str(captures["http"])]) == 1
    assert "urn:other/RequestNetbeheerderServiceResponse" in capsys.readouterr().out


def test_console_script_runs_without_traceback(captures: dict[str, Path]) -> None:
    result = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "soap", "validate", str(captures["not_xml"])],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "INVALID" in result.stdout


def test_response_capture_is_recognised() -> None:
    contract = load_contract(soap_url="", soap_action_base="urn:registry:graafbericht")
    response = etree.Element(f"{T}GraafberichtServiceResponse", versie="1.2")
    data = b"HTTP/1.1 200 OK\nContent-Type: text/xml; charset=utf-8\n\n" + build_envelope(response)
    report = validate_message(data, contract, source="r")
    assert report.kind == "response" and not report.valid
    assert all(i.rule == "XSD" for i in report.issues)


def test_split_capture_variants() -> None:
    bare = split_capture(b"\xef\xbb\xbf<a/>")
    assert bare.headers is None and bare.line_offset == 0
    headers_only = split_capture(b"Content-Type: text/xml\n\n<a/>")
    assert headers_only.direction is None and headers_only.headers is not None and headers_only.line_offset == 2
    garbage = split_capture(b"hello world\n<a/>")
    assert garbage.headers is None
