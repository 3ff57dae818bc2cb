"""A node's worker processes end with it, however it ends: SIGKILLed, its rating worker
and multiprocessing's resource tracker are gone a few seconds later (not left running
under PID 1)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from tests.support import orphans
from tests.support.processes import ServerProcess, cli

GONE_WITHIN_S = 10.0  # generous: the kernel signals at once, the tracker reads an EOF


def test_a_killed_node_leaves_no_process_behind(pg_url: str, tmp_path: Path) -> None:
    assert cli(pg_url, "migrate").returncode == 0
    node = ServerProcess(pg_url, tmp_path / "node.log", ("--no-demo",))
    try:
        deadline = time.monotonic() + 60  # the rating worker is started at start-up
        while len(workers := orphans.descendants(node.proc.pid)) < 2:
            assert time.monotonic() < deadline, f"workers never started: {workers}"
            time.sleep(0.05)
    finally:
        node.stop(signal.SIGKILL)
    deadline = time.monotonic() + GONE_WITHIN_S
    while left := {pid for pid in workers if orphans.running(pid)}:
        assert time.monotonic() < deadline, f"left running after a SIGKILL: {left}"
        time.sleep(0.05)
