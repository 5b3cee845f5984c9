"""Sample verification and discovery against a profile's address API: the client they use,
the run-start validation (exit 2 for a sample that misses its contract), and writing the
profile's `[services.address.samples]` table."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import tomlkit

from conformance.errors import ConfigError
from conformance.http.address import AddressApi
from conformance.http.client import DiscardingRecorder, Recorder, ServiceBounds
from conformance.http.concurrency import concurrently
from conformance.http.redaction import Redactor
from conformance.http.schedule import Schedule
from conformance.profiles import ADDRESS_SAMPLES, Profile
from conformance.samples import contracts as C
from conformance.samples.contracts import Get, Verdict


def address_api(profile: Profile, base_url: str, secrets: dict[str, str], *,
                schedule: Schedule | None = None, bounds: ServiceBounds | None = None,
                recorder: Recorder | None = None) -> AddressApi:
    """The profile's address API with the valid key, paced and bounded like a run (within a
    run, its `schedule` and `bounds`: its requests count for the run's rate, budget and the
    service's breaker; its `recorder`: what the run sends before its checks is in its
    traffic.har too); without a recorder (discovery) nothing is recorded."""
    service = profile.address
    assert service is not None
    keys = {name: secrets[env] for name, env in service.secret_env.items() if env in secrets}
    return AddressApi(service, base_url=base_url, keys=keys, samples={}, limits=profile.limits,
                      redactor=Redactor(secrets.values()), recorder=recorder or DiscardingRecorder(), schedule=schedule,
                      bounds=bounds)


def getter(api: AddressApi) -> Get:
    return lambda path, params: api.get(path, params=params)


# Valid queries of two collections every deployment of the seed serves (part 4: the search
# term `q`, length 1 to 255, on /adressen and /adressenuitgebreid): a conforming server
# answers each 200 (its matches, maybe none), never a refusal, so a production-safe run's
# first requests are no requests designed to be refused. Both 404: the base URL misses the API.
SEARCH_TERM = "Amsterdam"
BASE_PROBES = (("/adressen", {"q": SEARCH_TERM}), ("/adressenuitgebreid", {"q": SEARCH_TERM}))


def check_base_url(profile: Profile, get: Get, *, probe_base: Callable[[str], Get] | None = None,
                   command: str = "run") -> None:
    """Before anything is judged or discovered: the profile's base URL reaches the address API.
    When every collection of BASE_PROBES answers 404 there, base_url lacks the API's path prefix
    (or names another one): ConfigError (exit 2) naming services.address.base_url, and the
    prefix of the description's `servers` URL when base_url lacks it, tried once with
    `probe_base(candidate)` (a getter on that base URL) to say whether the API answers there.
    Two requests when the base URL is right, three at most when it is not. An answer that
    shows nothing (a transport failure, a spent budget) leaves the judgement to the checks."""
    service = profile.address
    assert service is not None and service.base_url
    seen = []
    for path, params in BASE_PROBES:
        status = _status_of(get, path, params)
        if status != 404:
            return
        seen.append(f"GET {_shown(path, params)} -> 404")
    base = service.base_url.rstrip("/")
    prefix = _described_prefix(profile)
    hint = ""
    if prefix and not urlsplit(base).path.rstrip("/").endswith(prefix):
        candidate = _with_prefix(base, prefix)
        there = _status_of(probe_base(candidate), *BASE_PROBES[0]) if probe_base is not None else None
        if there is not None and there != 404:
            hint = (f"; the description's servers URL has the path prefix {prefix}, and under it the API answers "
                    f"(GET {candidate}{_shown(*BASE_PROBES[0])} -> {there}): set base_url = \"{candidate}\"")
        else:
            hint = (f"; the description's servers URL has the path prefix {prefix}, which base_url lacks: "
                    f"try base_url = \"{candidate}\"")
    else:
        hint = "; check the host and the path prefix the deployment serves the API under"
    action = "discovered" if command == "discover" else "judged"
    raise ConfigError(f"{profile.path}: key services.address.base_url = \"{service.base_url}\" does not reach the "
                      f"address API: {' and '.join(seen)}, where the API answers every valid query with 200{hint}. Nothing was {action}: a configuration error, not a verdict on the server")


def _shown(path: str, params: dict[str, str]) -> str:
    from urllib.parse import urlencode

    return f"{path}?{urlencode(params)}"


def _status_of(get: Get, path: str, params: dict[str, str]) -> int | None:
    """The status of GET path?params; None when the answer shows nothing."""
    try:
        return get(path, list(params.items())).status
    except Exception:  # noqa: BLE001 - a transport failure, a limit, a spent budget: the checks say what they meet
        return None


def _described_prefix(profile: Profile) -> str:
    """The path of the description's first `servers` URL (the API's path prefix), or ""."""
    from conformance.openapi.loader import load_description

    assert profile.address is not None
    try:
        servers = load_description(profile.address).get("servers") or []
        url = servers[0].get("url", "") if isinstance(servers[0], dict) else ""
    except (ConfigError, IndexError, AttributeError, TypeError):
        return ""
    return urlsplit(str(url)).path.rstrip("/")


def _with_prefix(base: str, prefix: str) -> str:
    """base_url with the prefix after its origin, or after the part of the prefix it has."""
    parts = urlsplit(base)
    path = parts.path.rstrip("/")
    segments = prefix.strip("/").split("/")
    for cut in range(len(segments), 0, -1):  # base_url ends with the prefix's first segments: keep them
        head = "/" + "/".join(segments[:cut])
        if path.endswith(head):
            return base + "/" + "/".join(segments[cut:]) if segments[cut:] else base
    return base + prefix


def validate(profile: Profile, get: Get, *, log: Callable[[str], None] = lambda _: None,
             concurrency: int = 1) -> dict[str, str]:
    """Run start: every sample the profile names against its contract.

    Who is to blame when a sample misses it decides what happens (README "Samples"):
    * never verified (not in [services.address.samples_verified] with this value): the
      user's sample is wrong, and the run stops (ConfigError: exit 2) naming the sample
      and what it lacks;
    * verified by `conformance discover` before: the environment changed (its behaviour,
      or its data), so the run goes on and the checks judge the server with the sample;
      returned as sample -> what changed, for the report.
    One the server's answers do not allow judging is left to the checks (they judge the
    server). The first answer that breaks HTTP or a limit ends the validation. `concurrency`:
    samples verified at once (each sample's requests stay in their order); the outcome is the
    serial one's."""
    service = profile.address
    if service is None or not service.samples:
        return {}
    samples = dict(service.samples)
    unanswered = threading.Event()  # a sample not started by then is not verified, as in a serial validation

    def verified(name: str, value: str) -> Callable[[], Verdict | C.Unanswered | None]:
        def verify() -> Verdict | C.Unanswered | None:
            if unanswered.is_set():
                return None
            try:
                return C.verify(get, name, value, samples)
            except C.Unanswered as why:
                unanswered.set()
                return why
        return verify

    verdicts: list[Verdict] = []
    for verdict in concurrently([verified(name, value) for name, value in samples.items()], concurrency):
        if not isinstance(verdict, Verdict):  # the first unanswered, in the samples' order, ends the validation
            log(f"samples not verified: {verdict}")
            break
        verdicts.append(verdict)
        if verdict.outcome == "unverifiable":
            log(f"sample {verdict.name} {verdict.value} could not be verified ({verdict.detail}); "
                "the checks starting from it judge")
    verified_at = service.samples_verified.get("at", "?")
    regressed = {v.name: f"sample {v.name} {v.value} met its contract when `conformance discover` verified it "
                         f"({verified_at}) and does not now: it {v.detail}; the environment changed (its behaviour "
                         "or its data), and the checks starting from it judge the server with it"
                 for v in verdicts if v.outcome == "lacks" and service.samples_verified.get(v.name) == v.value}
    for text in regressed.values():
        log(text)
    lacking = [v for v in verdicts if v.outcome == "lacks" and v.name not in regressed]
    if lacking:
        lines = "\n".join(f"  {v.name} = {v.value!r} (services.address.samples.{v.name}) {v.detail}; "
                          f"it must be {ADDRESS_SAMPLES[v.name]}" for v in lacking)
        raise ConfigError(f"{profile.path}: {len(lacking)} sample(s) miss their contract (README, \"Samples\"):\n"
                          f"{lines}\n  `conformance discover --profile {profile.path}` finds samples that meet them")
    return regressed


# What `discover` owns in a profile: the keys of [services.address.samples] and
# [services.address.samples_verified], the comments it writes there itself, and the skeleton's
# commented placeholders of those keys (`# pand = "..."`, `# [services.address.samples_verified]`,
# `# at = "..."`). Everything else -- every other section and comment, in either table too -- stays
# byte for byte where it was.
_OWN_COMMENT = re.compile(
    r"#\s*(written by `conformance discover`"
    r"|(?P<missed>[a-z_]+): not found \("
    r"|(?P<placeholder>[a-z_]+) = \"\.\.\.\""
    r"|\[services\.address\.samples_verified\]"
    r"|at = \"[^\"]*\"\s*# contract, and when)")


def _owned(key: Any, item: Any) -> bool:
    if key is not None:
        return key.key in ADDRESS_SAMPLES or key.key == "at"
    if not isinstance(item, tomlkit.items.Comment):
        return False
    match = _OWN_COMMENT.match(item.as_string().strip())
    if match is None:
        return False
    name = match.group("missed") or match.group("placeholder")
    return name is None or name in ADDRESS_SAMPLES


def _split(table: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """The items of a table's body before the first item discover owns, between its first and
    last (not its own), and after its last; without one of its own: all of them before."""
    body = list(table.value.body) if isinstance(table, tomlkit.items.Table) else []
    owned = [i for i, (key, item) in enumerate(body) if _owned(key, item)]
    if not owned:
        return body, [], []
    first, last = owned[0], owned[-1]
    between = [pair for pair in body[first:last + 1] if not _owned(*pair)]
    return body[:first], between, body[last + 1:]


def _table(before: list[Any], ours: list[tuple[str | None, Any]], after: list[Any], old: Any) -> Any:
    table = tomlkit.table()
    if isinstance(old, tomlkit.items.Table):  # the header line as the user wrote it: its comment, its indent
        table.trivia.comment, table.trivia.comment_ws = old.trivia.comment, old.trivia.comment_ws
        table.trivia.indent = old.trivia.indent
    for key, item in [*before, *ours, *after]:
        if key is None:
            table.add(item)
        else:
            table.add(key, item)
    return table


def write_samples(path: Path, verdicts: dict[str, Verdict], sent: int,
                  lacking: dict[str, list[C.Missing] | None] | None = None) -> None:
    """Write the samples of the profile file: [services.address.samples], each verified sample
    with a comment saying what was verified (and what checks need of it beyond its contract
    that it lacks: `lacking`), each one not found as a comment saying why; and
    [services.address.samples_verified], what met its contract and when. Only what discover
    owns there changes (_owned); every other section and comment stays as it was."""
    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    address = doc["services"]["address"]  # type: ignore[index]
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    ours: list[tuple[str | None, Any]] = [(None, tomlkit.comment(
        f"written by `conformance discover` on {stamp} ({sent} requests); each value met its contract then "
        "(README, \"Samples\")"))]
    for name in ADDRESS_SAMPLES:
        verdict = verdicts.get(name)
        if verdict is not None and verdict.outcome != "lacks":
            value = tomlkit.string(verdict.value)
            note = verdict.detail if verdict.ok else f"as given, not verified: {verdict.detail}"
            gaps = (lacking or {}).get(name)
            if gaps:
                note += "; lacks what some checks need: " + "; ".join(m.what for m in gaps)
            value.comment(note)
            ours.append((name, value))
        else:
            why = f"last candidate {verdict.value}: {verdict.detail}" if verdict is not None else "no candidate met"
            ours.append((None, tomlkit.comment(f"{name}: not found ({why}); the checks that need it are not judged")))
    old_samples = address.get("samples")  # type: ignore[union-attr]
    old_record = address.get("samples_verified")  # type: ignore[union-attr]
    before, between, after = _split(old_samples)
    # What met its contract, and when: a later run that finds one of these lacking blames
    # the environment, not the profile (validate).
    record: list[tuple[str | None, Any]] = [
        (None, tomlkit.comment("written by `conformance discover`: the samples that met their contract, and when")),
        ("at", tomlkit.string(stamp))]
    record += [(name, tomlkit.string(v.value)) for name in ADDRESS_SAMPLES if (v := verdicts.get(name)) is not None and v.ok]
    if old_record is None:
        # A new table goes right after the samples: what followed them (other sections' comments)
        # follows the new table, as it followed the samples.
        address["samples"] = _table(before, ours, between, old_samples)  # type: ignore[index]
        address["samples_verified"] = _table([], record, after, None)  # type: ignore[index]
    else:
        address["samples"] = _table(before, ours, [*between, *after], old_samples)  # type: ignore[index]
        r_before, r_between, r_after = _split(old_record)
        address["samples_verified"] = _table(r_before, record, [*r_between, *r_after], old_record)  # type: ignore[index]
    text = tomlkit.dumps(doc)
    tomlkit.parse(text)  # what we write must load again
    path.write_text(text, encoding="utf-8")
