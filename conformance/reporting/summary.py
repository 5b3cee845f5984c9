"""summary.json: one entry per executed test case, root causes, and the run's verdict.

The outcome model is conformance/reporting/outcome_model.py.

The verdict -- and so the exit code -- follows the severities: a failed MUST check means
"does not conform" (1); otherwise a blocked or broken MUST check means "could not judge"
(4); otherwise "conforms" (0), with SHOULD failures as warnings. An unreachable environment
is exit 3. A run in which no check executed is never "conforms": with nothing selected at
all it is a configuration error (2), with every check not applicable or switched off by
the profile it is "could not judge" (4), each with its reason. A run that stopped before
its end (the run deadline, SIGINT/SIGTERM, a service's circuit breaker: `stops`) is "could
not judge" (4), or "unreachable" (3) when a service it stopped for never answered.

Every verdict carries its coverage (conformance/reporting/coverage.py): how many of the
MUST checks it selected were judged, and why the others were not. Not judged does not
change the exit code, unless the run requires coverage (`--require-coverage`): then a MUST
check not judged makes it "could not judge" (4).

The verdict in words (`verdict_line`, the console's last line and summary.json's
`verdict_line`): the verdict, the services judged and where (the README's names: address
API, authorization server, SOAP message service), the profile, the MUST checks it rests on
and the exit code. Its counts are of checks (conformance/reporting/coverage.py: a check is
one rule, run as one or more test cases); `verdict` keeps the exit code's name for machines.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from conformance.errors import ExitCode
from conformance.reporting.outcome_model import BAD, BLOCKED_OR_BROKEN, EXECUTED, OUTCOMES, RANK  # noqa: F401
from conformance.urls import without_userinfo

VERDICT_TEXT = {
    ExitCode.OK: "conforms",
    ExitCode.MUST_FAILED: "does not conform",
    ExitCode.COULD_NOT_JUDGE: "could not judge",
    ExitCode.UNREACHABLE: "unreachable",
    ExitCode.USAGE: "no checks selected",
}
# The services as the README names them, in the order a run lists them.
SERVICE_WORDS = {"address": "address API", "auth": "authorization server", "soap": "SOAP message service"}


@dataclass
class Entry:
    check: str
    requirements: list[str]
    severity: str
    suite: str
    title: str
    test: str
    outcome: str
    reason: str | None = None
    value: Any = None
    unreachable: bool = False
    duration_s: float = 0.0
    # What went wrong, stated the same for every check it took down: the key of root_causes.
    cause: str | None = None
    # The failure states its cause itself (the rule the cause breaks), rather than in a group
    # of findings of a wider check (contract fuzzing) that fails in consequence.
    direct: bool = False
    # Reported by a subtest (one operation of a generated test), not by the test itself.
    subtest: bool = False
    # Not run to its end because the run stopped (its deadline, a signal) or its service's
    # circuit breaker tripped: the reason, the same for every check it stopped.
    stop: str | None = None
    # The waiver that accepted this failure (outcome `waived`): check, reason, reference, until.
    waiver: dict[str, Any] | None = None


@dataclass
class Summary:
    profile: str
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    seed: int | None = None
    faults: list[str] = field(default_factory=list)
    targets: dict[str, str] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)
    # A run that ended before any check (unreachable environment) still says why.
    stopped: str | None = None
    # A passive run (`conformance traffic`): the HAR files it judged; it sent nothing.
    traffic: list[str] = field(default_factory=list)
    # A comparison (`conformance compare`): the reference profile and where it was reached.
    reference: dict[str, Any] = field(default_factory=dict)
    # Samples `conformance discover` verified that miss their contract now: the environment
    # changed (sample -> what changed); the checks judged the server with them.
    sample_regressions: dict[str, str] = field(default_factory=dict)
    # A passive run: the services of the profile the traffic holds no exchange of (their
    # checks judged nothing, so the run cannot say they conform).
    unobserved: list[str] = field(default_factory=list)
    # The run's waivers file and what it warns of (expired, no longer needed).
    waivers: dict[str, Any] = field(default_factory=dict)
    # `--require-coverage`: a MUST check not judged makes the run "could not judge" (4).
    require_coverage: bool = False
    # Services whose secrets went over plain http to another host, as the profile allowed.
    plain_http: list[str] = field(default_factory=list)
    # Contract fuzzing's example budget and phases (`max_examples`, `phases`, `left_out`: --fuzz-phases).
    fuzzing: dict[str, Any] = field(default_factory=dict)
    _places: dict[tuple[str, str], int] = field(default_factory=dict, repr=False, compare=False)

    def add(self, entry: Entry) -> None:
        """One entry per (check, test): a repeated report keeps the worse outcome."""
        index = self._place_of(entry.check, entry.test)
        if index is None:
            self._places[(entry.check, entry.test)] = len(self.entries)
            self.entries.append(entry)
            return
        existing = self.entries[index]
        if existing.subtest and not entry.subtest and entry.outcome == "passed":
            return  # the subtests judged; the test's own pass only says the loop ended
        if RANK[entry.outcome] > RANK[existing.outcome]:
            self.entries[index] = entry

    def _place_of(self, check: str, test: str) -> int | None:
        """The index of (check, test) in `entries` (a run reports hundreds: no scan per report);
        rebuilt when `entries` was changed from outside."""
        index = self._places.get((check, test))
        if index is None and len(self._places) == len(self.entries):
            return None
        if index is not None and index < len(self.entries) and \
                (self.entries[index].check, self.entries[index].test) == (check, test):
            return index
        self._places = {(e.check, e.test): i for i, e in enumerate(self.entries)}
        return self._places.get((check, test))

    def counts(self) -> dict[str, int]:
        counts = {o: 0 for o in OUTCOMES}
        for e in self.entries:
            counts[e.outcome] += 1
        counts["warnings"] = sum(1 for e in self.entries if e.outcome == "failed" and e.severity == "SHOULD")
        counts["must_failures"] = len(self.must_failures())
        counts["must_blocked"] = len(self.must_blocked())
        return counts

    def must_failures(self) -> list[Entry]:
        return [e for e in self.entries if e.severity == "MUST" and e.outcome == "failed"]

    def must_blocked(self) -> list[Entry]:
        return [e for e in self.entries if e.severity == "MUST" and e.outcome in BLOCKED_OR_BROKEN]

    def root_causes(self) -> list[dict[str, Any]]:
        """Each cause that took down two or more test cases, once: one defect, one finding.

        The cause is what a check stated (Blocked/Finding `cause`; a finding's message, the
        same wherever one rule's finding is raised: run_outcomes.shared_cause), else its
        reason: a fixture that failed, or one failing request, reads the same for every test
        it broke. `words`: the cause with how far it reaches, where a rule over every exchange
        counted it ("api-version header missing on 2,412 of 2,412 answers"); `breaks`: the
        checks that state it themselves (the rules it breaks); `in_consequence`: those that
        fail only through it (contract fuzzing judging every answer with that rule too);
        `test_cases`: every test case it explains. Largest first."""
        groups: dict[str, list[Entry]] = {}
        failing: dict[str, list[Entry]] = {}
        for e in self.entries:
            if e.outcome in ("failed", "blocked", "error"):
                failing.setdefault(e.check, []).append(e)
                key = e.cause or e.reason
                if key:
                    groups.setdefault(key, []).append(e)
        causes = []
        for key, entries in groups.items():
            tests = sorted({e.test for e in entries})
            if len(tests) < 2:
                continue
            checks = sorted({e.check for e in entries})
            breaks = sorted({e.check for e in entries if e.direct})
            consequences = [c for c in checks if c not in breaks
                            and all((e.cause or e.reason) == key and not e.direct for e in failing[c])]
            outcomes = sorted({e.outcome for e in entries})
            causes.append({"cause": key, "words": _in_words(key, entries), "checks": checks, "outcomes": outcomes,
                           "breaks": breaks, "in_consequence": consequences, "test_cases": tests,
                           "must": sum(1 for e in entries if e.severity == "MUST"),
                           "must_failed": len({e.check for e in entries if e.severity == "MUST" and e.outcome == "failed"})})
        return sorted(causes, key=lambda c: (-len(c["checks"]), c["cause"]))

    def by_requirement(self) -> dict[str, dict[str, Any]]:
        """Each requirement id with its checks' outcomes and one verdict:
        failed (a MUST check failed), warning (a SHOULD check failed), blocked (a MUST
        check could not judge), waived (a failure a waiver accepts), passed, observed, or not
        tested (nothing judged it)."""
        rollup: dict[str, dict[str, Any]] = {}
        for e in self.entries:
            for req in e.requirements:
                item = rollup.setdefault(req, {"checks": [], **{o: 0 for o in OUTCOMES}})
                item[e.outcome] += 1
                if e.check not in item["checks"]:
                    item["checks"].append(e.check)
                if e.outcome in ("failed", "blocked", "error"):
                    item.setdefault("failing", {})[e.check] = (e.severity, e.outcome)
        for item in rollup.values():
            failing = set(item.get("failing", {}).values())
            if ("MUST", "failed") in failing:
                item["verdict"] = "failed"
            elif ("SHOULD", "failed") in failing:
                item["verdict"] = "warning"
            elif any(sev == "MUST" and out in BLOCKED_OR_BROKEN for sev, out in failing):
                item["verdict"] = "blocked"
            elif item["waived"]:
                item["verdict"] = "waived"
            elif item["passed"]:
                item["verdict"] = "passed"
            elif item["observation"]:
                item["verdict"] = "observed"
            else:
                item["verdict"] = "not tested"
            item["failing"] = {k: v[1] for k, v in item.get("failing", {}).items()}
        return dict(sorted(rollup.items()))

    def stops(self) -> dict[str, int]:
        """Why checks were not run to their end (run deadline, signal, a service's breaker):
        each reason with the number of checks it stopped."""
        found: dict[str, int] = {}
        for e in self.entries:
            if e.stop:
                found[e.stop] = found.get(e.stop, 0) + 1
        return found

    def exit_code(self) -> ExitCode:
        return self.verdict()[0]

    def verdict(self) -> tuple[ExitCode, str | None]:
        """The exit code, with its reason when the run stopped early or no check executed (else None).

        A run that stopped before its end (deadline, signal, a service's breaker) could not
        judge what it did not run: exit 4 even when a MUST check failed before the stop, and
        3 when a service that stopped never answered; the reason names the stop."""
        stops = self.stops()
        stopped = "; ".join(f"{reason} ({n} check{'s' if n != 1 else ''} not run)" for reason, n in stops.items())
        failed = len(self.must_failures())
        before = f"; {failed} MUST check{'s' if failed != 1 else ''} failed before" if failed else ""
        if self.stopped is not None or any(e.unreachable for e in self.entries):
            return ExitCode.UNREACHABLE, f"unreachable: {stopped}{before}" if stops else None
        if stops:
            return ExitCode.COULD_NOT_JUDGE, f"could not judge: {stopped}{before}"
        if self.must_failures():
            return ExitCode.MUST_FAILED, None
        if self.must_blocked():
            return ExitCode.COULD_NOT_JUDGE, None
        coverage = self.coverage()
        if self.require_coverage and coverage["must_not_judged"]:
            return ExitCode.COULD_NOT_JUDGE, f"could not judge: coverage required, {coverage['line']}"
        if self.unobserved:
            return ExitCode.COULD_NOT_JUDGE, ("could not judge: the traffic holds no exchange of the "
                                              + " nor of the ".join(self.unobserved) + " the profile names")
        if not self.entries:
            return ExitCode.USAGE, ("no checks selected: the suites asked for, the profile's services and the "
                                    "pytest selection (-k, -m, node ids) left nothing to run")
        if not any(e.outcome in EXECUTED for e in self.entries):
            counts = self.counts()
            parts = [f"{counts['not_applicable']} not applicable"] if counts["not_applicable"] else []
            if counts["not_judged"]:
                parts.append(f"{counts['not_judged']} not judged")
            if counts["skipped"]:
                parts.append(f"{counts['skipped']} skipped (needs control of the local mock, or a service the profile does not have)")
            return ExitCode.COULD_NOT_JUDGE, f"could not judge: no checks ran; of {len(self.entries)} selected, " \
                                             + " and ".join(parts)
        return ExitCode.OK, None

    def coverage(self) -> dict[str, Any]:
        from conformance.reporting.coverage import coverage

        return coverage(vars(e) for e in self.entries)  # read only: no deep copy of every entry

    def check_counts(self) -> dict[str, int]:
        """The checks by outcome (coverage.check_counts): the counts the console and the report
        title give; `counts` has the test cases."""
        from conformance.reporting.coverage import check_counts

        return check_counts(vars(e) for e in self.entries)

    def to_json(self) -> dict[str, Any]:
        code, reason = self.verdict()
        data = {
            "profile": self.profile,
            "started": self.started,
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "seed": self.seed,
            "faults": self.faults,
            # What the profile named, without a user name or password (conformance/urls.py).
            "targets": {name: public_url(url) for name, url in self.targets.items()},
            "verdict": code.name,
            "verdict_text": VERDICT_TEXT[code],
            "verdict_line": "",  # below, from the rest
            "verdict_reason": reason,
            "exit_code": int(code),
            "stopped": self.stopped,
            "mode": "passive" if self.traffic else "compare" if self.reference else "active",
            "traffic": self.traffic,
            **({"reference": {k: public_url(str(v)) if k == "url" else v for k, v in self.reference.items()}}
               if self.reference else {}),
            "sample_regressions": self.sample_regressions,
            "unobserved": self.unobserved,
            "plain_http": self.plain_http,
            **({"fuzzing": self.fuzzing} if self.fuzzing else {}),
            "waivers": self.waivers,
            "stops": self.stops(),
            "require_coverage": self.require_coverage,
            "coverage": self.coverage(),
            "counts": self.counts(),  # test cases by outcome
            "check_counts": self.check_counts(),
            "root_causes": self.root_causes(),
            "requirements": self.by_requirement(),
            "checks": [asdict(e) for e in sorted(self.entries, key=lambda e: (e.suite, e.check, e.test))],
        }
        data["verdict_line"] = verdict_line(data)
        return data

    def write(self, report_dir: Path) -> Path:
        report_dir.mkdir(parents=True, exist_ok=True)
        path = report_dir / "summary.json"
        path.write_text(json.dumps(self.to_json(), indent=2, ensure_ascii=False, default=str) + "\n")
        if self.seed is not None:
            (report_dir / "seed.txt").write_text(f"{self.seed}\n")
        return path


def judged_services(summary: dict[str, Any]) -> list[str]:
    """The services a run judged, in the order address, auth, soap: each check's suite (a
    `compare` check judges the address API, a `client` check the service its id names:
    client.soap.request_valid); with no check at all (a run stopped before any), the services
    it targets. A service all of whose checks were not applicable (`conformance traffic` with a
    profile that does not name it) was not judged."""
    found: set[str] = set()
    for entry in summary.get("checks") or []:
        if entry.get("outcome") == "not_applicable":
            continue
        suite = str(entry.get("suite") or "")
        if suite in ("client", "compare"):
            parts = str(entry.get("check") or "").split(".")
            suite = parts[1] if len(parts) > 2 else "address"
        if suite:
            found.add(suite)
    found = found or set(summary.get("targets") or {})
    order = list(SERVICE_WORDS)
    return sorted(found, key=lambda s: (order.index(s) if s in order else len(order), s))


def public_url(url: str) -> str:
    """A URL without user info, query or fragment: nothing secret can ride along."""
    try:
        parts = urlsplit(url)
    except ValueError:  # "Invalid IPv6 URL" (a summary.json of before such a URL was refused)
        return without_userinfo(url)
    if not parts.scheme or not parts.netloc:
        return without_userinfo(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def targets_words(summary: dict[str, Any]) -> str:
    """"address API at http://127.0.0.1:40265/lvbag/individuelebevragingen/v2, SOAP message
    service at …": what the run judged and where; "(recorded traffic)" for `conformance
    traffic`, the reference for `conformance compare`."""
    targets = summary.get("targets") or {}
    parts = []
    for service in judged_services(summary):
        words = SERVICE_WORDS.get(service, service)
        url = targets.get(service)
        parts.append(f"{words} at {public_url(str(url))}" if url else words)
    text = ", ".join(parts)
    reference = summary.get("reference") or {}
    if reference.get("url"):
        text += f", compared with {reference.get('profile', 'the reference')} at {public_url(str(reference['url']))}"
    if summary.get("mode") == "passive" and text:
        text += " (recorded traffic)"
    return text


def verdict_words(summary: dict[str, Any]) -> str:
    """"does not conform": the verdict as the README says it (an old summary without
    `verdict_text`: from its exit code)."""
    if summary.get("verdict_text"):
        return str(summary["verdict_text"])
    code = summary.get("exit_code")
    return next((text for exit_code, text in VERDICT_TEXT.items() if int(exit_code) == code),
                str(summary.get("verdict") or "unknown"))


def verdict_numbers(summary: dict[str, Any]) -> str:
    """What the verdict counts, in checks (coverage.check_counts): "2 MUST checks failed",
    "1 MUST check blocked (not judged)", "all 130 judged MUST checks passed, 2 warnings
    (SHOULD checks failed)"."""
    from conformance.reporting.coverage import check_counts, worst_per_check

    entries = summary.get("checks") or []
    counts = check_counts(entries)
    failed, unjudged = counts["must_failed"], counts["must_could_not_judge"]

    def n(count: int, what: str) -> str:
        return f"{count} {what}" if count == 1 else f"{count} {what.replace('check', 'checks', 1)}"

    parts = []
    if failed:
        # One defect, one finding: the failures' root causes, named (the report's title, the
        # console's verdict line and summary.json's say what to fix first).
        causes = [c for c in summary.get("root_causes") or [] if c.get("must_failed")]
        named = "; ".join(c.get("words") or c["cause"] for c in causes[:2]) + ("; …" if len(causes) > 2 else "")
        parts.append(n(failed, "MUST check failed") + (
            f" ({len(causes)} root cause{'s' * (len(causes) != 1)}: {named})" if causes else ""))
    if unjudged:
        parts.append(n(unjudged, "MUST check blocked (not judged)"))
    if not parts:
        by_check = worst_per_check(entries).values()
        must_passed = sum(1 for e in by_check if e.get("severity") == "MUST" and e["outcome"] in ("passed", "observation"))
        if counts["waived"]:  # not "all passed": some failed, and are waived
            parts.append(n(must_passed, "MUST check passed"))
        elif must_passed:
            parts.append(f"all {must_passed} judged MUST checks passed" if must_passed != 1
                         else "the 1 judged MUST check passed")
        elif counts["passed"]:
            parts.append(f"no MUST check judged, {n(counts['passed'], 'check passed')}")
        else:
            parts.append("no check was judged")
    if counts["warnings"]:
        parts.append(f"{counts['warnings']} warning{'s' * (counts['warnings'] != 1)} (SHOULD checks failed)")
    if counts["waived"]:
        parts.append(f"{n(counts['waived'], 'check failed')}, waived")
    return ", ".join(parts)


def verdict_reason_words(summary: dict[str, Any]) -> str:
    """The verdict's reason without the verdict: the stated one (a stop, an unreachable
    service, required coverage, no check run) or the numbers, with the coverage it rests on."""
    from conformance.reporting import coverage

    verdict = verdict_words(summary)
    stated = str(summary.get("verdict_reason") or summary.get("stopped") or "")
    if stated:
        reason = stated.split(": ", 1)[1] if stated.lower().startswith(verdict.lower() + ": ") else stated
    else:
        reason = verdict_numbers(summary)
    line = coverage.of_summary(summary)["line"]
    if summary.get("checks") and line not in reason:
        reason = f"{reason}; {line}" if reason else line
    return reason


_EXTENT = re.compile(r"^(\d+) of (\d+) observed (.+?) break the rule")


def _in_words(cause: str, entries: list[Entry]) -> str:
    """The cause, with how far it reaches where a rule over every exchange counted it."""
    for e in entries:
        found = _EXTENT.match(e.reason or "")
        if found:
            broken, seen, what = int(found.group(1)), int(found.group(2)), found.group(3)
            return f"{cause} on {broken:,} of {seen:,} {what}"
    return cause


def verdict_line(summary: dict[str, Any]) -> str:
    """The verdict on one line: "verdict: DOES NOT CONFORM — address API at http://… (profile
    local-mock): 1 MUST check failed; on 130 of 130 MUST checks (exit 1)"."""
    from conformance.reporting import coverage

    verdict = verdict_words(summary).upper()
    cov = coverage.of_summary(summary)
    stop = f"; stopped: {cov['budget_stop']}" if cov.get("budget_stop") else ""
    left_out = (summary.get("fuzzing") or {}).get("left_out") or []
    if left_out and "address" in (summary.get("targets") or {}):  # judged less than a full run: said here too
        stop += f"; contract fuzzing without its {', '.join(left_out)} phase{'s' if len(left_out) > 1 else ''}"
    where = targets_words(summary)
    return (f"verdict: {verdict}{' — ' + where if where else ''} (profile {summary.get('profile', '?')}): "
            f"{verdict_reason_words(summary)}{stop} (exit {summary.get('exit_code', '?')})")


def name_traffic(summary: Path, har: Path, note: str) -> None:
    """Point a written summary.json's `traffic` at `har`, with a note of what was judged."""
    if not summary.is_file():
        return
    data = load(summary)
    data["traffic"], data["traffic_note"] = [str(har)], note
    summary.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())
