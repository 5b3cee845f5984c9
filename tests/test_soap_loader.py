"""Hardened, offline loading: the shipped pair loads; DTDs, entities and fetches are refused."""

from __future__ import annotations

import shutil
import socket
import time
from pathlib import Path

import pytest

from conformance.errors import ConfigError
from conformance.soap import (
    OPERATION,
    PORT,
    SHIPPED_DIR,
    SHIPPED_WSDL,
    SHIPPED_XSD,
    TYPES_NS,
    soap_action,
)
from conformance.soap.loader import WsdlLoadError, XmlRefused, load_contract, parse_untrusted

BILLION_LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    + b"".join(
        f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'.encode() for i in range(1, 10)
    )
    + b"]>\n<lolz>&lol9;</lolz>"
)
XXE = b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<r>&x;</r>'


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a connection fails the test loudly."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture
def wsdl_dir(tmp_path: Path) -> Path:
    """A profile directory holding a copy of the shipped pair, to be tampered with."""
    target = tmp_path / "profile"
    target.mkdir()
    for source in (SHIPPED_WSDL, SHIPPED_XSD):
        shutil.copy(source, target / source.name)
    return target


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_shipped_pair_loads_with_placeholders_filled() -> None:
    contract = load_contract(soap_url="http://127.0.0.1:1/svc", soap_action_base="urn:x:base/")
    operation = contract.operations[OPERATION]
    assert operation.soap_action == soap_action("urn:x:base") == "urn:x:base/RequestNetbeheerderServiceResponse"
    assert operation.style == "document"
    assert operation.input_element == f"{{{TYPES_NS}}}GraafberichtServiceRequest"
    assert operation.output_element == f"{{{TYPES_NS}}}GraafberichtServiceResponse"
    assert contract.addresses[PORT] == "http://127.0.0.1:1/svc"
    assert contract.facts.schema_versions[TYPES_NS] == "1.2"
    assert contract.xmlschema_source(TYPES_NS) == SHIPPED_XSD.resolve()
    assert b"{soap_url}" not in contract.wsdl_bytes


def test_placeholder_values_are_escaped() -> None:
    contract = load_contract(soap_url='http://h/p?a=1&b="2"', soap_action_base="urn:a")
    assert contract.addresses[PORT] == 'http://h/p?a=1&b="2"'


def test_a_profile_directory_copy_loads(wsdl_dir: Path) -> None:
    contract = load_contract(wsdl_dir / SHIPPED_WSDL.name, soap_url="http://h/", soap_action_base="urn:a")
    assert contract.wsdl_path.parent == wsdl_dir.resolve()


def test_wsdl_with_doctype_is_refused(wsdl_dir: Path) -> None:
    wsdl = wsdl_dir / SHIPPED_WSDL.name
    _edit(wsdl, "<wsdl:definitions", '<!DOCTYPE wsdl:definitions SYSTEM "http://evil.example/x.dtd">\n<wsdl:definitions')
    with pytest.raises(WsdlLoadError, match="DOCTYPE"):
        load_contract(wsdl)


def test_wsdl_with_external_entity_is_refused(wsdl_dir: Path) -> None:
    wsdl = wsdl_dir / SHIPPED_WSDL.name
    _edit(wsdl, "<wsdl:definitions", '<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<wsdl:definitions')
    _edit(wsdl, "{soap_url}", "&xxe;")
    with pytest.raises(WsdlLoadError, match="xxe"):
        load_contract(wsdl)


def test_schema_with_entity_bomb_is_refused_quickly(wsdl_dir: Path) -> None:
    xsd = wsdl_dir / SHIPPED_XSD.name
    text = xsd.read_text(encoding="utf-8")
    bomb_dtd = BILLION_LAUGHS.decode().split("\n<lolz>")[0].split("?>\n", 1)[1]
    xsd.write_text(text.replace("<xs:schema", bomb_dtd.replace("lolz", "xs:schema") + "\n<xs:schema", 1), encoding="utf-8")
    started = time.monotonic()
    with pytest.raises(WsdlLoadError):
        load_contract(wsdl_dir / SHIPPED_WSDL.name)
    assert time.monotonic() - started < 2


