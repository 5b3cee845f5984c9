"""Before the first check: does each server accept the credentials the profile names?

A key or client secret the server refuses is the most common configuration mistake, and
without this it reads as a broken server: every check that uses it fails or is blocked
with "expected 200, actual 401". So the run's configure step (controller only, once per
run) sends one request per credential and stops with exit 2 (ConfigError) when the server
refuses the credential itself, naming the profile key, its environment variable and the
server's answer (redacted: the exchanges go through the run's bounded, redacting client).

* address API: each key of services.address.secrets (api_key, restricted_api_key,
  limited_api_key, quota_api_key), one GET each; refused: 401 (the seed's code
  `authentication`). Any other answer, 403 included (a restricted key is known but lacks
  rights), shows the key was accepted. The main key (api_key) must also have the rights of
  the operations the run calls: a valid request of each kind the profile's samples allow
  (the two searches, and the lookups of one address, one extended address and one
  addressable object), and a 403 to any of them (the seed's code `autorisation`) is a
  configuration error naming services.address.secrets.api_key: every check would be
  refused for want of rights, most likely because the restricted key was configured as the
  main one (issue 51).
* authorization server: each client the run uses. The confidential client's secret and the
  public client's id (a code exchange with a code that does not exist: a server that knows
  the client says `invalid_grant`, one that does not accept it says `invalid_client`, RFC
  6749 5.2) and the client-credentials key (a token request with a valid assertion);
  refused: `invalid_client`; a client the server knows but says may not use the grant or
  the scope the run uses (`unauthorized_client`, `invalid_scope`) is refused too, naming
  services.auth.clients.<role> (issue 51). `invalid_client` for the key is not refused when the profile
  names no audience and the same key is accepted with the token endpoint's URL as `aud`:
  then the server refuses the seed's `aud` form, which auth.cc.valid_assertion_accepted
  judges (a verdict on the server, not a configuration error).

Not shown here, left to the checks (which then block with one root cause): a login (the
test users' passwords need the login driver, a browser's walk), a refresh token (using it
may retire it) and the SOAP message service's credentials. Only services with `mock = false`
are asked: a mock's credentials are the launcher's own, and a fault that refuses them is
for its check to find. The requests count against the run's rate and request budget; an
unreachable server stays exit 3 (UnreachableError); an answer that shows nothing (a time-out,
a budget already spent) lets the run go on.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from conformance.errors import ConfigError, NotApplicable
from conformance.findings import Blocked
from conformance.http.client import ApiClient, DiscardingRecorder, Pacer, Recorder, ServiceBounds
from conformance.http.exchange import Exchange
from conformance.http.limits import HttpViolation
from conformance.http.redaction import Redactor
from conformance.http.schedule import Schedule
from conformance.profiles import AddressService, AuthService, Profile

# secret name (services.address.secrets) -> the key kind AddressApi sends it as
_ADDRESS_KEYS = {"api_key": "valid", "restricted_api_key": "restricted", "limited_api_key": "limited",
                 "quota_api_key": "quota"}
# (schedule, bounds) of a service: the run's, so these requests count like any other
Run = Callable[[str], tuple[Schedule | None, ServiceBounds | None]]


@dataclass(frozen=True)
class Refusal:
    service: str  # the user's word: "address API", "authorization server"
    credential: str  # what it is, with its profile key and variable
    answer: str  # the server's answer, redacted

    def __str__(self) -> str:
        return f"the {self.service} refused {self.credential}: {self.answer}"


def check_credentials(profile: Profile, urls: dict[str, str], secret_values: dict[str, str],
                      services: Iterable[str], run: Run, *, log: Callable[[str], None] | None = None,
                      recorder: Recorder | None = None) -> set[str]:
    """ConfigError naming every refused credential; else the services that gave no answer in
    time (the run need not ask them again before its checks). `secret_values`: env var ->
    value; `services`: those the run uses; `recorder`: where the requests are recorded (a
    run's traffic.har: every request it sends is there)."""
    recorder = recorder or DiscardingRecorder()
    say = log or (lambda line: print(f"conformance: {line}", file=sys.stderr))
    refused: list[Refusal] = []
    silent: set[str] = set()
    wanted = set(services)
    if profile.address is not None and not profile.address.mock and "address" in wanted and "address" in urls:
        refused += _address(profile, profile.address, urls["address"], secret_values, run, say, silent, recorder)
    if profile.auth is not None and not profile.auth.mock and "auth" in wanted:
        refused += _auth(profile, profile.auth, secret_values, run, say, recorder)
    if refused:
        raise ConfigError("credentials refused before the first check (a configuration error, not a verdict "
                          "on the server):\n  " + "\n  ".join(str(r) for r in refused))
    return silent


def _address(profile: Profile, service: AddressService, base_url: str, secret_values: dict[str, str], run: Run,
             say: Callable[[str], None], silent: set[str] | None = None,
             recorder: Recorder | None = None) -> list[Refusal]:
    from conformance.samples.session import BASE_PROBES, address_api

    schedule, bounds = run("address")
    api = address_api(profile, base_url, secret_values, schedule=schedule, bounds=bounds, recorder=recorder)
    sample = service.samples.get("nummeraanduiding")
    # A valid request a conforming server answers 200 (never one designed to be refused).
    path, params = (f"/adressen/{sample}", None) if sample else (BASE_PROBES[0][0], list(BASE_PROBES[0][1].items()))
    refused = []
    try:
        for name, env_var in service.secret_env.items():
            kind = _ADDRESS_KEYS.get(name)
            if kind is None or not api.has_key(kind):
                continue
            ex = _shown(lambda kind=kind: api.get(path, params=params, key=kind), f"address API {name}", say)
            if ex is None:  # no answer in time: the next key would wait as long; the checks say why
                if silent is not None:
                    silent.add("address")
                break
            if ex.status == 401:
                refused.append(Refusal("address API", _named(f"the {name.replace('_', ' ').replace('api key', 'API key')}",
                                                             f"services.address.secrets.{name}", env_var),
                                       _address_answer(ex)))
            elif name == "api_key":
                refused += _main_key_rights(api, service, env_var, (path, params), ex, say)
    finally:
        api.close()
    return refused


def _main_key_rights(api: Any, service: AddressService, env_var: str, sent: tuple[str, Any], first: Exchange,
                     say: Callable[[str], None]) -> list[Refusal]:
    """The main key's rights: the first answer (already had), then the other operations the
    samples allow, each a valid request; stopped at the first 403 or an answer that shows
    nothing. One Refusal naming the key and the operations refused, or none."""
    from conformance.samples.session import BASE_PROBES

    requests = [(path, list(params.items())) for path, params in BASE_PROBES]
    for sample, template in (("nummeraanduiding", "/adressen/{}"), ("nummeraanduiding", "/adressenuitgebreid/{}"),
                             ("verblijfsobject", "/adresseerbareobjecten/{}")):
        if service.samples.get(sample):
            requests.append((template.format(service.samples[sample]), None))
    answers = [first]
    for path, params in requests:
        if answers[-1].status in (403, 404):  # 404: the base URL misses the API, which its own check says
            break
        if (path, params) == sent:
            continue
        ex = _shown(lambda path=path, params=params: api.get(path, params=params), "address API api_key", say)
        if ex is None:
            break
        answers.append(ex)
    forbidden = [ex for ex in answers if ex.status == 403]
    if not forbidden:
        return []
    what = _named("the main API key", "services.address.secrets.api_key", env_var,
                  "it lacks the rights of operations the run calls, so every check of them would be refused for "
                  "that: was the restricted key (restricted_api_key) configured as the main one?")
    return [Refusal("address API", what, "; ".join(_address_answer(ex) for ex in forbidden))]


def _auth(profile: Profile, service: AuthService, secret_values: dict[str, str], run: Run,
          say: Callable[[str], None], recorder: Recorder | None = None) -> list[Refusal]:
    from conformance.auth import rfc7636
    from conformance.auth.flows import INQUIRY_SCOPE, AuthFlows
    from conformance.auth.targets import build_targets

    targets = build_targets(service, info={}, secrets=secret_values, clock=None)
    schedule, bounds = run("auth")
    api = ApiClient(targets.auth_url, redactor=Redactor(secret_values.values()), recorder=recorder or DiscardingRecorder(),
                    pacer=Pacer(profile.limits.requests_per_second, profile.limits.request_budget,
                                schedule=schedule, bounds=bounds),
                    timeout_s=service.timeout_s, limits=profile.limits.http(), home=service.bases, trust=service.trust)
    flows = AuthFlows(targets, api, _no_browser)
    refused = []
    try:
        secret, client_id = targets.secrets.get("client_secret"), targets.clients.get("confidential")
        if secret and client_id:
            result = _shown(lambda: flows.token.exchange_code(
                code="preflight-" + secrets.token_urlsafe(16), client_id=client_id, client_secret=secret,
                redirect_uri=targets.redirect_uri, code_verifier=rfc7636.generate_verifier()),
                "the confidential client's secret", say)
            if result is None:  # no answer in time: asking again would wait as long; the checks say why
                return refused
            if result.error == "invalid_client":
                what = _named("the confidential client's secret", "services.auth.secrets.client_secret",
                              service.secret_env["client_secret"],
                              f"client {client_id}, services.auth.clients.confidential")
                refused.append(Refusal("authorization server", what, result.answer))
            refused += _registration(result, "confidential", client_id, "the authorization code grant")
        public = targets.clients.get("public")
        if public:
            result = _shown(lambda: flows.token.exchange_code(
                code="preflight-" + secrets.token_urlsafe(16), client_id=public, redirect_uri=targets.redirect_uri,
                code_verifier=rfc7636.generate_verifier()), "the public client", say)
            if result is not None and result.error == "invalid_client":
                refused.append(Refusal("authorization server", _named(
                    "the public client", "services.auth.clients.public", None,
                    f"client {public}: a server that knows it as a public client says invalid_grant"), result.answer))
            refused += _registration(result, "public", public, "the authorization code grant")
        if "current" in targets.signing and targets.clients.get("client_credentials"):
            result = _shown(lambda: flows.client_credentials(flows.assertion()), "the client-credentials key", say)
            if result is not None and result.error == "invalid_client" and not _key_accepted_elsewhere(
                    service, targets, flows, say):
                refused.append(Refusal("authorization server", _client_key(service, targets.clients), result.answer))
            refused += _registration(result, "client_credentials", targets.clients["client_credentials"],
                                     f"the client credentials grant with scope {INQUIRY_SCOPE!r}")
    finally:
        api.close()
    return refused


# RFC 6749 5.2: the errors that speak of the client's registration, not of the request.
_REGISTRATION_ERRORS = {
    "unauthorized_client": "is not authorized to use {grant}",
    "invalid_scope": "is not registered for {grant}",
}


def _registration(result: Any, role: str, client_id: str, grant: str) -> list[Refusal]:
    """A refusal naming services.auth.clients.<role> when the server says the client may not
    use the grant or scope the run uses: every check of that client would be refused for it."""
    why = _REGISTRATION_ERRORS.get(getattr(result, "error", None) or "")
    if why is None:
        return []
    what = _named(f"the {role.replace('_', '-')} client", f"services.auth.clients.{role}", None,
                  f"client {client_id} " + why.format(grant=grant))
    return [Refusal("authorization server", what, result.answer)]


def _key_accepted_elsewhere(service: AuthService, targets: Any, flows: Any, say: Callable[[str], None]) -> bool:
    """Whether a refusal of the seed's `aud` form is the server's, not the key's: with no
    audience in the profile the assertion carries the seed's `{auth_host}:443/auth/oauth/v2/token`,
    which a server may refuse while it accepts the key (it then fails the MUST check
    auth.cc.valid_assertion_accepted: a verdict on the server, not a configuration error).
    One assertion with the token endpoint's URL as `aud` (RFC 7523 3, the form most servers
    take) tells the two apart: accepted, the key is known and the run goes on."""
    from conformance.auth.rfc7523 import TOKEN_PATH

    if service.audience:  # the profile chose the aud: its refusal is the profile's to fix
        return False
    token_url = targets.auth_url.rstrip("/") + TOKEN_PATH
    result = _shown(lambda: flows.client_credentials(flows.assertion(audience=token_url)),
                    "the client-credentials key (aud the token endpoint URL)", say)
    if result is None or not result.issued:
        return False
    say(f"the authorization server refuses the seed's assertion aud {targets.audience} but accepts the "
        f"client-credentials key with aud {token_url}: the checks judge it (auth.cc.valid_assertion_accepted)")
    return True


def _shown(send: Callable[[], Any], what: str, say: Callable[[str], None]) -> Any:
    """The answer, or None when the request showed nothing (the checks will say why)."""
    try:
        return send()
    except (HttpViolation, Blocked, NotApplicable) as exc:
        say(f"{what}: acceptance not shown before the run ({exc})")
        return None


def _no_browser() -> Any:
    raise NotApplicable("the credential check logs nobody in")


def _named(what: str, key: str, env_var: str | None, note: str = "") -> str:
    return f"{what} (profile key {key}" + (f", environment variable {env_var}" if env_var else "") \
        + (f"; {note})" if note else ")")


def _client_key(service: AuthService, clients: dict[str, str]) -> str:
    client = f"client {clients['client_credentials']}, services.auth.clients.client_credentials"
    what = "the client-credentials key (its signed assertion)"
    if service.private_key_file:
        return _named(what, "services.auth.keys.private_key_file", None, f"kid {service.kid}; {client}")
    if service.secret_env.get("private_key"):
        return _named(what, "services.auth.secrets.private_key", service.secret_env["private_key"],
                      f"kid {service.kid}; {client}")
    return _named(what, "services.auth.keys.pki_dir", None, f"the test PKI's current key; {client}")


def _address_answer(ex: Exchange) -> str:
    """GET /path -> 401 authentication "title": the redacted exchange, without the host."""
    body = ex.json if isinstance(ex.json, dict) else {}
    parts = [f"{ex.method} {ex.path} -> {ex.status}"]
    parts += [str(body[k]) for k in ("code",) if isinstance(body.get(k), str)]
    parts += [f'"{body[k]}"' for k in ("title", "detail") if isinstance(body.get(k), str)]
    return " ".join(parts)
