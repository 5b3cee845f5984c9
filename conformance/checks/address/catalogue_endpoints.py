"""Per-endpoint rules of the address API: query kinds, parameter limits, semantics.

Seed part 4 (endpoints), part 8 (limits), part 1 (huidig, time travel, life cycle) and
part 2 (expand). Tests: suites/address/test_endpoints_*.py; check functions:
conformance/checks/address/endpoints.py.

`proven_by` names the mock faults (conformance/mocks/address/faults.py) under which the
check must fail; `may_fail_under` the faults that break something the check relies on:
identifiers it derives from earlier responses (identifiers_malformed), the problem
members it reads to see why a request was refused (invalid-params, code), a 404 it
expects (not_found_as_200), or a rule of the same endpoint whose request it shares or
whose answer it reads first (e.g. object_wrapper_ambiguous for bbox_results_in_box).
A check that merely starts from a sample object the server renders wrongly (under
identifiers_malformed: another id than the one asked for) is blocked, not failed, so
identifiers_malformed is collateral only of the checks that read ids from searches.
"""

from conformance.checks.registry import Severity, define

SUITE = "address"
MUST, SHOULD, OBSERVATION = Severity.MUST, Severity.SHOULD, Severity.OBSERVATION

F_OBJECTS = "GET /adresseerbareobjecten"
F_OBJECT = "GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}"
F_LVC = "GET /adresseerbareobjecten/{adresseerbaarObjectIdentificatie}/lvc"
F_ADRESSEN = "GET /adressen"
F_ZOEK = "GET /adressen/zoek"
F_ADRES = "GET /adressen/{nummeraanduidingIdentificatie}"
F_UITGEBREID = "GET /adressenuitgebreid"
F_UITGEBREID_ID = "GET /adressenuitgebreid/{nummeraanduidingIdentificatie}"
F_BRONHOUDERS = "GET /bronhouders"

# Collateral (see the module docstring).
IDS = "address.identifiers_malformed"
WHY_400 = ("address.invalid_params_missing", "address.invalid_params_without_name")
CODE = "address.wrong_error_code"
AS_200 = "address.not_found_as_200"


def _check(check_id, title, requirements, severity, feature, proven_by=(), may_fail_under=()):
    return define(
        check_id, title, requirements=requirements, severity=severity, suite=SUITE, feature=feature,
        proven_by=proven_by, may_fail_under=may_fail_under,
    )


# --------------------------------------------------------------------------- /adresseerbareobjecten
_check("address.adresseerbareobjecten.no_parameters_rejected",
       "GET /adresseerbareobjecten without any query parameter is answered 400 paramsRequired",
       ("ADDR-4.adresseerbareobjecten", "ADDR-7.paramsRequired"), MUST, F_OBJECTS,
       ("address.required_params_not_enforced",), (CODE,))
_check("address.adresseerbareobjecten.by_nummeraanduiding",
       "nummeraanduidingIdentificatie finds the object whose main or side address it is, and only such objects",
       ("ADDR-4.adresseerbareobjecten.nummeraanduidingIdentificatie",), MUST, F_OBJECTS,
       ("address.nummeraanduiding_side_address_ignored",), ())
_check("address.adresseerbareobjecten.bbox_results_in_box",
       "A bbox query returns objects, each lying in or touching the box",
       ("ADDR-4.adresseerbareobjecten.bbox",), MUST, F_OBJECTS,
       ("address.bbox_filter_ignored",), (IDS, "address.object_wrapper_ambiguous"))
_check("address.adresseerbareobjecten.exactly_one_type",
       "Each object of a search result is exactly one of ligplaats, standplaats, verblijfsobject",
       ("ADDR-4.adresseerbareobjecten",), MUST, F_OBJECTS,
       ("address.object_wrapper_ambiguous",))
_check("address.adresseerbareobjecten.bbox_area_limit",
       "A bbox of exactly 250000 m2 is accepted and one just above it is refused with 400 naming bbox",
       ("ADDR-4.adresseerbareobjecten.bbox", "ADDR-8.bbox"), MUST, F_OBJECTS,
       ("address.bbox_area_not_enforced",), WHY_400)
