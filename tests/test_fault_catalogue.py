"""Meta-tests: every check is proven both ways against the local mock.

* the clean mock passes every check of each suite (no false positives);
* under each fault of the catalogue, every check the fault must trip fails with a
  finding, nothing outside its must/may sets fails, no check breaks (an `error` is a
  harness problem), and the exit code follows the severities (1 when a MUST check
  failed, else 4 when a MUST check was blocked, else 0 with warnings). A check the
  fault takes a precondition from may be `blocked` anywhere: that is the honest answer.
  The run under a fault selects every check of its suite -- the collateral is proven over
  every check, not a sample -- but the contract fuzzing's checks, which declare they may fail
  under any fault (`may_fail_under=["*"]`: they judge every generated answer with every rule
  of the description) and so run only under the faults that prove them, each such fault
  selecting only the ones it proves;
* the same run judges every exchange it recorded with the rules one exchange can show
  broken (suites/passive, run last): the fault's checks that observed traffic can judge fail
  there too, from the recording alone, as `conformance traffic` would on its traffic.har;
* faults that do not interfere share a run (`Batch`): up to BATCH_SIZE faults of one
  suite whose checks are apart -- no check a fault's proof rests on (its must set, and the
  checks whose traffic a passive rule of it judges) is in another's footprint (must or may
  set); two faults may both allow a check to fail -- the mock serving all of them at once. The batch's run selects the union of its faults'
  selections and is judged as one: each fault's checks fail, nothing outside the batch's
  must and may sets fails, no check breaks, the exit code follows. The faults the shared
  run did not prove (one of their checks did not fail or did not run: a partner took a
  precondition) share a run again without those it proved; when the run went wrong as a
  whole (a check broke, an unrelated check failed, another exit code) or proved none, its
  faults are split in two halves (`prove`). A fault left on its own runs alone and is
  judged alone, so a failure names its fault: a batch only ever saves runs, it never
  passes a fault without a run that shows it. One test per batch: its runs are made by one
  worker, never waited for by another;
* each check a fault names must fail in its own test (its passive twin's failure proves the
  passive rule only); one that ends not applicable, not judged, skipped or blocked under it
  is named with the fault; a MUST check blocked under a fault that declares it in neither
  set is a problem; a fault proven by contract fuzzing runs alone; on the clean run every
  check's own test runs (issue 52);
* a fault that says what it changes (`shows`: a header, a member, a code, as a finding names
  it) proves a check only when one of the check's failing test cases names it: a check that
  failed for another reason (a sample the fault broke, an error of its own) is not proof;
* every MUST and SHOULD check is proven by some fault, and every fault proves a check.

Each run is a real `conformance run` in a subprocess, read back from its summary.json.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import forked_cli
import pytest

from conformance.catalogue import check_by_id, registered_checks
from conformance.checks.registry import Severity
from conformance.mocks.faults import Fault, catalogue, variants
from conformance.mocks.faults import expected_failures as declared_failures
from conformance.paths import CHECKOUT as REPO_ROOT

SUITES = ("address", "auth", "soap")
# Asked about 13,000 times while the batches are planned (at collection, in every worker);
# the registry does not change within a session.
expected_failures = functools.cache(declared_failures)
FUZZ_EXAMPLES = "8"
# The WSDL checks read a file, not the mock's answers: tests/test_soap_checks.py proves
# them both ways on tampered copies of the WSDL.
# The client checks judge what a client sends, not what the mock answers: tests/test_passive_traffic.py
# proves each both ways on the captures of client scripts.
# The comparison checks judge a vendor's answers against a reference environment's, which a
# run of one suite has not: tests/test_compare.py proves them on the mock under data faults.
PROVEN_ELSEWHERE = ("soap.wsdl.", "client.", "compare.")
# Apply only to a description with operations beyond the seed's; the shipped one has none:
# tests/test_any_description.py runs it on a vendor's description.
NOT_FOR_THE_SHIPPED_DESCRIPTION = {"address.contract.other_operations"}


def conformance_run(report_dir: Path, suite: str, *faults: str, marker: str | None,
                    checks: list[str] | None = None) -> tuple[int, dict[str, Any]]:
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", suite, "-n", "0", "--no-html",
           "--report-dir", str(report_dir), "--max-examples", FUZZ_EXAMPLES, "--seed", "20261121"]
    for name in faults:
        cmd += ["--mock-fault", name]
    for check in checks or ():
        cmd += ["--check", check]
    cmd += ["--", "-q"] + (["-m", marker] if marker else [])
    proc = forked_cli.run(cmd, capture_output=True, text=True, timeout=900, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    summary_path = report_dir / "summary.json"
    assert summary_path.is_file(), f"no summary.json; exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.returncode, json.loads(summary_path.read_text())


# A response the bounded HTTP layer stops reading is recorded without its body: a capture
# tool's HAR would hold it whole, a run's own traffic.har does not.
NOT_RECORDED_WHOLE = {"soap.oversized_response"}


def outcomes(summary: dict[str, Any], *wanted: str) -> dict[str, str]:
    return {e["check"]: e["reason"] for e in summary["checks"] if e["outcome"] in wanted}


@pytest.mark.parametrize("suite", SUITES)
def test_clean_mock_passes_every_check(suite: str, tmp_path: Path) -> None:
    code, summary = conformance_run(tmp_path, suite, marker=None)
    assert outcomes(summary, "failed", "error", "blocked") == {}
    assert code == 0
    # Executed by its own test: a check whose passive twin alone ran counts as not executed.
    executed = {c for c, seen in active(summary).items() if seen - {"skipped", "not_applicable", "not_judged"}}
    declared = {c.id for c in registered_checks(suite)}
    assert declared - executed - NOT_FOR_THE_SHIPPED_DESCRIPTION == set(), "checks declared but never executed"
    observations = [e for e in summary["checks"] if e["severity"] == "observation"
                    and e["check"] not in NOT_FOR_THE_SHIPPED_DESCRIPTION]
    assert all(e["outcome"] == "observation" and e["value"] is not None for e in observations)


# Where a passive rule judges exchanges another check sends: faults on the two are apart.
PASSIVE_TRAFFIC_FROM = {"address.media.not_acceptable_names_accept_crs": ("address.crs.unsupported_accept_crs_rejected",)}


def anywhere(check_id: str) -> bool:
    """A check that declares it may fail under any fault (contract fuzzing)."""
    return "*" in check_by_id(check_id).may_fail_under


def selection(fault: Fault, must: set[str]) -> list[str]:
    """The checks a fault's run selects: every check of its suite, but those that may fail
    under any fault and are not proven by it: whatever they end as, they could not show an
    undeclared failure (under a fault that proves one fuzzing group, the others' fuzzing,
    a contract pass of some 1,300 requests, proved nothing)."""
    return sorted(c.id for c in registered_checks(fault.server) if not anywhere(c.id) or c.id in must)


def fuzzes_under(fault: Fault, must: set[str]) -> bool:
    """Fuzzing is slow: a suite fuzzes only under the faults that prove a fuzzing check."""
    return any(anywhere(c) for c in must)


# Faults per shared run: every run selects every check of its suite (an address run takes
# about 9 s), so more faults per run save whole runs; fewer keep the runs short that a fault
# needing a run of its own after all causes (measured: 24 proves the catalogue in the fewest
# CPU seconds with two workers: 16 and 24 took the same wall time, 24 less CPU).
BATCH_SIZE = 24


@dataclass(frozen=True)
class Batch:
    """Faults proven by one run (one fault: a run of its own)."""

    name: str
    faults: tuple[Fault, ...]

    def expected(self) -> tuple[set[str], set[str]]:
        """The union of its faults' must and may sets."""
        must: set[str] = set()
        may: set[str] = set()
        for fault in self.faults:
            fault_must, fault_may = expected_failures(fault)
            must |= fault_must
            may |= fault_may
        return must, may

    def checks(self) -> list[str]:
        """The union of its faults' selections."""
        return sorted({c for f in self.faults
                       for c in selection(f, expected_failures(f)[0])})


