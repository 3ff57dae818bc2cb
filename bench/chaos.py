"""Chaos at cluster scale: nodes killed and frozen, PostgreSQL "restarted", and nothing
lost, stale, leaked or noisy.

    nice -n 10 .venv/bin/python -m bench.chaos [--seconds 90 | --kills 1000] [--players 30]

Three server processes (nodes) on one fresh PostgreSQL database; about 30 players, each
on a random node, reconnecting to another random node whenever theirs fails; a fault
loop that SIGKILLs a random node and starts it again every 1-4 s, freezes one (SIGSTOP
for 2-5 s, then SIGCONT) now and then, and about once a minute "restarts PostgreSQL".
The machine's PostgreSQL server is shared (other databases, other users), so its restart
is simulated on the bench's database alone: every backend of that database terminated
(pg_terminate_backend: what a restart does to a node's connections) and new connections
refused for 2-4 s (ALTER DATABASE ... ALLOW_CONNECTIONS false, then true).

Players follow the protocol: an act answered `internal` is sent again with the same seq;
on another node a player resumes with `state` (`join` for a new game). Each keeps a
ledger of what was acknowledged. Printed (and, with --json, one JSON line):
- kills, freezes, restarts (of PostgreSQL);
- acknowledged: actions acknowledged; lost: acknowledged actions not in the database's
  log at that seq at the end (read directly from the actions table);
- stale: `state`/`join` answers older than an action acknowledged before they were asked;
- orphans: processes of a killed node (its descendants, listed just before the kill)
  still running 5 s after it;
- connection peak: the most connections to the bench's database at once (sampled every
  0.1 s), against the budget (3 x (pool + own connections));
- tracebacks: "Traceback" in the nodes' logs;
- recovery: for a player whose node failed it (its connection lost, or `internal`), the
  time to its next acknowledgement: median, p95, max.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from server.store import db, pg_coordination

PY = sys.executable
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
NODES = 3
KILL_EVERY_S = (1.0, 4.0)
FREEZE_EVERY_S = (8.0, 16.0)
FREEZE_FOR_S = (2.0, 5.0)
RESTART_EVERY_S = 60.0
REFUSE_FOR_S = (2.0, 4.0)
ORPHAN_CHECK_S = 5.0
REQUEST_S = 15.0  # a request unanswered this long counts as a failure (the node is frozen)
THINK_S = (0.05, 0.3)
BUDGET = NODES * (db.POOL_SIZE + db.POOL_OVERFLOW + pg_coordination.OWN_CONNECTIONS)


# -- /proc --------------------------------------------------------------------------
def _parents() -> dict[int, int]:
    out = {}
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = (p / "stat").read_text()
            fields = text[text.rindex(")") + 2 :].split()
            if fields[0] not in ("Z", "X"):
                out[int(p.name)] = int(fields[1])
    return out


def descendants(pid: int) -> set[int]:
    parents = _parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pid: int) -> bool:
    return pid in _parents()


# -- nodes --------------------------------------------------------------------------
class Node:
    """A server process on a fixed port, killed, frozen and started again at will."""

    def __init__(self, index: int, url: str, port: int, work: Path) -> None:
        self.index, self.url, self.port = index, url, port
        self.log = work / f"node{index}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.ready = False  # answered /healthz since its last start
        self.restarting = False  # killed and being started again (not the supervisor's)

    def start(self) -> None:
        args = [PY, "-m", "server", "--database-url", self.url, "serve"]
        args += ["--port", str(self.port), "--no-demo"]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=log)
        self.ready = False

    async def watch_start(self) -> float:
        """Wait until it serves (or dies); how long that took."""
        began, proc = time.monotonic(), self.proc
        while proc is self.proc and proc is not None and proc.poll() is None:
            if await asyncio.to_thread(self.up):
                self.ready = proc is self.proc
                break
            await asyncio.sleep(0.2)
        return time.monotonic() - began

    def up(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                return bool(r.status == 200)
        except OSError:
            return False

    def kill(self) -> set[int]:
        """SIGKILL it; its descendants just before (to be found gone later)."""
        assert self.proc is not None
        self.ready = False
        workers = descendants(self.proc.pid)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        return workers

    def kill_and_start(self) -> set[int]:
        workers = self.kill()
        self.start()
        return workers

    def signal(self, sig: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGCONT)
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


EVENTS: list[str] = []  # what the fault loop did, when (written to the logs' folder)


def event(what: str) -> None:
    EVENTS.append(f"{time.strftime('%H:%M:%S')} {what}")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the tally --------------------------------------------------------------------------
@dataclass
class Tally:
    kills: int = 0
    freezes: int = 0
    restarts: int = 0
    acknowledged: int = 0
    stale: int = 0
    orphans: int = 0
    exits: int = 0  # nodes that ended by themselves (started again)
    connection_peak: int = 0
    internal: int = 0
    reconnects: int = 0
    recovery: list[float] = field(default_factory=list)
    stale_seen: list[str] = field(default_factory=list)


class Failed(Exception):
    """The node failed this player (connection lost, no answer, `internal`)."""


# -- players ------------------------------------------------------------------------------
class Tournaments:
    """Tournaments open until far ahead, created on demand: a player's k-th game is in
    the k-th (players are admins, so whoever needs one first creates it)."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.lock = asyncio.Lock()

    async def get(self, k: int, conn: Conn) -> int:
        async with self.lock:
            while len(self.ids) <= k:
                reply = await conn.req(
                    type="create_tournament",
                    name=f"Chaos {len(self.ids) + 1}",
                    game="gaps",
                    options={"redeals": 2},
                    starts_at=time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
                    ends_at="2099-01-01T00:00:00+00:00",
                    time_limit_s=None,
                )
                if reply["type"] == "error":
                    raise Failed(reply["code"])
                self.ids.append(reply["tournament"]["id"])
            return self.ids[k]


