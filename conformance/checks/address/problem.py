"""problem+json error bodies (seed part 2 "Error resource", part 7; RFC 9457)."""

from __future__ import annotations

from typing import Any

from conformance.checks.uri_reference import is_uri_reference
from conformance.findings import Finding, expect
from conformance.http.exchange import Exchange

PROBLEM_MEDIA_TYPE = "application/problem+json"

# Seed part 7: the code each status carries. 400 has codes beyond paramsRequired
# ("All code values beyond those listed ... not shown"), so it is not pinned here.
CODE_FOR_STATUS = {
    401: "authentication",
    403: "autorisation",
    404: "notFound",
    406: "notAcceptable",
    412: "preconditionFailed",
    429: "tooManyRequests",
    500: "serverError",
    503: "notAvailable",
}
# Codes the public service uses for the same statuses (bag-api.md 5.2, 5.3): accepted
# where the seed is silent about the specific condition (CRS negotiation).
PUBLIC_ALTERNATIVES = {406: {"crsNotAcceptable"}, 412: {"acceptCrsMissing", "contentCrsMissing"}}
INVALID_PARAM_MEMBERS = ("type", "name", "code", "reason")


def problem_body(ex: Exchange) -> dict[str, Any]:
    body = ex.json
    if not isinstance(body, dict):
        raise Finding("error response body is not a JSON object", actual=ex.summary())
    return body


def is_problem_media_type(ex: Exchange) -> None:
    expect(ex.media_type == PROBLEM_MEDIA_TYPE, "error response is not problem+json",
           expected=PROBLEM_MEDIA_TYPE, actual=ex.media_type or "(none)")


def has_problem_members(ex: Exchange) -> None:
    """status (integer, equal to the HTTP status), title, type, detail, instance, code."""
    body = problem_body(ex)
    expect(isinstance(body.get("status"), int) and not isinstance(body.get("status"), bool),
           "problem member status is not an integer", actual=body.get("status"))
    expect(body["status"] == ex.status, "problem status differs from the HTTP status",
           expected=ex.status, actual=body["status"])
    for member in ("title", "code"):
        expect(isinstance(body.get(member), str) and body[member] != "",
               f"problem member {member} missing or empty", actual=body.get(member))
    for member in ("type", "detail", "instance"):
        if member in body:
            expect(isinstance(body[member], str), f"problem member {member} is not a string",
                   actual=body[member])


def uri_references(ex: Exchange) -> None:
    """Seed part 2: `type` and `instance`, and the `type` of each invalid-params item, are
    URI references (RFC 3986 4.1). Members left out are problem_members' question."""
    body = problem_body(ex)
    found = [(m, body[m]) for m in ("type", "instance") if m in body]
    params = body.get("invalid-params")
    if isinstance(params, list):
        found += [(f"invalid-params[{n}].type", item["type"]) for n, item in enumerate(params)
                  if isinstance(item, dict) and "type" in item]
    bad = [(member, value) for member, value in found if not is_uri_reference(value)]
    expect(not bad, "problem members that must be URI references (RFC 3986) are not",
           expected="URI-reference, e.g. https://example.org/problem or /path?query", actual=bad[:3])


def has_problem_code(ex: Exchange, expected: str | set[str]) -> None:
    allowed = {expected} if isinstance(expected, str) else set(expected)
    code = problem_body(ex).get("code")
    expect(code in allowed, "problem code differs", expected=" or ".join(sorted(allowed)), actual=code)


def has_code_of_status(ex: Exchange, *, allow_public: bool = False) -> None:
    """The code the seed's error table gives for this status."""
    if ex.status not in CODE_FOR_STATUS:
        return
    allowed = {CODE_FOR_STATUS[ex.status]}
    if allow_public:
        allowed |= PUBLIC_ALTERNATIVES.get(ex.status, set())
    has_problem_code(ex, allowed)


def invalid_params(ex: Exchange) -> list[dict[str, Any]]:
    """The invalid-params list, each item checked for the seed's four members.

    Seed part 2 only says the list is there on a 400 ("invalid-params: array of objects,
    on 400"): an empty list (no single parameter at fault, e.g. a missing query kind) is
    a list. Whether it names a given parameter is `names_invalid_param`'s question."""
    items = problem_body(ex).get("invalid-params")
    expect(isinstance(items, list), "400 without an invalid-params list", actual=items)
    assert isinstance(items, list)
    for item in items:
        expect(isinstance(item, dict), "invalid-params item is not an object", actual=item)
        missing = [m for m in INVALID_PARAM_MEMBERS if not isinstance(item.get(m), str)]
        expect(not missing, f"invalid-params item lacks {', '.join(missing)}", actual=item)
    return items


def names_invalid_param(ex: Exchange, name: str, code: str | None = None) -> None:
    """invalid-params lists the faulty parameter (and, when given, its code)."""
    items = invalid_params(ex)
    names = {str(i["name"]).lower() for i in items}
    expect(name.lower() in names, f"invalid-params does not name {name}",
           actual=sorted(names))
    if code is not None:
        codes = {i["code"] for i in items if str(i["name"]).lower() == name.lower()}
        expect(code in codes, f"invalid-params code for {name} differs", expected=code,
               actual=sorted(codes))


def instance_names_request(ex: Exchange) -> None:
    """instance identifies the failing request: it ends with its path (and query) (bag-api.md 5.6)."""
    instance = problem_body(ex).get("instance")
    expect(isinstance(instance, str), "problem has no instance", actual=instance)
    expect(ex.path.rsplit("/v2", 1)[-1] in instance, "instance does not name the request path",
           expected=ex.path, actual=instance)