def footprint(fault: Fault) -> set[str]:
    """The checks a fault's run is about: those it must or may trip (but the ones that may fail
    under any fault), and those whose traffic a passive rule of its must set judges (another
    fault on them would change that traffic)."""
    must, may = expected_failures(fault)
    return {c for c in must | may if c in must or not anywhere(c)} | {
        source for check in must for source in PASSIVE_TRAFFIC_FROM.get(check, ())}


def claims(fault: Fault) -> set[str]:
    """The checks a fault's proof rests on: those it must trip, and those whose traffic a
    passive rule of its must set judges. No other fault of its run may touch them."""
    must, _ = expected_failures(fault)
    return set(must) | {source for check in must for source in PASSIVE_TRAFFIC_FROM.get(check, ())}


def apart(a: Fault, b: Fault) -> bool:
    """Whether two faults can share a run: neither may make a check fail that the other's
    proof rests on (both allowing one check to fail is harmless)."""
    return not claims(a) & footprint(b) and not claims(b) & footprint(a)


def plan_batches(faults: list[Fault]) -> list[Batch]:
    """Faults grouped per suite, in catalogue order, greedily: a fault joins the first open
    batch whose every fault is apart from it. A fault proven by contract fuzzing runs alone:
    fuzzing judges every answer with every rule, so any partner could make its checks fail
    (footprint() leaves the fuzzing checks out, as every fault may trip them)."""
    batches: list[tuple[tuple[str, bool], list[Fault]]] = []
    for fault in faults:
        key = (fault.server, fuzzes_under(fault, expected_failures(fault)[0]))
        if key[1]:  # contract fuzzing may fail under any fault: no partner could be proven apart
            batches.append((key, [fault]))
            continue
        for group_key, group in batches:
            if group_key == key and len(group) < BATCH_SIZE and all(apart(fault, other) for other in group):
                group.append(fault)
                break
        else:
            batches.append((key, [fault]))
    return [Batch(f"batch{index:03d}-{group[0].name}" + (f"+{len(group) - 1}" if len(group) > 1 else ""), tuple(group))
            for index, (_, group) in enumerate(batches)]


