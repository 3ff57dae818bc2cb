"""Faults under several nodes, with real server processes on one PostgreSQL: the database
"restarted" under load, one node cut off from it while its clients stay
connected (its database URL goes through tests/support/proxy.py, whose connections are
reset, or blackholed: nothing forwarded, sockets kept open; the first cut falls in the
middle of a write, right after an action's row was sent, later ones alternate with cuts
wherever the node is), and the nodes' LISTEN connections dropped again and again.

Players act on every node the way the protocol says: an action answered `internal` is
not acknowledged and is sent again with the same seq; a player whose node fails goes on
on another node with the same token (`state` there, then the next seq). Each player keeps
a ledger of what it sent and what was acknowledged, and after the close every record is
checked against it:
- no acknowledged action lost: every STATE a player got back is in the record, with that
  action at that seq;
- no false acknowledgement: the record holds nothing but acknowledged actions and actions
  the player sent without getting a STATE for them (stored, but not acknowledged);
- the last receipt (log_hash) is the record's.
The nodes recover by themselves (healthz 200 and acts again, no node restarted); a node
cut off answers (healthz 503, acts `internal` within 20 s) rather than hangs; and the
standings of every node converge: `standings_page` and the latest push to a subscriber on
each node give the same rows while the tournaments are open, equal to the bundle's after
the close.

Quick by default; longer runs (figures in docs/RELIABILITY.md):
    SAMEDEAL_FAULTS_LONG=1            several restarts, cuts and drops (a few minutes)
    SAMEDEAL_FAULTS_RESTARTS=N        PostgreSQL restarts (default 1, long 6)
    SAMEDEAL_FAULTS_CUTS=N            cuts of each kind (default 1, long 5)
    SAMEDEAL_FAULTS_DROPS=N           LISTEN connections dropped (default 8, long 60)
Each test prints one line of figures (`pytest -s`).

The machine's PostgreSQL is shared (other tests, other work), so it is never restarted
here: a restart is simulated on the test's own database, as the chaos bench does
(tests/support/processes.py DatabaseRestart): new connections refused, every session of
the database ended (pg_terminate_backend, what a fast shutdown does to a node's
connections), connections allowed again 2-4 s later.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import subprocess
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.audit.verify import verify_document
from tests.conftest import PG_ADMIN_DSN
from tests.support.harness import Client, http_get, open_now, random_move, until, ws_client
from tests.support.processes import DatabaseRestart, ServerProcess, cli, healthz, start_nodes
from tests.support.proxy import TcpProxy

LONG = os.environ.get("SAMEDEAL_FAULTS_LONG") == "1"


def _count(name: str, quick: int, long: int) -> int:
    return int(os.environ.get(name, long if LONG else quick))


RESTARTS = _count("SAMEDEAL_FAULTS_RESTARTS", 1, 6)
CUTS = _count("SAMEDEAL_FAULTS_CUTS", 1, 5)
DROPS = _count("SAMEDEAL_FAULTS_DROPS", 8, 60)

PACE_S = 0.04  # between a player's actions
ANSWER_S = 30.0  # a request unanswered this long counts as hung
RECOVER_S = 15.0  # healthz 200 and acts again on every node, after the fault is gone
SETTLE_S = 20.0  # standings of every node equal, after the last action
RELISTEN_S = 15.0  # a dropped LISTEN connection back (back-off from 0.1 s; the figure says)
_ids = itertools.count(1)
ACTION_MARK = b'"kind":"'  # in the canonical text of every action the writer stores
_dsn = urlsplit(PG_ADMIN_DSN)
PG_SERVER = (_dsn.hostname or "127.0.0.1", _dsn.port or 5432)  # the tests' PostgreSQL


# -- players ----------------------------------------------------------------------------
class Unanswered(Exception):
    """A request got no answer in ANSWER_S (the connection is dropped)."""


async def ask(c: Client, timeout: float = ANSWER_S, **msg: Any) -> dict[str, Any]:
    """Send one request and wait for its reply (pushes are skipped); Unanswered when none
    comes within `timeout`."""
    msg["id"] = next(_ids)
    await c.ws.send(json.dumps(msg))
    try:
        async with asyncio.timeout(timeout):
            while True:
                reply: dict[str, Any] = json.loads(await c.ws.recv())
                if reply.get("re") == msg["id"]:
                    return reply
    except TimeoutError:
        raise Unanswered(msg["type"]) from None


@dataclass
class Player:
    """One player's client and its ledger."""

    name: str
    token: str
    home: int  # the node it plays on while nothing fails
    fallback: int  # where it goes on when its node fails (cut tests)
    rnd: random.Random
    avoid: set[int] = field(default_factory=set)  # nodes it left after a failure
    round: int = 0  # index of the tournament it plays in the run's table
    joined: set[int] = field(default_factory=set)
    state: dict[str, Any] | None = None  # last STATE of the current game (None: ask)
    pending: tuple[int, dict[str, Any]] | None = None  # (seq, action) to send again
    sent: dict[tuple[int, int], list[dict[str, Any]]] = field(default_factory=dict)
    acked: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    last: dict[int, dict[str, Any]] = field(default_factory=dict)  # tid -> last STATE
    acked_at: dict[int, float] = field(default_factory=dict)  # node -> time of last STATE
    done: bool = False

    def node(self) -> int:
        return self.home if self.home not in self.avoid else self.fallback


