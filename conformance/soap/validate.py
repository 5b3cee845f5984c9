"""Validate captured SOAP messages against a loaded WSDL and its types schema.

A capture is either a bare envelope or an HTTP message with headers (a request line
`POST /path HTTP/1.1` or a status line `HTTP/1.1 500 ...`, header lines, a blank line, the
body). The report lists every issue with the requirement it breaks and, where one exists,
the line number in the captured file (body lines are shifted by the header block).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from conformance.http.exchange import Headers
from conformance.soap.envelope import EnvelopeView, inspect_envelope
from conformance.soap.loader import MAX_XML_BYTES, ServiceContract, XmlRefused, parse_untrusted

_REQUEST_LINE = re.compile(rb"^([A-Z]+) (\S+) HTTP/\d(\.\d)?$")
_STATUS_LINE = re.compile(rb"^HTTP/\d(\.\d)? (\d{3})(?: .*)?$")
_HEADER_LINE = re.compile(rb"^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$")
_XML_CHARSETS = ("utf-8", "utf-16")


@dataclass(frozen=True)
class Issue:
    rule: str  # a requirement id, or "XSD" / "XML" for schema and well-formedness errors
    message: str
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "message": self.message, "line": self.line}


@dataclass(frozen=True)
class MessageReport:
    source: str
    kind: str  # request, response, fault, unknown
    operation: str | None
    issues: tuple[Issue, ...]

    @property
    def valid(self) -> bool:
        return not self.issues

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "kind": self.kind,
            "operation": self.operation,
            "valid": self.valid,
            "issues": [i.to_dict() for i in self.issues],
        }


@dataclass(frozen=True)
class Capture:
    direction: str | None  # request, response, or None for a bare envelope / bare headers
    method: str | None
    status: int | None
    headers: Headers | None
    body: bytes
    line_offset: int  # lines of the file before the body's first line
    header_lines: tuple[tuple[str, int], ...] = ()  # (lower-case name, line number)

    def line_of(self, header: str) -> int:
        """The line of a header in the capture (the start line when it is absent)."""
        return next((line for name, line in self.header_lines if name == header.lower()), 1)


def split_capture(data: bytes) -> Capture:
    """Separate an HTTP capture's start line and headers from the body. A bare envelope
    (the first non-blank character is `<`) has no headers."""
    if data.startswith(b"\xef\xbb\xbf") or data.lstrip()[:1] in (b"<", b""):
        return Capture(None, None, None, None, data, 0)
    lines = data.split(b"\n")
    direction = method = status = None
    index = 0
    first = lines[0].rstrip(b"\r")
    if match := _REQUEST_LINE.match(first):
        direction, method, index = "request", match.group(1).decode(), 1
    elif match := _STATUS_LINE.match(first):
        direction, status, index = "response", int(match.group(2)), 1
    items: list[tuple[str, str]] = []
    positions: list[tuple[str, int]] = []
    while index < len(lines):
        line = lines[index].rstrip(b"\r")
        index += 1
        if not line:
            break
        header = _HEADER_LINE.match(line)
        if header is None:  # not a header block after all: treat the file as a body
            return Capture(None, None, None, None, data, 0)
        items.append((header.group(1).decode("latin-1"), header.group(2).decode("latin-1")))
        positions.append((items[-1][0].lower(), index))
    body = b"\n".join(lines[index:])
    return Capture(direction, method, status, Headers(items), body, index, tuple(positions))


def content_type_parts(value: str | None) -> tuple[str, dict[str, str]]:
    """(media type lower case, parameters with lower-case names and unquoted values)."""
    if not value:
        return "", {}
    media, *params = value.split(";")
    parsed: dict[str, str] = {}
    for param in params:
        name, _, val = param.partition("=")
        parsed[name.strip().lower()] = val.strip().strip('"')
    return media.strip().lower(), parsed


def validate_message(
    data: bytes, contract: ServiceContract, *, source: str = "-", max_bytes: int = MAX_XML_BYTES
) -> MessageReport:
    capture = split_capture(data)
    issues: list[Issue] = []
    shift = capture.line_offset

    if capture.headers is not None:
        issues += _content_type_issues(capture)
        if capture.direction == "request" and capture.method != "POST":
            issues.append(Issue("SOAP11-6.1", f"a SOAP HTTP request uses POST, not {capture.method}", 1))
    try:
        tree = parse_untrusted(capture.body, max_bytes=max_bytes, what="the message body")
    except XmlRefused as exc:
        line = exc.line + shift if exc.line else None
        rule = "WSI-BP11-R1008" if exc.reason == "doctype" else "XML"
        return _report(source, "unknown", None, tuple(issues + [Issue(rule, exc.message, line)]))

    view = inspect_envelope(tree.getroot())
    issues += [Issue(p.rule, p.message, _shifted(p.line, shift)) for p in view.problems]
    if view.version != "1.1" or view.body is None:
        return _report(source, "unknown", None, tuple(issues))
    if view.fault is not None:
        if capture.status is not None and capture.status != 500:
            issues.append(Issue("WSI-BP11-R1126", f"a Fault is sent with HTTP 500, not {capture.status}", 1))
        issues += [Issue(p.rule, p.message, _shifted(p.line, shift)) for p in view.fault.problems]
        return _report(source, "fault", None, tuple(issues))

    kind, operation, body_issues = _body_issues(view, contract, capture, shift)
    issues += body_issues
    if kind == "request" and capture.headers is not None and operation is not None:
        issues += _soap_action_issues(capture, contract.operations[operation].soap_action)
    if kind == "response" and capture.status is not None and capture.status != 200:
        issues.append(Issue("WSI-BP11-R1111", f"a non-fault response is sent with HTTP 200, not {capture.status}", 1))
    return _report(source, kind, operation, tuple(issues))


def _report(source: str, kind: str, operation: str | None, issues: tuple[Issue, ...]) -> MessageReport:
    ordered = sorted(issues, key=lambda i: (i.line is None, i.line or 0))
    return MessageReport(source, kind, operation, tuple(ordered))


def _body_issues(
    view: EnvelopeView, contract: ServiceContract, capture: Capture, shift: int
) -> tuple[str, str | None, list[Issue]]:
    children = view.body_children
    if len(children) != 1:
        line = _shifted(view.body.sourceline if view.body is not None else None, shift)
        found = ", ".join(c.tag for c in children) or "nothing"
        return "unknown", None, [
            Issue("WSI-BP11-R2201", f"a document/literal Body holds exactly one element, found {found}", line)
        ]
    child = children[0]
    request_op = contract.operation_for_input(child.tag)
    response_op = contract.operation_for_output(child.tag)
    issues: list[Issue] = []
    if capture.direction == "request" and request_op is None:
        issues.append(Issue("WSI-BP11-R2712", f"{child.tag} is not the input element of any operation", _shifted(child.sourceline, shift)))
    if capture.direction == "response" and response_op is None:
        issues.append(Issue("WSI-BP11-R2712", f"{child.tag} is not the output element of any operation", _shifted(child.sourceline, shift)))
    if request_op is None and response_op is None and not issues:
        issues.append(
            Issue("WSI-BP11-R2712", f"{child.tag} is neither an input nor an output element of the WSDL", _shifted(child.sourceline, shift))
        )
    if issues:
        return "unknown", None, issues
    if capture.direction == "response" or (capture.direction is None and request_op is None):
        kind, operation = "response", response_op.name if response_op else None
    else:
        kind, operation = "request", request_op.name if request_op else None
    for line, message in contract.schema_errors(child):
        issues.append(Issue("XSD", message, _shifted(line, shift)))
    return kind, operation, issues


def _content_type_issues(capture: Capture) -> list[Issue]:
    assert capture.headers is not None
    line = capture.line_of("content-type")
    media, params = content_type_parts(capture.headers.get("content-type"))
    if not media:
        return [Issue("SOAP11-6", "no Content-Type header", line)]
    if media != "text/xml":
        hint = " (the SOAP 1.2 media type)" if media == "application/soap+xml" else ""
        return [Issue("SOAP11-6", f"Content-Type is {media}{hint}, the SOAP 1.1 binding uses text/xml", line)]
    charset = params.get("charset", "").lower()
    if charset not in _XML_CHARSETS:
        found = f"charset={charset}" if charset else "no charset (text/xml then defaults to us-ascii)"
        return [Issue("WSI-BP11-R1012", f"text/xml with {found}; expected utf-8 or utf-16", line)]
    return []


def _soap_action_issues(capture: Capture, expected: str | None) -> list[Issue]:
    assert capture.headers is not None
    value = capture.headers.get("soapaction")
    line = capture.line_of("soapaction")
    if value is None:
        return [Issue("SOAP11-6.1.1", "the request has no SOAPAction header", line)]
    issues: list[Issue] = []
    action = value
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        action = value[1:-1]
    else:
        issues.append(Issue("WSI-BP11-R1109", f"SOAPAction {value!r} is not a quoted string", line))
    wanted = expected or ""
    if action != wanted:
        rule = "WSI-BP11-R2744" if expected else "WSI-BP11-R2745"
        issues.append(Issue(rule, f"SOAPAction is {value}, the WSDL binding says \"{wanted}\"", line))
    return issues


def _shifted(line: int | None, shift: int) -> int | None:
    return line + shift if line else None