def proven_by_comparison(fault: Fault) -> bool:
    """A fault only a comparison shows (its answers valid, only other than the register's):
    tests/test_compare.py proves it."""
    must, _ = expected_failures(fault)
    return all(check.startswith("compare.") for check in must)


BATCHES = plan_batches([fault for fault in catalogue() if not proven_by_comparison(fault)])


RUN = ""  # judge_run's key for what concerns the run as a whole


NOT_RUN = ("not_applicable", "not_judged", "skipped", "blocked")


def active(summary: dict[str, Any]) -> dict[str, set[str]]:
    """check id -> the outcomes of its own tests (its passive twin's, suites/passive, apart)."""
    seen: dict[str, set[str]] = {}
    for e in summary["checks"]:
        if not e.get("test", "").startswith("passive/"):
            seen.setdefault(e["check"], set()).add(e["outcome"])
    return seen


def for_another_reason(fault: Fault, check: str, summary: dict[str, Any]) -> str | None:
    """A failure of `check`'s own tests under `fault` whose findings do not name what the fault
    changes (`Fault.shows`): the check failed for another reason (its reason), or None. A fault
    that does not say what it changes is not compared."""
    if not fault.shows:
        return None
    reasons = [e["reason"] or "" for e in summary["checks"] if e["check"] == check and e["outcome"] == "failed"
               and not e.get("test", "").startswith("passive/")]
    named = [r for r in reasons if any(shown.lower() in r.lower() for shown in fault.shows)]
    return None if named else (reasons[0] if reasons else "")


