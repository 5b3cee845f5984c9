"""A run's xdist workers, forked from one process that has imported the harness already.

A fresh worker spent about 2.5 CPU-seconds before its first test, most of it importing
pytest, schemathesis, hypothesis, zeep and the suites, and building what every process of a
run builds the same way (the description, the SOAP types schema, hypothesis's constants).
Now `conformance run` starts one process for that as soon as it knows the run has workers
(`preloaded_workers`, from conformance/cli.py): a fork of the command (`_start`), which imports
and builds on the second core while the command itself loads the checks and starts pytest and
the mocks, and then forks each worker xdist asks for. xdist starts a worker as `python -u -c
BOOTSTRAP` (execnet's popen gateway); here the "python" it starts is
conformance/worker_launcher.py, which hands its stdin, stdout, stderr, environment and working
directory over a Unix socket, and the fork becomes that interpreter:
the same bootstrap, read from the same pipe. Where the preloaded process is gone (it ends
with the run, or failed), the launcher starts a fresh interpreter: never a worker less.
Gateways a user names (`--tx`) are left as they are, and so is a session started by
`pytest` itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

LAUNCHER = Path(__file__).with_name("worker_launcher.py")


class Zygote:
    """The controller's handle on the preloaded process."""

    def __init__(self) -> None:
        # A folder only the user may enter; in /tmp, as a socket's path has at most 107 bytes.
        self.folder = tempfile.mkdtemp(prefix="conformance-workers-", dir="/tmp" if os.path.isdir("/tmp") else None)
        self.address = os.path.join(self.folder, "fork.sock")
        # Listening before the process starts: a launcher that comes early waits in the queue.
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
                listener.bind(self.address)
                listener.listen(64)
                self.proc = _start(listener.fileno())
        except OSError:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise

    def spec(self) -> str:
        """An execnet popen spec whose interpreter is the launcher."""
        return "popen//python=" + shlex.join([sys.executable, "-I", "-S", str(LAUNCHER), self.address])

    def close(self) -> None:
        """Ends the process at once (the workers it forked live on): a run that stops before
        its workers start (a profile mistake, exit 2) does not wait for the imports."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdin.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _start(listening_fd: int) -> subprocess.Popen | _ForkOfCommand:
    """The preloaded process: a fork of the command while it is the only thread, else a fresh
    interpreter (another thread may hold a lock that a fork would keep locked forever). The fork
    imports only what the command has not: none of it where the command is itself a fork of a
    preloaded process, as the project's tests start their commands (tests/forked_cli.py), where a
    run of the SOAP or the authorization suite with two workers took 4.4 to 5.9 CPU-seconds
    rather than 8.5 to 9.9 with a fresh interpreter."""
    if threading.active_count() > 1 or not hasattr(os, "fork"):
        return subprocess.Popen([sys.executable, "-m", "conformance.worker_fork", str(listening_fd)],
                                stdin=subprocess.PIPE, pass_fds=[listening_fd])
    return _ForkOfCommand(listening_fd)


class _ForkOfCommand:
    """The Popen of the preloaded process forked from the command: its end of a pipe is what
    its stdin is to a fresh interpreter (closed: the controller is done with it)."""

    def __init__(self, listening_fd: int) -> None:
        done_r, done_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            code = 1
            try:
                os.close(done_w)
                import signal

                for sig in (signal.SIGTERM, signal.SIGHUP):  # as a fresh interpreter has them
                    signal.signal(sig, signal.SIG_DFL)
                serve(listening_fd, done_r)
                code = 0
            except BaseException:  # noqa: BLE001 - what an uncaught exception does to an interpreter
                import traceback

                traceback.print_exc()
            finally:
                with contextlib.suppress(Exception):  # what an interpreter's exit flushes
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(code)  # never back into the command's code, nor its exit functions
        os.close(done_r)
        self.stdin = os.fdopen(done_w, "wb")
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self._reaped(os.WNOHANG)

    def wait(self) -> int:
        return self._reaped(0)

    def _reaped(self, options: int) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, options)
            except ChildProcessError:  # reaped already (a handler of the command's own): ended
                pid, status = self.pid, 0
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        """As Popen.kill: nothing once reaped (its pid may be another process's by then)."""
        import signal

        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)


class ForkedWorkers:
    """A pytest plugin object for one session (`pytest.main(plugins=[...])`): its popen workers
    are forks of the preloaded process, which stays until the run ends, so that the workers
    remain the run's descendants (a process tree's memory is sampled, a restarted worker is
    forked too) and are reaped as they end."""

    def __init__(self, zygote: Zygote) -> None:
        self.zygote = zygote

    @pytest.hookimpl(trylast=True)  # after xdist has made its specs of -n
    def pytest_configure(self, config: pytest.Config) -> None:
        specs = getattr(config.option, "tx", None) or []
        if specs and all(spec == "popen" for spec in specs):
            config.option.tx = [self.zygote.spec()] * len(specs)  # gateways the user chose stay theirs


@contextlib.contextmanager
def preloaded_workers(workers: str) -> Iterator[list[Any]]:
    """The plugins for a run's session (`pytest.main(plugins=...)`) when it has xdist workers
    (`conformance run -n`: a number above 1, or auto): the preloaded process starts now, while
    the command still loads the checks and starts pytest and the mocks."""
    if str(workers) in ("0", "1") or os.name != "posix":
        yield []
        return
    try:
        zygote = Zygote()
    except OSError:  # no socket or process to be had: the workers start as fresh interpreters
        yield []
        return
    try:
        yield [ForkedWorkers(zygote)]
    finally:
        zygote.close()