def test_http_schema_import_is_refused(wsdl_dir: Path) -> None:
    wsdl = wsdl_dir / SHIPPED_WSDL.name
    _edit(wsdl, 'schemaLocation="graafbericht-1.2.xsd"', 'schemaLocation="http://evil.example/types.xsd"')
    with pytest.raises(WsdlLoadError, match="no network"):
        load_contract(wsdl)


def test_http_wsdl_import_is_refused(wsdl_dir: Path) -> None:
    wsdl = wsdl_dir / SHIPPED_WSDL.name
    _edit(
        wsdl,
        "<wsdl:types>",
        '<wsdl:import namespace="urn:evil" location="https://evil.example/more.wsdl"/>\n  <wsdl:types>',
    )
    with pytest.raises(WsdlLoadError, match="zeep cannot load"):
        load_contract(wsdl)


def test_import_outside_the_profile_directory_is_refused(wsdl_dir: Path, tmp_path: Path) -> None:
    shutil.copy(SHIPPED_XSD, tmp_path / "outside.xsd")
    wsdl = wsdl_dir / SHIPPED_WSDL.name
    _edit(wsdl, 'schemaLocation="graafbericht-1.2.xsd"', 'schemaLocation="../outside.xsd"')
    with pytest.raises(WsdlLoadError, match="outside"):
        load_contract(wsdl)


def test_file_url_import_outside_is_refused(wsdl_dir: Path) -> None:
    wsdl = wsdl_dir / SHIPPED_WSDL.name
    _edit(wsdl, 'schemaLocation="graafbericht-1.2.xsd"', 'schemaLocation="file:///etc/passwd"')
    with pytest.raises(WsdlLoadError, match="outside"):
        load_contract(wsdl)


def test_oversized_wsdl_is_refused(wsdl_dir: Path) -> None:
    wsdl = wsdl_dir / SHIPPED_WSDL.name
    _edit(wsdl, "<wsdl:types>", "<!-- " + "x" * 2_100_000 + " -->\n  <wsdl:types>")
    with pytest.raises(WsdlLoadError, match="limit"):
        load_contract(wsdl)


def test_load_errors_are_config_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.wsdl"
    missing.write_text("<not-a-wsdl/>", encoding="utf-8")
    with pytest.raises(ConfigError, match="not wsdl:definitions"):
        load_contract(missing)


def test_schema_that_does_not_compile_is_a_load_error(wsdl_dir: Path) -> None:
    _edit(wsdl_dir / SHIPPED_XSD.name, 'type="gb:BerichtIdType"/>', 'type="gb:NoSuchType"/>')
    with pytest.raises(WsdlLoadError):
        load_contract(wsdl_dir / SHIPPED_WSDL.name)


# ------------------------------------------------------------------------------ parse_untrusted
def test_billion_laughs_is_refused_not_expanded() -> None:
    started = time.monotonic()
    with pytest.raises(XmlRefused) as refused:
        parse_untrusted(BILLION_LAUGHS)
    assert refused.value.reason == "doctype"
    assert time.monotonic() - started < 1


def test_external_entity_is_refused_and_never_read() -> None:
    with pytest.raises(XmlRefused) as refused:
        parse_untrusted(XXE)
    assert refused.value.reason == "doctype"
    assert "root:" not in refused.value.message


def test_size_bound_is_checked_before_parsing() -> None:
    with pytest.raises(XmlRefused) as refused:
        parse_untrusted(b"<a>" + b"x" * 200 + b"</a>", max_bytes=100)
    assert refused.value.reason == "too_large"


def test_not_well_formed_reports_the_line() -> None:
    with pytest.raises(XmlRefused) as refused:
        parse_untrusted(b"<a>\n<b>\n</a>")
    assert refused.value.reason == "not_well_formed"
    assert refused.value.line == 3


def test_shipped_files_are_package_data() -> None:
    assert {p.name for p in SHIPPED_DIR.iterdir()} >= {SHIPPED_WSDL.name, SHIPPED_XSD.name}
