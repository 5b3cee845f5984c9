"""What xdist starts as a run's worker "interpreter" (conformance/worker_fork.py): it hands its
stdin, stdout and stderr, environment and working directory to the run's preloaded process,
which forks the worker, and lives as long as the worker does. Where that process does not
answer, it becomes the interpreter xdist asked for (`python -u -c ...`).

Standard library only, started with `python -I -S`: it must cost milliseconds.

    python -I -S worker_launcher.py SOCKET -u [-B] -c BOOTSTRAP
"""

import json
import os
import signal
import socket
import sys

# A signal for the run's process group (Ctrl-C, a hangup, a TERM to the group) reaches the
# worker itself, once; this process only waits for it to end.
PASSED_BY = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _as_asked(args: list[str]) -> None:
    for sig in PASSED_BY:  # an ignored signal stays ignored across exec
        signal.signal(sig, signal.SIG_DFL)
    os.execv(sys.executable, [sys.executable, *args])


def main() -> None:
    for sig in PASSED_BY:
        signal.signal(sig, signal.SIG_IGN)
    address, args = sys.argv[1], sys.argv[2:]
    ended_r, ended_w = os.pipe()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(address)
            request = {"env": dict(os.environ), "cwd": os.getcwd(), "args": args}
            socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [0, 1, 2, ended_w])
            answer = conn.makefile("rb").readline()  # the worker's pid, once forked
        int(answer)  # the worker's pid: it was forked
    except (OSError, ValueError):  # no preloaded process (gone, or never started): start as asked
        os.close(ended_r)
        os.close(ended_w)
        _as_asked(args)
    os.close(ended_w)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the worker has them: xdist sees its stdout end with the worker
        os.dup2(null, fd)
    said = b""
    while chunk := os.read(ended_r, 16):  # EOF: the worker has ended
        said += chunk
    sys.exit(int(said) if said.strip().isdigit() else 0)


if __name__ == "__main__":
    main()
