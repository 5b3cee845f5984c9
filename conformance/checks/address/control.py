"""Negative checks of the address API against a control request.

A negative check changes ONE thing of a request that is otherwise valid (a parameter
value, a header, the key, the method, the path id) and, in the same test, sends the
unchanged request as its control. The refusal counts only when the control was served
(200): a refused control means the server refuses for some other reason, so the check
could not judge its rule and is `Blocked`, with a cause that is the same for every check
the same refusal takes down ("unchanged request GET /adressen -> 401 authentication").

Where the server states why it refused (problem `code`, `detail`, `invalid-params`
names), the reason goes into the verdict, and a refusal for a plainly unrelated reason
is not a pass: authentication, rights or rate limit when the rule is about the request's
content (the control, sent with the same key, was served), or an invalid-params list that
names other parameters only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from conformance.checks.address import endpoints
from conformance.findings import expect, require
from conformance.http.exchange import Exchange

# Refusals that never say anything about the content of a request whose unchanged form
# the same key got served: authentication (401), rights (403), rate limit (429).
UNRELATED = {401: "authentication", 403: "rights", 429: "rate limit"}
CLIENT_ERROR = "4xx"  # `statuses` value: any 4xx that is not UNRELATED


@dataclass(frozen=True)
class Req:
    """One request as a negative check builds it: `change` one thing, keep the rest."""

    path: str
    params: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    key: str = "valid"
    method: str = "GET"

    @classmethod
    def of(cls, path: str, params: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
           headers: Mapping[str, str] | None = None, key: str = "valid") -> Req:
        pairs = list(params.items()) if isinstance(params, Mapping) else list(params or ())
        return cls(path, tuple((str(k), str(v)) for k, v in pairs), tuple((headers or {}).items()), key)

    def with_param(self, name: str, value: str) -> Req:
        """`name` set to `value` (replacing every earlier value, or added)."""
        return replace(self, params=(*self.without(name).params, (name, value)))

    def adding(self, name: str, value: str) -> Req:
        """`name` sent once more, after the values it has."""
        return replace(self, params=(*self.params, (name, value)))

    def without(self, name: str) -> Req:
        return replace(self, params=tuple(p for p in self.params if p[0] != name))

    def with_header(self, name: str, value: str) -> Req:
        return replace(self, headers=(*((k, v) for k, v in self.headers if k.lower() != name.lower()), (name, value)))

    def with_key(self, key: str) -> Req:
        return replace(self, key=key)

    def with_method(self, method: str) -> Req:
        return replace(self, method=method)

    def with_path(self, path: str) -> Req:
        return replace(self, path=path)

    def send(self, api: Any) -> Exchange:
        params = list(self.params) or None
        headers = dict(self.headers) or None
        if self.method == "GET":
            return api.get(self.path, params=params, headers=headers, key=self.key)
        return api.request(self.method, self.path, params=params, headers=headers, key=self.key)

    @property
    def label(self) -> str:
        return f"{self.method} {self.path.split('?', 1)[0]}"


# --------------------------------------------------------------------------- what the server said
def _body(ex: Exchange) -> dict[str, Any]:
    return ex.json if isinstance(ex.json, dict) else {}


def code_of(ex: Exchange) -> str | None:
    code = _body(ex).get("code")
    return code if isinstance(code, str) else None


def invalid_param_names(ex: Exchange) -> list[str] | None:
    """The names of the invalid-params list, or None when there is no list."""
    items = _body(ex).get("invalid-params")
    if not isinstance(items, list):
        return None
    return [str(i["name"]) for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)]


def stated_reason(ex: Exchange) -> str:
    """The status and what the server says about it: code, detail, invalid-params names."""
    parts = [str(ex.status)]
    body = _body(ex)
    if code_of(ex):
        parts.append(str(code_of(ex)))
    if isinstance(body.get("detail"), str) and body["detail"]:
        parts.append(f"detail {body['detail']!r}")
    names = invalid_param_names(ex)
    if names is not None:
        parts.append(f"invalid-params [{', '.join(names)}]")
    return " ".join(parts)


def _short(ex: Exchange) -> str:
    """Status and code only: the same for every check one refusal takes down."""
    return " ".join(filter(None, [str(ex.status), code_of(ex)]))


# --------------------------------------------------------------------------- the control
def control_served(api: Any, control: Req) -> Exchange:
    """Send the unchanged request; anything but 200 blocks the check."""
    ex = control.send(api)
    require(ex.status == 200, "the unchanged request (control) is served",
            f"unchanged request {control.label} -> {_short(ex)}")
    return ex


def refused_vs_control(
    api: Any,
    control: Req,
    changed: Req,
    *,
    rule: str,
    statuses: Iterable[int] | str = (400,),
    names: str | Iterable[str] = (),
    unrelated: Mapping[int, str] = UNRELATED,
) -> Exchange:
    """The control is served and the changed request refused for the rule under test.

    `statuses`: the statuses the rule allows, or CLIENT_ERROR for any 4xx. With
    CLIENT_ERROR, a status of `unrelated` is a refusal for another reason (a Finding).
    `names`: the parameter under test (its spellings); an invalid-params list that names
    parameters but none of these is a refusal for another parameter (a Finding).
    """
    control_served(api, control)
    ex = changed.send(api)
    reason = stated_reason(ex)
    if statuses == CLIENT_ERROR:
        expect(400 <= ex.status < 500, f"not refused with a 4xx: {rule}", expected="4xx",
               actual=f"{ex.summary()}; server's reason: {reason}")
        expect(ex.status not in unrelated,
               f"refused for an unrelated reason ({unrelated.get(ex.status)}), not because {rule}",
               expected="a 4xx about the change", actual=f"{ex.summary()}; server's reason: {reason}")
    else:
        allowed = tuple(statuses)  # type: ignore[arg-type]
        expect(ex.status in allowed, f"not refused as the rule requires: {rule}",
               expected=" or ".join(map(str, allowed)), actual=f"{ex.summary()}; server's reason: {reason}")
    wanted = {names.lower()} if isinstance(names, str) else {n.lower() for n in names}
    blamed = invalid_param_names(ex)
    if wanted and blamed:
        expect(bool(wanted & {b.lower() for b in blamed}),
               f"refused for another parameter: invalid-params does not name {' or '.join(sorted(wanted))} ({rule})",
               expected=" or ".join(sorted(wanted)), actual=f"server's reason: {reason}")
    return ex


def rejected_vs_control(api: Any, control: Req, changed: Req, names: str | Iterable[str], why: str) -> Exchange:
    """400 for the changed request, whose invalid-params names the faulty parameter (seed
    parts 2 and 7: "invalid-params lists faulty parameters"), while the control is served."""
    ex = refused_vs_control(api, control, changed, rule=why, statuses=(400,), names=names)
    endpoints.rejected(ex, names, why)
    return ex
