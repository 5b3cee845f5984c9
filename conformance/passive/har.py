"""HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): what browsers, Postman,
mitmproxy, Playwright and Charles export, read into Exchanges, and written from them.

A HAR file is untrusted input: it is read within a size cap (refused before it is read),
an entry cap and a time budget, parsed as plain JSON (no NaN/Infinity constants), and
every entry is checked for the members it needs and what they hold (a three-digit status
or 0, a finite time, a URL that parses); a file that is not a HAR, nests too deep, is
too large or too slow to read, or an entry that is broken, is a ConfigError
naming the file (and the entry), never a traceback. Bodies stay bytes as the capture
holds them (`content.encoding: base64` is undone); a body over the cap is cut and marked
`truncated`, and so is one a capture says it did not keep (`content._truncated`).

`Capture` is a capture written to disk as it is made (`conformance proxy`): one entry a line,
within a size cap per body and the reading bounds below for the whole, so that what it holds
can always be read back and judged; what it could not keep it names (`gaps`).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from conformance.errors import ConfigError
from conformance.http.exchange import MAX_BODY, Exchange, Headers
from conformance.http.intent import NOTE, WHY

# The size cap bounds the memory the parse takes. Parsed JSON takes up to about 27 times
# its size (measured: 64 MiB of `[{"a":1},...]` peaked at 1.7 GiB; of empty objects or
# arrays at 1.6 GiB; of 900,000 minimal entries, converted, at 1.3 GiB), so at 48 MiB the
# worst a file can make the process take is about 1.3 GiB (measured: read_har 1.29 GiB and
# the whole `conformance traffic` 1.35 GiB for 48 MiB of one-member objects; 0.17 GiB and
# 0.30 GiB for 48 MiB of a run's own traffic.har, 6,400 entries).
# A run's traffic.har is a few MiB per thousand exchanges (3.7 MiB for the 493 of the
# address suite's general checks against the mock).
MAX_HAR_BYTES = 48 * 1024 * 1024
# Each entry becomes an Exchange that stays in memory for the whole run, and its secrets
# are learned by the Redactor: far more than any run or capture holds (a full run: ~3,000).
MAX_HAR_ENTRIES = 50_000
# Reading, converting and (load_traffic) redacting and sorting the entries of one file: a
# run's traffic.har of 48 MiB takes about 5 s.
HAR_BUDGET_S = 60.0
# Notes of an exchange a Capture kept in part: what it did not keep (phrases), and the verdict
# each rule of one exchange gave on the whole exchange as it passed ({check: finding message,
# None when it passed}), which stands for the part not kept (conformance/passive/judge.py).
NOT_KEPT = "not kept"
JUDGED_LIVE = "judged live"
# The notes that are remarks on the entry (lists of phrases): its `comment` for a reader, and
# `_remarks` to read them back (the proxy's capture goes to disk and back before its report).
_REMARKS = ("rewritten", "sent upstream", NOT_KEPT)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def read_har(path: str | Path, *, budget_s: float = HAR_BUDGET_S) -> list[Exchange]:
    """Every entry of the HAR file, in its order."""
    return list(iter_har(path, budget_s=budget_s))


def iter_har(path: str | Path, *, budget_s: float = HAR_BUDGET_S) -> Iterator[Exchange]:
    """Every entry of the HAR file, in its order, one at a time: each entry's parsed JSON is
    let go once its Exchange is made. The time budget runs from the first entry asked for to
    the last one handed over, so it covers what the caller does with each (load_traffic:
    redacting and sorting); past it, a ConfigError names the file and the budget."""
    path = Path(path)
    deadline = time.monotonic() + budget_s
    entries = _entries(path)
    total = len(entries)
    entries.reverse()  # taken from the end: the parsed entries already converted are freed
    for index in range(total):
        if time.monotonic() > deadline:
            raise ConfigError(f"{path}: reading the HAR file took longer than {budget_s:g} s "
                              f"(stopped at log.entries[{index}] of {total})")
        entry = entries.pop()
        try:
            exchange = _exchange(entry)
        except (KeyError, TypeError, ValueError, AttributeError, binascii.Error) as exc:
            raise ConfigError(f"{path}: log.entries[{index}] is not a HAR entry ({type(exc).__name__}: {exc})") from None
        del entry
        yield exchange


def _entries(path: Path) -> list[Any]:
    """The parsed log.entries of the file, within the size, depth and entry caps."""
    try:
        size = path.stat().st_size
        if size > MAX_HAR_BYTES:  # refused before it is read
            raise ConfigError(_too_large(path, size))
        with path.open("rb") as handle:
            raw = handle.read(MAX_HAR_BYTES + 1)  # the file may have grown since stat
    except OSError as exc:
        raise ConfigError(f"cannot read the HAR file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_HAR_BYTES:
        raise ConfigError(_too_large(path, len(raw)))
    try:
        text = raw.decode(json.detect_encoding(raw), "surrogatepass")
        del raw  # the bytes are not kept while the text is parsed
        data = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ConfigError(f"{path} is not a HAR file (not JSON: {exc})") from None
    except RecursionError:
        raise ConfigError(f"{path} is not a HAR file (JSON nested deeper than the reader's limit of "
                          f"{sys.getrecursionlimit()} levels; a HAR nests about six)") from None
    entries = data.get("log", {}).get("entries") if isinstance(data, dict) and isinstance(data.get("log"), dict) else None
    if not isinstance(entries, list):
        raise ConfigError(f"{path} is not a HAR file (no log.entries)")
    if len(entries) > MAX_HAR_ENTRIES:
        raise ConfigError(f"{path}: {len(entries)} entries, over the {MAX_HAR_ENTRIES} a HAR file may have here "
                          "(split the capture)")
    return entries


def _too_large(path: Path, size: int) -> str:
    return (f"{path}: {size} bytes, over the {MAX_HAR_BYTES} ({MAX_HAR_BYTES // (1024 * 1024)} MiB) a HAR file "
            "may have here (split the capture)")


def _string(value: Any) -> str:
    """A member the HAR says is a string; a number is taken as written. An object or array
    is refused (str() of one nested deep enough recurses until it fails)."""
    if isinstance(value, dict | list):
        raise TypeError(f"a JSON {'object' if isinstance(value, dict) else 'array'} where a string belongs")
    return str(value)


def _headers(items: Any) -> Headers:
    return Headers([(_string(h["name"]), _string(h["value"])) for h in items or []])


# An answer's status: 0 is "no answer" (a browser's aborted request; the harness's own record
# of a request it cut short, conformance/http/client.py), else a three-digit code (RFC 9110
# 15: one HTTP does not define, such as 999, is the server's to answer for, and the checks
# judge it). Python's json reads 1e400 as inf, which int() refuses with an OverflowError:
# checked here, named.
def _status(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and (value == 0 or 100 <= value <= 999):
        return value
    raise ValueError(f"response.status {_shown(value)} is not an HTTP status (a three-digit integer, or 0: no answer)")


def _milliseconds(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
        return float(value)
    raise ValueError(f"time {_shown(value)} is not a number of milliseconds (finite, 0 or more)")


def _url(value: Any) -> str:
    """request.url as a URL every later step can parse (not echoed: its query may hold a key)."""
    url = _string(value)
    try:
        urlsplit(url).port  # noqa: B018 (parsing it is the check)
    except ValueError as exc:  # "Invalid IPv6 URL", a port that is no number or out of range
        raise ValueError(f"request.url is not a URL ({exc})") from None
    return url


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _bytes(text: Any, encoding: Any) -> tuple[bytes, bool]:
    if not isinstance(text, str):
        return b"", False
    raw = base64.b64decode(text, validate=True) if encoding == "base64" else text.encode("utf-8", "surrogatepass")
    return raw[:MAX_BODY], len(raw) > MAX_BODY


def _exchange(entry: dict[str, Any]) -> Exchange:
    request, response = entry["request"], entry["response"]
    post = request.get("postData") or {}
    request_body, _ = _bytes(post.get("text"), post.get("encoding"))
    content = response.get("content") or {}
    body, truncated = _bytes(content.get("text"), content.get("encoding"))
    notes = {"startedDateTime": _string(entry.get("startedDateTime", "")),
             **{key: _string(entry[f"_{key}"]) for key in (NOTE, WHY) if isinstance(entry.get(f"_{key}"), str)}}
    remarks, judged = entry.get("_remarks"), entry.get("_judgedLive")
    for what in _REMARKS if isinstance(remarks, dict) else ():
        if isinstance(remarks.get(what), list) and all(isinstance(phrase, str) for phrase in remarks[what]):
            notes[what] = remarks[what]
    if notes.get(NOT_KEPT) and isinstance(judged, dict) and all(isinstance(v, str | None) for v in judged.values()):
        notes[JUDGED_LIVE] = judged
    return Exchange(
        method=_string(request["method"]).upper(),
        url=_url(request["url"]),
        request_headers=_headers(request.get("headers")),
        request_body=request_body,
        status=_status(response["status"]),
        response_headers=_headers(response.get("headers")),
        body=body,
        truncated=truncated or content.get("_truncated") is True,
        elapsed_ms=_milliseconds(entry.get("time")),
        notes=notes,
    )


# --------------------------------------------------------------------------- writing
def har_document(exchanges: Iterable[Exchange], *, creator: str = "registry-conformance") -> dict[str, Any]:
    return {"log": {"version": "1.2", "creator": {"name": creator, "version": "1"},
                    "entries": [_entry(ex) for ex in exchanges]}}


def write_har(exchanges: Iterable[Exchange], path: str | Path) -> Path:
    path = Path(path)
    path.write_text(json.dumps(har_document(exchanges), indent=1), encoding="utf-8")
    return path


def stream_har(exchanges: Iterable[Exchange], path: str | Path) -> Path:
    """A HAR file of `exchanges`, written one entry at a time (one a line): none is held once written."""
    return _join((json.dumps(_entry(ex)) for ex in exchanges), Path(path))


def _join(lines: Iterable[str], target: Path) -> Path:
    """A HAR file of entries already serialised (one JSON object each), written as they come."""
    with target.open("w", encoding="utf-8") as out:
        out.write(_HEAD)
        first = True
        for line in lines:
            out.write(("" if first else ",\n") + line.rstrip("\n"))
            first = False
        out.write(_TAIL)
    return target


_HEAD = '{"log": {"version": "1.2", "creator": {"name": "registry-conformance", "version": "1"}, "entries": [\n'
_TAIL = "\n]}}\n"


def _text(body: bytes) -> dict[str, Any]:
    try:
        return {"text": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"text": base64.b64encode(body).decode("ascii"), "encoding": "base64"}


def _pairs(headers: Headers) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.items()]


def _entry(ex: Exchange) -> dict[str, Any]:
    started = ex.notes.get("startedDateTime") or datetime.now(UTC).isoformat()
    request: dict[str, Any] = {"method": ex.method, "url": ex.url, "httpVersion": "HTTP/1.1", "cookies": [],
                               "headers": _pairs(ex.request_headers),
                               "queryString": [{"name": k, "value": v} for k, v in ex.query],
                               "headersSize": -1, "bodySize": len(ex.request_body)}
    if ex.request_body:
        request["postData"] = {"mimeType": ex.request_headers.get("content-type") or "", **_text(ex.request_body)}
    remarks = {what: list(ex.notes[what]) for what in _REMARKS if ex.notes.get(what)}
    # What the harness meant by a request of its own that is not a valid one (designed to be
    # refused, a flood, fuzzing: conformance/http/intent.py), as HAR 1.2's custom fields allow.
    intent = {f"_{key}": ex.notes[key] for key in (NOTE, WHY) if ex.notes.get(key)}
    # The verdicts given on the whole exchange, when a capture did not keep all of it (Capture).
    judged = {"_judgedLive": ex.notes[JUDGED_LIVE]} if remarks.get(NOT_KEPT) and JUDGED_LIVE in ex.notes else {}
    return {
        **({"comment": " | ".join(f"{what}: {'; '.join(phrases)}" for what, phrases in remarks.items()),
            "_remarks": remarks} if remarks else {}),  # the recording proxy's notes
        **intent, **judged,
        "startedDateTime": started, "time": ex.elapsed_ms, "request": request,
        "response": {"status": ex.status, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": _pairs(ex.response_headers), "redirectURL": ex.response_headers.get("location") or "",
                     "content": {"size": len(ex.body), "mimeType": ex.response_headers.get("content-type") or "",
                                 **({"_truncated": True} if ex.truncated else {}), **_text(ex.body)},
                     "headersSize": -1, "bodySize": len(ex.body)},
        "cache": {}, "timings": {"send": 0, "wait": ex.elapsed_ms, "receive": 0},
    }


_APPENDING = threading.Lock()


class TrafficLog:
    """A run's exchanges (already redacted), appended as they are recorded -- one HAR entry
    per line in a part file per process, so nothing is held in memory -- and joined into
    the run directory's `traffic.har` at the end (`join`)."""

    PART_GLOB = ".traffic-*.jsonl"

    def __init__(self, report_dir: str | Path, process: str) -> None:
        self.path = Path(report_dir) / f".traffic-{process}.jsonl"

    def write(self, exchanges: Iterable[Exchange]) -> None:
        lines = [json.dumps(_entry(ex)) + "\n" for ex in exchanges]
        if lines:
            with _APPENDING, self.path.open("a", encoding="utf-8") as handle:  # whole lines, whichever thread writes
                handle.writelines(lines)

    @classmethod
    def read(cls, report_dir: str | Path) -> Iterator[Exchange]:
        """The run's exchanges written so far, every process's part (what the last tests judge:
        conformance/last_tests.py). Written by the harness itself: no cap beyond the run's own."""
        for part in sorted(Path(report_dir).glob(cls.PART_GLOB)):
            with part.open(encoding="utf-8") as handle:
                for line in handle:
                    yield _exchange(json.loads(line))

    @classmethod
    def join(cls, report_dir: str | Path) -> Path | None:
        parts = sorted(Path(report_dir).glob(cls.PART_GLOB))
        if not parts:
            return None

        def lines() -> Iterator[str]:
            for part in parts:
                with part.open(encoding="utf-8") as handle:
                    yield from handle
                part.unlink()
        return _join(lines(), Path(report_dir) / "traffic.har")


