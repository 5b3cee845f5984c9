"""The Allure adapter's labels: epic, feature, story, severity, requirement labels and links,
added as pytest markers at collection (allure-pytest reads them when the test starts).

Evidence (redacted exchanges, observed values, steps) is attached by the HTTP layer's
conformance/http/evidence.py, which checks and clients may use; this module is the run's.
"""

from __future__ import annotations

import allure
import pytest

from conformance.checks.registry import Check, Severity

_SEVERITY = {
    Severity.MUST: allure.severity_level.CRITICAL,
    Severity.SHOULD: allure.severity_level.NORMAL,
    Severity.OBSERVATION: allure.severity_level.TRIVIAL,
}
_EPIC = {"address": "Address API (specification 000)", "auth": "Authorization server (specification 001, part a)",
         "soap": "SOAP message service (specification 001, part b)"}

SEED_FILES = {"ADDR": "000_cca6f102b48e2c17.txt", "AUTH": "001_a6026fda4ad71339.txt", "SOAP": "001_a6026fda4ad71339.txt"}


def requirement_url(requirement: str) -> str:
    """A link for a requirement id: RFC text, or the seed part it cites."""
    prefix, _, rest = requirement.partition("-")
    if prefix.startswith("RFC") and prefix[3:].isdigit():
        section = rest.split(".", 1)[0] and rest
        return f"https://www.rfc-editor.org/rfc/rfc{prefix[3:]}#section-{section}"
    if prefix in SEED_FILES:
        return f"../shared/seeds/{SEED_FILES[prefix]}#part-{rest.split('.', 1)[0]}"
    if prefix == "SOAP11":
        return f"https://www.w3.org/TR/2000/NOTE-SOAP-20000508/#section-{rest}"
    if prefix == "WSI":
        return f"https://www.ws-i.org/Profiles/BasicProfile-1.1.html#{rest.rsplit('-', 1)[-1]}"
    if prefix == "BAGREF":
        return f"../shared/reference/bag-api.md#{rest}"
    return requirement


def label_item(item: pytest.Item, check: Check) -> None:
    mark = pytest.mark
    item.add_marker(mark.allure_label(_EPIC.get(check.suite, check.suite), label_type="epic"))
    item.add_marker(mark.allure_label(check.feature or check.id.split(".")[1], label_type="feature"))
    item.add_marker(mark.allure_label(check.title, label_type="story"))
    item.add_marker(mark.allure_label(_SEVERITY[check.severity].value, label_type="severity"))
    item.add_marker(mark.allure_label(check.id, label_type="check_id"))
    item.add_marker(mark.allure_label(str(check.severity), label_type="tag"))
    for requirement in check.requirements:
        item.add_marker(mark.allure_label(requirement, label_type="requirement"))
        item.add_marker(mark.allure_link(requirement_url(requirement), link_type="link", name=requirement))