_check("address.adresseerbareobjecten.bbox_arity_rejected",
       "A bbox of 3 or 5 numbers, or of non-numbers, is refused with 400 naming bbox",
       ("ADDR-4.adresseerbareobjecten.bbox",), MUST, F_OBJECTS,
       ("address.bbox_arity_not_enforced",), WHY_400)
_check("address.adresseerbareobjecten.bbox_corner_order",
       "What the server does with a bbox given as upper-left, lower-right (the seed orders lower-left, upper-right)",
       ("ADDR-4.adresseerbareobjecten.bbox", "BAGREF-4.8"), OBSERVATION, F_OBJECTS)
_check("address.adresseerbareobjecten.type_filter",
       "bbox with type returns objects of that type only (each type found in the sample box)",
       ("ADDR-4.adresseerbareobjecten.type",), MUST, F_OBJECTS,
       ("address.type_filter_ignored",))
_check("address.adresseerbareobjecten.geconstateerd_filter",
       "bbox with geconstateerd=true returns exactly the box's established objects (geconstateerd J)",
       ("ADDR-4.adresseerbareobjecten.geconstateerd",), MUST, F_OBJECTS,
       ("address.geconstateerd_filter_ignored",),
       (IDS, "address.object_wrapper_ambiguous", "address.bbox_filter_ignored"))  # both searches read the box
_check("address.adresseerbareobjecten.gebruiksdoelen_filter",
       "bbox with gebruiksdoelen returns accommodation objects having at least one of the purposes",
       ("ADDR-4.adresseerbareobjecten.gebruiksdoelen",), MUST, F_OBJECTS,
       ("address.gebruiksdoelen_filter_ignored",), (IDS,))
_check("address.adresseerbareobjecten.oppervlakte_limits",
       "oppervlakte[min] and [max] accept 1 and 999999 and refuse 0 and 1000000 with 400",
       ("ADDR-4.adresseerbareobjecten.oppervlakte", "ADDR-8.oppervlakte"), MUST, F_OBJECTS,
       ("address.oppervlakte_limits_not_enforced",), WHY_400)
_check("address.adresseerbareobjecten.oppervlakte_filter",
       "bbox with oppervlakte returns accommodation objects whose area lies in the range",
       ("ADDR-4.adresseerbareobjecten.oppervlakte",), MUST, F_OBJECTS,
       ("address.oppervlakte_filter_ignored",), (IDS,))
_check("address.adresseerbareobjecten.oppervlakte_excludes_berths_pitches",
       "Berths and pitches are never found with an oppervlakte filter",
       ("ADDR-4.adresseerbareobjecten.oppervlakte",), MUST, F_OBJECTS,
       ("address.oppervlakte_filter_ignored",))
_check("address.adresseerbareobjecten.oppervlakte_min_above_max_rejected",
       "oppervlakte[min] greater than oppervlakte[max] is an error (4xx)",
       ("ADDR-4.adresseerbareobjecten.oppervlakte",), MUST, F_OBJECTS,
       ("address.oppervlakte_range_not_enforced",))
_check("address.adresseerbareobjecten.oppervlakte_min_above_max_response",
       "Status, code and invalid-params of the error for oppervlakte[min] > [max] (not shown in the seed)",
       ("ADDR-4.adresseerbareobjecten.oppervlakte", "ADDR-7", "BAGREF-4.9"), OBSERVATION, F_OBJECTS)
_check("address.adresseerbareobjecten.bbox_filter_without_bbox_rejected",
       "geconstateerd without bbox is no query kind: 400 paramsRequired",
       ("ADDR-4.adresseerbareobjecten", "ADDR-7.paramsRequired"), MUST, F_OBJECTS,
       ("address.required_params_not_enforced",), (CODE,))
_check("address.adresseerbareobjecten.by_pand",
       "pandIdentificaties finds the objects in those buildings, and only those",
       ("ADDR-4.adresseerbareobjecten.pandIdentificaties",), MUST, F_OBJECTS,
       ("address.pand_query_leaks",), ())