class Watcher:
    """An anonymous subscriber on one node: every tournament of the run is watched, so the
    node keeps its standings in memory (updated by its own players and by the notices of
    the others) and pushes them; the latest push of each tournament is kept."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.latest: dict[int, list[Any]] = {}  # tournament -> rows of its latest push
        self.watching: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._conn: Any = None
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def __aenter__(self) -> Watcher:
        self._conn = await connect(f"ws://127.0.0.1:{self.port}/ws", max_size=None)
        self._spawn(self._read())
        return self

    async def __aexit__(self, *_exc: object) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._conn.close()

    def watch(self, tid: int) -> None:
        """Subscribe to `tid` (in the background, again and again until it works)."""
        self._spawn(self._subscribe(tid))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _read(self) -> None:
        async for raw in self._conn:
            msg = json.loads(raw)
            if msg.get("type") == "standings":  # a reply to subscribe, or a push
                self.latest[msg["tournament"]] = msg["rows"]
            future = self._replies.pop(msg.get("re"), None)
            if future is not None and not future.done():
                future.set_result(msg)

    async def _subscribe(self, tid: int) -> None:
        while tid not in self.watching:
            re = next(_ids)
            future = self._replies[re] = asyncio.get_running_loop().create_future()
            await self._conn.send(json.dumps({"id": re, "type": "subscribe", "tournament": tid}))
            try:
                reply = await asyncio.wait_for(future, ANSWER_S)
            except TimeoutError:
                continue
            if reply["type"] == "standings":
                self.watching.add(tid)
            else:
                assert reply["code"] == "internal", reply
                await asyncio.sleep(0.2)


@dataclass
class Run:
    """The nodes, the tournaments players go through, and what happened."""

    nodes: list[ServerProcess]
    op: Client
    watchers: list[Watcher]
    # a failure on node n: does the player leave it (and resume elsewhere)?
    leaves: Callable[[int], bool] = lambda _n: False
    tids: list[int] = field(default_factory=list)
    stopping: bool = False
    tally: Counter[str] = field(default_factory=Counter)
    last_ack: dict[int, float] = field(default_factory=dict)  # node -> time of last STATE
    slowest: dict[int, float] = field(default_factory=dict)  # node -> longest act reply
    _creating: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def tournament(self, index: int) -> int:
        """The index-th tournament of the run, created when first needed (retried while
        the database is away)."""
        async with self._creating:
            while len(self.tids) <= index:
                reply = await ask(self.op, **open_now(name=f"Faults {len(self.tids)}"))
                if reply["type"] == "tournament":
                    self.tids.append(reply["tournament"]["id"])
                    for w in self.watchers:
                        w.watch(self.tids[-1])
                else:
                    assert reply["code"] == "internal", reply
                    self.tally["create_retried"] += 1
                    await asyncio.sleep(0.2)
            return self.tids[index]

    async def play(self, p: Player) -> None:
        """Play round after round until stopped, then resign the game in hand."""
        while not p.done:
            node = p.node()
            try:
                async with ws_client(self.nodes[node].port) as c:
                    auth = await ask(c, type="auth", token=p.token)
                    if auth["type"] != "authed":
                        assert auth["code"] == "internal", auth
                        self._failed(p, node, "auth_internal")
                        await asyncio.sleep(0.2)
                        continue
                    p.state = None  # resume from what this node says
                    while not p.done and p.node() == node:
                        await self._turn(p, c, node)
            except (OSError, ConnectionClosed, Unanswered) as exc:
                self._failed(p, node, f"lost:{type(exc).__name__}")
                p.state = None
                await asyncio.sleep(0.1)

    def _failed(self, p: Player, node: int, what: str) -> None:
        self.tally[what] += 1
        if self.leaves(node):
            p.avoid.add(node)
            p.pending = None  # resume on the next node from its `state`
            p.state = None
            self.tally["moved"] += 1

    async def _turn(self, p: Player, c: Client, node: int) -> None:
        if p.state is None:
            if self.stopping and p.round >= len(self.tids):
                p.done = True
                return
            tid = await self.tournament(p.round)
            kind = "state" if tid in p.joined else "join"
            reply = await ask(c, type=kind, tournament=tid)
            if reply["type"] != "state":
                assert reply["code"] == "internal", reply
                self._failed(p, node, f"{kind}_internal")
                await asyncio.sleep(0.1)
                return
            p.joined.add(tid)
            p.state = reply
            p.last[tid] = reply
        tid = self.tids[p.round]
        state = p.state
        if state["status"] != "playing":
            p.round += 1
            p.state = None
            p.done = self.stopping
            return
        if p.pending is not None:
            seq, action = p.pending
        else:
            seq = state["seq"] + 1
            action = {"kind": "resign"} if self.stopping else random_move(state, p.rnd)
        p.sent.setdefault((tid, seq), []).append(action)
        started = time.monotonic()
        try:
            reply = await ask(c, type="act", tournament=tid, seq=seq, action=action)
        except Unanswered:
            self.tally["act_unanswered"] += 1
            self.slowest[node] = max(self.slowest.get(node, 0.0), time.monotonic() - started)
            raise
        took = time.monotonic() - started
        self.slowest[node] = max(self.slowest.get(node, 0.0), took)
        if reply["type"] == "state":
            assert reply["seq"] == seq, (reply, seq)
            p.acked[(tid, seq)] = action
            p.state = p.last[tid] = reply
            p.pending = None
            self.last_ack[node] = p.acked_at[node] = time.monotonic()
            self.tally["acked"] += 1
            self.tally["duplicate"] += bool(reply.get("duplicate"))
            await asyncio.sleep(PACE_S * p.rnd.uniform(0.5, 1.5))
        elif reply["code"] == "internal":
            self.tally["act_internal"] += 1
            p.pending = (seq, action)  # not acknowledged: the same seq again
            self._failed(p, node, "act_failed")
            await asyncio.sleep(0.05)
        elif reply["code"] == "out_of_sync":
            # the action sent before was stored after all (its commit reached the database
            # late), and this one differs: resume from the game as stored
            self.tally["out_of_sync"] += 1
            p.pending = None
            p.state = None
        else:
            raise AssertionError(f"unexpected reply to act: {reply}")


# -- checks -----------------------------------------------------------------------------
async def standings_everywhere(nodes: list[ServerProcess], tid: int) -> list[list[Any]]:
    """The rows of `standings_page` from every node."""
    rows = []
    for node in nodes:
        async with ws_client(node.port) as c:
            page = await ask(c, type="standings_page", tournament=tid, offset=0, limit=100)
            assert page["type"] == "standings", page
            rows.append(page["rows"])
    return rows


async def converge(run: Run) -> tuple[dict[int, Any], float]:
    """Wait until every node gives the same standings rows for every tournament, through
    `standings_page` and in the latest push of its watcher; those rows, and how long it
    took."""
    start = time.monotonic()
    agreed: dict[int, Any] = {}
    for tid in run.tids:
        while True:
            seen = await standings_everywhere(run.nodes, tid)
            pushed = [w.latest.get(tid) for w in run.watchers]
            if all(rows == seen[0] for rows in seen + pushed):
                agreed[tid] = seen[0]
                break
            assert time.monotonic() - start < SETTLE_S, (
                f"standings of {tid} differ: pages {seen}, pushes {pushed}"
            )
            await asyncio.sleep(0.2)
    return agreed, time.monotonic() - start


def _live_shape(row: dict[str, Any]) -> dict[str, Any]:
    """A bundle's row as live rows before the close carry it: `disqualified` only for a
    disqualified entry (bundles write it on every row, null for a ranked one), and no
    `par` (added after the close, null until computed)."""
    return {k: v for k, v in row.items() if k != "par" and not (k == "disqualified" and v is None)}


async def close_and_check(run: Run, players: list[Player], agreed: dict[int, Any]) -> int:
    """Close every tournament and check each record against its player's ledger and the
    bundle's standings against the rows every node agreed on; the actions logged."""
    logged = 0
    for tid in run.tids:
        closed = await ask(run.op, type="close_tournament", tournament=tid)
        assert closed["type"] == "tournament", closed
        url = f"http://127.0.0.1:{run.nodes[-1].port}/tournaments/{tid}/bundle.json"
        deadline = time.monotonic() + 2.0  # another node than the one that closed it
        while (fetched := await asyncio.to_thread(http_get, url))[0] == 404:
            assert time.monotonic() < deadline, fetched  # it learns of the close by a notice
            await asyncio.sleep(0.05)
        code, body = fetched
        assert code == 200, body
        bundle = json.loads(body)
        assert verify_document(bundle).ok
        final = [_live_shape(row) for row in bundle["standings"]]
        assert final == agreed[tid], (final, agreed[tid])
        records = {r["player"]["name"]: r for r in bundle["records"]}
        for p in players:
            if tid not in p.joined:
                assert p.name not in records or not records[p.name]["actions"]
                continue
            logged += check_record(p, tid, records[p.name])
    return logged


