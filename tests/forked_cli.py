"""`python -m conformance.cli ...` for the project's own tests, forked from a preloaded process.

The tests start about 300 `conformance` commands (runs, traffic, proxy, compare). A fresh
interpreter spent 1 to 2.5 CPU-seconds on each before it judged anything: importing pytest,
schemathesis, hypothesis, zeep and the harness, and every suite to know the checks
(`conformance.catalogue.load`). On two cores that was about a quarter of the test session. Here one
process (the zygote) does that once per xdist worker, and each command is a fork of it: the
same `console()` of the same modules, as a process of its own with its own arguments,
environment, working directory, output files, exit code and pid (to signal, kill or sample).

What a fork cannot change is what an interpreter reads as it starts (PYTHONHASHSEED and the
other PYTHON* variables, the locale): one zygote is started per distinct set of them, so a
test that asks for PYTHONHASHSEED=0 gets it. The forks of one zygote share its hash seed: a
test whose point is that separate processes agree (test_reproducible_runs.py,
test_concurrent_verdicts.py, test_parallel_verdicts.py) gives its runs `other_hash_seed()`,
so that two runs in a row never share one (fresh interpreters' random seeds only almost
never do). The tests of the installed command and of the README's commands start fresh
interpreters with `subprocess`.

`run` takes subprocess.run's arguments and starts anything but `python -m conformance.cli`
with subprocess.run itself; `Forked` is the Popen of a forked command. Before the first
fork the zygote also builds what every run builds the same way and keeps per process
(`conformance.worker_fork.preload`, as a run's workers' preloaded process does: the suites,
hypothesis's local constants, the shipped files; and the auth mock's signing key).
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

CLI = [sys.executable, "-m", "conformance.cli"]
# What an interpreter reads once, at its start: a zygote per distinct set of these.
_STARTUP = ("LANG", "LC_ALL", "LC_CTYPE")


def _startup_key(env: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in env.items() if k.startswith("PYTHON") or k in _STARTUP))


class _Zygote:
    """A preloaded interpreter that forks one child per command and reports each exit."""

    def __init__(self, key: tuple[tuple[str, str], ...]) -> None:
        env = {k: v for k, v in os.environ.items() if not (k.startswith("PYTHON") or k in _STARTUP)}
        self.proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env={**env, **dict(key)})
        self._lock = threading.Lock()  # one request at a time: its answer is the next "started" line
        self._started: queue.Queue[int] = queue.Queue()
        self._exits: dict[int, int] = {}
        self._exited = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            message = json.loads(line)
            if "started" in message:
                self._started.put(message["started"])
            else:
                with self._exited:
                    self._exits[message["pid"]] = message["code"]
                    self._exited.notify_all()
        self._started.put(-1)  # the zygote is gone: no start is waited for forever

    def start(self, request: dict[str, Any]) -> int:
        with self._lock:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
            pid = self._started.get(timeout=60)
        if pid < 0:
            raise RuntimeError("the preloaded process for `conformance` commands has ended (see stderr)")
        return pid

    def wait(self, pid: int, timeout: float | None) -> int | None:
        with self._exited:
            self._exited.wait_for(lambda: pid in self._exits, timeout)
            return self._exits.get(pid)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


_ZYGOTES: dict[tuple[tuple[str, str], ...], _Zygote] = {}
_RUNS = itertools.count()


def other_hash_seed() -> dict[str, str]:
    """PYTHONHASHSEED for the next of two runs that must agree: 1 and 2 in turn."""
    return {"PYTHONHASHSEED": str(next(_RUNS) % 2 + 1)}


def _zygote(env: dict[str, str]) -> _Zygote:
    key = _startup_key(env)
    if key not in _ZYGOTES:
        _ZYGOTES[key] = _Zygote(key)
    return _ZYGOTES[key]


@atexit.register
def _close_all() -> None:
    for zygote in _ZYGOTES.values():
        zygote.close()


class Forked:
    """The Popen of a forked `conformance` command: pid, poll, wait, kill, send_signal."""

    def __init__(self, args: list[str], *, env: dict[str, str] | None = None, cwd: str | Path | None = None,
                 stdout: str | Path | None = None, stderr: str | Path | None = None) -> None:
        """`stdout`, `stderr`: paths the command writes to (None: the zygote's stderr; `stderr`
        equal to `stdout`: both into one file, as stderr=subprocess.STDOUT)."""
        self.args = args
        self.returncode: int | None = None
        env = dict(os.environ if env is None else env)
        self._zygote = _zygote(env)
        self.pid = self._zygote.start({"argv": [str(a) for a in args[len(CLI):]], "env": env,
                                       "cwd": str(cwd or os.getcwd()),
                                       "stdout": None if stdout is None else str(stdout),
                                       "stderr": None if stderr is None else str(stderr)})

    def poll(self) -> int | None:
        return self.wait(0) if self.returncode is None else self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        if self.returncode is None:
            self.returncode = self._zygote.wait(self.pid, timeout)
            if self.returncode is None and timeout:
                raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:  # once its exit is reported, never: the zygote has reaped it
            os.kill(self.pid, sig)

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)


def run(args: list[str], *, capture_output: bool = False, text: bool = False, timeout: float | None = None,
        cwd: str | Path | None = None, env: dict[str, str] | None = None, check: bool = False,
        stdout: Any = None, stderr: Any = None, **kwargs: Any) -> subprocess.CompletedProcess:
    """subprocess.run, with `python -m conformance.cli ...` forked from the preloaded process."""
    if list(args[:len(CLI)]) != CLI or kwargs or stdout not in (None, subprocess.PIPE, subprocess.DEVNULL) \
            or stderr not in (None, subprocess.PIPE, subprocess.DEVNULL, subprocess.STDOUT):
        return subprocess.run(args, capture_output=capture_output, text=text, timeout=timeout, cwd=cwd, env=env,
                              check=check, stdout=stdout, stderr=stderr, **kwargs)
    with tempfile.TemporaryDirectory(prefix="forked-cli-") as folder:
        def where(stream: Any, name: str) -> str | None:
            if capture_output or stream == subprocess.PIPE:
                return os.path.join(folder, name)
            return os.devnull if stream == subprocess.DEVNULL else None

        out = where(stdout, "stdout")
        err = out if stderr == subprocess.STDOUT else where(stderr, "stderr")
        proc = Forked(list(args), env=env, cwd=cwd, stdout=out, stderr=err)
        try:
            code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
            raise

        def read(path: str | None, separate: bool = True) -> Any:
            if path is None or path == os.devnull or not separate:
                return None
            data = Path(path).read_bytes()
            return data.decode(errors="replace") if text else data

        completed = subprocess.CompletedProcess(args, code, read(out), read(err, err != out))
    if check:
        completed.check_returncode()
    return completed


# --- the zygote: `python tests/forked_cli.py`, started by _Zygote --------------------------


# What a run imports once it runs (measured: the modules a full run and a `traffic` import
# beyond the command's own), the longest to import: the mocks, the description's loading,
# schemathesis's OpenAPI support and reporting, the SOAP schema's and the web servers'.
PRELOAD = (
    "conformance.mocks.launcher", "conformance.mocks.launcher_auth", "conformance.mocks.address.app",
    "conformance.mocks.auth.app", "conformance.mocks.soap.app", "conformance.serving", "conformance.preflight",
    "conformance.openapi.loader", "conformance.openapi.references", "conformance.openapi.seed_view",
    "conformance.passive.judge", "conformance.passive.traffic", "conformance.reporting.allure_extras",
    "conformance.reporting.matrix", "conformance.reporting.waivers", "conformance.run_control",
    "conformance.compare.cli", "conformance.http.soap", "conformance.checks.soap.endpoint",
    "conformance.auth.pki", "conformance.auth.session", "conformance.auth.jwks_publisher",
    "schemathesis.specs.openapi.schemas", "schemathesis.specs.openapi.stateful", "schemathesis.specs.openapi.coverage",
    "schemathesis.specs.openapi.negative", "schemathesis.specs.openapi.examples", "schemathesis.transport.requests",
    "schemathesis.generation.dictionaries", "schemathesis.pytest.xdist", "schemathesis.reporting.allure",
    "schemathesis.reporting.html.writer", "pyrate_limiter", "yaml", "xmlschema", "elementpath",
    "zeep.wsdl.bindings", "zeep.wsdl.messages", "uvicorn", "uvicorn.protocols.http.httptools_impl", "uvloop", "starlette.applications",
)


def _preload() -> None:
    import importlib

    import conformance.cli  # noqa: F401 - the command, the harness, pytest
    from conformance.mocks.auth.tokens import signing_key
    from conformance.worker_fork import preload

    for name in PRELOAD:
        importlib.import_module(name)
    preload()  # what a run's workers preload: the suites, hypothesis's constants, the shipped files
    signing_key()  # the auth mock's, one per process
    import gc

    gc.collect()
    gc.freeze()  # the forks' collections skip what was preloaded: no page copied to mark it


def _child(request: dict[str, Any], wake: tuple[int, int]) -> None:
    """In the fork: become `python -m conformance.cli ARGS` started in `cwd` with `env`."""
    import io
    import signal
    import traceback

    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a fresh interpreter has it
    for fd in wake:
        os.close(fd)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # over the zygote's request pipe
    streams = {}
    for fd, name in ((1, "stdout"), (2, "stderr")):
        path = request[name]
        if path is None:
            target = os.dup(2) if fd == 1 else 2  # the zygote's stderr: the test worker's
        elif fd == 2 and path == request["stdout"]:
            target = 1
        else:
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        if target != fd:
            os.dup2(target, fd)  # stdout: over the zygote's answer pipe
        streams[name] = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding=sys.stdout.encoding,
                                         errors="backslashreplace" if fd == 2 else sys.stdout.errors)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout, sys.stderr = streams["stdout"], streams["stderr"]
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    import conformance.cli

    sys.argv = [conformance.cli.__file__, *request["argv"]]
    sys.path[0] = os.getcwd()  # as `python -m` puts it
    try:
        conformance.cli.console()  # ends the process itself
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        if not isinstance(exit_.code, int | None):
            print(exit_.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - what an uncaught exception does to a fresh interpreter
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()  # noqa: SLF001 - what an interpreter's exit runs
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def _serve() -> None:
    import selectors
    import signal

    sys.path[0] = ""  # not this folder: each fork puts its own working directory there
    answers = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # whatever is printed here goes to stderr, never into the answers
    _preload()
    wake = os.pipe()
    os.set_blocking(wake[1], False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake[1])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the test session's Ctrl-C is for its worker
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ)
    selector.register(wake[0], selectors.EVENT_READ)
    requests = os.fdopen(os.dup(0), "rb", buffering=0)
    pending = b""
    while True:
        for key, _ in selector.select():
            if key.fd == wake[0]:
                os.read(wake[0], 4096)
                while True:
                    try:
                        pid, status = os.waitpid(-1, os.WNOHANG)
                    except ChildProcessError:
                        break
                    if not pid:
                        break
                    answers.write(json.dumps({"pid": pid, "code": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                continue
            chunk = requests.read(65536)
            if not chunk:
                return  # the test worker has gone
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    selector.close()
                    answers.close()
                    requests.close()
                    _child(json.loads(line), wake)
                answers.write(json.dumps({"started": pid}).encode() + b"\n")


if __name__ == "__main__":
    _serve()
