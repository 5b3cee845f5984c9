"""The manual's generated pages (scripts/docs writes them beside docs/ before Sphinx reads it):

* the check reference: `checks/index.md` and one page per check id, from the check registry
  (conformance/checks/registry.py, loaded as `conformance requirements` loads it), the
  requirement catalogue (its quotes of the specifications), the fault catalogue (the faults
  that prove a check, the variants it must pass) and the safety switches;
* the profile keys: `profile-keys.md`, every key of the profile schema
  (conformance/profiles.py PROFILE_SCHEMA: type, allowed values, whether required) with its
  default and meaning from docs/profile-keys.toml.

Generated, never committed: a page that could be edited by hand would drift from the code.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conformance.catalogue import registered_checks
from conformance.checks.registry import Check
from conformance.mocks.faults import Fault, catalogue, variants
from conformance.paths import CHECKOUT, SUITES_DIR
from conformance.profiles import ADDRESS_SAMPLES, PROFILE_SCHEMA
from conformance.reporting.manual import CHECKS_FOLDER
from conformance.requirements import Requirement, load_requirements
from conformance.run_setup import SWITCHES

ROOT = CHECKOUT or Path(__file__).resolve().parent.parent
KEY_TEXTS = ROOT / "docs" / "profile-keys.toml"

# The suites a user names: what each judges, in the user's words, and how its checks run.
SUITE_WORDS = {
    "address": "address API (specification 000)",
    "auth": "authorization server (specification 001, part a)",
    "soap": "SOAP message service (specification 001, part b)",
    "client": "clients of the APIs, judged from their traffic",
    "compare": "comparison with the register's own environment",
}
SEVERITY_WORDS = {
    "MUST": "MUST: the specification requires it; a failure fails the run (exit 1)",
    "SHOULD": "SHOULD: the specification is silent and the check follows the register's public behaviour, "
              "or a rule that is not a MUST; a failure is a warning",
    "observation": "observation: the specification leaves it open (\"not shown\"); the value is measured and "
                   "recorded, never failed",
}
SENDS_WORDS = {
    "valid": "valid requests (every profile allows them)",
    "nothing": "nothing of its own: it judges what the run's other checks sent, or recorded traffic",
}
# Declarations live in the suites' test modules and the passive rules (load_catalogues).
DECLARING_FOLDERS = (SUITES_DIR, ROOT / "conformance" / "passive" / "rules")


# ------------------------------------------------------------------------------ check reference
def check_reference() -> dict[str, str]:
    """Relative path -> Markdown: the index and one page per check."""
    checks = registered_checks()
    requirements = load_requirements()
    faults = {f.name: f for f in [*catalogue(), *variants()]}
    sources = _declaring_files()
    pages = {f"{CHECKS_FOLDER}/index.md": _index(checks)}
    for check in checks:
        pages[f"{CHECKS_FOLDER}/{check.id}.md"] = check_page_text(check, requirements, faults, sources)
    return pages


def _index(checks: list[Check]) -> str:
    lines = ["# Check reference", "",
             f"Every check the harness has ({len(checks)}), by what it judges. A failed check in the console and in "
             "the Allure report links to its page here. Each page gives the check's severity, the sentences of "
             "the specification it rests on, what it sends, the mock faults that prove it, the variants it must "
             "pass, whether a waiver may accept its failure, and how to run it alone.", "",
             "These pages are generated from the checks' declarations by `scripts/docs`; "
             "[Contributing](../contributing.md) says how a check is declared.", "",
             ""]
    for suite, words in SUITE_WORDS.items():
        members = [c for c in checks if c.suite == suite]
        if not members:
            continue
        lines += [f"## {words[0].upper()}{words[1:]}", "", "| check | severity | what it judges |", "|---|---|---|"]
        lines += [f"| [`{c.id}`]({c.id}.md) | {c.severity} | {_cell(c.title)} |" for c in members]
        lines.append("")
    return "\n".join(lines)


def check_page_text(check: Check, requirements: dict[str, Requirement], faults: dict[str, Fault],
                    sources: dict[str, str]) -> str:
    # orphan: reached from the index's tables, not the sidebar's table of contents (337 entries
    # on each of the manual's pages made the build take minutes, and the sidebar unreadable).
    lines = ["---", "orphan: true", "---", "", f"# {check.id}", "", f"**{_text(check.title)}**", "",
             "| | |", "|---|---|",
             f"| judges | {SUITE_WORDS.get(check.suite, check.suite)}{'; ' + _cell(check.feature) if check.feature else ''} |",
             f"| severity | {_cell(SEVERITY_WORDS[str(check.severity)])} |",
             f"| sends | {_cell('; '.join(_sends(kind) for kind in check.sends))} |",
             f"| judged from traffic | {_observes(check)} |",
             f"| may be waived | {_cell(_waivable(check))} |"]
    if check.id in sources:
        lines.append(f"| declared in | `{sources[check.id]}` |")
    lines.append("")
    if check.downgrade_reason:
        lines += [f"Why it is {check.severity} although what it quotes is a MUST: {_text(check.downgrade_reason)}", ""]
    lines += ["## Requirements", ""]
    for rid in check.requirements:
        req = requirements.get(rid)
        if req is None:
            lines += [f"### {rid}", "", "Not in the requirement catalogue.", ""]
            continue
        lines += [f"### {rid} ({req.severity})", "", f"{_source(req)}, {_text(req.section)}: {_text(req.text)}.", ""]
        for quote in req.quote:
            lines += [f"> {_text(quote)}", ""]
        if req.untestable:
            lines += [f"No check of a server can verify it: {_text(req.untestable)}.", ""]
    lines += ["## Proof", ""]
    proven = [faults[n] for n in check.proven_by if n in faults and not faults[n].is_variant]
    proven_variants = [faults[n] for n in check.proven_by if n in faults and faults[n].is_variant]
    if proven:
        lines += ["It must fail against the local mock under each of these faults:", ""]
        lines += [f"* `{f.name}`: {_text(f.description)}" for f in proven] + [""]
    elif check.suite in ("client", "compare"):
        lines += ["It is proven both ways by the project's own tests of its rule (no mock fault applies).", ""]
    else:
        lines += ["No mock fault is made for it: "
                  + ("an observation never fails." if str(check.severity) == "observation"
                     else "it is proven by the project's own tests."), ""]
    if proven_variants:
        lines += ["It does not hold under these variants (behaviour the specification allows; a SHOULD check "
                  "follows the public behaviour instead):", ""]
        lines += [f"* `{f.name}`: {_text(f.description)} (allowed by {_text(f.allowed_by or '')})"
                  for f in proven_variants] + [""]
    collateral = [n for n in check.may_fail_under if n != "*"]
    if "*" in check.may_fail_under:
        lines += ["It may fail in consequence under any fault of its server (it judges every answer).", ""]
    if collateral:
        lines += ["It may fail in consequence (another rule broke first) under: "
                  + ", ".join(f"`{n}`" for n in collateral) + ".", ""]
    must_pass = [v for v in variants(check.suite) if v.name not in check.proven_by]
    if must_pass:
        lines += ["It must pass against the local mock under every variant of its server (behaviour the "
                  "specification allows that the mock does not show by default):", ""]
        lines += [f"* `{v.name}`: {_text(v.description)}" for v in must_pass] + [""]
    lines += ["## Run it alone", "", "```sh", *_reproduce(check, proven), "```", ""]
    return "\n".join(lines)


def _reproduce(check: Check, proven: list[Fault]) -> list[str]:
    if check.suite == "client":
        return ["# judged from a recorded capture of your client's traffic (the manual: Traffic and proxy):",
                ".venv/bin/conformance traffic traffic.har --profile vendor-x.toml"]
    if check.suite == "compare":
        return ["# judged by a comparison with the register's environment (the manual: Comparing):",
                ".venv/bin/conformance compare --profile vendor-x.toml --reference production"]
    command = f".venv/bin/conformance run --suite {check.suite} --check {check.id}"
    lines = [f"{command}                # against the local mock", f"{command} --profile vendor-x.toml"]
    if proven:
        lines.append(f"{command} --mock-fault {proven[0].name}   # fails: the fault it exists for")
    return lines


def _sends(kind: str) -> str:
    if kind in SWITCHES:
        switch, what = SWITCHES[kind]
        return f"{kind}: it may {what} (only where the profile sets `safety.{switch} = true`)"
    return SENDS_WORDS.get(kind, kind)


def _observes(check: Check) -> str:
    if check.observes == "exchange":
        return ("yes: one exchange can show it broken, so it judges every exchange of a run, of "
                "`conformance traffic` and of `conformance proxy`")
    if check.observes == "flow":
        return "yes, over a whole flow of exchanges (`conformance traffic`, `conformance proxy`)"
    return "no: only a request of its own can judge it (an active run)"


def _waivable(check: Check) -> str:
    severity = str(check.severity)
    if severity == "observation":
        return "nothing to waive: an observation never fails"
    effect = "exit 0 instead of 1" if severity == "MUST" else "no warning"
    return (f"yes: a [waiver](../reports.md#waivers-accepted-deviations) accepts its failure until a date "
            f"({effect}); a blocked or broken check is never waived")


def _source(req: Requirement) -> str:
    """A catalogue source in the user's words: the specification's number and part."""
    seed = re.match(r"seed (\d{3})_\S+\.txt (part .*)", req.source)
    if seed:
        return f"specification {seed[1]}, {seed[2]}"
    if req.source.startswith("bag-api.md"):
        return "the register's public behaviour (the reference sheet)"
    return _text(req.source)


def _declaring_files() -> dict[str, str]:
    """check id -> the file that declares it, where its id is written out (or an f-string's prefix)."""
    found: dict[str, str] = {}
    for folder in DECLARING_FOLDERS:
        for path in sorted(folder.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            where = str(path.relative_to(ROOT)) if ROOT in path.parents else path.name
            for match in re.finditer(r'(?:check|rule)\(\s*(f?)"([a-z_]+\.[a-z0-9_.{}]+)"', text):
                found.setdefault(match[2], where) if not match[1] else found.setdefault(
                    "prefix:" + match[2].split("{", 1)[0], where)
    for check in registered_checks():
        if check.id not in found:
            prefix = next((k for k in found if k.startswith("prefix:") and check.id.startswith(k[7:])), None)
            if prefix:
                found[check.id] = found[prefix]
    return {k: v for k, v in found.items() if not k.startswith("prefix:")}


# ------------------------------------------------------------------------------ profile keys
def schema_leaves(node: dict[str, Any] = PROFILE_SCHEMA, prefix: str = "") -> Iterator[tuple[str, dict, bool]]:
    """(dotted key, its schema, required) of every key a profile may hold; the samples'
    tables give one key per sample."""
    required = set(node.get("required", ()))
    for name, sub in (node.get("properties") or {}).items():
        key = prefix + name
        if sub.get("type") == "object" and "properties" in sub:
            yield from schema_leaves(sub, key + ".")
        else:
            yield key, sub, name in required


def key_texts() -> list[dict[str, Any]]:
    return tomllib.loads(KEY_TEXTS.read_text(encoding="utf-8"))["key"]


def profile_keys_page() -> str:
    """Every key with its type, default and meaning; ValueError naming the keys of the schema
    docs/profile-keys.toml does not describe, or the entries that name no key."""
    leaves = list(schema_leaves())
    entry_of: dict[str, dict[str, Any]] = {}
    unused: list[str] = []
    for entry in key_texts():
        for name in entry["keys"]:
            covered = [k for k, _, _ in leaves if k == name or (name.endswith(".*") and k.startswith(name[:-1]))]
            if not covered:
                unused.append(name)
            for key in covered:
                entry_of.setdefault(key, entry)
    missing = [k for k, _, _ in leaves if k not in entry_of]
    if missing or unused:
        raise ValueError(f"{KEY_TEXTS.name}: keys of the profile schema without an entry: {missing}; "
                         f"entries naming no key of the schema: {unused}")
    lines = ["# Profile keys", "",
             "Every key a profile may hold, generated from the profile schema the harness validates every profile "
             "against (an unknown key, a wrong type or a missing required key is exit 2 naming the file and the "
             "key). `conformance profile new NAME` writes them all, commented. [Profiles](profiles.md) says how a "
             "profile is used.", ""]
    table = None
    for key, schema, required in leaves:
        section = key.rsplit(".", 1)[0]
        if section != table:
            table = section
            lines += ["", f"## [{section}]", "", "| key | value | default | what it is |", "|---|---|---|---|"]
        entry = entry_of[key]
        what = entry["what"]
        if key.startswith("services.address.samples.") and key.rsplit(".", 1)[1] in ADDRESS_SAMPLES:
            what = f"{what} {ADDRESS_SAMPLES[key.rsplit('.', 1)[1]]}"
        default = "(required)" if required and "required" not in entry["default"] else entry["default"]
        lines.append(f"| `{key.rsplit('.', 1)[1]}` | {_cell(value_words(schema))} | {_cell(default)} | {_cell(what)} |")
    return "\n".join(lines) + "\n"


def value_words(schema: dict[str, Any]) -> str:
    """A key's schema in words: its type and what it allows."""
    if "oneOf" in schema:
        return " or ".join(value_words(s) for s in schema["oneOf"])
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        return "a table: " + ", ".join(f"`{k}`" for k in schema.get("properties", {}))
    if kind == "array":
        return f"a list of {value_words(schema.get('items', {})).removeprefix('a ')}"
    if kind == "boolean":
        return "`true` or `false`"
    pattern = schema.get("pattern", "")
    if kind == "string":
        if pattern == "^https?://":
            return "a URL (http or https)"
        if pattern.startswith("^[A-Za-z_]"):
            return "the name of an environment variable"
        if pattern.startswith("^sha256//"):
            return "a `sha256//<base64>` pin"
        if pattern == "^/":
            return "a path starting with /"
        return "a string"
    bounds = [f"≥ {schema['minimum']}" if "minimum" in schema else "",
              f"> {schema['exclusiveMinimum']}" if "exclusiveMinimum" in schema else "",
              f"≤ {schema['maximum']}" if "maximum" in schema else ""]
    noun = "an integer" if kind == "integer" else "a number"
    return " ".join([noun, *[b for b in bounds if b]])


# ------------------------------------------------------------------------------ both
def generated_pages() -> dict[str, str]:
    """Relative path (in the manual's source folder) -> Markdown, every generated page."""
    return {**check_reference(), "profile-keys.md": profile_keys_page()}


def write_generated(source: Path) -> list[Path]:
    written = []
    for relative, text in generated_pages().items():
        path = source / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _text(text: str) -> str:
    """Prose from the code into Markdown: one line, and `<host>` outside code shown as written
    (MyST would take it for HTML)."""
    parts = " ".join(text.split()).split("`")
    return "`".join(p if i % 2 else p.replace("<", "&lt;").replace(">", "&gt;") for i, p in enumerate(parts))


def _cell(text: str) -> str:
    return _text(text).replace("|", "\\|")

