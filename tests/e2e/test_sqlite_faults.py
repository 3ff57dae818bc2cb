"""SQLite faults, on the real server process: the disk refuses writes (full), then the
database file becomes read-only, while a player acts. Every act whose commit fails is
answered `internal` and never acknowledged; nothing acknowledged is lost; the server
takes writes again by itself once the disk does; the log has no traceback.

The disk is made full for the writer process alone (server/store/sqlite_process.py),
with no special filesystem: its RLIMIT_FSIZE is lowered to one byte (prlimit on its pid),
so every write SQLite makes fails as on a full disk (EFBIG; Python ignores SIGXFSZ), and
raised again to give the space back. Read-only: the immutable attribute (chattr +i) on
the database and its WAL, which refuses writes through open files too (root; otherwise
the files' write permission is removed and the writer process killed, so that its
replacement opens them anew)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path

from tests.e2e.test_nodes import admin, client
from tests.support import orphans
from tests.support.harness import Client, open_now, random_move
from tests.support.processes import ServerProcess, cli

WITHIN_S = 30.0  # generous: each step takes well under a second on an idle machine


def writer_pid(node: ServerProcess) -> int:
    for pid in orphans.descendants(node.proc.pid):
        try:
            if b"sqlite_process" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    raise LookupError("no writer process")


class Player:
    def __init__(self, c: Client, tid: int) -> None:
        self.c, self.tid, self.rnd = c, tid, random.Random(6)
        self.acked: dict[int, dict[str, object]] = {}  # seq -> action
        self.internal = 0
        self.state: dict[str, object] = {}

    async def join(self) -> None:
        self.state = await self.c.ok(type="join", tournament=self.tid)

    async def act(self) -> bool:
        """One act (the same action again after `internal`); whether acknowledged."""
        seq = int(self.state["seq"]) + 1  # type: ignore[call-overload]
        self.pending = getattr(self, "pending", None) or (seq, random_move(self.state, self.rnd))
        reply = await self.c.req(
            type="act", tournament=self.tid, seq=self.pending[0], action=self.pending[1]
        )
        if reply["type"] == "error":
            assert reply["code"] == "internal", reply
            self.internal += 1
            return False
        self.acked[reply["seq"]] = self.pending[1]
        self.state, self.pending = reply, None
        return True

    async def acts_until(self, done: Callable[[], bool]) -> None:
        deadline = time.monotonic() + WITHIN_S
        while not done():
            assert time.monotonic() < deadline, "not within the time allowed"
            await self.act()
            await asyncio.sleep(0.02)


def set_immutable(paths: list[Path], on: bool) -> None:
    for p in paths:
        if p.exists():
            subprocess.run(["chattr", "+i" if on else "-i", str(p)], check=True)


async def test_a_full_disk_and_a_read_only_database_fail_acts_cleanly_and_recover(
    tmp_path: Path,
) -> None:
    path = tmp_path / "samedeal.db"
    url = f"sqlite+aiosqlite:///{path}"
    assert cli(url, "migrate").returncode == 0
    node = ServerProcess(url, tmp_path / "node.log", ("--no-demo",))
    files = [path, path.with_name(path.name + "-wal")]
    root = os.geteuid() == 0
    try:
        async with AsyncExitStack() as stack:
            op = await admin(url, node, stack)
            tid = (await op.ok(**open_now()))["tournament"]["id"]
            c = await stack.enter_async_context(client(node))
            await c.ok(type="register", name="alice")
            p = Player(c, tid)
            await p.join()
            await p.acts_until(lambda: len(p.acked) >= 5)

            # 1. the disk is full: every act fails, none is acknowledged
            writer = writer_pid(node)
            _, hard = resource.prlimit(writer, resource.RLIMIT_FSIZE)
            resource.prlimit(writer, resource.RLIMIT_FSIZE, (1, hard))
            acked = len(p.acked)
            await p.acts_until(lambda: p.internal >= 3)
            assert len(p.acked) == acked, "an act was acknowledged on a full disk"
            resource.prlimit(writer, resource.RLIMIT_FSIZE, (hard, hard))  # space is back
            await p.acts_until(lambda: len(p.acked) >= acked + 5)

            # 2. the database file becomes read-only: the same
            internal, acked = p.internal, len(p.acked)
            if root:
                set_immutable(files, True)
            else:
                for f in files:
                    f.chmod(0o444)
                os.kill(writer_pid(node), signal.SIGKILL)  # its replacement opens them anew
            try:
                await p.acts_until(lambda: p.internal >= internal + 3)
                assert len(p.acked) == acked, "an act was acknowledged on a read-only file"
            finally:
                if root:
                    set_immutable(files, False)
                else:
                    for f in files:
                        f.chmod(0o644)
            await p.acts_until(lambda: len(p.acked) >= acked + 5)
            state = await c.ok(type="state", tournament=tid)
            assert state["seq"] == max(p.acked)
    finally:
        if root:
            set_immutable(files, False)
        node.stop()
    # nothing acknowledged lost, nothing unacknowledged stored: the log is the ledger
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT a.seq, a.action FROM actions a JOIN entries e ON a.entry_id = e.id"
            " JOIN players p ON e.player_id = p.id WHERE p.name = 'alice' ORDER BY a.seq"
        ).fetchall()
    assert {seq: json.loads(text) for seq, text in rows} == p.acked
    log = node.log.read_text()
    assert "Traceback" not in log, log[-3000:]
    faults = [line for line in log.splitlines() if "fault kind=" in line]
    print(f"{p.internal} acts answered internal; {len(p.acked)} acknowledged; {faults}")
    assert "fault kind=disk" in log
