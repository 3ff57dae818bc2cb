"""A child process that ends with its parent, however the parent ends (SIGKILL included).

Linux's parent-death signal (prctl PR_SET_PDEATHSIG) is set in the child, through ctypes;
elsewhere nothing is done (a child there may outlive a killed parent). The signal is sent
when the thread that made the child ends: children are made from a thread that lives as
long as their parent (the event loop's, or the main thread).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int, sig: int = signal.SIGKILL) -> None:
    """In a child just started by `parent_pid`: receive `sig` when that parent dies; exit
    at once when it already has (it died before the signal was asked for)."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent_pid:
        os._exit(1)


def worker_start(parent_pid: int, nice: int) -> None:
    """A pool worker's initializer: it ends with its parent, and runs at `nice`."""
    die_with_parent(parent_pid)
    os.nice(nice)