_check("address.adresseerbareobjecten.identifier_patterns_rejected",
       "Malformed nummeraanduidingIdentificatie / pandIdentificaties values are refused with 400 naming them",
       ("ADDR-4.adresseerbareobjecten", "BAGREF-2.1", "BAGREF-5.4"), SHOULD, F_OBJECTS,
       ("address.identifier_patterns_not_enforced",), WHY_400)
_check("address.adresseerbareobjecten.huidig",
       "huidig=true leaves out an object with an end status, by each query kind; huidig=false returns it",
       ("ADDR-1.huidig", "ADDR-4.huidig"), MUST, F_OBJECTS,
       ("address.deleted_objects_returned_with_huidig", "address.collection_ignores_huidig"), (IDS,))
# Time travel on the searches (suites/address/test_endpoints_time_travel.py): the sample
# adresseerbaarobject_historie found by each query kind on a date and at a moment it was
# valid / available in an earlier occurrence, and not before its first occurrence.
TRAVEL_COLLATERAL = (IDS, "address.time_travel_forbidden", "address.object_wrapper_ambiguous")
_check("address.adresseerbareobjecten.geldig_op",
       "geldigOp on each query kind finds the object in the occurrence valid that day, and not before its first",
       ("ADDR-1.time-travel", "ADDR-4.geldigOp"), MUST, F_OBJECTS,
       ("address.collection_ignores_geldig_op", "address.time_travel_ignored"), TRAVEL_COLLATERAL)
_check("address.adresseerbareobjecten.beschikbaar_op",
       "beschikbaarOp on each query kind finds the object as registered then, and not before its first registration",
       ("ADDR-1.time-travel", "ADDR-4.beschikbaarOp"), MUST, F_OBJECTS,
       ("address.collection_ignores_beschikbaar_op", "address.time_travel_ignored"), TRAVEL_COLLATERAL)
_check("address.adresseerbareobjecten.expand_embeds",
       "expand (heeftAlsHoofdAdres, heeftAlsNevenAdres, maaktDeelUitVan, lists, true) embeds the named relations",
       ("ADDR-1.expand", "ADDR-2.expand", "ADDR-4.expand"), MUST, F_OBJECTS,
       ("address.expand_ignored",), ())
_check("address.adresseerbareobjecten.expand_unknown_rejected",
       "An expand value that is no relation of an addressable object is refused with 400 naming expand",
       ("ADDR-4.expand", "ADDR-7.400"), MUST, F_OBJECTS,
       ("address.unknown_expand_ignored",), WHY_400)
_check("address.adresseerbareobjecten.expand_empty_rejected",
       "An empty expand value is refused with 400 naming expand",
       ("ADDR-4.expand.empty", "BAGREF-4.3"), SHOULD, F_OBJECTS,
       ("address.unknown_expand_ignored",), WHY_400)

# --------------------------------------------------------------------------- /adresseerbareobjecten/{id}
_check("address.adresseerbaarobject.by_id",
       "Each of a verblijfsobject, ligplaats and standplaats is returned (200) in exactly one wrapper of its type",
       ("ADDR-4.adresseerbareobjecten.id", "ADDR-1.resources"), MUST, F_OBJECT,
       (IDS,))
_check("address.adresseerbaarobject.unknown_not_found",
       "An unknown addressable object id is answered 404 notFound",
       ("ADDR-4.adresseerbareobjecten.id", "ADDR-7.404"), MUST, F_OBJECT,
       (AS_200,), (CODE,))
_check("address.adresseerbaarobject.malformed_id_rejected",
       "A malformed addressable object id is refused with 400 naming the path parameter",
       ("ADDR-4.adresseerbareobjecten.id", "BAGREF-2.1", "BAGREF-8"), SHOULD, F_OBJECT,
       ("address.path_id_pattern_not_enforced",), WHY_400)
