"""Processes seen through /proc (Linux): a process's descendants, whether one still
runs, and the processes that carry a test run's tag in their environment."""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
RUN_TAG = "SAMEDEAL_TEST_RUN"  # set by tests/conftest.py; inherited by every child


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process; None when it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def pids() -> list[int]:
    return [int(p.name) for p in PROC.iterdir() if p.name.isdigit()]


def running(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie (dead, waiting to be reaped)."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def descendants(pid: int) -> set[int]:
    """Every running process below `pid` (children, their children, ...)."""
    parents = {p: s[1] for p in pids() if (s := _stat(p)) is not None and s[0] not in "ZX"}
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def tagged(tag: str) -> dict[int, str]:
    """Running processes whose environment holds RUN_TAG=tag, with their command lines."""
    wanted = f"{RUN_TAG}={tag}".encode()
    out: dict[int, str] = {}
    for pid in pids():
        if pid == os.getpid():
            continue
        try:
            environ = (PROC / str(pid) / "environ").read_bytes()
            cmdline = (PROC / str(pid) / "cmdline").read_bytes()
        except OSError:
            continue
        if wanted in environ.split(b"\0") and running(pid):
            out[pid] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
    return out