def judge_run(faults: tuple[Fault, ...], code: int, summary: dict[str, Any],
              passive: dict[str, str] | None) -> dict[str, list[str]]:
    """What is wrong with a run under `faults`, per fault name and for the RUN as a whole:
    a fault is proven by the run when neither holds anything.

    Each check a fault names in its proven_by must fail in its own test (a failure of its
    passive twin alone proves the passive rule, not the test); one that ended not applicable,
    not judged, skipped or blocked under its own fault is named with that outcome (issue 52:
    such a proven_by was accepted as long as another of the fault's checks failed)."""
    problems: dict[str, list[str]] = {RUN: [], **{f.name: [] for f in faults}}
    own = active(summary)
    ran = {c for c, seen in own.items() if seen - {"skipped", "not_applicable", "not_judged"}}
    failed = outcomes(summary, "failed")
    if errors := outcomes(summary, "error"):
        problems[RUN].append(f"checks broke instead of judging: {errors}")
    must_all: set[str] = set()
    may_all: set[str] = set()
    for fault in faults:
        must, may = expected_failures(fault)
        must_all |= must
        may_all |= may
        for check in sorted(must):
            seen = own.get(check, set())
            if "failed" in seen:
                if wrong := for_another_reason(fault, check, summary):
                    problems[fault.name].append(f"{check} failed under {fault.name} for another reason than what "
                                                f"the fault changes ({' or '.join(fault.shows)}): {wrong[:300]}")
                continue
            if not seen:
                problems[fault.name].append(f"{fault.name}: its check {check} did not run")
            elif seen <= set(NOT_RUN):
                problems[fault.name].append(f"{fault.name}: its check {check} ended {'/'.join(sorted(seen))} under "
                                            f"it (the check's proven_by names {fault.name})")
            else:
                problems[fault.name].append(f"{fault.name} was not caught by {check} ({'/'.join(sorted(seen))})")
        # The same run's traffic, judged as traffic is (suites/passive, at the run's end): every
        # check of the fault that one observed exchange (or a flow) can show fails there too.
        observable = {c for c in must if check_by_id(c).observes != "probe"} & ran
        missed = {c: passive.get(c) for c in observable if passive.get(c) != "failed"} if passive is not None else {}
        if missed and fault.name not in NOT_RECORDED_WHOLE:
            problems[fault.name].append(f"{fault.name}: not found in its run's own traffic: {missed}")
    names = " + ".join(f.name for f in faults)
    if unexpected := {c: r for c, r in failed.items() if c not in must_all | may_all}:
        problems[RUN].append(f"{names} also failed unrelated checks: {unexpected}")
    severities = {e["check"]: e["severity"] for e in summary["checks"]}
    blocked = outcomes(summary, "blocked")
    # A MUST check blocked under a fault that does not declare it (must or may set) is a gap in
    # the declarations -- the fault takes a precondition of the check without saying so --
    # unless it is blocked for a reason the fault declares it causes (`blocks`: a sample it
    # breaks, a control it refuses).
    explained = [text for fault in faults for text in fault.blocks]
    if undeclared := {e["check"]: e["reason"] for e in summary["checks"] if e["outcome"] == "blocked"
                      and e["severity"] == "MUST" and e["check"] not in must_all | may_all
                      and not any(text in (e["reason"] or "") for text in explained)}:
        problems[RUN].append(f"{names} blocked MUST checks that do not declare it (may_fail_under): {undeclared}")
    expected_code = 1 if any(severities[c] == "MUST" for c in failed) else \
        4 if any(severities[c] == "MUST" for c in blocked) else 0
    if code != expected_code:
        problems[RUN].append(f"exit {code}; failed {sorted(failed)}, blocked {sorted(blocked)}")
    return problems


def run_and_judge(faults: tuple[Fault, ...], checks: list[str],
                  report_dir: Path) -> tuple[int, dict[str, Any], dict[str, str] | None]:
    """A run under `faults` selecting `checks`, and the outcomes of its every-exchange test
    cases (suites/passive): check id -> outcome."""
    code, summary = conformance_run(report_dir, faults[0].server, *(f.name for f in faults),
                                    marker=None, checks=checks)
    passive = {e["check"]: e["outcome"] for e in summary["checks"] if e["test"].startswith("passive/")}
    return code, summary, passive


