"""Configuration of the local address mock (seed part 4 and 5).

The launcher builds one AddressMockConfig per mock run; tests build their own with a fake
clock so rate windows and the daily quota can be exercised without sleeping.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_BASE_PATH = "/lvbag/individuelebevragingen/v2"
API_VERSION = "2.9.2"


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class KeyPolicy:
    """What one API key may do.

    `forbidden_prefixes` are path prefixes relative to the base path (for example
    "/adressenuitgebreid"); a prefix that already starts with the base path is also
    understood. A request under one of them is answered 403 `autorisation`.
    """

    rate_limit: int = 1000
    rate_window_s: int = 1
    day_limit: int = 1_000_000
    forbidden_prefixes: tuple[str, ...] = ()


@dataclass
class AddressMockConfig:
    db_path: Path
    keys: dict[str, KeyPolicy]
    base_path: str = DEFAULT_BASE_PATH
    api_version: str = API_VERSION
    maintenance: bool = False
    retry_after_s: int = 600
    # Returns the current moment; a naive value is taken as UTC.
    clock: Callable[[], datetime] = field(default=utc_now)

    def now(self) -> datetime:
        moment = self.clock()
        if moment.tzinfo is None:
            return moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC)