def check_record(p: Player, tid: int, record: dict[str, Any]) -> int:
    log = {a["seq"]: a["action"] for a in record["actions"]}
    assert sorted(log) == list(range(1, len(log) + 1)), f"{p.name}: seqs {sorted(log)}"
    for (t, seq), action in p.acked.items():
        if t == tid:  # an acknowledged action is in the log, unchanged
            assert log.get(seq) == action, (
                f"{p.name} t{tid} seq {seq}: acked {action}, log {log.get(seq)}"
            )
    for seq, action in log.items():  # nothing in the log the player did not send
        assert action == p.acked.get((tid, seq)) or action in p.sent.get((tid, seq), []), (
            f"{p.name} t{tid} seq {seq}: {action} was never sent"
        )
    last = p.last[tid]
    assert last["status"] != "playing" and last["seq"] == len(log), (p.name, last["seq"], len(log))
    assert record["log_hash"] == last["log_hash"]  # the last receipt is the record's
    return len(log)


# -- fixtures ---------------------------------------------------------------------------
@pytest.fixture
def cluster(pg_url: str) -> DatabaseRestart:
    return DatabaseRestart(PG_ADMIN_DSN, urlsplit(pg_url).path.lstrip("/"))


@pytest.fixture
def proxy() -> Iterator[TcpProxy]:
    host, port = PG_SERVER
    with TcpProxy(port, host) as p:
        yield p


