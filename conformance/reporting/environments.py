"""`conformance matrix RUN_DIR...`: one table of environments x requirements.

A register that supervises many vendors runs the same suites against many environments; a
run judges one. The harness does not schedule runs across machines: a CI system's own
parallel jobs do (one job per environment profile, README "Many environments"), and a final
job hands their run directories to this module, which joins them into one table -- every
catalogued requirement as a row, every environment as a column, each cell the verdict of
that requirement in that run.

The verdicts are not derived here: each run's summary.json goes through
`conformance.reporting.matrix.build_matrix`, the same per-run requirement matrix as the run's
own matrix.md (computed from summary.json, so runs from before matrix.json existed work
too). A run that never reached its environment has no checks: its requirements are "not
tested", with the run's stop reason (unreachable: ...) as the reason. Each environment's
row carries its MUST coverage ("on 186 of 204 MUST checks (18 not judged: ...)").

What is not a run is left out with a note on stderr, so `conformance matrix reports/*` takes
the runs it meets: a file (reports/README.md, the mock's keys file) and a folder without
summary.json. Exit 2 only when no argument is a run, a path does not exist, or a summary.json
cannot be read.

Written: environments.md (Markdown) and environments.html (one self-contained file, inline
CSS and no script: it opens offline, from an artifact, in any browser).

The command's exit code is the worst environment's, ranked 1 (a MUST check failed) over 3
(unreachable) over 4 (could not judge) over 0 (conforms); a run whose summary says "no
checks selected" (2) counts as 4 here, since 2 is this command's own usage error.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import catalogue
from conformance.errors import ConfigError, ExitCode
from conformance.reporting import coverage
from conformance.reporting.diff import load_run
from conformance.reporting.matrix import API_TITLES, VERDICTS, build_matrix, detail, totals
from conformance.reporting.summary import VERDICT_TEXT, public_url
from conformance.requirements import checks_index, load_requirements

MARKDOWN_FILE = "environments.md"
HTML_FILE = "environments.html"
# Worst first: which environment's exit code the command returns.
EXIT_RANK = (ExitCode.MUST_FAILED, ExitCode.UNREACHABLE, ExitCode.COULD_NOT_JUDGE, ExitCode.OK)
_BAD_VERDICTS = ("failed", "failed in consequence", "warning", "blocked")
_SHORT_API = {"address": "address API", "auth": "authorization server", "soap": "SOAP message service"}


@dataclass
class RunColumn:
    """One environment: one run directory's summary.json and its requirement rows."""

    label: str
    run_dir: Path
    summary: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def exit_code(self) -> ExitCode:
        code = self.summary.get("exit_code")
        if isinstance(code, int) and code in set(ExitCode):
            return ExitCode(code)
        name = self.summary.get("verdict")  # an older summary: its verdict's name only
        return ExitCode[name] if isinstance(name, str) and name in ExitCode.__members__ else ExitCode.COULD_NOT_JUDGE

    @property
    def verdict(self) -> str:
        """E.g. "CONFORMS (exit 0)", "DOES NOT CONFORM (exit 1)", "UNREACHABLE (exit 3)"."""
        text = self.summary.get("verdict_text") or VERDICT_TEXT.get(self.exit_code, "unknown")
        return f"{str(text).upper()} (exit {int(self.exit_code)})"

    @property
    def coverage(self) -> str:
        """"on 186 of 204 MUST checks (18 not judged: ...)": what the verdict rests on."""
        return str(coverage.of_summary(self.summary)["line"]) if self.summary.get("checks") else ""

    @property
    def reason(self) -> str:
        return str(self.summary.get("verdict_reason") or self.summary.get("stopped") or "")

    @property
    def suites(self) -> list[str]:
        return sorted({str(c.get("suite")) for c in self.summary.get("checks", []) if isinstance(c, dict)})

    @property
    def targets(self) -> str:
        targets = self.summary.get("targets") or {}
        return ", ".join(f"{k} {public_url(str(v))}" for k, v in targets.items()) if isinstance(targets, dict) else ""


@dataclass
class Table:
    runs: list[RunColumn]
    # requirement id, api, section, text, severity, then one (verdict, reason) per run
    rows: list[dict[str, Any]]


