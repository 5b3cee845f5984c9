"""Shared boolean and time-travel parameters (seed part 4 "Shared parameters"; bag-api.md 4.4, 4.7)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from conformance.checks.address import general as g
from conformance.checks.address import problem
from conformance.checks.address.control import Req, refused_vs_control
from conformance.checks.registry import MUST, SHOULD, check


def _object(address_api) -> str:
    return f"/adresseerbareobjecten/{address_api.sample('verblijfsobject')}"


def _address_query(address_api) -> dict[str, str]:
    data = g.sample_address(address_api)
    return {"postcode": data["postcode"], "huisnummer": str(data["huisnummer"])}


# Every boolean of seed part 4: the shared ones and those of one operation (geconstateerd of
# /adresseerbareobjecten with its bbox, geheleLvc of /lvc).
BOOLEANS = {
    "huidig": lambda api: (_object(api), {}),
    "inclusiefEindStatus": lambda api: (f"/adressen/{api.sample('nummeraanduiding')}", {}),
    "exacteMatch": lambda api: ("/adressen", _address_query(api)),
    "geconstateerd": lambda api: ("/adresseerbareobjecten", {"bbox": api.sample("bbox")}),
    "geheleLvc": lambda api: (f"{_object(api)}/lvc", {}),
}


@check("address.params.boolean_values_validated", MUST, "huidig, inclusiefEindStatus, exacteMatch, geconstateerd and geheleLvc other than a boolean: 400",
       requirements=["ADDR-4.huidig", "ADDR-4.inclusiefEindStatus", "ADDR-4.exacteMatch",
                     "ADDR-4.adresseerbareobjecten.geconstateerd", "ADDR-4.lvc.geheleLvc"],
       proven_by=["address.boolean_not_validated", "address.object_booleans_not_validated"],
       sends=["refused"],
       feature="part 4 / shared parameters")
@pytest.mark.parametrize("value", ["ja", "2"])
@pytest.mark.parametrize("name", list(BOOLEANS))
def test_boolean_values_validated(address_api, name, value):
    control = Req.of(*BOOLEANS[name](address_api)).with_param(name, "false")
    refused_vs_control(address_api, control, control.with_param(name, value), rule=f"{name}={value}",
                       statuses=(400,), names=name)


@check("address.params.geldig_op_malformed_rejected", MUST, "A malformed geldigOp is answered 400 naming geldigOp",
       requirements=["ADDR-4.geldigOp", "ADDR-2.invalid-params"],
       proven_by=["address.server_error_on_malformed_date", "address.invalid_params_without_name", "address.invalid_params_missing"],
       sends=["refused"],
       feature="part 4 / shared parameters")
@pytest.mark.parametrize("value", ["23-04-2019", "2019-02-30", "2019-13-01", "20190423", "2019-4-23"])
def test_geldig_op_malformed_rejected(address_api, value):
    control = Req.of(_object(address_api), {"geldigOp": date.today().isoformat()})
    ex = refused_vs_control(address_api, control, control.with_param("geldigOp", value), rule=f"geldigOp={value}",
                            statuses=(400,), names="geldigOp")
    problem.names_invalid_param(ex, "geldigOp")


def _yesterday_noon() -> str:
    """A moment after the sample objects were registered, in the seed's full form."""
    return (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT12:00:00.000")


# Forms of one moment (seed part 4: seconds and milliseconds may be omitted; more than 3
# fractional digits are cut to 3).
FORMS = {
    "full": lambda full: full,
    "without-seconds": lambda full: full[:16],
    "without-milliseconds": lambda full: full[:19],
    "six-fractional-digits": lambda full: full + "999",
}


@check("address.params.beschikbaar_op_forms_accepted", MUST, "beschikbaarOp is served in full, without seconds, without milliseconds and with more than 3 digits",
       requirements=["ADDR-4.beschikbaarOp"],
       proven_by=["address.beschikbaarop_short_form_rejected", "address.time_travel_forbidden"],
       feature="part 4 / shared parameters")
@pytest.mark.parametrize("form", list(FORMS))
def test_beschikbaar_op_forms_accepted(address_api, form):
    value = FORMS[form](_yesterday_noon())
    g.expect_status(address_api.get(_object(address_api), params={"beschikbaarOp": value}), 200)


def _registration_moments(address_api, object_id: str) -> list[str]:
    """The latest registration instants (tijdstipRegistratie and -LV) of the object's life
    cycle: just around them the answer changes, so a server that reads an omitted part
    of the moment wrongly answers differently."""
    ex = address_api.get(f"/adresseerbareobjecten/{object_id}/lvc")
    g.expect_status(ex, 200)
    latest = {max(found) for key in ("tijdstipRegistratie", "tijdstipRegistratieLV")
              if (found := g.date_times(ex.json, (key,)))}
    return sorted(latest) or [_yesterday_noon()]


def _one_ms_before(moment: str) -> str:
    earlier = datetime.fromisoformat(moment) - timedelta(milliseconds=1)
    return earlier.isoformat(timespec="milliseconds")


# A form of a moment and the full form it stands for (seed part 4): omitted seconds and
# milliseconds are zero, digits after the third are cut (not rounded).
EQUIVALENT = {
    "without-seconds": lambda t: (t[:16], t[:16] + ":00.000"),
    "without-milliseconds": lambda t: (t[:19], t[:19] + ".000"),
    "six-fractional-digits": lambda t: (_one_ms_before(t) + "999", _one_ms_before(t)),
}


@check("address.params.beschikbaar_op_forms_equivalent", MUST, "Equivalent beschikbaarOp forms give the same result",
       requirements=["ADDR-4.beschikbaarOp"],
       proven_by=["address.beschikbaarop_short_form_rejected", "address.beschikbaarop_short_form_misread"],
       may_fail_under=["address.time_travel_forbidden"],
       feature="part 4 / shared parameters")
@pytest.mark.parametrize("form", list(EQUIVALENT))
def test_beschikbaar_op_forms_equivalent(address_api, form):
    object_id = address_api.sample("adresseerbaarobject_historie")
    path = f"/adresseerbareobjecten/{object_id}"
    for moment in _registration_moments(address_api, object_id):
        short, full = EQUIVALENT[form](moment)
        g.same_data(address_api.get(path, params={"beschikbaarOp": full}),
                    address_api.get(path, params={"beschikbaarOp": short}))


@check("address.params.beschikbaar_op_malformed_rejected", MUST, "A malformed beschikbaarOp is answered 400",
       requirements=["ADDR-4.beschikbaarOp"],
       proven_by=["address.beschikbaarop_not_validated"],
       sends=["refused"],
       feature="part 4 / shared parameters")
@pytest.mark.parametrize("value", ["23-04-2019T12:00:00", "2019-04-23T25:00:00", "2019-02-30T12:00:00",
                                   "2019-04-23T12:00:00.abc", "morgen"])
def test_beschikbaar_op_malformed_rejected(address_api, value):
    control = Req.of(_object(address_api), {"beschikbaarOp": _yesterday_noon()})
    refused_vs_control(address_api, control, control.with_param("beschikbaarOp", value),
                       rule=f"beschikbaarOp={value}", statuses=(400,), names="beschikbaarOp")


@check("address.params.huidig_with_time_travel_rejected", SHOULD, "huidig=true with geldigOp or beschikbaarOp is answered 400",
       requirements=["BAGREF-4.4"],
       proven_by=["address.unsupported_combination_accepted"],
       sends=["refused"],
       feature="part 4 / shared parameters")
@pytest.mark.parametrize("travel", ["geldigOp", "beschikbaarOp"])
def test_huidig_with_time_travel_rejected(address_api, travel):
    # The time travel alone is the control; huidig=true is the one change. No single
    # parameter is at fault, so an invalid-params list may be empty, or name either.
    moment = _yesterday_noon()
    control = Req.of(_object(address_api), {"huidig": "false", travel: moment[:10] if travel == "geldigOp" else moment})
    refused_vs_control(address_api, control, control.with_param("huidig", "true"), rule=f"huidig=true with {travel}",
                       statuses=(400,), names=("huidig", travel))
