"""The conformance matrix: every catalogued requirement with one verdict for a run.

summary.json says how each check went; a release manager asks how each *requirement* went,
including those no check verifies (gaps) and those a run could not test (skipped, suite not
run). This module joins summary.json with the requirement catalogue and writes matrix.json
and matrix.md next to summary.json.

Verdicts: failed (a MUST check failed), failed in consequence (a MUST check failed only
through a root cause that breaks another requirement: summary.json `root_causes`, their
`in_consequence`), warning (a SHOULD check did), blocked (a MUST check
could not judge: a precondition failed or the check broke), waived (a check failed, and a
waiver of the run accepts it: conformance/reporting/waivers.py), not judged (a MUST check's
rule applies but the run lacked material, budget or a safety switch forbade it; or no other
check judged it), passed, observed (only measured, with the values), not tested (with the
reason). The head carries the run's coverage (conformance/reporting/coverage.py).
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from conformance import catalogue
from conformance.reporting import coverage
from conformance.reporting.summary import BLOCKED_OR_BROKEN, RANK
from conformance.requirements import Requirement, checks_index, load_requirements

VERDICTS = ("failed", "failed in consequence", "warning", "blocked", "waived", "not judged", "passed", "observed",
            "not tested")
API_TITLES = {
    "address": "Address API (specification 000)",
    "auth": "Authorization server (specification 001, part a)",
    "soap": "SOAP message service (specification 001, part b)",
}
GAP_REASON = "no check verifies it"


class CheckLike(Protocol):
    id: str
    severity: Any
    suite: str


def build_matrix(
    summary: dict[str, Any],
    requirements: dict[str, Requirement] | None = None,
    checks: dict[str, list[CheckLike]] | None = None,
) -> list[dict[str, Any]]:
    """One row per requirement: the catalogue's, then any a check named that the catalogue
    lacks (source "not in the catalogue"). `checks` maps requirement id -> registered checks
    (default: the registry); the checks that ran are read from the summary itself."""
    requirements = load_requirements() if requirements is None else requirements
    if checks is None:
        catalogue.load()  # the registry answers only once every declaring module is loaded
    registered = checks_index() if checks is None else checks
    ran = checks_by_id(summary.get("checks", []))
    for cause in summary.get("root_causes") or []:  # one defect, one finding: what it takes down besides its rule
        for check in cause.get("in_consequence", []):
            if check in ran:
                ran[check].setdefault("consequence_of", cause.get("words") or cause["cause"])
    suites_run = {c["suite"] for c in ran.values()}
    passive = summary.get("mode") == "passive"
    per_requirement: dict[str, dict[str, dict[str, Any]]] = {}
    for req, named_by in registered.items():
        for check in named_by:
            per_requirement.setdefault(req, {})[check.id] = _not_run(check)
    for check in ran.values():
        for req in check["requirements"]:
            per_requirement.setdefault(req, {})[check["check"]] = check
    rows = [_row(r, per_requirement.get(r.id, {}), suites_run, passive) for r in requirements.values()]
    for req in sorted(set(per_requirement) - set(requirements)):
        stray = Requirement(req, _api_of(per_requirement[req]), "not in the catalogue", "", "", "MUST")
        rows.append(_row(stray, per_requirement[req], suites_run, passive))
    return rows


def checks_by_id(entries: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """summary.json's entries are per test; per check: the worst outcome (with its reason)
    and every observed value."""
    out: dict[str, dict[str, Any]] = {}
    for e in entries:
        item = out.setdefault(e["check"], {
            "check": e["check"], "severity": e["severity"], "suite": e["suite"],
            "requirements": list(e["requirements"]), "outcome": "not run", "reason": None, "values": [],
        })
        if e["outcome"] == "observation":
            item["values"].append(e.get("value"))
        if RANK[e["outcome"]] > RANK[item["outcome"]]:
            item["outcome"], item["reason"] = e["outcome"], e.get("reason")
    return out


def _not_run(check: CheckLike) -> dict[str, Any]:
    return {"check": check.id, "severity": str(check.severity), "suite": check.suite,
            "outcome": "not run", "reason": None, "values": [], "observes": getattr(check, "observes", "probe")}


def _api_of(checks: dict[str, dict[str, Any]]) -> str:
    return next(iter(checks.values()))["suite"] if checks else "address"


def _row(req: Requirement, checks: dict[str, dict[str, Any]], suites_run: set[str],
         passive: bool = False) -> dict[str, Any]:
    verdict, reason = _verdict(list(checks.values()), suites_run, passive)
    if not checks and req.untestable:
        reason = f"{GAP_REASON}: not testable against a server ({req.untestable})"
    observed = {c["check"]: (c["values"][0] if len(c["values"]) == 1 else c["values"])
                for c in checks.values() if c["values"]}
    return {
        "id": req.id, "api": req.api, "source": req.source, "section": req.section,
        "text": req.text, "severity": req.severity, "verdict": verdict, "reason": reason,
        "gap": not checks, "observed": observed,
        "checks": [{k: c[k] for k in ("check", "severity", "outcome", "reason")} for c in checks.values()],
    }


def _verdict(checks: list[dict[str, Any]], suites_run: set[str], passive: bool = False) -> tuple[str, str | None]:
    if not checks:
        return "not tested", GAP_REASON
    failing = [c for c in checks if c["outcome"] == "failed"]
    for severity, verdict in (("MUST", "failed"), ("SHOULD", "warning")):
        hits = [c for c in failing if c["severity"] == severity]
        own = [c for c in hits if not c.get("consequence_of")]
        if own:
            return verdict, "; ".join(f"{c['check']}: {c['reason'] or c['outcome']}" for c in own)
        if hits and severity == "MUST":
            return "failed in consequence", "; ".join(f"{c['check']}: in consequence of {c['consequence_of']}"
                                                      for c in hits)
        if hits:
            return verdict, "; ".join(f"{c['check']}: in consequence of {c['consequence_of']}" for c in hits)
    not_judged = [c for c in checks if c["outcome"] in BLOCKED_OR_BROKEN and c["severity"] == "MUST"]
    if not_judged:
        return "blocked", "; ".join(f"{c['check']} {c['outcome']}: {c['reason']}" for c in not_judged)
    waived = [c for c in checks if c["outcome"] == "waived"]
    if waived:  # the reason says "failed, waived (why; ticket; until date): ..."
        return "waived", "; ".join(f"{c['check']}: {c['reason']}" for c in waived)
    unjudged = [c for c in checks if c["outcome"] == "not_judged"]
    if any(c["severity"] == "MUST" for c in unjudged):  # a rule that applies, not judged whole
        return "not judged", "; ".join(f"{c['check']}: {c['reason']}" for c in unjudged)
    failing = [c for c in checks if c["outcome"] in BLOCKED_OR_BROKEN]
    outcomes = {c["outcome"] for c in checks}
    if "passed" in outcomes:
        return "passed", None
    if "observation" in outcomes:
        return "observed", None
    if unjudged and not failing:
        return "not judged", "; ".join(f"{c['check']}: {c['reason']}" for c in unjudged)
    reasons = [f"{c['outcome']}: {c['reason']}" for c in failing]  # an observation check broke
    reasons += [f"{c['outcome'].replace('_', ' ')}: {c['reason']}" for c in checks
                if c["outcome"] in ("skipped", "not_applicable")]
    for c in checks:
        if c["outcome"] != "not run":
            continue
        if passive:  # recorded traffic: what only a request of the check's own can show needs an active run
            reasons.append(f"{c['check']} needs an active run" if c.get("observes", "probe") == "probe"
                           else f"{c['check']} not judged from traffic")
        else:
            reasons.append(f"suite {c['suite']} not run" if c["suite"] not in suites_run
                           else f"{c['check']} not run (deselected)")
    return "not tested", "; ".join(dict.fromkeys(reasons))


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts per verdict, overall and per API, and the number of gaps."""
    def count(selected: list[dict[str, Any]]) -> dict[str, int]:
        out = {"requirements": len(selected), **{v: 0 for v in VERDICTS}}
        for row in selected:
            out[row["verdict"]] += 1
        out["gaps"] = sum(1 for row in selected if row["gap"])
        return out

    apis = sorted({row["api"] for row in rows}, key=lambda a: (a not in API_TITLES, a))
    return {"all": count(rows), **{api: count([r for r in rows if r["api"] == api]) for api in apis}}


