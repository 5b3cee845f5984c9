"""The Allure adapter's labels: epic, feature, story, severity, requirement labels and links,
added as pytest markers at collection (allure-pytest reads them when the test starts).

Evidence (redacted exchanges, observed values, steps) is attached by the HTTP layer's
conformance/http/evidence.py, which checks and clients may use; this module is the run's.
It also keeps the fixture containers the report does not show out of allure-results, and
writes each result with the C JSON encoder (`write_only_shown_containers`).
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any

import allure
import pytest

from conformance.checks.registry import Check, Severity
from conformance.reporting.manual import check_link

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
    # The check's page of the manual (scripts/docs): what it judges, its sentences, how to rerun it.
    item.add_marker(mark.allure_link(check_link(check.id), link_type="link", name=f"manual: {check.id}"))


def write_only_shown_containers() -> None:
    """allure-results without the fixture containers the report never shows, or shows only
    as the harness's internals: one linked to no test (a parametrized argument's), or one
    whose fixtures are all the harness's own (a name starting with "_"), passed, with no step
    or attachment. A full run wrote about 1,400 of them beside 670 results, each a file
    (about 0.7 ms apiece here: a tenth of a run whose checks are mostly not judged), and the
    report listed "_findings_replayed" among every test's set-up and tear-down.

    Allure writes through the file logger it registers in its own plugin manager; that
    logger is registered again, under its name, with the filter in front of its
    `report_container` (allure-pytest unregisters it by that name when the session ends).
    Each result and container it writes goes through `_write_item`."""
    from allure_commons import plugin_manager
    from allure_commons.logger import AllureFileLogger

    for logger in plugin_manager.get_plugins():
        if not isinstance(logger, AllureFileLogger) or "report_container" in vars(logger):
            continue
        name = plugin_manager.get_name(logger)
        plugin_manager.unregister(logger)
        write = logger.report_container

        def report_container(container: Any, write: Any = write) -> None:
            if _shown(container):
                write(container)

        report_container.allure_impl = AllureFileLogger.report_container.allure_impl  # type: ignore[attr-defined]
        logger.report_container = report_container  # type: ignore[method-assign]
        logger._report_item = lambda item, logger=logger: _write_item(logger, item)  # noqa: SLF001
        plugin_manager.register(logger, name)


def _write_item(logger: Any, item: Any) -> None:
    """AllureFileLogger._report_item, the same file, but encoded by json.dumps: allure's
    json.dump encodes in Python, piece by piece (about 1 ms a result, a run writes hundreds)."""
    from allure_commons.logger import INDENT
    from attr import asdict

    indent = INDENT if os.environ.get("ALLURE_INDENT_OUTPUT") else None
    filename = item.file_pattern.format(prefix=uuid.uuid4())
    text = json.dumps(asdict(item, filter=lambda _, v: v or v is False), indent=indent, ensure_ascii=False)
    draft = logger._report_dir / f"{filename}.tmp"  # noqa: SLF001 - the logger's own folder
    draft.write_text(text, encoding="utf8")
    os.replace(draft, logger._report_dir / filename)  # noqa: SLF001


def _shown(container: Any) -> bool:
    return bool(container.children) and any(
        not fixture.name.startswith("_") or fixture.status != "passed" or fixture.steps or fixture.attachments
        for fixture in [*container.befores, *container.afters])
