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
from conformance.samples.contracts import PROPERTY_TEXT, KeyRefused, Missing
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
    from conformance.samples.session import address_api, check_base_url, getter, write_samples

    profile = load_profile(args.profile)
    service = profile.address
    if service is None:
        raise ConfigError(f"{profile.path}: the profile has no [services.address]")
    if service.mock or not service.base_url:
        raise ConfigError(f"{profile.path}: services.address is the local mock, whose samples come from its data "
                          "generator; point a profile's base_url at a running mock (`conformance mock`) to try discover")
    if args.budget < 1:
        raise ConfigError("--budget must be at least 1")
    secrets = resolve_secrets(profile, ("address",))  # discover asks the address API alone
    probe(service.base_url, timeout_s=min(service.timeout_s, 10.0, profile.limits.deadline_s))
    from conformance.checks.address.response_schema import console_findings
    from conformance.openapi import responses

    api = address_api(profile, service.base_url, secrets)
    others: list[Any] = []

    def on_base(url: str) -> Any:
        other = address_api(profile, url, secrets)
        others.append(other)
        return getter(other)

    print(f"discovering samples on {service.base_url} (at most {args.budget} requests)", flush=True)
    responses.start()  # every answer against its response schema: a violation is the server's finding
    lacking: dict[str, list[Missing] | None] = {}
    try:
        # A base URL that misses the API (its path prefix left out) finds nothing: say so now (exit 2).
        check_base_url(profile, getter(api), probe_base=on_base, command="discover")
        verdicts, sent = discover(getter(api), dict(service.samples), budget=args.budget, rediscover=args.all,
                                  terms=args.query or SEARCH_TERMS, log=lambda line: print("  " + line, flush=True),
                                  properties=lacking)
    except KeyRefused as refused:
        raise ConfigError(f"the address API refuses the key in {service.secret_env['api_key']} "
                          f"(services.address.secrets.api_key): {refused}") from None
    finally:
        for client in (api, *others):
            client.close()
        for line in console_findings(responses.stop()):
            print("  " + line, flush=True)
    found = [name for name in ADDRESS_SAMPLES if name in verdicts and verdicts[name].outcome != "lacks"]
    missing = [name for name in ADDRESS_SAMPLES if name not in found]
    print(f"{len(found)} of {len(ADDRESS_SAMPLES)} samples found in {sent} requests"
          + (f"; not found: {', '.join(missing)}" if missing else ""))
    for line in property_lines(lacking, rediscovered=args.all):
        print(line)
    if not found:
        print(f"no sample found: if the address API answers under another path than {service.base_url}, correct "
              "services.address.base_url; if its data is sparse, start the search from words of its own street "
              "names with --query")
    if args.dry_run:
        print("dry run: the profile is unchanged")
    else:
        write_samples(profile.path, verdicts, sent, lacking)
        print(f"written to {profile.path} [services.address.samples] and [services.address.samples_verified]; "
              "the rest of the file is unchanged")
    return int(ExitCode.OK if not missing else ExitCode.MUST_FAILED)


def property_lines(lacking: dict[str, list[Missing] | None], *, rediscovered: bool) -> list[str]:
    """What the samples taken still lack of what checks need beyond their contracts: each
    property in the words of the not-judged reason, the checks it keeps from being judged,
    and what to do (README "Samples")."""
    gaps = {name: found for name, found in lacking.items() if found}
    if not gaps:
        return []
    lines = [f"sample properties checks still lack ({sum(len(f) for f in gaps.values())}; those checks stay not judged):"]
    for name, found in gaps.items():
        for gap in found:
            lines.append(f"  {name}: {gap.what}: {', '.join(gap.checks)} not judged")
        lines.append(f"    {name} must also have: {PROPERTY_TEXT[name]} (services.address.samples.{name})")
    lines.append("  name samples that have them by hand, or " + (
        "search with other words (--query TERM) or a larger --budget" if rediscovered else
        "run `conformance discover --all`, which prefers candidates that have them"))
    return lines
