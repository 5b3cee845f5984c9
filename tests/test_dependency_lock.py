"""Dependencies that can be audited: the Python lock with hashes that bootstrap, tox and CI
install from, the lint's audits (pip-audit, npm audit) with their ignore file, and the npm
overrides that keep a vulnerable lodash out of the Node tools. Reads files only: no network."""

from __future__ import annotations

import configparser
import datetime
import json
import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from conformance.paths import CHECKOUT

assert CHECKOUT is not None
ROOT = CHECKOUT
LOCK = ROOT / "tools" / "requirements.lock"
BOOTSTRAP = (ROOT / "scripts" / "bootstrap").read_text(encoding="utf-8")
LINT = (ROOT / "scripts" / "lint").read_text(encoding="utf-8")
AUDIT = (ROOT / "scripts" / "audit.py").read_text(encoding="utf-8")
IGNORE_FILE = ROOT / "tools" / "audit-ignore.toml"
# lodash below 4.18.0 carries published advisories (GHSA-xxjr-mmjv-4gpg, fixed in 4.17.23;
# GHSA-r5fr-rjxr-66jc, fixed in 4.18.0); Prism's postman-collection pins 4.17.21.
LODASH_FIXED = Version("4.18.0")


def _pins() -> dict[str, tuple[str, list[str]]]:
    """name -> (version, its sha256 hashes), from the lock's `name==version \\` entries."""
    pins: dict[str, tuple[str, list[str]]] = {}
    current = None
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if match := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line):
            current = canonicalize_name(match[1])
            assert current not in pins, f"{current} is pinned twice in {LOCK.name}"
            pins[current] = (match[2], [])
        elif match := re.match(r"^\s+--hash=sha256:([0-9a-f]{64})\b", line):
            assert current is not None, f"a hash before any pin in {LOCK.name}: {line}"
            pins[current][1].append(match[1])
    return pins


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(r) for r in (*project["dependencies"], *project["optional-dependencies"]["dev"])]


def test_every_declared_dependency_is_pinned_in_the_lock_with_hashes() -> None:
    pins = _pins()
    declared = _declared()
    assert "pip-audit" in {canonicalize_name(r.name) for r in declared}, "pip-audit belongs to the dev extra"
    for req in declared:
        name = canonicalize_name(req.name)
        assert name in pins, f"{req} (pyproject.toml) is not in {LOCK.name}: run scripts/bootstrap --relock"
        version, hashes = pins[name]
        assert req.specifier.contains(version, prereleases=True), (
            f"{LOCK.name} pins {name}=={version}, outside pyproject.toml's {req}: run scripts/bootstrap --relock")
        assert hashes, f"{name}=={version} has no --hash in {LOCK.name}"
    # The editable build of the harness uses the locked setuptools (--no-build-isolation).
    assert "setuptools" in pins
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    for req in map(Requirement, build):
        assert req.specifier.contains(pins[canonicalize_name(req.name)][0]), f"the lock's {req.name} misses {req}"


def test_every_locked_distribution_has_an_exact_pin_and_a_hash() -> None:
    pins = _pins()
    assert len(pins) > len(_declared()), "the lock holds the transitive dependencies too"
    for name, (version, hashes) in pins.items():
        Version(version)  # an exact, valid version (InvalidVersion otherwise)
        assert hashes, f"{name}=={version} has no hash in {LOCK.name}"
        assert len(set(hashes)) == len(hashes), f"{name}: a hash listed twice"
    text = LOCK.read_text(encoding="utf-8")
    assert not re.search(r"^(-e|--index-url|--extra-index-url|--find-links|git\+)", text, re.M), (
        "the lock names only PyPI distributions by version")