class Conn:
    """Request and reply on one connection; pushes are dropped."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.n = 0

    async def req(self, **msg: Any) -> dict[str, Any]:
        self.n += 1
        msg["id"] = self.n
        try:
            await asyncio.wait_for(self.ws.send(json.dumps(msg)), REQUEST_S)
            async with asyncio.timeout(REQUEST_S):
                while True:
                    reply: dict[str, Any] = json.loads(await self.ws.recv())
                    if reply.get("re") == self.n:
                        return reply
        except (ConnectionClosed, OSError, TimeoutError) as exc:
            raise Failed(type(exc).__name__) from None


@dataclass
class Player:
    name: str
    token: str
    rnd: random.Random
    game: int = 0  # which of the tournaments it plays now
    acked: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)  # (tid, seq)
    last: dict[int, int] = field(default_factory=dict)  # tid -> last acknowledged seq
    failed_at: float | None = None

    def fault(self, tally: Tally, why: str = "") -> None:
        if self.failed_at is None:
            event(f"{self.name} failed: {why}")
            self.failed_at = time.monotonic()

    def ack(self, tally: Tally, tid: int, reply: dict[str, Any], action: dict[str, Any]) -> None:
        self.acked[(tid, reply["seq"])] = action
        self.last[tid] = max(self.last.get(tid, 0), reply["seq"])
        tally.acknowledged += 1
        if self.failed_at is not None:
            tally.recovery.append(time.monotonic() - self.failed_at)
            if tally.recovery[-1] > 10:
                event(f"{self.name} recovered after {tally.recovery[-1]:.1f} s")
            self.failed_at = None


def legal_move(state: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    legal = state["view"]["legal"]
    return {"kind": "move", **rnd.choice(legal)} if legal else {"kind": "redeal"}


async def play(
    p: Player, nodes: list[Node], games: Tournaments, tally: Tally, stop: asyncio.Event
) -> None:
    """Connect to a random node and play there until it fails; then another; until stop."""
    while not stop.is_set():
        node = p.rnd.choice(nodes)
        try:
            async with connect(
                f"ws://127.0.0.1:{node.port}/ws", max_size=None, open_timeout=5, close_timeout=1
            ) as ws:
                tally.reconnects += 1
                await _session(p, Conn(ws), games, tally, stop)
        except (Failed, ConnectionClosed, InvalidHandshake, OSError, TimeoutError) as exc:
            p.fault(tally, f"node{node.index} {type(exc).__name__} {exc}")
            await asyncio.sleep(p.rnd.uniform(0.05, 0.5))


async def _session(
    p: Player, c: Conn, games: Tournaments, tally: Tally, stop: asyncio.Event
) -> None:
    auth = await c.req(type="auth", token=p.token)
    if auth["type"] == "error":
        raise Failed(auth["code"])
    while not stop.is_set():
        tid = await games.get(p.game, c)
        before = p.last.get(tid, 0)  # acknowledged before asking
        state = await c.req(type="join", tournament=tid)
        if state["type"] == "error":
            tally.internal += state["code"] == "internal"
            raise Failed(state["code"])
        if state["seq"] < before:
            tally.stale += 1
            tally.stale_seen.append(f"{p.name} t{tid}: join says {state['seq']}, acked {before}")
        while state["status"] == "playing" and not stop.is_set():
            action = legal_move(state, p.rnd)
            seq = state["seq"] + 1
            while True:  # the same action again after `internal`
                reply = await c.req(type="act", tournament=tid, seq=seq, action=action)
                if reply["type"] != "error":
                    break
                if reply["code"] != "internal":
                    break
                tally.internal += 1
                p.fault(tally)
                await asyncio.sleep(0.1)
            if reply["type"] == "error":  # out_of_sync (stored without an ack): resume
                before = p.last.get(tid, 0)
                state = await c.req(type="state", tournament=tid)
                if state["type"] == "error":
                    raise Failed(state["code"])
                if state["seq"] < before:
                    tally.stale += 1
                    tally.stale_seen.append(
                        f"{p.name} t{tid}: state {state['seq']}, acked {before}"
                    )
                continue
            p.ack(tally, tid, reply, action)
            state = reply
            await asyncio.sleep(p.rnd.uniform(*THINK_S))
        if state["status"] != "playing":
            p.game += 1


# -- faults ------------------------------------------------------------------------------
async def kill_loop(
    starting: list[asyncio.Task[float]],
    nodes: list[Node],
    tally: Tally,
    stop: asyncio.Event,
    rnd: random.Random,
    orphans: list[set[int]],
) -> None:
    while not stop.is_set():
        await asyncio.sleep(rnd.uniform(*KILL_EVERY_S))
        serving = [n for n in nodes if n.ready]
        if stop.is_set():
            return
        if len(serving) < 2:  # never the last serving node: the players always have one
            continue
        node = rnd.choice(serving)
        node.restarting = True  # set on the loop: the supervisor must not start it too
        try:
            workers = await asyncio.to_thread(node.kill_and_start)
        finally:
            node.restarting = False
        tally.kills += 1
        event(f"kill node{node.index} ({len(workers)} workers)")
        orphans.append(workers)
        asyncio.get_running_loop().call_later(
            ORPHAN_CHECK_S, lambda w=workers: _count_orphans(w, tally)
        )
        starting.append(asyncio.create_task(node.watch_start()))


def _count_orphans(workers: set[int], tally: Tally) -> None:
    left = {pid for pid in workers if running(pid)}
    tally.orphans += len(left)
    for pid in left:  # not to pile up
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


async def supervise(
    starting: list[asyncio.Task[float]], nodes: list[Node], tally: Tally, stop: asyncio.Event
) -> None:
    """Start again a node that ended by itself (as a service manager would)."""
    while not stop.is_set():
        await asyncio.sleep(0.5)
        for node in nodes:
            if not node.restarting and node.proc is not None and node.proc.poll() is not None:
                tally.exits += 1
                event(f"node{node.index} exited by itself ({node.proc.returncode})")
                node.start()
                starting.append(asyncio.create_task(node.watch_start()))


async def freeze_loop(
    nodes: list[Node], tally: Tally, stop: asyncio.Event, rnd: random.Random
) -> None:
    while not stop.is_set():
        await asyncio.sleep(rnd.uniform(*FREEZE_EVERY_S))
        if stop.is_set():
            return
        node = rnd.choice(nodes)
        proc = node.proc
        if proc is None or proc.poll() is not None:
            continue
        proc.send_signal(signal.SIGSTOP)
        tally.freezes += 1
        event(f"freeze node{node.index}")
        await asyncio.sleep(rnd.uniform(*FREEZE_FOR_S))
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)


async def restart_loop(
    database: str, tally: Tally, stop: asyncio.Event, rnd: random.Random, every: float
) -> None:
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every * rnd.uniform(0.8, 1.2))
        if stop.is_set():
            return
        event("restart PostgreSQL")
        await restart_postgresql(database, rnd.uniform(*REFUSE_FOR_S))
        tally.restarts += 1
        event("PostgreSQL back")


async def restart_postgresql(database: str, refuse_s: float) -> None:
    """What a restart of PostgreSQL does to the nodes, on `database` alone: every session
    ended, and no new one for `refuse_s`."""
    conn = await asyncpg.connect(PG_ADMIN, timeout=10)
    try:
        await conn.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        await conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
            database,
        )
        await asyncio.sleep(refuse_s)
    finally:
        await conn.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        await conn.close()


async def sample_connections(database: str, tally: Tally, stop: asyncio.Event) -> None:
    """The peak of the database's connections; the sampler's own connection, should it
    fail (asyncpg can report a terminated neighbour's state oddly), is opened again."""
    conn = None
    while not stop.is_set():
        try:
            if conn is None or conn.is_closed():
                conn = await asyncpg.connect(PG_ADMIN, timeout=10)
            n = await conn.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1", database
            )
            tally.connection_peak = max(tally.connection_peak, n)
        except (
            OSError,
            asyncpg.PostgresError,
            asyncpg.InterfaceError,
            TimeoutError,
            asyncpg.InternalClientError,
        ) as exc:
            event(f"sampler: {type(exc).__name__}")
            if conn is not None:
                conn.terminate()
            conn = None
        await asyncio.sleep(0.1)
    if conn is not None:
        await conn.close()