def prove(faults: tuple[Fault, ...], report_dir: Path) -> list[str]:
    """What is wrong with `faults` (empty: each is proven). One fault: its own run decides,
    and its problems name it. Several: their shared run; the faults it did not prove are
    proven again without the ones it did (a fault that takes its partners' preconditions is
    proven itself and leaves), or, when the run went wrong as a whole or proved none of them,
    in two halves; so every fault ends proven by a run or judged by its own."""
    if len(faults) == 1:
        fault = faults[0]
        must, _ = expected_failures(fault)
        code, summary, passive = run_and_judge(faults, selection(fault, must), report_dir)
        problems = judge_run(faults, code, summary, passive)
        return problems[RUN] + problems[fault.name]
    batch = Batch(report_dir.name, faults)
    code, summary, passive = run_and_judge(faults, batch.checks(), report_dir)
    problems = judge_run(faults, code, summary, passive)
    unproven = tuple(f for f in faults if problems[RUN] or problems[f.name])
    if not unproven:
        return []
    if problems[RUN] or len(unproven) == len(faults):
        half = len(unproven) // 2
        return prove(unproven[:half], report_dir / "a") + prove(unproven[half:], report_dir / "b")
    return prove(unproven, report_dir / "rest")


@pytest.mark.parametrize("batch", BATCHES, ids=lambda b: b.faults[0].name if len(b.faults) == 1 else b.name)
def test_faults_trip_their_checks_and_only_plausible_ones(batch: Batch, tmp_path: Path) -> None:
    """Each fault of the batch is proven by a run (prove): the failures name their faults."""
    failures = prove(batch.faults, tmp_path / "run")
    assert not failures, "\n".join(failures)


def test_faults_share_runs_only_where_their_checks_are_apart() -> None:
    """Every fault is in exactly one batch; a shared run's faults are of one suite and no check
    one's proof rests on is in another's footprint (must or may set, traffic judged); the plan
    saves runs."""
    seen = [fault.name for batch in BATCHES for fault in batch.faults]
    assert sorted(seen) == sorted(f.name for f in catalogue() if not proven_by_comparison(f))
    for batch in BATCHES:
        if len(batch.faults) == 1:
            continue
        assert len(batch.faults) <= BATCH_SIZE
        assert len({f.server for f in batch.faults}) == 1
        for i, a in enumerate(batch.faults):
            for b in batch.faults[i + 1:]:
                assert not claims(a) & footprint(b) and not claims(b) & footprint(a), (batch.name, a.name, b.name)
    assert len(BATCHES) < len(catalogue()) * 0.6


# A made-up finding that names what every fault changes (Fault.shows).
NAMES_EVERY_CHANGE = "; ".join(shown for fault in catalogue() for shown in fault.shows)


def _summary(*entries: tuple[str, ...]) -> dict[str, Any]:
    """(check, severity, outcome[, test]): a test under suites/passive is a passive twin."""
    return {"checks": [{"check": e[0], "severity": e[1], "outcome": e[2], "reason": NAMES_EVERY_CHANGE,
                        "test": e[3] if len(e) > 3 else f"suite/test_{e[0]}"} for e in entries]}


def _fault_with(size: int, observes: str | None = None) -> tuple[Fault, list[str]]:
    """A fault with at least `size` checks in its must set (one of them observing `observes`)."""
    for fault in catalogue():
        must = sorted(expected_failures(fault)[0])
        if len(must) >= size and (observes is None or any(check_by_id(c).observes == observes for c in must)):
            if observes is not None:
                must.sort(key=lambda c: check_by_id(c).observes != observes)
            return fault, must
    raise AssertionError("no such fault in the catalogue")


def _code(*checks: str) -> int:
    return 1 if any(check_by_id(c).severity is Severity.MUST for c in checks) else 0


def test_a_check_caught_only_by_its_passive_twin_is_not_proven() -> None:
    """Issue 52: a failure of the passive rule alone counted as the check's own."""
    fault, (check, *_) = _fault_with(1, observes="exchange")
    sev = check_by_id(check).severity.value
    problems = judge_run((fault,), _code(check), _summary((check, sev, "passed"), (check, sev, "failed", "passive/x")),
                         {check: "failed"})
    assert any(check in p for p in problems[fault.name]), problems


