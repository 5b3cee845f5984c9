"""Where a run finds what ships with the harness, and where it writes.

One place, so that a copy installed with pip or pipx behaves as the checkout does: the
suites (`suites/` of the checkout) and the shipped profiles (`profiles/`) are mapped into the
package as `conformance.suites` and `conformance.profiles_shipped` (pyproject.toml's
package-dir), so the import system finds them wherever the package is: in the checkout, in an
editable install and in site-packages alike. The descriptions, WSDL and schemas are package
data next to this file; reports go under the working directory; caches under the user's
cache directory. Only the project's own tooling (the checkout's `tools/node_modules`, its docs)
lives outside the package, and each has an environment variable for an installed copy.
"""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path


def _package_folder(name: str) -> Path:
    spec = find_spec(name)
    assert spec is not None and spec.origin is not None, f"{name} is not installed with the harness"
    return Path(spec.origin).resolve().parent


PACKAGE_DIR = Path(__file__).resolve().parent
SUITES_DIR = _package_folder("conformance.suites")
SHIPPED_PROFILES = _package_folder("conformance.profiles_shipped")
# A team's own profiles: `./profiles/` of the directory a run starts from (in the checkout,
# the same folder as the shipped ones). A name resolves there first.
LOCAL_PROFILES_DIRNAME = "profiles"
OPENAPI_DESCRIPTION = PACKAGE_DIR / "openapi" / "address-v2.yaml"
# The checkout the package runs from, when it does (an editable install or PYTHONPATH):
# its `tools/` holds the pinned Node tools and `docs/` the MUST audit. None when installed.
CHECKOUT: Path | None = PACKAGE_DIR.parent if (PACKAGE_DIR.parent / "pyproject.toml").is_file() else None

CACHE_DIR_ENV = "CONFORMANCE_CACHE_DIR"
NODE_TOOLS_ENV = "CONFORMANCE_NODE_TOOLS"
# The failing examples contract fuzzing found, per environment, replayed first by later runs.
FINDINGS_DIR_ENV = "CONFORMANCE_FINDINGS_DIR"
# The specification texts (000_*.txt, 001_*.txt) `conformance requirements --audit` quotes.
SEEDS_DIR_ENV = "CONFORMANCE_SEEDS_DIR"


def reports_dir() -> Path:
    """Where runs write when no --report-dir is given: ./reports of the working directory."""
    return Path.cwd() / "reports"


def cache_dir() -> Path:
    """Generated material kept between runs (the address mock's database, test PKIs).

    $CONFORMANCE_CACHE_DIR, else the checkout's `.cache/`, else the user's cache directory
    ($XDG_CACHE_HOME or ~/.cache)/registry-conformance: never inside site-packages."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)
    if CHECKOUT is not None:
        return CHECKOUT / ".cache"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "registry-conformance"


def findings_dir() -> Path:
    """Where contract fuzzing keeps the failing examples it found (Hypothesis's example
    database), one folder per environment (conformance/run_setup.py findings_database):
    $CONFORMANCE_FINDINGS_DIR, else `findings/` of the cache directory."""
    override = os.environ.get(FINDINGS_DIR_ENV)
    return Path(override) if override else cache_dir() / "findings"


def seeds_dir() -> Path | None:
    """The folder of the specification texts the MUST audit quotes: $CONFORMANCE_SEEDS_DIR,
    else, in the checkout, the workspace's `shared/seeds` beside it. None for an installed
    copy without the variable: `conformance requirements --audit --seeds DIR` names it."""
    override = os.environ.get(SEEDS_DIR_ENV)
    if override:
        return Path(override)
    if CHECKOUT is not None:
        return CHECKOUT.parent / "shared" / "seeds"
    return None


def node_tools_dir() -> Path | None:
    """The folder whose node_modules holds Allure 3 (and, in the checkout, spectral).

    $CONFORMANCE_NODE_TOOLS, else the checkout's `tools/`, else the user's data directory
    ($XDG_DATA_HOME or ~/.local/share)/registry-conformance (README "Installing it as a
    tool"). None: HTML reports are not rendered; everything else of a run is."""
    override = os.environ.get(NODE_TOOLS_ENV)
    if override:
        return Path(override)
    if CHECKOUT is not None:
        return CHECKOUT / "tools"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    user = Path(base) / "registry-conformance"
    return user if user.is_dir() else None
