"""Negative checks against a control (conformance/checks/address/control.py), sample
resources that block what starts from them (general.sample_resource) and the profile's
restricted paths: each rule proven both ways on a scripted fake API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import problem
from conformance.checks.address.control import CLIENT_ERROR, Req, refused_vs_control, rejected_vs_control
from conformance.errors import NotJudged
from conformance.findings import Blocked, Finding
from conformance.http.exchange import Exchange, Headers
from conformance.profiles import load_profile

BASE = "http://127.0.0.1:8000/lvbag/individuelebevragingen/v2"
NUM = "0001200000000001"


def ex(status: int, body: Any = None, path: str = "/adressen") -> Exchange:
    media = "application/hal+json" if status < 400 else "application/problem+json"
    return Exchange("GET", BASE + path, Headers(), b"", status, Headers([("content-type", media)]),
                    json.dumps(body).encode() if body is not None else b"")


def refusal(status: int, code: str, names: list[str] | None = None) -> Exchange:
    body: dict[str, Any] = {"status": status, "title": "t", "code": code, "detail": "why"}
    if names is not None:
        body["invalid-params"] = [{"type": "u", "name": n, "code": "c", "reason": "r"} for n in names]
    return ex(status, body)


class Scripted:
    """Answers the control (no `huisnummer=0`) and the changed request as told."""

    def __init__(self, control: Exchange, changed: Exchange, samples: dict[str, str] | None = None,
                 restricted_paths: tuple[str, ...] = ()) -> None:
        self.answers = {"control": control, "changed": changed}
        self.sent: list[tuple[str, Any, str]] = []
        self.samples, self.restricted_paths = samples or {}, restricted_paths

    def get(self, path: str, params: Any = None, headers: Any = None, key: str = "valid") -> Exchange:
        self.sent.append((path, params, key))
        changed = key != "valid" or ("huisnummer", "0") in (params or [])
        return self.answers["changed" if changed else "control"]

    def sample(self, name: str) -> str:
        return self.samples[name]


CONTROL = Req.of("/adressen", [("postcode", "1234AB"), ("huisnummer", "1")])
CHANGED = CONTROL.with_param("huisnummer", "0")


def test_req_changes_one_thing() -> None:
    assert CHANGED.params == (("postcode", "1234AB"), ("huisnummer", "0"))
    assert CONTROL.without("huisnummer").params == (("postcode", "1234AB"),)
    assert CONTROL.adding("huisnummer", "2").params[-2:] == (("huisnummer", "1"), ("huisnummer", "2"))
    assert CONTROL.with_key("none").key == "none" and CONTROL.with_header("Accept", "x").headers == (("Accept", "x"),)


def test_a_refused_control_blocks() -> None:
    api = Scripted(refusal(401, "authentication"), refusal(400, "paramsValidation", ["huisnummer"]))
    with pytest.raises(Blocked) as info:
        refused_vs_control(api, CONTROL, CHANGED, rule="huisnummer 0", names="huisnummer")
    assert info.value.cause == "unchanged request GET /adressen -> 401 authentication"
    assert len(api.sent) == 1, "the changed request is not judged without a served control"


def test_a_refusal_counts_with_a_served_control() -> None:
    for names in (["huisnummer"], [], None):  # named, an empty list (no single parameter), no list
        api = Scripted(ex(200, {}), refusal(400, "paramsValidation", names))
        assert refused_vs_control(api, CONTROL, CHANGED, rule="huisnummer 0", names="huisnummer").status == 400
    with pytest.raises(Finding, match="not refused"):
        refused_vs_control(Scripted(ex(200, {}), ex(200, {})), CONTROL, CHANGED, rule="huisnummer 0")


def test_a_refusal_for_another_reason_is_no_pass() -> None:
    other = Scripted(ex(200, {}), refusal(400, "paramsValidation", ["postcode"]))
    with pytest.raises(Finding, match="another parameter") as info:
        refused_vs_control(other, CONTROL, CHANGED, rule="huisnummer 0", names="huisnummer")
    assert "invalid-params [postcode]" in str(info.value), "the server's reason is in the verdict"
    for status, code in ((401, "authentication"), (403, "autorisation"), (429, "tooManyRequests")):
        api = Scripted(ex(200, {}), refusal(status, code))
        with pytest.raises(Finding, match="unrelated reason"):
            refused_vs_control(api, CONTROL, CHANGED, rule="malformed", statuses=CLIENT_ERROR)
    api = Scripted(ex(200, {}), refusal(405, "methodNotAllowed"))
    assert refused_vs_control(api, CONTROL, CHANGED, rule="x", statuses=CLIENT_ERROR).status == 405


def test_rejected_needs_the_faulty_parameter_named() -> None:
    rejected_vs_control(Scripted(ex(200, {}), refusal(400, "p", ["huisnummer"])), CONTROL, CHANGED, "huisnummer", "w")
    for names in ([], None):
        with pytest.raises(Finding):
            rejected_vs_control(Scripted(ex(200, {}), refusal(400, "p", names)), CONTROL, CHANGED, "huisnummer", "w")


def test_an_empty_invalid_params_list_is_a_list() -> None:
    assert problem.invalid_params(refusal(400, "paramsRequired", [])) == []
    with pytest.raises(Finding, match="without an invalid-params list"):
        problem.invalid_params(refusal(400, "paramsRequired"))
    with pytest.raises(Finding, match="does not name"):
        problem.names_invalid_param(refusal(400, "paramsRequired", []), "huisnummer")


def test_a_sample_rendered_wrongly_blocks_with_one_cause() -> None:
    good = {"nummeraanduidingIdentificatie": NUM, "postcode": "1234AB", "huisnummer": 1}
    api = Scripted(ex(200, good), ex(200, good), samples={"nummeraanduiding": NUM})
    assert g.sample_address(api)["postcode"] == "1234AB"
    causes = set()
    for body in ({**good, "nummeraanduidingIdentificatie": NUM[:-1]}, {k: v for k, v in good.items() if k != "postcode"}):
        with pytest.raises(Blocked) as info:
            g.sample_address(Scripted(ex(200, body), ex(200, body), samples={"nummeraanduiding": NUM}))
        causes.add(info.value.cause)
    assert causes == {f"sample nummeraanduiding {NUM}: GET /adressen/{NUM} -> 200 the address returned is not the one requested",
                      f"sample nummeraanduiding {NUM}: GET /adressen/{NUM} -> 200 without postcode"}
    with pytest.raises(Blocked, match="-> 404 notFound"):
        g.sample_address(Scripted(refusal(404, "notFound"), ex(200), samples={"nummeraanduiding": NUM}))


def test_restricted_cases_come_from_the_profile() -> None:
    api = Scripted(ex(200), ex(200), restricted_paths=("/adressenuitgebreid",))
    assert g.restricted_cases(api) == ["adressenuitgebreid", "adressenuitgebreid-id"]
    assert "adressen" in g.permitted_cases(api) and "adressenuitgebreid" not in g.permitted_cases(api)
    assert g.restricted_cases(Scripted(ex(200), ex(200), restricted_paths=("/adressen",)))[:3] == [
        "adressen", "adressen-zoek", "adressen-id"]
    # The rule applies to every deployment: without the paths it is not judged, naming what to add.
    with pytest.raises(NotJudged, match="restricted_paths") as info:
        g.restricted_cases(Scripted(ex(200), ex(200)))
    assert "restricted_api_key" in info.value.how


def test_profile_restricted_paths(tmp_path: Path) -> None:
    assert load_profile("local-mock").address.restricted_paths == ("/adressenuitgebreid",)
    base = ('[profile]\nname = "p"\ndescription = "d"\n[services.address]\nmock = false\n'
            'base_url = "https://x/v2"\n{extra}\n[services.address.secrets]\napi_key = "K"\n')
    path = tmp_path / "p.toml"
    path.write_text(base.format(extra=""))
    assert load_profile(str(path)).address.restricted_paths == ()
    path.write_text(base.format(extra='restricted_paths = ["/bronhouders/", "/adressen"]'))
    assert load_profile(str(path)).address.restricted_paths == ("/bronhouders", "/adressen")
    path.write_text(base.format(extra='restricted_paths = ["bronhouders"]'))
    with pytest.raises(Exception, match="restricted_paths"):
        load_profile(str(path))