def test_a_check_not_applicable_under_its_own_fault_is_named_with_the_fault() -> None:
    """Issue 52: `expected = must & ran` accepted a wrong proven_by as long as another of the
    fault's checks failed."""
    fault, (first, second, *rest) = _fault_with(2)
    entries = [(c, check_by_id(c).severity.value, "failed") for c in (first, *rest)]
    for outcome in ("not_applicable", "not_judged", "skipped", "blocked"):
        summary = _summary(*entries, (second, check_by_id(second).severity.value, outcome))
        code = _code(first, *rest) or (4 if outcome == "blocked" and check_by_id(second).severity is Severity.MUST else 0)
        problems = judge_run((fault,), code, summary, None)
        assert any(second in p and outcome in p and fault.name in p for p in problems[fault.name]), problems


def test_every_fault_says_what_it_changes() -> None:
    """Each fault this meta-test proves names what it changes as a finding would (`shows`), so
    that a failure for another reason is never taken for its proof."""
    silent = [f.name for f in catalogue() if not f.shows and not proven_by_comparison(f)]
    assert silent == [], f"faults that do not say what they change (fault(..., shows=...)): {silent}"


def test_a_check_failing_for_another_reason_than_its_fault_is_a_problem() -> None:
    """Issue 52: a failure for any reason counted as proof. A fault says what it changes
    (`shows`); a check it proves must fail naming that, in one of its own test cases."""
    fault, (check, *rest) = _fault_with(1)
    fault = dataclasses.replace(fault, shows=("what the fault changes",))
    sev = check_by_id(check).severity.value
    others = [(c, check_by_id(c).severity.value, "failed") for c in rest]
    entries = [*others, (check, sev, "failed")]
    summary = _summary(*entries)
    for entry in summary["checks"]:
        entry["reason"] = "what the fault changes is missing" if entry["check"] != check else "sample not found"
    problems = judge_run((fault,), _code(check, *rest), summary, None)
    assert any(check in p and "another reason" in p and "sample not found" in p for p in problems[fault.name]), problems
    # The same failure naming what the fault changes (any case), beside one that does not, proves it.
    summary["checks"].append({**summary["checks"][-1], "reason": "WHAT THE FAULT CHANGES: absent",
                              "test": f"suite/test_{check}[2]"})
    assert not any("another reason" in p for p in judge_run((fault,), _code(check, *rest), summary, None)[fault.name])


def test_a_must_check_blocked_under_a_fault_that_does_not_declare_it_is_a_problem() -> None:
    fault, must = _fault_with(1)
    _, may = expected_failures(fault)
    bystander = next(c.id for c in registered_checks(fault.server)
                     if c.severity is Severity.MUST and c.id not in set(must) | may)
    entries = [(c, check_by_id(c).severity.value, "failed") for c in must]
    problems = judge_run((fault,), _code(*must), _summary(*entries, (bystander, "MUST", "blocked")), None)
    assert any(bystander in p and "do not declare" in p for p in problems[RUN]), problems


def test_a_fault_proven_by_contract_fuzzing_shares_no_run() -> None:
    """Issue 52: footprint() leaves contract fuzzing out (any fault may trip it), so a partner
    could make the fuzzing fail for the fault whose proof rests on it."""
    fuzzing = [f for f in catalogue() if fuzzes_under(f, expected_failures(f)[0])]
    assert fuzzing
    for batch in BATCHES:
        if any(f in fuzzing for f in batch.faults):
            assert len(batch.faults) == 1, batch.name


