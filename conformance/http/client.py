"""The HTTP client every suite uses: bounded, paced, budgeted, quota-guarded, recorded, redacted.

Built on httpx. Every request is bounded by the run's `Limits` (conformance/http/limits.py:
total deadline, body caps before and after the content coding, head cap, no redirects);
a server that breaks them or HTTP raises an `HttpViolation` finding. Every response is
turned into a redacted `Exchange` and handed to the Recorder before any caller sees it, so
nothing unredacted can reach a report.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import ssl
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any
from urllib.parse import urlsplit

import httpx

from conformance.errors import NotJudged, UnreachableError
from conformance.findings import Blocked
from conformance.http import limits as bounds
from conformance.http import origins
from conformance.http.concurrency import Slots
from conformance.http.exchange import Exchange, Headers, decimal_integer
from conformance.http.intent import NOTE, WHY, Intent, Switches
from conformance.http.limits import DEFAULT_LIMITS, HttpViolation, Limits
from conformance.http.redaction import Redactor
from conformance.http.schedule import BudgetSpent, Schedule
from conformance.http.stops import ANSWERED, NO_STOP, TRANSPORT_FAILURES, Breaker, RunStop, Stopped
from conformance.profiles import Trust

RATE_LIMIT_RETRIES = 4
# The share of the profile's rate the run is paced at. A server counts a request in the
# window it arrives in: one sent on time at a window's end may arrive in the next, and a
# run paced at exactly the limit then meets a 429 now and again (one in 3150 measured).
# 3 % of the interval absorbs up to 30 ms of such jitter at 20 requests/s; the server's
# RateLimit headers still hold every request once it says nothing remains.
PACED_SHARE = 0.97
MAX_RETRY_WAIT_S = 60


class BudgetExhausted(NotJudged):
    """The profile's request budget, or its daily-quota reserve, is used up: the checks left
    are not judged (the rule applies; the run could not afford to judge it)."""

    def __init__(self, text: str) -> None:
        # "daily quota reserve reached: 4990 requests left, ...": the numbers differ per worker, the reason does not.
        what, _, detail = text.partition(": ")
        how = "raise limits.request_budget, or lower limits.daily_quota_reserve and run when the quota renews"
        super().__init__(what, f"{detail}; {how}" if detail else how)


class Recorder:
    """Collects the exchanges of the current test; the reporting adapter attaches them. What a
    test sent (`record`) also goes into the run's traffic.har; what it only shows (`show`: a
    passive check's offending exchanges, recorded once already when they were sent) does not,
    so traffic.har holds each exchange once.

    One per process. The tests a worker runs side by side (conformance/side_by_side.py) run in
    threads of their own, each recording apart (`record_apart`); the threads a test sends from
    (concurrency.concurrently) run in its context. Elsewhere every thread records into the one
    holding of the process, as a process that runs one test at a time does."""

    def __init__(self) -> None:
        self._shared = _Held()

    def _mine(self) -> _Held:
        apart = _APART.get(None)
        if apart is None:
            return self._shared
        with _MAKING:  # the threads of one test share its holding: one made for all of them
            held = apart.get(self)
            if held is None:
                held = apart[self] = _Held()
        return held

    @property
    def exchanges(self) -> list[Exchange]:
        return self._mine().exchanges

    @property
    def shown(self) -> list[Exchange]:
        return self._mine().shown

    def record(self, exchange: Exchange) -> None:
        self._mine().exchanges.append(exchange)

    def show(self, exchange: Exchange) -> None:
        self._mine().shown.append(exchange)

    def take(self) -> list[Exchange]:
        held = self._mine()
        taken, held.exchanges = held.exchanges, []
        return taken

    def clear(self) -> None:
        held = self._mine()
        held.exchanges, held.shown = [], []

    def take_shown(self) -> list[Exchange]:
        held = self._mine()
        taken, held.shown = held.shown, []
        return taken


@dataclass
class _Held:
    """One test's exchanges in one recorder."""

    exchanges: list[Exchange] = field(default_factory=list)
    shown: list[Exchange] = field(default_factory=list)


# The recorders' holdings of a context that records apart (`record_apart`), by recorder.
_APART: contextvars.ContextVar[weakref.WeakKeyDictionary[Recorder, _Held]] = contextvars.ContextVar("recorded_apart")
_MAKING = threading.Lock()


