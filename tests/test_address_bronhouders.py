"""/bronhouders' parameter names (seed part 4: "Parameter names and response: not shown") come
from the profile's description where it describes the operation, else from the profile key
`services.address.bronhouders_parameters` (conformance/checks/address/bronhouders.py): a
deployment that names the identification otherwise is judged, not blocked (issue 42).

Proven on the names alone, and end to end: the local mock under the fault
address.bronhouder_parameter_renamed (it knows `identificatie`) fails the checks with the shipped
description, and passes them with a description, or a profile key, that says `identificatie`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import forked_cli
import pytest
from vendor_profiles import vendor_profile

from conformance.checks.address import bronhouders as B
from conformance.errors import ConfigError, NotJudged
from conformance.mocks.address import data
from conformance.mocks.faults import resolve
from conformance.mocks.launcher import MockCluster
from conformance.openapi.references import parse_yaml
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import load_profile

SHIPPED = REPO_ROOT / "conformance" / "openapi" / "address-v2.yaml"
CHECKS = ("address.bronhouders.object_identificatie", "address.bronhouders.none_rejected",
          "address.bronhouders.two_rejected")
KEY_VAR = "BRONHOUDERS_TEST_KEY"


def _shipped() -> dict[str, Any]:
    return parse_yaml(SHIPPED.read_text(encoding="utf-8"), str(SHIPPED))


def _described(*params: dict[str, Any]) -> dict[str, Any]:
    return {"paths": {"/bronhouders": {"get": {"parameters": list(params)}}}}


def _q(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", **extra}


# --------------------------------------------------------------------------- the names
def test_the_shipped_description_names_one_parameter_for_every_kind() -> None:
    assert B.parameter_names(_shipped(), None) == dict.fromkeys(B.KINDS, "objectIdentificatie")


def test_a_description_with_a_parameter_per_kind() -> None:
    description = _described(_q("woonplaatsIdentificatie"), _q("openbareRuimteIdentificatie"),
                             _q("nummeraanduidingIdentificatie"), _q("adresseerbaarObjectIdentificatie"),
                             _q("pandIdentificatie"), _q("geldigOp"), {"name": "Accept-Crs", "in": "header"})
    assert B.parameter_names(description, "ignored") == {
        "woonplaats": "woonplaatsIdentificatie", "openbareruimte": "openbareRuimteIdentificatie",
        "nummeraanduiding": "nummeraanduidingIdentificatie", "ligplaats": "adresseerbaarObjectIdentificatie",
        "standplaats": "adresseerbaarObjectIdentificatie", "verblijfsobject": "adresseerbaarObjectIdentificatie",
        "pand": "pandIdentificatie"}


def test_a_deprecated_name_serves_only_where_no_other_does() -> None:
    # The public archive: objectIdentificatie, and woonplaatsIdentificatie marked deprecated.
    names = B.parameter_names(_described(_q("objectIdentificatie"), _q("woonplaatsIdentificatie", deprecated=True)),
                              None)
    assert names == dict.fromkeys(B.KINDS, "objectIdentificatie")
    only = B.parameter_names(_described(_q("woonplaatsIdentificatie", deprecated=True)), None)
    assert only == {"woonplaats": "woonplaatsIdentificatie"}
    with pytest.raises(NotJudged, match="give one for pand"):
        B.parameter_of(only, "pand")


def test_referenced_parameters_are_followed() -> None:
    description = {"paths": {"/bronhouders": {"parameters": [{"$ref": "#/components/parameters/id"}],
                                              "get": {}}},
                   "components": {"parameters": {"id": _q("identificatie")}}}
    assert B.parameter_names(description, None) == dict.fromkeys(B.KINDS, "identificatie")


def test_without_the_operation_the_profile_key_names_them() -> None:
    without = {"paths": {"/adressen": {"get": {"parameters": [_q("q")]}}}}
    assert B.parameter_names(without, "identificatie") == dict.fromkeys(B.KINDS, "identificatie")
    assert B.parameter_names(without, {"pand": "pandId"}) == {"pand": "pandId"}
    with pytest.raises(NotJudged) as info:
        B.parameter_names(without, None)
    assert B.PROFILE_KEY in info.value.how and "does not describe GET /bronhouders" in info.value.how
    # Described, but with no identification parameter among its own: the key again.
    assert B.parameter_names(_described(_q("geldigOp")), "id") == dict.fromkeys(B.KINDS, "id")


# --------------------------------------------------------------------------- the profile key
def _profile(tmp_path: Path, name: str, base_url: str, extra: str = "") -> Path:
    return vendor_profile(tmp_path / f"{name}.toml", base_url, {kind: data.WELL_KNOWN[kind] for kind in B.KINDS},
                          "[safety]\nnegative = true\n", key_var=KEY_VAR, name=name, address=extra)


@pytest.mark.parametrize("value", ['"identificatie"', '{ woonplaats = "woonplaatsId", pand = "pandId" }'])
def test_the_profile_key_loads(tmp_path: Path, value: str) -> None:
    service = load_profile(str(_profile(tmp_path, "key", "https://vendor.example/v2",
                                        f"bronhouders_parameters = {value}"))).address
    assert service is not None
    assert service.bronhouders_parameters in ("identificatie", {"woonplaats": "woonplaatsId", "pand": "pandId"})


@pytest.mark.parametrize("value", ['""', '{ gemeente = "x" }', "[]"])
def test_a_wrong_profile_key_is_refused(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="bronhouders_parameters"):
        load_profile(str(_profile(tmp_path, "bad", "https://vendor.example/v2", f"bronhouders_parameters = {value}")))


# --------------------------------------------------------------------------- end to end
def _renamed(tmp_path: Path) -> Path:
    """The shipped description saying `identificatie` where it says objectIdentificatie."""
    path = tmp_path / "renamed.yaml"
    path.write_text(SHIPPED.read_text(encoding="utf-8").replace("objectIdentificatie", "identificatie"),
                    encoding="utf-8")
    return path


def _without_bronhouders(tmp_path: Path) -> Path:
    """The shipped description without GET /bronhouders (and the link to it)."""
    raw = _shipped()
    del raw["paths"]["/bronhouders"]
    for item in raw["paths"].values():
        for operation in item.values():
            for response in (operation.get("responses") or {}).values() if isinstance(operation, dict) else ():
                if isinstance(response, dict):
                    response.get("links", {}).pop("Bronhouder", None)
    path = tmp_path / "without.json"
    path.write_text(json.dumps(raw, default=str), encoding="utf-8")
    return path


def _outcomes(tmp_path: Path, profile: Path, key: str) -> dict[str, str]:
    report = tmp_path / f"report-{profile.stem}"
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "--suite", "address", "-n", "0",
         "--no-html", "--check", "address.bronhouders.*", "--report-dir", str(report)],
        capture_output=True, text=True, timeout=300, cwd=REPO_ROOT, env={**os.environ, KEY_VAR: key})
    summary = report / "summary.json"
    assert summary.is_file(), proc.stdout[-3000:] + proc.stderr[-2000:]
    worst: dict[str, str] = {}
    for entry in json.loads(summary.read_text())["checks"]:
        if entry["check"] in CHECKS and worst.get(entry["check"]) in (None, "passed"):
            worst[entry["check"]] = entry["outcome"]
    return worst


def test_a_deployment_that_names_it_otherwise_is_judged(tmp_path: Path) -> None:
    profile = load_profile("local-mock")
    with MockCluster(profile, resolve(["address.bronhouder_parameter_renamed"])) as cluster:
        base, key = cluster.urls["address"], cluster.secrets[profile.address.secret_env["api_key"]]
        without = _without_bronhouders(tmp_path)
        shipped = _outcomes(tmp_path, _profile(tmp_path, "shipped", base), key)
        described = _outcomes(tmp_path, _profile(tmp_path, "described", base, f'openapi = "{_renamed(tmp_path)}"'), key)
        keyed = _outcomes(tmp_path, _profile(tmp_path, "keyed", base,
                                             f'openapi = "{without}"\nbronhouders_parameters = "identificatie"'), key)
        unnamed = _outcomes(tmp_path, _profile(tmp_path, "unnamed", base, f'openapi = "{without}"'), key)
    # The shipped description says objectIdentificatie, which this server does not know.
    assert shipped["address.bronhouders.object_identificatie"] == "failed"
    assert {shipped[c] for c in CHECKS[1:]} == {"blocked"}  # their control is refused
    # Told its own name, by its description or by the profile, every check is judged and passes.
    assert described == dict.fromkeys(CHECKS, "passed")
    assert keyed == dict.fromkeys(CHECKS, "passed")
    # Told nothing: not judged, never blocked or failed.
    assert unnamed == dict.fromkeys(CHECKS, "not_judged")