def test_a_shared_run_proves_only_the_faults_it_shows() -> None:
    """judge_run: a fault whose check did not fail is named alone; an unrelated failure, a
    broken check or another exit code concerns every fault of the run."""
    batch = next(b for b in BATCHES if len(b.faults) > 1)
    first, second = batch.faults[:2]
    (check_a, *_), (check_b, *_) = sorted(expected_failures(first)[0]), sorted(expected_failures(second)[0])
    sev = {c: check_by_id(c).severity.value for c in (check_a, check_b)}
    code = 1 if "MUST" in sev.values() else 0
    caught = judge_run((first, second), code, _summary((check_a, sev[check_a], "failed"),
                                                      (check_b, sev[check_b], "failed")), None)
    assert not caught[RUN] and not caught[first.name] and not caught[second.name]
    code_a = 1 if sev[check_a] == "MUST" else 0
    half = judge_run((first, second), code_a, _summary((check_a, sev[check_a], "failed"),
                                                      (check_b, sev[check_b], "passed")), None)
    assert not half[RUN] and not half[first.name] and half[second.name]
    unrelated = next(c.id for c in registered_checks(first.server) if c.severity is Severity.MUST
                     and c.id not in set().union(*batch.expected()))
    wide = judge_run((first, second), 1, _summary((check_a, sev[check_a], "failed"), (check_b, sev[check_b], "failed"),
                                                  (unrelated, "MUST", "failed")), None)
    assert wide[RUN] and unrelated in wide[RUN][0]


@pytest.mark.parametrize("spoils", ["preconditions", "the whole run"])
def test_prove_passes_a_fault_only_on_a_run_that_shows_it(spoils: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """prove, its runs stubbed: a partner that takes the others' preconditions (or breaks the
    shared run as a whole) costs more runs, never a fault's proof; a fault no run shows is
    named, by its own run."""
    faults = next(b for b in BATCHES if len(b.faults) >= 4).faults[:4]
    spoiler, partner, broken = faults[0], faults[1], faults[3]
    runs: list[tuple[str, ...]] = []

    def run(fs: tuple[Fault, ...], *_: Any) -> tuple[int, dict[str, Any], None]:
        runs.append(tuple(f.name for f in fs))
        return 0, {}, None

    def judge(fs: tuple[Fault, ...], *_: Any) -> dict[str, list[str]]:
        problems: dict[str, list[str]] = {RUN: [], **{f.name: [] for f in fs}}
        if spoils == "the whole run" and spoiler in fs and partner in fs:
            problems[RUN].append("an unrelated check failed")
        for f in fs:
            if f is broken:
                problems[f.name].append(f"{f.name} was not caught")
            elif spoils == "preconditions" and spoiler in fs and f is not spoiler:
                problems[f.name].append(f"{f.name}: none of its checks ran")
        return problems

    monkeypatch.setitem(globals(), "run_and_judge", run)
    monkeypatch.setitem(globals(), "judge_run", judge)
    assert prove(faults, tmp_path) == [f"{broken.name} was not caught"]
    assert runs[-1] == (broken.name,)  # named by its own run
    for fault in set(faults) - {broken}:  # each proven by a run that held it and nothing spoiled
        assert any(fault.name in names and not (
            spoils == "preconditions" and spoiler.name in names and fault is not spoiler) and not (
            spoils == "the whole run" and {spoiler.name, partner.name} <= set(names)) for names in runs), fault.name


def test_every_check_is_proven_by_a_fault() -> None:
    # A SHOULD check may be proven by a variant (tests/test_variants.py runs those).
    known = {f.name for f in catalogue() + variants()}
    proven = set().union(*(expected_failures(f)[0] for f in catalogue() + variants()))
    for check in registered_checks():
        unknown = (set(check.proven_by) | set(check.may_fail_under)) - known - {"*"}  # "*": any fault
        assert not unknown, f"{check.id} names unknown faults {sorted(unknown)}"
        if check.severity is Severity.OBSERVATION or check.id.startswith(PROVEN_ELSEWHERE):
            continue
        assert check.id in proven, f"{check.id}: no fault proves it"


def test_every_fault_proves_a_check() -> None:
    for fault in catalogue():
        must, _ = expected_failures(fault)
        assert must, f"{fault.name} proves no check"


def test_k_with_a_fault_name_selects_the_batch_that_proves_it() -> None:
    # CONTRIBUTING.md: `.venv/bin/pytest tests/test_fault_catalogue.py -k <fault>` (issue 52).
    import subprocess

    fault = next(f.name for batch in BATCHES if len(batch.faults) > 1 for f in batch.faults[1:])
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
                           "tests/test_fault_catalogue.py", "-k", fault], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=120)
    selected = [line for line in proc.stdout.splitlines() if "::test_faults_trip" in line]
    assert len(selected) == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
