"""The WS-I policy, one for every SOAP check (issue 51; conformance/checks/soap/messages.py
WSI_ONLY): the seed cites SOAP 1.1, not the WS-I Basic Profile. A MUST check rests on a MUST
requirement of SOAP 1.1, XML 1.0, RFC 3023 or the seed; a check whose every requirement is a
Basic Profile rule is SHOULD (or an observation)."""

from __future__ import annotations

from conformance.catalogue import registered_checks
from conformance.checks.registry import Severity
from conformance.requirements import load_requirements

WSI = ("WSI-",)


def test_every_must_soap_check_rests_on_more_than_the_basic_profile() -> None:
    requirements = load_requirements()
    for check in registered_checks("soap"):
        own = [r for r in check.requirements if not r.startswith(WSI)]
        if check.severity is Severity.MUST:
            grounds = [r for r in own if requirements[r].severity == "MUST"]
            assert grounds, f"{check.id} is MUST on the WS-I Basic Profile alone ({check.requirements})"
        elif not own:
            assert check.severity in (Severity.SHOULD, Severity.OBSERVATION), check.id


def test_the_charset_rule_is_the_basic_profiles_and_so_a_should() -> None:
    checks = {c.id: c for c in registered_checks("soap")}
    assert checks["soap.response.utf8_or_utf16"].severity is Severity.SHOULD
    assert checks["soap.response.content_type"].severity is Severity.MUST
    assert not [r for r in checks["soap.response.content_type"].requirements if r.startswith(WSI)]