# -- the run ---------------------------------------------------------------------------
async def lost_actions(url: str, players: list[Player]) -> int:
    """Acknowledged actions not in the log at their seq (read from the actions table)."""
    conn = await asyncpg.connect(url, timeout=10)
    try:
        lost = 0
        for p in players:
            rows = await conn.fetch(
                "SELECT e.tournament_id, a.seq, a.action FROM actions a"
                " JOIN entries e ON a.entry_id = e.id JOIN players pl ON e.player_id = pl.id"
                " WHERE pl.name = $1",
                p.name,
            )
            stored = {(r[0], r[1]): json.loads(r[2]) for r in rows}
            lost += sum(stored.get(k) != action for k, action in p.acked.items())
        return lost
    finally:
        await conn.close()


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def run(
    seconds: float | None,
    kills: int | None,
    players_n: int,
    seed: int,
    work: Path,
    restart_every: float = RESTART_EVERY_S,
) -> dict[str, Any]:
    rnd = random.Random(seed)
    database = f"samedeal_chaos_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(PG_ADMIN, timeout=10)
    await admin.execute(f'CREATE DATABASE "{database}"')
    await admin.close()
    raw = PG_ADMIN.rsplit("/", 1)[0] + f"/{database}"
    url = raw.replace("postgresql://", "postgresql+asyncpg://")
    nodes = [Node(i, url, free_port(), work) for i in range(NODES)]
    tally = Tally()
    began = time.monotonic()
    stop, faults_stop = asyncio.Event(), asyncio.Event()
    games = Tournaments()
    players: list[Player] = []
    starts: list[asyncio.Task[float]] = []
    tasks: list[asyncio.Task[Any]] = []  # players, the sampler, the fault loops
    errors: list[str] = []  # the bench's own failures (the figures are printed anyway)
    lost: int | None = None
    try:
        done = subprocess.run(
            [PY, "-m", "server", "--database-url", url, "migrate"], capture_output=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        compile_bytecode()
        for node in nodes:
            node.start()
        starts += [asyncio.create_task(node.watch_start()) for node in nodes]
        await asyncio.gather(*starts)
        players = await register(nodes[0], raw, players_n, rnd)
        orphans: list[set[int]] = []
        sampler = asyncio.create_task(sample_connections(database, tally, stop))
        playing = [asyncio.create_task(play(p, nodes, games, tally, stop)) for p in players]
        chaos = [
            asyncio.create_task(kill_loop(starts, nodes, tally, faults_stop, rnd, orphans)),
            asyncio.create_task(freeze_loop(nodes, tally, faults_stop, rnd)),
            asyncio.create_task(supervise(starts, nodes, tally, faults_stop)),
            asyncio.create_task(restart_loop(database, tally, faults_stop, rnd, restart_every)),
        ]
        tasks += [sampler, *playing, *chaos]
        began = time.monotonic()
        last_print = began
        while True:
            await asyncio.sleep(1.0)
            elapsed = time.monotonic() - began
            if (seconds is not None and elapsed >= seconds) or (
                kills is not None and tally.kills >= kills
            ):
                break
            if failed := [t for t in [sampler, *chaos] if t.done()]:  # a loop ended: stop
                errors += [_failure(t) for t in failed]
                break
            if time.monotonic() - last_print >= 60:
                last_print = time.monotonic()
                started = [t.result() for t in starts if t.done() and not t.exception()]
                print(
                    f"  {elapsed:.0f} s: {tally.kills} kills, {tally.acknowledged} acknowledged,"
                    f" {tally.stale} stale, {tally.orphans} orphans, {tally.restarts} restarts,"
                    f" start median {statistics.median(started):.1f} s"
                    f" ({os.getloadavg()[0]:.1f} load)",
                    flush=True,
                )
        faults_stop.set()
        errors += [_failure(t) for t in await _ended(chaos, 60)]
        for node in nodes:  # all running, none frozen
            node.signal(signal.SIGCONT)
            if node.proc is None or node.proc.poll() is not None:
                node.start()
        settle = time.monotonic()
        while not all(node.up() for node in nodes) and time.monotonic() - settle < 120:
            await asyncio.sleep(0.2)
        await asyncio.sleep(ORPHAN_CHECK_S + 1)  # the last kills' orphan checks; players go on
        stop.set()
        errors += [_failure(t) for t in await _ended([sampler, *playing], REQUEST_S * 3)]
        elapsed = time.monotonic() - began
        lost = await lost_actions(raw, players)
    except Exception as exc:  # the bench's own failure: figures so far, and what it was
        errors.append(f"{type(exc).__name__}: {exc}")
        elapsed = time.monotonic() - began
    finally:
        stop.set()
        faults_stop.set()
        for task in tasks:  # nothing starts a node again from here
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for node in nodes:  # every node stopped before its database goes
            node.stop()
        admin = await asyncpg.connect(PG_ADMIN, timeout=10)
        await admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        await admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        await admin.close()
    (work / "events.log").write_text("\n".join(EVENTS) + "\n")
    logs = [n.log.read_text(errors="replace") for n in nodes if n.log.exists()]
    rec = tally.recovery
    started = [t.result() for t in starts if t.done() and not t.cancelled() and not t.exception()]
    return {
        "seconds": round(elapsed, 1),
        "players": players_n,
        "kills": tally.kills,
        "freezes": tally.freezes,
        "restarts": tally.restarts,
        "acknowledged": tally.acknowledged,
        "lost": lost,
        "stale": tally.stale,
        "orphans": tally.orphans,
        "exits": tally.exits,
        "connection_peak": tally.connection_peak,
        "connection_budget": BUDGET,
        "tracebacks": sum(log.count("Traceback") for log in logs),
        "traceback_kinds": traceback_kinds(logs),
        "internal": tally.internal,
        "reconnects": tally.reconnects,
        "tournaments": len(games.ids),
        "start_median_s": round(statistics.median(started), 2) if started else None,
        "start_p95_s": round(percentile(started, 0.95), 2),
        "start_max_s": round(max(started), 2) if started else None,
        "recovery_median_s": round(statistics.median(rec), 2) if rec else 0.0,
        "recovery_p95_s": round(percentile(rec, 0.95), 2),
        "recovery_max_s": round(max(rec), 2) if rec else 0.0,
        "stale_examples": tally.stale_seen[:5],
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "bench_errors": errors,
        "logs": str(work),
    }


def compile_bytecode() -> None:
    """The server's modules compiled once, as an installed package's are: where the
    environment says not to write bytecode (PYTHONDONTWRITEBYTECODE, as on the machine
    the long run was made on), every node start compiled the ~130 modules of the
    server from source again (13% more CPU to import the server, docs/RELIABILITY.md)."""
    import server

    folder = str(Path(server.__file__).resolve().parent)
    subprocess.run([PY, "-m", "compileall", "-q", folder], capture_output=True, timeout=300)


async def _ended(tasks: list[asyncio.Task[Any]], timeout: float) -> list[asyncio.Task[Any]]:
    """Wait for `tasks` (cancelled after `timeout`); those that failed."""
    if tasks:
        await asyncio.wait(tasks, timeout=timeout)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return [t for t in tasks if not t.cancelled() and t.exception() is not None]


def _failure(task: asyncio.Task[Any]) -> str:
    if task.cancelled():
        return f"{task.get_coro()!r} cancelled"
    exc = task.exception()
    return f"{task.get_coro().__qualname__}: " + (  # type: ignore[union-attr]
        f"{type(exc).__name__}: {exc}" if exc is not None else "ended"
    )


def traceback_kinds(logs: list[str]) -> dict[str, int]:
    """Tracebacks in the nodes' logs by the message logged with them and the exception
    they end with (what to look at first)."""
    kinds: dict[str, int] = {}
    for log in logs:
        lines = log.splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("Traceback"):
                continue
            said = lines[i - 1].strip()[-80:] if i else ""
            j = i + 1
            while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j]):
                j += 1
            last = lines[j].strip()[:120] if j < len(lines) else "?"
            key = f"{said} | {last}"
            kinds[key] = kinds.get(key, 0) + 1
    return dict(sorted(kinds.items(), key=lambda kv: -kv[1]))


