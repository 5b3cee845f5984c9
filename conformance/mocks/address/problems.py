"""Problem details of the address mock (seed parts 2 and 7; bag-api.md 5.1 to 5.5).

Handlers raise ProblemError; the app renders it once, in `render_problem`, which is also the
one place where the problem-body faults act. Titles and invalid-params reasons are the
literal Dutch texts of the public API (bag-api.md 5.2 and 5.4).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from starlette.responses import Response

from conformance.mocks.address import faults as F
from conformance.mocks.address import faults_general as G
from conformance.mocks.faults import FaultSet, fault

PROBLEM_JSON = "application/problem+json"

# code -> (HTTP status, Dutch title)
CODES: dict[str, tuple[int, str]] = {
    "paramsRequired": (400, "Ten minste één parameter moet worden opgegeven."),
    "paramsCombination": (400, "Minimale combinatie van parameters moet worden opgegeven."),
    "unsupportedCombination": (400, "De combinatie van opgegeven parameters is niet toegestaan."),
    "paramsValidation": (400, "Een of meerdere parameters zijn niet correct."),
    "authentication": (401, "Niet correct geauthenticeerd."),
    "autorisation": (403, "U bent niet geautoriseerd voor deze operatie."),
    "notFound": (404, "Opgevraagde resource bestaat niet."),
    "methodNotAllowed": (405, "Deze methode is niet toegestaan"),
    "notAcceptable": (406, "Gevraagde contenttype wordt niet ondersteund."),
    "crsNotAcceptable": (406, "CRS niet ondersteund."),
    "crsNotSupported": (415, "CRS niet ondersteund"),
    "tooManyRequests": (429, "Te veel verzoeken."),
    "serverError": (500, "Interne server fout."),
    "notAvailable": (503, "Bronservice is tijdelijk niet beschikbaar."),
}

# The fault `wrong_error_code` answers with these near misses.
_WRONG_CODES: dict[str, str] = {
    "paramsRequired": "paramsrequired",
    "paramsCombination": "paramscombination",
    "unsupportedCombination": "unsupportedCombi",
    "paramsValidation": "paramsvalidation",
    "authentication": "unauthorized",
    "autorisation": "authorization",
    "notFound": "notfound",
    "methodNotAllowed": "methodnotallowed",
    "notAcceptable": "notacceptable",
    "crsNotAcceptable": "crsnotacceptable",
    "crsNotSupported": "crsnotsupported",
    "tooManyRequests": "toomanyrequests",
    "serverError": "servererror",
    "notAvailable": "sourceUnavailable",
}

_TYPES: dict[int, str] = {
    400: "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.1",
    401: "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.2",
    403: "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.4",
    404: "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.5",
    405: "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.6",
    406: "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.7",
    415: "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.4.16",
    429: "https://datatracker.ietf.org/doc/html/rfc6585#section-4",
    500: "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.5.1",
    503: "https://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html#sec10.5.4",
}

_DETAILS: dict[int, str] = {
    400: "The request could not be understood by the server due to malformed syntax.",
    401: "The request requires user authentication.",
    403: "The server understood the request, but is refusing to fulfill it.",
    404: "The server has not found anything matching the Request-URI.",
    405: "The method specified in the Request-Line is not allowed for the resource.",
    406: "The resource identified by the request is not capable of generating the requested content.",
    415: "The server is refusing to service the request because the entity is in an unsupported format.",
    429: "The user has sent too many requests in a given amount of time.",
    500: "The server encountered an unexpected condition which prevented it from fulfilling the request.",
    503: "The server is currently unable to handle the request.",
}

# invalid-params reasons (bag-api.md 5.4); `{}` is filled in with the limit or value.
REASONS: dict[str, str] = {
    "integer": "Waarde is geen geldige integer.",
    "number": "Waarde is geen geldige number.",
    "boolean": "Waarde is geen geldige boolean.",
    "date": "Waarde is geen geldige datum.",
    "timestamp": "Waarde is geen geldig tijdstip.",
    "enum": "Waarde heeft geen geldige waarde uit de enumeratie.",
    "minimum": "Waarde is lager dan minimum {}.",
    "maximum": "Waarde is hoger dan maximum {}.",
    "minLength": "Waarde is korter dan minimale lengte {}.",
    "maxLength": "Waarde is langer dan maximale lengte {}.",
    "pattern": "Waarde voldoet niet aan patroon {}.",
    "required": "Parameter is verplicht.",
    "expand": "Deel van de parameterwaarde is niet correct: {}.",
    "schema": "Waarde voldoet niet aan schema van {}.",
    "notAllowedCharacter": "Parameter bevat niet toegestane karakters.",
    "range": "Min mag niet hoger zijn dan max.",
    "surfaceMaximum": "Waarde is hoger dan maximum oppervlakte 250000 m2.",
    "geometryMismatch": "Waarde is niet conform opgegeven CRS.",
    "minItems": "Array bevat minder dan {} items.",
    "maxItems": "Array bevat meer dan {} items.",
    "unsupportedCombination": "De combinatie van opgegeven parameters is niet toegestaan.",
}

# Type errors: only the first one is reported (bag-api.md 5.5); all others are reported.
TYPE_CODES = frozenset({"integer", "number", "boolean", "enum", "date", "timestamp"})

_VALIDATION_TYPE = "https://www.vng.nl/realisatie/api/validaties/"


@dataclass(frozen=True)
class InvalidParam:
    name: str
    code: str
    reason: str

    @classmethod
    def of(cls, name: str, code: str, arg: object = "") -> InvalidParam:
        return cls(name, code, REASONS[code].format(arg))

    def as_dict(self) -> dict[str, str]:
        return {
            "type": _VALIDATION_TYPE + self.code,
            "name": self.name,
            "code": self.code,
            "reason": self.reason,
        }


@dataclass
class ProblemError(Exception):
    code: str
    invalid_params: list[InvalidParam] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    # Extra members (ExtendedProblemDetails on 429).
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> int:
        return CODES[self.code][0]


def required(names: list[str], code: str = "paramsRequired") -> ProblemError:
    return ProblemError(code, [InvalidParam.of(n, "required") for n in names])


def unsupported(names: list[str]) -> ProblemError:
    return ProblemError(
        "unsupportedCombination", [InvalidParam.of(n, "unsupportedCombination") for n in names]
    )


def validation(items: list[InvalidParam]) -> ProblemError:
    return ProblemError("paramsValidation", items)


# A 400 for a request without its required or identifying parameter is answered as the public
# service answers it (bag-api.md 4.11: "400 without invalid-params"), where seed part 7 has
# "invalid-params lists faulty parameters"; the 400s for a faulty value keep their list.
PARAMS_REQUIRED_WITHOUT_INVALID_PARAMS = fault(
    "address.params_required_without_invalid_params",
    "400 paramsRequired answers (no required or identifying parameter given) carry no invalid-params; "
    "the other 400s still list their faulty parameters", shows="invalid-params",
)


def render_problem(err: ProblemError, instance: str, faults: FaultSet) -> Response:
    status, title = CODES[err.code]
    code = _WRONG_CODES[err.code] if faults.on(F.WRONG_ERROR_CODE.name) else err.code
    body: dict[str, Any] = {
        "type": _TYPES[status],
        "title": title,
        "status": status + 1 if faults.on(F.PROBLEM_STATUS_MISMATCH.name) else status,
        "detail": _DETAILS[status],
        "instance": instance,
        "code": code,
    }
    type_not_uri = faults.on(G.PROBLEM_TYPE_NOT_URI.name)
    if type_not_uri:  # a phrase where a URI reference is due
        body["type"] = re.sub("([A-Z])", r" \1", err.code).lower() + " error"  # "params required error"
    listed = not (err.code == "paramsRequired" and faults.on(PARAMS_REQUIRED_WITHOUT_INVALID_PARAMS.name))
    if status == 400 and listed and not faults.on(F.INVALID_PARAMS_MISSING.name):
        items = [p.as_dict() for p in err.invalid_params]
        if type_not_uri:
            for item in items:
                item["type"] = f"{item['code']} {item['name']}"
        if faults.on(F.INVALID_PARAMS_WITHOUT_NAME.name):
            for item in items:
                del item["name"]
        body["invalid-params"] = items
    body.update(err.extra)
    media = "application/json" if faults.on(F.PROBLEM_AS_PLAIN_JSON.name) else PROBLEM_JSON
    return Response(json_bytes(body), status_code=status, headers=err.headers, media_type=media)


# What json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False) makes,
# without building a JSONEncoder for every answer: its encode() is json_text.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODE = (
    None
    if _C_ENCODER is None
    else _C_ENCODER(
        None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, False
    )
)


def json_text(body: Any) -> str:
    if type(body) is KnownJson and body.known_count:
        return body.encoded()
    if _C_ENCODE is None or isinstance(body, str):
        return _ENCODER.encode(body)
    # JSONEncoder.encode as it runs with the C speedups, less the check for circular
    # references (an answer is a tree built for it: values are shared, never circular).
    return "".join(_C_ENCODE(body, 0))


def json_bytes(body: Any) -> bytes:
    return json_text(body).encode("utf-8")


class KnownJson(dict[str, Any]):
    """A JSON object whose first `known_count` members are encoded already (`known`: their
    text between the braces), so json_bytes encodes only the members added after them.

    Changing or removing a member, rather than adding one, forgets the known text: the
    object is then encoded whole. (Values are never changed in place: they are shared.)"""

    __slots__ = ("known", "known_count")

    def __init__(self, members: dict[str, Any], known: str) -> None:
        super().__init__(members)
        self.known = known
        self.known_count = len(members)

    def encoded(self) -> str:
        """What json_text(dict(self)) is."""
        parts = [self.known]
        for key, value in islice(self.items(), self.known_count, None):
            if type(key) is not str:
                return json_text(dict(self))
            parts.append(json_text(key) + ":" + json_text(value))
        return "{" + ",".join(parts) + "}"

    def _forget(self) -> None:
        self.known_count = 0

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self:
            self._forget()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._forget()
        super().__delitem__(key)

    def __ior__(self, other: Any) -> KnownJson:  # type: ignore[override,misc]
        self._forget()
        return super().__ior__(other)  # type: ignore[return-value]

    def pop(self, *args: Any) -> Any:
        self._forget()
        return super().pop(*args)

    def popitem(self) -> tuple[str, Any]:
        self._forget()
        return super().popitem()

    def clear(self) -> None:
        self._forget()
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._forget()
        super().update(*args, **kwargs)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._forget()
        return super().setdefault(key, default)
