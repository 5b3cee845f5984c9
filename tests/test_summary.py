"""The verdict follows the severities: MUST failures fail the run, SHOULD ones warn."""

from __future__ import annotations

import json
import re

from conformance.errors import ExitCode
from conformance.reporting.summary import Entry, Summary


def entry(severity: str, outcome: str, **kw) -> Entry:
    return Entry(check=f"c.{severity}.{outcome}", requirements=["ADDR-4"], severity=severity,
                 suite="address", title="t", test=f"t{kw}", outcome=outcome, **kw)


def test_exit_codes_by_severity(tmp_path) -> None:
    s = Summary(profile="p")
    s.add(entry("MUST", "passed"))
    s.add(entry("SHOULD", "failed", reason="warn"))
    s.add(entry("SHOULD", "blocked", reason="control refused"))
    s.add(entry("observation", "observation", value=42))
    s.add(entry("MUST", "not_applicable", reason="no resource server"))
    assert s.exit_code() is ExitCode.OK
    s.add(entry("MUST", "blocked", reason="control refused", cause="GET /x -> 404"))
    assert s.exit_code() is ExitCode.COULD_NOT_JUDGE
    s.add(entry("MUST", "error", reason="boom"))
    assert s.exit_code() is ExitCode.COULD_NOT_JUDGE
    s.add(entry("MUST", "failed", reason="wrong"))
    assert s.exit_code() is ExitCode.MUST_FAILED
    s.add(entry("MUST", "error", unreachable=True))
    assert s.exit_code() is ExitCode.UNREACHABLE
    data = json.loads(s.write(tmp_path).read_text())
    assert data["counts"]["warnings"] == 1 and data["counts"]["must_failures"] == 1
    assert data["counts"]["blocked"] == 2 and data["counts"]["must_blocked"] == 3
    assert {"check", "requirements", "severity", "suite", "outcome", "reason", "value", "cause"} <= set(data["checks"][0])


def test_verdict_text_for_ci() -> None:
    s = Summary(profile="p")
    s.add(entry("MUST", "passed"))
    assert s.to_json()["verdict_text"] == "conforms"
    s.add(entry("MUST", "blocked", reason="r"))
    assert (s.to_json()["verdict"], s.to_json()["verdict_text"], s.to_json()["exit_code"]) == \
        ("COULD_NOT_JUDGE", "could not judge", 4)


def test_unreachable_run_still_has_a_summary(tmp_path) -> None:
    s = Summary(profile="p", stopped="unreachable: http://127.0.0.1:9/v2 refused the connection")
    data = json.loads(s.write(tmp_path).read_text())
    assert (data["verdict"], data["exit_code"], data["checks"]) == ("UNREACHABLE", 3, [])
    assert "refused" in data["stopped"]


def test_root_causes_list_each_cause_once_with_its_checks() -> None:
    s = Summary(profile="p")
    for check in ("c.one", "c.two", "c.three"):
        s.add(Entry(check=check, requirements=["R"], severity="MUST", suite="a", title="t", test=check,
                    outcome="blocked", reason=f"{check} needed the sample: GET /a/1 -> 404", cause="GET /a/1 -> 404"))
    # the same failing fixture reads the same for every test it broke
    for check in ("c.four", "c.five"):
        s.add(Entry(check=check, requirements=["R"], severity="SHOULD", suite="a", title="t", test=check,
                    outcome="error", reason="ConnectError: refused"))
    s.add(Entry(check="c.alone", requirements=["R"], severity="MUST", suite="a", title="t", test="c.alone",
                outcome="failed", reason="its own defect"))
    causes = s.root_causes()
    assert [(c["cause"], c["checks"]) for c in causes] == [
        ("GET /a/1 -> 404", ["c.one", "c.three", "c.two"]),
        ("ConnectError: refused", ["c.five", "c.four"]),
    ]
    assert causes[0]["must"] == 3 and causes[0]["outcomes"] == ["blocked"]


