"""What a request is, and whether the profile lets it leave the harness.

Every request the bounded client sends carries an intent: `valid` (a conforming server
serves it), `refused` (designed to be refused: it breaks the seed's rules for the client,
carries no key or a wrong one, or a key on a path it has no rights for), `flood` (exceeds a
rate limit or quota on purpose) or `fuzz` (generated from the description). A refused
request is recognised by construction -- the service's classifier reads the request itself
(conformance/checks/client/requests.py `refusal` for the address API) -- so no check can
forget to say so. The profile's safety switches are enforced here, where requests leave:
a request the switches forbid is not sent, and its check is not judged, naming the switch
(safety.negative, safety.flood, safety.fuzz), whatever the check declared.

The intent is kept on the exchange (`notes["intent"]`, and in traffic.har), so that judging
the run's own traffic never reports the harness's deliberate bad requests as a client's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from conformance.errors import NotJudged


class Intent(StrEnum):
    VALID = "valid"
    REFUSED = "refused"
    FLOOD = "flood"
    FUZZ = "fuzz"


# The switch that allows each intent, and what such requests do (the not-judged reason's words).
SWITCH = {Intent.REFUSED: "negative", Intent.FLOOD: "flood", Intent.FUZZ: "fuzz"}
DOES = {Intent.REFUSED: "sends requests designed to be refused", Intent.FLOOD: "exceeds rate limits on purpose",
        Intent.FUZZ: "sends generated requests"}
NOTE = "intent"  # Exchange.notes key: the intent of a request that is not `valid`
WHY = "intent_why"  # Exchange.notes key: why it was classified so


@dataclass(frozen=True)
class Switches:
    """The profile's safety switches as the client enforces them (all allowed by default: a
    client made outside a run, for a test or a tool, sends what it is asked to)."""

    negative: bool = True
    flood: bool = True
    fuzz: bool = True

    @classmethod
    def of(cls, safety: Any) -> Switches:
        return cls(negative=bool(safety.negative), flood=bool(safety.flood), fuzz=bool(safety.fuzz))

    def allows(self, intent: Intent) -> bool:
        switch = SWITCH.get(intent)
        return switch is None or bool(getattr(self, switch))

    def admit(self, intent: Intent, why: str | None) -> None:
        """Raise NotJudged, naming the switch, when the profile forbids `intent`."""
        if self.allows(intent):
            return
        switch = SWITCH[intent]
        raise NotJudged(f"forbidden by safety.{switch} = false",
                        f"the check {DOES[intent]}" + (f" ({why})" if why else "")
                        + f"; a profile for an environment that may receive them sets safety.{switch} = true")


def forbidden_kinds(sends: tuple[str, ...], switches: Switches) -> list[str]:
    """The switches that forbid what a check declares it sends (its `sends` kinds)."""
    return [SWITCH[Intent(kind)] for kind in sends if kind in Intent.__members__.values()
            and not switches.allows(Intent(kind))]
