"""The token flows of seed 001 part 4, composed of the standard pieces (rfc6749, rfc7636,
rfc7523) and a login driver. Suites build every positive and negative case from these
few steps, changing one parameter at a time.

`AuthTargets` says where the servers are and which clients, users and keys to use; it
comes from the profile (a real environment) or from the launcher (the local mock).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from conformance.auth import rfc7523, rfc7636
from conformance.auth.browser import Browser
from conformance.auth.login import AuthorizationResult, LoginError
from conformance.auth.rfc6749 import TokenEndpoint, TokenResult, authorize_url
from conformance.auth.shared_clock import ClockLedger
from conformance.errors import NotApplicable, NotJudged
from conformance.findings import Blocked
from conformance.http.client import ApiClient
from conformance.http.evidence import step
from conformance.http.exchange import Exchange

FILING_SCOPE = "registry.cto.aanbieden.verzoeken"
INQUIRY_SCOPE = "registry-inzage"
FILING_WSDL_PATH = "/aanbiedenverzoeken/v1/aanbiedenVerzoeken.wsdl"
INQUIRY_PATH = "/registry-inzage/v6"

# The causes of a failed precondition, the same in every check it blocks (summary.json
# groups checks by cause).
CC_CONTROL_CAUSE = "client credentials (valid assertion) -> {}"
EXCHANGE_CAUSE = "code exchange ({} client) -> {}"

DEFAULT: Any = object()  # "use the flow's own value"; None means "leave the field out"


class Clock(Protocol):
    """Server time as the flows need it: the mock's controllable clock, or real time."""

    def now(self) -> float: ...

    def advance(self, seconds: float) -> None: ...


class Driver(Protocol):
    def authorize(self, browser: Browser, authorize_url: str, redirect_uri: str) -> AuthorizationResult: ...


@dataclass
class AuthTargets:
    auth_url: str
    filing_base: str | None  # None: the deployment has no filing API
    inquiry_base: str | None
    audience: str
    redirect_uri: str
    clients: dict[str, str]  # role -> client_id (profiles.AUTH_CLIENTS)
    secrets: dict[str, str]  # secret name -> value (profiles.AUTH_SECRETS); never reported
    # signing material by name (current, next, and the bad-material clients' names)
    signing: dict[str, tuple[Any, str]] = field(default_factory=dict, repr=False)
    # user ("default", "without_role") -> a login driver; empty when the profile cannot log in
    drivers: dict[str, Driver] = field(default_factory=dict, repr=False)
    clock: Clock | None = None
    consent_scope: str | None = None  # a second scope of the confidential client (services.auth.consent_scope)

    def client(self, role: str) -> str:
        client_id = self.clients.get(role)
        if not client_id:
            raise NotJudged(f"no client of the role {role} (services.auth.clients.{role})", "register one and name it there")
        return client_id

    def secret(self, name: str) -> str:
        value = self.secrets.get(name)
        if not value:
            raise NotJudged(f"no {name.replace('_', ' ')}", f"name the variable holding it in services.auth.secrets.{name}")
        return value

    def signing_material(self, name: str) -> tuple[Any, str]:
        if name not in self.signing:
            raise NotJudged(f"no signing material {name}", "give services.auth.keys.pki_dir (`conformance pki init`), "
                            "services.auth.keys.private_key_file with its kid, or services.auth.secrets.private_key")
        return self.signing[name]


@dataclass
class Authorization:
    """One authorization request and what came back."""

    result: AuthorizationResult
    client_id: str
    redirect_uri: str
    state: str
    verifier: str | None = field(repr=False, default=None)
    role: str = "confidential"  # the profile's client role (services.auth.clients)

    @property
    def code(self) -> str | None:
        return self.result.code


