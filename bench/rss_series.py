"""Memory over a season: one server runs tournament after tournament (30 players each:
joins, a few actions, one anonymous watcher subscribed, the operator's close, the watcher
gone), and the memory of the server's whole process tree is read as it goes: the event
loop's process, its SQLite writer process and its worker processes (par, ratings,
bundles), each by its proportional set size (PSS: shared pages split between the
processes sharing them, so the sum is what the tree holds), beside their RSS. Sessions
are driven in process (`Session.handle`, as bench.inproc), against a real SQLite file.

With `--wire` the server is its own process (`python -m server serve` on a fresh SQLite
file, its registration and per-address connection limits off) and the bench's players,
watcher and operator are real WebSocket connections from this process, so the transport
is measured too (connections, their buffers and per-connection state): each tournament
is created and closed by the operator's connection (granted admin by `python -m server
admin grant`), each player opens a connection, signs in with its token, joins, acts and
closes it, the watcher opens one, subscribes, waits for the `closed` push and closes it.
The tree read is the server process's (the event loop) and its descendants, without a
forced collection (the server's own GC); its section is `rss_series_wire`.

    .venv/bin/python -m bench.rss_series [--games klondike gaps] [--tournaments 1000]
        [--players 30] [--wire] [--every 50] [--no-write]

Goal (issue 41): from the 200th tournament to the last, at most 1 MiB per 100
tournaments, the whole tree counted. Growth is printed per 100 tournaments for each
quarter of the series, and per process over the goal's range.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect

from bench.load import stop_process, wait_port
from bench.report import write_section
from server.competition.catalogue import TournamentSpec
from server.net.app import App, build_app, run_loop, tune_gc
from server.net.session import Session

FROM = 200  # the goal's range starts here (caches and the workers' first jobs before)
EVERY = 50  # a reading every EVERY tournaments
ACTIONS = {"klondike": 6, "gaps": 3}  # a player's actions: draws (Klondike), moves (Gaps)
OPTIONS: dict[str, dict[str, Any]] = {"klondike": {}, "gaps": {"redeals": 2}}


class Watcher:
    """A connection with the transport's broadcast interface, counting what it gets."""

    congested = False
    writable = None

    def __init__(self) -> None:
        self.frames = 0

    def send_text(self, data: bytes) -> None:
        self.frames += 1


def _kib(pid: int, path: str, field: str) -> int:
    try:
        with open(f"/proc/{pid}/{path}", encoding="ascii") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                found += [int(x) for x in f.read().split()]
    except FileNotFoundError:
        pass
    return found


def role(pid: int, root: int) -> str:
    """What a process of the tree is: the event loop (the root), the SQLite writer, a
    worker (par, ratings, bundles), or multiprocessing's resource tracker."""
    if pid == root:
        return "event loop"
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except FileNotFoundError:
        return "gone"
    if b"sqlite_process" in cmd:
        return "SQLite writer"
    if b"resource_tracker" in cmd:
        return "resource tracker"
    return "worker" if b"multiprocessing" in cmd else "other"


def tree(root: int) -> dict[str, tuple[int, int, int]]:
    """Per role: (processes, PSS KiB, RSS KiB) of the server process `root` and its
    descendants."""
    out: dict[str, tuple[int, int, int]] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        todo += _children(pid)
        who = role(pid, root)
        n, pss, rss = out.get(who, (0, 0, 0))
        pss_now = _kib(pid, "smaps_rollup", "Pss:")
        rss_now = _kib(pid, "status", "VmRSS:")
        out[who] = (n + 1, pss + pss_now, rss + rss_now)
    return out