def test_reasons_are_kept_whole() -> None:
    long = "x" * 5000
    s = Summary(profile="p")
    s.add(entry("MUST", "failed", reason=long))
    assert s.to_json()["checks"][0]["reason"] == long


def test_repeated_reports_keep_the_worst_outcome() -> None:
    s = Summary(profile="p")
    s.add(Entry(check="c", requirements=["R"], severity="MUST", suite="a", title="t", test="x", outcome="passed"))
    s.add(Entry(check="c", requirements=["R"], severity="MUST", suite="a", title="t", test="x", outcome="failed", reason="r"))
    s.add(Entry(check="c", requirements=["R"], severity="MUST", suite="a", title="t", test="x", outcome="passed"))
    assert [(e.outcome, e.reason) for e in s.entries] == [("failed", "r")]


def test_verdict_per_requirement() -> None:
    s = Summary(profile="p")
    add = lambda check, sev, outcome, reqs: s.add(Entry(check=check, requirements=reqs, severity=sev,  # noqa: E731
                                                        suite="a", title="t", test=check, outcome=outcome))
    add("a.must", "MUST", "failed", ["R1", "R2"])
    add("a.should", "SHOULD", "failed", ["R2", "R3"])
    add("a.ok", "MUST", "passed", ["R3", "R4"])
    add("a.obs", "observation", "observation", ["R5"])
    add("a.skip", "MUST", "skipped", ["R6"])
    add("a.blocked", "MUST", "blocked", ["R7"])
    add("a.blocked_should", "SHOULD", "blocked", ["R8", "R4"])
    verdicts = {req: item["verdict"] for req, item in s.by_requirement().items()}
    assert verdicts == {"R1": "failed", "R2": "failed", "R3": "warning", "R4": "passed", "R5": "observed",
                        "R6": "not tested", "R7": "blocked", "R8": "not tested"}
    assert s.by_requirement()["R2"]["failing"] == {"a.must": "failed", "a.should": "failed"}


def test_no_check_selected_is_a_configuration_error() -> None:
    code, reason = Summary(profile="p").verdict()
    assert code is ExitCode.USAGE and "no checks selected" in reason


def test_no_check_executed_is_never_conforms() -> None:
    s = Summary(profile="p")
    s.add(entry("MUST", "not_applicable", reason="no sample"))
    s.add(entry("MUST", "skipped", reason="profile forbids it"))
    code, reason = s.verdict()
    assert code is ExitCode.COULD_NOT_JUDGE
    assert reason.startswith("could not judge: no checks ran") and "1 not applicable" in reason and "1 skipped" in reason
    assert s.to_json()["verdict_reason"] == reason
    s.add(entry("observation", "observation", value=1))  # one check executed: the plain reading again
    assert s.verdict() == (ExitCode.OK, None)


# ----------------------------------------------------------------- the verdict in words (issue 43)
TARGETS = {"address": "http://127.0.0.1:40265/lvbag/individuelebevragingen/v2?key=x",
           "auth": "http://127.0.0.1:39737", "soap": "http://user:pw@127.0.0.1:44461/netbeheerder/graafbericht"}


def case(check: str, severity: str, outcome: str, test: str = "t", suite: str = "address", **kw) -> Entry:
    return Entry(check=check, requirements=["ADDR-4"], severity=severity, suite=suite, title="t", test=test,
                 outcome=outcome, **kw)


