"""A test session's folder in memory (tests/session_files.py): a failed session's is kept for a
look, but failed and interrupted sessions do not pile up in RAM."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from session_files import OWNER, PREFIX, sweep_ended_sessions


def _session(memory: Path, name: str, pid: int | None, age_s: float) -> Path:
    folder = memory / (PREFIX + name)
    (folder / "run").mkdir(parents=True)
    (folder / "run" / "summary.json").write_text("{}")
    if pid is not None:
        (folder / OWNER).write_text(str(pid))
    when = time.time() - age_s
    os.utime(folder, (when, when))
    return folder


def _ended_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_ended_sessions_but_the_newest_are_removed_and_running_ones_kept(tmp_path: Path) -> None:
    gone = _ended_pid()
    running = _session(tmp_path, "running", os.getpid(), age_s=7200)
    newest_ended = _session(tmp_path, "failed-last", gone, age_s=600)
    older_ended = _session(tmp_path, "failed-before", gone, age_s=3600)
    before_pid_files = _session(tmp_path, "old", None, age_s=86400)
    just_made = _session(tmp_path, "starting", None, age_s=1)  # its pid file is not written yet
    other = tmp_path / "someone-else"
    other.mkdir()

    removed = sweep_ended_sessions(tmp_path)

    assert sorted(removed) == sorted([older_ended, before_pid_files])
    assert not older_ended.exists() and not before_pid_files.exists()
    assert running.is_dir() and newest_ended.is_dir() and just_made.is_dir() and other.is_dir()
    assert sweep_ended_sessions(tmp_path) == []  # the newest ended one stays for a look


def test_a_folder_another_session_sweeps_meanwhile_is_passed_over(tmp_path: Path, monkeypatch) -> None:
    import shutil

    import session_files

    gone = _ended_pid()
    first = _session(tmp_path, "first", gone, age_s=600)
    second = _session(tmp_path, "second", gone, age_s=3600)
    third = _session(tmp_path, "third", gone, age_s=7200)
    asked = session_files._owner_runs

    def another_sweep_meanwhile(folder: Path, changed: float) -> bool:
        for other in (first, second, third):
            if other != folder:
                shutil.rmtree(other, ignore_errors=True)  # as a session starting beside this one does
        return asked(folder, changed)

    monkeypatch.setattr(session_files, "_owner_runs", another_sweep_meanwhile)
    session_files.sweep_ended_sessions(tmp_path)  # raises nothing
    assert len([f for f in (first, second, third) if f.exists()]) <= 1
