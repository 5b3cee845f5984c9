"""One fuzzing pass per address operation, judged by every group of checks that fuzzes it.

Three groups fuzz each seed operation from the same description with the same strategies:
its contract (address.contract.<operationId>, MUST), the SHOULD rules
(address.contract.should_rules) and the constraints the description marks public behaviour
(address.contract.public_behaviour). Each ran its own pass: three times the requests and the
generation for one operation's answers (two thirds of a local run's fuzzing).

Now the contract test also judges every answer of its pass with the other groups' checks,
without raising (a SHOULD finding must not cut the MUST exploration short). When the
contract test ends with nothing raised anywhere in it (every phase ran to its end: no
finding, nothing refused, stopped, blocked or not judged) and a group found nothing in any
of its answers, the ledger notes that group clean for the operation, and the group's own
test passes on that pass instead of sending its own. In every other case -- a finding of any
group, a pass cut short, the contract test not selected, not run yet or not finished -- the
group's test fuzzes on its own as before: a finding is always reported (and shrunk) by the
test of its own check, and "passed" always means the group's checks judged every answer of a
complete pass.

Across xdist workers the contract test holds its operation's lock file while it runs; a
group's test that finds it held waits for its end rather than sending the same requests
again beside it. A lock is only ever held by a test that is running, so the wait ends (a
test beside the holder in the same worker gives its turn up while it waits:
conformance/side_by_side.py).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.http.concurrency import waiting

SHOULD_RULES = "address.contract.should_rules"
PUBLIC_BEHAVIOUR = "address.contract.public_behaviour"


@dataclass
class ContractPass:
    """The other groups' judgement of one contract test's answers: `groups` maps a check id
    to the checks it judges an answer with; `found` holds the groups that found something."""

    operation_id: str
    groups: dict[str, list[Callable[..., Any]]]
    judged: int = 0
    found: set[str] = field(default_factory=set)

    def judge(self, case: Any, response: Any, **validate: Any) -> None:
        """Judge one answer with every group's checks; a finding marks its group, never raises."""
        self.judged += 1
        for check_id, checks in self.groups.items():
            if check_id in self.found:
                continue  # already found: its own test fuzzes, shrinks and reports
            try:
                case.validate_response(response, checks=list(checks), **validate)
            except Exception:  # noqa: BLE001 - any failure: the group's own test decides
                self.found.add(check_id)

    def clean_groups(self) -> list[str]:
        return [check_id for check_id in self.groups if check_id not in self.found] if self.judged else []


class Ledger:
    """The run's record of groups judged clean on a complete contract pass, in the run's
    shared directory (every process of the run sees it); None directory: this process only."""

    def __init__(self, directory: str | Path | None) -> None:
        self.folder = Path(directory) / "address-contract-pass" if directory else None
        self._local: set[str] = set()
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def running(self, operation_id: str) -> Iterator[None]:
        """Held by an operation's contract test while it runs."""
        with self._locked(operation_id):
            yield

    def note_clean(self, operation_id: str, check_ids: list[str]) -> None:
        for check_id in check_ids:
            name = _name(operation_id, check_id)
            self._local.add(name)
            if self.folder is not None:
                draft = self.folder / f"{name}.{os.getpid()}.draft"
                draft.write_text(check_id)
                draft.replace(self.folder / name)

    def judged_clean(self, operation_id: str, check_id: str) -> bool:
        """Whether `check_id` was judged clean on the operation's contract pass; waits for a
        contract test of the operation that is running now."""
        name = _name(operation_id, check_id)
        if name in self._local:
            return True
        if self.folder is None:
            return False
        with self._locked(operation_id):
            return (self.folder / name).is_file()

    @contextmanager
    def _locked(self, operation_id: str) -> Iterator[None]:
        if self.folder is None:
            yield
            return
        fd = os.open(self.folder / f"{operation_id}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                with waiting():  # the holder may be a test beside this one in this process
                    fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def _name(operation_id: str, check_id: str) -> str:
    return f"{operation_id}.{check_id.rsplit('.', 1)[-1]}.clean"
