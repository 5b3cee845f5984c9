"""The manual as a site (issue 53): `scripts/docs OUT` builds docs/ strictly (any warning, a
broken link among them, fails it), with a generated page per check id and every profile key;
and the reports link a failed check to its page."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.catalogue import registered_checks
from conformance.paths import CHECKOUT
from conformance.profiles import ADDRESS_SAMPLES

assert CHECKOUT is not None
sys.path.insert(0, str(CHECKOUT / "scripts"))
import docs_pages  # noqa: E402  (scripts/, not a package)


def _build_site(out: Path) -> Path:
    built = subprocess.run([sys.executable, str(CHECKOUT / "scripts" / "docs"), str(out)], capture_output=True,
                           text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-5000:] + built.stderr[-5000:]
    assert "WARNING" not in built.stderr, built.stderr[-5000:]
    return out


def test_the_manual_builds_strictly_with_a_page_per_check_id(tmp_path: Path) -> None:
    # One test of one build (about 40 s): a module fixture shared by two tests was built once
    # per xdist worker that ran one of them.
    site = _build_site(tmp_path / "site")
    _the_pages_are_there(site)
    _the_check_reference_has_a_page_per_check_id(site)


def _the_pages_are_there(site: Path) -> None:
    source = (CHECKOUT / "scripts" / "docs").read_text(encoding="utf-8")
    assert '"-W", "--keep-going"' in source  # warnings (a broken link, an unlisted page) are errors
    for page in ("index", "getting-started", "verdicts", "reports", "profiles", "profile-keys", "samples",
                 "check-reference", "token-flows", "soap", "traffic", "compare", "limits", "security", "ci",
                 "cli", "contributing", "design", "layout", "auth-design", "must-audit"):
        assert (site / f"{page}.html").is_file(), page
    assert "Adding a check" in (site / "contributing.html").read_text(encoding="utf-8")  # CONTRIBUTING.md, included


def _the_check_reference_has_a_page_per_check_id(site: Path) -> None:
    checks = registered_checks()
    index = (site / "checks" / "index.html").read_text(encoding="utf-8")
    for check in checks:
        page = site / "checks" / f"{check.id}.html"
        assert page.is_file(), check.id
        assert f'href="{check.id}.html"' in index, check.id
    page = (site / "checks" / "address.headers.api_version_present.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))  # the words, without the highlighting's markup
    # its severity, the sentence of the specification it rests on, the fault that proves it,
    # a variant it must pass, whether it may be waived, and how to run it alone
    for said in ("MUST", "Responses carry the header", "address.api_version_missing",
                 "address.variant.single_address_page_of_one", "may be waived",
                 "--check address.headers.api_version_present"):
        assert said in text, said


def test_a_check_page_quotes_every_requirement_it_names() -> None:
    from conformance.mocks.faults import catalogue, variants
    from conformance.requirements import load_requirements

    requirements = load_requirements()
    faults = {f.name: f for f in [*catalogue(), *variants()]}
    for check in registered_checks():
        text = docs_pages.check_page_text(check, requirements, faults, {})
        for rid in check.requirements:
            assert f"### {rid}" in text
            for quote in requirements[rid].quote if rid in requirements else ():
                assert docs_pages._text(quote)[:60] in text, (check.id, rid)
        for fault in check.proven_by:
            assert f"`{fault}`" in text, (check.id, fault)


def test_every_profile_key_is_on_the_profile_keys_page() -> None:
    page = docs_pages.profile_keys_page()
    for key, _, _ in docs_pages.schema_leaves():
        section, name = key.rsplit(".", 1)
        assert f"## [{section}]" in page and f"| `{name}` |" in page, key
    for sample, contract in ADDRESS_SAMPLES.items():
        assert f"| `{sample}` |" in page and docs_pages._cell(contract) in page, sample


def test_a_profile_key_without_its_text_fails_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    entries = [e for e in docs_pages.key_texts() if "limits.breaker_failures" not in e["keys"]]
    monkeypatch.setattr(docs_pages, "key_texts", lambda: [*entries, {"keys": ["limits.gone"], "default": "",
                                                                      "what": ""}])
    with pytest.raises(ValueError, match=r"without an entry: \['limits.breaker_failures'\].*naming no key.*limits.gone"):
        docs_pages.profile_keys_page()


def test_the_ci_examples_gate_on_the_exit_code_and_publish_the_report() -> None:
    gitlab = yaml.safe_load((CHECKOUT / "docs" / "ci" / "gitlab-ci.yml").read_text(encoding="utf-8"))
    job = gitlab["conformance:external-test"]
    assert job["allow_failure"] == {"exit_codes": [3, 4]} and job["artifacts"]["when"] == "always"
    assert "exit $code" in job["script"]
    github = yaml.safe_load((CHECKOUT / "docs" / "ci" / "github-actions.yml").read_text(encoding="utf-8"))
    steps = github["jobs"]["external-test"]["steps"]
    run = next(s for s in steps if s.get("id") == "run")
    assert "conformance run" in run["run"] and 'exit "$code"' in run["run"]
    upload = next(s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact"))
    assert upload["if"] == "always()" and "RUN_DIR" in upload["with"]["path"]


def _summary(check: str) -> dict[str, Any]:
    entry = {"check": check, "requirements": ["ADDR-4.api-version"], "severity": "MUST", "suite": "address",
             "title": "t", "test": "suites/x.py::test_x", "outcome": "failed", "reason": "no api-version"}
    return {"profile": "local-mock", "seed": 1, "faults": [], "checks": [entry, dict(entry, test="x::y")],
            "root_causes": [], "verdict_line": "verdict: DOES NOT CONFORM"}


def test_the_console_links_a_failed_check_to_its_page(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from conformance.reporting.console import verdict_lines

    check = "address.headers.api_version_present"
    monkeypatch.delenv("CONFORMANCE_DOCS_URL", raising=False)
    lines = verdict_lines(_summary(check), tmp_path)
    assert lines.count(f"       manual: checks/{check}.html") == 1  # once per check, under its first line
    monkeypatch.setenv("CONFORMANCE_DOCS_URL", "https://ci.example/manual/")
    assert f"       manual: https://ci.example/manual/checks/{check}.html" in verdict_lines(_summary(check), tmp_path)


def test_the_allure_report_links_each_check_to_its_page(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.catalogue import check_by_id
    from conformance.reporting.allure import label_item

    class Item:
        def __init__(self) -> None:
            self.marks: list[Any] = []

        def add_marker(self, mark: Any) -> None:
            self.marks.append(mark)

    monkeypatch.setenv("CONFORMANCE_DOCS_URL", "file:///srv/manual")
    item = Item()
    label_item(item, check_by_id("address.headers.api_version_present"))  # type: ignore[arg-type]
    links = [(m.args, m.kwargs) for m in item.marks if m.name == "allure_link"]
    assert (("file:///srv/manual/checks/address.headers.api_version_present.html",),
            {"link_type": "link", "name": "manual: address.headers.api_version_present"}) in links
    assert json.dumps(links)  # plain values, as allure-pytest writes them