def test_the_lock_header_names_the_command_that_regenerates_it() -> None:
    header = LOCK.read_text(encoding="utf-8").split("\n\n", 1)[0].split("\n")
    comments = [line for line in header if line.startswith("#")]
    assert "#    scripts/bootstrap --relock" in comments, comments
    relock = BOOTSTRAP[BOOTSTRAP.index("relock() {"):]
    relock = relock[:relock.index("\n}\n")]
    # The command itself: pip-compile, pinned, in a throwaway virtualenv, with the hashes of
    # every file of each version, the dev extra, and the header's text.
    assert re.search(r"pip install --quiet pip==[\d.]+ pip-tools==[\d.]+", relock)
    assert 'CUSTOM_COMPILE_COMMAND="scripts/bootstrap --relock"' in relock
    for option in ("--generate-hashes", "--allow-unsafe", "--extra dev", '--output-file "$LOCK"'):
        assert option in relock, option
    assert "--relock) shift; relock" in BOOTSTRAP


def test_bootstrap_installs_the_lock_with_require_hashes() -> None:
    assert "LOCK=tools/requirements.lock" in BOOTSTRAP
    assert re.search(r'\.venv/bin/python -m pip install [^\n]*--require-hashes -r "\$LOCK"', BOOTSTRAP)
    # then the harness itself, editable, adding nothing the lock did not hash
    assert re.search(r"pip install [^\n]*--no-deps --no-build-isolation -e \.", BOOTSTRAP)
    assert not re.search(r"pip install [^\n]*(--upgrade|-e '\.\[dev\]')", BOOTSTRAP)
    # the stamp changes with the lock and with pyproject.toml
    assert re.search(r'stamp=\.venv/\.installed-\$\(cat pyproject\.toml "\$LOCK" \| sha256sum', BOOTSTRAP)


def test_the_virtualenvs_packages_are_byte_compiled() -> None:
    """bootstrap installs the lock with --no-compile, then byte-compiles it on every core: a
    package left uncompiled would be compiled again by every process the tests start (with
    PYTHONDONTWRITEBYTECODE set, as on CI machines)."""
    import importlib.util
    import sys
    from pathlib import Path

    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        pytest.skip("not the virtualenv scripts/bootstrap makes (tox's pip compiles as it installs)")
    for name in ("pip", "hypothesis", "schemathesis", "zeep", "lxml", "allure_commons", "httpx", "jwt"):
        source = importlib.util.find_spec(name).origin
        assert Path(importlib.util.cache_from_source(source)).is_file(), f"{name} is not byte-compiled"


def test_tox_installs_the_lock_and_reuses_bootstraps_node_tools() -> None:
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini")
    assert tox["testenv"]["deps"].strip() == "-r{toxinidir}/tools/requirements.lock"
    lint = tox["testenv:lint"]
    # npm ci only through bootstrap's stamp check: never over a finished install.
    assert lint["commands_pre"].strip() == "{toxinidir}/scripts/bootstrap --node-tools"
    assert "npm ci" not in lint.get("commands_pre", "") + lint["commands"]
    node = BOOTSTRAP[BOOTSTRAP.index("node_tools() {"):]
    node = node[:node.index("\n}\n")]
    assert re.search(r'if \[ ! -f "\$lock_stamp" \]; then\n[^\n]*\n\s*SCARF_ANALYTICS=false npm ci', node)
    assert "--node-tools) node_tools; exit 0" in BOOTSTRAP


def test_the_lint_runs_pip_audit_and_npm_audit() -> None:
    audit_at = LINT.index('"$PYTHON" scripts/audit.py')
    assert LINT.index('"$SPECTRAL" lint') < audit_at and LINT.index('"$RUFF" check') < audit_at
    pip_audit = re.search(r"\[os\.environ\[\"PIP_AUDIT\"\], (.*?)\]", AUDIT, re.S)
    assert pip_audit, "scripts/lint runs pip-audit"
    args = pip_audit[1]
    for arg in ('"--requirement", "tools/requirements.lock"', '"--require-hashes"', '"--strict"', '"json"'):
        assert arg in args, arg
    npm_audit = re.search(r'\["npm", "audit", (.*?)\]', AUDIT, re.S)
    assert npm_audit, "scripts/lint runs npm audit"
    for arg in ('"--prefix", "tools"', '"--json"', '"--include=dev"'):
        assert arg in npm_audit[1], arg
    assert "--omit" not in npm_audit[1]
    assert 'IGNORE_FILE = Path("tools/audit-ignore.toml")' in AUDIT
    assert 'OFFLINE == "skip"' in AUDIT and "CONFORMANCE_AUDIT_OFFLINE" in LINT


