"""Every answer of the address API judged against the response schema its description gives it.

`ResponseSchemas` finds, for one answer, the operation of the profile's description its
request addressed (method and path template below the base URL, literal segments before
parameters), the response its status has there, and that response's JSON schema for the
answer's media type. The schema is schemathesis's own: its `$ref` resolution, OpenAPI 3
`nullable`, bundling and compiled (jsonschema_rs) validator, built once per operation,
status and media type and cached, so an answer costs its JSON parse and one validation.

Answers that are not judged here, and why (other checks judge them): a body that is not
JSON, a status or operation the description does not define, an answer that broke HTTP or a
limit of the bounded client (recorded without its body).

While a run watches (`start` .. `stop`, one `Tally` per process), `observe` judges every
answer an `AddressApi` receives -- scenario checks, fuzzing, sample validation, discovery --
and keeps each violation once per (operation, status, JSON path, kind), with a count and
the first offending (redacted) exchange. The check address.response.schema_valid
(conformance/checks/address/response_schema.py) gathers the tallies of a run's processes.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from conformance.http.exchange import Exchange

MAX_ERRORS_PER_ANSWER = 50
UNDESCRIBED_STATUS = "answers with a status the description does not define for their operation"
MAX_MESSAGE = 300
_PARAM = re.compile(r"\{[^}/]+\}")


def is_json_media(media_type: str | None) -> bool:
    media = (media_type or "").split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


@dataclass(frozen=True)
class SchemaError:
    location: str  # JSON path of the offending value, array indices as [*]: $._embedded.adressen[*].huisnummer
    kind: str      # the JSON Schema keyword that failed: type, required, pattern, oneOf...
    message: str   # the validator's message for the first answer that showed it
    public: bool = False  # breaks only a constraint the description marks public behaviour


@dataclass(frozen=True)
class Judgement:
    operation: str        # "GET /adressen/{nummeraanduidingIdentificatie}" (template below the base URL)
    operation_id: str | None
    status: int
    schema: str | None    # the schema's component name when the description names one
    errors: tuple[SchemaError, ...]
    marks_public: bool = False  # whether the description marks public-behaviour constraints

    @property
    def label(self) -> str:
        return self.operation + (f" ({self.operation_id})" if self.operation_id else "")


class ResponseSchemas:
    """The response schemas of one loaded (schemathesis) description, by answer."""

    def __init__(self, schema: Any, base_url: str, seed: ResponseSchemas | None = None) -> None:
        # `seed`: the same description's seed view, when it marks public-behaviour constraints
        # (conformance/openapi/seed_view.py): its violations are the seed's, the rest public.
        self._seed = seed
        self._schema = schema
        self._raw = schema.raw_schema
        self._base_path = urlsplit(base_url).path.rstrip("/")
        methods = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
        templates = [(m.upper(), path) for path, item in (self._raw.get("paths") or {}).items()
                     if isinstance(item, dict) for m in item if m in methods]
        # Concrete paths: literal segments win over parameters (/adressen/zoek is not /adressen/{id}).
        self._templates = sorted(
            ((method, path, re.compile("^" + "[^/]+".join(re.escape(p) for p in _PARAM.split(path)) + "$"))
             for method, path in templates),
            key=lambda t: (len(_PARAM.findall(t[1])), -len(t[1])),
        )
        self._prepared: dict[tuple[str, str, int, str], Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def load(cls, service: Any, base_url: str) -> ResponseSchemas:
        from conformance.openapi.loader import load_schema
        from conformance.openapi.seed_view import has_marks

        schema = load_schema(service, base_url)
        seed = cls(load_schema(service, base_url, seed_only=True), base_url) if has_marks(schema.raw_schema) else None
        return cls(schema, base_url, seed)

    @property
    def marks_public(self) -> bool:
        return self._seed is not None

    def operation_of(self, method: str, path: str) -> str | None:
        """The description's path template a request (path below the base URL) addresses."""
        for m, template, regex in self._templates:
            if m == method.upper() and regex.match(path):
                return template
        return None

    def judge(self, ex: Exchange) -> Judgement | str:
        """The answer judged, or why it is not (a reason shared by the answers it applies to)."""
        if ex.notes.get("violation") or ex.truncated or ex.status == 0:
            return "answers the bounded client stopped reading (other checks report them)"
        path = ex.path
        if self._base_path:
            if not path.startswith(self._base_path):
                return "answers to requests outside the base URL"
            path = path[len(self._base_path):] or "/"
        template = self.operation_of(ex.method, path)
        if template is None:
            return "answers to operations the description does not have"
        prepared = self._prepare(ex.method.upper(), template, ex.status, ex.media_type)
        if prepared == UNDESCRIBED_STATUS:
            return prepared
        data = ex.json if is_json_media(ex.media_type) else None
        if data is None:
            return "answers that are not JSON"
        if isinstance(prepared, str):
            return prepared
        validator, operation_id, schema_name = prepared
        errors = _errors(validator, data)
        if errors and self._seed is not None:
            seed = self._seed.judge(ex)
            seed_errors = seed.errors if isinstance(seed, Judgement) else ()
            known = {(e.location, e.kind) for e in seed_errors}
            errors = list(seed_errors) + [SchemaError(e.location, e.kind, e.message, public=True)
                                          for e in errors if (e.location, e.kind) not in known]
        return Judgement(f"{ex.method.upper()} {template}", operation_id, ex.status, schema_name, tuple(errors),
                         self.marks_public)

    def _prepare(self, method: str, template: str, status: int, media_type: str) -> Any:
        key = (method, template, status, media_type)
        cached = self._prepared.get(key)
        if cached is None:
            with self._lock:
                cached = self._prepared.get(key)
                if cached is None:
                    cached = self._prepared[key] = self._build(method, template, status, media_type)
        return cached

    def _build(self, method: str, template: str, status: int, media_type: str) -> Any:
        operation = self._schema[template][method]
        definition = operation.responses.find_by_status_code(status)
        if definition is None:
            return UNDESCRIBED_STATUS
        resolved = definition.get_schema(media_type or None)
        if resolved.schema is None and is_json_media(media_type):
            # JSON under another media type than the described one (application/json for
            # hal+json): the content type is another check's; the shape is judged here.
            resolved = definition.get_schema(None)
        if resolved.schema is None or not is_json_media(resolved.media_type):
            return "answers whose status the description gives no JSON schema"
        formats = self._schema.config.checks_config_for(operation=operation).response_schema_conformance.validate_formats
        validator = definition.get_validator(resolved.media_type, resolved.schema, validate_formats=formats)
        if validator is None:
            return "answers whose status the description gives no JSON schema"
        raw = operation.definition.raw
        return validator, raw.get("operationId"), self._schema_name(raw, definition.status_code, resolved.media_type)

    def _schema_name(self, raw: dict[str, Any], status_key: str, media_type: str | None) -> str | None:
        """`AdresIOHalCollection` for a response whose schema is a `$ref` to a component."""
        try:
            response = self._deref((raw.get("responses") or {}).get(status_key) or {})
            content = response.get("content") or {}
            schema = (content.get(media_type) or next(iter(content.values()), {})).get("schema") or {}
            ref = schema.get("$ref") if isinstance(schema, dict) else None
            return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None
        except (AttributeError, KeyError, TypeError, StopIteration):
            return None

    def _deref(self, node: Any) -> Any:
        for _ in range(8):
            ref = node.get("$ref") if isinstance(node, dict) else None
            if not isinstance(ref, str) or not ref.startswith("#/"):
                return node
            target: Any = self._raw
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node


