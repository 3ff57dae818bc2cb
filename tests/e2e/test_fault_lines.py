"""Expected faults are one line each, and the pool recovers: a real node on PostgreSQL
while players act, every backend of its database terminated again and again (what a
PostgreSQL restart does to a node's connections; the machine's server itself is shared,
so it is not restarted here). Acts that fail are answered `internal` and sent again;
after each restart every player is acknowledged again; nothing acknowledged is lost; the
node's log has no traceback (a traceback means a bug), no act fails later than just
after a restart (a pooled connection reused mid-operation would), and at most one fault
line per kind and place and interval (server/ops/faults.py)."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import asyncpg

from server.ops import faults
from tests.conftest import PG_ADMIN_DSN
from tests.e2e.test_nodes import admin, client
from tests.support.harness import Client, open_now, random_move
from tests.support.processes import ServerProcess, cli

PLAYERS = 6
RESTARTS = 3
RECOVER_S = 30.0  # generous: on an idle machine a node acknowledges again within a second
ACT_EVERY_S = 0.1  # a player's pace: a random Gaps game lasts tens of seconds at it
AFTER_RESTART_S = 10.0  # generous: a restart's failures come within a second here
FAULT_LINE = re.compile(r"fault kind=(\w+) where=([\w ]+) count=(\d+)")


async def terminate_backends(database: str) -> int:
    """End every session on `database` (as a restart of PostgreSQL does); how many."""
    conn = await asyncpg.connect(PG_ADMIN_DSN, timeout=5)
    try:
        ended: int = await conn.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = $1 AND pid <> pg_backend_pid()",
            database,
        )
        return ended
    finally:
        await conn.close()


class Player:
    def __init__(self, c: Client, tid: int, seed: int) -> None:
        self.c, self.tid, self.rnd = c, tid, random.Random(seed)
        self.acked: list[tuple[int, str]] = []  # (seq, log_hash) acknowledged
        self.acked_at = 0.0
        self.internal_at: list[float] = []  # when an act was answered `internal`
        self.over = False  # its game ended (won, lost): it has nothing more to send

    async def play(self, stop: asyncio.Event) -> None:
        state = await self.c.ok(type="join", tournament=self.tid)
        seq = state["seq"] + 1
        action = random_move(state, self.rnd)
        while not stop.is_set() and state["status"] == "playing":
            reply: dict[str, Any] = await self.c.req(
                type="act", tournament=self.tid, seq=seq, action=action
            )
            if reply["type"] == "error":
                assert reply["code"] == "internal", reply  # send the same again
                self.internal_at.append(time.monotonic())
                await asyncio.sleep(0.05)
                continue
            state = reply
            self.acked.append((reply["seq"], reply["log_hash"]))
            self.acked_at = time.monotonic()
            seq, action = seq + 1, random_move(state, self.rnd)
            await asyncio.sleep(ACT_EVERY_S)
        self.over = state["status"] != "playing"


async def test_restarts_of_postgresql_are_one_line_each_and_the_pool_recovers(
    pg_url: str, tmp_path: Path
) -> None:
    database = urlsplit(pg_url).path.lstrip("/")
    assert cli(pg_url, "migrate").returncode == 0
    node = ServerProcess(pg_url, tmp_path / "node.log", ("--no-demo",))
    began = time.monotonic()
    try:
        async with AsyncExitStack() as stack:
            op = await admin(pg_url, node, stack)
            tid = (await op.ok(**open_now()))["tournament"]["id"]
            players = []
            for i in range(PLAYERS):
                c = await stack.enter_async_context(client(node))
                await c.ok(type="register", name=f"p{i}")
                players.append(Player(c, tid, i))
            stop = asyncio.Event()
            tasks = [asyncio.create_task(p.play(stop)) for p in players]
            recovery, ended, cuts = [], 0, []
            for _ in range(RESTARTS):
                await asyncio.sleep(1.0)  # players act meanwhile
                cut = time.monotonic()
                cuts.append(cut)
                ended += await terminate_backends(database)
                # every player still playing acked again (one whose game ended has no
                # more to send), and at least one did: the node serves again
                while not all(p.acked_at > cut or p.over for p in players) or not any(
                    p.acked_at > cut for p in players
                ):
                    assert time.monotonic() - cut < RECOVER_S, "not recovered"
                    for t in tasks:
                        if t.done():
                            t.result()  # a player's failure shows here
                    await asyncio.sleep(0.02)
                recovery.append(time.monotonic() - cut)
            stop.set()
            await asyncio.gather(*tasks)
            for p in players:  # nothing acknowledged lost
                state = await p.c.ok(type="state", tournament=tid)
                assert (state["seq"], state["log_hash"]) == p.acked[-1]
    finally:
        node.stop()
    elapsed = time.monotonic() - began
    log = node.log.read_text()
    lines = Counter((m[0], m[1]) for m in FAULT_LINE.findall(log))
    internal = [t for p in players for t in p.internal_at]
    print(
        f"{RESTARTS} restarts ({ended} sessions ended), recovery {max(recovery):.2f} s max,"
        f" {len(internal)} acts answered internal, fault lines {dict(lines)}"
    )
    assert "Traceback" not in log, log[-3000:]
    # the pool recovers: no act fails but right after a restart (a connection reused
    # mid-operation fails acts later: asyncpg's "another operation is in progress")
    late = [t for t in internal if not any(0 <= t - cut <= AFTER_RESTART_S for cut in cuts)]
    assert not late, f"{len(late)} acts failed later than {AFTER_RESTART_S} s after a restart"
    assert all(n <= elapsed / faults.INTERVAL_S + 1 for n in lines.values()), lines
