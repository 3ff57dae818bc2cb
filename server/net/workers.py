"""`samedeal-server serve --workers N`: N server processes on one machine sharing one
port (SO_REUSEPORT: the kernel spreads new connections among them), supervised by the
process the operator started. Each worker is a whole node; they share nothing but the
database, which must be PostgreSQL (docs/ARCHITECTURE.md, "Several nodes").

The supervisor migrates the schema once, starts the workers, restarts one that dies
(after a second), and on SIGTERM/SIGINT passes the signal on and waits for them all.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from types import FrameType

from server.ops.lifeline import die_with_parent

log = logging.getLogger("samedeal.workers")
RESTART_DELAY_S = 1.0


def free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def command(url: str, host: str, port: int, demo: bool) -> list[str]:
    args = [sys.executable, "-m", "server", "--database-url", url, "serve"]
    args += ["--host", host, "--port", str(port), "--reuse-port"]
    return args if demo else [*args, "--no-demo"]


def supervise(url: str, host: str, port: int, workers: int, demo: bool) -> int:
    """Run `workers` server processes on `port` (a free one when 0) until signalled;
    the exit status: 0 after a clean stop."""
    port = port or free_port(host)
    stopping = False

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signum)

    argv = command(url, host, port, demo)
    parent = os.getpid()

    def start() -> subprocess.Popen[bytes]:  # a worker stops (gracefully) with us
        return subprocess.Popen(argv, preexec_fn=lambda: die_with_parent(parent, signal.SIGTERM))

    procs = [start() for _ in range(workers)]
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info("supervising %d workers on ws://%s:%s/ws", workers, host, port)
    while not stopping:
        time.sleep(0.2)
        for i, proc in enumerate(procs):
            if proc.poll() is not None and not stopping:
                log.warning("worker %d exited (%s); restarting", proc.pid, proc.returncode)
                time.sleep(RESTART_DELAY_S)
                if not stopping:  # a stop may have come during the pause
                    procs[i] = start()
    codes = [proc.wait() for proc in procs]
    return 0 if all(code in (0, -signal.SIGTERM, -signal.SIGINT) for code in codes) else 1
