"""Several nodes on one PostgreSQL, as real processes: any node serves any request of any
player with the answers one node gives; events cross nodes within a second; the
lifecycle runs once; a node killed mid-play loses no acknowledged action."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from server.audit.verify import verify_document
from tests.support.harness import Client, create_msg, http_get
from tests.support.processes import ServerProcess, cli


@asynccontextmanager
async def client(node: ServerProcess) -> AsyncIterator[Client]:
    async with connect(f"ws://127.0.0.1:{node.port}/ws", max_size=None) as ws:
        yield Client(ws, [])


async def admin(pg_url: str, node: ServerProcess, stack: AsyncExitStack) -> Client:
    c = await stack.enter_async_context(client(node))
    await c.ok(type="register", name="op")
    assert cli(pg_url, "admin", "grant", "op").returncode == 0
    token = (await c.ok(type="register", name="op2"))["token"]  # a fresh session re-reads
    assert cli(pg_url, "admin", "grant", "op2").returncode == 0
    await c.ok(type="auth", token=token)
    return c


async def on_each(nodes: list[ServerProcess], token: str, stack: AsyncExitStack) -> list[Client]:
    """One authenticated connection of the same player to every node."""
    clients = []
    for node in nodes:
        c = await stack.enter_async_context(client(node))
        await c.ok(type="auth", token=token)
        clients.append(c)
    return clients


async def until(check: Any, seconds: float = 15.0) -> float:
    """Wait for `check()` to be true; the time it took (fails after `seconds`: generous,
    what it waits for takes well under a second on an idle machine)."""
    start = time.monotonic()
    while not await check():
        assert time.monotonic() - start < seconds, "not within the time allowed"
        await asyncio.sleep(0.02)
    return time.monotonic() - start


def open_now() -> dict[str, Any]:
    """A Gaps tournament open from now until far ahead."""
    starts = datetime.now(UTC).isoformat()
    return create_msg(starts_at=starts, ends_at="2099-01-01T00:00:00+00:00", time_limit_s=None)


def move(state: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    legal = state["view"]["legal"]
    return {"kind": "move", **rnd.choice(legal)} if legal else {"kind": "redeal"}


async def test_any_node_serves_any_request_and_events_cross_nodes(
    pg_url: str, nodes: list[ServerProcess]
) -> None:
    rnd = random.Random(3)
    async with AsyncExitStack() as stack:
        op = await admin(pg_url, nodes[0], stack)
        tid = (await op.ok(**open_now()))["tournament"]["id"]
        watcher = await stack.enter_async_context(client(nodes[2]))  # anonymous
        await watcher.ok(type="subscribe", tournament=tid)
        first = await stack.enter_async_context(client(nodes[0]))
        token = (await first.ok(type="register", name="alice"))["token"]
        a0, a1, a2 = await on_each(nodes, token, stack)
        state = await a0.ok(type="join", tournament=tid)
        acked, actions = [], []
        for seq in range(1, 13):  # successive actions alternate between two nodes
            c = (a0, a1)[seq % 2]
            actions.append(move(state, rnd))
            state = await c.ok(type="act", tournament=tid, seq=seq, action=actions[-1])
            assert state["seq"] == seq and state["status"] == "playing"
            acked.append(state)
        # a resend to the third node answers as a duplicate with the same receipt
        again = await a2.ok(type="act", tournament=tid, seq=12, action=actions[-1])
        assert again["duplicate"] and again["log_hash"] == acked[-1]["log_hash"]
        fresh = await a2.ok(type="state", tournament=tid)
        assert (fresh["seq"], fresh["log_hash"]) == (12, acked[-1]["log_hash"])
        wrong = await a2.err(
            "out_of_sync", type="act", tournament=tid, seq=20, action=move(fresh, rnd)
        )
        assert wrong["seq"] == 13

        async def watcher_saw_twelve() -> bool:
            pushes = [p for p in watcher.pushes if p["type"] == "standings"]
            while True:
                try:
                    pushes.append(await watcher.recv(timeout=0.05))
                except TimeoutError:
                    break
            watcher.pushes[:] = pushes
            return any(r["player"] == "alice" for p in pushes for r in p["rows"])

        await until(watcher_saw_twelve)

        # a close on one node: the others refuse actions and reveal (within a second on
        # an idle machine, docs/COMPETITION.md; the test waits generously)
        closed = await op.ok(type="close_tournament", tournament=tid)
        seed = closed["tournament"]["seed"]

        async def refused_everywhere() -> bool:
            for c in (a1, a2):
                reply = await c.req(type="act", tournament=tid, seq=13, action={"kind": "resign"})
                if reply.get("code") != "closed":
                    return False
            return True

        await until(refused_everywhere)

        async def revealed_to_watcher() -> bool:
            try:
                msg = await watcher.recv(timeout=0.05)
            except TimeoutError:
                return False
            watcher.pushes.append(msg)
            return msg["type"] == "closed"

        await until(revealed_to_watcher)
        reveal = watcher.pushes[-1]
        assert reveal["seed"] == seed and len(reveal["log_root"]) == 64
        # the bundle from any node verifies, with every acknowledged action and receipt
        for node in nodes:
            code, body = await asyncio.to_thread(
                http_get, f"http://127.0.0.1:{node.port}/tournaments/{tid}/bundle.json"
            )
            assert code == 200
            bundle = json.loads(body)
            assert verify_document(bundle).ok and bundle["log_root"] == reveal["log_root"]
            (record,) = bundle["records"]
            assert len(record["actions"]) == 12 and record["log_hash"] == acked[-1]["log_hash"]


async def test_two_nodes_racing_on_one_entry_never_both_succeed(
    pg_url: str, nodes: list[ServerProcess]
) -> None:
    async with AsyncExitStack() as stack:
        op = await admin(pg_url, nodes[0], stack)
        tid = (await op.ok(**open_now()))["tournament"]["id"]
        first = await stack.enter_async_context(client(nodes[0]))
        token = (await first.ok(type="register", name="bob"))["token"]
        a0, a1, _ = await on_each(nodes, token, stack)
        state = await a0.ok(type="join", tournament=tid)
        await a1.ok(type="state", tournament=tid)  # both nodes hold the game in memory
        for seq in range(1, 9):
            legal = state["view"]["legal"]
            if len(legal) < 2:
                break
            one = {"kind": "move", **legal[0]}
            other = {"kind": "move", **legal[1]}
            r0, r1 = await asyncio.gather(
                a0.req(type="act", tournament=tid, seq=seq, action=one),
                a1.req(type="act", tournament=tid, seq=seq, action=other),
            )
            won = [r for r in (r0, r1) if r["type"] == "state" and not r.get("duplicate")]
            lost = [r for r in (r0, r1) if r["type"] == "error"]
            assert len(won) == 1 and len(lost) == 1, (r0, r1)
            assert lost[0]["code"] == "out_of_sync" and lost[0]["seq"] == seq + 1
            state = won[0]
        code = cli(pg_url, "tournament", "close", str(tid)).returncode
        assert code == 0
        fetched: list[bytes] = []

        async def bundle_served() -> bool:  # once node 2 has heard of the close
            code, body = await asyncio.to_thread(
                http_get, f"http://127.0.0.1:{nodes[2].port}/tournaments/{tid}/bundle.json"
            )
            fetched[:] = [body]
            return code == 200

        await until(bundle_served)
        bundle = json.loads(fetched[0])
        assert verify_document(bundle).ok
        assert bundle["records"][0]["log_hash"] == state["log_hash"]


async def test_two_nodes_racing_to_close_make_one_close(
    pg_url: str, nodes: list[ServerProcess]
) -> None:
    async with AsyncExitStack() as stack:
        op = await admin(pg_url, nodes[0], stack)
        tid = (await op.ok(**open_now()))["tournament"]["id"]
        op1 = await stack.enter_async_context(client(nodes[1]))
        op_token = (await op1.ok(type="register", name="op3"))["token"]
        assert cli(pg_url, "admin", "grant", "op3").returncode == 0
        await op1.ok(type="auth", token=op_token)
        r0, r1 = await asyncio.gather(
            op.req(type="close_tournament", tournament=tid),
            op1.req(type="close_tournament", tournament=tid),
        )
        closes = [r["tournament"] for r in (r0, r1) if r["type"] == "tournament"]
        refused = [r for r in (r0, r1) if r["type"] == "error"]
        assert closes and all(t["status"] == "closed" for t in closes)
        assert all(r["code"] == "closed" for r in refused)
        listed = [
            json.loads(x) for x in cli(pg_url, "tournament", "list", "--json").stdout.splitlines()
        ]
        (t,) = [x for x in listed if x["id"] == tid]
        assert t["status"] == "closed" and {c["seed"] for c in closes} == {t["seed"]}


async def test_a_node_killed_mid_play_loses_no_acknowledged_action(
    pg_url: str, nodes: list[ServerProcess]
) -> None:
    rnd = random.Random(11)
    acked: dict[str, dict[str, Any]] = {}
    async with AsyncExitStack() as stack:
        op = await admin(pg_url, nodes[2], stack)
        tid = (await op.ok(**open_now()))["tournament"]["id"]

        async def player(name: str) -> None:
            async with client(nodes[2]) as reg:
                token = (await reg.ok(type="register", name=name))["token"]
            node = 0
            state: dict[str, Any] | None = None
            while state is None or (state["seq"] < 40 and state["status"] == "playing"):
                try:
                    async with client(nodes[node]) as c:
                        await c.ok(type="auth", token=token)
                        state = await c.ok(type="join", tournament=tid)
                        acked[name] = state
                        while state["seq"] < 40 and state["status"] == "playing":
                            reply = await c.req(
                                type="act",
                                tournament=tid,
                                seq=state["seq"] + 1,
                                action=move(state, rnd),
                            )
                            if reply["type"] == "state":
                                state = acked[name] = reply
                except (OSError, TimeoutError, Exception):  # the node died: go on elsewhere
                    node = 1 if node == 0 else 2

        async def killer() -> None:
            await asyncio.sleep(0.6)
            nodes[0].proc.send_signal(signal.SIGKILL)

        await asyncio.gather(*(player(f"p{i}") for i in range(6)), killer())
        assert nodes[0].proc.wait(timeout=10) == -signal.SIGKILL
        await op.ok(type="close_tournament", tournament=tid)
        code, body = await asyncio.to_thread(
            http_get, f"http://127.0.0.1:{nodes[1].port}/tournaments/{tid}/bundle.json"
        )
        assert code == 200
        bundle = json.loads(body)
        assert verify_document(bundle).ok
        records = {r["player"]["name"]: r for r in bundle["records"]}
        for name, state in acked.items():  # every acknowledged action is in the records
            assert len(records[name]["actions"]) >= state["seq"]
            assert len(records[name]["actions"]) == state["seq"] or state["status"] != "playing"


async def test_a_listener_that_reconnects_resyncs_the_standings(
    pg_url: str, nodes: list[ServerProcess]
) -> None:
    import asyncpg

    rnd = random.Random(5)
    async with AsyncExitStack() as stack:
        op = await admin(pg_url, nodes[0], stack)
        tid = (await op.ok(**open_now()))["tournament"]["id"]
        watcher = await stack.enter_async_context(client(nodes[1]))
        first = await watcher.ok(type="subscribe", tournament=tid)
        assert first["rows"] == []
        dsn = pg_url.replace("postgresql+asyncpg://", "postgresql://")
        admin_conn = await asyncpg.connect(dsn)
        try:  # cut every node's LISTEN connection; the nodes miss what happens meanwhile
            await admin_conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'samedeal-listener'"
            )
        finally:
            await admin_conn.close()
        player = await stack.enter_async_context(client(nodes[0]))
        await player.ok(type="register", name="quiet")
        state = await player.ok(type="join", tournament=tid)
        await player.ok(type="act", tournament=tid, seq=1, action=move(state, rnd))

        async def seen() -> bool:
            try:
                msg = await watcher.recv(timeout=0.05)
            except TimeoutError:
                return False
            return msg["type"] == "standings" and [r["player"] for r in msg["rows"]] == ["quiet"]

        await until(seen)  # reconnect (back-off from 0.1 s) and resync


def test_workers_share_one_port_and_refuse_sqlite(pg_url: str, tmp_path: Path) -> None:
    refused = cli(f"sqlite+aiosqlite:///{tmp_path / 'one.db'}", "serve", "--workers", "2")
    assert refused.returncode == 2 and "needs PostgreSQL" in refused.stderr
    server = ServerProcess(pg_url, tmp_path / "workers.log", ("--workers", "2", "--no-demo"))
    try:
        deadline = time.monotonic() + 30
        while (tmp_path / "workers.log").read_text().count("listening on") < 2:
            assert time.monotonic() < deadline, (tmp_path / "workers.log").read_text()
            time.sleep(0.1)
        ids = set()

        async def connect_many() -> None:
            for i in range(12):
                async with client(server) as c:
                    reply = await c.ok(type="register", name=f"w{i}")
                    ids.add(reply["player"]["id"])

        asyncio.run(connect_many())
        assert len(ids) == 12
        # both processes answer on the one port (each names itself in /metrics)
        answered = set()
        for _ in range(40):
            _, body = http_get(f"http://127.0.0.1:{server.port}/metrics")
            answered |= {x for x in body.decode().splitlines() if x.startswith("samedeal_node{")}
        assert len(answered) == 2, answered
    finally:
        assert server.stop() == 0


async def leader_pid(dsn: str) -> int | None:
    """The database backend of the connection holding the lifecycle's lock."""
    return (await _leader(dsn))[0]