def _errors(validator: Any, data: Any) -> list[SchemaError]:
    errors = []
    for err in validator.iter_errors(data):
        errors.append(_schema_error(err))
        if len(errors) >= MAX_ERRORS_PER_ANSWER:
            break
    return errors


def _schema_error(err: Any) -> SchemaError:
    location = "$" + "".join("[*]" if isinstance(p, int) else f".{p}" for p in err.instance_path)
    kind_name = type(err.kind).__name__
    kind = {"Required": "required", "Type": "type", "AdditionalProperties": "additionalProperties",
            "OneOfNotValid": "oneOf", "OneOfMultipleValid": "oneOf", "AnyOf": "anyOf", "Enum": "enum",
            "Pattern": "pattern", "Format": "format", "MinLength": "minLength", "MaxLength": "maxLength",
            "Minimum": "minimum", "Maximum": "maximum", "MinItems": "minItems", "MaxItems": "maxItems",
            "Constant": "const"}.get(kind_name, kind_name[:1].lower() + kind_name[1:])
    if kind == "required":
        location += f".{getattr(err.kind, 'property', '?')}"
    message = str(err.message)
    return SchemaError(location, kind, message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "...")


# --------------------------------------------------------------------------- one process's tally
@dataclass
class Violation:
    operation: str       # Judgement.label
    status: int
    schema: str | None
    location: str
    kind: str
    message: str
    count: int = 0       # answers that showed it
    public: bool = False  # a constraint the description marks public behaviour (SHOULD), else the seed's (MUST)
    exchange: dict[str, Any] | None = None  # the first of them, redacted, as a HAR entry

    @property
    def key(self) -> str:
        return f"{self.operation}|{self.status}|{self.location}|{self.kind}" + ("|public" if self.public else "")

    def first_exchange(self) -> Exchange | None:
        if self.exchange is None:
            return None
        from conformance.passive.har import _exchange

        return _exchange(self.exchange)


