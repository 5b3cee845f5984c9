"""Maintainer script: rerun the Prism peer and print (or, with --write, update) the outcomes
of tests/interop/expected/prism-address.toml.

    .venv/bin/python tests/interop/record.py            # print the differences only
    .venv/bin/python tests/interop/record.py --write    # update the table

    .venv/bin/python tests/interop/record.py --write --why 'CHECK=the reason'

It runs exactly what tests/interop/test_prism_address.py runs. The `why` of a check whose
outcome is unchanged is kept. A check whose outcome changed -- a new non-pass, one kind of
non-pass for another, or a failure that now passes -- needs a written reason: the script asks
for it (at a terminal) or takes it from `--why CHECK=TEXT`; without one it writes nothing,
names the checks and exits 2 (issue 52: a reason was dropped or left as TODO silently). Write
which documented behaviour of Prism causes a non-pass (check it with curl against a running
Prism first), or what changed that made a check pass. A non-pass that is the harness's fault
is fixed in the harness, never recorded.

A recording is kept (.cache/interop/prism-address.json) with a fingerprint of everything its
outcomes depend on: the harness, its suites and profiles, what runs them against the peer
(INPUTS), the installed packages, Python, Node.js and Prism. Run again with none of them changed -- to give the
`--why` it asked for -- the script reuses it and says so, rather than spend a minute on the
same two runs; `--again` records anew. A run's outcomes are its seed's and its code's (the
same verdict twice), so a reused recording is the one a new run would make.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: forked_cli
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import prism_peer  # noqa: E402

HEADER = """\
# Expected verdicts of the address suite against interop peer 2: Stoplight Prism (npm
# @stoplight/prism-cli, unmodified) mocking conformance/openapi/address-v2.yaml, a stateless
# example server. Checked by tests/interop/test_prism_address.py; outcomes written by
# tests/interop/record.py, which keeps every `why`. Every non-pass names the documented
# behaviour of Prism that causes it: it answers the description's examples (else values it
# derives from the schemas: "string", 0, the first oneOf branch), whatever the query and
# the id; it validates requests against the description only (its 400 body is the example
# Error, the violation is named in its `sl-violations` header); it accepts any API key value;
# it keeps no state. A harness limitation is fixed in the harness, never recorded here.
# `observed`: an observation's value as JSON text.
"""


def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid TOML basic string


KEPT = prism_peer.ROOT / ".cache" / "interop" / "prism-address.json"
# What the outcomes depend on, under the checkout: the harness, its suites and profiles, and
# what runs them against the peer (not this script, nor the tables it writes).
INPUTS = ("conformance", "suites", "profiles", "tests/interop/profiles", "tests/interop/prism_peer.py",
          "tests/interop/verdicts.py", "tests/forked_cli.py")


def _files(root: Path) -> Iterator[Path]:
    for top in INPUTS:
        if (root / top).is_file():
            yield root / top
        for folder, dirs, files in os.walk(root / top):  # symlinked folders are not followed
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            yield from (Path(folder) / name for name in sorted(files) if not name.endswith(".pyc"))


def fingerprint(root: Path = prism_peer.ROOT) -> str:
    """A digest of what a recording's outcomes depend on (the module docstring)."""
    digest = hashlib.sha256()
    for path in _files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    installed = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout if shutil.which("node") else ""
    prism = prism_peer.installed_version() if prism_peer.PRISM_PACKAGE.is_file() else ""
    digest.update("\n".join([sys.version, node.strip(), prism, *installed]).encode())
    return digest.hexdigest()


