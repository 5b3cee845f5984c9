"""Tests of the OpenAPI description conformance/openapi/address-v2.yaml.

The description is checked against the seed spec (000_cca6f102b48e2c17.txt, which governs):
endpoints and operationIds (part 4), parameters and limits (parts 4 and 8), statuses per
endpoint (part 7), response headers (part 4 "Response headers"), authentication (part 5)
and deprecations (part 9). It must load in schemathesis and lint clean with spectral.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import schemathesis

ROOT = Path(__file__).resolve().parents[1]
SPEC_PATH = ROOT / "conformance" / "openapi" / "address-v2.yaml"
RULESET_PATH = ROOT / "conformance" / "openapi" / ".spectral.yaml"
SPECTRAL = ROOT / "tools" / "node_modules" / ".bin" / "spectral"

# Seed part 4: path -> operationId (/bronhouders: the seed shows no operationId; the
# public archive's name is used).
OPERATIONS = {
    "/adresseerbareobjecten": "zoekAdresseerbareObjecten",
    "/adresseerbareobjecten/{adresseerbaarObjectIdentificatie}": "bevragenAdresseerbaarObject",
    "/adresseerbareobjecten/{adresseerbaarObjectIdentificatie}/lvc": "bevragenAdresseerbaarObjectLvc",
    "/adressen": "bevraagAdressen",
    "/adressen/zoek": "zoek",
    "/adressen/{nummeraanduidingIdentificatie}": "bevraagAdressenMetNumId",
    "/adressenuitgebreid": "zoekAdresUitgebreid",
    "/adressenuitgebreid/{nummeraanduidingIdentificatie}": "bevraagAdresUitgebreidMetNumId",
    "/bronhouders": "zoekBronhouder",
}

# Seed part 4: the parameters of every operation, as (name, in).
Q, H, P = "query", "header", "path"
PARAMETERS: dict[str, set[tuple[str, str]]] = {
    "/adresseerbareobjecten": {
        ("nummeraanduidingIdentificatie", Q),
        ("huidig", Q),
        ("geldigOp", Q),
        ("beschikbaarOp", Q),
        ("expand", Q),
        ("Accept-Crs", H),
        ("Content-Crs", H),
        ("page", Q),
        ("pageSize", Q),
        ("bbox", Q),
        ("geconstateerd", Q),
        ("oppervlakte", Q),
        ("gebruiksdoelen", Q),
        ("type", Q),
        ("pandIdentificaties", Q),
    },
    "/adresseerbareobjecten/{adresseerbaarObjectIdentificatie}": {
        ("adresseerbaarObjectIdentificatie", P),
        ("geldigOp", Q),
        ("beschikbaarOp", Q),
        ("expand", Q),
        ("huidig", Q),
        ("Accept-Crs", H),
    },
    "/adresseerbareobjecten/{adresseerbaarObjectIdentificatie}/lvc": {
        ("adresseerbaarObjectIdentificatie", P),
        ("geheleLvc", Q),
        ("Accept-Crs", H),
    },
    "/adressen": {
        ("zoekresultaatIdentificatie", Q),
        ("postcode", Q),
        ("huisnummer", Q),
        ("huisnummertoevoeging", Q),
        ("huisletter", Q),
        ("exacteMatch", Q),
        ("adresseerbaarObjectIdentificatie", Q),
        ("woonplaatsNaam", Q),
        ("openbareRuimteNaam", Q),
        ("pandIdentificatie", Q),
        ("openbareRuimteIdentificatie", Q),
        ("q", Q),
        ("inclusiefEindStatus", Q),
        ("expand", Q),
        ("page", Q),
        ("pageSize", Q),
    },
    "/adressen/zoek": {("zoek", Q), ("page", Q), ("pageSize", Q)},
    "/adressen/{nummeraanduidingIdentificatie}": {
        ("nummeraanduidingIdentificatie", P),
        ("expand", Q),
        ("inclusiefEindStatus", Q),
    },
    "/adressenuitgebreid": {
        ("postcode", Q),
        ("huisnummer", Q),
        ("huisnummertoevoeging", Q),
        ("huisletter", Q),
        ("exacteMatch", Q),
        ("adresseerbaarObjectIdentificatie", Q),
        ("woonplaatsNaam", Q),
        ("openbareRuimteNaam", Q),
        ("q", Q),
        ("pandIdentificatie", Q),
        ("inclusiefEindStatus", Q),
        ("page", Q),
        ("pageSize", Q),
        ("Accept-Crs", H),
    },
    "/adressenuitgebreid/{nummeraanduidingIdentificatie}": {
        ("nummeraanduidingIdentificatie", P),
        ("inclusiefEindStatus", Q),
        ("Accept-Crs", H),
    },
    "/bronhouders": {("objectIdentificatie", Q), ("geldigOp", Q), ("beschikbaarOp", Q)},
}

# Seed part 7 "Statuses per endpoint" (besides 200). Two additions are public behaviour:
# 415 on /adresseerbareobjecten (BAGREF 4.12) and 404 on /adressenuitgebreid/{id}
# (BAGREF 4.13). /bronhouders is not in the seed's table.
_AO = {"400", "401", "403", "406", "412", "429", "500", "503"}
_WITH_404 = _AO | {"404"}
SEED_STATUSES = {
    "/adresseerbareobjecten": _AO,
    "/adresseerbareobjecten/{adresseerbaarObjectIdentificatie}": _WITH_404,
    "/adresseerbareobjecten/{adresseerbaarObjectIdentificatie}/lvc": _WITH_404,
    "/adressen": _AO,
    "/adressen/zoek": {"400", "401", "403", "429", "500", "503"},
    "/adressen/{nummeraanduidingIdentificatie}": _WITH_404,
    "/adressenuitgebreid": _AO,
    "/adressenuitgebreid/{nummeraanduidingIdentificatie}": _AO,
}
PUBLIC_ADDITIONS = {
    "/adresseerbareobjecten": {"415"},
    "/adressenuitgebreid/{nummeraanduidingIdentificatie}": {"404"},
}

PAGINATED_200 = {
    "/adresseerbareobjecten",
    "/adressen",
    "/adressen/zoek",
    "/adressen/{nummeraanduidingIdentificatie}",
    "/adressenuitgebreid",
}
RATE_LIMIT_HEADERS = {
    "Registry-RateLimit-DayLimit",
    "Registry-RateLimit-DayLimit-Remaining",
    "Registry-RateLimit-DayLimit-Reset",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
}


# ---------------------------------------------------------------------------- helpers


@pytest.fixture(scope="module")
def st_schema():
    return schemathesis.openapi.from_path(str(SPEC_PATH))


@pytest.fixture(scope="module")
def raw(st_schema) -> dict[str, Any]:
    return st_schema.raw_schema


def deref(raw: dict[str, Any], node: Any) -> Any:
    """Follow local `$ref`s until a non-reference node."""
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), ref
        node = raw
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def operation(raw: dict[str, Any], path: str) -> dict[str, Any]:
    return raw["paths"][path]["get"]


def parameters(raw: dict[str, Any], path: str) -> dict[tuple[str, str], dict[str, Any]]:
    result = {}
    for param in operation(raw, path).get("parameters", []):
        param = deref(raw, param)
        result[(param["name"], param["in"])] = param
    return result


def param_schema(raw: dict[str, Any], path: str, name: str, location: str = Q) -> dict[str, Any]:
    return deref(raw, parameters(raw, path)[(name, location)]["schema"])


def responses(raw: dict[str, Any], path: str) -> dict[str, dict[str, Any]]:
    return {code: deref(raw, r) for code, r in operation(raw, path)["responses"].items()}


def headers_of(raw: dict[str, Any], response: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: deref(raw, h) for name, h in response.get("headers", {}).items()}


def validator(raw: dict[str, Any], schema_name: str) -> jsonschema.Draft7Validator:
    # OpenAPI 3.0 schema objects used here are valid draft-7 (no `nullable`).
    root = {"$ref": f"#/components/schemas/{schema_name}", "components": raw["components"]}
    return jsonschema.Draft7Validator(root, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def walk(node: Any, trail: tuple[str, ...] = ()):
    yield trail, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, (*trail, str(key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, (*trail, str(index)))


# ----------------------------------------------------------------- document and loading


def test_loads_in_schemathesis_with_every_seed_operation(st_schema):
    st_schema.validate()
    found = {}
    for result in st_schema.get_all_operations():
        op = result.ok()
        found[op.path] = (op.method.upper(), op.definition.raw.get("operationId"))
    assert found == {path: ("GET", op_id) for path, op_id in OPERATIONS.items()}


def test_info_version_and_server(raw):
    assert raw["openapi"] == "3.0.3"
    assert raw["info"]["version"] == "2.9.2"
    assert raw["info"].get("contact") and raw["info"].get("description")
    assert [s["url"] for s in raw["servers"]] == [
        "https://api.registry.example/lvbag/individuelebevragingen/v2"
    ]


def test_only_get_operations(raw):
    for path, item in raw["paths"].items():
        methods = {
            k for k in item if k in {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
        }
        assert methods == {"get"}, path


def test_every_operation_has_summary_description_and_tags(raw):
    declared = {t["name"] for t in raw["tags"]}
    for path in OPERATIONS:
        op = operation(raw, path)
        assert op.get("summary") and op.get("description"), path
        assert op.get("tags") and set(op["tags"]) <= declared, path


# ------------------------------------------------------------------------- parameters


@pytest.mark.parametrize("path", sorted(PARAMETERS))
def test_parameter_set_per_operation(raw, path):
    assert set(parameters(raw, path)) == PARAMETERS[path]


@pytest.mark.parametrize("path", sorted(PARAMETERS))
def test_query_parameters_use_form_style_and_path_parameters_are_required(raw, path):
    for (name, location), param in parameters(raw, path).items():
        if location == Q:
            expected = "deepObject" if name == "oppervlakte" else "form"
            assert param.get("style") == expected, (path, name)
        if location == P:
            assert param["required"] is True, (path, name)


def test_paging_limits(raw):
    for path in ("/adresseerbareobjecten", "/adressen", "/adressen/zoek", "/adressenuitgebreid"):
        page = param_schema(raw, path, "page")
        assert (page["type"], page["minimum"], page["default"]) == ("integer", 1, 1)
        size = param_schema(raw, path, "pageSize")
        assert (size["type"], size["minimum"], size["maximum"], size["default"]) == ("integer", 10, 100, 20)


def test_huisnummer_and_address_parts(raw):
    for path in ("/adressen", "/adressenuitgebreid"):
        number = param_schema(raw, path, "huisnummer")
        assert (number["type"], number["minimum"], number["maximum"]) == ("integer", 1, 99999)
        assert param_schema(raw, path, "postcode")["pattern"] == r"^[1-9]{1}[0-9]{3}[ ]{0,1}[a-zA-Z]{2}$"
        assert param_schema(raw, path, "huisnummertoevoeging")["pattern"] == r"^[0-9a-zA-Z]{1,4}$"
        assert param_schema(raw, path, "huisletter")["pattern"] == r"^[a-zA-Z]{1}$"
        for name in ("woonplaatsNaam", "openbareRuimteNaam"):
            s = param_schema(raw, path, name)
            assert (s["type"], s["minLength"], s["maxLength"]) == ("string", 1, 80), name
        q = param_schema(raw, path, "q")
        assert (q["minLength"], q["maxLength"]) == (1, 255)
        for flag in ("exacteMatch", "inclusiefEindStatus"):
            assert param_schema(raw, path, flag) == {"type": "boolean", "default": False}


def test_postcode_pattern_accepts_the_optional_space():
    pattern = re.compile(r"^[1-9]{1}[0-9]{3}[ ]{0,1}[a-zA-Z]{2}$")
    assert pattern.match("2631CR") and pattern.match("2631 cr")
    assert not pattern.match("0631CR") and not pattern.match("2631  CR")


def test_search_term_lengths(raw):
    zoek = parameters(raw, "/adressen/zoek")[("zoek", Q)]
    assert zoek["required"] is True
    assert (deref(raw, zoek["schema"])["minLength"], deref(raw, zoek["schema"])["maxLength"]) == (1, 255)
    result_id = param_schema(raw, "/adressen", "zoekresultaatIdentificatie")
    assert (result_id["minLength"], result_id["maxLength"]) == (1, 255)


def test_bbox_is_four_numbers_form_not_exploded(raw):
    param = parameters(raw, "/adresseerbareobjecten")[("bbox", Q)]
    assert (param["style"], param["explode"]) == ("form", False)
    schema = deref(raw, param["schema"])
    assert schema["type"] == "array" and schema["items"] == {"type": "number"}
    assert (schema["minItems"], schema["maxItems"]) == (4, 4)


def test_oppervlakte_is_a_deep_object_with_bounded_members(raw):
    param = parameters(raw, "/adresseerbareobjecten")[("oppervlakte", Q)]
    assert (param["style"], param["explode"]) == ("deepObject", True)
    schema = deref(raw, param["schema"])
    assert schema["type"] == "object" and set(schema["properties"]) == {"min", "max"}
    for member in ("min", "max"):
        bound = deref(raw, schema["properties"][member])
        assert (bound["type"], bound["minimum"], bound["maximum"]) == ("integer", 1, 999999)


def test_array_parameters(raw):
    for name, item_ref in (("gebruiksdoelen", "Gebruiksdoel"), ("pandIdentificaties", "PandIdentificatie")):
        param = parameters(raw, "/adresseerbareobjecten")[(name, Q)]
        assert (param["style"], param["explode"]) == ("form", False), name
        schema = deref(raw, param["schema"])
        assert schema["type"] == "array" and schema["minItems"] == 1, name
        assert schema["items"] == {"$ref": f"#/components/schemas/{item_ref}"}, name


def test_enumerations(raw):
    assert param_schema(raw, "/adresseerbareobjecten", "type")["enum"] == [
        "ligplaats",
        "standplaats",
        "verblijfsobject",
    ]
    gebruiksdoel = deref(raw, {"$ref": "#/components/schemas/Gebruiksdoel"})
    assert len(gebruiksdoel["enum"]) == 11
    assert "woonfunctie" in gebruiksdoel["enum"] and "overige gebruiksfunctie" in gebruiksdoel["enum"]


def test_crs_headers(raw):
    for path, params in PARAMETERS.items():
        if ("Accept-Crs", H) in params:
            accept = parameters(raw, path)[("Accept-Crs", H)]
            assert accept.get("deprecated") is True, path
            assert deref(raw, accept["schema"])["enum"] == ["epsg:28992"], path
    content = parameters(raw, "/adresseerbareobjecten")[("Content-Crs", H)]
    assert not content.get("deprecated")
    assert deref(raw, content["schema"])["enum"] == ["epsg:28992"]


def test_time_travel_parameters(raw):
    path = "/adresseerbareobjecten"
    assert param_schema(raw, path, "geldigOp") == {"type": "string", "format": "date"}
    moment = param_schema(raw, path, "beschikbaarOp")
    assert moment["type"] == "string" and "format" not in moment
    pattern = re.compile(moment["pattern"])
    for ok in (
        "2019-06-01T12:30",
        "2019-06-01T12:30:15",
        "2019-06-01T12:30:15.123",
        "2019-06-01T12:30:15.12345",
    ):
        assert pattern.match(ok), ok
    for bad in (
        "2019-06-01",
        "23-04-2019T00:00:00",
        "2019-06-01T12:30:15Z",
        "2019-13-01T12:30",
        "0000-01-01T00:00",
        "2019-04-31T00:00",
        "2019-02-30T00:00",
        "2019-06-01T24:00",
    ):
        assert not pattern.match(bad), bad


def test_identifier_patterns(raw):
    cases = {
        "NummeraanduidingIdentificatie": ("0226200000038923", "0226010000038820"),
        "AdresseerbaarObjectIdentificatie": ("0797030000056834", "0226100000008856"),
        "PandIdentificatie": ("0226100000008856", "022610000000885"),
        "OpenbareRuimteIdentificatie": ("0226300000136124", "0226200000038923"),
        "WoonplaatsIdentificatie": ("2096", "0000"),
        "ObjectIdentificatie": ("0001", "0226400000000001"),
    }
    for name, (good, bad) in cases.items():
        v = validator(raw, name)
        assert v.is_valid(good), name
        assert not v.is_valid(bad), name


@pytest.mark.parametrize("path", [p for p in OPERATIONS if "{" in p])
def test_path_parameters_reject_empty_and_slash(raw, path):
    for (name, location), param in parameters(raw, path).items():
        if location != P:
            continue
        pattern = re.compile(deref(raw, param["schema"])["pattern"])
        assert not pattern.search(""), name
        assert not pattern.search("/"), name
        assert not pattern.search("0226200000038923/"), name


def test_expand_values(raw):
    ao = re.compile(
        param_schema(raw, "/adresseerbareobjecten/{adresseerbaarObjectIdentificatie}", "expand")["pattern"]
    )
    for ok in ("true", "heeftAlsHoofdAdres", "heeftAlsHoofdAdres,heeftAlsNevenAdres,maaktDeelUitVan"):
        assert ao.match(ok), ok
    for bad in ("", "adressen", "bestaatniet", "heeftAlsHoofdAdres,"):
        assert not ao.match(bad), bad
    adres = re.compile(param_schema(raw, "/adressen", "expand")["pattern"])
    assert adres.match("nummeraanduiding,openbareRuimte,woonplaats,adresseerbaarObject,panden")
    assert adres.match("openbareRuimte.naam")
    assert not adres.match("heeftAlsHoofdAdres")
    assert ("expand", Q) not in PARAMETERS["/adressenuitgebreid"]


def test_bronhouders_object_identificatie_is_required(raw):
    param = parameters(raw, "/bronhouders")[("objectIdentificatie", Q)]
    assert param["required"] is True


# ------------------------------------------------------------------ responses and statuses


@pytest.mark.parametrize("path", sorted(SEED_STATUSES))
def test_error_statuses_per_endpoint_equal_the_seed(raw, path):
    described = set(operation(raw, path)["responses"]) - {"200"}
    assert described - PUBLIC_ADDITIONS.get(path, set()) == SEED_STATUSES[path]
    assert "default" not in described and "405" not in described


def test_bronhouders_statuses_follow_the_other_lookups(raw):
    # Not in the seed's table; the statuses of the other lookup endpoints (with 404).
    assert set(operation(raw, "/bronhouders")["responses"]) == {"200"} | _WITH_404


def test_public_additions_say_where_they_come_from(raw):
    not_found = responses(raw, "/adressenuitgebreid/{nummeraanduidingIdentificatie}")["404"]
    assert "seed does not list" in not_found["description"] and "4.13" in not_found["description"]
    unsupported = responses(raw, "/adresseerbareobjecten")["415"]
    assert "public behaviour" in unsupported["description"] and "4.12" in unsupported["description"]


@pytest.mark.parametrize("path", sorted(OPERATIONS))
def test_media_types_and_error_schemas(raw, path):
    for code, response in responses(raw, path).items():
        content = response["content"]
        if code == "200":
            assert list(content) == ["application/hal+json"]
            continue
        assert list(content) == ["application/problem+json"], code
        expected = "ExtendedProblemDetails" if code == "429" else "Error"
        assert content["application/problem+json"]["schema"] == {"$ref": f"#/components/schemas/{expected}"}


@pytest.mark.parametrize("path", sorted(OPERATIONS))
def test_api_version_header_on_every_response_except_429(raw, path):
    for code, response in responses(raw, path).items():
        headers = headers_of(raw, response)
        if code == "429":
            assert "api-version" not in headers
        else:
            assert headers["api-version"]["required"] is True, code


@pytest.mark.parametrize("path", sorted(OPERATIONS))
def test_other_response_headers(raw, path):
    resp = responses(raw, path)
    ok = headers_of(raw, resp["200"])
    assert ok["warning"]["required"] is False
    assert set(ok) >= RATE_LIMIT_HEADERS
    too_many = headers_of(raw, resp["429"])
    assert set(too_many) == RATE_LIMIT_HEADERS
    for name in RATE_LIMIT_HEADERS:
        assert ok[name]["required"] is True and too_many[name]["required"] is True
    pagination = {"X-Pagination-Page", "X-Pagination-Limit"}
    if path in PAGINATED_200:
        assert all(ok[name]["required"] is True for name in pagination)
    else:
        assert not pagination & set(ok)
    if path == "/adresseerbareobjecten":
        assert ok["Content-Crs"]["required"] is True
        assert ok["Content-Crs"]["schema"]["enum"] == ["epsg:28992"]
    else:
        assert "Content-Crs" not in ok
    if "406" in resp:
        accept_crs = headers_of(raw, resp["406"])["acceptCrs"]
        assert accept_crs["required"] is True and accept_crs["schema"]["enum"] == ["epsg:28992"]
    retry_after = headers_of(raw, resp["503"])["Retry-After"]
    assert retry_after["required"] is False
    assert re.match(retry_after["schema"]["pattern"], "Sun, 28 Nov 2017 16:41:41 GMT")


def test_reusable_components(raw):
    for path in OPERATIONS:
        for code, response in operation(raw, path)["responses"].items():
            if code != "200":
                assert "$ref" in response, (path, code)
            for header in response.get("headers", {}).values():
                assert "$ref" in header, (path, code)


def test_security_scheme_applied_globally(raw):
    assert raw["components"]["securitySchemes"]["apiKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Api-Key",
        "description": raw["components"]["securitySchemes"]["apiKey"]["description"],
    }
    assert raw["security"] == [{"apiKey": []}]
    for path in OPERATIONS:
        assert "security" not in operation(raw, path)
        assert {"401", "403"} <= set(operation(raw, path)["responses"])


def test_deprecations(raw):
    assert operation(raw, "/adressen/zoek").get("deprecated") is True
    for path in OPERATIONS:
        if path != "/adressen/zoek":
            assert not operation(raw, path).get("deprecated"), path


# ---------------------------------------------------------------------- response schemas


def test_response_schemas_stay_open(raw):
    # Only the request-side OppervlakteFilter may close its members.
    for trail, node in walk(raw["components"]["schemas"]):
        if isinstance(node, dict) and node.get("additionalProperties") is False:
            assert trail[0] == "OppervlakteFilter", trail


def test_no_archive_typo_and_no_offset_timestamps(raw):
    for trail, node in walk(raw):
        assert "kortNaam" not in trail
        if isinstance(node, dict):
            assert node.get("format") != "date-time", trail
            required = node.get("required")  # a bool on parameters and headers
            assert not isinstance(required, list) or "kortNaam" not in required, trail


def test_addressable_object_is_exactly_one_kind(raw):
    v = validator(raw, "AdresseerbaarObjectIOHal")
    links = {"self": {"href": "https://x/verblijfsobjecten/0226010000038820"}}
    vbo = {
        "verblijfsobject": {"identificatie": "0226010000038820", "type": "Verblijfsobject"},
        "_links": links,
    }
    lig = {"ligplaats": {"identificatie": "0797020000056894"}, "_links": links}
    assert v.is_valid({"verblijfsobject": vbo})
    assert v.is_valid({"ligplaats": lig, "onbekendVeld": 1})
    assert not v.is_valid({"verblijfsobject": vbo, "ligplaats": lig})
    assert not v.is_valid({})
    assert not v.is_valid({"verblijfsobject": {**vbo, "_links": {}}})


def test_address_collection_shape(raw):
    v = validator(raw, "AdresIOHalCollection")
    address = {
        "openbareRuimteNaam": "Laan van Westenenk",
        "korteNaam": "Laan v Westenenk",
        "huisnummer": 701,
        "postcode": "7334DP",
        "woonplaatsNaam": "Apeldoorn",
        "nummeraanduidingIdentificatie": "0200200000075716",
        "openbareRuimteIdentificatie": "0200300022472362",
        "woonplaatsIdentificatie": "3560",
        "adresseerbaarObjectIdentificatie": "0200010000130331",
        "pandIdentificaties": ["0200100000085932"],
        "adresregel5": "Laan v Westenenk 701",
        "_links": {"self": {"href": "https://x/adressen/0200200000075716"}},
    }
    assert v.is_valid(
        {"_links": {"self": {"href": "https://x/adressen?q=a"}}, "_embedded": {"adressen": [address]}}
    )
    assert v.is_valid({"_links": {"self": {"href": "https://x/adressen?q=a"}}})
    assert not v.is_valid({"_embedded": {"adressen": [address]}})
    assert not v.is_valid({"_links": {"self": {}}})
    broken = {**address, "nummeraanduidingIdentificatie": "0200010000130331"}
    assert not v.is_valid({"_links": {"self": {"href": "h"}}, "_embedded": {"adressen": [broken]}})


def test_error_schemas(raw):
    error = {
        "status": 400,
        "title": "Een of meerdere parameters zijn niet correct.",
        "type": "https://example.org/problems/400",
        "detail": "The request could not be understood.",
        "instance": "/adressen?postcode=1234aa&huisnummer=a",
        "code": "paramsValidation",
        "invalid-params": [
            {
                "type": "https://example.org/validaties/integer",
                "name": "huisnummer",
                "code": "integer",
                "reason": "x",
            }
        ],
    }
    assert validator(raw, "Error").is_valid(error)
    assert not validator(raw, "Error").is_valid({**error, "status": "400"})
    assert not validator(raw, "Error").is_valid({k: v for k, v in error.items() if k != "code"})
    extended = deref(raw, {"$ref": "#/components/schemas/ExtendedProblemDetails"})
    assert {"$ref": "#/components/schemas/Error"} in extended["allOf"]
    assert validator(raw, "ExtendedProblemDetails").is_valid({**error, "status": 429, "extra": True})


# ---------------------------------------------------------------------------- links


def _pointer_exists(raw: dict[str, Any], schema: Any, parts: list[str]) -> bool:
    schema = deref(raw, schema)
    if not parts:
        return True
    for key in ("allOf", "oneOf", "anyOf"):
        for sub in schema.get(key, []):
            if _pointer_exists(raw, sub, parts):
                return True
    head, rest = parts[0], parts[1:]
    if head.isdigit() and schema.get("type") == "array":
        return _pointer_exists(raw, schema["items"], rest)
    if head in schema.get("properties", {}):
        return _pointer_exists(raw, schema["properties"][head], rest)
    return False


def test_links_resolve_to_existing_operations(raw):
    by_id = {op_id: path for path, op_id in OPERATIONS.items()}
    seen = set()
    for path in OPERATIONS:
        for response in responses(raw, path).values():
            for name, link in response.get("links", {}).items():
                target = link["operationId"]
                assert target in by_id, (path, name)
                target_params = {n for n, _ in PARAMETERS[by_id[target]]}
                source_schema = response["content"]["application/hal+json"]["schema"]
                for param, expression in link["parameters"].items():
                    assert param.split(".")[-1] in target_params, (path, name, param)
                    if expression.startswith("$response.body#/"):
                        pointer = expression.removeprefix("$response.body#/").split("/")
                        assert _pointer_exists(raw, source_schema, pointer), (path, name, expression)
                    else:
                        assert expression.startswith("$request.path."), expression
                        assert (expression.removeprefix("$request.path."), P) in PARAMETERS[path]
                seen.add((operation(raw, path)["operationId"], target, tuple(link["parameters"])))
    # The chain search -> address -> addressable object -> lifecycle / building.
    assert ("zoek", "bevraagAdressen", ("zoekresultaatIdentificatie",)) in seen
    assert ("bevraagAdressen", "bevraagAdressenMetNumId", ("nummeraanduidingIdentificatie",)) in seen
    assert ("bevraagAdressen", "bevragenAdresseerbaarObject", ("adresseerbaarObjectIdentificatie",)) in seen
    assert ("bevraagAdressen", "bevraagAdressen", ("pandIdentificatie",)) in seen
    assert (
        "bevragenAdresseerbaarObject",
        "bevragenAdresseerbaarObjectLvc",
        ("adresseerbaarObjectIdentificatie",),
    ) in seen


def test_schemathesis_turns_every_link_into_a_stateful_transition(st_schema, raw):
    state_machine = st_schema.as_state_machine()
    link_names = {
        name
        for path in OPERATIONS
        for response in responses(raw, path).values()
        for name in response.get("links", {})
    }
    transitions = [attr for attr in dir(state_machine) if "___200_" in attr]
    assert len(transitions) == sum(
        len(response.get("links", {})) for path in OPERATIONS for response in responses(raw, path).values()
    )
    for name in link_names:
        assert any(f"_200_{name}__" in attr for attr in transitions), name


# --------------------------------------------------------------------------- spectral


def test_spectral_reports_no_errors():
    if not SPECTRAL.exists():
        pytest.skip(
            "spectral is not installed (tools/node_modules/.bin/spectral); CI installs it with npm ci in tools/"
        )
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH, so spectral cannot run")
    env = {**os.environ, "SCARF_ANALYTICS": "false"}
    proc = subprocess.run(
        [
            str(SPECTRAL),
            "lint",
            str(SPEC_PATH),
            "--ruleset",
            str(RULESET_PATH),
            "--format",
            "json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    results = json.loads(proc.stdout or "[]")
    errors = [r for r in results if r.get("severity") == 0]
    assert errors == [], json.dumps(errors, indent=2)