async def _leader(dsn: str) -> tuple[int | None, int | None]:
    """(backend pid, client port) of the connection holding the lifecycle's lock."""
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        row = await conn.fetchrow(
            "SELECT a.pid, a.client_port FROM pg_stat_activity a JOIN pg_locks l"
            " ON l.pid = a.pid WHERE a.application_name = 'samedeal-leader'"
            " AND l.locktype = 'advisory' AND l.granted"
        )
        return (None, None) if row is None else (row["pid"], row["client_port"])
    finally:
        await conn.close()


def node_with_port(nodes: list[ServerProcess], port: int) -> ServerProcess:
    """The node whose process holds the TCP connection from local `port`: the one whose
    database connection a backend's client_port names."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    for node in nodes:
        for fd in Path(f"/proc/{node.proc.pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd) in inodes:
                    return node
    raise AssertionError(f"no node holds a connection from port {port}")


async def test_when_the_leader_dies_another_node_closes_on_time(
    pg_url: str, nodes: list[ServerProcess]
) -> None:
    dsn = pg_url.replace("postgresql+asyncpg://", "postgresql://")
    async with AsyncExitStack() as stack:
        op = await admin(pg_url, nodes[2], stack)
        ends = datetime.now(UTC) + timedelta(seconds=6)
        msg = open_now() | {"ends_at": ends.isoformat(), "join_until": ends.isoformat()}
        tid = (await op.ok(**msg))["tournament"]["id"]
        first, port = await _leader(dsn)
        assert first is not None and port is not None
        leader = node_with_port(nodes, port)
        leader.proc.send_signal(signal.SIGKILL)
        leader.proc.wait(timeout=10)

        async def moved() -> bool:
            return await leader_pid(dsn) not in (None, first)

        await until(moved, 30.0)  # its lock goes with its connection: another node takes it
        survivor = next(node for node in nodes if node is not leader)
        watcher = await stack.enter_async_context(client(survivor))
        await watcher.ok(type="subscribe", tournament=tid)

        async def closed() -> bool:
            try:
                msg = await watcher.recv(timeout=0.05)
            except TimeoutError:
                return False
            return msg["type"] == "closed"

        await asyncio.sleep(max(0.0, (ends - datetime.now(UTC)).total_seconds()))
        await until(closed)  # a new leader took the lock and closed at ends_at
        assert await leader_pid(dsn) not in (None, first)


async def test_par_after_a_close_is_computed_once_across_nodes(
    pg_url: str, nodes: list[ServerProcess]
) -> None:
    """Six players on three nodes, then a close: every node wakes its par step, one
    computes while the others wait their turn and find the work done (the nodes' logs
    count each entry once, the tournament marked once); every node's records and bundle
    carry every par, and the bundle verifies."""
    rnd = random.Random(29)
    names = [f"par{i}" for i in range(6)]
    async with AsyncExitStack() as stack:
        op = await admin(pg_url, nodes[0], stack)
        tid = (await op.ok(**open_now()))["tournament"]["id"]
        for i, name in enumerate(names):
            c = await stack.enter_async_context(client(nodes[i % 3]))
            await c.ok(type="register", name=name)
            state = await c.ok(type="join", tournament=tid)
            for seq in range(1, 4 * i + 1):
                state = await c.ok(type="act", tournament=tid, seq=seq, action=move(state, rnd))
                if state["status"] != "playing":
                    break
            else:
                await c.ok(type="act", tournament=tid, seq=4 * i + 1, action={"kind": "resign"})
        await op.ok(type="close_tournament", tournament=tid)
        reader = await stack.enter_async_context(client(nodes[2]))

        async def every_par() -> bool:
            for name in names:
                got = await reader.ok(type="record", tournament=tid, player=name)
                if "par" not in got["record"]:
                    return False
            return True

        await until(every_par, 240.0)
        for node in nodes:
            code, body = await asyncio.to_thread(
                http_get, f"http://127.0.0.1:{node.port}/tournaments/{tid}/bundle.json"
            )
            assert code == 200
            bundle = json.loads(body)
            assert all(r["par"] is not None for r in bundle["standings"])
            assert all("par" in r for r in bundle["records"]) and verify_document(bundle).ok
    logs = [node.log.read_text() for node in nodes]
    computed = sum(
        int(line.split(": ")[-1].split()[0])
        for text in logs
        for line in text.splitlines()
        if f"tournament {tid}: " in line and "pars computed here" in line
    )
    assert computed == len(names)
    assert sum(text.count(f"tournament {tid}: par for 6 entries") for text in logs) == 1
