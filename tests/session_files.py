"""Where a test session's files go: a folder in memory (tests/conftest.py asks for it as the session
starts, and removes it when the session passes or collected nothing)."""

from __future__ import annotations

import os
from pathlib import Path

# The session's files -- tmp_path, and whatever the runs the tests start write (reports,
# allure-results, attachments, captures) -- go to memory where the machine has a tmpfs and
# TMPDIR is not set: about 150,000 files and 1.7 GB in one session, where creating a file
# took 0.98 ms on the disk of this project's machines and 0.04 ms in /dev/shm (an address run
# attaches every exchange it makes: a tenth of its time went to creating files). The folder
# is removed when the session passes; after a failure it is kept, and named, for a look, until
# a later session fails: a session removes, as it starts, the folders of ended sessions but the
# newest (memory is RAM: a day of failed and interrupted sessions had kept 19 GB of it).
MEMORY = Path("/dev/shm")
PREFIX = "registry-conformance-tests-"
OWNER = "owner.pid"  # the controller's pid: a folder whose owner still runs is never swept
NEEDED_BYTES = 6 * 2**30  # a session's files, with room to spare


def in_memory_root() -> str | None:
    import shutil
    import tempfile

    if os.environ.get("TMPDIR") or not MEMORY.is_dir() or not os.access(MEMORY, os.W_OK):
        return None
    sweep_ended_sessions(MEMORY)
    if shutil.disk_usage(MEMORY).free < NEEDED_BYTES:
        return None
    root = tempfile.mkdtemp(prefix=PREFIX, dir=MEMORY)
    Path(root, OWNER).write_text(str(os.getpid()), encoding="ascii")
    return root


def sweep_ended_sessions(memory: Path, keep: int = 1) -> list[Path]:
    """Remove the folders of ended sessions but the newest `keep`; what was removed. Another
    session may sweep at the same time: a folder gone meanwhile is passed over."""
    import shutil

    ended = []
    for folder in memory.glob(PREFIX + "*"):
        try:
            changed = folder.stat().st_mtime
            if folder.is_dir() and not _owner_runs(folder, changed):
                ended.append((changed, folder))
        except OSError:  # removed by another session's sweep
            continue
    ended.sort(reverse=True)
    removed = [folder for _, folder in ended[keep:]]
    for folder in removed:
        shutil.rmtree(folder, ignore_errors=True)
    return removed


def _owner_runs(folder: Path, changed: float) -> bool:
    import time

    try:
        pid = int((folder / OWNER).read_text(encoding="ascii"))
    except FileNotFoundError:  # a session's first instant, or one of a checkout from before pid
        return time.time() - changed < 6 * 3600  # files, perhaps still running
    except ValueError:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it runs
        return True
    return True
