"""A description whose local references explode once inlined is refused as it is loaded
(issue 50, item 2; `expanded_size` in conformance/openapi/references.py).

Forty schemas each referring twice to the next are 2**40 nodes once inlined: a review saw a
run given such a description grow to 6.9 GB in ten minutes, past `--max-duration` and the
first SIGTERM. The harness counts, in linear time, how many nodes the description would
have with every local reference inlined, and refuses it above a million: exit 2 naming the
description and the reference, before any request.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import forked_cli
import pytest
from process_peak import PeakRss

from conformance.errors import ConfigError
from conformance.openapi.references import MAX_EXPANDED_NODES, Bundler, expanded_size, parse_yaml
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.paths import OPENAPI_DESCRIPTION

VENDOR = REPO_ROOT / "tests" / "interop" / "vendor-address-openapi.yaml"


def doubling(levels: int) -> str:
    """A0 has two properties referring to A1, A1 two to A2, ... A<levels> is a string: once
    inlined, 2**levels copies of the last (5 * 2**levels - 3 nodes for A0)."""
    text = ("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /things:\n    get:\n      responses:\n"
            "        '200':\n          description: ok\n          content:\n            application/json:\n"
            "              schema: {$ref: '#/components/schemas/A0'}\ncomponents:\n  schemas:\n")
    for i in range(levels):
        props = ", ".join(f"p{k}: {{$ref: '#/components/schemas/A{i + 1}'}}" for k in range(2))
        text += f"    A{i}: {{type: object, properties: {{{props}}}}}\n"
    return text + f"    A{levels}: {{type: string}}\n"


def bundled(path: Path) -> Any:
    def no_fetch(*args: object) -> str:
        raise AssertionError("a file description fetches nothing")

    return Bundler(str(path), root=None, fetch=no_fetch).load()  # the count included


# ------------------------------------------------------------------ the count
def test_the_count_is_every_node_once_inlined() -> None:
    assert expanded_size({"a": 1, "b": [1, 2]}, "d") == 5
    # the reference object is replaced by its target; its other members are laid over it
    assert expanded_size({"x": {"t": 1}, "y": {"$ref": "#/x"}, "z": {"$ref": "#/x", "description": "d"}}, "d") == 8
    assert expanded_size({"y": {"$ref": "#/nowhere"}}, "d") == 3  # schemathesis reports it: counted as it is


def test_the_count_is_linear_where_inlining_is_exponential() -> None:
    # S(k) = 5 * 2**(40 - k) - 3 nodes for A<k>: only a count that visits each node once ever returns it
    chain = {f"A{i}": {"type": "object", "properties": {"a": {"$ref": f"#/A{i + 1}"}, "b": {"$ref": f"#/A{i + 1}"}}}
             for i in range(40)} | {"A40": {"type": "string"}}
    started = time.monotonic()
    assert expanded_size(chain, "d", bound=10**20) == 1 + sum(5 * 2**(40 - k) - 3 for k in range(41))
    long_chain = {f"A{i}": {"$ref": f"#/A{i + 1}"} for i in range(5000)} | {"A5000": {"type": "string"}}
    assert expanded_size(long_chain, "d") == 1 + 5001 * 2  # longer than Python's stack, counted without it
    assert time.monotonic() - started < 5


def test_a_cycle_is_recursion_a_leaf_where_it_closes() -> None:
    node = {"Node": {"type": "object", "properties": {"next": {"$ref": "#/Node"}, "self": {"$ref": "#"}}}}
    assert expanded_size(node, "d") == 6  # each reference back into the path stays one node
    pair = {"A": {"properties": {"b": {"$ref": "#/B"}}}, "B": {"properties": {"a": {"$ref": "#/A"}}}}
    assert expanded_size(pair, "d") == 9  # A, and B inside it closing the cycle; B again, as counted there


def test_over_the_bound_the_reference_that_explodes_is_named() -> None:
    with pytest.raises(ConfigError) as caught:
        expanded_size(parse_yaml(doubling(40), "d"), "the OpenAPI description x.yaml (services.address.openapi)")
    message = str(caught.value)
    assert message.startswith("the OpenAPI description x.yaml (services.address.openapi): the reference "
                              "#/components/schemas/A22 at #/components/schemas/A21/properties/p0 makes more than "
                              "1,000,000 nodes"), message
    wide = {"x": [{"v": list(range(10))}] * 2, "many": [{"$ref": "#/x"}] * (MAX_EXPANDED_NODES // 20)}
    with pytest.raises(ConfigError, match=r"#/many makes more than 1,000,000 nodes.*its largest part: #/many/"):
        expanded_size(wide, "d")


@pytest.mark.parametrize("path", [OPENAPI_DESCRIPTION, VENDOR], ids=["shipped", "vendor"])
def test_the_shipped_descriptions_are_well_inside_the_bound(path: Path) -> None:
    size = expanded_size(bundled(path), "d")
    assert 10_000 < size < MAX_EXPANDED_NODES // 20


def test_loading_refuses_it(tmp_path: Path) -> None:
    main = tmp_path / "openapi.yaml"
    main.write_text(doubling(40))
    with pytest.raises(ConfigError, match=r"openapi.yaml \(services.address.openapi\): the reference #/compo"):
        bundled(main)
    main.write_text(doubling(12))  # 20,477 nodes for A0 inlined: fine
    assert bundled(main)["components"]["schemas"]["A12"] == {"type": "string"}


# ------------------------------------------------------------------ end to end
def test_a_run_with_exponential_local_references_exits_2_in_bounded_time_and_memory(tmp_path: Path) -> None:
    main = tmp_path / "openapi.yaml"
    main.write_text(doubling(40))
    text = (REPO_ROOT / "profiles" / "local-mock.toml").read_text()
    assert "[services.address]\nmock = true\n" in text
    text = text.replace("[services.address]\nmock = true\n", '[services.address]\nmock = true\nopenapi = "openapi.yaml"\n')
    toml = tmp_path / "exploding.toml"
    toml.write_text(text.replace('name = "local-mock"', 'name = "exploding-refs"'))
    out = tmp_path / "out.txt"
    cmd = [sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "--profile", str(toml), "-n", "0",
           "--no-html", "--report-dir", str(tmp_path / "run"), "--max-duration", "60", "--", "-q"]
    wall_s = 45  # well under --max-duration + 30 s; measured: 3 to 7 s, most of it the run's start
    started = time.monotonic()
    proc = forked_cli.Forked(cmd, stdout=out, stderr=out, cwd=REPO_ROOT, env={**os.environ, "PYTHONHASHSEED": "0"})
    peak = PeakRss(proc.pid)
    while (code := proc.poll()) is None:
        peak.sample()
        if time.monotonic() - started > wall_s:
            proc.kill()
            proc.wait()
            pytest.fail(f"the run did not end within {wall_s} s (peak {peak.peak_mb:.0f} MB):\n"
                        f"{out.read_text()[-2000:]}")
        time.sleep(0.2)  # polling a child process, not synchronising with it
    output = out.read_text()
    print(f"exploding references: exit {code} after {time.monotonic() - started:.1f} s, peak {peak.peak_mb:.0f} MB")
    assert code == 2, output[-3000:]
    assert str(main) in output and "services.address.openapi" in output, output[-3000:]
    assert "#/components/schemas/A22 at #/components/schemas/A21/properties/p0" in output
    assert "more than 1,000,000 nodes" in output and "Traceback" not in output
    assert peak.peak_mb < 1024, f"peak {peak.peak_mb:.0f} MB"
