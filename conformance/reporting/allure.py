"""The Allure adapter: the only module that talks to allure-pytest.

Labels and links are added as pytest markers at collection (allure-pytest reads them
when the test starts); evidence (redacted exchanges) is attached after the test body.
"""

from __future__ import annotations

import json

import allure
import pytest

from conformance.checks.registry import Check, Severity
from conformance.http.exchange import Exchange

_SEVERITY = {
    Severity.MUST: allure.severity_level.CRITICAL,
    Severity.SHOULD: allure.severity_level.NORMAL,
    Severity.OBSERVATION: allure.severity_level.TRIVIAL,
}
_EPIC = {"address": "Address API (specification 000)", "auth": "Authorization server (specification 001, part a)",
         "soap": "SOAP message service (specification 001, part b)"}

SEED_FILES = {"ADDR": "000_cca6f102b48e2c17.txt", "AUTH": "001_a6026fda4ad71339.txt", "SOAP": "001_a6026fda4ad71339.txt"}


def requirement_url(requirement: str) -> str:
    """A link for a requirement id: RFC text, or the seed part it cites."""
    prefix, _, rest = requirement.partition("-")
    if prefix.startswith("RFC") and prefix[3:].isdigit():
        section = rest.split(".", 1)[0] and rest
        return f"https://www.rfc-editor.org/rfc/rfc{prefix[3:]}#section-{section}"
    if prefix in SEED_FILES:
        return f"../shared/seeds/{SEED_FILES[prefix]}#part-{rest.split('.', 1)[0]}"
    if prefix == "SOAP11":
        return f"https://www.w3.org/TR/2000/NOTE-SOAP-20000508/#section-{rest}"
    if prefix == "WSI":
        return f"https://www.ws-i.org/Profiles/BasicProfile-1.1.html#{rest.rsplit('-', 1)[-1]}"
    if prefix == "BAGREF":
        return f"../shared/reference/bag-api.md#{rest}"
    return requirement


def label_item(item: pytest.Item, check: Check) -> None:
    mark = pytest.mark
    item.add_marker(mark.allure_label(_EPIC.get(check.suite, check.suite), label_type="epic"))
    item.add_marker(mark.allure_label(check.feature or check.id.split(".")[1], label_type="feature"))
    item.add_marker(mark.allure_label(check.title, label_type="story"))
    item.add_marker(mark.allure_label(_SEVERITY[check.severity].value, label_type="severity"))
    item.add_marker(mark.allure_label(check.id, label_type="check_id"))
    item.add_marker(mark.allure_label(str(check.severity), label_type="tag"))
    for requirement in check.requirements:
        item.add_marker(mark.allure_label(requirement, label_type="requirement"))
        item.add_marker(mark.allure_link(requirement_url(requirement), link_type="link", name=requirement))


def attach_exchanges(exchanges: list[Exchange]) -> None:
    """Attach already-redacted exchanges to the running test."""
    for index, ex in enumerate(exchanges[:50], start=1):
        allure.attach(
            render_exchange(ex),
            name=f"{index:02d} {ex.method} {ex.path} -> {ex.status}",
            attachment_type=allure.attachment_type.TEXT,
        )


def tag_cause(cause: str | None) -> None:
    """Group the checks one cause took down: a tag the report filters on (the run's
    root causes are listed as a whole in the global attachment "Root causes")."""
    if cause:
        allure.dynamic.tag(f"cause: {cause[:200]}")


def attach_observation(value: object) -> None:
    allure.attach(json.dumps(value, indent=2, default=str), name="observed value",
                  attachment_type=allure.attachment_type.JSON)


def render_exchange(ex: Exchange, body_limit: int = 20_000) -> str:
    lines = [f"{ex.method} {ex.url}"]
    lines += [f"{k}: {v}" for k, v in ex.request_headers.items()]
    if ex.request_body:
        lines += ["", ex.request_body[:body_limit].decode("utf-8", "replace")]
    lines += ["", f"HTTP {ex.status}  ({ex.elapsed_ms:.0f} ms)"]
    lines += [f"{k}: {v}" for k, v in ex.response_headers.items()]
    if ex.body:
        body = ex.body[:body_limit].decode("utf-8", "replace")
        if ex.json is not None and len(ex.body) <= body_limit:
            body = json.dumps(ex.json, indent=2, ensure_ascii=False)
        lines += ["", body]
    return "\n".join(lines)


def attach_side_by_side(title: str, reference: Exchange, vendor: Exchange, differences: list[str]) -> None:
    """A comparison's evidence: the register's answer beside the vendor's (side by side in
    an HTML table, each as the exchange is rendered elsewhere), then the differences."""
    import html

    cells = "".join(f"<td><pre>{html.escape(render_exchange(ex))}</pre></td>" for ex in (reference, vendor))
    listed = "".join(f"<li>{html.escape(line)}</li>" for line in differences)
    page = ("<html><head><meta charset='utf-8'><style>td{vertical-align:top;width:50%} pre{white-space:pre-wrap;"
            "font-size:12px}</style></head><body><table><tr><th>register's environment (reference)</th>"
            f"<th>vendor</th></tr><tr>{cells}</tr></table><h4>differences</h4><ul>{listed}</ul></body></html>")
    allure.attach(page, name=title, attachment_type=allure.attachment_type.HTML)


def step(title: str):
    """A named step of a multi-step flow (authorize, log in, exchange, use, refresh).
    Outside a running test it records nothing."""
    return allure.step(title)
