"""Sample verification and discovery against a profile's address API: the client they use,
the run-start validation (exit 2 for a sample that misses its contract), and writing the
profile's `[services.address.samples]` table."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import tomlkit

from conformance.errors import ConfigError
from conformance.http.address import AddressApi
from conformance.http.client import DiscardingRecorder, ServiceBounds
from conformance.http.redaction import Redactor
from conformance.http.schedule import Schedule
from conformance.profiles import ADDRESS_SAMPLES, Profile
from conformance.samples import contracts as C
from conformance.samples.contracts import Get, Verdict


def address_api(profile: Profile, base_url: str, secrets: dict[str, str], *,
                schedule: Schedule | None = None, bounds: ServiceBounds | None = None) -> AddressApi:
    """The profile's address API with the valid key, paced and bounded like a run (within a
    run, its `schedule` and `bounds`: its requests count for the run's rate, budget and the
    service's breaker); nothing recorded (the sample queries are no checks)."""
    service = profile.address
    assert service is not None
    keys = {name: secrets[env] for name, env in service.secret_env.items() if env in secrets}
    return AddressApi(service, base_url=base_url, keys=keys, samples={}, limits=profile.limits,
                      redactor=Redactor(secrets.values()), recorder=DiscardingRecorder(), schedule=schedule,
                      bounds=bounds)


def getter(api: AddressApi) -> Get:
    return lambda path, params: api.get(path, params=params)


def validate(profile: Profile, get: Get, *, log: Callable[[str], None] = lambda _: None) -> dict[str, str]:
    """Run start: every sample the profile names against its contract.

    Who is to blame when a sample misses it decides what happens (README "Samples"):
    * never verified (not in [services.address.samples_verified] with this value): the
      user's sample is wrong, and the run stops (ConfigError: exit 2) naming the sample
      and what it lacks;
    * verified by `conformance discover` before: the environment changed (its behaviour,
      or its data), so the run goes on and the checks judge the server with the sample;
      returned as sample -> what changed, for the report.
    One the server's answers do not allow judging is left to the checks (they judge the
    server). The first answer that breaks HTTP or a limit ends the validation."""
    service = profile.address
    if service is None or not service.samples:
        return {}
    verdicts: list[Verdict] = []
    for name, value in service.samples.items():
        try:
            verdict = C.verify(get, name, value, dict(service.samples))
        except C.Unanswered as why:
            log(f"samples not verified: {why}")
            break
        verdicts.append(verdict)
        if verdict.outcome == "unverifiable":
            log(f"sample {name} {value} could not be verified ({verdict.detail}); the checks starting from it judge")
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


def write_samples(path: Path, verdicts: dict[str, Verdict], sent: int) -> None:
    """Write the samples table of the profile file: each verified sample with a comment saying
    what was verified, each one not found as a comment saying why; the rest of the file as it was."""
    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    address = doc["services"]["address"]  # type: ignore[index]
    table = tomlkit.table()
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    table.add(tomlkit.comment(f"written by `conformance discover` on {stamp} ({sent} requests); "
                              "each value met its contract then (README, \"Samples\")"))
    for name in ADDRESS_SAMPLES:
        verdict = verdicts.get(name)
        if verdict is not None and verdict.outcome != "lacks":
            table.add(name, verdict.value)
            table[name].comment(verdict.detail if verdict.ok else f"as given, not verified: {verdict.detail}")
        else:
            why = f"last candidate {verdict.value}: {verdict.detail}" if verdict is not None else "no candidate met"
            table.add(tomlkit.comment(f"{name}: not found ({why}); the checks that need it do not apply"))
    address["samples"] = table  # type: ignore[index]
    # What met its contract, and when: a later run that finds one of these lacking blames
    # the environment, not the profile (validate).
    record = tomlkit.table()
    record.add(tomlkit.comment("written by `conformance discover`: the samples that met their contract, and when"))
    record.add("at", stamp)
    for name in ADDRESS_SAMPLES:
        verdict = verdicts.get(name)
        if verdict is not None and verdict.ok:
            record.add(name, verdict.value)
    address["samples_verified"] = record  # type: ignore[index]
    text = tomlkit.dumps(doc)
    tomlkit.parse(text)  # what we write must load again
    path.write_text(text, encoding="utf-8")
