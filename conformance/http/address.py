"""The address API as the suites see it: a recorded client plus keys, samples and header names."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from urllib.parse import parse_qsl

import httpx

from conformance.errors import NotJudged
from conformance.findings import Blocked
from conformance.http.client import ApiClient, Pacer, Recorder, ServiceBounds
from conformance.http.exchange import Exchange, decimal_integer, from_schemathesis
from conformance.http.intent import Intent, Switches
from conformance.http.redaction import Redactor
from conformance.http.schedule import Schedule
from conformance.openapi.operations import operation_of_request
from conformance.profiles import ADDRESS_SAMPLES, AddressService, Limits

KEY_KINDS = ("valid", "restricted", "limited", "quota", "none", "invalid")
# How a sample object is looked up by its id (design.md "Samples"); samples that are no
# object id (bbox, historie_datum), that must not exist (unknown_*) or that have no lookup
# of their own in the seed (woonplaats, openbareruimte, pand) are not looked up.
_ADDRESS, _OBJECT = "/adressen/{}", "/adresseerbareobjecten/{}"
SAMPLE_LOOKUPS: dict[str, tuple[str, dict[str, str]]] = {
    "nummeraanduiding": (_ADDRESS, {}),
    "nummeraanduiding_nevenadres": (_ADDRESS, {}),
    "nummeraanduiding_eindstatus": (_ADDRESS, {"inclusiefEindStatus": "true"}),
    "verblijfsobject": (_OBJECT, {}),
    "verblijfsobject_nevenadres": (_OBJECT, {}),
    "verblijfsobject_panden": (_OBJECT, {}),
    "ligplaats": (_OBJECT, {}),
    "standplaats": (_OBJECT, {}),
    "adresseerbaarobject_eindstatus": (_OBJECT, {}),
    "adresseerbaarobject_historie": (_OBJECT, {}),
}


def sample_cause(name: str, value: str, path: str, ex: Exchange, what: str = "") -> str:
    """The one cause string of a sample that cannot be used, for every check it blocks:
    the sample, the lookup (`path` relative to the base URL), its status and code, and
    `what` the answer lacks when the status was right."""
    code = ex.json.get("code") if isinstance(ex.json, dict) else None
    seen = " ".join(filter(None, [str(ex.status), code if isinstance(code, str) else None, what]))
    return f"sample {name} {value}: GET {path} -> {seen}"
_KEY_SECRET = {"valid": "api_key", "restricted": "restricted_api_key", "limited": "limited_api_key", "quota": "quota_api_key"}


# The seed's rules for the client: (method, operation, query, headers, key=, restricted=) -> why refused, or None.
Refusal = Callable[..., str | None]

# Keys the rate-limit and quota checks exhaust on purpose: unpaced, 429s not waited out.
FLOOD_KEYS = ("limited", "quota")


class AddressApi:
    def __init__(
        self,
        service: AddressService,
        *,
        base_url: str,
        keys: Mapping[str, str],
        samples: Mapping[str, str],
        limits: Limits,
        redactor: Redactor,
        recorder: Recorder,
        schedule: Schedule | None = None,
        bounds: ServiceBounds | None = None,
        switches: Switches | None = None,
        refusal: Refusal | None = None,
    ) -> None:
        """`schedule`: the run's shared schedule, so the profile's rate and budget hold for all
        xdist workers together (none: this process alone keeps them); `bounds`: the run's on
        the service (in flight, breaker, stop: conformance/http/client.py ServiceBounds);
        `switches`: the profile's safety switches; `refusal`: the seed's rules for the client
        (conformance/checks/client/requests.py `refusal`), by which every request is read:
        one that breaks them is designed to be refused (conformance/http/intent.py)."""
        self.service = service
        self.base_url = base_url.rstrip("/")
        self.samples = dict(samples)
        self._keys = dict(keys)  # secret name -> value
        self._verified: dict[str, str | None] = {}  # sample name -> cause of its failed lookup
        self._invalid_key = "invalid-" + secrets.token_hex(12)
        redactor.add_secret(self._invalid_key)
        redactor.add_header(service.api_key_header)
        self._pacer = Pacer(limits.requests_per_second, limits.request_budget, schedule=schedule, bounds=bounds)
        self._reserve = limits.daily_quota_reserve
        # The key goes only below the base URL (and the deployment's maintenance URL): a link
        # of an answer that points elsewhere is not followed (conformance/http/origins.py).
        self._home = [self.base_url, *(u for u in service.bases if u != service.base_url)]
        self._refusal = refusal
        classify = self._classify if refusal is not None else None
        self._client = ApiClient(
            self.base_url,
            redactor=redactor,
            recorder=recorder,
            pacer=self._pacer,
            timeout_s=service.timeout_s,
            default_headers={"Accept": "application/hal+json"},
            on_response=self._guard_quota,
            limits=limits.http(),
            retry_rate_limited=True,  # a 429 is waited out: the rate limit decides no check but its own
            on_exchange=self._judge_schema,
            home=self._home,
            trust=service.trust,
            switches=switches,
            classify=classify,
        )
        # The checks that provoke 429 on purpose (floods) use their own keys, unpaced and
        # never retried, while everything else stays paced.
        self._flood_client = ApiClient(
            self.base_url,
            redactor=redactor,
            recorder=recorder,
            pacer=Pacer(0.0, limits.request_budget, adaptive=False, schedule=schedule, bounds=bounds),
            timeout_s=service.timeout_s,
            default_headers={"Accept": "application/hal+json"},
            limits=limits.http(),
            on_exchange=self._judge_schema,
            home=self._home,
            trust=service.trust,
            switches=switches,
        )

    def _classify(self, request: httpx.Request) -> str | None:
        """Why this request is one the address API refuses by the seed's rules for the client."""
        assert self._refusal is not None
        url = str(request.url).split("?", 1)[0]
        base = next((b for b in sorted(self._bases(), key=len, reverse=True) if url.startswith(b)), "")
        relative = url[len(base):] or "/"
        value = request.headers.get(self.service.api_key_header)
        key = "none" if not value else next((kind for kind, secret in _KEY_SECRET.items()
                                             if self._keys.get(secret) == value), "invalid")
        restricted = any(relative == p or relative.startswith(p.rstrip("/") + "/") for p in self.restricted_paths)
        query = parse_qsl(request.url.query.decode("ascii", "replace") if isinstance(request.url.query, bytes)
                          else str(request.url.query), keep_blank_values=True)
        return self._refusal(request.method, operation_of_request(relative), query, dict(request.headers),
                             key=key, restricted=restricted)

    def _bases(self) -> list[str]:
        return [b.rstrip("/") for b in self._home]

    def add_base(self, url: str) -> None:
        """A base URL the harness itself started (a private local mock in maintenance) that
        the key may go to as well."""
        self._home.append(url.rstrip("/"))
        for client in (self._client, self._flood_client):
            client.add_home(url)

    def _judge_schema(self, exchange: Exchange) -> None:
        """Every answer, whoever asked (a check, fuzzing, sample validation, discovery), is
        judged against its operation's response schema while a run watches
        (conformance/openapi/responses.py; check address.response.schema_valid)."""
        from conformance.openapi import responses

        responses.observe(self.service, self.base_url, exchange)

    def close(self) -> None:
        self._client.close()
        self._flood_client.close()

    def header(self, seed_name: str) -> str:
        return self.service.header(seed_name)

    @property
    def restricted_paths(self) -> tuple[str, ...]:
        """Paths (relative to the base URL) the restricted key may not use: a deployment
        fact, from the profile's `services.address.restricted_paths`."""
        return self.service.restricted_paths

    def sample(self, name: str, *, verify: bool = True) -> str:
        """The sample's value. A sample object the API can look up by id is fetched once
        per run first: when that fails, every check starting from it is blocked with one
        cause ("sample nummeraanduiding 0363...: GET /adressen/0363... -> 404"), instead of
        failing dozens of unrelated check ids. A check whose own rule is that lookup
        passes `verify=False` and judges the answer itself."""
        value = self.samples.get(name)
        if not value:
            raise NotJudged(f"no sample {name}", f"name one as services.address.samples.{name} "
                            f"({ADDRESS_SAMPLES.get(name, 'see the README, Samples')}): `conformance discover` finds them")
        if verify and name in SAMPLE_LOOKUPS:
            if name not in self._verified:
                path, params = SAMPLE_LOOKUPS[name]
                ex = self.get(path.format(value), params=params)
                self._verified[name] = None if ex.status == 200 else sample_cause(name, value, path.format(value), ex)
            cause = self._verified[name]
            if cause is not None:
                raise Blocked(f"the sample {name} exists", cause)
        return value

    def has_key(self, kind: str) -> bool:
        return kind in ("none", "invalid") or bool(self._keys.get(_KEY_SECRET[kind]))

    def get(
        self,
        path: str,
        params: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        key: str = "valid",
    ) -> Exchange:
        return self.request("GET", path, params=params, headers=headers, key=key)

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        key: str = "valid",
    ) -> Exchange:
        """Any method: the read-only rule is checked by sending the others."""
        if key not in KEY_KINDS:
            raise ValueError(f"unknown key kind {key!r}")
        merged = dict(headers or {})
        header = self.service.api_key_header
        omit: list[str] = []
        if key == "none":
            omit.append(header)
        elif key == "invalid":
            merged[header] = self._invalid_key
        else:
            value = self._keys.get(_KEY_SECRET[key])
            if not value:
                raise NotJudged(f"no {_KEY_SECRET[key].replace('_', ' ')}",
                                f"name the variable holding one in services.address.secrets.{_KEY_SECRET[key]}")
            merged[header] = value
        if key in FLOOD_KEYS:  # exceeding the limit is the point: safety.flood, never classified away
            return self._flood_client.request(method, path, params=params, headers=merged, omit_headers=omit,
                                              intent=Intent.FLOOD)
        return self._client.request(method, path, params=params, headers=merged, omit_headers=omit)

    def auth_headers(self) -> dict[str, str]:
        """The valid key's header, for generated requests (schemathesis sends it itself)."""
        value = self._keys.get("api_key")
        if not value:
            raise NotJudged("no api key", "name the variable holding one in services.address.secrets.api_key")
        return {self.service.api_key_header: value}

    @property
    def client(self) -> ApiClient:
        """The bounded, paced, recording client (contract fuzzing forwards through it)."""
        return self._client

    def record_schemathesis(self, response: object) -> Exchange:
        """Record (redacted) a response that schemathesis's transport fetched."""
        self._pacer.acquire()
        return self._client.record(from_schemathesis(response))

    def _guard_quota(self, response: httpx.Response) -> None:
        if not self._reserve:
            return
        remaining = response.headers.get(self.header("Registry-RateLimit-DayLimit-Remaining"))
        if (left := decimal_integer(remaining)) is not None and left <= self._reserve:
            self._pacer.quota_stop = (
                f"daily quota reserve reached: {remaining} requests left, reserve is {self._reserve}"
            )
