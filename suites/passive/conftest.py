"""The rules one observed exchange (or a flow of them) can show broken, judged on traffic.

Each rule is the same check -- the same id, requirements and severity -- that the active
suites judge on requests of their own. Two runs judge them:

* a passive run (`conformance traffic FILE.har --profile P`) over the exchanges of the HAR
  files, sending nothing;
* every active run, over every exchange the run itself recorded -- the scenario checks',
  fuzzing's, the token flows', the SOAP messages' -- once every other test has ended
  (conformance/last_tests.py): a rule that can judge any exchange judges every exchange of a
  run, so `conformance run` finds at least what `conformance traffic` finds on its traffic.
  Only the server's rules, of the suites the run selected: a client's rules (client.*) judge
  a client's requests, and the run's client is the harness.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance import last_tests
from conformance.errors import NotApplicable, NotJudged
from conformance.passive.judge import judge_rule
from conformance.passive.rules import Context

_HERE = Path(__file__).resolve().parent
_INSIDE = f"{_HERE}{os.sep}"


def _passive(item: pytest.Item) -> bool:
    # A string prefix, not Path.parents: asked twice of every collected item of every run.
    return str(item.path).startswith(_INSIDE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an active run, the rules of the suites it runs, and none of a client's."""
    if config.getoption("traffic", None) or not any(_passive(item) for item in items):
        return
    suites = {item.path.parent.name for item in items if not _passive(item)}
    keep, drop = [], []
    for item in items:
        mark = item.get_closest_marker("check")
        check = mark.args[0] if mark and mark.args else ""
        judged_here = not _passive(item) or (check.split(".", 1)[0] in suites and not check.startswith("client."))
        (keep if judged_here else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session")
def passive_context(profile) -> Context:
    return Context(profile)


# The service each rule's check judges (its id's first part, after "client."), in the README's
# words, and the profile table that names it.
_SERVICES = {"address": ("the address API", "services.address"),
             "auth": ("the authorization server", "services.auth"),
             "soap": ("the SOAP message service", "services.soap")}


def _service_of(check: str) -> str:
    parts = check.split(".")
    return parts[1] if parts[0] == "client" else parts[0]


@pytest.fixture
def judge(evidence, conformance_state, profile):
    """judge(rule, traffic, context): the rule over every observed item it applies to. A rule
    of a service the profile does not name is "not applicable": its traffic is not this
    profile's to judge. In an active run, no exchange of the run the rule applies to is "not
    applicable" for this test case: the check's own tests judge what it asks for."""
    def apply(rule, traffic, context):
        service = _service_of(rule.check)
        if service in _SERVICES and service not in profile.services:
            words, table = _SERVICES[service]
            raise NotApplicable(f"the profile names no {words.removeprefix('the ')} ([{table}])")
        try:
            return judge_rule(rule, traffic, context, evidence=evidence)
        except NotJudged as nothing:
            if conformance_state.traffic:
                raise
            raise NotApplicable(f"no exchange of this run is one the rule applies to ({nothing.what})") from None
    return apply


@pytest.fixture(scope="session")
def observed_traffic(request, conformance_state, profile, redactor):
    """The exchanges of the run's HAR files (--traffic), or of an active run itself, redacted,
    sorted by service."""
    if profile.address is not None:
        redactor.add_header(profile.address.api_key_header)
    if not conformance_state.traffic:
        from conformance.passive.traffic import load_run_traffic

        last_tests.after_the_others(request.config, conformance_state.report_dir)
        return load_run_traffic(conformance_state.report_dir, profile, redactor)
    from conformance.passive.traffic import load_traffic

    return load_traffic(conformance_state.traffic, profile, redactor)
