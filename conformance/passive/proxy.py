"""`conformance proxy`: a recording reverse proxy that judges each exchange as it passes.

One listener on 127.0.0.1 per service of the profile (address API, authorization server,
SOAP message service), each forwarding to that service's base URL whatever path and query
the client sends: point a client at the listener instead of the service, paths unchanged.
The ASGI side is Starlette on uvicorn, the upstream side the harness's one bounded HTTP
client (deadline, size caps before and after the content coding, no redirects followed):
an upstream that hangs, floods or breaks HTTP costs at most the deadline, is answered 502
to the client and printed as a finding, never a hang or a memory blow-up.

Like a reverse proxy (nginx's proxy_redirect, Apache's ProxyPassReverse) it keeps no client
state: the upstream client keeps no cookie and adds no header of its own, so one client's
session never reaches another's request; and a `Location` (or Content-Location, Refresh)
that points at a proxied origin is rewritten to that service's listener, so a browser-style
client stays on the proxy for a whole flow. The record keeps what the upstream sent, with a
note of what the client was handed instead.

Every exchange is judged as it passes by the passive rules one exchange can show (one line
per finding, live); on Ctrl-C or after `--duration` the whole traffic is judged again, flows
included, into the same run directory as `conformance run` (summary.json, matrix, JUnit,
Allure, a redacted traffic.har). The raw capture that judgement reads lives only in a
private temporary directory and is deleted after.

The capture goes to disk as the exchanges pass (conformance/passive/har.py Capture), so the
proxy's memory holds the exchanges in flight, not the session: it keeps a body up to 1 MiB
and as much as the HAR reading bounds let be judged again (48 MiB, 50,000 exchanges). A
larger body is judged whole as it passes and not kept: the end's judgement takes the verdicts
given then, and summary.json (`capture_gaps`, `traffic_note`) and the console name what was
not kept, a gap in the capture, never a refused capture.

Where the redaction happens: the capture on disk is unmasked (as the client sent it and the
upstream answered); everything that leaves the private folder is written from it at the end,
in `write_capture` -- the redactor first reads the whole capture back (`_learn`, the place
for learning every secret of it), then masks each exchange as traffic.har is written
(`_redacted`), and each line of proxy-findings.txt again. Only the live lines are masked as
they are printed, with what the redactor knows by then.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conformance.catalogue import check_by_id
from conformance.errors import ConfigError, UnreachableError
from conformance.findings import Finding
from conformance.http.client import ApiClient, DiscardingRecorder
from conformance.http.exchange import Exchange, Headers
from conformance.http.fuzz_transport import _HOP_BY_HOP
from conformance.http.redaction import Redactor
from conformance.passive.har import JUDGED_LIVE, Capture, stream_har
from conformance.passive.judge import verdicts
from conformance.passive.rules import Context, all_rules
from conformance.passive.traffic import Traffic, sort_into
from conformance.profiles import Profile
from conformance.serving import ServerThread

_NOT_FORWARDED = _HOP_BY_HOP | {"host", "accept-encoding"}  # the bounded client asks for the codings it can undo
# Headers whose absolute URL a client follows: rewritten from a proxied origin to its listener.
_REWRITTEN = ("location", "content-location", "refresh")
# Headers whose upstream value is the proxy's own, not a client's: the only values a note names.
_OWN_VALUES = ("host", "accept-encoding")


class RecordingProxy:
    def __init__(self, profile: Profile, *, secrets: dict[str, str], out: TextIO = sys.stdout,
                 first_port: int = 0) -> None:
        self.profile = profile
        self.out = out
        self.first_port = first_port
        self.redactor = Redactor(secrets.values())
        if profile.address is not None:
            self.redactor.add_header(profile.address.api_key_header)
        self.context = Context(profile)
        self.live_rules = [r for r in all_rules() if check_by_id(r.check).observes == "exchange"]
        # The raw capture, on disk in a private folder (made by `start`): len() is what passed.
        self.private: Path | None = None
        self.raw: Capture | None = None
        self.upstream_findings = 0
        self.live_findings = 0
        self._lock = threading.Lock()
        # One exchange judged at a time: a large body parsed by one rule after another is the
        # most memory an exchange takes, and judging is CPU work the GIL serialises anyway.
        self._judging = threading.Lock()
        self._servers: list[ServerThread] = []
        self._clients: list[ApiClient] = []
        self.listeners: dict[str, str] = {}
        self._origins: dict[str, str] = {}  # upstream origin -> the listener's origin
        self._lines: TextIO | None = None  # what was printed live, on disk: proxy-findings.txt at the end

    # ------------------------------------------------------------------ listeners
    def upstreams(self) -> dict[str, str]:
        from conformance.run_setup import plain_http_consent

        plain_http_consent(self.profile)  # the clients' credentials cross a network in clear text: exit 2 unless allowed
        out = {}
        for name, service in self.profile.services.items():
            if service.mock or not service.base_url:
                raise ConfigError(f"{self.profile.path}: services.{name} is the local mock; the proxy forwards to a "
                                  "real deployment (point a profile's base URLs at a running `conformance mock`)")
            out[name] = service.base_url
        return out

    def start(self) -> dict[str, str]:
        upstreams = self.upstreams()
        self.private = Path(tempfile.mkdtemp(prefix="conformance-proxy-"))
        self.private.chmod(0o700)
        self.raw = Capture(self.private)
        self._lines = (self.private / "printed.txt").open("w", encoding="utf-8")
        for index, (name, base_url) in enumerate(upstreams.items()):
            service = self.profile.services[name]
            # It forwards the clients' own requests (and credentials) to the service's origin, and
            # nowhere else; with the service's trust (CA file, pins, consent to plain http).
            client = ApiClient(base_url, redactor=self.redactor, recorder=DiscardingRecorder(), timeout_s=service.timeout_s,
                               limits=self.profile.limits.http(), stateless=True, home=[_origin(base_url)],
                               trust=service.trust)
            self._clients.append(client)
            app = Starlette(routes=[Route("/{path:path}", self._handler(name, client),
                                          methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])])
            server = ServerThread(app, f"proxy-{name}", port=self.first_port + index if self.first_port else 0)
            port = server.start()
            self._servers.append(server)
            self.listeners[name] = f"http://127.0.0.1:{port}{urlsplit(base_url).path.rstrip('/')}"
            self._origins[_origin(base_url)] = f"http://127.0.0.1:{port}"
        return self.listeners

    def stop(self) -> None:
        for server in self._servers:
            server.stop()
        for client in self._clients:
            client.close()

    def _handler(self, service: str, client: ApiClient) -> Callable:
        limits = self.profile.limits
        parts = urlsplit(client.base_url)
        origin = f"{parts.scheme}://{parts.netloc}"

        async def handle(request: Request) -> Response:
            body = b""
            async for chunk in request.stream():
                body += chunk
                if len(body) > limits.max_body_bytes:
                    return Response(b"request body over the proxy's limit\n", status_code=413)
            sent = Headers([(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw])
            headers = {k: v for k, v in request.headers.items() if k.lower() not in _NOT_FORWARDED}
            # The listener stands in for the upstream's origin: the path and query go on unchanged.
            target = origin + request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return await run_in_threadpool(self._forward, service, client, request.method, target, headers, body, sent)

        return handle

    def _forward(self, service: str, client: ApiClient, method: str, url: str, headers: dict[str, str],
                 body: bytes, sent: Headers) -> Response:
        started = datetime.now(UTC).isoformat()
        try:
            _, raw = client.request_revealing(method, url, headers=headers, content=body or None)
        except (Finding, UnreachableError) as exc:
            message = exc.message if isinstance(exc, Finding) else str(exc)
            with self._lock:
                self.upstream_findings += 1
            self._print(f"UPSTREAM {service} {method} {url.split('?')[0]}: {message}")
            return Response(f"upstream: {message}\n".encode(), status_code=502, media_type="text/plain")
        if not 200 <= raw.status <= 599:  # no final answer a client can be handed (a 1xx as final, status 999)
            with self._lock:
                self.upstream_findings += 1
            self._print(f"UPSTREAM {service} {method} {url.split('?')[0]}: answered with status {raw.status}, "
                        "which is no final HTTP status")
            return Response(f"upstream: status {raw.status}\n".encode(), status_code=502, media_type="text/plain")
        out_headers, rewritten = self._rewrite([(k, v) for k, v in raw.response_headers.items()
                                                if k.lower() not in _HOP_BY_HOP])
        notes: dict[str, Any] = {**raw.notes, "startedDateTime": started}
        if rewritten:
            notes["rewritten"] = rewritten
        # The record holds the client's request as it sent it; what the upstream got instead
        # (its Host, the codings the proxy can undo) is a note.
        upstream = [f"{k}: {v}" if k.lower() in _OWN_VALUES else f"{k} (as merged by the upstream client)"
                    for k, v in raw.request_headers.items() if sent.get(k) != v]
        if upstream:
            notes["sent upstream"] = upstream
        raw = dataclasses.replace(raw, request_headers=sent, notes=notes)
        judged = self._judge_live(raw)
        self.raw.append(raw, judged)  # as it passed, whole or (a body too large to keep) with these verdicts
        response = Response(raw.body, status_code=raw.status)
        response.raw_headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in out_headers] + [
            (b"content-length", str(len(raw.body)).encode())]
        return response

    def _rewrite(self, headers: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[str]]:
        """The headers the client is handed, and what was rewritten ("Location: A -> B")."""
        out, rewritten = [], []
        for name, value in headers:
            if name.lower() in _REWRITTEN:
                for upstream, listener in self._origins.items():
                    # The whole origin only: https://auth.example, not https://auth.example.evil
                    new = re.sub(re.escape(upstream) + r"(?=[/?#]|$)", listener, value, count=1)
                    if new != value:
                        # The origins only: the rest of the URL may carry a code or a state, and
                        # notes reach the HAR as they are (the redactor masks headers and bodies).
                        rewritten.append(f"{name}: {upstream} -> {listener}")
                        value = new
                        break
            out.append((name, value))
        return out, rewritten

    # ------------------------------------------------------------------ judging
    def _judge_live(self, raw: Exchange) -> dict[str, str | None]:
        """Print what the rules of one exchange find broken; the verdict of each that judged it
        (the finding's message, None when it passed)."""
        judged: dict[str, str | None] = {}
        with self._judging:
            traffic = Traffic()
            with self._lock:  # the redactor learns as it goes
                sort_into(traffic, raw, self.profile, self.redactor)
            for rule in self.live_rules:
                try:
                    seen, found = verdicts(rule, traffic, self.context)
                except Exception:  # noqa: BLE001 -- a rule that cannot run live (no WSDL, say) is judged at the end
                    continue
                if seen:
                    judged[rule.check] = "; ".join(finding.message for _, finding in found) or None
                for label, finding in found:
                    with self._lock:
                        self.live_findings += 1
                    severity = check_by_id(rule.check).severity
                    self._print(f"FAIL {rule.check} [{severity}] {label}: {finding.message}")
        return judged

    def _print(self, line: str) -> None:
        with self._lock:
            line = self.redactor.text(line)
            if self._lines is not None:
                self._lines.write(line + "\n")
            self.out.write(line + "\n")
            self.out.flush()

    # ------------------------------------------------------------------ the end
    def write_capture(self, directory: Path) -> tuple[Path | None, Path]:
        """(the raw capture as a HAR file, private, for the final judgement, within the HAR
        reading bounds; None when nothing passed, its folder then removed) and the redacted
        traffic.har of the run directory; proxy-findings.txt beside it. Printed: what the
        capture could not keep. Call after `stop`."""
        assert self.raw is not None and self.private is not None and self._lines is not None, "start() first"
        self.raw.close()
        for gap in self.raw.gaps():
            self._print(f"GAP {gap} (judged whole as they passed)")
        with self._lock:
            self._lines.close()
            self._lines = None
        self._learn()
        redacted = stream_har(self._redacted(), directory / "traffic.har")
        with (self.private / "printed.txt").open(encoding="utf-8") as printed, \
                (directory / "proxy-findings.txt").open("w", encoding="utf-8") as kept:
            kept.writelines(self.redactor.text(line) for line in printed)
        if not self.raw.kept:
            shutil.rmtree(self.private, ignore_errors=True)
            return None, redacted
        return self.raw.write_har(self.private / "capture.har"), redacted

    def _learn(self) -> None:
        """The redactor reads the whole capture before any of it is written: every secret of
        the capture is known before the first exchange is masked (today it has learned them
        live already; a redactor that learns in a pass of its own gets it here)."""
        for ex in self.raw.exchanges():
            self.redactor.learn(ex)

    def _redacted(self) -> Iterator[Exchange]:
        """The capture read back, each exchange masked as it is written: the one seam where what
        the proxy kept becomes what the report shows."""
        for ex in self.raw.exchanges():
            masked = self.redactor.exchange(ex)
            judged = ex.notes.get(JUDGED_LIVE)
            if isinstance(judged, dict):  # the live verdicts' messages: masked like the printed lines
                masked = dataclasses.replace(masked, notes={**masked.notes, JUDGED_LIVE: {
                    check: None if message is None else self.redactor.text(message) for check, message in judged.items()}})
            yield masked

    def name_gaps(self, summary: Path) -> None:
        """summary.json names what the capture could not keep (`capture_gaps`, and in
        `traffic_note`): the judgement of what was not kept is the live one."""
        if self.raw is None or not summary.is_file():
            return
        gaps = self.raw.gaps()
        data = json.loads(summary.read_text(encoding="utf-8"))
        data["capture_gaps"] = gaps
        if gaps:
            data["traffic_note"] = (f"{data.get('traffic_note') or 'judged from the capture of the proxy session'}; "
                                    f"{'; '.join(gaps)} (judged whole as they passed: proxy-findings.txt)")
        summary.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
