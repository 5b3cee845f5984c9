"""Safety by construction (conformance/http/intent.py): the profile's switches are enforced
where requests leave the harness. A request designed to be refused is recognised from the
request itself by the seed's rules for the client (conformance/checks/client/requests.py),
whatever the check declared or marked, and does not leave under safety.negative = false."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import forked_cli
import pytest
from test_origins import Listener

from conformance.checks.client import requests as rules
from conformance.errors import NotJudged
from conformance.http.address import AddressApi
from conformance.http.client import Recorder
from conformance.http.intent import Intent, Switches
from conformance.http.redaction import Redactor
from conformance.paths import CHECKOUT
from conformance.profiles import AddressService, Limits, Safety

KEY = "safety-test-valid-key-0123456789"
RESTRICTED = "safety-test-restricted-key-0123"


def _api(base_url: str, *, negative: bool, flood: bool = False) -> AddressApi:
    service = AddressService(mock=False, base_url=base_url, openapi="", timeout_s=5.0,
                             secret_env={"api_key": "K", "restricted_api_key": "R", "limited_api_key": "L"},
                             restricted_paths=("/adressenuitgebreid",))
    return AddressApi(service, base_url=base_url, keys={"api_key": KEY, "restricted_api_key": RESTRICTED,
                                                         "limited_api_key": KEY + "-limited"},
                      samples={}, limits=Limits(), redactor=Redactor([KEY]), recorder=Recorder(),
                      switches=Switches.of(Safety(negative=negative, flood=flood)), refusal=rules.refusal)


@pytest.mark.parametrize(("what", "path", "params", "headers", "key"), [
    ("no key", "/adressen/0363200000218705", None, None, "none"),
    ("a wrong key", "/adressen/0363200000218705", None, None, "invalid"),
    ("the restricted key on its restricted path", "/adressenuitgebreid/0363200000218705", None, None, "restricted"),
    ("no kind of query", "/adressen", None, None, "valid"),
    ("postcode without huisnummer", "/adressen", {"postcode": "1234AB"}, None, "valid"),
    ("a street without its number", "/adressen", {"woonplaatsNaam": "Delft", "openbareRuimteNaam": "Markt"}, None,
     "valid"),
    ("pageSize over 100", "/adressen", {"pandIdentificatie": "0363100012345678", "pageSize": "101"}, None, "valid"),
    ("a malformed date", "/adresseerbareobjecten/0363010000000001", {"geldigOp": "23-04-2019"}, None, "valid"),
    ("a boolean that is none", "/adressen/0363200000218705", {"inclusiefEindStatus": "ja"}, None, "valid"),
    ("an unknown expand", "/adressen/0363200000218705", {"expand": "bestaatniet"}, None, "valid"),
    ("min over max", "/adresseerbareobjecten", {"bbox": "1,1,2,2", "oppervlakte[min]": "9", "oppervlakte[max]": "5"},
     None, "valid"),
    ("Accept: application/json", "/adressen/0363200000218705", None, {"Accept": "application/json"}, "valid"),
    ("another CRS", "/adressen/0363200000218705", None, {"Accept-Crs": "epsg:4326"}, "valid"),
    ("/bronhouders without an identification", "/bronhouders", None, None, "valid"),
    ("/bronhouders with two identifications", "/bronhouders",
     {"objectIdentificatie": "0363200000218705", "verblijfsobjectIdentificatie": "0363010000000001"}, None, "valid"),
    ("an unknown type of object", "/adresseerbareobjecten", {"bbox": "1,1,2,2", "type": "fout"}, None, "valid"),
    ("an empty list of buildings", "/adresseerbareobjecten", {"pandIdentificaties": ""}, None, "valid"),
    ("an unknown expand on one object", "/adresseerbareobjecten/0363010000000001", {"expand": "bestaatniet"}, None,
     "valid"),
    ("nothing found is no refusal, but a number out of range is", "/adressen",
     {"postcode": "1234AB", "huisnummer": "100000"}, None, "valid"),
])
def test_a_request_designed_to_be_refused_does_not_leave_under_negative_false(what, path, params, headers, key):
    with Listener() as server:
        api = _api(server.url + "/v2", negative=False)
        with pytest.raises(NotJudged) as caught:
            api.get(path, params=params, headers=headers, key=key)
        api.close()
        assert caught.value.what == "forbidden by safety.negative = false"
        assert server.requests == [], f"{what}: sent although safety.negative = false"


def test_the_same_requests_go_and_are_marked_where_the_profile_allows_them() -> None:
    with Listener() as server:
        api = _api(server.url + "/v2", negative=True)
        refused = api.get("/adressen/0363200000218705", key="none")
        valid = api.get("/adressen/0363200000218705", params={"expand": "woonplaats"})
        api.close()
    assert refused.notes["intent"] == Intent.REFUSED and "no API key" in refused.notes["intent_why"]
    assert "intent" not in valid.notes
    assert len(server.requests) == 2


def test_a_valid_request_leaves_under_every_switch_off() -> None:
    with Listener() as server:
        api = _api(server.url + "/v2", negative=False)
        for path, params in [("/adressen", {"postcode": "1234 ab", "huisnummer": "1", "exacteMatch": "true"}),
                             ("/adresseerbareobjecten", {"bbox": "1,1,2,2", "oppervlakte[min]": "5",
                                                         "oppervlakte[max]": "9", "type": "verblijfsobject"}),
                             ("/adresseerbareobjecten/0363010000000001", {"beschikbaarOp": "2024-01-31T10:00"}),
                             ("/adressen/zoek", {"zoek": "Markt 1 Delft"}),
                             ("/bronhouders", {"objectIdentificatie": "0363200000218705"})]:
            assert api.get(path, params=params).status == 200
        api.close()
    assert len(server.requests) == 5


def test_a_flood_leaves_only_under_safety_flood() -> None:
    with Listener() as server:
        with pytest.raises(NotJudged, match="safety.flood = false"):
            _api(server.url + "/v2", negative=True, flood=False).get("/adressen/0363200000218705", key="limited")
        assert server.requests == []
        flooding = _api(server.url + "/v2", negative=True, flood=True)
        assert flooding.get("/adressen/0363200000218705", key="limited").notes["intent"] == Intent.FLOOD
        flooding.close()


def test_a_checks_own_error_case_cannot_send_its_refused_request_under_negative_false() -> None:
    # The 403 case of the general checks once declared itself "not negative" and was sent
    # under the production profile; nothing a check declares or marks decides it now.
    from conformance.checks.address import general as g

    with Listener() as server:
        api = _api(server.url + "/v2", negative=False)
        api.samples.update(nummeraanduiding="0363200000218705", pand="0363100012345678")
        with pytest.raises(NotJudged, match="safety.negative = false"):
            g.ERROR_CASES["403-no-rights"].send(api)
        api.close()
    # The control (valid) went; the restricted key on its restricted path did not.
    assert [key for _path, key in server.requests] == [KEY]


# ------------------------------------------------------------------ a production-style run
def _production_style_profile(tmp_path: Path) -> Path:
    text = (CHECKOUT / "profiles" / "local-mock.toml").read_text(encoding="utf-8")
    text = re.sub(r"\[safety\]\n(?:.*\n)*?\n", "[safety]\nfuzz = false\nnegative = false\nflood = false\n"
                  "waits = false\n\n", text, count=1).replace('name = "local-mock"', 'name = "production-style"')
    assert "negative = false" in text
    path = tmp_path / "production-style.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_production_style_run_sends_nothing_a_server_would_refuse(tmp_path: Path) -> None:
    profile = _production_style_profile(tmp_path)
    report = tmp_path / "run"
    run = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--profile", str(profile), "-n", "2",
                          "--no-html", "--report-dir", str(report)], capture_output=True, text=True, timeout=900,
                         cwd=CHECKOUT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    entries = json.loads((report / "traffic.har").read_text())["log"]["entries"]
    assert len(entries) > 300  # the address API, the token flows and the SOAP service were judged
    refused = [(e["response"]["status"], e["request"]["method"], e["request"]["url"]) for e in entries
               if e["response"]["status"] in (400, 401, 403, 429)]
    assert refused == []
    summary = json.loads((report / "summary.json").read_text())
    at_the_client = {e["test"].split("::")[-1] for e in summary["checks"] if e["outcome"] == "not_judged"
                     and e.get("cause") == "forbidden by safety.negative = false" and "forbids checks" not in e["reason"]}
    assert "test_address_errors_code_matches_status[403-no-rights]" in at_the_client  # declared valid and refused: left out when sent
    # The run's own traffic, judged as a capture: the harness is a conforming client.
    judged = forked_cli.run([sys.executable, "-m", "conformance.cli", "traffic", str(report / "traffic.har"),
                             "--profile", str(profile), "--report-dir", str(tmp_path / "traffic"), "--no-html"],
                            capture_output=True, text=True, timeout=300, cwd=CHECKOUT)
    outcomes = {e["check"]: e["outcome"] for e in json.loads((tmp_path / "traffic" / "summary.json").read_text())["checks"]}
    clients = {c: o for c, o in outcomes.items() if c.startswith("client.")}
    assert "failed" not in clients.values(), judged.stdout[-3000:]
    assert list(clients.values()).count("passed") >= 5, clients