def record_apart() -> None:
    """From now on this context (a thread running one test beside others) records its
    exchanges apart from the rest of the process, in every recorder."""
    _APART.set(weakref.WeakKeyDictionary())


class DiscardingRecorder(Recorder):
    """For requests that are no check's evidence (sample discovery, the proxy's own forwarding)."""

    def record(self, exchange: Exchange) -> None:
        return None


@dataclass(frozen=True)
class ServiceBounds:
    """The run's bounds on one service beyond each request's: requests in flight
    (limits.concurrency), the service's circuit breaker, the run's stop (deadline, signal)."""

    slots: Slots | None = None
    breaker: Breaker | None = None
    stop: RunStop = NO_STOP


class Pacer:
    """Keeps requests at or below a rate, counts them against a budget, and adapts to what
    the server says of its rate limit (conformance/http/schedule.py): RateLimit-Remaining at
    0 holds the next request until the server's window ends, a 429 holds it for its
    Retry-After; never longer than MAX_RETRY_WAIT_S (a 503's Retry-After is about
    maintenance, not the rate: ignored). With a shared `schedule`, rate, budget and holds
    are the whole run's, kept together with the other xdist workers.

    It also says whether a request may go at all (conformance/http/stops.py: the run's
    deadline or a signal, the service's circuit breaker) and how many may be in flight
    (conformance/http/concurrency.py)."""

    def __init__(self, requests_per_second: float = 0.0, budget: int = 0, *, adaptive: bool = True,
                 schedule: Schedule | None = None, bounds: ServiceBounds | None = None) -> None:
        """`adaptive`: follow the server's rate-limit headers (not for floods: they exceed on
        purpose); `bounds`: the run's on the service (none: one request at a time, no breaker)."""
        bounds = bounds or ServiceBounds()
        self._slots = bounds.slots
        self.stop = bounds.stop
        self._breaker = bounds.breaker
        self._adaptive = adaptive
        self._interval = 1.0 / (requests_per_second * PACED_SHARE) if requests_per_second > 0 else 0.0
        self._budget = budget
        self._schedule = schedule if schedule is not None else Schedule()
        self._sent = 0
        self._own_hold = 0.0  # a retry's wait of an unpaced client, which the schedule's holds do not reach
        self.quota_stop: str | None = None

    @property
    def concurrency(self) -> int:
        """How many requests to the service may be in flight at once."""
        return self._slots.limit if self._slots is not None else 1

    def slot(self) -> contextlib.AbstractContextManager[None]:
        """Held while a request is in flight."""
        return self._slots.held() if self._slots is not None else contextlib.nullcontext()

    def ended(self, violation: HttpViolation | None) -> None:
        """Count a request's end for the breaker: a complete answer, or a violation."""
        if self._breaker is None:
            return
        failed = violation is not None and violation.kind in TRANSPORT_FAILURES
        failures, answered = self._schedule.outcome(failed, violation is None or violation.kind in ANSWERED)
        if failed and violation is not None and failures >= self._breaker.limit:
            self._breaker.trip(violation.kind, violation.message, answered)

    def refusing(self) -> None:
        """What `acquire` would raise before reserving a request, raised now: the run's stop,
        a tripped breaker, a spent quota reserve or request budget."""
        self.stop.check()
        if self._breaker is not None:
            self._breaker.check()
        if self.quota_stop:
            raise BudgetExhausted(self.quota_stop)
        if self._budget and self._schedule.sent() >= self._budget:
            raise BudgetExhausted(str(BudgetSpent.of(self._budget)))

    def acquire(self) -> None:
        self.refusing()
        try:
            start = self._schedule.reserve(self._interval, self._budget, paced=self._adaptive)
        except BudgetSpent as spent:
            raise BudgetExhausted(str(spent)) from None
        self._sent += 1
        wait = max(start, self._own_hold) - time.time()
        if wait > 0:
            # Pacing a real environment: this wait is the point, not synchronisation.
            time.sleep(wait)

    def hold(self, seconds: float) -> None:
        """No request before `seconds` from now (a 429 being waited out), at most MAX_RETRY_WAIT_S."""
        if self._adaptive:
            self._schedule.hold(min(seconds, MAX_RETRY_WAIT_S))
        else:
            self._own_hold = max(self._own_hold, time.time() + min(seconds, MAX_RETRY_WAIT_S))

    def observe(self, status: int, headers: httpx.Headers) -> float | None:
        """Learn from a response; the seconds the server asked to wait, if it did."""
        if not self._adaptive:
            return None
        asked = None
        if status == 429:
            asked = retry_after_s(headers.get("retry-after"))
            if asked is None:
                asked = 1  # refused without saying for how long: back off a little
        reset = _int(headers.get("ratelimit-reset"))
        if reset is not None and reset > 10**9:  # an epoch time rather than seconds
            reset = max(0, reset - int(time.time()))
        return self._schedule.observe(_int(headers.get("ratelimit-remaining")), reset, asked, MAX_RETRY_WAIT_S)

    @property
    def sent(self) -> int:
        return self._sent