def next_action(game: str, state: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """A player's next action: a draw (Klondike), a random legal move (Gaps)."""
    if game == "klondike":
        return {"kind": "draw"}
    legal = state["view"]["legal"]
    return {"kind": "move", **rnd.choice(legal)} if legal else {"kind": "resign"}


async def ask(session: Session, message: dict[str, Any]) -> dict[str, Any]:
    return await session.handle(orjson.dumps({**message, "id": 1}).decode())


async def one_tournament(app: App, game: str, sessions: list[Session], rnd: random.Random) -> int:
    """One tournament from creation to the operator's close; the frames its watcher got."""
    now = app.competition.catalogue.now()
    spec = TournamentSpec("Series", game, OPTIONS[game], now + timedelta(hours=1), now)
    t = await app.competition.catalogue.create(spec)
    watcher = Watcher()  # anonymous: subscribed, never signed in
    watching = Session(app.competition, app.fanout, app.metrics, watcher)
    await ask(watching, {"type": "subscribe", "tournament": t.id})

    async def play(session: Session) -> None:
        state = await ask(session, {"type": "join", "tournament": t.id})
        for _ in range(ACTIONS[game]):
            action = next_action(game, state, rnd)
            act = {"type": "act", "tournament": t.id, "seq": state["seq"] + 1, "action": action}
            reply = await ask(session, act)
            if reply.get("type") != "state":
                break
            state = reply
            if state["status"] != "playing":
                break

    await asyncio.gather(*(play(s) for s in sessions))
    await app.competition.lifecycle.close(t.id)
    await app.fanout.settled()  # the final window and the reveal are pushed
    app.closed(watcher)  # type: ignore[arg-type]  # the watcher's connection goes
    return watcher.frames


async def series(
    game: str, tournaments: int, players: int, work: Path, every: int
) -> list[dict[str, Any]]:
    """A reading (tournaments run, the tree's memory by role) every `every` tournaments."""
    app = await build_app(f"sqlite+aiosqlite:///{work / f'{game}.db'}", demo=False)
    app.metrics.connections += 1
    sessions = []
    for i in range(players):
        session = Session(app.competition, app.fanout, app.metrics, Watcher())
        await ask(session, {"type": "register", "name": f"s{i}"})
        sessions.append(session)
    tune_gc()
    rnd = random.Random(7)
    gc.collect()
    readings: list[dict[str, Any]] = [{"n": 0, "tree": tree(os.getpid())}]
    for n in range(1, tournaments + 1):
        frames = await one_tournament(app, game, sessions, rnd)
        assert frames >= 2, "the watcher got the final window and the reveal"
        if n % every == 0:
            gc.collect()
            readings.append({"n": n, "tree": tree(os.getpid())})
            pss = sum(v[1] for v in readings[-1]["tree"].values())
            held = len(app.competition.catalogue.tournaments)
            print(
                f"{game} {n:5d}: PSS of the tree {pss / 1024:.1f} MiB, tournaments in "
                f"memory {held}, fan-out rooms {len(app.fanout.rooms)}",
                flush=True,
            )
    await app.competition.lifecycle.stop()
    await app.store.close()
    return readings


# -- the wire mode: the server in its own process, real WebSocket clients ---------------
SERVER = [sys.executable, "-m", "server"]
SERVE = ["serve", "--port", "0", "--no-demo"]
SERVE += ["--max-registrations-per-minute", "0", "--max-connections-per-ip", "0"]  # (a bench)


class Wire:
    """One WebSocket connection of the bench: requests answered by their `re`."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.last_id = 0

    @classmethod
    async def open(cls, url: str) -> Wire:
        return cls(await connect(url, compression=None, max_size=None))

    async def call(self, message: dict[str, Any], expect: str | None = None) -> dict[str, Any]:
        """The reply to `message` (pushes before it are passed over); with `expect`, a
        reply of another type is an error."""
        self.last_id += 1
        await self.ws.send(orjson.dumps({**message, "id": self.last_id}).decode())
        while True:
            reply: dict[str, Any] = orjson.loads(await self.ws.recv())
            if reply.get("re") == self.last_id:
                if expect is not None and reply.get("type") != expect:
                    raise RuntimeError(f"{message['type']}: {reply}")
                return reply

    async def pushed(self, kind: str) -> int:
        """Frames received until one of type `kind` (that one counted)."""
        frames = 0
        while True:
            frames += 1
            if orjson.loads(await self.ws.recv()).get("type") == kind:
                return frames

    async def close(self) -> None:
        await self.ws.close()


async def registered(url: str, name: str) -> str:
    """A new player's token (registered on a connection of its own, then closed)."""
    conn = await Wire.open(url)
    try:
        reply = await conn.call({"type": "register", "name": name}, "registered")
        token: str = reply["token"]
        return token
    finally:
        await conn.close()


async def operator(url: str, database_url: str) -> Wire:
    """The operator's connection: a player made admin by the server's own command line."""
    token = await registered(url, "operator")
    subprocess.run(
        [*SERVER, "--database-url", database_url, "admin", "grant", "operator"],
        check=True,
        capture_output=True,
    )
    conn = await Wire.open(url)
    authed = await conn.call({"type": "auth", "token": token}, "authed")
    assert authed["player"]["admin"], authed
    return conn


async def wire_player(url: str, token: str, tid: int, game: str, rnd: random.Random) -> None:
    """One player's visit: a connection, signed in, the join, the actions, closed."""
    conn = await Wire.open(url)
    try:
        await conn.call({"type": "auth", "token": token}, "authed")
        state = await conn.call({"type": "join", "tournament": tid}, "state")
        for _ in range(ACTIONS[game]):
            action = next_action(game, state, rnd)
            act = {"type": "act", "tournament": tid, "seq": state["seq"] + 1, "action": action}
            reply = await conn.call(act)
            if reply.get("type") != "state":
                break
            state = reply
            if state["status"] != "playing":
                break
    finally:
        await conn.close()


async def wire_tournament(
    url: str, op: Wire, game: str, tokens: list[str], rnd: random.Random
) -> int:
    """One tournament over the wire, created to closed; the frames its watcher got."""
    ends = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    made = await op.call(
        {
            "type": "create_tournament",
            "name": "Series",
            "game": game,
            "options": OPTIONS[game],
            "ends_at": ends,
        },
        "tournament",
    )
    tid = made["tournament"]["id"]
    watcher = await Wire.open(url)  # anonymous: subscribed, never signed in
    try:
        await watcher.call({"type": "subscribe", "tournament": tid}, "standings")
        await asyncio.gather(*(wire_player(url, t, tid, game, rnd) for t in tokens))
        await op.call({"type": "close_tournament", "tournament": tid}, "tournament")
        return 1 + await watcher.pushed("closed")  # (the subscribe's reply, the pushes)
    finally:
        await watcher.close()


async def wire_series(
    game: str, tournaments: int, players: int, work: Path, every: int
) -> list[dict[str, Any]]:
    """As `series`, the server a process of its own and the clients real connections."""
    database_url = f"sqlite+aiosqlite:///{work / f'{game}.db'}"
    log = work / f"{game}-server.log"
    server = subprocess.Popen(
        [*SERVER, "--database-url", database_url, *SERVE],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        text=True,
    )
    try:
        url = f"ws://127.0.0.1:{wait_port(server, log)}/ws"
        op = await operator(url, database_url)
        tokens = [await registered(url, f"s{i}") for i in range(players)]
        rnd = random.Random(7)
        readings: list[dict[str, Any]] = [{"n": 0, "tree": tree(server.pid)}]
        for n in range(1, tournaments + 1):
            frames = await wire_tournament(url, op, game, tokens, rnd)
            assert frames >= 2, "the watcher got the standings and the reveal"
            if n % every == 0:
                readings.append({"n": n, "tree": tree(server.pid)})
                pss = _pss(readings[-1])
                print(f"{game} {n:5d}: PSS of the server's tree {pss:.1f} MiB", flush=True)
        await op.close()
        return readings
    finally:
        stop_process(server)


def _pss(reading: dict[str, Any], who: str | None = None) -> float:
    return sum(v[1] for k, v in reading["tree"].items() if who is None or k == who) / 1024


def summary(
    game: str, readings: list[dict[str, Any]], tournaments: int, every: int = EVERY
) -> list[str]:
    """Rows: the game's growth per 100 by quarter, over the goal's range, by process."""
    at = {r["n"]: r for r in readings}
    first = readings[0]
    quarter = max(every, tournaments // 4 // every * every)
    marks = [first["n"], *range(quarter, tournaments + 1, quarter)]
    steps = []
    for a, b in itertools.pairwise(marks):
        if a in at and b in at:
            steps.append(f"{100 * (_pss(at[b]) - _pss(at[a])) / (b - a):+.2f}")
    start = at.get(FROM, first)
    end = readings[-1]
    span = end["n"] - start["n"]
    growth = 100 * (_pss(end) - _pss(start)) / span if span else 0.0
    roles = sorted(end["tree"])
    parts = []
    for who in roles:
        n_proc, pss, rss = end["tree"][who]
        grew = 100 * (_pss(end, who) - _pss(start, who)) / span if span else 0.0
        parts.append(
            f"{who} ×{n_proc}: {pss / 1024:.1f} MiB PSS ({rss / 1024:.1f} RSS), {grew:+.2f}"
        )
    verdict = "met" if growth <= 1.0 else "not met"
    return [
        f"| {game} | {_pss(start):.1f} → {_pss(end):.1f} | {' → '.join(steps)} | "
        f"**{growth:+.2f}** ({verdict}) | {'; '.join(parts)} |"
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", nargs="+", default=["klondike", "gaps"], choices=list(ACTIONS))
    ap.add_argument("--tournaments", type=int, default=1000)
    ap.add_argument("--players", type=int, default=30)
    ap.add_argument("--wire", action="store_true", help="the server a process, real clients")
    ap.add_argument("--every", type=int, default=EVERY, help="tournaments between readings")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    began = time.monotonic()
    rows = [
        "| game | PSS of the tree at the 200th → last (MiB) | growth per 100 by quarter "
        "(MiB) | growth per 100 from the 200th (goal ≤ 1 MiB) | at the end, by process "
        "(growth per 100 from the 200th, MiB) |",
        "|---|---|---|---|---|",
    ]
    run = wire_series if args.wire else series
    for game in args.games:
        work = Path(tempfile.mkdtemp(prefix="samedeal-rss-"))
        readings = run_loop(run(game, args.tournaments, args.players, work, args.every))
        rows += summary(game, readings, args.tournaments, args.every)
    scenario = (
        f"{args.tournaments} tournaments of each game in one server (a fresh SQLite file "
        f"each), {args.players} players each: joins, then "
        f"{ACTIONS['klondike']} draws a player (Klondike) or {ACTIONS['gaps']} random legal "
        "moves (Gaps), one anonymous watcher subscribed, the operator's close and its "
        "reveal pushed, the watcher gone. "
    )
    if args.wire:
        how = (
            "The server is its own process (`python -m server serve`, registration and "
            "per-address connection limits off); the players, the watcher and the operator "
            "are WebSocket connections from the bench's process, a player's and the "
            "watcher's opened and closed in every tournament. Memory is the PSS of the "
            "server's whole process tree (the event loop, the SQLite writer, the workers), "
            f"read every {args.every} tournaments without a forced collection"
        )
    else:
        how = (
            "Memory is the PSS of the server's whole process tree (the event loop, the "
            f"SQLite writer, the workers), read every {args.every} tournaments after a "
            "full collection"
        )
    body = f"{scenario}{how}; {time.monotonic() - began:.0f} s in all.\n\n" + "\n".join(rows)
    print(body)
    if not args.no_write:
        name, command = "rss_series", "python -m bench.rss_series"
        if args.wire:
            name, command = "rss_series_wire", command + " --wire"
        if args.tournaments != 1000:
            command += f" --tournaments {args.tournaments}"
        write_section(name, command, body)


if __name__ == "__main__":
    main()
