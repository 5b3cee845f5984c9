"""A description's references to other documents are resolved by the harness, never by
schemathesis (issue 40, item 3; conformance/openapi/references.py).

Files resolve inside the allowed folder only (the profile's); a URL description's references
are fetched from its own origin only, through the bounded HTTP layer (no redirects, a size
cap); YAML aliases are refused. Every refusal is a ConfigError naming the reference. The
HTTP listeners are on loopback and count what they are asked for.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import tracemalloc
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import forked_cli
import pytest

from conformance.errors import ConfigError
from conformance.openapi import loader, references
from conformance.openapi.loader import load_description, load_schema
from conformance.openapi.references import check_self_contained
from conformance.paths import CHECKOUT as REPO_ROOT
from conformance.profiles import AddressService

MARKER = "MARKER-never-read-7f3a9c"
SECRET_DOC = f"X:\n  type: string\n  enum: [{MARKER}]\n"

MAIN = """\
openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /things/{id}:
    get:
      parameters:
        - $ref: 'REF_PARAM'
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: 'REF_SCHEMA'}
"""


def description(param: str = "#/components/parameters/Id", schema: str = "#/components/schemas/Thing",
                extra: str = "") -> str:
    local = ("components:\n  parameters:\n    Id: {name: id, in: path, required: true, schema: {type: string}}\n"
             "  schemas:\n    Thing: {type: object}\n")
    return MAIN.replace("REF_PARAM", param).replace("REF_SCHEMA", schema) + local + extra


COMPONENTS = """\
Id: {name: id, in: path, required: true, schema: {$ref: '#/IdSchema'}}
IdSchema: {type: string, pattern: '^[0-9]{4}$'}
Thing:
  type: object
  properties:
    id: {$ref: '#/IdSchema'}
    owner: {$ref: 'people.yaml#/Person', description: the owner}
    back: {$ref: 'openapi.yaml#/components/schemas/Thing'}