class WaitBudget:
    """The real-time waits a run may spend (safety.max_wait_s), shared by every check."""

    def __init__(self, seconds: float) -> None:
        self.total = seconds
        self.spent = 0.0

    def take(self, seconds: float) -> None:
        left = self.total - self.spent
        if seconds > left:
            raise NotJudged("the wait budget (safety.max_wait_s) used up",
                            f"this check would wait {seconds:g} s in real time; the run's wait budget "
                            f"(safety.max_wait_s = {self.total:g} s) has {max(left, 0):g} s left: raise it, "
                            "or give a clock hook (services.auth.clock)")
        self.spent += seconds


class RealClock:
    """Real environments have no clock to move: waiting is the point, so it is opt-in
    (safety.waits) and bounded by the run's wait budget. A wait is recorded in the run's
    ledger: tokens cached before it may have aged (shared_clock.py)."""

    def __init__(self, progress: Callable[[float], None] | None = None, budget: WaitBudget | None = None,
                 ledger: ClockLedger | None = None, *, allowed: bool = True) -> None:
        """`allowed`: the profile's safety.waits, enforced where the wait happens, whatever the
        check declared."""
        self._progress = progress
        self._budget = budget
        self._ledger = ledger or ClockLedger(None)
        self._allowed = allowed

    def now(self) -> float:
        return time.time()

    def advance(self, seconds: float) -> None:
        if not self._allowed:
            raise NotJudged("forbidden by safety.waits = false",
                            f"the check waits {seconds:g} s in real time; set safety.waits = true in a profile for "
                            "an environment the run may wait on, or give its clock hook (services.auth.clock)")
        if self._budget is not None:
            self._budget.take(seconds)
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if self._progress:
                self._progress(left)
            time.sleep(min(1.0, left))  # real-time wait against a real server, not synchronisation
        self._ledger.record(0.0)


class HookClock:
    """A test environment's own time travel (services.auth.clock): one request moves its
    clock `seconds` ahead, the parameter sent as JSON, a form field or a query parameter.
    The move is the environment's, for every process of the run: it goes into the run's
    ledger, which every process reads (shared_clock.py)."""

    def __init__(self, client: ApiClient, url: str, *, method: str = "POST", parameter: str = "advance_s",
                 encoding: str = "json", ledger: ClockLedger | None = None) -> None:
        self._client, self._url, self._method = client, url, method
        self._parameter, self._encoding = parameter, encoding
        self._ledger = ledger or ClockLedger(None)

    def now(self) -> float:
        """The environment's time as moved so far by any process: what assertions must be dated by."""
        return time.time() + self._ledger.read().ahead_s

    def advance(self, seconds: float) -> None:
        value = f"{seconds:g}"
        if self._encoding == "query":
            ex = self._client.request(self._method, self._url, params={self._parameter: value})
        elif self._encoding == "form":
            ex = self._client.request(self._method, self._url, content=f"{self._parameter}={value}".encode(),
                                      headers={"Content-Type": "application/x-www-form-urlencoded"})
        else:
            ex = self._client.request(self._method, self._url, content=json.dumps({self._parameter: seconds}).encode(),
                                      headers={"Content-Type": "application/json"})
        if not 200 <= ex.status < 300:
            raise Blocked("the environment's clock hook moving time", f"clock hook {ex.summary()}")
        self._ledger.record(seconds)


class MockClock:
    """The local mock's clock, moved through its loopback-only endpoint."""

    def __init__(self, client: ApiClient, auth_url: str) -> None:
        self._client = client
        self._url = auth_url.rstrip("/") + "/__mock__/clock"

    def now(self) -> float:
        return float(self._client.request("GET", self._url).json["now"])

    def advance(self, seconds: float) -> None:
        body = json.dumps({"advance_s": float(seconds)}).encode()
        ex = self._client.request("POST", self._url, content=body, headers={"Content-Type": "application/json"})
        if ex.status != 200:
            raise RuntimeError(f"the mock clock did not move: {ex.summary()}")


