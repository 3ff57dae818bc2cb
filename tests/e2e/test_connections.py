"""A node's PostgreSQL connections stay within its budget (the engine's pool plus
pg_coordination.OWN_CONNECTIONS: the listener, the leadership, the locks) whatever it does: 50
tournaments closed one after another on three nodes, each close rated once, while
pg_stat_activity is read all along."""

from __future__ import annotations

import asyncio
import random
import re
import threading
from contextlib import AsyncExitStack
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg

from server.store import db, pg_coordination
from tests.conftest import PG_ADMIN_DSN
from tests.e2e.test_nodes import client, move, on_each, open_now
from tests.support.processes import ServerProcess, cli

CLOSES = 50
BUDGET = db.POOL_SIZE + db.POOL_OVERFLOW + pg_coordination.OWN_CONNECTIONS  # per node


class Sampler:
    """The database's connections, counted every few milliseconds in a thread of its own
    (its own connection, on the admin database, is not counted)."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.peak = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        conn = await asyncpg.connect(PG_ADMIN_DSN, timeout=5)
        try:
            while not self._stop.is_set():
                n = await conn.fetchval(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = $1", self.database
                )
                self.peak, self.samples = max(self.peak, n), self.samples + 1
                await asyncio.sleep(0.005)
        finally:
            await conn.close()

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


async def test_fifty_closes_in_a_row_stay_within_the_connection_budget(
    pg_url: str, nodes: list[ServerProcess], tmp_path: Path
) -> None:
    rnd = random.Random(50)
    database = urlsplit(pg_url).path.lstrip("/")
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(client(nodes[0]))
        token = (await first.ok(type="register", name="op"))["token"]
        assert cli(pg_url, "admin", "grant", "op").returncode == 0
        ops = await on_each(nodes, token, stack)
        players = []
        for i, node in enumerate(nodes * 2):  # two players on each node
            c = await stack.enter_async_context(client(node))
            await c.ok(type="register", name=f"p{i}")
            players.append(c)
        tids = []
        for _ in range(CLOSES):  # each with entrants who moved, so each close rates
            tid = (await ops[0].ok(**open_now()))["tournament"]["id"]
            for p in players[:3]:
                state = await p.ok(type="join", tournament=tid)
                await p.ok(type="act", tournament=tid, seq=1, action=move(state, rnd))
            tids.append(tid)
        with Sampler(database) as sampler:
            for i, tid in enumerate(tids):  # one after another, on each node in turn
                await ops[i % 3].ok(type="close_tournament", tournament=tid)
            conn = await asyncpg.connect(pg_url.replace("+asyncpg", ""), timeout=5)
            try:
                for _ in range(600):  # every close rated (on an idle machine: seconds)
                    unrated = await conn.fetchval(
                        "SELECT count(*) FROM tournaments WHERE rated_at IS NULL"
                    )
                    if unrated == 0:
                        break
                    await asyncio.sleep(0.1)
                assert unrated == 0, f"{unrated} closes not rated"
            finally:
                await conn.close()
    print(f"connections: peak {sampler.peak} over {sampler.samples} samples")
    assert sampler.samples > 10
    # the test's own connections: its admin reads above (one) and none other
    assert sampler.peak <= len(nodes) * BUDGET + 1, (sampler.peak, len(nodes) * BUDGET)
    logs = "".join(node.log.read_text() for node in nodes)
    for tid in tids:  # rated once: one node took each close in, once
        placed = re.findall(rf"tournament {tid} placed \d+ entrants", logs)
        assert len(placed) == 1, (tid, placed)
    assert "TooManyConnections" not in logs and "too many clients" not in logs
