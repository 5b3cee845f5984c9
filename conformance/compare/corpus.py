"""The requests a comparison sends: read-only GETs, each below the base URL of both sides.

Three sources (issue 25), each request marked with its own:
- `scenario`: the positive requests of the scenario checks (the seed's query kinds of part
  4, with time travel, filters, expand, paging, exacteMatch and end status), built from
  the reference's samples; the postcode, house number and names come from the reference's
  own answer for its sample address (`from_address`);
- `generated`: valid requests generated from the description (schemathesis's positive
  mode, seeded, `[compare] generated_per_operation` per operation);
- `har`: the GET requests of a recorded HAR (an integrator's real traffic), relative to
  whichever side's base path they were sent to; other methods are left out (nothing with
  side effects is sent) and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.openapi.operations import SEED_OPERATIONS

Params = tuple[tuple[str, str], ...]
# Headers a request of the corpus may carry (the seed's request headers); anything else a
# HAR or a generated case holds (keys, cookies, tracing) stays out.
CARRIED_HEADERS = ("accept", "accept-crs", "content-crs")


@dataclass(frozen=True)
class Request:
    path: str  # below the base URL: /adressen/0363200000000001
    params: Params = ()
    headers: Params = ()
    source: str = "scenario"

    @property
    def label(self) -> str:
        from urllib.parse import urlencode

        return "GET " + self.path + ("?" + urlencode(self.params) if self.params else "")


@dataclass
class Corpus:
    requests: list[Request] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)  # why -> how many

    def add(self, request: Request) -> None:
        if request not in self.requests:
            self.requests.append(request)

    def leave_out(self, why: str) -> None:
        self.left_out[why] = self.left_out.get(why, 0) + 1


def scenario_requests(samples: dict[str, str]) -> list[Request]:
    """The requests that need only the samples."""
    out: list[Request] = []

    def add(path: str, *params: tuple[str, str]) -> None:
        out.append(Request(path, tuple(params)))

    na, vo, pand = samples.get("nummeraanduiding"), samples.get("verblijfsobject"), samples.get("pand")
    hist, date = samples.get("adresseerbaarobject_historie"), samples.get("historie_datum")
    if na:
        add(f"/adressen/{na}")
        add(f"/adressen/{na}", ("expand", "true"))
        add(f"/adressenuitgebreid/{na}")
        add("/adresseerbareobjecten", ("nummeraanduidingIdentificatie", na))
    for name in ("nummeraanduiding_nevenadres", "nummeraanduiding_eindstatus"):
        if samples.get(name):
            add(f"/adressen/{samples[name]}", ("inclusiefEindStatus", "true"))
    for name in ("verblijfsobject", "ligplaats", "standplaats", "adresseerbaarobject_eindstatus"):
        if samples.get(name):
            add(f"/adresseerbareobjecten/{samples[name]}")
    if vo:
        add(f"/adresseerbareobjecten/{vo}", ("expand", "true"))
        add(f"/adresseerbareobjecten/{vo}/lvc")
        add(f"/adresseerbareobjecten/{vo}/lvc", ("geheleLvc", "true"))
        add("/adressen", ("adresseerbaarObjectIdentificatie", vo))
        add("/bronhouders", ("objectIdentificatie", vo))
    if hist:
        add(f"/adresseerbareobjecten/{hist}")
        add(f"/adresseerbareobjecten/{hist}/lvc", ("geheleLvc", "true"))
        if date:
            add(f"/adresseerbareobjecten/{hist}", ("geldigOp", date))
    # Objects that do not exist: the same error, by status and problem members.
    if samples.get("unknown_nummeraanduiding"):
        add(f"/adressen/{samples['unknown_nummeraanduiding']}")
    if samples.get("unknown_adresseerbaarobject"):
        add(f"/adresseerbareobjecten/{samples['unknown_adresseerbaarobject']}")
    if pand:
        add("/adresseerbareobjecten", ("pandIdentificaties", pand))
        add("/adressen", ("pandIdentificatie", pand))
        add("/adressen", ("pandIdentificatie", pand), ("pageSize", "10"))
        add("/adressenuitgebreid", ("pandIdentificatie", pand))
    if samples.get("openbareruimte"):
        add("/adressen", ("openbareRuimteIdentificatie", samples["openbareruimte"]), ("pageSize", "10"))
    for name, kind in (("bbox", None), ("bbox_ligplaats", "ligplaats"), ("bbox_standplaats", "standplaats"),
                       ("bbox_verblijfsobject", "verblijfsobject")):
        box = samples.get(name)
        if not box:
            continue
        add("/adresseerbareobjecten", ("bbox", box), *((("type", kind),) if kind else ()))
        if kind is None:
            add("/adresseerbareobjecten", ("bbox", box), ("huidig", "true"))
            add("/adresseerbareobjecten", ("bbox", box), ("pageSize", "10"))
            if date:
                add("/adresseerbareobjecten", ("bbox", box), ("geldigOp", date))
    return out


def from_address(address: Any) -> list[Request]:
    """The requests built from the reference's answer for the sample address: the query
    kinds by postcode and house number, by names, and free text."""
    if not isinstance(address, dict):
        return []
    postcode, number = address.get("postcode"), address.get("huisnummer")
    street, place = address.get("openbareRuimteNaam"), address.get("woonplaatsNaam")
    letter, addition = address.get("huisletter"), address.get("huisnummertoevoeging")
    out: list[Request] = []
    if isinstance(postcode, str) and isinstance(number, int):
        base = (("postcode", postcode), ("huisnummer", str(number)))
        out.append(Request("/adressen", base))
        out.append(Request("/adressen", (*base, ("exacteMatch", "true"))))
        out.append(Request("/adressen", (*base, ("inclusiefEindStatus", "true"))))
        if isinstance(letter, str):
            out.append(Request("/adressen", (*base, ("huisletter", letter), ("exacteMatch", "true"))))
        if isinstance(addition, str):
            out.append(Request("/adressen", (*base, ("huisnummertoevoeging", addition))))
        out.append(Request("/adressenuitgebreid", base))
        out.append(Request("/adressenuitgebreid", (*base, ("exacteMatch", "true"))))
        out.append(Request("/adressen", (("q", f"{postcode} {number}"),)))
    if isinstance(street, str) and isinstance(place, str) and isinstance(number, int):
        names = (("woonplaatsNaam", place), ("openbareRuimteNaam", street), ("huisnummer", str(number)))
        out.append(Request("/adressen", names))
        out.append(Request("/adressen", (*names, ("exacteMatch", "true"))))
    if isinstance(street, str):
        out.append(Request("/adressen", (("q", street),)))
        out.append(Request("/adressen", (("q", street), ("pageSize", "10"))))
        out.append(Request("/adressen/zoek", (("zoek", street),)))
        out.append(Request("/adressenuitgebreid", (("q", street),)))
    return out


def generated_requests(schema: Any, per_operation: int, seed: int) -> list[Request]:
    """Valid requests generated from the description (schemathesis positive mode): the same
    for the same description and seed."""
    if per_operation <= 0:
        return []
    from schemathesis import GenerationMode

    from conformance.checks.client.requests import refusal
    from conformance.openapi.operations import seed_operation

    out: list[Request] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation is None or operation.method.upper() != "GET" \
                or seed_operation(operation.method, operation.path) is None:
            continue
        cases = _drawn(operation.as_strategy(generation_mode=GenerationMode.POSITIVE), per_operation, seed)
        for case in cases[:per_operation]:
            path = case.formatted_path
            query = case.query or {}
            params = tuple((str(k), _text(v)) for k, values in query.items()
                           for v in (values if isinstance(values, list) else [values]))
            headers = tuple((k, _text(v)) for k, v in (case.headers or {}).items() if k.lower() in CARRIED_HEADERS)
            # Valid by the description's schemas, yet refused by the seed's rules for the client
            # (an object search with no complete query kind): no request to compare answers to
            # (and one that safety.negative = false would stop the comparison for).
            if refusal("GET", seed_operation(operation.method, operation.path), list(params), dict(headers)) is None:
                out.append(Request(path, params, headers, source="generated"))
    return out


def _drawn(strategy: Any, count: int, seed: int) -> list[Any]:
    """`count` examples of a strategy, the same for the same seed (hypothesis's own
    generation phase, no example database)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as with_seed

    cases: list[Any] = []

    def keep(case: Any) -> None:
        cases.append(case)

    with_seed(seed)(settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None,
                             suppress_health_check=list(HealthCheck))(given(strategy)(keep)))()
    return cases


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def har_requests(har: Path, base_paths: list[str], corpus: Corpus) -> None:
    """The HAR's GET requests below one of `base_paths`, added to `corpus` (read by the
    passive mode's reader: size cap, plain JSON, a broken file named in a ConfigError)."""
    from conformance.passive.har import read_har

    templates = [template.split("{", 1)[0].rstrip("/") for template in SEED_OPERATIONS.values()]
    for exchange in read_har(har):
        if exchange.method.upper() != "GET":
            corpus.leave_out("HAR requests other than GET (nothing with side effects is sent)")
            continue
        path = exchange.path
        base = next((b for b in base_paths if b and path.startswith(b + "/")), "")
        relative = path[len(base):] if base else path
        if not any(relative == t or relative.startswith(t + "/") for t in templates):
            corpus.leave_out("HAR requests outside the address API's operations")
            continue
        headers = tuple((name, value) for name, value in exchange.request_headers.items()
                        if name.lower() in ("accept-crs", "content-crs"))
        corpus.add(Request(relative, tuple(exchange.query), headers, source="har"))
