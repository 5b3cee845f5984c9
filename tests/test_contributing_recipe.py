"""CONTRIBUTING.md's recipe, followed as a contributor would (issue 52): a rule one exchange
can show broken is added in a temporary copy of the tree by its three files -- the rule with
the scenario that elicits it, the fault beside the behaviour it changes, the requirement row
-- and the fault meta-test then proves it both ways, with nothing else edited or regenerated
by hand.

The rule is the one a contributor tried: RFC 9110 15.5.6, a 405 answer carries Allow. The
copy imports its own `conformance` (PYTHONPATH) and its own suites and profiles (links named
as pyproject.toml's package mapping names them in an install).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from conformance.paths import CHECKOUT, seeds_dir

RULE_ID = "address.operations.allow_on_405"
FAULT = "address.allow_missing_on_405"

# 1. The rule, with the scenario that elicits it (conformance/passive/rules/address.py).
RULE = f'''


def _write_method(api):
    """A DELETE of the sample address, its GET served: a 405."""
    control = Req.of(f"/adressen/{{api.sample('nummeraanduiding')}}")
    return refused_vs_control(api, control, control.with_method("DELETE"), rule="DELETE on a read-only API",
                              statuses=(405,))


@exchange_rule("{RULE_ID}", MUST, "A 405 answer names the methods the resource allows in Allow",
               requirements=["RFC9110-15.5.6"],
               proven_by=["{FAULT}"],
               sends=["refused"],
               feature="part 1, 9 / operations and versioning",
               what="405 answers", applies=lambda a, ctx: a.exchange.status == 405,
               elicit={{"delete": _write_method}})
def allow_on_405(a, ctx):
    g.has_header(a.exchange, "allow")
'''

# 2. The fault, beside the behaviour it changes (conformance/mocks/address/app.py).
FAULT_DECLARATION = f'''
ALLOW_MISSING_ON_405 = fault("{FAULT}", "a 405 answer carries no Allow header", shows="allow")
'''
SERVED = 'raise ProblemError("methodNotAllowed", headers={"Allow": "GET"})'
FAULTY = 'raise ProblemError("methodNotAllowed", headers={} if self.on(ALLOW_MISSING_ON_405) else {"Allow": "GET"})'

# 3. The requirement row (conformance/requirements/catalogue.toml), in the RFC 9110 source.
REQUIREMENT = '''
[[source.requirement]]
id = "RFC9110-15.5.6"
section = "15.5.6"
severity = "MUST"
text = "a 405 answer carries Allow"
quote = "The origin server MUST generate an Allow header field in a 405 response containing a list of the target resource's currently supported methods."
'''
REQUIREMENT_AFTER = 'text = "Accept: media ranges, lists and q-values"\n'

# What the contributor writes down when scripts/regenerate asks (checked with curl against Prism).
PRISM_WHY = ("Prism answers a method the description does not have with 405 NO_METHOD_MATCHED_ERROR "
             "and sends no Allow header")

_NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "node_modules", "reports", ".cache", "__pycache__",
                                     ".pytest_cache", "*.egg-info", ".hypothesis", "_build")


def _copy_tree(target: Path) -> Path:
    """The tree without its environment, beside links to what a clone has around it: the
    virtualenv and Node tools the set-up made, and the specification texts (../shared)."""
    shutil.copytree(CHECKOUT, target, ignore=_NOT_COPIED, symlinks=True)
    # The package mapping of pyproject.toml, as an install makes it (the editable install's
    # finder would map both to the checkout's).
    for name, folder in (("suites", "suites"), ("profiles_shipped", "profiles")):
        link = target / "conformance" / name
        if link.is_symlink():  # a worktree that was set up the same way
            link.unlink()
        link.symlink_to(target / folder, target_is_directory=True)
    (target / ".venv").symlink_to(CHECKOUT / ".venv", target_is_directory=True)
    if (CHECKOUT / "tools" / "node_modules").is_dir():
        (target / "tools" / "node_modules").symlink_to(CHECKOUT / "tools" / "node_modules", target_is_directory=True)
    seeds = seeds_dir()
    if seeds is not None and seeds.is_dir():
        (target.parent / "shared").mkdir(exist_ok=True)
        (target.parent / "shared" / "seeds").symlink_to(seeds, target_is_directory=True)
    return target


def _edit(path: Path, old: str | None, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    if old is None:
        text += new
    else:
        assert text.count(old) == 1, f"{path}: the recipe's anchor {old!r} is not there once"
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


def _add_the_rule(tree: Path) -> None:
    _edit(tree / "conformance" / "passive" / "rules" / "address.py", None, RULE)
    app = tree / "conformance" / "mocks" / "address" / "app.py"
    _edit(app, "PROBLEM_INSTANCE_DECODED = fault(", FAULT_DECLARATION.lstrip() + "\n\nPROBLEM_INSTANCE_DECODED = fault(")
    _edit(app, SERVED, FAULTY)
    _edit(tree / "conformance" / "requirements" / "catalogue.toml", REQUIREMENT_AFTER, REQUIREMENT_AFTER + REQUIREMENT)


def _recipe_commands() -> list[str]:
    """The shell block of CONTRIBUTING.md's "Then regenerate and prove", as written."""
    text = (CHECKOUT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    block = text.split("### Then regenerate and prove", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def _sh(tree: Path, command: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("CONFORMANCE_SEEDS_DIR", None)  # the block names it, as a contributor's shell would
    return subprocess.run(["bash", "-c", command], cwd=tree, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.skipif(shutil.which("node") is None or not (CHECKOUT / "tools" / "node_modules").is_dir(),
                    reason="scripts/regenerate records the interop tables with Node.js (scripts/bootstrap installs it)")
def test_a_rule_added_by_the_recipes_three_files_is_proven_both_ways(tmp_path: Path) -> None:
    if seeds_dir() is None or not seeds_dir().is_dir():
        message = "the specification texts (../shared/seeds or $CONFORMANCE_SEEDS_DIR) are absent"
        if os.environ.get("CI"):
            pytest.fail(message + ": CI runs the recipe with them")
        pytest.skip(message)
    tree = _copy_tree(tmp_path / "tree")
    _add_the_rule(tree)
    where = _sh(tree, ".venv/bin/python -c 'import conformance, conformance.suites as s; print(conformance.__file__, s.__path__[0])'")
    assert where.returncode == 0 and str(tree) in where.stdout and str(CHECKOUT) not in where.stdout, where

    commands = _recipe_commands()
    assert len(commands) == 4 and commands[0].endswith("scripts/regenerate"), commands
    regenerate, fault_batch, variants, the_check = commands
    # A new outcome against the interop peer needs its reason; the recipe gives it when asked.
    made = _sh(tree, regenerate)
    if made.returncode == 2 and f"needs a why: {RULE_ID}" in made.stderr:
        said = next(line for line in made.stderr.splitlines() if line.startswith(f"needs a why: {RULE_ID}"))
        assert " failed" in said, said
        made = _sh(tree, regenerate + " --why " + shlex.quote(f"{RULE_ID}={PRISM_WHY}"))
        # Nothing the recording depends on changed since it asked: the same outcomes, not run again.
        assert "its outcomes are reused" in made.stdout, made.stdout[-3000:]
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    assert RULE_ID in (tree / "docs" / "must-audit.md").read_text(encoding="utf-8")

    proof = _sh(tree, fault_batch + " -p no:randomly -p no:cacheprovider -q")
    assert proof.returncode == 0 and " passed" in proof.stdout, proof.stdout[-4000:] + proof.stderr[-2000:]
    assert _sh(tree, variants + " -p no:randomly -p no:cacheprovider -q").returncode == 0
    clean = _sh(tree, the_check + f" -n 0 --no-html --report-dir {tmp_path / 'clean'}")
    assert clean.returncode == 0, clean.stdout[-3000:]
    summary = json.loads((tmp_path / "clean" / "summary.json").read_text())
    outcomes = {(e["test"].split("/", 1)[0], e["outcome"]) for e in summary["checks"] if e["check"] == RULE_ID}
    assert outcomes == {("address", "passed"), ("passive", "passed")}, outcomes  # its test and its traffic rule

    # Nothing else was edited: what derives from the declaration agrees with it (the interop
    # table was just written from a run against Prism by scripts/regenerate).
    derived = _sh(tree, ".venv/bin/pytest -q -p no:randomly -p no:cacheprovider tests/test_must_audit.py "
                        "tests/test_requirements_catalogue.py tests/test_docs.py")
    assert RULE_ID in (tree / "tests" / "interop" / "expected" / "prism-address.toml").read_text(encoding="utf-8")
    assert derived.returncode == 0, derived.stdout[-4000:]