@dataclass
class Tally:
    """What one process's answers showed: how many were validated, why others were not, and
    each violation once with the number of answers that showed it."""

    validated: int = 0
    offending: int = 0   # answers breaking a seed constraint (or any, in an unmarked description)
    offending_public: int = 0  # answers breaking a constraint marked public behaviour
    marks_public: bool = False  # whether the description marks public-behaviour constraints
    skipped: Counter[str] = field(default_factory=Counter)
    violations: dict[str, Violation] = field(default_factory=dict)
    dirty: bool = False

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add(self, judgement: Judgement | str, ex: Exchange) -> None:
        with self._lock:
            self.dirty = True
            if isinstance(judgement, str):
                self.skipped[judgement] += 1
                return
            self.validated += 1
            self.marks_public = self.marks_public or judgement.marks_public
            if not judgement.errors:
                return
            self.offending += any(not e.public for e in judgement.errors)
            self.offending_public += any(e.public for e in judgement.errors)
            seen: set[str] = set()
            for error in judgement.errors:
                v = Violation(judgement.label, judgement.status, judgement.schema, error.location, error.kind,
                              error.message, public=error.public)
                if v.key in seen:  # twenty addresses of one answer: one answer showing it
                    continue
                seen.add(v.key)
                known = self.violations.get(v.key)
                if known is None:
                    from conformance.passive.har import har_document

                    v.exchange = har_document([ex])["log"]["entries"][0]
                    known = self.violations[v.key] = v
                known.count += 1

    def merge(self, other: Tally) -> None:
        self.validated += other.validated
        self.offending += other.offending
        self.offending_public += other.offending_public
        self.marks_public = self.marks_public or other.marks_public
        self.skipped.update(other.skipped)
        for key, v in other.violations.items():
            known = self.violations.get(key)
            if known is None:
                self.violations[key] = Violation(**asdict(v))
            else:
                known.count += v.count

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            return {"validated": self.validated, "offending": self.offending,
                    "offending_public": self.offending_public, "marks_public": self.marks_public,
                    "skipped": dict(self.skipped),
                    "violations": [asdict(v) for v in self.violations.values()]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        tally = cls(validated=int(data.get("validated", 0)), offending=int(data.get("offending", 0)),
                    offending_public=int(data.get("offending_public", 0)),
                    marks_public=bool(data.get("marks_public", False)),
                    skipped=Counter({str(k): int(n) for k, n in (data.get("skipped") or {}).items()}))
        for item in data.get("violations") or []:
            v = Violation(**item)
            tally.violations[v.key] = v
        return tally


# --------------------------------------------------------------------------- the process's watch
_WATCH: Tally | None = None
_SCHEMAS: dict[tuple[str, str, str], ResponseSchemas | str] = {}
_SCHEMAS_LOCK = threading.Lock()


def start() -> Tally:
    """Judge every answer of the address API from now on (a run, a discovery): a fresh tally."""
    global _WATCH
    _WATCH = Tally()
    return _WATCH


def stop() -> Tally | None:
    """Stop judging; the tally of what was judged since `start`."""
    global _WATCH
    tally, _WATCH = _WATCH, None
    return tally


def current() -> Tally | None:
    return _WATCH


def observe(service: Any, base_url: str, ex: Exchange) -> None:
    """Judge one answer of the address API, when a run watches. Never raises: a description
    that cannot be loaded, or a validator that breaks, leaves the answer not validated (why
    is counted), and the request's own check goes on."""
    tally = _WATCH
    if tally is None:
        return
    try:
        schemas = schemas_for(service, base_url)
        tally.add(schemas if isinstance(schemas, str) else schemas.judge(ex), ex)
    except Exception as exc:  # the judging must never break the check whose request this was
        tally.add(f"answers the validator could not judge ({type(exc).__name__}: {str(exc)[:120]})", ex)


def schemas_for(service: Any, base_url: str) -> ResponseSchemas | str:
    """The description's response schemas, loaded once per process (or why they cannot be)."""
    key = (str(service.openapi), str(getattr(service, "registry_prefix", "")), base_url)
    found = _SCHEMAS.get(key)
    if found is None:
        with _SCHEMAS_LOCK:
            found = _SCHEMAS.get(key)
            if found is None:
                try:
                    found = ResponseSchemas.load(service, base_url)
                except Exception as exc:  # ConfigError names the description; the run reports it elsewhere
                    found = f"answers not validated: the description cannot be loaded ({exc})"
                _SCHEMAS[key] = found
    return found
