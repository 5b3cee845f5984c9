"""address.response.schema_valid: every answer of the run checked against its response schema.

Seed part 2 names the response schema of every operation ("Response schemas named per
operation"), part 4 each operation's "Response 200: ...". Every answer the run receives from
the address API -- the scenario checks', contract fuzzing's, the run-start sample
validation's -- is judged by conformance/openapi/responses.py as it arrives, in whichever
process received it (the controller validates samples before the tests, xdist workers run
the tests). Each process keeps a tally and writes it to the run's report directory after
each test (`.response-schema/<process>.json`); the check's test runs last, once every other
xdist worker has ended its session (conformance/last_tests.py), and judges the tallies
together: one finding per (operation, status, JSON path, kind) of violation, with the
number of answers that showed it and the first such exchange attached. Answers that are no JSON, or whose status the description does not define, are
other checks' business and are only counted as not validated.

The description may mark constraints the seed does not state as public behaviour
(`x-conformance-source: public`, conformance/openapi/seed_view.py): a violation of such a
constraint only is judged by the SHOULD check address.response.public_behaviour, with the same
tallies; address.response.schema_valid judges the seed's constraints (every constraint of a
description without marks). Both checks' tests run last.

`conformance discover` judges the answers of its queries the same way and prints each
violation as a finding against the server (`console_findings`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from conformance.errors import NotApplicable, NotJudged
from conformance.findings import Blocked, Finding
from conformance.openapi.responses import Tally, Violation

CHECK_ID = "address.response.schema_valid"
PUBLIC_CHECK_ID = "address.response.public_behaviour"
JUDGES = (CHECK_ID, PUBLIC_CHECK_ID)
DIRNAME = ".response-schema"
MAX_LISTED = 20


# --------------------------------------------------------------------------- the run's files
def tally_path(report_dir: str | Path, process: str) -> Path:
    return Path(report_dir) / DIRNAME / f"{process}.json"


def flush(tally: Tally | None, report_dir: str | Path, process: str) -> None:
    """Write this process's tally (atomically; only when it changed since the last write)."""
    if tally is None or not tally.dirty:
        return
    tally.dirty = False
    target = tally_path(report_dir, process)
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_suffix(f".{os.getpid()}.tmp")
    part.write_text(json.dumps(tally.to_json()), encoding="utf-8")
    part.replace(target)


def gather(report_dir: str | Path) -> Tally:
    """The run's tallies, every process's together."""
    total = Tally()
    folder = Path(report_dir) / DIRNAME
    # The controller's first: its answers (sample validation) came before the tests'.
    for path in sorted(folder.glob("*.json"), key=lambda p: (p.stem != "main", p.name)) if folder.is_dir() else ():
        total.merge(Tally.from_json(json.loads(path.read_text(encoding="utf-8"))))
    return total


# --------------------------------------------------------------------------- the verdict
def describe(v: Violation) -> str:
    schema = f" {v.schema}" if v.schema else ""
    answers = "1 answer" if v.count == 1 else f"{v.count} answers"
    return f"{v.operation} -> {v.status}{schema}: {v.location}: {v.message} ({v.kind}; {answers})"


def ordered(tally: Tally) -> list[Violation]:
    return sorted(tally.violations.values(), key=lambda v: (v.operation, v.status, v.location, v.kind))


def judge(tally: Tally, *, public: bool = False) -> None:
    """Pass when every validated answer conforms; a Finding naming each violation once;
    Blocked when answers came but none could be validated, NotApplicable when none came.
    `public`: judge the constraints the description marks public behaviour (else the seed's);
    not applicable when it marks none."""
    not_validated = sum(tally.skipped.values())
    if public and tally.validated and not tally.marks_public:
        raise NotApplicable("the description marks no constraint as public behaviour (x-conformance-source): "
                            f"all of it is the contract, judged by {CHECK_ID}")
    violations = [v for v in ordered(tally) if v.public == public]
    if violations:
        listed = [describe(v) for v in violations]
        more = f"; and {len(listed) - MAX_LISTED} more" if len(listed) > MAX_LISTED else ""
        what = "public-behaviour constraints of the described response schemas" if public else \
            "the described response schemas"
        raise Finding(
            f"{len(listed)} violation(s) of {what} in {tally.offending_public if public else tally.offending} of "
            f"{tally.validated} validated answers: " + "; ".join(listed[:MAX_LISTED]) + more
        )
    if tally.validated == 0:
        if not not_validated:
            raise NotJudged("no answer of the address API to validate",
                            "run it with the address checks that get answers (its own selection got none)")
        raise Blocked("an answer of the address API that its description gives a JSON response schema for",
                      f"none of its {not_validated} answers could be validated: " + reasons(tally))


def reasons(tally: Tally) -> str:
    return "; ".join(f"{n} {why}" for why, n in tally.skipped.most_common())


def summary_line(tally: Tally) -> str:
    line = f"{tally.validated} answers validated against their response schemas"
    if tally.skipped:
        line += f"; not validated: {reasons(tally)}"
    return line


def console_findings(tally: Tally | None) -> list[str]:
    """Discovery's report: one line per violation, as a finding against the server."""
    if tally is None:
        return []
    lines = [f"finding ({PUBLIC_CHECK_ID if v.public else CHECK_ID}): {describe(v)}" for v in ordered(tally)]
    if tally.validated:
        lines.append(f"{len(lines)} response schema violation(s) in {tally.offending + tally.offending_public} "
                     f"of {tally.validated} answers"
                     if lines else f"every one of {tally.validated} answers matched its response schema")
    return lines
