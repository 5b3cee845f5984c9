"""`conformance profile new NAME`: a commented profile skeleton for a vendor's deployment,
with every key a user may set, and the next steps to a first report.

The skeleton loads once its one required placeholder, the address API's base_url host, is
filled in (every optional key is a comment; a placeholder left in any value is exit 2
naming its key, conformance/profiles.py refuse_placeholders); tests/test_profile_new.py
proves that, and that it names every key of the profile schema, so it cannot fall behind
the schema.
"""

from __future__ import annotations

import re
from pathlib import Path

from conformance.errors import ConfigError
from conformance.http.concurrency import DEFAULT_CONCURRENCY
from conformance.http.limits import DEFAULT_LIMITS
from conformance.http.stops import DEFAULT_BREAKER_FAILURES, DEFAULT_RUN_DEADLINE_S
from conformance.profiles import ADDRESS_SAMPLES, MOCK_RESTRICTED_PATHS

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def env_prefix(name: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_")


def skeleton(name: str) -> str:
    p = env_prefix(name)
    samples = "\n".join(f'# {key} = "..."{" " * max(1, 30 - len(key))}# {what}' for key, what in ADDRESS_SAMPLES.items())
    return f'''# Profile "{name}": a vendor's deployment of the register's APIs.
# Every key is listed; the commented ones are optional. Values in angle brackets are yours to fill:
# a profile that still holds one is refused (exit 2, naming the key) before anything is sent.
# Secrets are never written here: each names an environment variable (or a line of .env).

[profile]
name = "{name}"
description = "<what this deployment is>"

# --- the address API (specification 000) -------------------------------------------------------
[services.address]
mock = false
base_url = "https://<host>/lvbag/individuelebevragingen/v2"   # the API's {{base_url}}
# openapi = "<its-openapi.yaml>"      # its own description (a path relative to this file, or a URL); default: ours
# timeout_s = 10                      # per read; the whole request is bounded by [limits] deadline_s
# restricted_paths = {list(MOCK_RESTRICTED_PATHS)!r}   # what the restricted key has no rights for (absent: those checks do not apply)
# verify_samples = true               # a run first checks every sample against its contract (false: an example server)
# maintenance_url = "https://maintenance.example/lvbag/individuelebevragingen/v2"   # answers as during maintenance (the 503 checks)
# bronhouders_parameters = "objectIdentificatie"   # /bronhouders' identification parameter, where `openapi` does not describe it (or a table by kind)
# ca_file = "<ca.pem>"                 # the CA that issued its https certificate, when not a public one
# pinned_keys = ["sha256//<base64 of its key's SHA-256>"]   # its TLS key must be one of these
# allow_plain_http = false            # true: the key may go over plain http to a host that is not this machine

[services.address.secrets]            # environment variable names, never values
api_key = "{p}_API_KEY"
# restricted_api_key = "{p}_RESTRICTED_API_KEY"   # a key without rights for restricted_paths (the 403 checks)
# limited_api_key = "{p}_LIMITED_API_KEY"         # a key of its own for the rate-limit floods (safety.flood)
# quota_api_key = "{p}_QUOTA_API_KEY"             # a key with a small daily quota (the quota check)

[services.address.headers]
# registry_prefix = "Registry-"       # how the deployment names the seed's Registry-* headers (e.g. "Kadaster-")
# api_key = "X-Api-Key"               # the header that carries the API key

[services.address.samples]            # objects the checks start from, each meeting its contract (README, "Samples");
                                      # `conformance discover --profile <this file>` finds and writes them
{samples}
# [services.address.samples_verified]  # written by `conformance discover` beside the samples: each one that met its
# at = "2026-01-01 09:00 UTC"           # contract, and when; a run blames the environment when one no longer does

# --- the authorization server (specification 001, part a) ---------------------------------------
# [services.auth]
# mock = false
# auth_url = "https://<auth-host>"                  # {{auth_url}}
# filing_base = "https://<api-host>"                # {{filing_base}}: the filing API's WSDL is under it
# inquiry_base = "https://<api-host>"               # {{inquiry_base}}: the inquiry API
# resource_servers = ["filing", "inquiry"]          # default: those whose base is given
# audience = "<auth-host>:443/auth/oauth/v2/token"  # the assertion's aud; default: the seed's form
# redirect_uri = "http://127.0.0.1:8765/callback"   # registered for both code clients
# consent_scope = "<a second scope of the confidential client>"   # consent for it is asked anew (revoke consents first)
# timeout_s = 10
# ca_file = "<ca.pem>"; pinned_keys = ["sha256//<base64>"]   # trust, as for the address API (all its URLs)
# allow_plain_http = false                          # true: secrets and tokens may go over plain http to another host
#
# [services.auth.clients]                           # client ids, as registered
# confidential = "<id>"
# public = "<id>"
# client_credentials = "<id>"                       # the private_key_jwt client of the inquiry API
# no_x5c = "<id>"; untrusted = "<id>"; expired = "<id>"; unregistered_oin = "<id>"; twice_oin = "<id>"
# x5c_mismatch = "<id>"; no_oin = "<id>"           # (JWKS documents mismatch.json and no_oin.json)
# not_yet_valid = "<id>"; revoked = "<id>"; other_branch = "<id>"; oin_elsewhere = "<id>"
# two_customers = "<id>"                            # (valid: two end customers' keys, both OINs registered)
#                                                   # (clients registered with the bad material of `pki init`)
#
# [services.auth.secrets]
# client_secret = "{p}_CLIENT_SECRET"
# username = "{p}_USERNAME"                         # a user with the role Aanbieder M2M
# password = "{p}_PASSWORD"
# username_without_role = "{p}_USERNAME_WITHOUT_ROLE"
# password_without_role = "{p}_PASSWORD_WITHOUT_ROLE"
# refresh_token = "{p}_REFRESH_TOKEN"               # an unattended start (login driver refresh_token)
# private_key = "{p}_CLIENT_PRIVATE_KEY"            # PEM, when not signing with keys.pki_dir
#
# [services.auth.keys]
# pki_dir = "<dir of conformance pki init>"         # or:
# private_key_file = "<key.pem>"; kid = "<registered kid>"
# jwks_uri = "https://<where the client JWKS is published>"   # informative
# jwks_publish_port = 0                             # mock runs only
#
# [services.auth.clock]                            # a test environment's time travel: expiry checks at once
# url = "https://<auth-host>/<its clock endpoint>"
# method = "POST"; parameter = "advance_s"; encoding = "json"   # json | form | query: {{parameter: seconds}}
#
# [services.auth.login]
# driver = "form"                                   # form | immediate | manual | refresh_token
# username_field = "username"; password_field = "password"; approve_pattern = "<consent button text>"
# timeout_s = 120                                   # manual driver

# --- the SOAP message service (specification 001, part b) ----------------------------------------
# [services.soap]
# mock = false
# url = "https://<soap-host>/<path>"                # {{soap_url}}
# soap_action_base = "<soap_action_base>"
# wsdl = "<its WSDL file>"                          # without it the WSDL checks do not apply
# timeout_s = 10
# response_time_s = 10
# pinned_keys = ["sha256//<base64>"]                # its TLS key must be one of these (its CA: auth.ca_file)
# allow_plain_http = false                          # true: credentials may go over plain http to another host
#
# [services.soap.auth]
# kind = "none"                                     # none | basic | client_certificate
# client_cert = "<cert.pem>"; client_key = "<key.pem>"; ca_file = "<ca.pem>"
#
# [services.soap.secrets]                           # kind = "basic"
# username = "{p}_SOAP_USERNAME"
# password = "{p}_SOAP_PASSWORD"

[limits]
requests_per_second = 5               # pacing (0: unpaced)
# daily_quota_reserve = 1000          # stop before the DayLimit-Remaining header reaches this
# request_budget = 2000               # requests of a run (0: unlimited)
# deadline_s = {DEFAULT_LIMITS.deadline_s:g}                     # one request: connect, head and the whole body
# max_body_bytes = {DEFAULT_LIMITS.max_body_bytes}             # body as received
# max_decoded_bytes = {DEFAULT_LIMITS.max_decoded_bytes}         # body after its content coding
# max_head_bytes = {DEFAULT_LIMITS.max_head_bytes}               # status line and headers
# concurrency = {DEFAULT_CONCURRENCY}                     # requests in flight to one service at most (left out: rate x latency, at least {DEFAULT_CONCURRENCY})
# breaker_failures = {DEFAULT_BREAKER_FAILURES}                # transport failures in a row that stop a service's checks
# run_deadline_s = {DEFAULT_RUN_DEADLINE_S:g}               # the whole run; the checks not run by then are blocked

[safety]                              # all default to false
fuzz = false                          # contract fuzzing
negative = false                      # invalid input on purpose
# flood = false                       # exceed rate limits on purpose (limited_api_key)
# waits = false                       # wait out code and token lifetimes in real time (without a clock hook)
# max_wait_s = 900                    # what all real-time waits of a run may add up to

[fuzz]
# max_examples = 25
# seed = 12345                       # default: derived from the profile's name and its targets' URLs, so
#                                     # every run fuzzes alike (summary.json: seed, seed_source); a failing
#                                     # example is kept and replayed first by later runs until it passes;
#                                     # `conformance run --seed random` draws a new seed for one run
# stateful_steps = 6
# phases = ["examples", "coverage", "fuzzing", "stateful"]   # fewer: a quicker run that judges less (docs/cli.md)

# The run's accepted deviations (README "Waivers"): [[waiver]] tables in a file, relative
# to this profile; `conformance waive RUN_DIR` writes a first one from a run's failures.
[run]
# waivers = "waivers.toml"
# require_coverage = true             # the strict gate (as --require-coverage): a MUST check not judged is exit 4

# `conformance compare --profile THIS --reference production`: what is never reported as a
# difference (JSON path patterns as findings write them; header names), and how many
# generated requests per operation join the scenario requests.
[compare]
# generated_per_operation = 5
# [compare.ignore]
# paths = ["_embedded.adressen[*].geconstateerd"]
# headers = ["api-version"]
'''


def next_steps(name: str, path: Path) -> str:
    p = env_prefix(name)
    return f"""wrote {path}
next steps:
  1. fill in base_url's <host> (and the auth/SOAP sections you test); uncomment what applies
  2. export the secrets it names, e.g.  export {p}_API_KEY=...   (or put them in .env)
  3. for the token flows: conformance pki init --out pki-{name}; then register at the authorization
     server: the JWKS document URL of the client_credentials client (good.json: current and next key),
     one bad-material client per JWKS document (no_x5c, untrusted, expired, mismatch, no_oin), the
     test OIN at exactly one customer, the "twice" OIN at two customers, and the "unregistered" OIN
     at none
     (conformance pki show pki-{name} prints the OIN, the kids and the JWKS URL to register)
  4. conformance discover --profile {path}                 # finds the address samples and writes them in
  5. conformance run --profile {path} --suite address      # a first report under reports/
"""


def write_skeleton(name: str, out: Path | None = None) -> Path:
    if not _NAME.match(name):
        raise ConfigError(f"profile name {name!r}: letters, digits, '.', '_' and '-' only")
    path = (out or Path.cwd() / f"{name}.toml")
    if path.is_dir():
        path = path / f"{name}.toml"
    if path.exists():
        raise ConfigError(f"{path} exists: not overwritten")
    path.write_text(skeleton(name), encoding="utf-8")
    return path
