"""Every reference of an OpenAPI description that leaves it, resolved by the harness.

Left to itself, schemathesis resolves a `$ref` to another document with its own HTTP
client (redirects followed, no size cap, proxies and `.netrc` honoured), opens any
`file:` path, and fetches an example's `externalValue`, whose content then goes to the
server as request values. So the harness hands it one self-contained document (`Bundler`):
no `$ref` that does not start with `#`, no `externalValue`, no `operationRef` into another
document; `check_self_contained` proves it.

* A description read from a file may refer to files only: relative references and `file:`
  URLs resolve against the referring document's folder and must stay inside the allowed
  folder (the profile's folder; symlinks are followed before the check, and a file outside
  is never opened). An http(s) reference is refused.
* A description fetched from a URL may refer only to its own origin (scheme, host, port);
  each document is fetched through the bounded HTTP layer (`loader._fetch`: deadline, size
  cap, no redirects: a 3xx answer is an error).
* The referenced node (the whole document or its JSON-pointer fragment) replaces the
  `$ref` object, its own references resolved against its own document: a `#/...` inside
  another document is resolved in place, one that leads back to the description becomes a
  local `#/...` again. Other members of the `$ref` object (OpenAPI 3.1 `summary`,
  `description`) are laid over the referenced object. The description's own local
  references stay for schemathesis. A cycle through another document cannot be inlined:
  an error (a recursive schema belongs in the description itself). Every `$ref` member
  with a string value counts, wherever it is; `$id` does not change where one resolves.
* `externalValue` is resolved by the same rules; the content becomes the example's `value`
  (parsed when it is JSON, else the text).
* `operationRef` may point into the description only.
* YAML aliases (`*name`, merge keys `<<: *name` included) are refused in every document
  before anything is built: an alias bomb of a few hundred bytes expands to gigabytes
  wherever the document is copied or walked.
* Bounds: all documents of one description together at most 5 MiB, at most 50 other
  documents, references nested at most 32 deep, at most 200,000 nodes inlined; and the
  bundled description at most 1,000,000 nodes with every local reference inlined
  (`expanded_size`, checked as it is loaded, before any request). Whatever inlines local
  references (a JSON-schema tool, a walk of the description) copies forty schemas that
  each refer twice to the next 2**40 times: a review saw such a run grow to 6.9 GB in ten
  minutes, deaf to its deadline and to SIGTERM. The count takes linear time, each node
  once; a reference back into the path being counted is recursion, which schemathesis
  handles itself: a leaf here. The shipped description makes 16,475 nodes: a million is
  sixty times as much, and about 100 MB of Python objects were it ever inlined.

Every refusal is a ConfigError (exit 2) naming the description, the reference and the
document and place it is in.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import yaml
from schemathesis.core.deserialization import get_yaml_loader

from conformance.errors import ConfigError

MiB = 1024 * 1024
MAX_TOTAL_BYTES = 5 * MiB  # all documents of one description together
MAX_DOCUMENTS = 50  # documents besides the description
MAX_DEPTH = 32  # references being inlined inside one another
MAX_INLINED_NODES = 200_000  # nodes copied from other documents, repeats counted
MAX_EXPANDED_NODES = 1_000_000  # the bundled description's nodes with every local reference inlined

# (url, max bytes, subject) -> the text; a ConfigError "<subject> cannot be fetched: ..." otherwise.
Fetch = Callable[[str, int, str], str]


def parse_yaml(text: str, subject: str) -> Any:
    """The document as schemathesis parses one (YAML 1.2 scalars), refusing aliases first."""
    loader = get_yaml_loader()  # schemathesis's: a yaml.SafeLoader, no tags that build objects
    try:
        for event in yaml.parse(text, Loader=loader):  # events only: nothing is built or expanded
            if isinstance(event, yaml.AliasEvent):
                raise ConfigError(
                    f"{subject} uses the YAML alias *{event.anchor} at line {event.start_mark.line + 1}: "
                    "aliases are refused (a few hundred bytes of them can expand to gigabytes); "
                    "write the node out in full")
        return yaml.load(text, Loader=loader)  # noqa: S506
    except yaml.YAMLError as exc:
        raise ConfigError(f"{subject} is not valid YAML/JSON: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{subject} nests too deeply to be read") from None


def read_file(path: Path, max_bytes: int, subject: str) -> str:
    """A regular file's text, at most `max_bytes` read (a FIFO or device is never opened)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise ConfigError(f"{subject} cannot be read: {path} is not a regular file")
        chunks, size = [], 0
        with path.open("rb") as file:
            while size <= max_bytes and (chunk := file.read(64 * 1024)):
                chunks.append(chunk)
                size += len(chunk)
    except OSError as exc:
        raise ConfigError(f"{subject} cannot be read: {exc.strerror or exc}") from None
    if size > max_bytes:
        raise ConfigError(f"{subject} is {too_large(max_bytes)}")
    return decode(b"".join(chunks), subject)