# --------------------------------------------------------------------------- a capture on disk
# The largest body a Capture keeps. An address API's answer is a few KiB (a page of 100
# addresses with their links, about 100 KiB), a SOAP message or a token response less; a
# larger body is judged whole as it passes and then not kept: a capture of nine 7 MB answers
# held whole took the proxy 494 MB, and is more than the reading bounds above let be judged.
KEPT_BODY_BYTES = 1024 * 1024
_MiB = 1024 * 1024


class Capture:
    """A capture written to disk as its exchanges pass (`conformance proxy`), one HAR entry a
    line, so that memory holds none of it. It holds the exchanges as they are given (the
    proxy's: unmasked, in a folder private to the user); whatever leaves the folder is made
    from `exchanges()`, read back one at a time, by whoever writes it (the redaction is the
    writer's). It keeps what `read_har` can read back and judge: a body up to `max_body`
    bytes, at most `max_bytes` in all (the reading bound, less the HAR's own frame) and
    `max_entries` exchanges. A body it does not keep leaves the entry without its text,
    naming what was not kept (NOT_KEPT) and carrying the verdicts given on the whole exchange
    (JUDGED_LIVE); an exchange past the bounds is not kept at all. `gaps` names both."""

    FILE = "capture.jsonl"

    def __init__(self, folder: str | Path, *, max_body: int = KEPT_BODY_BYTES,
                 max_bytes: int = MAX_HAR_BYTES - len(_HEAD) - len(_TAIL), max_entries: int = MAX_HAR_ENTRIES) -> None:
        self.path = Path(folder) / self.FILE
        self.max_body, self.max_bytes, self.max_entries = max_body, max_bytes, max_entries
        self.passed = self.kept = self.size = 0  # size: of the HAR entries kept, with their separators
        self.large = {"answers": 0, "requests": 0}  # bodies over max_body
        self.full = 0  # exchanges kept without their bodies: no room left for them
        self.dropped = 0  # exchanges not kept at all
        self._lock = threading.Lock()
        self._handle: TextIO | None = self.path.open("x", encoding="utf-8")

    def __len__(self) -> int:
        """The exchanges that passed, kept or not."""
        return self.passed

    def append(self, ex: Exchange, judged: dict[str, str | None] | None = None) -> None:
        """One exchange, as it passed; `judged`: the verdict of each rule that judged it whole."""
        over = [side for side, body in (("answers", ex.body), ("requests", ex.request_body)) if len(body) > self.max_body]
        line = None if over else json.dumps(_entry(ex))  # ASCII: its length is its size in bytes
        with self._lock:
            self.passed += 1
            room = self.max_bytes - self.size - 2  # each entry but the last is followed by ",\n"
            full = line is not None and len(line) > room
            if line is None or full:
                line = json.dumps(_entry(self._without_bodies(ex, over, full, judged)))
                if len(line) > room and not full:  # the body under the cap does not fit either
                    full, line = True, json.dumps(_entry(self._without_bodies(ex, over, True, judged)))
            if self.kept >= self.max_entries or len(line) > room or self._handle is None:
                self.dropped += 1
                return
            for side in over:
                self.large[side] += 1
            self.full += full
            self._handle.write(line + "\n")
            self.kept += 1
            self.size += len(line) + 2

    def close(self) -> None:
        """No more exchanges: what passed is on disk (later ones are counted as not kept)."""
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None

    def exchanges(self) -> Iterator[Exchange]:
        """The exchanges kept, in the order they passed, one at a time (after `close`)."""
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                yield _exchange(json.loads(line))

    def write_har(self, path: str | Path) -> Path:
        """The capture as a HAR file (within the reading bounds), copied line by line."""
        with self.path.open(encoding="utf-8") as handle:
            return _join(handle, Path(path))

    def gaps(self) -> list[str]:
        """What the capture did not keep, one phrase each: a gap in what its HAR lets be judged."""
        out = [f"{n} {side}' bodies not kept: larger than {_size(self.max_body)}" for side, n in self.large.items() if n]
        if self.full:
            out.append(f"{self.full} exchanges' bodies not kept: the capture had reached {_size(self.max_bytes)}")
        if self.dropped:
            out.append(f"{self.dropped} exchanges not kept at all: the capture holds at most "
                       f"{self.max_entries:,} exchanges and {_size(self.max_bytes)}")
        return out

    def _without_bodies(self, ex: Exchange, over: list[str], full: bool,
                        judged: dict[str, str | None] | None) -> Exchange:
        """The exchange without the bodies the capture does not keep: those over its cap
        (`over`), or both when it is `full`; what is left says what is missing and how the
        whole was judged."""
        sides = {"answers", "requests"} if full else set(over)
        why = f"the capture had reached {_size(self.max_bytes)}" if full else f"over the {_size(self.max_body)} kept of a body"
        missing = [f"{'response' if side == 'answers' else 'request'} body of {len(body):,} bytes ({why})"
                   for side, body in (("answers", ex.body), ("requests", ex.request_body)) if side in sides and body]
        notes = {**ex.notes, NOT_KEPT: missing, **({JUDGED_LIVE: dict(judged)} if judged is not None else {})}
        return dataclasses.replace(ex, body=b"" if "answers" in sides else ex.body,
                                   request_body=b"" if "requests" in sides else ex.request_body,
                                   truncated=ex.truncated or ("answers" in sides and bool(ex.body)), notes=notes)


def _size(n: int) -> str:
    return f"{n / _MiB:.4g} MiB" if n >= _MiB else f"{n:,} bytes"
