"""The query parameters that carry an object identification on GET /bronhouders.

Seed part 4 says "Exactly one identification of a woonplaats, openbare ruimte,
nummeraanduiding, ligplaats, standplaats, verblijfsobject or pand must be specified.
Parameter names and response: not shown." So the names are the deployment's: read from
the profile's OpenAPI description where it describes /bronhouders (the shipped one, after the
public archive, has one `objectIdentificatie` for every kind), else from the profile key
`services.address.bronhouders_parameters` (one name for every kind, or a table by kind).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.errors import NotJudged
from conformance.openapi import operations as ops

# The kinds of object the seed lists, as the sample names them.
KINDS = ("woonplaats", "openbareruimte", "nummeraanduiding", "ligplaats", "standplaats", "verblijfsobject", "pand")
PROFILE_KEY = "services.address.bronhouders_parameters"
# Parameters a description may give /bronhouders beside the identification (seed part 4's
# shared parameters): never an identification.
_NOT_IDENTIFICATIONS = frozenset({"page", "pagesize", "expand", "huidig", "geldigop", "beschikbaarop",
                                  "inclusiefeindstatus", "exactematch", "accept-crs", "content-crs"})
# A parameter named for the addressable objects stands for each of their three kinds.
_ADDRESSABLE = ("ligplaats", "standplaats", "verblijfsobject")


def _resolve(description: dict[str, Any], node: Any) -> Any:
    """A local reference (`#/components/parameters/x`) followed; anything else as it is."""
    seen = 0
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/") and seen < 20:
        target: Any = description
        for key in node["$ref"][2:].split("/"):
            key = key.replace("~1", "/").replace("~0", "~")
            target = target.get(key) if isinstance(target, dict) else None
        node, seen = target, seen + 1
    return node


def described(description: dict[str, Any] | None) -> list[tuple[str, bool]] | None:
    """(name, deprecated) of each identification parameter the description gives GET
    /bronhouders (its query parameters but the seed's shared ones), or None when it does
    not describe the operation."""
    if not isinstance(description, dict):
        return None
    for path, item in (description.get("paths") or {}).items():
        if not isinstance(item, dict) or ops.seed_operation("GET", path) != "zoekBronhouder":
            continue
        operation = item.get("get")
        if not isinstance(operation, dict):
            continue
        found: dict[str, bool] = {}
        for raw in [*(item.get("parameters") or []), *(operation.get("parameters") or [])]:
            param = _resolve(description, raw)
            if not isinstance(param, dict) or param.get("in") != "query" or not isinstance(param.get("name"), str):
                continue
            if param["name"].lower() not in _NOT_IDENTIFICATIONS:
                found[param["name"]] = bool(param.get("deprecated"))
        return list(found.items())
    return None


def _by_kind(names: list[tuple[str, bool]]) -> dict[str, str]:
    """Each kind's parameter: the one named for it (`woonplaatsIdentificatie`; for ligplaats,
    standplaats and verblijfsobject also one named for the addressable object), else the one
    named for none (`objectIdentificatie`); a deprecated name only where no other serves."""
    chosen: dict[str, str] = {}
    for deprecated in (False, True):
        candidates = [n for n, d in names if d == deprecated]
        generic = [n for n in candidates if not any(k in n.lower() for k in (*KINDS, "adresseerbaarobject"))]
        for kind in KINDS:
            if kind in chosen:
                continue
            own = [n for n in candidates if kind in n.lower()]
            if kind in _ADDRESSABLE and not own:
                own = [n for n in candidates if "adresseerbaarobject" in n.lower()]
            pick = own or generic
            if pick:
                chosen[kind] = pick[0]
    return chosen


def parameter_names(description: dict[str, Any] | None, configured: str | Mapping[str, str] | None) -> dict[str, str]:
    """kind -> the query parameter that carries its identification: from the description
    where it describes /bronhouders with at least one identification parameter, else from the
    profile key. NotJudged when neither names one."""
    names = described(description)
    if names:
        return _by_kind(names)
    if isinstance(configured, str):
        return dict.fromkeys(KINDS, configured)
    if isinstance(configured, Mapping) and configured:
        return {kind: str(configured[kind]) for kind in KINDS if configured.get(kind)}
    where = ("the profile's description describes GET /bronhouders without a query parameter for the identification"
             if names is not None else "the profile's description does not describe GET /bronhouders")
    raise NotJudged("no parameter names for /bronhouders (seed part 4: not shown)",
                    f"{where}: name the parameter in {PROFILE_KEY} (one name for every kind, or a table by kind: "
                    f"{', '.join(KINDS)})")


def parameter_of(names: Mapping[str, str], kind: str) -> str:
    """The parameter of one kind; NotJudged naming the profile key when there is none."""
    if kind not in names:
        raise NotJudged(f"no /bronhouders parameter for a {kind} identification",
                        f"the description (or {PROFILE_KEY}) names parameters for {', '.join(sorted(names))} only: "
                        f"give one for {kind}")
    return names[kind]
