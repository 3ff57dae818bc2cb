"""A resume is never stale (PROTOCOL.md: `state`, and `join` of an existing entry, answer
the game with every action acknowledged before they were asked), on any node, also while
an act of the same game is in flight on the node asked: two real nodes on PostgreSQL,
one of them reaching the database through a proxy that holds that act's write."""

from __future__ import annotations

import asyncio
import random
import time
from contextlib import AsyncExitStack
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tests.e2e.test_faults import PG_SERVER
from tests.e2e.test_nodes import admin, client, move, on_each, open_now
from tests.support.processes import cli, start_nodes
from tests.support.proxy import TcpProxy

# The first statement the act's write sends (its batch's transaction; nothing else on
# node A needs a transaction while it idles: its game and tournament are in memory).
BATCH_BEGINS = b"BEGIN;"


def through(pg_url: str, port: int) -> str:
    """The same database reached through a proxy on `port`."""
    parts = urlsplit(pg_url)
    user = parts.netloc.rpartition("@")[0]
    netloc = f"{user}@127.0.0.1:{port}" if user else f"127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


async def test_resume_while_an_act_is_in_flight_answers_every_acknowledged_action(
    pg_url: str, tmp_path: Path
) -> None:
    rnd = random.Random(36)
    assert (await asyncio.to_thread(cli, pg_url, "migrate")).returncode == 0
    with TcpProxy(PG_SERVER[1], PG_SERVER[0]) as proxy:
        nodes = await asyncio.to_thread(
            start_nodes, [through(pg_url, proxy.port), pg_url], tmp_path
        )
        a, b = nodes
        try:
            async with AsyncExitStack() as stack:
                stack.callback(proxy.restore)  # before the nodes stop, should the test fail
                op = await admin(pg_url, b, stack)
                tid = (await op.ok(**open_now()))["tournament"]["id"]
                first = await stack.enter_async_context(client(b))
                token = (await first.ok(type="register", name="alice"))["token"]
                on_a, on_b = await on_each([a, b], token, stack)
                resume_a, rejoin_a = await on_each([a, a], token, stack)
                state = await on_a.ok(type="join", tournament=tid)
                for seq in (1, 2):  # node A holds the game at seq 2
                    state = await on_a.ok(
                        type="act", tournament=tid, seq=seq, action=move(state, rnd)
                    )
                # an act of seq 3 in flight on node A: its write is held on the way
                proxy.cut("blackhole")
                in_flight = asyncio.create_task(
                    on_a.req(type="act", tournament=tid, seq=3, action=move(state, rnd))
                )
                deadline = time.monotonic() + 30
                while not proxy.holds(BATCH_BEGINS):
                    assert time.monotonic() < deadline, "the act never reached the database"
                    await asyncio.sleep(0.01)
                # meanwhile the player goes on on node B: seq 3, 4 and 5 acknowledged
                moved = await on_b.ok(type="state", tournament=tid)
                for seq in (3, 4, 5):
                    moved = await on_b.ok(
                        type="act", tournament=tid, seq=seq, action=move(moved, rnd)
                    )
                # then resumes on node A, while its act is still in flight there
                resumed = asyncio.create_task(resume_a.req(type="state", tournament=tid))
                rejoined = asyncio.create_task(rejoin_a.req(type="join", tournament=tid))
                proxy.restore()
                for reply in (await resumed, await rejoined):
                    assert reply["type"] != "error", reply
                    assert (reply["seq"], reply["log_hash"]) == (5, moved["log_hash"]), (
                        f"a stale resume: seq {reply['seq']} while 5 was acknowledged"
                    )
                late = await in_flight  # stored by node B first: judged again, not acked twice
                assert (late["type"] == "error" and late["code"] == "out_of_sync") or (
                    late.get("duplicate") is True
                ), late
                again = await on_a.ok(type="state", tournament=tid)
                assert again["seq"] == 5
        finally:
            for node in nodes:
                if node.proc.poll() is None:
                    node.stop()