@asynccontextmanager
async def nodes_on(
    pg_url: str, urls: list[str], folder: Path
) -> AsyncIterator[list[ServerProcess]]:
    assert (await asyncio.to_thread(cli, pg_url, "migrate")).returncode == 0
    nodes = await asyncio.to_thread(start_nodes, urls, folder)
    try:
        yield nodes
    finally:
        for node in nodes:
            if node.proc.poll() is None:
                try:
                    await asyncio.to_thread(node.stop)
                except subprocess.TimeoutExpired:  # a graceful stop that hangs: a finding
                    node.proc.kill()
                    raise


async def operator(pg_url: str, node: ServerProcess, stack: AsyncExitStack) -> Client:
    op: Client = await stack.enter_async_context(ws_client(node.port))
    token = (await op.ok(type="register", name="op"))["token"]
    assert (await asyncio.to_thread(cli, pg_url, "admin", "grant", "op")).returncode == 0
    await op.ok(type="auth", token=token)  # authentication reads the role again
    return op


async def watching(nodes: list[ServerProcess], stack: AsyncExitStack) -> list[Watcher]:
    """A watcher on every node."""
    return [await stack.enter_async_context(Watcher(node.port)) for node in nodes]


async def register(
    node: ServerProcess, count: int, homes: list[int], fallbacks: list[int], seed: int
) -> list[Player]:
    players = []
    async with ws_client(node.port) as c:
        for i in range(count):
            name = f"p{i}"
            token = (await c.ok(type="register", name=name))["token"]
            players.append(
                Player(
                    name,
                    token,
                    homes[i % len(homes)],
                    fallbacks[i % len(fallbacks)],
                    random.Random(seed * 1000 + i),
                )
            )
    return players


