"""Problem details and error codes (seed parts 2 and 7; bag-api.md 5.6)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import problem
from conformance.checks.address.control import CLIENT_ERROR, Req, control_served, refused_vs_control
from conformance.checks.registry import MUST, OBSERVATION, SHOULD, check
from conformance.findings import expect


def _error_cases():
    return [pytest.param(name, id=name) for name in g.ERROR_CASES]


def _error(address_api, name: str):
    return g.ERROR_CASES[name].error_response(address_api)


def _sample_address_query(address_api) -> Req:
    data = g.sample_address(address_api)
    return Req.of("/adressen", {"postcode": data["postcode"], "huisnummer": str(data["huisnummer"])})


# (control, the faulty parameter, its faulty value): only that parameter's value changes.
INVALID_PARAMS = {
    "huisnummer": lambda api: (_sample_address_query(api), "abc"),
    "pageSize": lambda api: (Req.of("/adresseerbareobjecten", {"pandIdentificaties": api.sample("pand"),
                                                               "pageSize": "10"}), "5"),
    "huidig": lambda api: (Req.of(f"/adresseerbareobjecten/{api.sample('verblijfsobject')}", {"huidig": "true"}), "ja"),
}


@check("address.errors.invalid_params_name_parameter", MUST, "A 400 for a faulty parameter lists it in invalid-params, each item with type, name, code and reason",
       requirements=["ADDR-2.invalid-params", "ADDR-7.400"],
       proven_by=["address.invalid_params_without_name", "address.invalid_params_missing"],
       may_fail_under=["address.page_size_minimum_not_enforced", "address.boolean_not_validated"],
       sends=["refused"],
       feature="part 2, 7 / errors")
@pytest.mark.parametrize("name", list(INVALID_PARAMS))
def test_invalid_params_name_parameter(address_api, name):
    control, value = INVALID_PARAMS[name](address_api)
    ex = refused_vs_control(address_api, control, control.with_param(name, value), rule=f"{name}={value!r}",
                            statuses=(400,))
    problem.names_invalid_param(ex, name)


# Requests without their required or identifying parameter (seed part 7: "400 | paramsRequired
# | no required/identifying parameter given; invalid-params lists faulty parameters"): (control,
# the request without it, the parameter it lacks where the seed names one as required).
PARAMS_REQUIRED = {
    "adressen-no-query-kind": lambda api: (_sample_address_query(api), Req.of("/adressen"), None),
    "adresseerbareobjecten-no-query-kind": lambda api: (
        Req.of("/adresseerbareobjecten", {"pandIdentificaties": api.sample("pand")}), Req.of("/adresseerbareobjecten"),
        None),
    "zoek-without-zoek": lambda api: (
        Req.of("/adressen/zoek", {"zoek": g.sample_address(api)["postcode"]}), Req.of("/adressen/zoek"), "zoek"),
}


@check("address.errors.params_required_invalid_params", MUST, "A 400 for a request without its required or identifying parameter carries invalid-params (items with type, name, code and reason), naming the required parameter it lacks",
       requirements=["ADDR-7.400", "ADDR-2.invalid-params"],
       proven_by=["address.params_required_without_invalid_params", "address.invalid_params_missing",
                  "address.invalid_params_without_name"],
       may_fail_under=["address.required_params_not_enforced"],
       sends=["refused"],
       feature="part 2, 7 / errors")
@pytest.mark.parametrize("case", list(PARAMS_REQUIRED))
def test_params_required_invalid_params(address_api, case):
    """Seed part 2: invalid-params is an "array of objects, on 400"; part 7 gives the 400 of a
    missing required or identifying parameter "invalid-params lists faulty parameters". Where no
    single parameter is missing (any of several query kinds would do) the list may be empty;
    where the seed names the parameter required (`zoek`), the list names it."""
    control, changed, required = PARAMS_REQUIRED[case](address_api)
    ex = refused_vs_control(address_api, control, changed, rule="no required or identifying parameter given",
                            statuses=(400,), names=required or ())
    problem.invalid_params(ex)
    if required:
        problem.names_invalid_param(ex, required)


@check("address.errors.instance_names_request", MUST, "The problem instance names the request that failed: its path and query (relative or absolute)",
       requirements=["ADDR-2.instance", "BAGREF-5.6"],
       proven_by=["address.problem_instance_without_query", "address.problem_instance_constant"],
       may_fail_under=g.ERROR_CASE_COLLATERAL,
       sends=["valid", "refused"],
       feature="part 2, 7 / errors")
@pytest.mark.parametrize("case", _error_cases())
def test_instance_names_request(address_api, case):
    g.instance_names_request(_error(address_api, case))


# Inputs no parameter rule admits; the server must refuse them as the client's error.
# Each is (path, faulty query, the valid query it changes): the valid one is the control.
_VBO = "/adresseerbareobjecten/{verblijfsobject}"
_PC = "postcode={postcode}&huisnummer={huisnummer}"
MALFORMED = {
    "date-day-out-of-range": (_VBO, "geldigOp=2019-02-30", "geldigOp={today}"),
    "date-five-digit-year": (_VBO, "geldigOp=99999-01-01", "geldigOp={today}"),
    "date-fullwidth-digits": (_VBO, "geldigOp=%EF%BC%92%EF%BC%90%EF%BC%91%EF%BC%99-01-01", "geldigOp={today}"),
    "timestamp-out-of-range": (_VBO, "beschikbaarOp=2019-01-01T24:61:61.9999999999", "beschikbaarOp={moment}"),
    "boolean-emoji": (_VBO, "huidig=%F0%9F%98%80", "huidig=false"),
    "path-id-nul": (_VBO + "%00", "", ""),
    "huisnummer-huge": ("/adressen", "postcode={postcode}&huisnummer=" + "9" * 400, _PC),
    "huisnummer-arabic-indic": ("/adressen", "postcode={postcode}&huisnummer=%D9%A1%D9%A2", _PC),
    "postcode-invalid-utf8": ("/adressen", "postcode=%FF%FE&huisnummer={huisnummer}", _PC),
    "postcode-fullwidth": ("/adressen", "postcode=%EF%BC%91%EF%BC%92%EF%BC%93%EF%BC%94AB&huisnummer={huisnummer}", _PC),
    "page-huge-negative": ("/adressen", "pandIdentificatie={pand}&page=-" + "9" * 30, "pandIdentificatie={pand}&page=1"),
    "pagesize-float": ("/adressen", "pandIdentificatie={pand}&pageSize=1e3", "pandIdentificatie={pand}&pageSize=10"),
    "bbox-overflow": ("/adresseerbareobjecten", "bbox=1e308,1e308,-1e308,-1e308", "bbox={bbox}"),
    "bbox-nan": ("/adresseerbareobjecten", "bbox=NaN,NaN,NaN,NaN", "bbox={bbox}"),
}


def _target(path: str, query: str, values: dict[str, str]) -> str:
    return path.format(**values) + ("?" + query.format(**values) if query else "")


@check("address.errors.malformed_input_is_client_error", MUST, "Malformed input (bad dates, huge numbers, non-ASCII digits, bad encoding) is a 4xx problem+json, never a 5xx",
       requirements=["ADDR-7.400", "ADDR-7.500", "ADDR-1.media-type"],
       proven_by=["address.server_error_on_malformed_date"],
       may_fail_under=["address.problem_as_plain_json", "address.huisnummer_limits_not_enforced", "address.page_minimum_not_enforced", "address.postcode_pattern_not_enforced", "address.bbox_area_not_enforced", "address.boolean_not_validated", "address.beschikbaarop_not_validated"],
       sends=["refused"],
       feature="part 2, 7 / errors")
@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_input_is_client_error(address_api, case):
    control, changed = _malformed(address_api, MALFORMED[case])
    ex = refused_vs_control(address_api, control, changed, rule=f"malformed input ({case})", statuses=CLIENT_ERROR)
    problem.is_problem_media_type(ex)


# Values the seed leaves open (issue 51): it gives each parameter's type and rule, not what an
# empty or a repeated value means. Refusing them (400) and reading them (an empty value as
# absent, the first of repeated values) both conform; a 5xx does not.
EMPTY_OR_REPEATED = {
    "date-empty": (_VBO, "geldigOp=", "geldigOp={today}"),
    "boolean-empty": (_VBO, "huidig=", "huidig=false"),
    "huisnummer-repeated": ("/adressen", "postcode={postcode}&huisnummer={huisnummer}&huisnummer=2", _PC),
}


@check("address.errors.empty_or_repeated_value_answered", MUST, "An empty or repeated query value (geldigOp=, huidig=, huisnummer twice) is refused as the client's error (4xx problem+json) or read (200), never a 5xx",
       requirements=["ADDR-7.400", "ADDR-7.500"],
       proven_by=["address.server_error_on_empty_value"],
       may_fail_under=["address.problem_as_plain_json"],
       sends=["refused"],
       feature="part 2, 7 / errors")
@pytest.mark.parametrize("case", list(EMPTY_OR_REPEATED))
def test_empty_or_repeated_value_answered(address_api, case):
    control, changed = _malformed(address_api, EMPTY_OR_REPEATED[case])
    control_served(address_api, control)
    ex = changed.send(address_api)
    expect(ex.status < 500, f"a 5xx for an empty or repeated value ({case})", expected="a 4xx refusal or 200",
           actual=ex.summary())
    if ex.status != 200:
        expect(400 <= ex.status < 500, f"neither refused nor read ({case})", expected="a 4xx refusal or 200",
               actual=ex.summary())
        problem.is_problem_media_type(ex)


@check("address.errors.empty_or_repeated_value_refused", SHOULD, "An empty or repeated query value (geldigOp=, huidig=, huisnummer twice) is refused with 400, as the public API refuses an empty one",
       requirements=["BAGREF-4.3"],
       proven_by=["address.variant.empty_and_repeated_values_read"],
       may_fail_under=["address.problem_as_plain_json", "address.server_error_on_empty_value"],
       sends=["refused"],
       feature="part 2, 7 / errors",
       downgrade_reason="the seed gives each parameter's type and rule, not what an empty or repeated value means; "
                        "bag-api.md 4.3: 'Any other parameter sent without a value gives paramsRequired'")
@pytest.mark.parametrize("case", list(EMPTY_OR_REPEATED))
def test_empty_or_repeated_value_refused(address_api, case):
    control, changed = _malformed(address_api, EMPTY_OR_REPEATED[case])
    refused_vs_control(address_api, control, changed, rule=f"an empty or repeated value ({case})", statuses=(400,))


def _malformed(address_api, case: tuple[str, str, str]) -> tuple[Req, Req]:
    """(the valid request, the one with the case's value) of a MALFORMED-style case."""
    path, query, valid = case
    moment = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT12:00:00.000")
    values = {"today": date.today().isoformat(), "moment": moment}
    for name in ("verblijfsobject", "pand", "bbox"):
        if "{" + name + "}" in path + query + valid:
            values[name] = address_api.sample(name)
    if "{postcode}" in query + valid or "{huisnummer}" in query + valid:
        data = g.sample_address(address_api)
        values.update(postcode=data["postcode"], huisnummer=str(data["huisnummer"]))
    control = Req.of(_target(path.removesuffix("%00"), valid, values))
    return control, control.with_path(_target(path, query, values))


@check("address.errors.precondition_failed_trigger", OBSERVATION, "What a conditional GET with a non-matching If-Match gets: the seed lists 412 but names no precondition",
       requirements=["ADDR-7.412"],
       feature="part 2, 7 / errors",
       downgrade_reason="the row '412 | preconditionFailed | a precondition failed' names no precondition: what triggers 412 is measured, not judged")
def test_precondition_failed_trigger(address_api, observe):
    # The seed lists 412 preconditionFailed for every endpoint but names no precondition; the
    # only one HTTP offers a GET is a conditional header (RFC 9110 13.1.1), so measure that.
    path = f"/adressen/{address_api.sample('nummeraanduiding')}"
    ex = address_api.get(path, headers={"If-Match": '"conformance-no-such-etag"'})
    code = ex.json.get("code") if isinstance(ex.json, dict) else None
    observe({"request": "If-Match with an entity tag the resource cannot have", "status": ex.status, "code": code})
