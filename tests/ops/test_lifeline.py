"""A child that ends with its parent (lifeline.py): killed with SIGKILL, the parent takes
its child along; a child whose parent is already gone exits at once. Linux only (the
parent-death signal); elsewhere `die_with_parent` does nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's prctl")

ROOT = Path(__file__).resolve().parents[2]
CHILD = (
    "import sys, time; from server.ops.lifeline import die_with_parent;"
    " die_with_parent(int(sys.argv[1])); print('ready', flush=True); time.sleep(120)"
)
PARENT = (
    "import os, subprocess, sys, time;"
    f" c = subprocess.Popen([sys.executable, '-c', {CHILD!r}, str(os.getpid())],"
    " stdout=subprocess.PIPE, text=True);"
    " assert c.stdout.readline().strip() == 'ready';"
    " print(c.pid, flush=True); time.sleep(120)"
)


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")  # dead, waiting to be reaped by whoever adopted it


def test_a_child_ends_when_its_parent_is_killed() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, env=env)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        assert not gone(child)
        parent.kill()
        parent.wait(30)
        deadline = time.monotonic() + 30
        while not gone(child) and time.monotonic() < deadline:
            time.sleep(0.01)  # a condition polled with a deadline
        assert gone(child)
    finally:
        parent.kill()
        if not gone(child):
            os.kill(child, 9)


def test_a_child_whose_parent_is_already_gone_exits_at_once() -> None:
    code = "from server.ops.lifeline import die_with_parent; die_with_parent(-1); print('lived')"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert (done.returncode, done.stdout) == (1, "")
