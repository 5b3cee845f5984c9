"""Find every address sample from the server itself (`conformance discover`).

Only ordinary read-only queries of seed part 4, through the run's paced and bounded client:
  1. a few addresses from a free-text search `q` (or from the samples the profile already
     has): a street, a residence place, an addressable object and its location;
  2. the objects of 500 m squares around that location (bbox, at most 250000 m2), square by
     square outwards until all three kinds, an end status, a long history and a full
     building have turned up;
  3. the addresses of the streets met, with and without inclusiefEindStatus;
and each candidate is verified against its contract (contracts.py) before it is taken.
Every step stops at the request budget it is given.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import zip_longest
from typing import Any

from conformance.checks.address import endpoints as E
from conformance.findings import Finding
from conformance.http.client import BudgetExhausted
from conformance.samples import contracts as C
from conformance.samples.contracts import Get, Lacks, Unverifiable, Verdict

# Words of Dutch public-space names: berths lie on havens, kades and grachten, pitches in
# woonwagen parks; the rest finds ordinary streets.
SEARCH_TERMS = ("woonwagen", "haven", "gracht", "kade", "straat", "weg")
SQUARE_M = 499.0                     # just under 250000 m2
MAX_SQUARES = 9                      # the first square and its eight neighbours
CANDIDATES_PER_SAMPLE = 4
BUILDINGS_READ = 6                   # buildings whose addresses are read, of each sort
FEW_OBJECTS = 6                      # a building of a few objects: where variants (12, 12A, 12-1) live
STREETS_WALKED = 12                  # public spaces whose addresses are read, at most
MAX_PLACES = 6                       # centres whose surroundings are searched


class OutOfBudget(Exception):
    pass


@dataclass
class Harvest:
    """What the queries turned up, as the server rendered it."""

    addresses: dict[str, dict[str, Any]] = field(default_factory=dict)
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    full_squares: list[str] = field(default_factory=list)   # bboxes holding all three kinds
    squares: dict[str, list[str]] = field(default_factory=dict)  # kind -> bboxes holding it
    ended_addresses: list[str] = field(default_factory=list)
    streets_walked: set[str] = field(default_factory=set)
    streets_ended: set[str] = field(default_factory=set)


class Discovery:
    def __init__(self, get: Get, *, budget: int = 400, log: Callable[[str], None] = lambda _: None) -> None:
        self._get, self._budget, self._log = get, budget, log
        self.sent = 0
        self.harvest = Harvest()

    # ------------------------------------------------------------------ bounded access
    def get(self, path: str, params: Iterable[tuple[str, str]] = ()) -> Any:
        if self.sent >= self._budget:
            raise OutOfBudget(f"discovery budget of {self._budget} requests used up")
        self.sent += 1
        return self._get(path, list(params))

    def _items(self, path: str, params: list[tuple[str, str]], name: str, pages: int = 1) -> list[dict[str, Any]]:
        try:
            return C.items(self.get, path, params, name, pages)
        except C.Unanswered:
            raise
        except (Lacks, Unverifiable) as why:
            self._log(f"  {path} {params}: {why}")
            return []

    # ------------------------------------------------------------------ harvesting
    def start(self, known: dict[str, str], terms: Iterable[str] = SEARCH_TERMS) -> None:
        """Addresses to start from: the profile's own address samples and a search per term."""
        for name in ("nummeraanduiding", "nummeraanduiding_nevenadres"):
            if known.get(name):
                with _quiet():
                    self._add_addresses([C.address(self.get, known[name])])
        for term in terms:
            # Extended addresses carry the object's type and geometry (bag-api.md 3.3).
            found = self._items("/adressenuitgebreid", [("q", term)], "adressen")
            self._add_addresses(found or self._items("/adressen", [("q", term)], "adressen"))
        if not self.harvest.addresses:
            raise Unverifiable("no address found to start from (a search with q found none)")

    def _add_addresses(self, found: list[dict[str, Any]]) -> None:
        for a in found:
            ident = a.get("nummeraanduidingIdentificatie")
            if isinstance(ident, str):
                self.harvest.addresses.setdefault(ident, a)

    def squares(self) -> None:
        """Objects of 500 m squares around a located object of each residence place met,
        outwards, until every kind of object a sample needs has turned up."""
        offsets = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)][:MAX_SQUARES]
        for x, y in self._locations():
            for dx, dy in offsets:
                x1, y1 = x - SQUARE_M / 2 + dx * SQUARE_M, y - SQUARE_M / 2 + dy * SQUARE_M
                self._square(f"{x1:.0f},{y1:.0f},{x1 + SQUARE_M:.0f},{y1 + SQUARE_M:.0f}")
                if self._enough():
                    return

    def _square(self, box: str) -> None:
        found = self._items("/adresseerbareobjecten", [("bbox", box)], "adresseerbareObjecten", pages=5)
        kinds = set()
        for item in found:
            with _quiet():
                self.harvest.objects.setdefault(E.object_id(item), item)
                kinds.add(E.object_type(item))
        for kind in kinds:
            self.harvest.squares.setdefault(kind, []).append(box)
        if kinds >= set(E.OBJECT_TYPES):
            self.harvest.full_squares.append(box)

    def _locations(self) -> Iterator[tuple[float, float]]:
        """Centres to search around, at most MAX_PLACES: one per kind of object and residence
        place met, the kinds taking turns (a pitch, a berth, an accommodation object, the
        next pitch...), a pitch or berth only until a box holding one is found; so that
        where berths and pitches lie far from the houses, as in ordinary data, the houses'
        quarters are searched too."""
        rank = {"standplaats": 0, "ligplaats": 1}
        by_kind: dict[int, list[dict[str, Any]]] = {}
        seen: set[tuple[Any, Any]] = set()
        for a in self.harvest.addresses.values():
            kind = str(a.get("typeAdresseerbaarObject", "")).lower()
            key = (kind if kind in rank else None, a.get("woonplaatsIdentificatie"))
            if key not in seen:
                seen.add(key)
                by_kind.setdefault(rank.get(kind, 2), []).append(a)
        turns = [a for group in zip_longest(*(by_kind[k] for k in sorted(by_kind))) for a in group if a is not None]
        centres = 0
        for a in turns:
            if centres >= MAX_PLACES:
                return
            kind = str(a.get("typeAdresseerbaarObject", "")).lower()
            if kind in rank and self.harvest.squares.get(kind):
                continue  # a box with this rare kind is found: the centres go to the houses' quarters
            box = E.envelope(a.get("adresseerbaarObjectGeometrie"))
            ident = a.get("adresseerbaarObjectIdentificatie")
            if box is None and isinstance(ident, str):
                with _quiet():
                    _, data = C.addressable_object(self.get, ident)
                    box = E.envelope(E.object_data(data).get("geometrie"))
            if box is not None:
                centres += 1
                yield (box[0] + box[2]) / 2, (box[1] + box[3]) / 2

    def _enough(self) -> bool:
        objs = list(self.harvest.objects.values())
        kinds = Counter(E.object_type(o) for o in objs)
        # A box holding each kind (one for all three is best, one per kind will do).
        return ((bool(self.harvest.full_squares) or all(self.harvest.squares.get(k) for k in E.OBJECT_TYPES))
                and all(kinds[k] for k in E.OBJECT_TYPES)
                and any(C.status_of(o) in C.END_STATUSES for o in objs)
                and any(_versie(o) >= C.HISTORY_MIN_OCCURRENCES for o in objs)
                and max(self._building_counts().values(), default=0) >= C.PAND_MIN_OBJECTS)

    def _building_counts(self) -> Counter[str]:
        return Counter(b for o in self.harvest.objects.values() for b in _safe(E.buildings, o, []))

    def buildings_addresses(self) -> None:
        """The addresses of buildings of the first square holding every kind of object (else
        of the squares holding accommodation objects): first those of a few objects, where a
        house number with letter and addition variants is likeliest, then the fullest."""
        objects = list(self.harvest.objects.values())
        boxes = self.harvest.full_squares[:1] or self.harvest.squares.get("verblijfsobject", [])
        if boxes:
            parsed = [E.parse_bbox(b) for b in boxes]
            objects = [o for o in objects if (env := E.envelope(_safe(E.object_data, o, {}).get("geometrie")))
                       and any(E.boxes_meet(env, box) for box in parsed)]
        counts = Counter(b for o in objects for b in _safe(E.buildings, o, []))
        few = [b for b, n in counts.most_common() if 2 <= n <= FEW_OBJECTS]
        fullest = [b for b, _ in counts.most_common(BUILDINGS_READ)]
        for pand in list(dict.fromkeys(few[:BUILDINGS_READ] + fullest))[:2 * BUILDINGS_READ]:
            self._add_addresses(self._items("/adressen", [("pandIdentificatie", pand)], "adressen"))

    def streets(self) -> list[str]:
        """Public spaces met, those with letter or addition variants first, then by how many
        harvested addresses lie on them."""
        counts: Counter[str] = Counter()
        variants: Counter[str] = Counter()
        for a in self.harvest.addresses.values():
            street = a.get("openbareRuimteIdentificatie")
            if isinstance(street, str):
                counts[street] += 1
                variants[street] += bool(a.get("huisletter") or a.get("huisnummertoevoeging"))
        return sorted(counts, key=lambda s: (-variants[s], -counts[s]))

    def walk_street(self, street: str, *, ended: bool = False) -> list[dict[str, Any]]:
        """The current addresses of a public space; with `ended`, also note those returned
        only with inclusiefEindStatus=true."""
        if street not in self.harvest.streets_walked:
            self.harvest.streets_walked.add(street)
            self._add_addresses(self._items("/adressen", [("openbareRuimteIdentificatie", street)], "adressen", pages=3))
        current = [a for a in self.harvest.addresses.values() if a.get("openbareRuimteIdentificatie") == street]
        if ended and street not in self.harvest.streets_ended:
            self.harvest.streets_ended.add(street)
            ids = {a.get("nummeraanduidingIdentificatie") for a in current}
            with_ended = self._items("/adressen", [("openbareRuimteIdentificatie", street), ("inclusiefEindStatus", "true")],
                                     "adressen", pages=3)
            self.harvest.ended_addresses += [a["nummeraanduidingIdentificatie"] for a in with_ended
                                             if isinstance(a.get("nummeraanduidingIdentificatie"), str)
                                             and a["nummeraanduidingIdentificatie"] not in ids]
        return current