def _int(value: str | None) -> int | None:
    try:
        return int((value or "").split(",")[0].strip())
    except ValueError:
        return None


def retry_after_s(value: str | None) -> int | None:
    """Retry-After as seconds (RFC 9110 10.2.3: delay-seconds or an HTTP date)."""
    if not value:
        return None
    if (seconds := decimal_integer(value)) is not None:
        return seconds
    from email.utils import parsedate_to_datetime

    try:
        return max(0, int(parsedate_to_datetime(value).timestamp() - time.time()))
    except (TypeError, ValueError):
        return None


class _KeepNoCookies(DefaultCookiePolicy):
    """A cookie policy that stores none and sends none: a jar that stays empty."""

    def set_ok(self, cookie: Any, request: Any) -> bool:
        return False

    def return_ok(self, cookie: Any, request: Any) -> bool:
        return False


class ApiClient:
    """A base URL plus default headers; `request` returns a redacted Exchange."""

    def __init__(
        self,
        base_url: str,
        *,
        redactor: Redactor,
        recorder: Recorder,
        pacer: Pacer | None = None,
        timeout_s: float = 10.0,
        default_headers: Mapping[str, str] | None = None,
        on_response: Callable[[httpx.Response], None] | None = None,
        auth: tuple[str, str] | None = None,
        cert: tuple[str, str] | None = None,
        verify: str | bool = True,
        limits: Limits = DEFAULT_LIMITS,
        retry_rate_limited: bool = False,
        on_exchange: Callable[[Exchange], None] | None = None,
        stateless: bool = False,
        home: Sequence[str] | None = None,
        trust: Trust | None = None,
        switches: Switches | None = None,
        classify: Callable[[httpx.Request], str | None] | None = None,
        refused_because: str | None = None,
    ) -> None:
        """`auth`: HTTP basic (username, password); `cert`: a TLS client certificate
        (certificate file, key file); `verify`: a CA bundle file for https, or a bool;
        `limits`: the bounds of every request (the profile's [limits]); `retry_rate_limited`:
        a 429 is waited out (Retry-After, at most MAX_RETRY_WAIT_S) and the request sent again,
        so the server's rate limit never decides a check that is not about it; `on_exchange`:
        called with every exchange after it is redacted and recorded (never raises into the caller's check);
        `stateless`: a client that forwards for others (the recording proxy) keeps no cookie,
        so no client's session reaches another's request, and adds no header of its own
        (no User-Agent, Accept or Connection) but the codings it can undo; `home`: the base
        URLs requests may go to (default: `base_url`; empty: anywhere, for a login walk that
        attaches no credential of its own); `trust`: the service's CA file, pinned keys and
        consent to plain http (conformance/http/origins.py), from its profile section;
        `switches`: the profile's safety switches, enforced on every request
        (conformance/http/intent.py); `classify`: why a request is designed to be refused by
        the service's rules for its clients, or None (every request is read by it);
        `refused_because`: every request of this client is designed to be refused, for this
        reason (a client made without the credentials the service demands)."""
        self._retry = retry_rate_limited
        self._on_exchange = on_exchange
        self.base_url = base_url.rstrip("/")
        self._redactor = redactor
        self._recorder = recorder
        self._pacer = pacer or Pacer()
        self._on_response = on_response
        self.limits = limits
        trust = trust or Trust()
        given = [self.base_url] if home is None and self.base_url else list(home or ())
        self._home = tuple(origins.Base.of(url) for url in given)
        self._pins = trust.pins
        self._trust = trust
        self._plain_http_key = None if trust.allow_plain_http else trust.key
        self._has_cert = cert is not None
        self._switches = switches or Switches()
        self._classify = classify
        self._refused_because = refused_because
        if trust.ca_file and verify is True:
            verify = trust.ca_file
        self._http = httpx.Client(
            timeout=httpx.Timeout(min(timeout_s, limits.deadline_s)),
            # Only the codings the harness can undo within its caps.
            headers={"Accept-Encoding": "gzip, deflate", **dict(default_headers or {})},
            follow_redirects=False,
            trust_env=False,  # never route loopback traffic through a proxy
            auth=httpx.BasicAuth(*auth) if auth is not None else None,
            transport=bounds.transport(verify=_tls_context(cert, verify), trust_env=False),
            cookies=CookieJar(policy=_KeepNoCookies()) if stateless else None,  # a jar, not Cookies: httpx copies those
        )
        if stateless:
            for name in ("User-Agent", "Accept", "Connection"):
                if name not in (default_headers or {}):
                    self._http.headers.pop(name, None)

    def close(self) -> None:
        self._http.close()

    def classify_with(self, classify: Callable[[httpx.Request], str | None]) -> None:
        """The service's rules for its clients, once the client's caller knows them (a token
        flow learns its clients and audience after its client is made)."""
        self._classify = classify

    def add_home(self, url: str) -> None:
        """One more base URL this client's requests may go to (one the harness started)."""
        if self._home:
            self._home = (*self._home, origins.Base.of(url))

    @property
    def concurrency(self) -> int:
        """How many of this service's requests may be in flight at once (limits.concurrency)."""
        return self._pacer.concurrency

    def refusing(self) -> None:
        """Raise what this client's next request would raise before it is sent: `Stopped` (the
        run's stop, the service's breaker) or `BudgetExhausted`; nothing when it may send."""
        self._pacer.refusing()

    def url_for(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.base_url + (path if path.startswith("/") else "/" + path)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        omit_headers: Sequence[str] = (),
        intent: Intent | None = None,
    ) -> Exchange:
        return self.request_revealing(
            method, path, params=params, headers=headers, content=content, omit_headers=omit_headers, intent=intent
        )[0]

    def request_revealing(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        omit_headers: Sequence[str] = (),
        intent: Intent | None = None,
        record: bool = True,
    ) -> tuple[Exchange, Exchange]:
        """(redacted, raw). Only token flows use the raw exchange, to read the codes and
        tokens they must send on; checks and reports only ever see the redacted one. The
        redactor learns every secret of the raw exchange before it is recorded. `intent`: what
        the caller sends (a flood, fuzzing); otherwise the client's classifier decides between
        valid and designed to be refused (conformance/http/intent.py). `record` False: the
        answer is recorded when its test reads it (`record`; contract fuzzing's answers sent
        ahead, conformance/http/fuzz_transport.py), and (raw, raw) is returned."""
        request = self._http.build_request(method, self.url_for(path), params=params, headers=headers,
                                           content=content)
        for name in omit_headers:
            request.headers.pop(name, None)
        self._admit(request)
        why = self._refused_because or (
            self._classify(request) if self._classify is not None and intent in (None, Intent.VALID) else None)
        intent = Intent.REFUSED if why else (intent or Intent.VALID)
        self._switches.admit(intent, why)  # a request the profile forbids does not leave: not judged
        for _attempt in range(RATE_LIMIT_RETRIES):
            redacted, raw = self._send_once(request, intent, why, record)
            if raw.status != 429 or not self._retry:
                return redacted, raw
            if not record:
                self.record(raw)  # a 429 waited out: evidence now, as when recorded on arrival
            asked = retry_after_s(raw.response_headers.get("retry-after"))
            if asked is not None and asked > MAX_RETRY_WAIT_S:
                break
            self._pacer.hold(asked if asked is not None else 1)
        raise Blocked("a request within the server's rate limit",
                      f"{raw.method} {urlsplit(raw.url).path} -> 429 (Retry-After {raw.response_headers.get('retry-after')})")

    def _admit(self, request: httpx.Request) -> None:
        """Refuse, before anything is sent or counted, a request outside the service's base
        URLs (conformance/http/origins.py: the other origin receives nothing) and a credential
        that would cross the network in clear text without the profile's consent."""
        url = str(request.url)
        if self._home and not origins.within(url, self._home):
            raise origins.OutsideBase(self._redactor.url(url), self._home)
        if self._plain_http_key and origins.exposed_by_plain_http(url) and self._carries_credential(request):
            origins.refuse_plain_http(self._redactor.url(url), self._plain_http_key)

    def _carries_credential(self, request: httpx.Request) -> bool:
        if self._http.auth is not None or self._has_cert:
            return True
        if any(self._redactor.is_secret_header(name) for name in request.headers):
            return True
        body = request.content or b""
        return bool(body) and self._redactor.body(body, request.headers.get("content-type")) != body

    def _send_once(self, request: httpx.Request, intent: Intent = Intent.VALID,
                   why: str | None = None, record: bool = True) -> tuple[Exchange, Exchange]:
        with self._pacer.slot():
            self._pacer.acquire()
            return self._send_in_slot(request, intent, why, record)

    def _send_in_slot(self, request: httpx.Request, intent: Intent = Intent.VALID,
                      why: str | None = None, record: bool = True) -> tuple[Exchange, Exchange]:
        notes = {} if intent is Intent.VALID else {NOTE: str(intent), **({WHY: why} if why else {})}
        started = time.monotonic()
        origin = _origin(request.url)
        response: httpx.Response | None = None
        body = b""
        run_left = self._pacer.stop.left_s()
        seconds = self.limits.deadline_s if run_left is None else max(0.001, min(self.limits.deadline_s, run_left))
        with bounds.deadline(seconds, pins=self._pins) as within:
            try:
                response = self._http.send(request, stream=True)
                try:
                    bounds.check_head(response, self.limits, origin)
                    body = bounds.read_body(response, self.limits, origin)
                    bounds.check_text_encoding(response.headers.get("content-type"), body, origin)
                    bounds.check_json_depth(body, origin)
                finally:
                    response.close()
            except HttpViolation as violation:
                self._record_violation(request, response, started, violation, body, notes)
                self._violated(violation)
                raise
            except httpx.HTTPError as exc:
                bounds.refuse_untrusted(exc, origin, self._trust)
                violation = bounds.violation_of(exc, answered=response is not None, within=within, origin=origin)
                if violation is None:
                    raise UnreachableError(f"{origin} is unreachable: {type(exc).__name__}: {exc}") from None
                self._record_violation(request, response, started, violation, notes=notes)
                self._violated(violation)
                raise violation from None
        self._pacer.ended(None)
        self._pacer.observe(response.status_code, response.headers)
        if self._on_response is not None:
            self._on_response(response)
        raw = Exchange(
            method=request.method,
            url=str(request.url),
            request_headers=Headers(list(request.headers.multi_items())),
            request_body=request.content or b"",
            status=response.status_code,
            response_headers=Headers(list(response.headers.multi_items())),
            body=body,
            elapsed_ms=(time.monotonic() - started) * 1000,
            notes=notes,
        )
        return (self.record(raw) if record else raw), raw

    def _violated(self, violation: HttpViolation) -> None:
        """A request the run stopped (its deadline cut it short) is no finding of the
        server's; any other violation counts for the service's breaker."""
        stopped = self._pacer.stop.reason()
        if stopped is not None:
            raise Stopped(stopped) from None
        self._pacer.ended(violation)

    def _record_violation(self, request: httpx.Request, response: httpx.Response | None, started: float,
                          violation: HttpViolation, body: bytes = b"", notes: dict[str, str] | None = None) -> None:
        """Evidence for the report: the request, and of the answer what arrived (status 0: none)."""
        self.record(Exchange(
            method=request.method,
            url=str(request.url),
            request_headers=Headers(list(request.headers.multi_items())),
            request_body=request.content or b"",
            status=response.status_code if response is not None else 0,
            response_headers=Headers(list(response.headers.multi_items())) if response is not None else Headers(),
            body=body,  # what was read whole (a body that is not UTF-8), else nothing
            truncated=not body,
            elapsed_ms=(time.monotonic() - started) * 1000,
            notes={**(notes or {}), "violation": violation.message},
        ))

    def record(self, raw: Exchange) -> Exchange:
        """Redact, then record: the only way an exchange enters the harness."""
        self._redactor.learn(raw)
        exchange = self._redactor.exchange(raw)
        self._recorder.record(exchange)
        if self._on_exchange is not None:
            self._on_exchange(exchange)
        return exchange

    def get(self, path: str, **kwargs: object) -> Exchange:
        return self.request("GET", path, **kwargs)  # type: ignore[arg-type]