# --- the preloaded process: a fork of the command, or `python -m conformance.worker_fork FD` ---


def preload() -> None:
    """What every process of a run imports and builds the same way before it knows its run
    (here and in the project's tests' preloaded process, tests/forked_cli.py)."""
    import importlib
    import pkgutil
    import warnings
    from importlib.metadata import entry_points

    import xdist.remote  # noqa: F401 - what a worker runs

    from conformance.catalogue import load
    from conformance.paths import CHECKOUT

    for plugin in entry_points(group="pytest11"):  # what pytest loads in each run: the harness's plugin too
        plugin.load()
    load()  # every suite, to know the checks
    if CHECKOUT is not None:  # the suites again, under the names pytest collects them by
        sys.path.insert(0, str(CHECKOUT))
        try:
            suites = importlib.import_module("suites")
            for info in pkgutil.walk_packages(suites.__path__, "suites."):
                importlib.import_module(info.name)
        finally:
            sys.path.remove(str(CHECKOUT))
    # Hypothesis draws constants from the local modules: found by reading every module not yet
    # seen when a run first collects (about 0.2 s). Read here once, a fork reads only what it
    # imports itself; the union is the same.
    from hypothesis.errors import HypothesisSideeffectWarning
    from hypothesis.internal.conjecture.providers import _get_local_constants

    with warnings.catch_warnings():  # "slow code in plugin": here, on purpose, once
        warnings.simplefilter("ignore", HypothesisSideeffectWarning)
        _get_local_constants()
        _build_shipped()


def _build_shipped() -> None:
    """What a run builds from the shipped files and keeps per process while the files are
    unchanged (the OpenAPI description as the local-mock profile names it, the SOAP types
    schema and its strategies): built once here, a fork's run against the local mocks finds it
    built. Where one fails, each fork builds (and reports) it itself."""
    import contextlib

    from conformance.openapi.loader import load_description
    from conformance.paths import SHIPPED_PROFILES
    from conformance.profiles import load_profile
    from conformance.soap.loader import load_contract
    from conformance.soap.strategies import strategies_for

    with contextlib.suppress(Exception):
        load_description(load_profile(str(SHIPPED_PROFILES / "local-mock.toml")).address)
    with contextlib.suppress(Exception):
        strategies_for(load_contract())
    # schemathesis's invalid enum values, the same in every process (a search hypothesis
    # gives up on, about 0.7 s): cached on first use, which is every fuzzing run's.
    from schemathesis.specs.openapi.coverage._schema import _invalid_enum_candidates

    _invalid_enum_candidates()


def _become_worker(request: dict[str, Any], fds: list[int]) -> None:
    """In the fork: the interpreter `python -u [-B] -c BOOTSTRAP` the launcher was started as."""
    import atexit
    import io
    import signal
    import types

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in zip((0, 1, 2), fds[:3], strict=True):
        os.dup2(fd, target)
        os.close(fd)
    ended = fds[3]
    os.set_inheritable(ended, False)  # held by the worker alone: its end is the launcher's EOF
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True, errors="backslashreplace")
    sys.dont_write_bytecode = sys.dont_write_bytecode or "-B" in request["args"]
    sys.argv = ["-c"]
    sys.path[0] = ""  # as `python -c` puts it
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    code = 0
    try:
        exec(eval(sys.stdin.readline()), main.__dict__)  # noqa: S307 - execnet's bootstrap, as `-c` runs it
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 0 if exit_.code is None else 1
    except BaseException:  # noqa: BLE001 - what an uncaught exception does to an interpreter
        import traceback

        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()  # noqa: SLF001 - what an interpreter's exit runs
    os.write(ended, str(code).encode())
    os._exit(code)


def serve(listening_fd: int, done_fd: int = 0) -> None:
    """Preload, then fork a worker for each launcher that connects, until `done_fd` (the
    controller's pipe) ends."""
    import selectors
    import signal

    listener = socket.socket(fileno=listening_fd)  # launchers wait in its queue while the imports run
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the controller and the workers
    preload()
    import gc

    gc.collect()
    gc.freeze()  # the preloaded objects are every worker's: never scanned, never copied by it
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    selector = selectors.DefaultSelector()
    for fd in (done_fd, wake_r, listener.fileno()):
        selector.register(fd, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fd == done_fd:
                if not os.read(done_fd, 4096):
                    return  # the controller is done with it (or gone)
            elif key.fd == wake_r:
                os.read(wake_r, 4096)
                _reap()
            else:
                _fork_one(listener, [selector, listener, wake_r, wake_w, *([done_fd] if done_fd else [])])


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not pid:
            return


def _fork_one(listener: socket.socket, own: list[Any]) -> None:
    conn, _ = listener.accept()
    with conn:
        data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 4)
        while not data.endswith(b"\n"):
            more = conn.recv(1 << 20)
            if not more:
                break
            data += more
        if len(fds) != 4:
            for fd in fds:
                os.close(fd)
            return
        request = json.loads(data)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            import signal

            signal.set_wakeup_fd(-1)
            for thing in own:
                thing.close() if hasattr(thing, "close") else os.close(thing)
            conn.close()
            _become_worker(request, fds)
        for fd in fds:
            os.close(fd)
        conn.sendall(f"{pid}\n".encode())


if __name__ == "__main__":
    serve(int(sys.argv[1]))
