"""The lint's dependency audits (scripts/lint runs it): pip-audit over tools/requirements.lock
and npm audit over tools/package-lock.json, each advisory judged against tools/audit-ignore.toml."""

import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

IGNORE_FILE = Path("tools/audit-ignore.toml")
KEYS = ("id", "ecosystem", "package", "reason", "expires")
ECOSYSTEMS = {"pypi": "pip-audit over tools/requirements.lock", "npm": "npm audit over tools/package-lock.json"}
TODAY = datetime.date.today()
OFFLINE = os.environ.get("CONFORMANCE_AUDIT_OFFLINE", "")


def say(message: str) -> None:
    print(f"lint: audit: {message}", flush=True)


class CouldNotAudit(Exception):
    pass


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def load_ignores() -> tuple[list[dict], list[str]]:
    if not IGNORE_FILE.exists():
        return [], []
    try:
        data = tomllib.loads(IGNORE_FILE.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        return [], [f"{IGNORE_FILE} does not parse: {exc}"]
    entries, problems = [], []
    if not isinstance(data.get("advisory", []), list) or set(data) - {"advisory"}:
        return [], [f"{IGNORE_FILE}: only [[advisory]] tables"]
    for number, entry in enumerate(data.get("advisory", []), 1):
        where = f"{IGNORE_FILE}, [[advisory]] number {number}"
        missing = [key for key in KEYS if not entry.get(key)]
        unknown = sorted(set(entry) - set(KEYS))
        faults = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unknown key {', '.join(unknown)}"] if unknown else [])
        if faults:
            problems.append(f"{where}: {'; '.join(faults)}")
        elif entry["ecosystem"] not in ECOSYSTEMS:
            problems.append(f"{where}: ecosystem must be one of {', '.join(ECOSYSTEMS)}")
        elif type(entry["expires"]) is not datetime.date:
            problems.append(f"{where}: expires must be a date, written YYYY-MM-DD without quotes")
        else:
            entries.append(entry)
    return entries, problems


def pypi_findings() -> tuple[int, list[dict]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "pip-audit.json")
        # --disable-pip: the lock is complete and hashed, nothing to resolve or install;
        # --strict: a package the service cannot answer for fails the audit, not skipped.
        proc = subprocess.run(
            [os.environ["PIP_AUDIT"], "--requirement", "tools/requirements.lock", "--require-hashes",
             "--disable-pip", "--strict", "--progress-spinner", "off", "--format", "json", "--output", str(out)],
            capture_output=True, text=True)
        if not out.exists() or not out.stat().st_size:
            tail = " / ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
            raise CouldNotAudit(f"pip-audit exited with {proc.returncode}: {tail}")
        report = json.loads(out.read_text(encoding="utf-8"))
    findings = []
    for dep in report["dependencies"]:
        for vuln in dep.get("vulns", []):
            fixed = ", ".join(vuln.get("fix_versions") or []) or "no fixed version"
            summary = " ".join((vuln.get("description") or "").split())[:140]
            findings.append({"ecosystem": "pypi", "package": dep["name"], "version": dep["version"], "id": vuln["id"],
                             "ids": {vuln["id"], *vuln.get("aliases", [])}, "text": f"{summary} (fixed in: {fixed})"})
    return len(report["dependencies"]), findings


def npm_findings() -> tuple[int, list[dict]]:
    proc = subprocess.run(
        ["npm", "audit", "--prefix", "tools", "--json", "--include=dev", "--include=optional", "--include=peer",
         "--fetch-timeout=60000", "--fetch-retries=1"],
        capture_output=True, text=True)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise CouldNotAudit(f"npm audit exited with {proc.returncode}: {proc.stderr.strip()[-300:]}") from None
    if "vulnerabilities" not in report:
        error = report.get("error") or {}
        reason = report.get("message") or error.get("summary") or error.get("detail") or proc.stderr.strip()[-300:]
        raise CouldNotAudit(f"npm audit exited with {proc.returncode}: {reason}")
    locked = json.loads(Path("tools/package-lock.json").read_text(encoding="utf-8"))["packages"]
    findings, seen = [], set()
    for name, vuln in report["vulnerabilities"].items():
        for via in vuln.get("via", []):
            if not isinstance(via, dict):  # only passes on a dependency's advisory
                continue
            url = via.get("url") or ""
            match = re.search(r"GHSA(-[0-9a-z]{4}){3}", url)
            adv = match.group(0) if match else f"npm-{via.get('source')}"
            if (adv, name) in seen:
                continue
            seen.add((adv, name))
            nodes = vuln.get("nodes") or []
            versions = sorted({locked.get(node, {}).get("version", "?") for node in nodes})
            findings.append({
                "ecosystem": "npm", "package": via.get("name") or name, "version": ", ".join(versions), "id": adv,
                "ids": {adv, str(via.get("source"))},
                "text": f"{via.get('title')} ({via.get('severity')}, affects {via.get('range')}) {url}; at tools/"
                        + ", tools/".join(nodes)})
    return report.get("metadata", {}).get("dependencies", {}).get("total", len(locked) - 1), findings


def main() -> int:
    if OFFLINE not in ("", "skip"):
        say(f"CONFORMANCE_AUDIT_OFFLINE={OFFLINE!r}: the only value is 'skip'")
        return 1
    entries, problems = load_ignores()
    for problem in problems:
        say(f"FAILED: {problem}")
    failed = len(problems)
    advisories_failed = 0
    for ecosystem, audit in (("pypi", pypi_findings), ("npm", npm_findings)):
        what = ECOSYSTEMS[ecosystem]
        try:
            count, findings = audit()
        except CouldNotAudit as exc:
            if OFFLINE == "skip":
                say(f"WARNING: SKIPPED {what}: it did not complete ({exc}); CONFORMANCE_AUDIT_OFFLINE=skip is set")
            else:
                say(f"FAILED: {what} did not complete: its advisory database cannot be reached, or the tool failed: "
                    f"{exc}. Offline, CONFORMANCE_AUDIT_OFFLINE=skip lints without it.")
                failed += 1
            continue
        listed = [e for e in entries if e["ecosystem"] == ecosystem]
        used, accepted = set(), 0
        for finding in findings:
            label = f"{ecosystem} {finding['package']} {finding['version']}: {finding['id']}"
            entry = next((e for e in listed if norm(e["package"]) == norm(finding["package"])
                          and e["id"] in finding["ids"]), None)
            if entry is not None:
                used.add(id(entry))
            if entry is not None and entry["expires"] >= TODAY:
                say(f"accepted until {entry['expires']} ({IGNORE_FILE}): {label}: {entry['reason']}")
                accepted += 1
                continue
            why = (f"its entry in {IGNORE_FILE} expired on {entry['expires']}" if entry is not None
                   else f"not listed in {IGNORE_FILE}")
            say(f"FAILED: {label}: {finding['text']} -- {why}")
            failed += 1
            advisories_failed += 1
        for entry in listed:
            if id(entry) not in used:
                say(f"note: {IGNORE_FILE} lists {entry['id']} ({ecosystem} {entry['package']}), "
                    f"which the audit no longer reports: remove it")
        say(f"{what}: {count} packages, {len(findings)} known advisories ({accepted} accepted)")
    if advisories_failed:
        say(f"{advisories_failed} advisory failure(s): upgrade the package (Python: scripts/bootstrap --relock "
            f"--upgrade-package NAME; npm: an override in tools/package.json), or list the advisory in "
            f"{IGNORE_FILE} with a reason and an expiry date")
    return 1 if failed else 0


sys.exit(main())