_check("address.adresseerbaarobject.geldig_op",
       "geldigOp returns the occurrence valid on that date, earlier than the current one",
       ("ADDR-1.time-travel", "ADDR-4.geldigOp"), MUST, F_OBJECT,
       ("address.time_travel_ignored",), ())
_check("address.adresseerbaarobject.beschikbaar_op",
       "beschikbaarOp before the latest registration returns the occurrence registered then",
       ("ADDR-1.time-travel", "ADDR-4.beschikbaarOp"), MUST, F_OBJECT,
       ("address.time_travel_ignored",), ())
_check("address.adresseerbaarobject.huidig",
       "huidig=true on an object with an end status gives 404; huidig=false returns it",
       ("ADDR-1.huidig", "ADDR-4.huidig", "ADDR-7.404"), MUST, F_OBJECT,
       ("address.deleted_objects_returned_with_huidig",), (AS_200, IDS))
_check("address.adresseerbaarobject.expand_embeds",
       "expand on one object embeds the named relations (true: main address and buildings of a verblijfsobject)",
       ("ADDR-1.expand", "ADDR-2.expand", "ADDR-4.expand"), MUST, F_OBJECT,
       ("address.expand_ignored",), ())

# --------------------------------------------------------------------------- /lvc
_check("address.lvc.gehele_lvc",
       "geheleLvc=false (and its default) returns the valid life cycle; true adds the removed occurrences",
       ("ADDR-1.life-cycle", "ADDR-4.lvc.geheleLvc"), MUST, F_LVC,
       ("address.lifecycle_removed_always_included",))
_check("address.lvc.unknown_not_found",
       "The life cycle of an unknown object is answered 404 notFound",
       ("ADDR-4.lvc", "ADDR-7.404"), MUST, F_LVC,
       (AS_200,), (CODE,))
_check("address.lvc.no_paging_links",
       "A life cycle carries no paging links",
       ("ADDR-4.lvc", "BAGREF-3.4"), SHOULD, F_LVC,
       ("address.lvc_paging_links",))

# --------------------------------------------------------------------------- /adressen
_check("address.adressen.by_postcode_huisnummer",
       "postcode+huisnummer returns the addresses with that postcode and number, the sample among them",
       ("ADDR-4.adressen.postcode",), MUST, F_ADRESSEN,
       ("address.query_filter_ignored",), ())
_check("address.adressen.by_postcode_huisnummer_letter_addition",
       "postcode+huisnummer with huisletter or huisnummertoevoeging returns only addresses having it",
       ("ADDR-4.adressen.postcode",), MUST, F_ADRESSEN,
       ("address.letter_addition_ignored",), ("address.query_filter_ignored",))
_check("address.adressen.by_adresseerbaar_object",
       "adresseerbaarObjectIdentificatie returns the object's main and side addresses, and only its addresses",
       ("ADDR-4.adressen.adresseerbaarObjectIdentificatie",), MUST, F_ADRESSEN,
       ("address.object_query_drops_side_addresses",), ())
_check("address.adressen.by_woonplaats_straat_huisnummer",
       "woonplaatsNaam+openbareRuimteNaam+huisnummer returns matching addresses, the sample among them",
       ("ADDR-4.adressen.woonplaatsNaam",), MUST, F_ADRESSEN,
       ("address.name_query_ignores_street",), ())
_check("address.adressen.by_pand",
       "pandIdentificatie returns the addresses in that building, the verblijfsobject's among them",
       ("ADDR-4.adressen.pandIdentificatie",), MUST, F_ADRESSEN,
       ("address.pand_query_leaks",), ())
_check("address.adressen.by_q",
       "q (postcode and number) finds the address; every result matches a search term",
       ("ADDR-4.adressen.q",), MUST, F_ADRESSEN,
       ("address.q_ignored",), ("address.q_ignores_number",))
_check("address.adressen.by_openbare_ruimte",
       "openbareRuimteIdentificatie returns the addresses on that public space only",
       ("ADDR-4.adressen.openbareRuimteIdentificatie",), MUST, F_ADRESSEN,
       ("address.openbare_ruimte_query_ignored",), ())