def load_runs(run_dirs: list[Path], *, note: Callable[[str], None] | None = None) -> list[RunColumn]:
    """Each run directory's summary.json with its requirement rows.

    What is not a run is left out with a note (`note`, default: a line on stderr): a file (such
    as reports/README.md) and a folder without summary.json (a run that stopped at a
    configuration error before its report, or any other folder), so `conformance matrix
    reports/*` takes the runs it meets. ConfigError (exit 2), naming the path, for a path that
    does not exist, for a summary.json that cannot be read, and when no path is a run."""
    if not run_dirs:
        raise ConfigError("give at least one RUN_DIR (a run directory holding summary.json)")
    say = note or (lambda line: print(f"conformance: {line}", file=sys.stderr))
    missing = [str(d) for d in run_dirs if not d.exists()]
    if missing:
        raise ConfigError(f"{', '.join(missing)}: no such run directory")
    found = []
    for run_dir in run_dirs:
        if not run_dir.is_dir():
            say(f"skipped {run_dir}: a file, not a run directory")
        elif not (run_dir / "summary.json").exists():
            say(f"skipped {run_dir}: no summary.json, so not a run (a run that ended at a configuration "
                "error leaves none)")
        else:
            found.append(run_dir)
    if not found:
        raise ConfigError(f"none of {', '.join(str(d) for d in run_dirs)} is a run directory "
                          "(a folder holding a run's summary.json)")
    catalogue.load()  # the registry answers only once every declaring module is loaded
    requirements, checks = load_requirements(), checks_index()
    runs = []
    for run_dir in found:
        summary = load_run(run_dir)
        try:
            rows = build_matrix(summary, requirements, checks)
        except (KeyError, TypeError) as exc:
            raise ConfigError(f"{run_dir}: summary.json lacks a field of a check entry ({exc})") from None
        stopped = summary.get("stopped")
        if stopped:  # nothing it could not run was "deselected": say why
            for row in rows:
                if row["verdict"] == "not tested" and not row["gap"]:
                    row["reason"] = str(stopped)
        name = str(summary.get("profile") or run_dir.resolve().name)
        runs.append(RunColumn(name, run_dir, summary, rows))
    _disambiguate(runs)
    return runs


def _disambiguate(runs: list[RunColumn]) -> None:
    """Two runs of one profile: add the run directory's name, then its whole path."""
    base = [run.label for run in runs]
    for key in (lambda r: r.run_dir.resolve().name, lambda r: str(r.run_dir)):
        labels = [run.label for run in runs]
        for index, run in enumerate(runs):
            if labels.count(run.label) > 1:
                run.label = f"{base[index]} ({key(run)})"


def build_table(runs: list[RunColumn]) -> Table:
    """One row per requirement (the catalogue's order, then any only a run named), with
    each run's verdict and its reason."""
    order: dict[str, dict[str, Any]] = {}
    for run in runs:
        for row in run.rows:
            order.setdefault(row["id"], {k: row[k] for k in ("id", "api", "section", "text", "severity", "source")})
    indexed = [{row["id"]: row for row in run.rows} for run in runs]
    rows = []
    for req_id, base in order.items():
        cells = []
        for by_id in indexed:
            row = by_id.get(req_id)
            cells.append(("not tested", "not in this run's catalogue") if row is None else (row["verdict"], detail(row)))
        verdicts = {v for v, _ in cells}
        rows.append({**base, "cells": cells, "bad": bool(verdicts & set(_BAD_VERDICTS)), "differs": len(verdicts) > 1})
    return Table(runs, rows)


def exit_code(runs: list[RunColumn]) -> ExitCode:
    """The worst environment's exit code (module docstring)."""
    codes = {ExitCode.COULD_NOT_JUDGE if r.exit_code is ExitCode.USAGE else r.exit_code for r in runs}
    return next((c for c in EXIT_RANK if c in codes), ExitCode.OK)


def _counts(run: RunColumn) -> str:
    c = totals(run.rows)["all"]
    return ", ".join(f"{c[v]} {v}" for v in VERDICTS if c[v])