"""
PEOPLE = "Person: {type: object, properties: {name: {type: string}}}\n"


def service(openapi: str | Path) -> AddressService:
    return AddressService(mock=True, base_url=None, openapi=str(openapi), timeout_s=5.0, secret_env={})


def refused(openapi: str | Path, **kwargs: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        load_description(service(openapi), **kwargs)
    return str(caught.value)


def non_local(node: Any) -> list[str]:
    """Every $ref / externalValue that would make schemathesis open something."""
    if isinstance(node, list):
        return [ref for value in node for ref in non_local(value)]
    if not isinstance(node, dict):
        return []
    found = [value for key, value in node.items() if key == "externalValue" or (
        key in ("$ref", "operationRef") and isinstance(value, str) and not value.startswith("#"))]
    return found + [ref for value in node.values() for ref in non_local(value)]


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """(the profile's folder, a folder beside it holding a file that must never be read)."""
    profile, outside = tmp_path / "profile", tmp_path / "outside"
    profile.mkdir()
    outside.mkdir()
    (outside / "secret.yaml").write_text(SECRET_DOC)
    return profile, outside


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files the resolver opened."""
    opened: list[Path] = []
    real = references.read_file

    def spy(path: Path, max_bytes: int, subject: str) -> str:
        opened.append(Path(path).resolve())
        return real(path, max_bytes, subject)

    monkeypatch.setattr(references, "read_file", spy)
    return opened


# ------------------------------------------------------------------ HTTP listeners
class Listener:
    """A loopback HTTP server answering `routes` (path -> (status, headers, body)); it
    records every request before it answers, so a finished request has been counted."""

    def __init__(self, routes: dict[str, tuple[int, dict[str, str], bytes]] | None = None) -> None:
        self.routes = routes or {}
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                outer.requests.append(self.path)
                status, headers, body = outer.routes.get(self.path, (404, {}, b"not here"))
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    for start in range(0, len(body), 65536):
                        self.wfile.write(body[start:start + 65536])
                except OSError:
                    pass  # the client stopped reading (a body over the cap)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def serve(self, path: str, body: str | bytes, status: int = 200, **headers: str) -> str:
        self.routes[path] = (status, {k.replace("_", "-"): v for k, v in headers.items()},
                             body.encode() if isinstance(body, str) else body)
        return self.base + path

    def __enter__(self) -> Listener:
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listeners() -> Iterator[tuple[Listener, Listener]]:
    """Two origins: the description's, and another one."""
    with Listener() as home, Listener() as other:
        yield home, other


# ------------------------------------------------------------------ files
def test_a_relative_ref_inside_the_profile_folder_is_inlined(folders: tuple[Path, Path]) -> None:
    profile, _ = folders
    (profile / "parts").mkdir()
    (profile / "parts" / "components.yaml").write_text(COMPONENTS.replace("openapi.yaml", "../openapi.yaml"))
    (profile / "parts" / "people.yaml").write_text(PEOPLE)
    main = profile / "openapi.yaml"
    main.write_text(description("parts/components.yaml#/Id", "./parts/components.yaml#/Thing"))
    raw = load_description(service(main), root=profile)
    assert non_local(raw) == []
    operation = raw["paths"]["/things/{id}"]["get"]
    assert operation["parameters"][0] == {"name": "id", "in": "path", "required": True,
                                          "schema": {"type": "string", "pattern": "^[0-9]{4}$"}}
    thing = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert thing["properties"]["id"] == {"type": "string", "pattern": "^[0-9]{4}$"}  # '#/...' of its own document
    assert thing["properties"]["owner"]["properties"]["name"] == {"type": "string"}  # a third document
    assert thing["properties"]["owner"]["description"] == "the owner"  # the $ref's siblings laid over it
    assert thing["properties"]["back"] == {"$ref": "#/components/schemas/Thing"}  # back into the description
    assert raw["components"]["schemas"]["Thing"] == {"type": "object"}  # its own local refs untouched
    schema = load_schema(service(main), "http://127.0.0.1/", root=profile)
    assert list(schema.raw_schema["paths"]) == ["/things/{id}"]


def test_a_description_is_read_once_while_its_files_are_unchanged(folders: tuple[Path, Path],
                                                                   reads: list[Path]) -> None:
    """A run loads its description several times a process: the files are read once while
    none of them changed, every caller gets a copy of its own to change, and a change to any
    of its documents (the main one or one it refers to) is read again."""
    profile, _ = folders
    (profile / "components.yaml").write_text(COMPONENTS)
    (profile / "people.yaml").write_text(PEOPLE)
    main = profile / "openapi.yaml"
    main.write_text(description("components.yaml#/Id", "components.yaml#/Thing"))
    first = load_description(service(main), root=profile)
    assert len(reads) == 3  # the description and the two documents it refers to
    first["paths"].clear()
    again = load_description(service(main), root=profile)
    assert len(reads) == 3 and list(again["paths"]) == ["/things/{id}"]  # not read again; not the changed copy
    (profile / "people.yaml").write_text(PEOPLE.replace("name", "full_name"))
    changed = load_description(service(main), root=profile)
    assert len(reads) == 6
    owner = changed["paths"]["/things/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert list(owner["properties"]["owner"]["properties"]) == ["full_name"]
    load_description(service(main), root=profile.parent)
    assert len(reads) == 9  # another folder allowed to refer into: read anew


def test_a_json_description_goes_through_the_same_loader(folders: tuple[Path, Path]) -> None:
    profile, _ = folders
    (profile / "components.json").write_text(json.dumps({"Id": {"name": "id", "in": "path", "required": True,
                                                               "schema": {"type": "string"}}}))
    main = profile / "openapi.json"
    main.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
        "/x/{id}": {"get": {"parameters": [{"$ref": "components.json#/Id"}], "responses": {"200": {"description": "ok"}}}}}}))
    raw = load_description(service(main))
    assert raw["paths"]["/x/{id}"]["get"]["parameters"][0]["name"] == "id"


@pytest.mark.parametrize("how", ["dotdot", "file_url", "symlink", "nested"])
def test_a_file_ref_outside_the_profile_folder_is_refused_unread(folders: tuple[Path, Path], reads: list[Path],
                                                                 how: str) -> None:
    profile, outside = folders
    secret = outside / "secret.yaml"
    ref = {"dotdot": "../outside/secret.yaml#/X", "file_url": f"file://{secret}#/X",
           "symlink": "link.yaml#/X", "nested": "inner.yaml#/Y"}[how]
    if how == "symlink":
        (profile / "link.yaml").symlink_to(secret)
    (profile / "inner.yaml").write_text("Y: {$ref: '../outside/secret.yaml#/X'}\n")
    main = profile / "openapi.yaml"
    main.write_text(description(schema=ref))
    message = refused(main, root=profile)
    named = "../outside/secret.yaml#/X" if how == "nested" else ref
    assert named in message and f"outside {profile}, the only folder" in message and "the profile's folder" in message
    assert str(main if how != "nested" else profile / "inner.yaml") in message  # the document holding it
    assert "services.address.openapi" in message and MARKER not in message
    assert secret not in reads and secret.resolve() not in reads


