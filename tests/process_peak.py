"""The peak resident memory of a process tree, for the tests that bound a run's memory.

`wait4`'s ru_maxrss is no good here: Linux carries the high-water mark of the forking
process over an exec, so a run started from a large test worker reports the worker's size
(464 MB seen in CI for runs that peaked at 150 MB). VmHWM in /proc is the process's own
peak since its exec; sampled over the whole tree (the run and its xdist workers) while it
runs, it only ever grows, so the last sample before a process ends is close to its peak.
"""

from __future__ import annotations

import contextlib
from pathlib import Path


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            # the command name (2nd field) may hold spaces and parentheses: split after it
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def _vm_hwm_kb(pid: int) -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


class PeakRss:
    """The largest VmHWM any process of the tree showed, over the samples taken."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak_kb = 0

    def sample(self) -> None:
        pending, seen = [self.root], set()
        while pending:
            pid = pending.pop()
            if pid in seen:
                continue
            seen.add(pid)
            self.peak_kb = max(self.peak_kb, _vm_hwm_kb(pid))
            pending.extend(_children(pid))

    @property
    def peak_mb(self) -> float:
        return self.peak_kb / 1024
