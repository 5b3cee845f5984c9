"""The house as docs/layout.md draws it: the top level, the package mapping, the layers.

The layers and the arrows allowed to run back up are read from docs/layout.md, so the page
stays true: an import that runs back up unlisted, a listed arrow that no longer exists, or a
circle of imports fails here.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections import defaultdict
from pathlib import Path

from conformance.paths import CHECKOUT, SHIPPED_PROFILES, SUITES_DIR

assert CHECKOUT is not None
ROOT = CHECKOUT
LAYOUT = ROOT / "docs" / "layout.md"
TOP_LEVEL = {"pyproject.toml", "conformance", "suites", "profiles", "reports", "tox.ini",
             "README.md", "tests", "benchmarks", "docs", "tools", "scripts", ".ci"}


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for base, prefix in ((ROOT / "conformance", "conformance"), (ROOT / "suites", "conformance.suites")):
        for path in base.rglob("*.py"):
            parts = [prefix, *path.relative_to(base).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = path
    return mods


def imports() -> dict[str, set[str]]:
    """module -> the harness modules it imports (at any depth of its code)."""
    mods = _modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [base, *(f"{base}.{a.name}" for a in node.names)]
            else:
                continue
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges[name].add(target)
    return edges


def _table(heading: str) -> list[list[str]]:
    text = LAYOUT.read_text(encoding="utf-8")
    section = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|") and not line.startswith("|---")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[1:]]


def layers() -> list[tuple[str, list[str]]]:
    return [(row[0], re.findall(r"`([\w.]+)`", row[1])) for row in _table("Layers")]


def layer_of(module: str, drawn: list[tuple[str, list[str]]]) -> tuple[int, str]:
    best: tuple[int, int, str] | None = None
    for rank, (name, prefixes) in enumerate(drawn):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[1]):
                best = (rank, len(prefix), name)
    assert best is not None, f"{module} is in no layer of docs/layout.md"
    return best[0], best[2]


def test_imports_run_top_down_but_for_the_listed_arrows() -> None:
    drawn = layers()
    assert [name for name, _ in drawn] == ["cli", "run", "suites", "checks", "clients", "base"]
    back_up = {(a, b) for a, targets in imports().items() for b in targets
               if layer_of(b, drawn)[0] < layer_of(a, drawn)[0]}
    listed = {(re.sub(r"`", "", row[0]), re.sub(r"`", "", row[1])) for row in _table("Arrows that run back up")}
    assert back_up - listed == set(), "arrows that run back up, not listed in docs/layout.md"
    assert listed - back_up == set(), "docs/layout.md lists arrows that no longer exist"


def test_no_module_imports_one_that_imports_it_back() -> None:
    edges = imports()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in list(edges):
        if module not in index:
            visit(module)
    assert circles == []


def test_the_registry_is_filled_by_the_explicit_loader_only() -> None:
    """Issue 52: the registry imported the passive rules by name so that it was complete, and
    every rules module imports the registry (a circle the static imports above do not see).
    Now it imports no declaring module; its views refuse to answer before
    conformance.catalogue.load(), which fills it."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from conformance.checks import registry\n"
        "assert not any(m.startswith(('conformance.passive', 'conformance.suites')) for m in sys.modules)\n"
        "try:\n    registry.registered_checks()\nexcept RuntimeError as e:\n    assert 'catalogue.load' in str(e)\n"
        "else:\n    raise SystemExit('answered before the load')\n"
        "from conformance import catalogue\n"
        "catalogue.load()\n"
        "assert len(registry.registered_checks()) > 300 and registry.check_by_id('address.adres.by_id')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=CHECKOUT)
    assert done.returncode == 0, done.stderr[-2000:]
    source = (CHECKOUT / "conformance" / "checks" / "registry.py").read_text(encoding="utf-8")
    assert "import_module" not in source and "conformance.passive" not in source


def test_the_plugin_runs_the_run_and_keeps_no_service_fixtures() -> None:
    plugin = ROOT / "conformance" / "pytest_plugin.py"
    assert len(plugin.read_text(encoding="utf-8").splitlines()) < 400
    fixtures = set(re.findall(r"@pytest\.fixture[^\n]*\ndef (\w+)", plugin.read_text(encoding="utf-8")))
    assert fixtures == {"conformance_state", "profile", "redactor", "run_context", "observe", "evidence"}


def test_the_top_level_is_the_one_asked_for() -> None:
    tracked = {p.name for p in ROOT.iterdir() if not p.name.startswith(".") or p.name == ".ci"}
    tracked -= {"reports"} if not (ROOT / "reports").exists() else set()
    assert TOP_LEVEL - tracked == set(), "missing at the top level"
    unexpected = {p for p in tracked - TOP_LEVEL if (ROOT / p).is_dir() or (ROOT / p).suffix in (".py", ".toml", ".cfg")}
    assert unexpected <= {"build", "dist", "registry_conformance.egg-info"}, unexpected


def test_suites_and_profiles_are_found_through_the_package_mapping() -> None:
    assert (ROOT / "suites").resolve() == SUITES_DIR
    assert (ROOT / "profiles").resolve() == SHIPPED_PROFILES
    assert {p.stem for p in SHIPPED_PROFILES.glob("*.toml")} == {"production", "external-test", "local-mock"}


def test_pyproject_names_every_package_of_the_tree() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    found = {".".join(("conformance", *p.parent.relative_to(ROOT / "conformance").parts)).rstrip(".")
             for p in (ROOT / "conformance").rglob("__init__.py")}
    found |= {".".join(("conformance.suites", *p.parent.relative_to(ROOT / "suites").parts)).rstrip(".")
              for p in (ROOT / "suites").rglob("__init__.py")}
    found.add("conformance.profiles_shipped")
    assert set(config["packages"]) == found
    assert config["package-dir"] == {"conformance.suites": "suites", "conformance.profiles_shipped": "profiles"}