def kept_recording(fingerprint_now: str, kept: Path = KEPT) -> dict[str, Any] | None:
    """The recording kept under this fingerprint, or None."""
    try:
        recording = json.loads(kept.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return recording if isinstance(recording, dict) and recording.get("fingerprint") == fingerprint_now else None


def keep_recording(recording: dict[str, Any], kept: Path = KEPT) -> None:
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(json.dumps(recording, ensure_ascii=False, default=str), encoding="utf-8")


def new_recording(fingerprint_now: str) -> dict[str, Any]:
    """Prism started; the full address run, and the contract fuzzing with the description as
    the profile's own."""
    with tempfile.TemporaryDirectory(prefix="prism-record-") as tmp:
        work = Path(tmp)
        with prism_peer.running_prism(work / "prism.log") as origin:
            full_run, full = prism_peer.run_suite(prism_peer.write_profile(work, origin), work / "full")
            contract_run, contract = prism_peer.run_suite(
                prism_peer.write_profile(work, origin, own_openapi=True), work / "contract", "-m", "fuzz")
    peer = {"name": "@stoplight/prism-cli", "version": prism_peer.installed_version(), "suite": "address",
            "exit_code": full_run.returncode, "contract_exit_code": contract_run.returncode}
    return {"fingerprint": fingerprint_now, "peer": peer, "full": prism_peer.outcomes_by_check(full),
            "contract": prism_peer.outcomes_by_check(contract)}


def render(peer: dict[str, Any], checks: dict[str, dict[str, Any]]) -> str:
    lines = [HEADER, "[peer]"]
    for key in ("name", "version", "suite", "exit_code", "contract_exit_code"):
        value = peer[key]
        lines.append(f"{key} = {_toml_string(value) if isinstance(value, str) else value}")
    lines += ["", "[checks]"]
    for check in sorted(checks):
        entry = checks[check]
        parts = [f"outcome = {_toml_string(entry['outcome'])}"]
        if "why" in entry:
            parts.append(f"why = {_toml_string(entry['why'])}")
        if "observed" in entry:
            parts.append(f"observed = {_toml_string(entry['observed'])}")
        lines.append(f"{_toml_string(check)} = {{ {', '.join(parts)} }}")
    return "\n".join(lines) + "\n"


def record(old: dict[str, Any], full: dict[str, dict[str, Any]], contract: dict[str, dict[str, Any]],
           whys: dict[str, str]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The new [checks] (the full run's outcomes, with their reasons) and the checks that need
    a reason nobody wrote: a non-pass without a kept or given why, or a changed outcome
    without a given one."""
    checks, unexplained = {}, []
    for check, result in full.items():
        before = old.get(check)
        changed = before is not None and before.get("outcome") != result["outcome"]
        entry: dict[str, Any] = {"outcome": result["outcome"]}
        why = whys.get(check) or (before.get("why") if before is not None and not changed else None)
        if why and why != prism_peer.TODO:
            entry["why"] = why
        elif result["outcome"] != "passed" or changed:
            unexplained.append(check)
        if result["outcome"] == "observation":
            entry["observed"] = prism_peer.observed_json(result.get("value"))
        checks[check] = entry
    for check, result in contract.items():
        if check.startswith(prism_peer.CONTRACT_PREFIX) and full.get(check, {}).get("outcome") != result["outcome"]:
            print(f"WARNING: {check}: {result['outcome']} with the profile's own openapi, "
                  f"{full.get(check, {}).get('outcome', 'not run')} in the full run: one table cannot hold both")
    return checks, sorted(unexplained)


def _given(pairs: list[str]) -> dict[str, str]:
    whys = {}
    for pair in pairs:
        check, sep, why = pair.partition("=")
        if not sep or not why.strip():
            raise SystemExit(f"--why {pair!r}: give CHECK=the reason")
        whys[check.strip()] = why.strip()
    return whys


def _ask(check: str, old: dict[str, Any] | None, result: dict[str, Any]) -> str:
    was = f"was {old['outcome']}, " if old else ""
    reason = (result.get("reason") or "").splitlines()[:1]
    return input(f"{check}: {was}now {result['outcome']} {reason}\n  why (Prism's documented behaviour, or what changed)? ").strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update the table (default: print differences)")
    parser.add_argument("--why", action="append", default=[], metavar="CHECK=TEXT",
                        help="the reason for a changed or new non-pass outcome of CHECK (repeatable)")
    parser.add_argument("--again", action="store_true",
                        help="record anew even when nothing the kept recording depends on changed")
    args = parser.parse_args()
    whys = _given(args.why)
    missing = prism_peer.missing_tools()
    if missing:
        print(missing, file=sys.stderr)
        return 2
    # read as it is (it may hold TODOs): load_expected would refuse such a table
    old = tomllib.loads(prism_peer.EXPECTED.read_text(encoding="utf-8")) if prism_peer.EXPECTED.is_file() else {"checks": {}}
    fingerprint_now = fingerprint()
    recording = None if args.again else kept_recording(fingerprint_now)
    if recording is not None:
        print(f"record.py: nothing the recording in {KEPT.relative_to(prism_peer.ROOT)} depends on has changed: "
              "its outcomes are reused (--again records anew)")
    else:
        recording = new_recording(fingerprint_now)
        keep_recording(recording)
    peer, full_checks, contract_checks = recording["peer"], recording["full"], recording["contract"]
    checks, unexplained = record(old["checks"], full_checks, contract_checks, whys)
    for line in prism_peer.differences(old["checks"], full_checks):
        print(line)
    if unexplained and args.write and sys.stdin.isatty():
        for check in unexplained:
            whys[check] = _ask(check, old["checks"].get(check), full_checks[check])
        checks, unexplained = record(old["checks"], full_checks, contract_checks, whys)
    errors = sorted(c for c, e in full_checks.items() if e["outcome"] == "error")
    if errors:
        print(f"harness errors (fix the harness, do not record them): {', '.join(errors)}")
    if unexplained:
        for check in unexplained:
            print(f"needs a why: {check} {full_checks[check]['outcome']}: "
                  f"{(full_checks[check].get('reason') or '').splitlines()[:1]}", file=sys.stderr)
        print("record.py: nothing written; give each a reason with --why CHECK=TEXT", file=sys.stderr)
        return 2
    if args.write:
        prism_peer.EXPECTED.write_text(render(peer, checks), encoding="utf-8")
        print(f"wrote {prism_peer.EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