def test_the_allowed_folder_is_the_profiles_not_the_descriptions(folders: tuple[Path, Path]) -> None:
    profile, _ = folders
    (profile / "api").mkdir()
    (profile / "common.yaml").write_text(PEOPLE)
    main = profile / "api" / "openapi.yaml"
    main.write_text(description(schema="../common.yaml#/Person"))
    assert "the description's own folder" in refused(main)  # by default
    raw = load_description(service(main), root=profile)
    assert non_local(raw) == []


def test_an_http_ref_in_a_file_description_is_refused_unfetched(folders: tuple[Path, Path],
                                                                 listeners: tuple[Listener, Listener]) -> None:
    profile, _ = folders
    home, _ = listeners
    url = home.serve("/schema.yaml", PEOPLE) + "#/Person"
    main = profile / "openapi.yaml"
    main.write_text(description(schema=url))
    message = refused(main, root=profile)
    assert url in message and "may not refer to URLs" in message
    assert home.requests == []


# ------------------------------------------------------------------ URLs
def test_a_url_description_s_same_origin_refs_are_fetched_through_the_bounded_layer(
        listeners: tuple[Listener, Listener], monkeypatch: pytest.MonkeyPatch) -> None:
    home, _ = listeners
    home.serve("/api/parts/components.yaml", COMPONENTS.replace("openapi.yaml", "/api/openapi.yaml"))
    home.serve("/api/parts/people.yaml", PEOPLE)
    url = home.serve("/api/openapi.yaml", description("parts/components.yaml#/Id",
                                                      f"{home.base}/api/parts/components.yaml#/Thing"))
    fetched: list[str] = []
    real = loader._fetch

    def spy(url: str, *args: Any, **kwargs: Any) -> str:
        fetched.append(url)
        return real(url, *args, **kwargs)

    monkeypatch.setattr(loader, "_fetch", spy)
    for proxy in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):  # never used: no proxy from the environment
        monkeypatch.setenv(proxy, "http://127.0.0.1:9")
    raw = load_description(service(url))
    assert non_local(raw) == []
    thing = raw["paths"]["/things/{id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert thing["properties"]["owner"]["properties"]["name"] == {"type": "string"}
    assert thing["properties"]["back"] == {"$ref": "#/components/schemas/Thing"}
    # each document once, and only through the bounded fetch
    assert sorted(home.requests) == ["/api/openapi.yaml", "/api/parts/components.yaml", "/api/parts/people.yaml"]
    assert sorted(fetched) == sorted(home.base + p for p in home.requests)
    assert load_schema(service(url), "http://127.0.0.1/").raw_schema["paths"]


def test_fetch_takes_a_ca_file(listeners: tuple[Listener, Listener], tmp_path: Path) -> None:
    home, _ = listeners
    url = home.serve("/people.yaml", PEOPLE)
    from conformance.profiles import Trust

    assert loader._fetch(url, 5.0) == PEOPLE
    with pytest.raises(ConfigError, match="people.yaml.*cannot be fetched"):
        loader._fetch(url, 5.0, trust=Trust("services.address", ca_file=str(tmp_path / "no-such-ca.pem")))


@pytest.mark.parametrize("where", ["other_origin", "same_origin", "description"])
def test_a_redirect_is_not_followed(listeners: tuple[Listener, Listener], where: str) -> None:
    home, other = listeners
    target = (other if where == "other_origin" else home).serve("/target.yaml", PEOPLE)
    moved = home.serve("/moved.yaml", "", status=302, Location=target)
    url = moved if where == "description" else home.serve("/openapi.yaml", description(schema="moved.yaml#/Person"))
    message = refused(url)
    assert "HTTP 302" in message and "redirects are not followed" in message and target in message
    assert "/target.yaml" not in home.requests + other.requests
    if where != "description":
        assert "moved.yaml#/Person" in message


@pytest.mark.parametrize("ref", ["other", "localhost", "file"])
def test_a_ref_off_the_description_s_origin_is_refused_unfetched(listeners: tuple[Listener, Listener],
                                                                  folders: tuple[Path, Path], ref: str) -> None:
    home, other = listeners
    _, outside = folders
    elsewhere = other.serve("/people.yaml", PEOPLE)
    home.serve("/people.yaml", PEOPLE)
    target = {"other": elsewhere, "localhost": home.base.replace("127.0.0.1", "localhost") + "/people.yaml",
              "file": f"file://{outside / 'secret.yaml'}"}[ref]
    url = home.serve("/openapi.yaml", description(schema=target + "#/Person"))
    message = refused(url)
    assert target in message and ("origin" in message) and MARKER not in message
    assert other.requests == [] and home.requests == ["/openapi.yaml"]


def test_an_oversized_ref_is_refused_at_the_cap(listeners: tuple[Listener, Listener]) -> None:
    home, _ = listeners
    home.serve("/big.yaml", b"X: '" + b"a" * (references.MAX_TOTAL_BYTES + 1024) + b"'\n")
    url = home.serve("/openapi.yaml", description(schema="big.yaml#/X"))
    message = refused(url)
    assert "big.yaml" in message and "larger than" in message and "5 MiB" in message


def test_all_documents_together_share_one_cap(folders: tuple[Path, Path]) -> None:
    profile, _ = folders
    three_mib = "X: '" + "a" * (3 * references.MiB) + "'\n"
    (profile / "a.yaml").write_text(three_mib)
    (profile / "b.yaml").write_text(three_mib)
    main = profile / "openapi.yaml"
    main.write_text(description(param="a.yaml#/X", schema="b.yaml#/X"))
    message = refused(main)
    assert "b.yaml" in message and "bytes left of the 5 MiB" in message


# ------------------------------------------------------------------ externalValue, operationRef
EXAMPLES = """\
  examples:
    A: {summary: a, externalValue: 'EXTERNAL'}
"""


def test_an_external_value_becomes_the_example_s_value(folders: tuple[Path, Path], listeners: tuple[Listener, Listener]
                                                       ) -> None:
    profile, outside = folders
    (profile / "a.json").write_text('{"id": "0001"}')
    (profile / "a.txt").write_text("plain *text")
    main = profile / "openapi.yaml"
    for name, value in (("a.json", {"id": "0001"}), ("a.txt", "plain *text")):
        main.write_text(description(extra=EXAMPLES.replace("EXTERNAL", name)))
        assert load_description(service(main), root=profile)["components"]["examples"]["A"] == {"summary": "a",
                                                                                                "value": value}
    home, _ = listeners
    for ref in (str(outside / "secret.yaml"), home.serve("/a.json", "{}")):
        main.write_text(description(extra=EXAMPLES.replace("EXTERNAL", ref)))
        message = refused(main, root=profile)
        assert ref in message and MARKER not in message
    assert home.requests == []


def test_an_operation_ref_may_point_into_the_description_only(folders: tuple[Path, Path]) -> None:
    profile, _ = folders
    main = profile / "openapi.yaml"
    (profile / "other.yaml").write_text("paths: {}\n")
    links = "  links:\n    L: {operationRef: 'OPREF'}\n"
    main.write_text(description(extra=links.replace("OPREF", "openapi.yaml#/paths/~1things~1{id}/get")))
    assert load_description(service(main))["components"]["links"]["L"]["operationRef"] == "#/paths/~1things~1{id}/get"
    main.write_text(description(extra=links.replace("OPREF", "other.yaml#/paths")))
    assert "operationRef may point only into the description" in refused(main)


# ------------------------------------------------------------------ cycles, depth, repeats
def test_a_cycle_between_two_documents_ends_as_an_error(folders: tuple[Path, Path]) -> None:
    profile, _ = folders
    (profile / "a.yaml").write_text("A: {type: object, properties: {b: {$ref: 'b.yaml#/B'}}}\n")
    (profile / "b.yaml").write_text("B: {type: object, properties: {a: {$ref: 'a.yaml#/A'}}}\n")
    (profile / "self.yaml").write_text("Node: {type: object, properties: {next: {$ref: '#/Node'}}}\n")
    main = profile / "openapi.yaml"
    main.write_text(description(schema="a.yaml#/A"))
    message = refused(main)
    assert "cycle" in message and "a.yaml#/A" in message and "b.yaml#/B" in message
    main.write_text(description(schema="self.yaml#/Node"))
    assert "cycle" in refused(main)


def test_references_nest_at_most_32_deep(folders: tuple[Path, Path]) -> None:
    profile, _ = folders
    for i in range(40):
        (profile / f"d{i}.yaml").write_text(f"D: {{$ref: 'd{i + 1}.yaml#/D'}}\n")
    main = profile / "openapi.yaml"
    main.write_text(description(schema="d0.yaml#/D"))
    assert "references nest more than 32 deep" in refused(main)


def test_a_description_refers_to_at_most_50_documents(folders: tuple[Path, Path], reads: list[Path]) -> None:
    profile, _ = folders
    for i in range(52):
        (profile / f"s{i}.yaml").write_text("S: {type: string}\n")
    props = ", ".join(f"p{i}: {{$ref: 's{i}.yaml#/S'}}" for i in range(52))
    main = profile / "openapi.yaml"
    main.write_text(description(extra=f"x-all: {{type: object, properties: {{{props}}}}}\n"))
    assert "s50.yaml#/S" in refused(main)
    assert len(reads) == 51  # the description and 50 others


def test_references_repeated_inside_one_another_stop_at_the_node_cap(folders: tuple[Path, Path]) -> None:
    profile, _ = folders
    def refs(i: int) -> str:
        return ", ".join([f"{{$ref: '#/L{i + 1}'}}"] * 10)

    levels = "".join(f"L{i}: [{refs(i)}]\n" for i in range(8))  # 10**8 copies of L8 once inlined
    (profile / "bomb.yaml").write_text(levels + "L8: {type: string}\n")
    main = profile / "openapi.yaml"
    main.write_text(description(schema="bomb.yaml#/L0"))
    message = refused(main)  # ends at the cap (measured: 0.8 s, a tracemalloc peak of 12 MiB)
    assert "more than 200,000 nodes" in message


def test_the_guard_refuses_a_reference_left_over() -> None:
    with pytest.raises(ConfigError, match="other.yaml"):
        check_self_contained({"paths": {"/a": {"$ref": "other.yaml#/A"}}}, "the OpenAPI description d")
    with pytest.raises(ConfigError, match="externalValue"):
        check_self_contained({"examples": [{"externalValue": "#/x"}]}, "the OpenAPI description d")
    check_self_contained({"paths": {"/a": {"$ref": "#/components/pathItems/A"}}}, "the OpenAPI description d")


# ------------------------------------------------------------------ YAML aliases
ALIAS_BOMB = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n" + "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"{b}: &{b} [*{a},*{a},*{a},*{a},*{a},*{a},*{a},*{a},*{a}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True))


@pytest.mark.parametrize("where", ["description", "referenced"])
def test_an_alias_bomb_is_refused_in_bounded_memory(folders: tuple[Path, Path], where: str) -> None:
    profile, _ = folders
    assert len(ALIAS_BOMB) < 600  # 9 levels of 9: 9**9 = 387 million items once expanded
    (profile / "bomb.yaml").write_text(ALIAS_BOMB)
    main = profile / "openapi.yaml"
    main.write_text(description(schema="bomb.yaml#/i"))
    source = profile / "bomb.yaml" if where == "description" else main
    tracemalloc.start()
    try:
        message = refused(source)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "YAML alias *a at line 5" in message and "services.address.openapi" in message
    if where == "referenced":
        assert "bomb.yaml#/i" in message
    print(f"alias bomb ({where}): peak {peak / 1024:.0f} KiB")
    assert peak < 20 * references.MiB


def test_an_anchor_without_alias_and_a_star_in_a_string_are_fine(folders: tuple[Path, Path]) -> None:
    profile, _ = folders
    main = profile / "openapi.yaml"
    main.write_text(description(extra="x-note: &n 'see *a and &b'\nx-glob: '*.yaml'\n"))
    raw = load_description(service(main))
    assert raw["x-note"] == "see *a and &b" and raw["x-glob"] == "*.yaml"


# ------------------------------------------------------------------ end to end
def test_a_run_with_a_description_referring_outside_the_profile_folder_exits_2(folders: tuple[Path, Path]) -> None:
    profile, outside = folders
    main = profile / "openapi.yaml"
    main.write_text(description(schema="../outside/secret.yaml#/X"))
    text = (REPO_ROOT / "profiles" / "local-mock.toml").read_text()
    assert "[services.address]\nmock = true\n" in text
    text = text.replace("[services.address]\nmock = true\n", '[services.address]\nmock = true\nopenapi = "openapi.yaml"\n')
    toml = profile / "outside-ref.toml"
    toml.write_text(text.replace('name = "local-mock"', 'name = "outside-ref"'))
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", "run", "--suite", "address", "--profile", str(toml),
                           "-n", "0", "--no-html", "--report-dir", str(profile / "run"), "--", "-q", "-k", "nothing"],
                          capture_output=True, text=True, timeout=300, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output[-3000:]
    assert "../outside/secret.yaml#/X" in proc.stderr and "outside" in proc.stderr and str(main) in proc.stderr
    assert "Traceback" not in output and MARKER not in output