def _richness(item: dict[str, Any]) -> tuple[bool, bool, bool]:
    """How much of what the verblijfsobject checks look at an object has."""
    return (bool(_safe(E.side_addresses, item, [])), len(_safe(E.buildings, item, [])) >= 2,
            bool(_safe(E.gebruiksdoelen, item, [])) and _safe(E.oppervlakte, item, None) is not None)


def _versie(item: dict[str, Any]) -> int:
    value = _safe(E.voorkomen, item, {}).get("versie")
    return value if isinstance(value, int) else int(value) if isinstance(value, str) and value.isdigit() else 0


def _safe(fn: Callable[[Any], Any], item: Any, default: Any) -> Any:
    try:
        return fn(item)
    except Finding:
        return default


class _quiet:
    """A harvested item the checks' readers cannot read is passed over: discovery is not the judge."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
        return (kind is not None and issubclass(kind, (Finding, Lacks, Unverifiable))
                and not issubclass(kind, C.Unanswered))


# --------------------------------------------------------------------------- candidates per sample
def candidates(d: Discovery, name: str, found: dict[str, str]) -> Iterator[str]:
    h = d.harvest
    objs = list(h.objects.values())

    def of_kind(kind: str, current: bool = True) -> Iterator[str]:
        for o in objs:
            if _safe(E.object_type, o, None) == kind and (C.is_current(o) if current else True):
                yield E.object_id(o)

    if name in ("verblijfsobject", "verblijfsobject_nevenadres", "verblijfsobject_panden"):
        vbos = [o for o in objs if _safe(E.object_type, o, None) == "verblijfsobject" and C.is_current(o)
                and _safe(E.main_address, o, None)]
        wanted = {"verblijfsobject_nevenadres": lambda o: _safe(E.side_addresses, o, []),
                  "verblijfsobject_panden": lambda o: len(_safe(E.buildings, o, [])) >= 2}.get(name, lambda o: True)
        # The richest first: the checks starting from `verblijfsobject` judge more with it.
        yield from (E.object_id(o) for o in sorted((o for o in vbos if wanted(o)), key=_richness, reverse=True))
    elif name in ("ligplaats", "standplaats"):
        yield from of_kind(name)
    elif name == "adresseerbaarobject_eindstatus":
        yield from (E.object_id(o) for o in objs if C.status_of(o) in C.END_STATUSES)
    elif name == "adresseerbaarobject_historie":
        ranked = sorted((o for o in objs if _versie(o) >= C.HISTORY_MIN_OCCURRENCES), key=_versie, reverse=True)
        yield from (E.object_id(o) for o in ranked)
    elif name == "historie_datum":
        yield from _history_days(d, found.get("adresseerbaarobject_historie"))
    elif name == "pand":
        yield from (b for b, n in d._building_counts().most_common() if n >= 10)
    elif name == "bbox":
        yield from dict.fromkeys([*h.full_squares, *(b for boxes in h.squares.values() for b in boxes)])
    elif name.startswith("bbox_"):
        yield from dict.fromkeys([*h.full_squares, *h.squares.get(name.removeprefix("bbox_"), [])])
    elif name == "nummeraanduiding_nevenadres":
        yield from (s for o in objs for s in _safe(E.side_addresses, o, []))
    elif name in ("openbareruimte", "woonplaats", "nummeraanduiding", "nummeraanduiding_eindstatus"):
        yield from _from_streets(d, name)
    elif name in ("unknown_adresseerbaarobject", "unknown_nummeraanduiding"):
        known = found.get("verblijfsobject" if name == "unknown_adresseerbaarobject" else "nummeraanduiding")
        if known and len(known) > 10 and known.isdigit():
            yield from (known[:-10] + tail for tail in ("9999999999", "9999999998", "8888888888"))


def _from_streets(d: Discovery, name: str) -> Iterator[str]:
    for street in d.streets()[:STREETS_WALKED]:
        addresses = d.walk_street(street, ended=name == "nummeraanduiding_eindstatus")
        if name == "openbareruimte":
            yield street
        elif name == "woonplaats":
            yield from {str(a["woonplaatsIdentificatie"]) for a in addresses if a.get("woonplaatsIdentificatie")}
        elif name == "nummeraanduiding_eindstatus":
            yield from d.harvest.ended_addresses
        else:
            groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
            for a in addresses:
                groups.setdefault((E.normal_postcode(a.get("postcode")), str(a.get("huisnummer"))), []).append(a)
            for group in groups.values():
                plain = [a for a in group if not a.get("huisletter") and not a.get("huisnummertoevoeging")
                         and a.get("indicatieNevenadres") is not True]
                if plain and any(a.get("huisletter") for a in group) and any(a.get("huisnummertoevoeging") for a in group):
                    yield plain[0]["nummeraanduidingIdentificatie"]


def _history_days(d: Discovery, subject: str | None) -> Iterator[str]:
    """A day on which the history sample was valid with other data than today: the day
    after the second-latest valid occurrence began, else that day itself."""
    if not subject:
        return
    with _quiet():
        begins = C.begin_dates(C.life_cycle(d.get, subject, False))
        if len(begins) >= 2:
            later = begins[-2] + timedelta(days=1)
            yield (later if later < begins[-1] else begins[-2]).isoformat()


# Order matters: historie_datum dates the history sample; the unknown ids take the form of found ones.
ORDER = (
    "verblijfsobject", "verblijfsobject_nevenadres", "verblijfsobject_panden", "ligplaats", "standplaats",
    "adresseerbaarobject_eindstatus", "adresseerbaarobject_historie", "historie_datum", "pand",
    "bbox", "bbox_ligplaats", "bbox_standplaats", "bbox_verblijfsobject", "nummeraanduiding_nevenadres", "openbareruimte", "woonplaats",
    "nummeraanduiding", "nummeraanduiding_eindstatus", "unknown_adresseerbaarobject", "unknown_nummeraanduiding",
)


def discover(get: Get, known: dict[str, str], *, budget: int = 400, rediscover: bool = False,
             terms: Iterable[str] = SEARCH_TERMS, log: Callable[[str], None] = lambda _: None,
             properties: dict[str, list[C.Missing] | None] | None = None) -> tuple[dict[str, Verdict], int]:
    """Every sample of ORDER: the profile's own when it meets its contract (unless
    `rediscover`), else the first verified candidate, preferring one that also has what checks
    need beyond the contract (contracts.PROPERTIES). Returns (name -> verdict, requests sent);
    a sample not found has the verdict of the last candidate tried, or none. `properties`,
    when given, receives what each sample taken still lacks of those (None: not judged)."""
    d = Discovery(get, budget=budget, log=log)
    taken: dict[str, str] = {}
    verdicts: dict[str, Verdict] = {}
    lacking: dict[str, list[C.Missing] | None] = {} if properties is None else properties
    try:
        _discover(d, known, taken, verdicts, lacking, rediscover=rediscover, terms=terms, log=log)
    except C.KeyRefused:
        raise
    except (OutOfBudget, BudgetExhausted, Unverifiable) as stop:
        log(f"stopped: {stop}")
    return verdicts, d.sent


def _discover(d: Discovery, known: dict[str, str], taken: dict[str, str], verdicts: dict[str, Verdict],
              lacking: dict[str, list[C.Missing] | None], *, rediscover: bool, terms: Iterable[str],
              log: Callable[[str], None]) -> None:
    def missing(name: str, value: str) -> list[C.Missing] | None:
        found = C.missing_properties(d.get, name, value)
        for m in found or []:
            log(f"  {name} = {value} lacks what checks need beyond its contract: {m.what}")
        return found

    if not rediscover:
        for name in ORDER:
            if known.get(name):
                v = C.verify(d.get, name, known[name], {**known, **taken})
                verdicts[name] = v
                if v.outcome != "lacks":  # verified, or the server did not let it be judged
                    taken[name] = v.value
                    log(f"kept {name} = {v.value}: {v.detail}" if v.ok else
                        f"kept {name} = {v.value} as given: not verified ({v.detail})")
                    if v.ok and name in C.PROPERTIES:
                        lacking[name] = missing(name, v.value)
                else:
                    log(f"the profile's {name} = {v.value} is not taken: it {v.detail}")
    d.start(known, terms)
    d.squares()
    d.buildings_addresses()
    for name in ORDER:
        if name in taken:
            continue
        tried: set[str] = set()
        # The best verified candidate so far that lacks a property checks need (fewest first).
        fallback: tuple[Verdict, list[C.Missing] | None] | None = None
        try:
            for value in candidates(d, name, taken):
                if value in tried:
                    continue
                tried.add(value)
                v = C.verify(d.get, name, value, taken)
                if v.ok:
                    gaps = missing(name, value) if name in C.PROPERTIES else []
                    if gaps == []:
                        verdicts[name], taken[name] = v, value
                        lacking.pop(name, None)
                        log(f"found {name} = {value}: {v.detail}")
                        break
                    if fallback is None or (gaps is not None and (fallback[1] is None or len(gaps) < len(fallback[1]))):
                        fallback = (v, gaps)
                elif fallback is None:
                    verdicts[name] = v
                if len(tried) >= CANDIDATES_PER_SAMPLE:
                    break
        finally:  # also when the budget ends the search: the best candidate found is taken
            if name not in taken and fallback is not None:
                verdicts[name], taken[name], lacking[name] = fallback[0], fallback[0].value, fallback[1]
                log(f"found {name} = {fallback[0].value}: {fallback[0].detail} (the best of {len(tried)} "
                    "candidates; it lacks what some checks need, above)")
        if name not in taken:
            log(f"no {name} found" + (f" (last candidate {verdicts[name].value}: {verdicts[name].detail})"
                                      if name in verdicts else ""))
