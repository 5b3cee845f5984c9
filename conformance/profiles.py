"""Environment profiles: which environment a run targets and how carefully it may treat it.

A profile is a TOML file (see profiles/*.toml and the README). It is validated against
PROFILE_SCHEMA below; every error names the file and the key. Secrets never live in a
profile: it names the environment variables that hold them (a `.env` file in the working
directory is read too, for those variables only, without overriding the environment).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from conformance.errors import ConfigError
from conformance.http.limits import DEFAULT_LIMITS
from conformance.http.limits import Limits as HttpLimits
from conformance.http.stops import DEFAULT_BREAKER_FAILURES, DEFAULT_RUN_DEADLINE_S
from conformance.paths import LOCAL_PROFILES_DIRNAME, OPENAPI_DESCRIPTION, SHIPPED_PROFILES
from conformance.urls import has_userinfo, unparsable, without_userinfo

# The resource servers of the authorization seed (part 4) that take its tokens.
RESOURCE_SERVERS = ("filing", "inquiry")
# The samples the address scenario checks start from: what each must be (its contract).
# One capability each, so that data without one takes down only the checks that need it
# (README "Samples" lists which checks need which).
ADDRESS_SAMPLES = {
    "nummeraanduiding": "a current main address without letter or addition, whose postcode and huisnummer "
                        "also have a variant with a letter and one with an addition (exacteMatch)",
    "nummeraanduiding_nevenadres": "a side address (indicatieNevenadres)",
    "nummeraanduiding_eindstatus": "an address with an end status, returned only with inclusiefEindStatus=true",
    "verblijfsobject": "a current accommodation object with a main address",
    "verblijfsobject_nevenadres": "a current accommodation object with a side address (heeftAlsNevenAdres)",
    "verblijfsobject_panden": "a current accommodation object in two or more buildings (maaktDeelUitVan)",
    "ligplaats": "a current berth",
    "standplaats": "a current pitch",
    "adresseerbaarobject_eindstatus": "an addressable object with an end status",
    "adresseerbaarobject_historie": "an addressable object with at least 3 occurrences, one removed from the "
                                    "valid life cycle, whose data changed on historie_datum",
    "historie_datum": "a date (YYYY-MM-DD) after the first and before the latest occurrence of "
                      "adresseerbaarobject_historie",
    "pand": "a building with at least 45 accommodation objects (pagination)",
    "openbareruimte": "a public space with at least 25 addresses",
    "woonplaats": "a residence place id (4 digits)",
    "bbox": "x1,y1,x2,y2 of at most 250000 m2 holding at least one addressable object",
    "bbox_ligplaats": "x1,y1,x2,y2 of at most 250000 m2 holding at least one berth (ligplaats)",
    "bbox_standplaats": "x1,y1,x2,y2 of at most 250000 m2 holding at least one pitch (standplaats)",
    "bbox_verblijfsobject": "x1,y1,x2,y2 of at most 250000 m2 holding an accommodation object with "
                            "gebruiksdoelen and oppervlakte",
    "unknown_adresseerbaarobject": "a well-formed addressable-object id that does not exist",
    "unknown_nummeraanduiding": "a well-formed nummeraanduiding id that does not exist",
}
_ADDRESS_SECRETS = ("api_key", "restricted_api_key", "limited_api_key", "quota_api_key")
# What the local address mock's restricted key may not use, unless the profile says otherwise.
MOCK_RESTRICTED_PATHS = ("/adressenuitgebreid",)
# Secrets of the token flows: the confidential client's secret, the test users' login
# (one with the role `Aanbieder M2M`, one without), a refresh token for unattended runs,
# and the client-credentials private key (PEM) when it is not a file.
AUTH_SECRETS = (
    "client_secret", "username", "password", "username_without_role", "password_without_role",
    "refresh_token", "private_key",
)
# Clients registered at the authorization server. All but the first three carry deliberately
# bad material (conformance pki init) and are needed only for the negative assertion checks:
# x5c_mismatch registers the JWKS document `mismatch` (a key whose x5c certifies another key),
# no_oin the document `no_oin` (a certificate without serialNumber).
AUTH_CLIENTS = (
    "confidential", "public", "client_credentials",
    "no_x5c", "untrusted", "expired", "unregistered_oin", "twice_oin", "x5c_mismatch", "no_oin",
    "not_yet_valid", "revoked", "other_branch", "oin_elsewhere", "two_customers",
)
# How a client authenticates to the SOAP message service (the seed: "not shown").
SOAP_AUTH_KINDS = ("none", "basic", "client_certificate")
# Contract fuzzing's phases, as schemathesis names them: the description's examples, the
# coverage cases (each parameter's boundary and invalid values, the same every run), the
# generated cases (`max_examples` per operation) and the chains through the description's links.
FUZZ_PHASES = ("examples", "coverage", "fuzzing", "stateful")


def fuzz_phases_in_order(names: Iterable[str]) -> tuple[str, ...]:
    """The named phases in the order schemathesis runs them, whatever the order written."""
    named = set(names)
    return tuple(phase for phase in FUZZ_PHASES if phase in named)
SOAP_SECRETS = ("username", "password")  # HTTP basic
# The time-out of the soap.response.answered_in_time probe against a mock (a real
# environment's default is its timeout_s).
SOAP_MOCK_RESPONSE_TIME_S = 2.0
_ENV_NAME = {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}

# Trust (conformance/http/origins.py, README "Secrets and where requests go"): a CA bundle that
# verifies the service's https certificate instead of the public CAs, pinned public keys, and
# consent to send its secrets over plain http to a host that is not this machine.
_TRUST_KEYS: dict[str, Any] = {
    "ca_file": {"type": "string", "minLength": 1},
    "pinned_keys": {"type": "array", "minItems": 1, "uniqueItems": True,
                    "items": {"type": "string", "pattern": "^sha256//[A-Za-z0-9+/]{43}=$"}},
    "allow_plain_http": {"type": "boolean"},
}

_URL = {"type": "string", "pattern": "^https?://"}

PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["profile", "services"],
    "properties": {
        "profile": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name", "description"],
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "description": {"type": "string"},
            },
        },
        "services": {
            "type": "object",
            "additionalProperties": False,
            "minProperties": 1,
            "properties": {
                "address": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["mock", "secrets"],
                    "properties": {
                        "mock": {"type": "boolean"},
                        # Which data the local mock serves: "ordinary" has no object in two
                        # buildings and no box holding all three kinds (tests of sparse data).
                        "mock_data": {"type": "string", "enum": ["full", "ordinary"]},
                        "base_url": {"type": "string", "pattern": "^https?://"},
                        **_TRUST_KEYS,
                        "openapi": {"type": "string", "minLength": 1},
                        "timeout_s": {"type": "number", "exclusiveMinimum": 0},
                        "secrets": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["api_key"],
                            "properties": {
                                name: {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}
                                for name in _ADDRESS_SECRETS
                            },
                        },
                        "headers": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {
                                "registry_prefix": {"type": "string"},
                                "api_key": {"type": "string", "minLength": 1},
                            },
                        },
                        "samples": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {name: {"type": "string", "minLength": 1} for name in ADDRESS_SAMPLES},
                        },
                        # What `conformance discover` verified, and when: a sample whose value is
                        # recorded here met its contract then, so missing it now is the
                        # environment's change, not the user's mistake (README "Samples").
                        "samples_verified": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["at"],
                            "properties": {"at": {"type": "string", "minLength": 1},
                                           **{name: {"type": "string", "minLength": 1} for name in ADDRESS_SAMPLES}},
                        },
                        # false: run with the samples as given (an example server whose data
                        # cannot meet the contracts); default: a run validates them first.
                        "verify_samples": {"type": "boolean"},
                        # A base URL the deployment answers as during maintenance (a test
                        # environment's maintenance instance or switch): the 503 checks
                        # send their request below it (README "Profiles").
                        "maintenance_url": _URL,
                        # The /bronhouders query parameter(s) of an object identification (seed
                        # part 4: names not shown), where the description does not describe
                        # /bronhouders: one name for every kind, or a table by kind.
                        "bronhouders_parameters": {"oneOf": [
                            {"type": "string", "minLength": 1},
                            {"type": "object", "additionalProperties": False, "minProperties": 1,
                             "properties": {kind: {"type": "string", "minLength": 1} for kind in (
                                 "woonplaats", "openbareruimte", "nummeraanduiding", "ligplaats", "standplaats",
                                 "verblijfsobject", "pand")}},
                        ]},
                        # Paths (relative to base_url) the restricted key has no rights for.
                        "restricted_paths": {
                            "type": "array",
                            "items": {"type": "string", "pattern": "^/"},
                            "uniqueItems": True,
                        },
                    },
                },
                "auth": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["mock"],
                    "properties": {
                        "mock": {"type": "boolean"},
                        "auth_url": _URL,
                        **_TRUST_KEYS,
                        "filing_base": _URL,
                        "inquiry_base": _URL,
                        # Which resource servers the deployment has (default: those whose base is given).
                        "resource_servers": {"type": "array", "uniqueItems": True,
                                             "items": {"type": "string", "enum": list(RESOURCE_SERVERS)}},
                        "audience": {"type": "string", "minLength": 1},
                        "redirect_uri": _URL,
                        # A second scope the confidential client may ask for, not yet consented to.
                        "consent_scope": {"type": "string", "pattern": "^[!#-\\[\\]-~]+$"},
                        "timeout_s": {"type": "number", "exclusiveMinimum": 0},
                        "mock_code_lifetime_s": {"type": "integer", "enum": [30, 300]},
                        "clients": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {name: {"type": "string", "minLength": 1} for name in AUTH_CLIENTS},
                        },
                        "secrets": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {name: _ENV_NAME for name in AUTH_SECRETS},
                        },
                        "keys": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {
                                "pki_dir": {"type": "string", "minLength": 1},
                                "private_key_file": {"type": "string", "minLength": 1},
                                "kid": {"type": "string", "minLength": 1},
                                "jwks_uri": _URL,
                                "jwks_publish_port": {"type": "integer", "minimum": 0, "maximum": 65535},
                            },
                        },
                        # A test environment's time travel: one request moves its clock ahead.
                        "clock": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["url"],
                            "properties": {
                                "url": _URL,
                                "method": {"type": "string", "enum": ["POST", "PUT", "PATCH", "GET"]},
                                "parameter": {"type": "string", "minLength": 1},
                                "encoding": {"type": "string", "enum": ["json", "form", "query"]},
                            },
                        },
                        "login": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {
                                "driver": {"type": "string", "enum": ["form", "immediate", "manual", "refresh_token"]},
                                "username_field": {"type": "string", "minLength": 1},
                                "password_field": {"type": "string", "minLength": 1},
                                "approve_pattern": {"type": "string", "minLength": 1},
                                "timeout_s": {"type": "number", "exclusiveMinimum": 0},
                            },
                        },
                    },
                },
                "soap": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["mock"],
                    "properties": {
                        "mock": {"type": "boolean"},
                        "url": {"type": "string", "pattern": "^https?://"},
                        "pinned_keys": _TRUST_KEYS["pinned_keys"],
                        "allow_plain_http": _TRUST_KEYS["allow_plain_http"],
                        "soap_action_base": {"type": "string", "minLength": 1},
                        "wsdl": {"type": "string", "minLength": 1},
                        "timeout_s": {"type": "number", "exclusiveMinimum": 0},
                        "response_time_s": {"type": "number", "exclusiveMinimum": 0},
                        "auth": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {
                                "kind": {"type": "string", "enum": list(SOAP_AUTH_KINDS)},
                                "client_cert": {"type": "string", "minLength": 1},
                                "client_key": {"type": "string", "minLength": 1},
                                "ca_file": {"type": "string", "minLength": 1},
                                "mock_kind": {"type": "string", "enum": list(SOAP_AUTH_KINDS)},
                            },
                        },
                        "secrets": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {name: _ENV_NAME for name in SOAP_SECRETS},
                        },
                    },
                },
            },
        },
        "limits": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "requests_per_second": {"type": "number", "minimum": 0},
                "daily_quota_reserve": {"type": "integer", "minimum": 0},
                "request_budget": {"type": "integer", "minimum": 0},
                # The bounds of every request (conformance/http/limits.py; README "Limits").
                "deadline_s": {"type": "number", "exclusiveMinimum": 0},
                "max_body_bytes": {"type": "integer", "minimum": 1024},
                "max_decoded_bytes": {"type": "integer", "minimum": 1024},
                "max_head_bytes": {"type": "integer", "minimum": 256, "maximum": 102400},
                # The run's own bounds (conformance/http/concurrency.py, stops.py).
                "concurrency": {"type": "integer", "minimum": 1, "maximum": 64},
                "breaker_failures": {"type": "integer", "minimum": 1},
                "run_deadline_s": {"type": "number", "exclusiveMinimum": 0},
            },
        },
        "safety": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "fuzz": {"type": "boolean"},
                "negative": {"type": "boolean"},
                "flood": {"type": "boolean"},
                "waits": {"type": "boolean"},
                "max_wait_s": {"type": "number", "minimum": 0},
            },
        },
        "fuzz": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "max_examples": {"type": "integer", "minimum": 1},
                "seed": {"type": "integer", "minimum": 0},
                "stateful_steps": {"type": "integer", "minimum": 1},
                "phases": {"type": "array", "items": {"enum": list(FUZZ_PHASES)}, "minItems": 1, "uniqueItems": True},
            },
        },
        # The run itself: the accepted deviations (a waivers file, relative to the profile), and
        # the strict gate (a MUST check not judged is exit 4), as --require-coverage.
        "run": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"waivers": {"type": "string", "minLength": 1},
                           "require_coverage": {"type": "boolean"}},
        },
        # `conformance compare` (conformance/compare): what is never reported as a difference.
        "compare": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "ignore": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        # JSON path patterns as findings write them (`_embedded.adressen[*].geconstateerd`),
                        # shell-style wildcards allowed (`*.documentdatum`).
                        "paths": {"type": "array", "items": {"type": "string", "minLength": 1}},
                        "headers": {"type": "array", "items": {"type": "string", "minLength": 1}},
                    },
                },
                # Generated requests per operation (schemathesis's positive mode, seeded).
                "generated_per_operation": {"type": "integer", "minimum": 0, "maximum": 200},
            },
        },
    },
}


@dataclass(frozen=True)
class Limits:
    # 0 means unpaced: only for the local mock.
    requests_per_second: float = 0.0
    daily_quota_reserve: int = 0
    # 0 means unlimited.
    request_budget: int = 0
    # Per request (conformance.http.limits.Limits has the defaults and what each bounds).
    deadline_s: float = DEFAULT_LIMITS.deadline_s
    max_body_bytes: int = DEFAULT_LIMITS.max_body_bytes
    max_decoded_bytes: int = DEFAULT_LIMITS.max_decoded_bytes
    max_head_bytes: int = DEFAULT_LIMITS.max_head_bytes
    # The run's: requests in flight to one service (0, the key left out: derived from the rate
    # and the latency the run observes, conformance/http/concurrency.py in_flight_bound),
    # transport failures in a row that stop a service, and the whole run's wall time (README "Limits").
    concurrency: int = 0
    breaker_failures: int = DEFAULT_BREAKER_FAILURES
    run_deadline_s: float = DEFAULT_RUN_DEADLINE_S

    def http(self) -> HttpLimits:
        """The bounds the HTTP layer enforces on every request of the run."""
        return HttpLimits(deadline_s=self.deadline_s, max_body_bytes=self.max_body_bytes,
                          max_decoded_bytes=self.max_decoded_bytes, max_head_bytes=self.max_head_bytes)


@dataclass(frozen=True)
class Safety:
    fuzz: bool = False
    negative: bool = False
    flood: bool = False
    # Checks that wait in real time (code, token and refresh lifetimes) against an
    # environment without a mock clock: minutes to days, so opt-in.
    waits: bool = False
    # What all real-time waits of a run may add up to; a check needing more is not applicable.
    max_wait_s: float = 900.0


@dataclass(frozen=True)
class FuzzSettings:
    max_examples: int = 25
    seed: int | None = None
    stateful_steps: int = 6
    phases: tuple[str, ...] = FUZZ_PHASES


@dataclass(frozen=True)
class CompareSettings:
    """`[compare]`: JSON path patterns and header names never reported as differences, and
    how many generated requests per operation a comparison sends."""

    ignore_paths: tuple[str, ...] = ()
    ignore_headers: tuple[str, ...] = ()
    generated_per_operation: int = 5


@dataclass(frozen=True)
class Trust:
    """What a client trusts of its service, from the service's profile section (`key`):
    `ca_file` (a PEM bundle verifying the server instead of the public CAs), `pins` (the
    SHA-256 of the server's public key, `sha256//<base64>`, one of which must match) and
    whether a credential may go over plain http to a host that is not this machine."""

    key: str = "services"  # the profile section, for messages: "services.address"
    ca_file: str | None = None
    pins: tuple[str, ...] = ()
    allow_plain_http: bool = False
    ca_file_key: str = ""  # where ca_file is set, when not `{key}.ca_file`

    @property
    def ca_key(self) -> str:
        return self.ca_file_key or f"{self.key}.ca_file"


@dataclass(frozen=True)
class AddressService:
    mock: bool
    base_url: str | None
    openapi: str  # a file path (resolved) or an http(s) URL
    timeout_s: float
    secret_env: dict[str, str]  # secret name -> environment variable name
    registry_prefix: str = "Registry-"
    api_key_header: str = "X-Api-Key"
    samples: dict[str, str] = field(default_factory=dict)
    mock_data: str = "full"  # the local mock's data set: "full" or "ordinary"
    # [services.address.samples_verified]: sample -> the value discover verified, and "at".
    samples_verified: dict[str, str] = field(default_factory=dict)
    # Paths (relative to base_url) the restricted key may not use, a deployment fact (the
    # seed says only "a caller without rights for the address: 403"). Empty: the checks
    # of the restricted key do not apply. A mock profile defaults to the mock's own.
    restricted_paths: tuple[str, ...] = ()
    # A run validates the samples against their contracts first (exit 2 for one that misses
    # it); false runs with them as given, for an example server whose data cannot meet them.
    verify_samples: bool = True
    # A base URL the deployment answers as during maintenance (503 notAvailable); None: the
    # maintenance checks apply only to the local mock, which starts an instance in maintenance.
    maintenance_url: str | None = None
    # [services.address] bronhouders_parameters: the /bronhouders identification parameter (one
    # name, or kind -> name), used where the description does not describe /bronhouders.
    bronhouders_parameters: str | dict[str, str] | None = None
    trust: Trust = Trust("services.address")
    # The profile file's folder: what a file description may refer to stays inside it.
    profile_dir: str | None = None

    @property
    def bases(self) -> tuple[str, ...]:
        """Every base URL the profile names for the service: where its key may go."""
        return tuple(u for u in (self.base_url, self.maintenance_url) if u)

    def header(self, seed_name: str) -> str:
        """Map a header name as the seed writes it to this deployment's name."""
        if seed_name.startswith("Registry-"):
            return self.registry_prefix + seed_name[len("Registry-") :]
        return seed_name


@dataclass(frozen=True)
class SoapService:
    mock: bool
    base_url: str | None  # the endpoint URL ({soap_url} of the seed)
    soap_action_base: str
    wsdl: str | None  # the WSDL the register hands out (path, resolved); None: the shipped one
    timeout_s: float
    # How the client authenticates: "none", "basic" (secret_env username/password) or
    # "client_certificate" (client_cert + client_key, a TLS client certificate).
    auth_kind: str = "none"
    secret_env: dict[str, str] = field(default_factory=dict)  # SOAP_SECRETS name -> env var
    client_cert: str | None = None  # PEM files (resolved); a mock supplies its own when absent
    client_key: str | None = None
    ca_file: str | None = None  # CA bundle that verifies an https endpoint; None: the system's
    # What the local mock demands (default: auth_kind); another value proves the checks.
    mock_auth_kind: str = "none"
    # A valid request must be answered within this (soap.response.answered_in_time).
    response_time_s: float = 10.0
    trust: Trust = Trust("services.soap", ca_file_key="services.soap.auth.ca_file")

    @property
    def bases(self) -> tuple[str, ...]:
        return (self.base_url,) if self.base_url else ()


@dataclass(frozen=True)
class AuthService:
    mock: bool
    base_url: str | None  # {auth_url} of the seed
    filing_base: str | None
    inquiry_base: str | None
    audience: str | None  # None: the seed's form, {auth_host}:443/auth/oauth/v2/token
    redirect_uri: str
    timeout_s: float
    clients: dict[str, str]  # role (AUTH_CLIENTS) -> client_id
    secret_env: dict[str, str]  # secret name (AUTH_SECRETS) -> environment variable name
    pki_dir: str | None  # a `conformance pki init` directory (resolved)
    private_key_file: str | None
    kid: str | None
    jwks_uri: str | None  # informative: the JWKS URI registered for the client
    jwks_publish_port: int = 0  # loopback port the mock run publishes the test JWKS at (0: any free one)
    login: dict[str, Any] = field(default_factory=dict)
    mock_code_lifetime_s: int = 30
    # services.auth.clock: url, method, parameter, encoding of the environment's time travel.
    clock: dict[str, str] = field(default_factory=dict)
    # The APIs that take the tokens (seed 001 part 4): "filing" (the WSDL of the filing API)
    # and "inquiry". A deployment without one: the checks that need it do not apply.
    resource_servers: tuple[str, ...] = ("filing", "inquiry")
    # A second scope the confidential client may ask for (auth.code.consent_asked_for_new_scope).
    consent_scope: str | None = None
    trust: Trust = Trust("services.auth")

    @property
    def bases(self) -> tuple[str, ...]:
        """Every URL the profile names for the authorization server and its resource servers
        (and the environment's clock hook): where its tokens, secrets and assertions may go."""
        return tuple(u for u in (self.base_url, self.filing_base, self.inquiry_base, self.clock.get("url")) if u)


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    path: Path
    address: AddressService | None
    soap: SoapService | None
    auth: AuthService | None
    limits: Limits
    safety: Safety
    fuzz: FuzzSettings
    compare: CompareSettings = CompareSettings()
    waivers: str | None = None  # [run] waivers: the accepted deviations file (resolved; read at run start)
    require_coverage: bool = False  # [run] require_coverage: the strict gate, as --require-coverage

    @property
    def services(self) -> dict[str, AddressService | SoapService | AuthService]:
        found: dict[str, AddressService | SoapService | AuthService] = {}
        if self.address:
            found["address"] = self.address
        if self.soap:
            found["soap"] = self.soap
        if self.auth:
            found["auth"] = self.auth
        return found

    @property
    def uses_mock(self) -> bool:
        return any(s.mock for s in self.services.values())


def resolve_profile_path(name_or_path: str) -> Path:
    """A profile name (`local-mock`, `vendor-x`) or a path to any profile file.

    A name resolves from `./profiles/` of the working directory first (where a team keeps
    its own), then from the profiles shipped with the harness; a name both have is refused
    (`_refuse_shadowing`): each is reached by its path only."""
    candidate = Path(name_or_path)
    if candidate.suffix == ".toml" or os.sep in name_or_path or "/" in name_or_path:
        if not candidate.is_file():
            raise ConfigError(f"profile file not found: {candidate}")
        return candidate.resolve()
    for folder in (local_profiles_dir(), SHIPPED_PROFILES):
        found = folder / f"{name_or_path}.toml"
        if found.is_file():
            shipped = SHIPPED_PROFILES / found.name
            if folder != SHIPPED_PROFILES and shipped.is_file() and found.resolve() != shipped.resolve():
                _refuse_shadowing(name_or_path, found.resolve(), shipped)
            return found.resolve()
    known = ", ".join(sorted({p.stem for p in [*local_profiles(), *shipped_profiles()]})) or "none"
    raise ConfigError(f"unknown profile {name_or_path!r} (known profiles: {known}; "
                      f"a team's own go in ./{LOCAL_PROFILES_DIRNAME}/<name>.toml)")


def _refuse_shadowing(name: str, local: Path, shipped: Path) -> None:
    """A profile of the working directory that takes a shipped one's name would receive the
    secrets the shipped one names (`production`: the production key), and in CI the working
    directory is a checkout a merge request can add files to: so the name is refused (exit 2)
    before anything is read or sent, and either file is reached by its path, on purpose."""
    raise ConfigError(f"profile {name!r} names two files: {local} (./{LOCAL_PROFILES_DIRNAME}/ of the working "
                      f"directory) and the shipped {shipped}; a profile of the working directory does not take "
                      f"a shipped profile's name (it would receive the secrets that one names). Name the one "
                      f"you mean by its path: --profile ./{LOCAL_PROFILES_DIRNAME}/{name}.toml, or "
                      f"--profile {shipped}")


def local_profiles_dir() -> Path:
    return Path.cwd() / LOCAL_PROFILES_DIRNAME


def local_profiles() -> list[Path]:
    """The profiles of ./profiles/ of the working directory (none when it is the shipped folder
    itself, as in the checkout: those are listed as shipped)."""
    folder = local_profiles_dir()
    if not folder.is_dir() or folder.resolve() == SHIPPED_PROFILES:
        return []
    return sorted(p.resolve() for p in folder.glob("*.toml"))


def shipped_profiles() -> list[Path]:
    return sorted(SHIPPED_PROFILES.glob("*.toml"))


def load_profile(name_or_path: str) -> Profile:
    path = resolve_profile_path(name_or_path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    refuse_placeholders(raw, path)
    refuse_unusable_urls(raw, path)
    validate_profile_dict(raw, path)
    return _build(raw, path)


# A value the skeleton (`conformance profile new`) leaves for the user to fill: `<host>`,
# `<id>`, `<ca.pem>`. No URL, identifier, file name or variable name holds angle brackets, so
# one left in any of them is a placeholder; only prose (the description) and an HTML pattern
# (the login driver's approve_pattern) may hold them.
_PLACEHOLDER = re.compile(r"<[^<>\n]*>")
_FREE_TEXT = {("profile", "description"), ("services", "auth", "login", "approve_pattern"),
              ("services", "auth", "login", "username_field"), ("services", "auth", "login", "password_field")}


def _texts(raw: dict[str, Any]) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every string value of a profile with its key path (list items as `key[i]`), but the
    free-text keys (descriptions)."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(raw, ())]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            stack += [(value, (*where, str(key))) for key, value in reversed(list(node.items()))]
        elif isinstance(node, list):
            stack += [(value, (*where[:-1], f"{where[-1]}[{index}]") if where else (f"[{index}]",))
                      for index, value in reversed(list(enumerate(node)))]
        elif isinstance(node, str) and where not in _FREE_TEXT:
            yield where, node


def refuse_placeholders(raw: dict[str, Any], path: Path) -> None:
    """ConfigError (exit 2) naming every key whose value still holds a placeholder of the
    skeleton, before anything is sent or written (a run would otherwise try `https://<host>`
    and call it unreachable)."""
    found = [f"key {'.'.join(where)} = {without_userinfo(text)!r} still holds the profile skeleton's placeholder "
             f"{match.group(0)}" for where, text in _texts(raw) if (match := _PLACEHOLDER.search(text))]
    if found:
        raise ConfigError(f"{path}: " + "; ".join(found) + "; fill in your deployment's "
                          + ("value" if len(found) == 1 else "values") + " (or leave an optional key out)")


_URL_START = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def refuse_unusable_urls(raw: dict[str, Any], path: Path) -> None:
    """ConfigError (exit 2) naming the key of a URL that holds a user name or password (it
    would go with every request and into every report), or of an http(s) URL urlsplit cannot
    read (`http://[::1/x`, a port that is no number: a traceback wherever it is used). Checked
    before the schema, whose messages echo a value; every message here echoes the URL without
    user info."""
    for where, text in _texts(raw):
        if _URL_START.match(text) and has_userinfo(text):
            section = ".".join(where[:2]) if where[0] == "services" and len(where) > 2 else "services.<name>"
            raise ConfigError(
                f"{path}: key {'.'.join(where)} holds a user name or password before its host (user:password@): "
                f"credentials go in the secrets table ({section}.secrets names the environment variables that "
                f"hold them), not in the URL; give it as {without_userinfo(text)!r}")
        if text.lower().startswith(("http://", "https://")) and (why := unparsable(text)) is not None:
            raise ConfigError(f"{path}: key {'.'.join(where)} = {text!r} is not a URL ({why})")


def validate_profile_dict(raw: dict[str, Any], path: Path) -> None:
    validator = jsonschema.Draft202012Validator(PROFILE_SCHEMA)
    errors = sorted(validator.iter_errors(raw), key=lambda e: list(e.absolute_path))
    if not errors:
        return
    raise ConfigError(f"{path}: " + "; ".join(_describe(e) for e in errors[:5]))


def _describe(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return f"unknown key {', '.join(f'{where}.{k}' if error.absolute_path else k for k in extra)}"
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        prefix = f"{where}." if error.absolute_path else ""
        return f"missing required key {', '.join(prefix + k for k in missing)}"
    if error.validator == "type":
        return f"key {where} must be of type {error.validator_value}, got {error.instance!r}"
    return f"key {where}: {error.message}"


def _build(raw: dict[str, Any], path: Path) -> Profile:
    services = raw["services"]
    address = None
    if "address" in services:
        svc = services["address"]
        if not svc["mock"] and "base_url" not in svc:
            raise ConfigError(f"{path}: missing required key services.address.base_url")
        headers = svc.get("headers", {})
        address = AddressService(
            mock=svc["mock"],
            base_url=svc.get("base_url"),
            openapi=_resolve_source(svc.get("openapi"), path),
            timeout_s=float(svc.get("timeout_s", 10.0)),
            secret_env=dict(svc["secrets"]),
            registry_prefix=headers.get("registry_prefix", "Registry-"),
            api_key_header=headers.get("api_key", "X-Api-Key"),
            samples=dict(svc.get("samples", {})),
            mock_data=svc.get("mock_data", "full"),
            samples_verified=dict(svc.get("samples_verified", {})),
            verify_samples=bool(svc.get("verify_samples", True)),
            maintenance_url=svc["maintenance_url"].rstrip("/") if "maintenance_url" in svc else None,
            bronhouders_parameters=svc.get("bronhouders_parameters"),
            restricted_paths=tuple(
                p.rstrip("/") or "/" for p in svc.get("restricted_paths", MOCK_RESTRICTED_PATHS if svc["mock"] else ())
            ),
            trust=_trust(svc, path, "services.address"),
            profile_dir=str(path.parent),
        )
    soap = None
    if "soap" in services:
        svc = services["soap"]
        if not svc["mock"] and "url" not in svc:
            raise ConfigError(f"{path}: missing required key services.soap.url")
        wsdl = svc.get("wsdl")
        if wsdl is not None:
            wsdl_path = (path.parent / wsdl).resolve()
            if not wsdl_path.is_file():
                raise ConfigError(f"{path}: services.soap.wsdl: file not found: {wsdl_path}")
            wsdl = str(wsdl_path)
        soap = _build_soap(svc, path, wsdl)
    auth = _build_auth(services["auth"], path) if "auth" in services else None
    fuzz = dict(raw.get("fuzz", {}))
    if "phases" in fuzz:
        fuzz["phases"] = fuzz_phases_in_order(fuzz["phases"])
    return Profile(
        name=raw["profile"]["name"],
        description=raw["profile"]["description"],
        path=path,
        address=address,
        soap=soap,
        auth=auth,
        limits=Limits(**raw.get("limits", {})),
        safety=Safety(**raw.get("safety", {})),
        fuzz=FuzzSettings(**fuzz),
        compare=CompareSettings(
            ignore_paths=tuple(raw.get("compare", {}).get("ignore", {}).get("paths", ())),
            ignore_headers=tuple(h.lower() for h in raw.get("compare", {}).get("ignore", {}).get("headers", ())),
            generated_per_operation=raw.get("compare", {}).get("generated_per_operation", 5),
        ),
        waivers=str((path.parent / raw["run"]["waivers"]).resolve()) if "waivers" in raw.get("run", {}) else None,
        require_coverage=bool(raw.get("run", {}).get("require_coverage", False)),
    )


def _build_soap(svc: dict[str, Any], path: Path, wsdl: str | None) -> SoapService:
    auth = svc.get("auth", {})
    kind = auth.get("kind", "none")
    secret_env = dict(svc.get("secrets", {}))
    if kind == "basic":
        for name in SOAP_SECRETS:
            if name not in secret_env:
                raise ConfigError(
                    f"{path}: missing required key services.soap.secrets.{name} (services.soap.auth.kind is basic)"
                )
    files: dict[str, str | None] = {}
    for key in ("client_cert", "client_key", "ca_file"):
        given = auth.get(key)
        if given is not None:
            resolved = (path.parent / given).resolve()
            if not resolved.is_file():
                raise ConfigError(f"{path}: services.soap.auth.{key}: file not found: {resolved}")
            given = str(resolved)
        files[key] = given
    if (files["client_cert"] is None) != (files["client_key"] is None):
        missing = "client_key" if files["client_key"] is None else "client_cert"
        raise ConfigError(f"{path}: missing required key services.soap.auth.{missing} (client_cert and client_key go together)")
    if kind == "client_certificate" and not svc["mock"] and files["client_cert"] is None:
        # A mock makes its own test certificates; a real service needs the operator's.
        raise ConfigError(
            f"{path}: missing required key services.soap.auth.client_cert (services.soap.auth.kind is client_certificate)"
        )
    timeout_s = float(svc.get("timeout_s", 10.0))
    default_response_time = min(SOAP_MOCK_RESPONSE_TIME_S, timeout_s) if svc["mock"] else timeout_s
    response_time_s = float(svc.get("response_time_s", default_response_time))
    if response_time_s > timeout_s:
        raise ConfigError(
            f"{path}: key services.soap.response_time_s: {response_time_s:g} exceeds services.soap.timeout_s ({timeout_s:g})"
        )
    return SoapService(
        mock=svc["mock"],
        base_url=svc.get("url"),
        soap_action_base=svc.get("soap_action_base", "urn:registry:graafbericht"),
        wsdl=wsdl,
        timeout_s=timeout_s,
        auth_kind=kind,
        secret_env=secret_env,
        client_cert=files["client_cert"],
        client_key=files["client_key"],
        ca_file=files["ca_file"],
        mock_auth_kind=auth.get("mock_kind", kind),
        response_time_s=response_time_s,
        trust=Trust("services.soap", ca_file=files["ca_file"], pins=tuple(svc.get("pinned_keys", ())),
                    allow_plain_http=bool(svc.get("allow_plain_http", False)), ca_file_key="services.soap.auth.ca_file"),
    )


def _build_auth(svc: dict[str, Any], path: Path) -> AuthService:
    if not svc["mock"] and "auth_url" not in svc:
        raise ConfigError(f"{path}: missing required key services.auth.auth_url")
    given = tuple(name for name in RESOURCE_SERVERS if svc["mock"] or f"{name}_base" in svc)
    resource_servers = tuple(svc.get("resource_servers", given))
    for name in resource_servers:
        if name not in given:
            raise ConfigError(f"{path}: services.auth.resource_servers names {name!r} but the profile gives no "
                              f"services.auth.{name}_base")
    keys = svc.get("keys", {})
    pki_dir = keys.get("pki_dir")
    if pki_dir is not None:
        resolved_dir = (path.parent / pki_dir).resolve()
        if not (resolved_dir / "manifest.json").is_file():
            raise ConfigError(f"{path}: services.auth.keys.pki_dir: no test PKI in {resolved_dir} "
                              "(make one with `conformance pki init --out DIR`)")
        pki_dir = str(resolved_dir)
    key_file = keys.get("private_key_file")
    if key_file is not None:
        resolved = (path.parent / key_file).resolve()
        if not resolved.is_file():
            raise ConfigError(f"{path}: services.auth.keys.private_key_file: file not found: {resolved}")
        key_file = str(resolved)
    return AuthService(
        mock=svc["mock"],
        base_url=svc.get("auth_url"),
        filing_base=svc.get("filing_base"),
        inquiry_base=svc.get("inquiry_base"),
        resource_servers=resource_servers,
        clock=dict(svc.get("clock", {})),
        audience=svc.get("audience"),
        redirect_uri=svc.get("redirect_uri", "http://127.0.0.1:8765/callback"),
        consent_scope=svc.get("consent_scope"),
        timeout_s=float(svc.get("timeout_s", 10.0)),
        clients=dict(svc.get("clients", {})),
        secret_env=dict(svc.get("secrets", {})),
        pki_dir=pki_dir,
        private_key_file=key_file,
        kid=keys.get("kid"),
        jwks_uri=keys.get("jwks_uri"),
        jwks_publish_port=int(keys.get("jwks_publish_port", 0)),
        login=dict(svc.get("login", {})),
        mock_code_lifetime_s=int(svc.get("mock_code_lifetime_s", 30)),
        trust=_trust(svc, path, "services.auth"),
    )


def _trust(svc: dict[str, Any], path: Path, key: str) -> Trust:
    ca_file = svc.get("ca_file")
    if ca_file is not None:
        resolved = (path.parent / ca_file).resolve()
        if not resolved.is_file():
            raise ConfigError(f"{path}: {key}.ca_file: file not found: {resolved}")
        ca_file = str(resolved)
    return Trust(key, ca_file=ca_file, pins=tuple(svc.get("pinned_keys", ())),
                 allow_plain_http=bool(svc.get("allow_plain_http", False)))


def _resolve_source(source: str | None, profile_path: Path) -> str:
    """OpenAPI source: a URL stays as is; a path is relative to the profile file."""
    if source is None:
        return str(OPENAPI_DESCRIPTION)
    if source.startswith(("http://", "https://")):
        return source
    resolved = (profile_path.parent / source).resolve()
    if not resolved.is_file():
        raise ConfigError(f"{profile_path}: services.address.openapi: file not found: {resolved}")
    return str(resolved)


def read_secret(env_var: str, *, purpose: str, required: bool = True) -> str | None:
    """A secret from the environment, else from `.env` of the working directory. A missing
    required one names the variable."""
    # Set in the environment, even empty, it wins: .env never fills what the environment set.
    value = os.environ[env_var] if env_var in os.environ else _dotenv_values(Path.cwd() / ".env").get(env_var)
    if value:
        return value
    if required:
        raise ConfigError(f"environment variable {env_var} is not set (it holds the {purpose})")
    return None


_DOTENV: dict[Path, dict[str, str]] = {}


def _dotenv_values(env_file: Path) -> dict[str, str]:
    """What `.env` sets, read once per process and never put into os.environ: in CI it is a
    file of the checkout, and a `PYTHONPATH`, `LD_PRELOAD` or `NODE_OPTIONS` there would run
    its code in every xdist worker (started with this process's environment, where the secrets
    are). Only read_secret asks it, for a variable the profile names; the workers get the
    secrets from the run's state (run_setup.RunState), not from the environment."""
    if env_file not in _DOTENV:
        values: dict[str, str] = {}
        if env_file.is_file():
            from dotenv import dotenv_values

            # interpolate=False: `${HOME}` in a value stays as written, nothing of the environment is read into it
            values = {k: v for k, v in dotenv_values(env_file, interpolate=False).items() if v is not None}
        _DOTENV[env_file] = values
    return _DOTENV[env_file]
