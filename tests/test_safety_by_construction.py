"""Safety by construction (conformance/http/intent.py): the profile's switches are enforced
where requests leave the harness. A request designed to be refused is recognised from the
request itself by the seed's rules for the client (conformance/checks/client/requests.py),
whatever the check declared or marked, and does not leave under safety.negative = false."""

from __future__ import annotations

import pytest
from test_origins import Listener

from conformance.checks.client import requests as rules
from conformance.errors import NotJudged
from conformance.http.address import AddressApi
from conformance.http.client import Recorder
from conformance.http.intent import Intent, Switches
from conformance.http.redaction import Redactor
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
                             ("/adressen/zoek", {"zoek": "Markt 1 Delft"})]:
            assert api.get(path, params=params).status == 200
        api.close()
    assert len(server.requests) == 4


def test_a_flood_leaves_only_under_safety_flood() -> None:
    with Listener() as server:
        with pytest.raises(NotJudged, match="safety.flood = false"):
            _api(server.url + "/v2", negative=True, flood=False).get("/adressen/0363200000218705", key="limited")
        assert server.requests == []
        flooding = _api(server.url + "/v2", negative=True, flood=True)
        assert flooding.get("/adressen/0363200000218705", key="limited").notes["intent"] == Intent.FLOOD
        flooding.close()