_check("address.adressen.postcode_forms_accepted",
       "A postcode with a space and/or in lower case is accepted and finds the same addresses",
       ("ADDR-4.adressen.postcode",), MUST, F_ADRESSEN,
       ("address.postcode_forms_rejected",), ())
_check("address.adressen.postcode_pattern_rejected",
       "A postcode breaking the pattern (leading 0, three letters, two spaces) is refused with 400 naming postcode",
       ("ADDR-4.adressen.postcode",), MUST, F_ADRESSEN,
       ("address.postcode_pattern_not_enforced",), WHY_400)
_check("address.adressen.huisnummer_limits",
       "huisnummer 1 and 99999 are accepted; 0 and 100000 are refused with 400 naming huisnummer",
       ("ADDR-4.adressen.huisnummer", "ADDR-8.huisnummer"), MUST, F_ADRESSEN,
       ("address.huisnummer_limits_not_enforced",), WHY_400)
_check("address.adressen.huisnummertoevoeging_pattern",
       "huisnummertoevoeging of 4 characters is accepted; 5 characters, 'a-b' and '!' are refused with 400",
       ("ADDR-4.adressen.huisnummertoevoeging",), MUST, F_ADRESSEN,
       ("address.letter_addition_patterns_not_enforced", "address.addition_pattern_length_only"), WHY_400)
_check("address.adressen.huisletter_pattern",
       "huisletter of 1 letter is accepted; 2 letters, a digit and '-' are refused with 400",
       ("ADDR-4.adressen.huisletter",), MUST, F_ADRESSEN,
       ("address.letter_addition_patterns_not_enforced", "address.letter_pattern_length_only"), WHY_400)
_check("address.adressen.name_lengths",
       "woonplaatsNaam and openbareRuimteNaam of 80 characters are accepted; 81 and empty are refused with 400",
       ("ADDR-4.adressen.woonplaatsNaam", "ADDR-8.length"), MUST, F_ADRESSEN,
       ("address.length_limits_not_enforced", "address.empty_text_accepted"), WHY_400)
_check("address.adressen.q_length",
       "q of 255 characters is accepted; 256 characters and an empty q are refused with 400",
       ("ADDR-4.adressen.q", "ADDR-8.length"), MUST, F_ADRESSEN,
       ("address.length_limits_not_enforced", "address.empty_text_accepted"), WHY_400)
_check("address.adressen.postcode_without_huisnummer_rejected",
       "postcode without huisnummer is refused with 400",
       ("ADDR-4.adressen.postcode", "ADDR-7.400"), MUST, F_ADRESSEN,
       ("address.combination_not_enforced",))
_check("address.adressen.postcode_without_huisnummer_code",
       "The code of the 400 for postcode without huisnummer (public: paramsCombination)",
       ("ADDR-7", "BAGREF-4.11"), OBSERVATION, F_ADRESSEN)
_check("address.adressen.exacte_match",
       "exacteMatch=true returns only the address without other letter/addition; false also the variants",
       ("ADDR-4.exacteMatch",), MUST, F_ADRESSEN,
       ("address.exacte_match_ignored",), ("address.query_filter_ignored", "address.name_query_ignores_street"))
_check("address.adressen.inclusief_eind_status",
       "An address with an end status is left out by default and returned with inclusiefEindStatus=true",
       ("ADDR-4.inclusiefEindStatus",), MUST, F_ADRESSEN,
       ("address.end_status_addresses_returned",), (AS_200, "address.end_status_flag_ignored"))
_check("address.adressen.expand_embeds",
       "expand (nummeraanduiding, openbareRuimte, woonplaats, adresseerbaarObject, panden, true) embeds them",
       ("ADDR-1.expand", "ADDR-2.expand", "ADDR-4.expand"), MUST, F_ADRESSEN,
       ("address.expand_ignored",), ())