def test_the_counts_are_of_checks_and_a_failed_test_case_fails_its_check() -> None:
    s = Summary(profile="local-mock", targets=TARGETS)
    for test in ("a", "b", "c"):  # one check, three test cases: one passed, one failed, one broke
        s.add(case("address.x.limits", "MUST", {"a": "passed", "b": "failed", "c": "error"}[test], test))
    s.add(case("address.x.other", "MUST", "blocked", "d", reason="control refused"))
    s.add(case("address.x.should", "SHOULD", "failed", "e", reason="warn"))
    s.add(case("address.x.obs", "observation", "observation", "f", value=1))
    data = s.to_json()
    checks = data["check_counts"]
    assert (checks["checks"], checks["test_cases"]) == (4, 6)
    assert (checks["failed"], checks["blocked"], checks["error"], checks["observation"]) == (2, 1, 0, 1)
    assert (checks["must_failed"], checks["must_could_not_judge"], checks["warnings"]) == (1, 1, 1)
    assert data["counts"]["failed"] == 2 and data["counts"]["error"] == 1  # `counts`: test cases
    assert data["coverage"]["must_judged"] == 1 and data["coverage"]["must_blocked"] == 1


def test_the_verdict_line_names_the_suites_and_targets_in_the_readmes_words() -> None:
    failing = Summary(profile="local-mock", targets=TARGETS)
    failing.add(case("address.contract.stateful_links", "MUST", "failed", reason="ST103"))
    for n in range(129):
        failing.add(case(f"address.x.c{n}", "MUST", "passed", f"t{n}"))
    assert failing.to_json()["verdict_line"] == (
        "verdict: DOES NOT CONFORM — address API at http://127.0.0.1:40265/lvbag/individuelebevragingen/v2 "
        "(profile local-mock): 1 MUST check failed; on 130 of 130 MUST checks (exit 1)")

    conforming = Summary(profile="local-mock", targets=TARGETS)
    conforming.add(case("soap.a", "MUST", "passed", suite="soap"))
    conforming.add(case("soap.b", "MUST", "passed", suite="soap"))
    conforming.add(case("auth.c", "SHOULD", "failed", suite="auth", reason="warn"))
    assert conforming.to_json()["verdict_line"] == (
        "verdict: CONFORMS — authorization server at http://127.0.0.1:39737, SOAP message service at "
        "http://127.0.0.1:44461/netbeheerder/graafbericht (profile local-mock): all 2 judged MUST checks passed, "
        "1 warning (SHOULD checks failed); on 2 of 2 MUST checks (exit 0)")

    blocked = Summary(profile="vendor-x", targets={"address": "https://api.vendor.example/v2"})
    blocked.add(case("address.a", "MUST", "blocked", "a", reason="control refused", cause="GET /a -> 403"))
    blocked.add(case("address.b", "MUST", "blocked", "b", reason="control refused", cause="GET /a -> 403"))
    line = blocked.to_json()["verdict_line"]
    assert line == ("verdict: COULD NOT JUDGE — address API at https://api.vendor.example/v2 (profile vendor-x): "
                    "2 MUST checks blocked (not judged); on 0 of 2 MUST checks (2 blocked) (exit 4)")
    for said in (failing, conforming, blocked):  # the exit code's names are for machines (`verdict`)
        assert not re.search(r"\b(OK|MUST_FAILED|COULD_NOT_JUDGE)\b", said.to_json()["verdict_line"])


def test_a_stated_reason_and_an_unreachable_run_are_in_the_verdict_line() -> None:
    unreachable = Summary(profile="vendor-x", targets={"address": "https://api.vendor.example/v2"},
                          stopped="unreachable: https://api.vendor.example/v2 refused the connection")
    assert unreachable.to_json()["verdict_line"] == (
        "verdict: UNREACHABLE — address API at https://api.vendor.example/v2 (profile vendor-x): "
        "https://api.vendor.example/v2 refused the connection (exit 3)")
    nothing = Summary(profile="p", targets={"soap": "http://127.0.0.1:1/s"})
    nothing.add(case("soap.a", "MUST", "not_applicable", suite="soap", reason="no WSDL"))
    line = nothing.to_json()["verdict_line"]
    assert line.startswith("verdict: COULD NOT JUDGE — SOAP message service at http://127.0.0.1:1/s (profile p): "
                           "no checks ran; of 1 selected, 1 not applicable"), line
