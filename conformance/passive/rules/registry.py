"""The registry of passive rules: what a rule is (`rule(check_id, what=...)` registers a
selection function; `exchange_rule(...)` declares a check one exchange can show broken and
its rule in one place), the context rules read, and the helpers rules are written with. The
rule modules (address.py, auth.py, soap.py) import this; the package imports them."""


from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from conformance.checks.registry import Declared, Severity, check, check_by_id
from conformance.profiles import Profile


@dataclass(frozen=True)
class Selection:
    items: list[Any]                       # what the rule applies to in this traffic
    apply: Callable[[Any], None]           # raises a Finding when an item breaks the rule
    label: Callable[[Any], str] = lambda item: item.label
    exchange: Callable[[Any], Any] = lambda item: item.exchange


@dataclass
class Context:
    """What rules need besides the traffic: the profile, the WSDL it names (loaded once), and
    the client's published JWKS when the profile names its URI (fetched once)."""

    profile: Profile
    _contract: Any = field(default=None, repr=False)

    @cached_property
    def _jwks(self) -> list[Any]:
        """The JWKS at services.auth.keys.jwks_uri: one GET, through the bounded client, to
        that URL only (a passive run sends nothing else). An answer that is no JWKS is
        judged as one with no keys."""
        service = self.profile.auth
        if service is None or not service.jwks_uri:
            return []
        from conformance.http.client import ApiClient, DiscardingRecorder
        from conformance.http.redaction import Redactor
        from conformance.passive.auth_facts import AuthExchange

        client = ApiClient(service.jwks_uri, redactor=Redactor(), recorder=DiscardingRecorder(),
                           timeout_s=service.timeout_s, home=[service.jwks_uri], trust=service.trust)
        try:
            answer = client.get(service.jwks_uri)
        finally:
            client.close()
        document = answer.json if answer.status == 200 and isinstance(answer.json, dict) else {}
        return [AuthExchange(answer, "jwks", {"jwks": document})]

    def client_jwks(self) -> list[Any]:
        return self._jwks

    @cached_property
    def soap_contract(self) -> Any:
        """The WSDL the active SOAP suite loaded (`Context(profile, suite.contract)`), else the profile's."""
        if self._contract is not None:
            return self._contract
        from pathlib import Path

        from conformance.errors import NotApplicable
        from conformance.soap.loader import load_contract

        service = self.profile.soap
        if service is None:
            raise NotApplicable(f"profile {self.profile.name} has no SOAP message service")
        return load_contract(Path(service.wsdl) if service.wsdl else None, soap_url=service.base_url or "",
                             soap_action_base=service.soap_action_base)


@dataclass(frozen=True)
class Rule:
    check: str
    what: str
    select: Callable[[Any, Context], Selection]

    @property
    def observes(self) -> str:
        return check_by_id(self.check).observes


RULES: dict[str, Rule] = {}


def rule(check: str | Declared, *, what: str) -> Callable[[Callable[[Any, Context], Selection]],
                                                          Callable[[Any, Context], Selection]]:
    """Register the rule that judges `check` on observed traffic: the id of a check declared
    where it is also judged on requests of the harness's own (suites/), or the declaration
    itself, for a check only traffic can judge (a client's requests)."""
    check = check.id if isinstance(check, Declared) else check

    def register(select: Callable[[Any, Context], Selection]) -> Callable[[Any, Context], Selection]:
        if check in RULES:
            raise ValueError(f"two passive rules for {check}")
        RULES[check] = Rule(check, what, select)
        return select
    return register


def each(items: Iterable[Any], apply: Callable[[Any], None], **kw: Any) -> Selection:
    return Selection(list(items), apply, **kw)


def on_exchange(check: Callable[[Any], None]) -> Callable[[Any], None]:
    """A check function of one Exchange, applied to an observed item (which holds one)."""
    return lambda item: check(item.exchange)


@dataclass(frozen=True)
class ExchangeRule:
    """A check one exchange can show broken, as one function (issue 52): `judge(item, ctx)`
    raises a Finding for an observed item it `applies` to. The passive run judges every item
    of the traffic it applies to; the active suite of its service (suites/<service>/
    test_exchange_rules.py) sends each of its `elicit` scenarios and judges the answer."""

    check: str
    severity: Severity
    service: str  # the Traffic list it reads: "address", "auth" or "soap"
    what: str
    applies: Callable[[Any, Context], bool]
    judge: Callable[[Any, Context], None]
    # scenario name -> how the active suite elicits one: the address API's take the address_api
    # fixture (api -> Exchange), the authorization server's a fixture getter (name -> value),
    # the SOAP service's its SoapSuite and a judge of each answer (rules/soap.py).
    elicit: dict[str, Callable[[Any], Any]]


EXCHANGE_RULES: dict[str, ExchangeRule] = {}
# The suites that send the scenarios of their service's exchange rules (suites/<service>/
# test_exchange_rules.py).
ACTIVE_EXCHANGE_SUITES = ("address", "auth", "soap")


def exchange_rule(check_id: str, severity: Severity, title: str, *, requirements: Iterable[str], what: str,
                  applies: Callable[[Any, Context], bool], elicit: dict[str, Callable[[Any], Any]],
                  service: str = "address", proven_by: Iterable[str] = (), may_fail_under: Iterable[str] = (),
                  sends: Iterable[str] = ("valid",), feature: str = "",
                  downgrade_reason: str = "") -> Callable[[Callable[[Any, Context], None]], Callable[[Any, Context], None]]:
    """Declare a check one exchange can show broken, with its rule, where it is judged: the
    declaration (as `check`, observes="exchange"), which observed items it `applies` to
    (`what` names them in a finding), and the scenarios that `elicit` such an answer from a
    server (each an `api -> Exchange`; the active run sends them). `sends` says what those
    scenarios send, as for any check."""
    if not elicit:
        raise ValueError(f"exchange rule {check_id!r} names no scenario that elicits it")
    if service not in ACTIVE_EXCHANGE_SUITES:
        raise ValueError(f"exchange rule {check_id!r}: the {service} suite has no test_exchange_rules.py to send "
                         "its scenarios; declare it on a test of its own, with a `rule` over traffic")
    declared = check(check_id, severity, title, requirements=requirements, proven_by=proven_by,
                     may_fail_under=may_fail_under, sends=sends, observes="exchange", feature=feature,
                     downgrade_reason=downgrade_reason)

    def register(judge: Callable[[Any, Context], None]) -> Callable[[Any, Context], None]:
        def select(traffic: Any, ctx: Context) -> Selection:
            return each([item for item in getattr(traffic, service) if applies(item, ctx)],
                        lambda item: judge(item, ctx))

        rule(declared, what=what)(select)
        EXCHANGE_RULES[check_id] = ExchangeRule(check_id, severity, service, what, applies, judge, dict(elicit))
        return judge
    return register


def exchange_rules(service: str) -> list[ExchangeRule]:
    """The exchange rules of one service, by check id."""
    return sorted((r for r in EXCHANGE_RULES.values() if r.service == service), key=lambda r: r.check)