class AuthFlows:
    """What the suites call. One instance per target environment (or private mock)."""

    def __init__(self, targets: AuthTargets, api: ApiClient, browser_factory: Callable[[], Browser]) -> None:
        self.targets = targets
        self.api = api
        self.token = TokenEndpoint(api, targets.auth_url)
        self._browser_factory = browser_factory
        self._bootstrap_token: str | None = None
        # Client roles whose authorization showed a consent page in this run (this process).
        self.consent_seen: set[str] = set()

    # --- clock ---------------------------------------------------------------------------
    def now(self) -> float:
        return self.targets.clock.now() if self.targets.clock else time.time()

    def advance(self, seconds: float) -> None:
        if self.targets.clock is None:
            raise NotJudged("no clock hook", "give services.auth.clock, or allow real-time waits (safety.waits = true)")
        with step(f"let {seconds:g} s pass"):
            self.targets.clock.advance(seconds)

    # --- authorization code with PKCE ------------------------------------------------------
    def authorize(
        self, *, client: str = "confidential", user: str = "default", scope: str = FILING_SCOPE,
        state: str | None = None, verifier: str | None = DEFAULT, challenge: str | None = DEFAULT,
        method: str | None = "S256", redirect_uri: str | None = None, extra: Sequence[tuple[str, str]] = (),
        response_type: str = "code",
    ) -> Authorization:
        """Run the authorization request through the profile's login driver."""
        driver = self.targets.drivers.get(user)
        if driver is None:
            raise NotJudged(f"no login as the {user.replace('_', ' ')} user",
                            f"give the login driver that user (services.auth.secrets.username_{user}, password_{user})"
                            if user != "default" else "give the profile a login driver (services.auth.login)")
        client_id = self.targets.client(client)
        verifier = rfc7636.generate_verifier() if verifier is DEFAULT else verifier
        if challenge is DEFAULT:
            challenge = rfc7636.s256(verifier) if verifier is not None else None
        state = state if state is not None else secrets.token_urlsafe(24)
        redirect = redirect_uri or self.targets.redirect_uri
        url = authorize_url(
            self.targets.auth_url, client_id=client_id, redirect_uri=redirect, scope=scope, state=state,
            nonce=secrets.token_urlsafe(24), code_challenge=challenge, code_challenge_method=method, extra=extra,
            response_type=response_type,
        )
        with step(f"authorize {client_id} ({scope}), log in, consent, catch the redirect"), self._browser_factory() as browser:
            result = driver.authorize(browser, url, redirect)
        if result.consent_shown:
            self.consent_seen.add(client)
        return Authorization(result, client_id, redirect, state, verifier, client)

    def exchange(
        self, authz: Authorization, *, client: str | None = None, verifier: str | None = DEFAULT,
        redirect_uri: str | None = DEFAULT, client_secret: str | None = DEFAULT, code: str | None = DEFAULT,
    ) -> TokenResult:
        """Redeem the code as the client it was issued to, or as `client` (another role)."""
        role = client or authz.role
        client_id = authz.client_id if role == authz.role else self.targets.client(role)
        if client_secret is DEFAULT:
            client_secret = self.targets.secret("client_secret") if role == "confidential" else None
        with step(f"exchange the code ({client_id})"):
            return self.token.exchange_code(
                code=authz.code if code is DEFAULT else code,
                client_id=client_id,
                redirect_uri=authz.redirect_uri if redirect_uri is DEFAULT else redirect_uri,
                code_verifier=authz.verifier if verifier is DEFAULT else verifier,
                client_secret=client_secret,
            )

    def code_tokens(self, *, client: str = "confidential") -> tuple[Authorization | None, TokenResult]:
        """The happy path up to the token response; a refused authorization blocks the checks
        that start from it (the cause reads the same in each of them). Without a login driver,
        an unattended run starts from the profile's refresh token."""
        if "default" not in self.targets.drivers and self.targets.secrets.get("refresh_token"):
            return None, self._bootstrap()
        authz = self.authorize_for_code(client=client)
        return authz, self.exchange(authz)

    def authorize_for_code(self, **kwargs: Any) -> Authorization:
        """An authorization that a check starts from (a control, or the code a token-endpoint
        case changes one thing of): without a code the check is blocked, never judged."""
        what = f"authorize ({kwargs.get('client', 'confidential')} client)"
        try:
            authz = self.authorize(**kwargs)
        except LoginError as exc:
            raise Blocked("a code from a valid authorization request", f"{what} -> {exc}") from None
        if authz.code is None:
            raise Blocked("a code from a valid authorization request", f"{what} -> {authz.result.answer}")
        return authz

    def _bootstrap(self) -> TokenResult:
        result = self.refresh(self._bootstrap_token or self.targets.secrets["refresh_token"])
        if result.refresh_token:  # a rotating server retires the old one
            self._bootstrap_token = result.refresh_token
        return result

    def refresh(self, refresh_token: str, *, client_secret: str | None = DEFAULT) -> TokenResult:
        if client_secret is DEFAULT:
            client_secret = self.targets.secret("client_secret")
        with step("refresh"):
            result = self.token.refresh(
                refresh_token=refresh_token, client_id=self.targets.client("confidential"), client_secret=client_secret
            )
        # An unattended run starts from one refresh token: a check that refreshes the one the
        # flows hold (its refresh checks do) must not leave them a token the server rotated away.
        if refresh_token == self._bootstrap_token and result.refresh_token:
            self._bootstrap_token = result.refresh_token
        return result

    # --- client credentials with a JWT assertion -----------------------------------------------
    def assertion(
        self, *, material: str = "current", client: str = "client_credentials", now: float | None = None,
        **kwargs: Any,
    ) -> str:
        key, kid = self.targets.signing_material(material)
        kid = kwargs.pop("kid", kid)
        client_id = self.targets.client(client)
        return rfc7523.build_assertion(
            client_id, kwargs.pop("audience", self.targets.audience), key, kid,
            now=self.now() if now is None else now, **kwargs,
        )

    def client_credentials(self, assertion: str, *, scope: str = INQUIRY_SCOPE,
                           client_id: str | None = None) -> TokenResult:
        with step(f"request a token with a client assertion ({scope})"):
            return self.token.client_credentials(assertion=assertion, scope=scope, client_id=client_id)

    def cc_token(self) -> TokenResult:
        """A token from a valid assertion: the precondition of the checks that use one."""
        result = self.client_credentials(self.assertion())
        if not result.issued:
            raise Blocked("a token for a valid client assertion", CC_CONTROL_CAUSE.format(result.answer))
        return result

    # --- the APIs ------------------------------------------------------------------------------
    def call_inquiry(self, token: str | None, *, scheme: str = "Bearer") -> Exchange:
        return self._call(self._api_base("inquiry") + INQUIRY_PATH, token, scheme)

    def call_filing(self, token: str | None, *, scheme: str = "Bearer") -> Exchange:
        return self._call(self._api_base("filing") + FILING_WSDL_PATH, token, scheme)

    def has_api(self, name: str) -> bool:
        """Whether the deployment has this resource server (services.auth.resource_servers)."""
        return bool(getattr(self.targets, f"{name}_base"))

    def _api_base(self, name: str) -> str:
        base = getattr(self.targets, f"{name}_base")
        if not base:
            raise NotApplicable(f"the deployment has no {name} API (services.auth.resource_servers)")
        return base.rstrip("/")

    def _call(self, url: str, token: str | None, scheme: str) -> Exchange:
        headers = {"Authorization": f"{scheme} {token}"} if token is not None else {}
        with step(f"call {url.rsplit('/', 2)[-2]}/{url.rsplit('/', 1)[-1]} " + ("with a token" if token else "without a token")):
            return self.api.request("GET", url, headers=headers)
