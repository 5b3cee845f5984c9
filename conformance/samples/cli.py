"""`conformance discover --profile P [--all] [--budget N] [--query TERM ...] [--dry-run]`.

Finds every address sample from the server itself (ordinary read-only queries, within the
profile's pacing), verifies each against its contract and writes the profile's
`[services.address.samples]` table, one comment per sample saying what was verified.
Exit codes: 0 every sample found; 1 some were not (their checks will not apply); 2 usage or
configuration error; 3 the address API is unreachable.
"""

from __future__ import annotations

import argparse
from typing import Any

from conformance.errors import ConfigError, ExitCode
from conformance.profiles import ADDRESS_SAMPLES, load_profile
from conformance.samples.contracts import KeyRefused
from conformance.samples.discover import SEARCH_TERMS, discover


def add_discover_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "discover", help="find the address samples from the server itself and write them into the profile",
        description=__doc__.split("\n\n")[1].replace("\n", " "),
    )
    parser.add_argument("--profile", required=True, help="profile name or path (its samples table is rewritten)")
    parser.add_argument("--all", action="store_true", help="look for every sample anew, even those that meet their contract")
    parser.add_argument("--budget", type=int, default=400, help="requests discovery may send at most (default: 400)")
    parser.add_argument("--query", action="append", metavar="TERM",
                        help=f"free-text search term to start from (repeatable; default: {', '.join(SEARCH_TERMS)})")
    parser.add_argument("--dry-run", action="store_true", help="print what was found; leave the profile as it is")
    parser.set_defaults(handler=cmd_discover)


def cmd_discover(args: argparse.Namespace) -> int:
    from conformance.http.client import probe
    from conformance.run_setup import resolve_secrets
    from conformance.samples.session import address_api, getter, write_samples

    profile = load_profile(args.profile)
    service = profile.address
    if service is None:
        raise ConfigError(f"{profile.path}: the profile has no [services.address]")
    if service.mock or not service.base_url:
        raise ConfigError(f"{profile.path}: services.address is the local mock, whose samples come from its data "
                          "generator; point a profile's base_url at a running mock (`conformance mock`) to try discover")
    if args.budget < 1:
        raise ConfigError("--budget must be at least 1")
    secrets = resolve_secrets(profile)
    probe(service.base_url, timeout_s=min(service.timeout_s, 10.0, profile.limits.deadline_s))
    from conformance.checks.address.response_schema import console_findings
    from conformance.openapi import responses

    api = address_api(profile, service.base_url, secrets)
    print(f"discovering samples on {service.base_url} (at most {args.budget} requests)", flush=True)
    responses.start()  # every answer against its response schema: a violation is the server's finding
    try:
        verdicts, sent = discover(getter(api), dict(service.samples), budget=args.budget, rediscover=args.all,
                                  terms=args.query or SEARCH_TERMS, log=lambda line: print("  " + line, flush=True))
    except KeyRefused as refused:
        raise ConfigError(f"the address API refuses the key in {service.secret_env['api_key']} "
                          f"(services.address.secrets.api_key): {refused}") from None
    finally:
        api.close()
        for line in console_findings(responses.stop()):
            print("  " + line, flush=True)
    found = [name for name in ADDRESS_SAMPLES if name in verdicts and verdicts[name].outcome != "lacks"]
    missing = [name for name in ADDRESS_SAMPLES if name not in found]
    print(f"{len(found)} of {len(ADDRESS_SAMPLES)} samples found in {sent} requests"
          + (f"; not found: {', '.join(missing)}" if missing else ""))
    if args.dry_run:
        print("dry run: the profile is unchanged")
    else:
        write_samples(profile.path, verdicts, sent)
        print(f"written to {profile.path} [services.address.samples]")
    return int(ExitCode.OK if not missing else ExitCode.MUST_FAILED)