def decode(data: bytes, subject: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{subject} is not UTF-8 text (byte {exc.start})") from None


def too_large(max_bytes: int) -> str:
    total = f"{MAX_TOTAL_BYTES // MiB} MiB"
    if max_bytes >= MAX_TOTAL_BYTES:
        return f"larger than {total}, the most a description may take with all the documents it refers to"
    return f"larger than the {max_bytes} bytes left of the {total} a description may take with all its documents"


@dataclass
class _Doc:
    loc: str  # the resolved file path or the URL, without fragment
    content: Any
    main: bool = False


class Bundler:
    """`Bundler(source, root=..., fetch=...).load()`: the description, self-contained."""

    def __init__(self, source: str, *, root: Path | None, fetch: Fetch) -> None:
        self.source = source
        self.subject = f"the OpenAPI description {source} (services.address.openapi)"
        self.remote = source.startswith(("http://", "https://"))
        self.fetch = fetch
        main = source if self.remote else str(Path(source).resolve())
        self.root = None if self.remote else (root or Path(main).parent).resolve()
        self.root_is = "the profile's folder" if root is not None else "the description's own folder"
        self.origin = _origin(source) if self.remote else None
        self.main_loc = main
        self._texts: dict[str, str] = {}
        self._docs: dict[str, _Doc] = {}
        self._used = 0
        self._stack: dict[tuple[str, str], None] = {}  # (document, pointer) being inlined
        self._inlined = 0

    @property
    def documents(self) -> tuple[str, ...]:
        """Where every document read came from (files, or URLs when `remote`)."""
        return tuple(self._texts)

    def load(self) -> dict[str, Any]:
        raw = parse_yaml(self._text(self.main_loc, self.subject), self.subject)
        if not isinstance(raw, dict) or "openapi" not in raw:
            raise ConfigError(f"{self.source} is not an OpenAPI 3 description (no 'openapi' member)")
        main = self._docs[self.main_loc] = _Doc(self.main_loc, raw, main=True)
        try:
            bundled = self._walk(raw, main, (), inlined=False)
        except RecursionError:
            raise ConfigError(f"{self.subject} nests too deeply to be read") from None
        check_self_contained(bundled, self.subject)
        expanded_size(bundled, self.subject)
        return bundled

    # ------------------------------------------------------------------ the walk
    def _walk(self, node: Any, doc: _Doc, at: tuple[Any, ...], *, inlined: bool) -> Any:
        if inlined:
            self._inlined += 1
            if self._inlined > MAX_INLINED_NODES:
                raise ConfigError(f"{self.subject}: inlining the documents it refers to makes more than "
                                  f"{MAX_INLINED_NODES:,} nodes (references repeated inside one another?)")
        if isinstance(node, list):
            return [self._walk(v, doc, (*at, i), inlined=inlined) for i, v in enumerate(node)]
        if not isinstance(node, dict):
            return node
        if isinstance(node.get("$ref"), str):
            return self._reference(node, doc, at, inlined=inlined)
        out = {k: self._walk(v, doc, (*at, k), inlined=inlined) for k, v in node.items()
               if not (k in ("externalValue", "operationRef") and isinstance(v, str))}
        if isinstance(node.get("externalValue"), str) and "value" not in out:
            out["value"] = self._external_value(node["externalValue"], doc, (*at, "externalValue"))
        if isinstance(node.get("operationRef"), str):
            out["operationRef"] = self._operation_ref(node["operationRef"], doc, (*at, "operationRef"))
        return out

    def _reference(self, node: dict[str, Any], doc: _Doc, at: tuple[Any, ...], *, inlined: bool) -> Any:
        ref = node["$ref"]
        siblings = {k: self._walk(v, doc, (*at, k), inlined=inlined) for k, v in node.items() if k != "$ref"}
        uri, fragment = urldefrag(ref)
        target = self._document(uri, ref, doc, at) if uri else doc
        if target.main:  # the description's own local references are schemathesis's
            return {"$ref": "#" + fragment, **siblings}
        key = (target.loc, fragment)
        if key in self._stack:
            chain = " -> ".join(f"{loc}#{ptr}" for loc, ptr in (*self._stack, key))
            raise self._refused(ref, doc, at, f"the references form a cycle ({chain}); a cycle through another "
                                "document cannot be inlined: move the recursive schema into the description")
        if len(self._stack) >= MAX_DEPTH:
            raise self._refused(ref, doc, at, f"references nest more than {MAX_DEPTH} deep")
        found = self._pointer(target, fragment, ref, doc, at)
        self._stack[key] = None
        try:
            value = self._walk(found, target, _keys(fragment), inlined=True)
        finally:
            del self._stack[key]
        return {**value, **siblings} if siblings and isinstance(value, dict) else value

    def _external_value(self, ref: str, doc: _Doc, at: tuple[Any, ...]) -> Any:
        uri, _ = urldefrag(ref)
        loc = self._locate(uri, ref, doc, at)
        text = self._text(loc, self._which(ref, doc, at))
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            return text

    def _operation_ref(self, ref: str, doc: _Doc, at: tuple[Any, ...]) -> str:
        uri, fragment = urldefrag(ref)
        loc = self._locate(uri, ref, doc, at) if uri else doc.loc
        if loc != self.main_loc:
            raise self._refused(ref, doc, at, "a link's operationRef may point only into the description itself")
        return "#" + fragment

    # ------------------------------------------------------------------ documents
    def _document(self, uri: str, ref: str, doc: _Doc, at: tuple[Any, ...]) -> _Doc:
        loc = self._locate(uri, ref, doc, at)
        if loc not in self._docs:
            which = self._which(ref, doc, at)
            self._docs[loc] = _Doc(loc, parse_yaml(self._text(loc, which), which))
        return self._docs[loc]

    def _text(self, loc: str, subject: str) -> str:
        if loc in self._texts:
            return self._texts[loc]
        if len(self._texts) > MAX_DOCUMENTS:  # the description and MAX_DOCUMENTS others read
            raise ConfigError(f"{subject} is one document too many: a description may refer to at most "
                              f"{MAX_DOCUMENTS} other documents")
        room = MAX_TOTAL_BYTES - self._used
        if room <= 0:
            raise ConfigError(f"{subject} is {too_large(0)}")
        text = self.fetch(loc, room, subject) if self.remote else read_file(Path(loc), room, subject)
        self._used += len(text.encode("utf-8"))
        self._texts[loc] = text
        return text

    def _locate(self, uri: str, ref: str, doc: _Doc, at: tuple[Any, ...]) -> str:
        """Where `uri` (a reference without its fragment) leads from `doc`: checked, never read."""
        if self.remote:
            target = urljoin(doc.loc, uri)
            if urlsplit(target).scheme not in ("http", "https"):
                raise self._refused(ref, doc, at, "a description fetched from a URL may refer only to http(s) "
                                    f"URLs on its own origin {self.origin}")
            if _origin(target) != self.origin:
                raise self._refused(ref, doc, at, f"{target} is not on {self.origin}, the description's origin: "
                                    "references are fetched from that origin only")
            return target
        parts = urlsplit(uri)
        if parts.scheme in ("http", "https") or (not parts.scheme and parts.netloc):
            raise self._refused(ref, doc, at, "a description read from a file may not refer to URLs; "
                                f"put the document in {self.root} and refer to it by its path")
        if parts.scheme == "file":
            if parts.netloc not in ("", "localhost"):
                raise self._refused(ref, doc, at, "a file: URL must name a local file")
            path = Path(unquote(parts.path))
        elif parts.scheme:
            raise self._refused(ref, doc, at, f"the {parts.scheme}: scheme is not supported (only relative "
                                f"paths and file: URLs inside {self.root})")
        else:
            path = Path(doc.loc).parent / unquote(parts.path)
        resolved = path.resolve()
        assert self.root is not None
        if str(resolved) != self.main_loc and not resolved.is_relative_to(self.root):
            raise self._refused(ref, doc, at, f"it leads to {resolved}, outside {self.root}, the only folder "
                                f"a description read from a file may refer to ({self.root_is})")
        return str(resolved)

    def _pointer(self, target: _Doc, fragment: str, ref: str, doc: _Doc, at: tuple[Any, ...]) -> Any:
        if fragment and not fragment.startswith("/"):
            raise self._refused(ref, doc, at, "only JSON-pointer fragments (#/...) are supported")
        node = target.content
        for key in _keys(fragment):
            if isinstance(node, dict) and key in node:
                node = node[key]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            else:
                raise self._refused(ref, doc, at, f"{target.loc} has no #{fragment}")
        return node

    # ------------------------------------------------------------------ messages
    def _which(self, ref: str, doc: _Doc, at: tuple[Any, ...]) -> str:
        return f"{self.subject} refers to {ref} (in {_place(doc, at)}), which"

    def _refused(self, ref: str, doc: _Doc, at: tuple[Any, ...], reason: str) -> ConfigError:
        return ConfigError(f"{self.subject} refers to {ref} (in {_place(doc, at)}): {reason}")


def check_self_contained(node: Any, subject: str, at: tuple[Any, ...] = ()) -> None:
    """The guard: a reference schemathesis would open itself is a ConfigError."""
    stack = [(node, at)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            for key in ("$ref", "operationRef", "externalValue"):
                value = item.get(key)
                if isinstance(value, str) and (key == "externalValue" or not value.startswith("#")):
                    raise ConfigError(f"{subject} keeps a reference the harness did not resolve: {key} {value} "
                                      f"at #{_pointer_text(where)}")
            stack.extend((v, (*where, k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, (*where, i)) for i, v in enumerate(item))


def expanded_size(document: Any, subject: str, bound: int = MAX_EXPANDED_NODES) -> int:
    """How many nodes `document` would have were every local `#/...` reference inlined; over
    `bound`, a ConfigError naming the innermost reference (or else the place and its largest
    part) whose copy went over. Each container is counted once (memoised by identity: the
    references make a DAG of the one tree), and without recursion (a chain of references may
    be longer than Python's stack). A reference to a node on the path being counted (a cycle)
    counts 1; one to nothing (schemathesis reports it) is counted as it stands."""
    sizes: dict[int, int] = {}  # id(container) -> its size inlined
    targets: dict[str, tuple[Any, tuple[Any, ...]] | None] = {}  # "#/..." -> (node, where) or None
    frames: list[list[Any]] = []  # [container, where, children left, total, (largest part, where)]
    on_path: set[int] = set()

    def enter(node: Any, where: tuple[Any, ...]) -> None:
        if isinstance(node, list):
            children = [(v, (*where, i)) for i, v in enumerate(node)]
            target = None
        else:
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#") and ref not in targets:
                targets[ref] = _resolve(document, ref)
            target = targets.get(ref) if isinstance(ref, str) else None
            children = [(v, (*where, k)) for k, v in node.items() if target is None or k != "$ref"]
            if target is not None:
                children.append(target)
        # inlined, the target replaces the reference object (its other members are laid over it)
        frames.append([node, where, iter(children), 1 if target is None else 0, (0, where)])
        on_path.add(id(node))

    def add(count: int, at: tuple[Any, ...]) -> None:
        frame = frames[-1]
        frame[3] += count
        frame[4] = max(frame[4], (count, at), key=lambda part: part[0])
        if frame[3] <= bound:
            return
        # Named: the innermost reference being inlined (its copy alone is too large), else the place.
        ref = next((f for f in reversed(frames) if isinstance(f[0], dict) and isinstance(f[0].get("$ref"), str)), None)
        culprit = f"the reference {ref[0]['$ref']} at #{_pointer_text(ref[1])}" if ref else (
            f"#{_pointer_text(frame[1])}" if frame[1] else "it")
        largest = "" if ref else f"; its largest part: #{_pointer_text(frame[4][1])}"
        raise ConfigError(f"{subject}: {culprit} makes more than {bound:,} nodes once its local references are "
                          f"inlined (references repeated inside one another?){largest}")

    if not isinstance(document, (dict, list)):
        return 1
    enter(document, ())
    while frames:
        node, where, children, total, _ = frames[-1]
        child = next(children, None)
        if child is None:
            frames.pop()
            on_path.discard(id(node))
            sizes[id(node)] = total
            if frames:
                add(total, where)
        elif not isinstance(child[0], (dict, list)) or id(child[0]) in on_path:
            add(1, child[1])
        elif id(child[0]) in sizes:
            add(sizes[id(child[0])], child[1])
        else:
            enter(*child)
    return sizes[id(document)]


def _resolve(document: Any, ref: str) -> tuple[Any, tuple[Any, ...]] | None:
    node, where = document, _keys(ref[1:])
    for key in where:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node, where


def _keys(fragment: str) -> tuple[str, ...]:
    if not fragment:
        return ()
    return tuple(unquote(p).replace("~1", "/").replace("~0", "~") for p in fragment[1:].split("/"))


def _pointer_text(at: tuple[Any, ...]) -> str:
    return "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in at)


def _place(doc: _Doc, at: tuple[Any, ...]) -> str:
    return f"{doc.loc} at #{_pointer_text(at)}" if at else doc.loc


def _origin(url: str) -> str | None:
    """scheme://host:port, the port spelled out (http://h and http://h:80 are one origin)."""
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
    except ValueError:
        return None
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}"