def figures(name: str, **values: Any) -> None:
    print(f"\nFAULTS {name} " + json.dumps(values, sort_keys=True))


async def waiting(
    tasks: list[asyncio.Task[None]], check: Callable[[], bool], seconds: float
) -> float:
    """Wait until `check()` while the players play (a player's failure is raised at
    once); the time it took."""
    start = time.monotonic()
    while not check():
        for task in tasks:
            if task.done():
                task.result()  # a player's assertion, raised here
        assert time.monotonic() - start < seconds, f"not within {seconds} s"
        await asyncio.sleep(0.02)
    return time.monotonic() - start


def all_acked_elsewhere(players: list[Player], node: int, since: float) -> Callable[[], bool]:
    """Whether each player has had an action acknowledged by another node since `since`."""
    return lambda: all(any(t > since for n, t in p.acked_at.items() if n != node) for p in players)


def acked_since(run: Run, node: int, since: float) -> Callable[[], bool]:
    """Whether the node has acknowledged an action since `since` (monotonic)."""
    return lambda: run.last_ack.get(node, 0.0) > since


async def healthy_again(node: ServerProcess, seconds: float = RECOVER_S) -> float:
    """Seconds until the node's /healthz answers 200."""
    start = time.monotonic()
    while True:
        status, _ = await asyncio.to_thread(healthz, node.port, 5)
        if status == 200:
            return time.monotonic() - start
        assert time.monotonic() - start < seconds, f"/healthz still {status} after {seconds} s"
        await asyncio.sleep(0.1)


async def accepting(database: str, seconds: float = 60) -> None:
    """Wait until PostgreSQL accepts connections to `database`."""
    deadline = time.monotonic() + seconds
    dsn = PG_ADMIN_DSN.rsplit("/", 1)[0] + f"/{database}"
    while True:
        try:
            conn = await asyncpg.connect(dsn, timeout=2)
        except (OSError, asyncpg.PostgresError, TimeoutError):
            assert time.monotonic() < deadline, "PostgreSQL did not come back"
            await asyncio.sleep(0.1)
            continue
        await conn.close()
        return


async def finish(run: Run, tasks: list[asyncio.Task[None]]) -> None:
    """Stop: every player resigns the game in hand (until acknowledged) and stops."""
    run.stopping = True
    await asyncio.wait_for(asyncio.gather(*tasks), ANSWER_S * 2)


