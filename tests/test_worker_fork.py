"""A run's xdist workers are forks of a preloaded process (conformance/worker_fork.py): each is
the interpreter execnet asked for, with the launcher's environment, working directory and
pipes; a signal for the process group reaches the worker once; without the preloaded process
a fresh interpreter starts instead. Whole runs with workers compare their verdicts with one-process
runs in tests/test_concurrent_verdicts.py and tests/test_parallel_verdicts.py."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import execnet
import forked_cli
import pytest
from process_peak import _children

from conformance.worker_fork import Zygote

ASK = """
import os, signal, sys
channel.send({"pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(), "marker": os.environ.get("FORK_MARKER"),
              "preloaded": "conformance.pytest_plugin" in sys.modules, "argv": sys.argv,
              "ctrl_c": signal.getsignal(signal.SIGINT) is signal.default_int_handler})
"""


def _ask(spec: str, cwd: Path, marker: str, monkeypatch: pytest.MonkeyPatch) -> tuple[execnet.Gateway, dict]:
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("FORK_MARKER", marker)
    gateway = execnet.makegateway(spec)
    return gateway, gateway.remote_exec(ASK).receive(timeout=60)


def _gone(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:  # gone since
            return True
        if state == "Z":  # a zombie (not yet reaped) has ended too
            return True
        time.sleep(0.05)  # polling a process's end, not synchronising with it
    return False


def test_a_worker_is_a_fork_of_the_preloaded_process_until_it_has_gone(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    zygote = Zygote()
    try:
        gateway, seen = _ask(zygote.spec(), tmp_path, "first", monkeypatch)
        launcher = gateway._io.popen.pid  # noqa: SLF001 - the process execnet started
        assert seen["ppid"] == zygote.proc.pid and seen["pid"] != launcher
        assert seen["preloaded"] and seen["cwd"] == str(tmp_path) and seen["marker"] == "first"
        assert seen["argv"] == ["-c"] and seen["ctrl_c"]  # Ctrl-C interrupts it, as a fresh interpreter
        gateway.exit()
        assert _gone(seen["pid"]) and gateway._io.popen.wait(timeout=10) == 0  # noqa: SLF001

        # Ctrl-C reaches every process of the group: the worker has its own, once; the launcher
        # passes none on (a second SIGINT would interrupt the worker at once) and waits.
        gateway, seen = _ask(zygote.spec(), tmp_path, "second", monkeypatch)
        launcher = gateway._io.popen.pid  # noqa: SLF001
        os.kill(launcher, signal.SIGINT)
        assert gateway.remote_exec("channel.send(1)").receive(timeout=30) == 1  # the worker still answers
        assert gateway._io.popen.poll() is None  # noqa: SLF001 - nor has the launcher gone
        gateway.exit()
        assert _gone(seen["pid"]) and gateway._io.popen.wait(timeout=10) == 0  # noqa: SLF001
    finally:
        zygote.close()
    assert not Path(zygote.folder).exists()
    # Without the preloaded process: the interpreter execnet asked for, started fresh.
    gateway, seen = _ask(zygote.spec(), tmp_path, "third", monkeypatch)
    try:
        assert seen["pid"] == gateway._io.popen.pid and not seen["preloaded"]  # noqa: SLF001
        assert seen["cwd"] == str(tmp_path) and seen["marker"] == "third" and seen["ctrl_c"]
    finally:
        gateway.exit()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _worker_pids(report: Path) -> set[int]:
    """The processes a run's tests ran in: the Allure results' thread labels ("PID-...")."""
    return {int(label["value"].split("-", 1)[0]) for result in (report / "allure-results").glob("*-result.json")
            for label in json.loads(result.read_text())["labels"] if label["name"] == "thread"}


def test_a_runs_workers_are_forks_of_its_preloaded_process(tmp_path: Path) -> None:
    """`conformance run -n 2`: the workers the tests ran in are children of one preloaded
    process, itself a fork of the command (one thread when it starts it: the same command
    line), neither of them a launcher; the run judges as one with fresh workers would."""
    report = tmp_path / "run"
    proc = forked_cli.Forked([*forked_cli.CLI, "run", "--suite", "soap", "-n", "2", "--no-html", "--report-dir",
                              str(report), "--check", "soap.request.doctype_rejected",
                              "--check", "soap.request.non_xml_rejected"],
                             stdout=tmp_path / "out.txt", stderr=tmp_path / "out.txt", cwd=str(tmp_path))
    parent_of: dict[int, int] = {}
    launchers: set[int] = set()
    command_line: dict[int, str] = {}
    while proc.poll() is None:
        for pid in (proc.pid, *_children(proc.pid)):
            # The last one read: a process started with exec has its parent's until it has exec'd.
            command_line[pid] = _cmdline(pid) or command_line.get(pid, "")
            if pid != proc.pid:
                parent_of[pid] = proc.pid
                if "worker_launcher.py" in command_line[pid]:
                    launchers.add(pid)
                for grandchild in _children(pid):
                    parent_of[grandchild] = pid
        time.sleep(0.05)  # sampling the process tree while the run goes, not synchronising with it
    assert proc.returncode == 0, (tmp_path / "out.txt").read_text()[-3000:]
    workers = _worker_pids(report)
    assert len(workers) == 2 and not workers & launchers, (workers, launchers)
    preloaded = {parent_of.get(worker) for worker in workers}
    assert len(preloaded) == 1 and None not in preloaded, (workers, parent_of)
    zygote = preloaded.pop()
    assert parent_of.get(zygote) == proc.pid and zygote not in launchers, (zygote, parent_of)
    assert command_line[zygote] == command_line[proc.pid], command_line  # a fork keeps the command line
    summary = json.loads((report / "summary.json").read_text())
    assert {e["check"]: e["outcome"] for e in summary["checks"]} == {
        "soap.request.doctype_rejected": "passed", "soap.request.non_xml_rejected": "passed"}


def test_a_run_of_one_check_keeps_to_one_process_and_of_two_forks_workers(tmp_path: Path) -> None:
    """`conformance run --check ID` with the default workers (auto): one check's tests run in
    the command's own process (the Allure results' thread label names it); two checks' in the
    workers."""
    ran_in: dict[int, set[int]] = {}
    for checks in (["soap.request.doctype_rejected"], ["soap.request.doctype_rejected", "soap.request.non_xml_rejected"]):
        report = tmp_path / f"run-{len(checks)}"
        proc = forked_cli.Forked([*forked_cli.CLI, "run", "--suite", "soap", "--no-html", "--report-dir", str(report),
                                  *(arg for check in checks for arg in ("--check", check))],
                                 stdout=tmp_path / "out.txt", stderr=tmp_path / "out.txt", cwd=str(tmp_path))
        assert proc.wait(timeout=300) == 0, (tmp_path / "out.txt").read_text()[-3000:]
        ran_in[len(checks)] = _worker_pids(report)
        summary = json.loads((report / "summary.json").read_text())
        assert {e["check"] for e in summary["checks"]} == set(checks)
        if len(checks) == 1:
            assert ran_in[1] == {proc.pid}, (ran_in, proc.pid)
    assert proc.pid not in ran_in[2], ran_in  # in the workers
