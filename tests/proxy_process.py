"""`conformance proxy` as a user runs it, for the tests: its output read line by line as it
comes (through a FIFO: the command is a fork, tests/forked_cli.py), stopped with Ctrl-C."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import tempfile
import threading
import time
from pathlib import Path

import forked_cli

from conformance.paths import CHECKOUT as REPO_ROOT


class ProxyProcess:
    def __init__(self, profile: Path | str, report: Path, env: dict[str, str]) -> None:
        fifo = Path(tempfile.mkdtemp(prefix="proxy-output-")) / "output"
        os.mkfifo(fifo)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, args=(fifo,), daemon=True).start()
        self.proc = forked_cli.Forked([*forked_cli.CLI, "proxy", "--profile", str(profile), "--report-dir", str(report),
                                       "--no-html"], cwd=REPO_ROOT, stdout=fifo, stderr=fifo, env=env)

    def _read(self, fifo: Path) -> None:
        with fifo.open(encoding="utf-8", errors="replace") as output:  # opens once the proxy does
            shutil.rmtree(fifo.parent)
            for line in output:
                self.lines.put(line.rstrip("\n"))

    def wait_for(self, prefix: str, timeout_s: float = 60) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no line starting {prefix!r}; seen: {self.seen[-20:]}")

    def listener(self, service: str, timeout_s: float = 60) -> str:
        return self.wait_for(f"{service}: ", timeout_s).split()[1]

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=300)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code