def _md(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _short(text: str, limit: int = 110) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_markdown(table: Table) -> str:
    lines = ["# Conformance across environments", "",
             f"{len(table.runs)} environments, {len(table.rows)} requirements. Verdicts per requirement: "
             + ", ".join(VERDICTS) + " (each run's own matrix.md gives the reasons).", "",
             "| environment | verdict | MUST coverage | started | suites | requirements | run |",
             "|---|---|---|---|---|---|---|"]
    for run in table.runs:
        verdict = f"**{run.verdict}**" + (f": {_md(run.reason)}" if run.reason else "")
        lines.append(f"| {_md(run.label)} | {verdict} | {_md(run.coverage or '-')} | "
                     f"{_md(run.summary.get('started') or '?')} | "
                     f"{_md(', '.join(run.suites) or 'none')} | {_md(_counts(run))} | `{_md(str(run.run_dir))}` |")
    head = ["requirement", "API", "section: text", "severity", *(_md(r.label) for r in table.runs)]
    lines += ["", "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for row in table.rows:
        cells = [f"`{row['id']}`", _SHORT_API.get(row["api"], row["api"]), f"{row['section']}: {_short(row['text'])}",
                 row["severity"], *(f"**{v}**" if v in _BAD_VERDICTS else v for v, _ in row["cells"])]
        lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


_COLOURS = {"failed": "#f8c4c4", "failed in consequence": "#fbe0e0", "warning": "#ffe3a3", "blocked": "#e3d2ff", "waived": "#eedcc8",
            "not judged": "#f3ecd9", "passed": "#cdeccd",
            "observed": "#d3e6fa", "not tested": "#eeeeee"}
_EXIT_COLOURS = {ExitCode.OK: "#cdeccd", ExitCode.MUST_FAILED: "#f8c4c4", ExitCode.UNREACHABLE: "#ffe3a3",
                 ExitCode.COULD_NOT_JUDGE: "#e3d2ff", ExitCode.USAGE: "#e3d2ff"}
_CSS = (
    "body{font:13px system-ui,sans-serif;margin:12px}table{border-collapse:collapse;margin:6px 0 14px}"
    "td,th{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}"
    "thead th{position:sticky;top:0;background:#f6f6f6}td.v{white-space:nowrap}"
    "td.bad{font-weight:bold}th.api{background:#e9eef5}#requirements td:first-child{white-space:nowrap}"
    "#f-bad:checked~table tr.clean,#f-differ:checked~table tr.same{display:none}"
    + "".join(f".v-{v.replace(' ', '-')}{{background:{c}}}" for v, c in _COLOURS.items())
)


def _title(text: str) -> str:
    """A title attribute (the tooltip), single-quoted: html.escape escapes quotes too."""
    return f" title='{html.escape(text)}'" if text else ""


def render_html(table: Table) -> str:
    """One self-contained file: inline CSS, no script, nothing fetched. Every cell holds its
    verdict word (the colour only repeats it); its reason is the cell's title. The two
    checkboxes filter rows with CSS alone."""
    e = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Conformance across environments"
             f"</title><style>{_CSS}</style></head><body>",
             f"<h1>Conformance across environments</h1><p>{len(table.runs)} environments, {len(table.rows)} "
             "requirements. Hover a cell for its reason.</p>",
             "<table id='environments'><thead><tr><th>environment</th><th>verdict</th><th>MUST coverage</th>"
             "<th>started</th><th>suites</th>"
             "<th>requirements</th><th>targets</th><th>run</th></tr></thead><tbody>"]
    for run in table.runs:
        parts.append(
            f"<tr><th>{e(run.label)}</th><td class='verdict' style='background:{_EXIT_COLOURS[run.exit_code]}'>"
            f"<b>{e(run.verdict)}</b>{'<br>' + e(run.reason) if run.reason else ''}</td>"
            f"<td class='coverage'>{e(run.coverage or '-')}</td><td>{e(str(run.summary.get('started') or '?'))}</td><td>{e(', '.join(run.suites) or 'none')}</td>"
            f"<td>{e(_counts(run))}</td><td>{e(run.targets)}</td><td><code>{e(str(run.run_dir))}</code></td></tr>")
    parts.append("</tbody></table><div>")
    parts.append("<input type='checkbox' id='f-bad'><label for='f-bad'> only requirements failed, warned or blocked "
                 "somewhere</label> &nbsp; <input type='checkbox' id='f-differ'><label for='f-differ'> only "
                 "requirements whose verdict differs between environments</label>")
    parts.append("<table id='requirements'><thead><tr><th>requirement</th><th>section: text</th><th>severity</th>"
                 + "".join(f"<th class='env' style='background:{_EXIT_COLOURS[r.exit_code]}'{_title(r.reason)}>"
                           f"{e(r.label)}<br><small>{e(r.verdict)}</small></th>" for r in table.runs)
                 + "</tr></thead><tbody>")
    api = None
    for row in table.rows:
        if row["api"] != api:
            api = row["api"]
            parts.append(f"<tr class='same clean'><th class='api' colspan='{3 + len(table.runs)}'>"
                         f"{e(API_TITLES.get(api, api))}</th></tr>")
        classes = f"{'bad' if row['bad'] else 'clean'} {'differs' if row['differs'] else 'same'}"
        cells = "".join(
            f"<td class='v v-{verdict.replace(' ', '-')}{' bad' if verdict in _BAD_VERDICTS else ''}'"
            f"{_title(reason)}>{e(verdict)}</td>"
            for verdict, reason in row["cells"])
        parts.append(f"<tr class='{classes}' data-requirement='{e(row['id'])}'><td><code>{e(row['id'])}</code></td>"
                     f"<td{_title(row['source'] + ': ' + row['text'])}>{e(row['section'])}: {e(_short(row['text']))}"
                     f"</td><td>{e(row['severity'])}</td>{cells}</tr>")
    parts.append("</tbody></table></div></body></html>")
    return "\n".join(parts) + "\n"


def write(out_dir: Path, table: Table) -> tuple[Path, Path]:
    """environments.md and environments.html in out_dir (made if missing); ConfigError when it
    cannot be written."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        md, page = out_dir / MARKDOWN_FILE, out_dir / HTML_FILE
        md.write_text(render_markdown(table), encoding="utf-8")
        page.write_text(render_html(table), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--out {out_dir}: not writable ({exc.strerror or exc})") from None
    return md, page