def to_json(summary: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "profile": summary.get("profile"), "started": summary.get("started"),
        "api_version": summary.get("api_version"), "totals": totals(rows), "requirements": rows,
    }


def _grouped(rows: list[dict[str, Any]]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """API -> source -> rows, in catalogue order."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for row in rows:
        out.setdefault(row["api"], {}).setdefault(row["source"], []).append(row)
    return out


def detail(row: dict[str, Any], limit: int = 240) -> str:
    """The one line a reader needs: why it failed or was not tested, or what was measured."""
    text = row["reason"] or ""
    if row["observed"]:
        values = "; ".join(f"{k}: {json.dumps(v, default=str, ensure_ascii=False)}" for k, v in row["observed"].items())
        text = f"{text}; observed {values}" if text else f"observed {values}"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_markdown(summary: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    counts = totals(rows)
    head = f"profile `{summary.get('profile')}`, started {summary.get('started')}"
    if summary.get("api_version"):
        head += f", api-version {summary['api_version']}"
    verdict = str(summary.get("verdict_text") or summary.get("verdict") or "").upper()
    if verdict:
        head += f"; verdict {verdict} {coverage.of_summary(summary)['line']}"
    if summary.get("mode") == "passive":
        covered = sum(1 for r in rows if r["verdict"] not in ("not tested",))
        head += (f"; passive: recorded traffic judged ({', '.join(Path(f).name for f in summary.get('traffic', []))}), "
                 f"nothing sent. {covered} requirements judged from it; those marked \"needs an active run\" "
                 "can only be judged by a request of the check's own (`conformance run`)")
    lines = ["# Conformance matrix", "", head, "",
             "| | requirements | " + " | ".join(VERDICTS) + " | gaps |", "|---" * (len(VERDICTS) + 3) + "|"]
    for key, c in counts.items():
        label = "**all**" if key == "all" else API_TITLES.get(key, key)
        lines.append(f"| {label} | {c['requirements']} | " + " | ".join(str(c[v]) for v in VERDICTS) + f" | {c['gaps']} |")
    for api, sources in _grouped(rows).items():
        lines += ["", f"## {API_TITLES.get(api, api)}"]
        for source, items in sources.items():
            lines += ["", f"### {source}", "", "| requirement | section | severity | verdict | checks | detail |",
                      "|---|---|---|---|---|---|"]
            for r in items:
                cells = [f"`{r['id']}` {r['text']}", r["section"], r["severity"], _md_verdict(r["verdict"]),
                         str(len(r["checks"])), detail(r)]
                lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _md_verdict(verdict: str) -> str:
    return f"**{verdict}**" if verdict in ("failed", "failed in consequence", "warning", "blocked", "not judged") \
        else verdict


_COLOURS = {"failed": "#fdd", "failed in consequence": "#fee", "warning": "#ffe9b3", "blocked": "#e8d9ff", "waived": "#f3e6d8", "not judged": "#f3ecd9",
            "passed": "#dfd", "observed": "#def", "not tested": "#eee"}


def render_html(summary: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """The same content as matrix.md, for the Allure report (which shows HTML attachments)."""
    e = html.escape
    counts = totals(rows)
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Conformance matrix</title><style>",
             "body{font:13px sans-serif}table{border-collapse:collapse;margin:6px 0 14px}"
             "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}</style></head><body>",
             f"<h1>Conformance matrix</h1><p>profile {e(str(summary.get('profile')))}, started "
             f"{e(str(summary.get('started')))}; {e(coverage.of_summary(summary)['line'])}</p>"
             "<table><tr><th></th><th>requirements</th>"
             + "".join(f"<th>{v}</th>" for v in VERDICTS) + "<th>gaps</th></tr>"]
    for key, c in counts.items():
        parts.append(f"<tr><th>{e(API_TITLES.get(key, key))}</th><td>{c['requirements']}</td>"
                     + "".join(f"<td>{c[v]}</td>" for v in VERDICTS) + f"<td>{c['gaps']}</td></tr>")
    parts.append("</table>")
    for api, sources in _grouped(rows).items():
        parts.append(f"<h2>{e(API_TITLES.get(api, api))}</h2>")
        for source, items in sources.items():
            parts.append(f"<h3>{e(source)}</h3><table><tr><th>requirement</th><th>section</th><th>severity</th>"
                         "<th>verdict</th><th>checks</th><th>detail</th></tr>")
            for r in items:
                parts.append(
                    f"<tr><td><code>{e(r['id'])}</code> {e(r['text'])}</td><td>{e(r['section'])}</td>"
                    f"<td>{e(r['severity'])}</td><td style='background:{_COLOURS[r['verdict']]}'>{e(r['verdict'])}</td>"
                    f"<td>{len(r['checks'])}</td><td>{e(detail(r))}</td></tr>")
            parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_matrix(report_dir: Path, summary: dict[str, Any]) -> list[dict[str, Any]]:
    """matrix.json and matrix.md next to summary.json; returns the rows."""
    rows = build_matrix(summary)
    (report_dir / "matrix.json").write_text(
        json.dumps(to_json(summary, rows), indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    (report_dir / "matrix.md").write_text(render_markdown(summary, rows), encoding="utf-8")
    return rows
