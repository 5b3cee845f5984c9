"""Evidence for the running test's report: redacted exchanges, observed values, the steps of
a flow, a comparison's two answers side by side, a cause tag. The only module besides the
run's labels (conformance/reporting/allure.py) that talks to allure-pytest; checks, suites and
clients attach through it. Outside a running test allure records nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import allure

from conformance.http.exchange import Exchange


def attach_exchanges(exchanges: list[Exchange]) -> None:
    """Attach already-redacted exchanges to the running test."""
    for index, ex in enumerate(exchanges[:50], start=1):
        allure.attach(
            render_exchange(ex),
            name=f"{index:02d} {ex.method} {ex.path} -> {ex.status}",
            attachment_type=allure.attachment_type.TEXT,
        )


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


def tag_cause(cause: str | None, mask: Callable[[str], str] = str) -> None:
    """Group the checks one cause took down: a tag the report filters on (the run's
    root causes are listed as a whole in the global attachment "Root causes"). `mask`: the
    run's redactor (a cause may quote a server's answer, which may echo a secret)."""
    if cause:
        allure.dynamic.tag(f"cause: {mask(cause)[:200]}")
