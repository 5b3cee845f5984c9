"""Observed traffic sorted by the service of the profile it belongs to.

An exchange belongs to the address API when its URL lies below the profile's address
`base_url`; for a profile without one (the local mock's), when its path ends in one of the
seed's operation templates (part 4), the prefix before it being the base path. Exchanges
of no service of the profile are counted and left alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from conformance.errors import ConfigError
from conformance.http.exchange import Exchange
from conformance.http.redaction import Redactor
from conformance.openapi.operations import operation_of_request
from conformance.passive.auth_facts import AuthExchange, classify
from conformance.passive.har import HAR_BUDGET_S, iter_har
from conformance.profiles import Profile


@dataclass(frozen=True)
class AddressExchange:
    exchange: Exchange
    relative: str          # the path below the base URL (`/adressen/0363...`)
    operation: str | None  # the seed's operation name, None for a path the seed does not have

    @property
    def label(self) -> str:
        ex = self.exchange
        query = f"?{ex.raw_query}" if ex.raw_query else ""
        return f"{ex.method} {self.relative}{query} -> {ex.status}"


@dataclass(frozen=True)
class SoapExchange:
    exchange: Exchange

    @property
    def label(self) -> str:
        ex = self.exchange
        return f"{ex.method} {urlsplit(ex.url).path} SOAPAction {ex.request_headers.get('soapaction')} -> {ex.status}"


def is_soap(ex: Exchange, url: str | None) -> bool:
    """The message service's exchange: below its URL, or (a mock profile) a request that says
    it is SOAP (a SOAPAction header, or a text/xml body holding an Envelope)."""
    if url:
        return ex.url.split("?")[0].rstrip("/") == url.rstrip("/")
    media = (ex.request_headers.get("content-type") or "").lower()
    return "soapaction" in {k.lower() for k, _ in ex.request_headers.items()} or (
        media.startswith("text/xml") and b"Envelope" in ex.request_body[:4096])


@dataclass
class Traffic:
    address: list[AddressExchange] = field(default_factory=list)
    auth: list[AuthExchange] = field(default_factory=list)
    soap: list[SoapExchange] = field(default_factory=list)
    other: int = 0
    files: list[str] = field(default_factory=list)


def _address_relative(ex: Exchange, base_url: str | None) -> str | None:
    path = urlsplit(ex.url).path
    if base_url:
        base = urlsplit(base_url)
        if urlsplit(ex.url).netloc != base.netloc or not path.startswith(base.path.rstrip("/")):
            return None
        return path[len(base.path.rstrip("/")):] or "/"
    # No base URL: the longest tail of the path that is one of the seed's operations.
    segments = path.split("/")
    for start in range(1, len(segments)):
        tail = "/" + "/".join(segments[start:])
        if operation_of_request(tail) is not None:
            return tail
    return None


def address_exchange(ex: Exchange, base_url: str | None) -> AddressExchange | None:
    """An exchange of the address API below `base_url`, as the traffic holds it (None: not
    below it): what an exchange rule judges, in an active run as in a passive one."""
    relative = _address_relative(ex, base_url)
    if relative is None:
        return None
    return AddressExchange(ex, relative, operation_of_request(relative) if ex.method == "GET" else None)


def auth_exchange(ex: Exchange) -> AuthExchange | None:
    """An exchange with the authorization server or its resource servers, as the traffic holds
    it (None: none of theirs): what an exchange rule of the authorization server judges."""
    facts = classify(ex)
    return AuthExchange(ex, *facts) if facts is not None else None


def load_traffic(files: list[str], profile: Profile, redactor: Redactor, *,
                 budget_s: float = HAR_BUDGET_S) -> Traffic:
    """Every exchange of the HAR files, redacted (whatever the capture held, nothing secret
    reaches a report), sorted by service. Two passes: every secret of every file is learned
    before anything is redacted, so a secret echoed before the request that carries it (or
    in another file) is masked too. Each file is read, learned, redacted and sorted within
    `budget_s` seconds (conformance/passive/har.py iter_har); a ConfigError says which file
    and entry could not be."""
    traffic = Traffic(files=[str(Path(f)) for f in files])
    captured: list[tuple[str, list[Exchange]]] = []
    for file in files:
        raw = []
        for index, exchange in enumerate(iter_har(file, budget_s=budget_s)):
            _guarded(redactor.learn, exchange, file, index)
            raw.append(exchange)
        captured.append((file, raw))
    for file, raw in captured:
        raw.reverse()  # taken from the end: each raw exchange is let go once it is redacted
        for index in range(len(raw)):
            _guarded(lambda ex: sort_into(traffic, ex, profile, redactor, learned=True), raw.pop(), file, index)
    return traffic


def _guarded(step, exchange: Exchange, file: str, index: int) -> None:
    try:
        step(exchange)
    except RecursionError:
        # A body nested deeper than a reader of it can follow: the readers bound the depth
        # they read (conformance/http/exchange.py parse_json); should one not, the file is
        # refused naming the entry, rather than the run ending in a traceback.
        raise ConfigError(f"{file}: log.entries[{index}] could not be read (a body nested too deep)") from None


def load_run_traffic(report_dir: str, profile: Profile, redactor: Redactor) -> Traffic:
    """The exchanges an active run has recorded (already redacted), sorted by service: what
    its rules of one exchange judge at its end, as `conformance traffic` judges its traffic.har."""
    from conformance.passive.har import TrafficLog

    traffic = Traffic(files=[])
    for exchange in TrafficLog.read(report_dir):
        sort_into(traffic, exchange, profile, redactor, redacted=True)
    return traffic


def sort_into(traffic: Traffic, raw: Exchange, profile: Profile, redactor: Redactor, *, redacted: bool = False,
              learned: bool = False) -> None:
    """One raw exchange into the traffic: redacted, with the facts of its raw values that
    are not secret, under the service it belongs to. `redacted`: the exchange was masked
    when it was recorded (a run's own), and is not masked again; `learned`: the redactor has
    learned its secrets already (load_traffic's first pass)."""
    address, soap = profile.address, profile.soap
    base_url = address.base_url if address is not None and not address.mock else None
    soap_url = soap.base_url if soap is not None and not soap.mock else None
    if not redacted and not learned:
        redactor.learn(raw)
    ex = raw if redacted else redactor.exchange(raw)
    if soap is not None and is_soap(ex, soap_url):
        traffic.soap.append(SoapExchange(ex))
        return
    auth = classify(raw) if profile.auth is not None else None  # facts from the raw exchange, none secret
    if auth is not None:
        traffic.auth.append(AuthExchange(ex, *auth))
        return
    item = address_exchange(ex, base_url) if address is not None else None
    if item is None:
        traffic.other += 1
        return
    traffic.address.append(item)