# -- 1. PostgreSQL restarted under load ---------------------------------------------------
async def test_postgresql_restarted_under_load_loses_nothing_and_nodes_recover(
    pg_url: str, cluster: DatabaseRestart, tmp_path: Path
) -> None:
    rnd = random.Random(1)
    began = time.monotonic()
    async with nodes_on(pg_url, [pg_url] * 3, tmp_path) as nodes, AsyncExitStack() as stack:
        op = await operator(pg_url, nodes[0], stack)
        players = await register(nodes[0], 9, homes=[0, 1, 2], fallbacks=[0], seed=1)
        run = Run(nodes, op, await watching(nodes, stack))
        await run.tournament(0)
        tasks = [asyncio.create_task(run.play(p)) for p in players]
        down, healthy, acting = [], [], []
        await waiting(tasks, lambda: len(run.last_ack) == 3, ANSWER_S)
        for _ in range(RESTARTS):
            await asyncio.sleep(rnd.uniform(1.0, 3.0) if LONG else 1.0)
            before = run.tally["acked"]
            assert before, "nothing acknowledged before the restart"
            t0 = time.monotonic()
            await cluster.restart(rnd.uniform(2.0, 4.0))
            await accepting(urlsplit(pg_url).path.lstrip("/"))
            up = time.monotonic()
            down.append(up - t0)
            # every node is healthy and acknowledges actions again, by itself
            back = await asyncio.gather(
                *(healthy_again(n) for n in nodes),
                *(waiting(tasks, acked_since(run, i, up), RECOVER_S) for i in range(3)),
            )
            healthy += back[:3]
            acting += back[3:]
        await asyncio.sleep(1.0)
        await finish(run, tasks)
        agreed, settle = await converge(run)
        logged = await close_and_check(run, players, agreed)
        assert all(node.proc.poll() is None for node in nodes)  # none restarted or died
    assert run.tally["act_internal"] > 0  # players did act while PostgreSQL was away
    assert run.tally["out_of_sync"] == 0  # each resend was the same action
    figures(
        "restart",
        restarts=RESTARTS,
        players=len(players),
        tournaments=len(run.tids),
        acked=run.tally["acked"],
        logged=logged,
        internal=run.tally["act_internal"],
        duplicates=run.tally["duplicate"],
        creates_retried=run.tally["create_retried"],
        down_s=round(max(down), 2),
        healthz_s=round(max(healthy), 2),
        acts_again_s=round(max(acting), 2),
        settle_s=round(settle, 2),
        total_s=round(time.monotonic() - began, 1),
    )


# -- 2. one node cut off from PostgreSQL ---------------------------------------------------
@pytest.mark.parametrize("flavour", ["reset", "blackhole"])
async def test_a_node_cut_off_from_postgresql_fails_cleanly_and_recovers(
    pg_url: str, proxy: TcpProxy, tmp_path: Path, flavour: str
) -> None:
    rnd = random.Random(2)
    began = time.monotonic()
    parts = urlsplit(pg_url)
    user = parts.netloc.rpartition("@")[0]
    netloc = f"{user}@127.0.0.1:{proxy.port}" if user else f"127.0.0.1:{proxy.port}"
    via = urlunsplit(parts._replace(netloc=netloc))  # the same database through the proxy
    CUT = 2
    cut = False
    async with (
        nodes_on(pg_url, [pg_url, pg_url, via], tmp_path) as nodes,
        AsyncExitStack() as stack,
    ):
        stack.callback(proxy.restore)  # before the nodes stop, should the test fail
        op = await operator(pg_url, nodes[0], stack)
        homes = [CUT, CUT, CUT, CUT, 0, 1, 0, 1]  # four clients of the cut node
        players = await register(nodes[0], len(homes), homes=homes, fallbacks=[0, 1], seed=2)
        cut_off = [p for p in players if p.home == CUT]
        run = Run(nodes, op, await watching(nodes, stack), lambda n: n == CUT and cut)
        await run.tournament(0)
        tasks = [asyncio.create_task(run.play(p)) for p in players]
        failover, health_cut, healthy, acting = [], [], [], []
        await waiting(tasks, lambda: len(run.last_ack) == 3, ANSWER_S)
        for n in range(CUTS):
            await asyncio.sleep(rnd.uniform(1.0, 3.0) if LONG else 1.0)
            cut = True
            if n % 2 == 0:  # in the middle of a write: right after an action's row was sent
                proxy.cut_after(ACTION_MARK, flavour)  # type: ignore[arg-type]
            else:  # wherever the node is
                proxy.cut(flavour)  # type: ignore[arg-type]
            await waiting(tasks, lambda: proxy.mode is not None, 10)
            assert proxy.cut_at is not None
            t_cut = proxy.cut_at
            # the cut node says so (never a hang) ...
            status, took = await asyncio.to_thread(healthz, nodes[CUT].port, ANSWER_S)
            health_cut.append(took)
            assert status == 503, (
                f"/healthz of the cut node: {status or 'no answer'} after {took:.1f} s"
            )
            # ... its clients get errors and every one of them goes on on another node
            await waiting(tasks, all_acked_elsewhere(cut_off, CUT, t_cut), ANSWER_S)
            failover.append(time.monotonic() - t_cut)
            await asyncio.sleep(0.5)
            proxy.restore()
            cut = False
            t_up = time.monotonic()
            for p in cut_off:  # back to their node, which recovers by itself
                p.avoid.clear()
            health, acts = await asyncio.gather(
                healthy_again(nodes[CUT]), waiting(tasks, acked_since(run, CUT, t_up), RECOVER_S)
            )
            healthy.append(health)
            acting.append(acts)
        await asyncio.sleep(1.0)
        await finish(run, tasks)
        agreed, settle = await converge(run)
        logged = await close_and_check(run, players, agreed)
    assert run.tally["act_unanswered"] == 0
    assert run.slowest[CUT] < 20, f"an act on the cut node took {run.slowest[CUT]:.1f} s"
    figures(
        f"cut-{flavour}",
        cuts=CUTS,
        players=len(players),
        tournaments=len(run.tids),
        acked=run.tally["acked"],
        logged=logged,
        internal=run.tally["act_internal"],
        moved=run.tally["moved"],
        out_of_sync=run.tally["out_of_sync"],
        slowest_reply_cut_node_s=round(run.slowest.get(CUT, 0), 2),
        healthz_cut_s=round(max(health_cut), 2),
        resumed_elsewhere_s=round(max(failover), 2),
        healthz_back_s=round(max(healthy), 2),
        acts_again_s=round(max(acting), 2),
        settle_s=round(settle, 2),
        total_s=round(time.monotonic() - began, 1),
    )