def _tls_context(cert: tuple[str, str] | None, verify: str | bool) -> ssl.SSLContext:
    """The TLS context of `verify` (True: the public CAs; a path: that CA bundle instead) and
    a client certificate. Verification is never off: `verify=False` is refused, so no
    profile, option or caller can send a secret to a server it has not verified."""
    if verify is False:
        raise ValueError("TLS verification cannot be turned off (name the server's CA in the profile's ca_file)")
    if cert is None and verify is True:
        return _default_context()
    context = ssl.create_default_context(cafile=verify if isinstance(verify, str) else None)
    if cert is not None:
        context.load_cert_chain(certfile=cert[0], keyfile=cert[1])
    return context


@functools.cache
def _default_context() -> ssl.SSLContext:
    """What httpx makes of `verify=True` (its certifi bundle), made once per process: loading
    the bundle costs about 20 ms, and a run makes a client per key and service. Nothing
    changes a context after it is made, so clients and threads share it safely."""
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def _origin(url: httpx.URL) -> str:
    return f"{url.scheme}://{url.host}" + (f":{url.port}" if url.port else "")


def probe(
    base_url: str, timeout_s: float = 5.0, *, cert: tuple[str, str] | None = None, verify: str | bool = True,
    trust: Trust | None = None, path: str = "", headers: dict[str, str] | None = None,
) -> Exchange:
    """Raise UnreachableError when base_url cannot be connected to, or answers nothing at
    all within `timeout_s` (hang, reset). Any answer counts, garbage included: the checks
    then say what is wrong with it. Reads at most one chunk of the body, never decodes it.
    `cert`/`verify` as for ApiClient: a server that demands a client certificate, or has a
    private CA, must not look unreachable; `trust`: the service's CA file and pinned keys -- a
    server the run cannot trust is a configuration error (exit 2) naming the profile key.
    `path` and `headers`: the request to send below base_url (a run probes the address API
    with a valid query). Returns the exchange, raw (the caller redacts it before recording:
    every request a run sends is in its traffic.har), its body cut to what was read."""
    trust = trust or Trust()
    if trust.ca_file and verify is True:
        verify = trust.ca_file
    url = base_url.rstrip("/") + path if path else base_url
    transport = bounds.transport(verify=_tls_context(cert, verify), trust_env=False)
    started = time.monotonic()
    with httpx.Client(timeout=timeout_s, trust_env=False, transport=transport) as client, \
            bounds.deadline(timeout_s, pins=trust.pins) as within:
        answered, status, answer_headers, body = False, 0, Headers(), b""
        request = client.build_request("GET", url, headers=headers)
        try:
            response = client.send(request, stream=True)
            try:
                answered = True
                status, answer_headers = response.status_code, Headers(list(response.headers.multi_items()))
                body = next(iter(response.iter_raw()), b"")
            finally:
                response.close()
        except httpx.HTTPError as exc:
            bounds.refuse_untrusted(exc, base_url, trust)
            violation = bounds.violation_of(exc, answered=answered, within=within, origin=base_url)
            if violation is None or violation.kind in ("no_answer", "reset"):
                why = violation.message if violation is not None else f"{type(exc).__name__}: {exc or 'no answer'}"
                raise UnreachableError(f"{base_url} is unreachable ({why})") from None
    return Exchange(method="GET", url=url, request_headers=Headers(list(request.headers.multi_items())),
                    request_body=b"", status=status, response_headers=answer_headers, body=body, truncated=True,
                    elapsed_ms=(time.monotonic() - started) * 1000, notes={"probe": "the run's reachability probe"})