async def register(node: Node, raw: str, n: int, rnd: random.Random) -> list[Player]:
    """n players registered on `node`, made admins (to create tournaments as needed)."""
    players = []
    async with connect(f"ws://127.0.0.1:{node.port}/ws", max_size=None) as ws:
        c = Conn(ws)
        for i in range(n):
            reply = await c.req(type="register", name=f"chaos{i}")
            players.append(Player(f"chaos{i}", reply["token"], random.Random(rnd.random())))
    conn = await asyncpg.connect(raw, timeout=10)
    try:
        await conn.execute("UPDATE players SET admin = true WHERE name LIKE 'chaos%'")
    finally:
        await conn.close()
    return players


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=None, help="run this long")
    ap.add_argument("--kills", type=int, default=None, help="run until this many node kills")
    ap.add_argument("--players", type=int, default=30)
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument(
        "--restart-every", type=float, default=RESTART_EVERY_S, help="seconds between restarts"
    )
    ap.add_argument("--logs", help="the folder for the nodes' logs (default: a new one)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = ap.parse_args()
    if args.seconds is None and args.kills is None:
        args.seconds = 90.0
    work = Path(args.logs) if args.logs else Path(tempfile.mkdtemp(prefix="samedeal-chaos-"))
    work.mkdir(parents=True, exist_ok=True)
    out = asyncio.run(
        run(args.seconds, args.kills, args.players, args.seed, work, args.restart_every)
    )
    if args.json:
        print(json.dumps(out), flush=True)
        return
    for k, v in out.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