_check("address.adres.expand_field",
       "expand written resource.field (woonplaats.naam) is accepted and embeds that field of the resource",
       ("ADDR-4.expand.field",), MUST, F_ADRES,
       ("address.expand_field_rejected",), ("address.expand_ignored",))
_check("address.adressen.expand_against_relation",
       "What expand does with pandIdentificatie or openbareRuimteIdentificatie (seed: not supported)",
       ("ADDR-4.adressen.pandIdentificatie", "ADDR-4.adressen.openbareRuimteIdentificatie", "BAGREF-4.3"),
       OBSERVATION, F_ADRESSEN)
_check("address.adressen.expand_unknown_rejected",
       "An expand value that is no relation of an address is refused with 400 naming expand",
       ("ADDR-4.expand", "ADDR-7.400"), MUST, F_ADRESSEN,
       ("address.unknown_expand_ignored",), WHY_400)
_check("address.adressen.expand_empty_rejected",
       "An empty expand value on /adressen is refused with 400 naming expand",
       ("ADDR-4.expand.empty", "BAGREF-4.3"), SHOULD, F_ADRESSEN,
       ("address.unknown_expand_ignored",), WHY_400)
_check("address.adressen.zoekresultaat_resolves",
       "A zoekresultaatIdentificatie from /adressen/zoek resolves on /adressen to the address searched for",
       ("ADDR-4.adressen.zoekresultaatIdentificatie", "ADDR-4.zoek"), MUST, F_ADRESSEN,
       ("address.zoek_results_not_resolvable",), ("address.zoek_results_without_identificatie",))
_check("address.adressen.zoekresultaat_length",
       "zoekresultaatIdentificatie of 255 characters is accepted; 256 and an empty one are refused with 400",
       ("ADDR-4.adressen.zoekresultaatIdentificatie", "ADDR-8.length"), MUST, F_ADRESSEN,
       ("address.length_limits_not_enforced", "address.empty_text_accepted"),
       (*WHY_400, "address.zoek_results_not_resolvable"))

# --------------------------------------------------------------------------- /adressen/zoek
_check("address.zoek.zoek_required",
       "GET /adressen/zoek without zoek is refused with 400",
       ("ADDR-4.zoek",), MUST, F_ZOEK,
       ("address.required_params_not_enforced",))
_check("address.zoek.zoek_length",
       "zoek of 1 and 255 characters is accepted; 256 characters and an empty zoek are refused with 400",
       ("ADDR-4.zoek", "ADDR-8.length"), MUST, F_ZOEK,
       ("address.length_limits_not_enforced", "address.empty_text_accepted"), WHY_400)
_check("address.zoek.results_identified",
       "Search results each carry an identificatie of 1 to 255 characters",
       ("ADDR-4.zoek",), MUST, F_ZOEK,
       ("address.zoek_results_without_identificatie",))
_check("address.zoek.deprecation_signal",
       "The warning header of the deprecated /adressen/zoek (its content is not shown in the seed)",
       ("ADDR-4.zoek", "ADDR-9.deprecation"), OBSERVATION, F_ZOEK)

# --------------------------------------------------------------------------- /adressen/{id}
_check("address.adres.by_id",
       "GET /adressen/{id} returns that address (200)",
       ("ADDR-4.adressen.id",), MUST, F_ADRES,
       (IDS,))
_check("address.adres.unknown_not_found",
       "An unknown nummeraanduiding id is answered 404 notFound",
       ("ADDR-4.adressen.id", "ADDR-7.404"), MUST, F_ADRES,
       (AS_200,), (CODE,))
_check("address.adres.malformed_id_rejected",
       "A malformed nummeraanduiding id is refused with 400 naming the path parameter",
       ("ADDR-4.adressen.id", "BAGREF-2.1"), SHOULD, F_ADRES,
       ("address.path_id_pattern_not_enforced",), WHY_400)
_check("address.adres.inclusief_eind_status",
       "An address with an end status gives 404 by default and 200 with inclusiefEindStatus=true",
       ("ADDR-4.inclusiefEindStatus", "ADDR-7.404"), MUST, F_ADRES,
       ("address.end_status_addresses_returned", "address.end_status_flag_ignored"), (AS_200, CODE, IDS))