# -- 3. LISTEN connections dropped again and again -------------------------------------------
async def test_listeners_dropped_again_and_again_standings_converge(
    pg_url: str, tmp_path: Path
) -> None:
    rnd = random.Random(3)
    began = time.monotonic()
    async with nodes_on(pg_url, [pg_url] * 3, tmp_path) as nodes, AsyncExitStack() as stack:
        op = await operator(pg_url, nodes[0], stack)
        players = await register(nodes[0], 9, homes=[0, 1, 2], fallbacks=[0], seed=3)
        run = Run(nodes, op, await watching(nodes, stack))
        await run.tournament(0)
        tasks = [asyncio.create_task(run.play(p)) for p in players]
        await waiting(tasks, lambda: len(run.last_ack) == 3, ANSWER_S)
        admin = await asyncpg.connect(pg_url.replace("postgresql+asyncpg://", "postgresql://"))
        stack.push_async_callback(admin.close)
        listeners = (
            "SELECT pid FROM pg_stat_activity"
            " WHERE application_name = 'samedeal-listener' AND datname = current_database()"
        )

        gone: set[int] = set()

        async def all_listening() -> bool:
            pids = {r["pid"] for r in await admin.fetch(listeners)}
            return len(pids - gone) == len(nodes)

        dropped, relisten = 0, []
        for _ in range(DROPS):  # each time every node's listener, then until all are back
            await asyncio.sleep(rnd.uniform(0.1, 0.8))
            pids = [r["pid"] for r in await admin.fetch(listeners)]
            await admin.execute("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) pid", pids)
            gone.update(pids)
            dropped += len(pids)
            relisten.append(await until(all_listening, RELISTEN_S, 0.02))
        await asyncio.sleep(0.5)
        await finish(run, tasks)
        agreed, settle = await converge(run)
        logged = await close_and_check(run, players, agreed)
    assert dropped == DROPS * len(nodes)
    figures(
        "listener",
        drops=DROPS,
        connections_dropped=dropped,
        players=len(players),
        tournaments=len(run.tids),
        acked=run.tally["acked"],
        logged=logged,
        relisten_s_max=round(max(relisten), 2),
        settle_s=round(settle, 2),
        total_s=round(time.monotonic() - began, 1),
    )
