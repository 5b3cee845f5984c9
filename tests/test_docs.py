"""The pages stay true to the code: every file, module and `conformance` command that
docs/, CONTRIBUTING.md and the README name exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from conformance.cli import build_parser
from conformance.paths import CHECKOUT

PAGES = sorted((CHECKOUT / "docs").glob("*.md")) + [CHECKOUT / "CONTRIBUTING.md", CHECKOUT / "README.md"]
# A path of the tree as a page writes it (in backticks or plain): a folder of the checkout,
# then path segments, ending in a file name with an extension or a slash.
_PATH = re.compile(r"(?<![\w/.-])((?:conformance|suites|tests|scripts|benchmarks|docs|tools|profiles|\.ci)"
                   r"/[\w./*-]*[\w*/])")
_MODULE = re.compile(r"(?<![\w./-])(conformance(?:\.[a-z_][a-z0-9_]*)+)")
# A command as a page shows it: in a code block, or in backticks in the text.
_IN_CODE = re.compile(r"(?:^[ \t]*|/bin/|&&\s*|\|\s*|\$\s*)conformance ([a-z][a-z-]+)", re.MULTILINE)
_IN_TEXT = re.compile(r"`(?:\.venv/bin/)?conformance ([a-z][a-z-]+)")


def _commands(text: str) -> set[str]:
    found: set[str] = set()
    for index, part in enumerate(text.split("```")):
        found |= set((_IN_CODE if index % 2 else _IN_TEXT).findall(part))
    return found
# Written as placeholders or examples, not as files of the tree.
_EXAMPLES = ("profiles/vendor-x.toml", "profiles/<name>.toml", "profiles/$ENV.toml", "tests/interop/expected/*.toml")


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _exists(reference: str) -> bool:
    if "<" in reference or "$" in reference or reference in _EXAMPLES:
        return True
    if "*" in reference:
        return any(CHECKOUT.glob(reference))
    return (CHECKOUT / reference.rstrip("/")).exists() or (CHECKOUT / reference.rstrip(".")).exists()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_file_a_page_names_exists(page: Path) -> None:
    missing = sorted({m for m in _PATH.findall(_text(page)) if not _exists(m)})
    assert missing == [], f"{page.name} names files that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_module_a_page_names_exists(page: Path) -> None:
    def found(name: str) -> bool:
        # `conformance.mocks.faults.expected_failures`: a module, or an attribute of one.
        parts = name.split(".")
        for cut in range(len(parts), 1, -1):
            module = ".".join(parts[:cut])
            try:
                spec = importlib.util.find_spec(module)
            except ModuleNotFoundError:  # a parent that is a module, not a package
                spec = None
            if spec is not None:
                rest = parts[cut:]
                if not rest:
                    return True
                target = importlib.import_module(module)
                return hasattr(target, rest[0])
        return False

    missing = sorted({m for m in _MODULE.findall(_text(page)) if not found(m.rstrip("."))})
    assert missing == [], f"{page.name} names modules that do not exist: {missing}"


def test_every_command_a_page_names_exists() -> None:
    parser = build_parser()
    commands = set(next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices)
    named = {m for page in PAGES for m in _commands(_text(page))}
    words = {"run", "traffic"}  # the two most named: the parser must have them
    assert words <= commands
    assert sorted(named - commands) == []


def _tree_entries(text: str) -> list[str]:
    """The files and folders a layout tree in a code block names (a root at column 0 ending
    in `/`, its entries indented two spaces): `conformance/` + `http/exchange.py` ..."""
    found: list[str] = []
    for index, block in enumerate(text.split("```")):
        if not index % 2:
            continue
        root = None
        for line in block.splitlines():
            top = re.match(r"^([a-z.][\w.-]*/)(\s|$)", line)
            if top:
                root = top.group(1)
                continue
            entry = re.match(r"^  (\S+)", line)
            if root and entry and ("/" in entry.group(1) or "." in entry.group(1)):
                found += [root + name.rstrip(",") for name in entry.group(1).split(",") if name]
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_entry_of_a_layout_tree_exists(page: Path) -> None:
    missing = sorted({e for e in _tree_entries(_text(page)) if not _exists(e)})
    assert missing == [], f"{page.name}'s layout names files that do not exist: {missing}"


# The source's own docstrings and comments name files too (issue 52: two named a module that
# no longer existed): every path one names exists.
SOURCES = sorted(p for folder in ("conformance", "suites", "tests", "scripts", "benchmarks")
                 for p in (CHECKOUT / folder).rglob("*.py") if "__pycache__" not in p.parts)


# Made-up test ids, and paths inside an installed wheel (tests/test_installed_tool.py).
_SOURCE_EXAMPLES = ("suites/x.py", "suites/a.py", "conformance/suites/", "conformance/profiles_shipped/")


def test_every_file_the_source_names_exists() -> None:
    missing = {}
    for source in SOURCES:
        text = source.read_text(encoding="utf-8")
        gone = sorted({m for m in _PATH.findall(text) if m.endswith((".py", ".md", ".toml", ".yaml", ".mjs"))
                       and not m.startswith(_SOURCE_EXAMPLES) and not _exists(m)})
        if gone:
            missing[str(source.relative_to(CHECKOUT))] = gone
    assert missing == {}, missing


def test_every_file_and_module_a_generated_page_names_exists() -> None:
    """The manual's generated pages (the check reference, the profile keys: scripts/docs_pages.py)
    name the files that declare each check, and modules: they exist too."""
    import sys

    sys.path.insert(0, str(CHECKOUT / "scripts"))
    import docs_pages

    missing = {}
    for name, text in docs_pages.generated_pages().items():
        gone = sorted({m for m in _PATH.findall(text) if not _exists(m)})
        gone += sorted({m for m in _MODULE.findall(text) if importlib.util.find_spec(m.rsplit(".", 1)[0]) is None})
        if gone:
            missing[name] = gone
    assert missing == {}, missing