_check("address.adres.expand_embeds",
       "expand on one address embeds the named relations",
       ("ADDR-1.expand", "ADDR-2.expand", "ADDR-4.expand"), MUST, F_ADRES,
       ("address.expand_ignored",), ())

# --------------------------------------------------------------------------- /adressenuitgebreid
_check("address.adressenuitgebreid.query_kinds",
       "Each query kind of /adressenuitgebreid returns the matching extended addresses",
       ("ADDR-4.adressenuitgebreid",), MUST, F_UITGEBREID,
       ("address.query_filter_ignored",),
       ("address.pand_query_leaks", "address.q_ignored", "address.name_query_ignores_street",
        "address.q_ignores_number"))
_check("address.adressenuitgebreid.extended_fields",
       "Extended addresses carry the object's type, geometry and status (and purposes and area of a verblijfsobject)",
       ("ADDR-4.adressenuitgebreid", "BAGREF-3.3"), SHOULD, F_UITGEBREID,
       ("address.extended_fields_missing",))
_check("address.adressenuitgebreid.exacte_match",
       "exacteMatch=true on /adressenuitgebreid returns only the address without letter or addition",
       ("ADDR-4.adressenuitgebreid", "ADDR-4.exacteMatch"), MUST, F_UITGEBREID,
       ("address.exacte_match_ignored",), ("address.query_filter_ignored",))
_check("address.adressenuitgebreid.inclusief_eind_status",
       "An end-status address is left out of /adressenuitgebreid by default and returned with inclusiefEindStatus=true",
       ("ADDR-4.adressenuitgebreid", "ADDR-4.inclusiefEindStatus"), MUST, F_UITGEBREID,
       ("address.end_status_addresses_returned",), (AS_200, "address.end_status_flag_ignored"))
_check("address.adressenuitgebreid.expand_given",
       "What /adressenuitgebreid does with an expand parameter (it has none)",
       ("ADDR-4.adressenuitgebreid",), OBSERVATION, F_UITGEBREID)
_check("address.adressenuitgebreid.by_id",
       "GET /adressenuitgebreid/{id} returns that extended address (200)",
       ("ADDR-4.adressenuitgebreid.id",), MUST, F_UITGEBREID_ID,
       (IDS,))
_check("address.adressenuitgebreid.by_id_inclusief_eind_status",
       "An end-status address is not returned by /adressenuitgebreid/{id} by default, but is with inclusiefEindStatus=true",
       ("ADDR-4.adressenuitgebreid.id", "ADDR-4.inclusiefEindStatus"), MUST, F_UITGEBREID_ID,
       ("address.end_status_addresses_returned",), (AS_200, IDS, "address.end_status_flag_ignored"))
_check("address.adressenuitgebreid.unknown_id",
       "The status of /adressenuitgebreid/{id} for an unknown id (the seed lists no 404 there)",
       ("ADDR-7", "BAGREF-4.13"), OBSERVATION, F_UITGEBREID_ID)

# --------------------------------------------------------------------------- /bronhouders
_check("address.bronhouders.object_identificatie",
       "objectIdentificatie of one existing object returns its bronhouder (parameter name from public behaviour)",
       ("ADDR-4.bronhouders", "BAGREF-3.5"), SHOULD, F_BRONHOUDERS,
       ("address.bronhouder_parameter_renamed",), (IDS,))
_check("address.bronhouders.none_rejected",
       "GET /bronhouders without an identification is refused with 400",
       ("ADDR-4.bronhouders",), MUST, F_BRONHOUDERS,
       ("address.required_params_not_enforced",), ("address.bronhouder_parameter_renamed",))
_check("address.bronhouders.two_rejected",
       "GET /bronhouders with two identifications is refused with 400 (exactly one)",
       ("ADDR-4.bronhouders",), MUST, F_BRONHOUDERS,
       ("address.bronhouders_two_accepted",), ("address.bronhouder_parameter_renamed",))