def test_the_audit_ignore_file_parses_and_every_entry_has_a_reason_and_an_expiry() -> None:
    data = tomllib.loads(IGNORE_FILE.read_text(encoding="utf-8"))
    assert set(data) <= {"advisory"}, f"{IGNORE_FILE.name}: only [[advisory]] tables"
    for number, entry in enumerate(data.get("advisory", []), 1):
        where = f"{IGNORE_FILE.name}, [[advisory]] number {number}"
        assert set(entry) == {"id", "ecosystem", "package", "reason", "expires"}, where
        assert re.fullmatch(r"(GHSA(-[0-9a-z]{4}){3}|PYSEC-\d{4}-\d+|CVE-\d{4}-\d+|npm-\d+)", entry["id"]), where
        assert entry["ecosystem"] in {"pypi", "npm"}, where
        assert entry["package"].strip() and len(entry["reason"].split()) >= 3, f"{where}: a package and a reason"
        # a date (YYYY-MM-DD, unquoted); whether it has passed is the lint's verdict, not this test's
        assert type(entry["expires"]) is datetime.date, f"{where}: expires is a date"


@pytest.mark.parametrize("package", ["lodash", "lodash-es"])
def test_no_lodash_below_the_fixed_version_in_the_npm_lock(package: str) -> None:
    tools = json.loads((ROOT / "tools" / "package.json").read_text(encoding="utf-8"))
    override = tools["overrides"]["lodash"]
    assert re.fullmatch(r"[\^~]?\d+\.\d+\.\d+", override) and Version(override.lstrip("^~")) >= LODASH_FIXED, override
    lock = json.loads((ROOT / "tools" / "package-lock.json").read_text(encoding="utf-8"))
    found = {path: entry["version"] for path, entry in lock["packages"].items()
             if path.rsplit("node_modules/", 1)[-1] == package}
    assert found, f"no {package} in tools/package-lock.json: this test checks nothing any more"
    old = {path: version for path, version in found.items() if Version(version) < LODASH_FIXED}
    assert not old, f"{package} below {LODASH_FIXED} in tools/package-lock.json: {old}"


# The pages that document installs (issue 50, item 5: the wheel, pipx, the README's Dockerfile
# and `npm install allure@3` took lower-bounded versions without hashes).
DOC_PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "docs" / "ci").glob("*"))]


def test_every_documented_install_takes_a_lock_with_its_hashes() -> None:
    """A pip install shown anywhere takes the lock with --require-hashes or the harness's wheel
    alone (--no-deps); pipx is given the lock with --require-hashes; Node packages come from
    `npm ci` of tools/package-lock.json, and `npm install` only rewrites that lock. The
    commands themselves run in tests/test_installed_tool.py."""
    shown = []
    for page in DOC_PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
            if re.search(r"\bpipx install\b", line):
                assert '--pip-args="--require-hashes -r ' in line, where
                shown.append(where)
            elif re.search(r"\bpip3? install\b", line):
                assert "--require-hashes" in line or "--no-deps" in line, where
                shown.append(where)
            if re.search(r"\bnpm (install|i|add)\b", line):
                assert "--package-lock-only" in line, where
            assert not re.search(r"\bnpx |allure@\d", line), where
    assert len(shown) >= 5, shown  # pipx's, the virtualenv's two, the Dockerfile's two


def test_every_package_of_the_npm_lock_has_an_integrity_hash() -> None:
    """What `npm ci` checks each package against (the lock records no download addresses: the
    registry the machine is configured with serves them)."""
    lock = json.loads((ROOT / "tools" / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["lockfileVersion"] >= 2
    packages = {path: entry for path, entry in lock["packages"].items() if path and not entry.get("link")}
    assert packages
    for path, entry in packages.items():
        assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", entry.get("integrity", "")), path
