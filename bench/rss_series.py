"""Memory over a season: one server runs tournament after tournament (30 players each:
joins, a few actions, one anonymous watcher subscribed, the operator's close, the watcher
gone), and the memory of the server's whole process tree is read as it goes: the event
loop's process, its SQLite writer process and its worker processes (par, ratings,
bundles), each by its proportional set size (PSS: shared pages split between the
processes sharing them, so the sum is what the tree holds), beside their RSS. Sessions
are driven in process (`Session.handle`, as bench.inproc), against a real SQLite file.

    .venv/bin/python -m bench.rss_series [--games klondike gaps] [--tournaments 1000]
        [--players 30] [--no-write]

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
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

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


def role(pid: int) -> str:
    """What a process of the tree is: the event loop (this one), the SQLite writer, a
    worker (par, ratings, bundles), or multiprocessing's resource tracker."""
    if pid == os.getpid():
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


def tree() -> dict[str, tuple[int, int, int]]:
    """Per role: (processes, PSS KiB, RSS KiB) of this process and its descendants."""
    out: dict[str, tuple[int, int, int]] = {}
    todo = [os.getpid()]
    while todo:
        pid = todo.pop()
        todo += _children(pid)
        n, pss, rss = out.get(role(pid), (0, 0, 0))
        pss_now = _kib(pid, "smaps_rollup", "Pss:")
        rss_now = _kib(pid, "status", "VmRSS:")
        out[role(pid)] = (n + 1, pss + pss_now, rss + rss_now)
    return out


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
            if game == "klondike":
                action: dict[str, Any] = {"kind": "draw"}
            else:
                legal = state["view"]["legal"]
                action = {"kind": "move", **rnd.choice(legal)} if legal else {"kind": "resign"}
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


async def series(game: str, tournaments: int, players: int, work: Path) -> list[dict[str, Any]]:
    """A reading (tournaments run, the tree's memory by role) every EVERY tournaments."""
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
    readings: list[dict[str, Any]] = [{"n": 0, "tree": tree()}]
    for n in range(1, tournaments + 1):
        frames = await one_tournament(app, game, sessions, rnd)
        assert frames >= 2, "the watcher got the final window and the reveal"
        if n % EVERY == 0:
            gc.collect()
            readings.append({"n": n, "tree": tree()})
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


def _pss(reading: dict[str, Any], who: str | None = None) -> float:
    return sum(v[1] for k, v in reading["tree"].items() if who is None or k == who) / 1024


def summary(game: str, readings: list[dict[str, Any]], tournaments: int) -> list[str]:
    """Rows: the game's growth per 100 by quarter, over the goal's range, by process."""
    at = {r["n"]: r for r in readings}
    first = readings[0]
    quarter = max(EVERY, tournaments // 4 // EVERY * EVERY)
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
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    began = time.monotonic()
    rows = [
        "| game | PSS of the tree at the 200th → last (MiB) | growth per 100 by quarter "
        "(MiB) | growth per 100 from the 200th (goal ≤ 1 MiB) | at the end, by process "
        "(growth per 100 from the 200th, MiB) |",
        "|---|---|---|---|---|",
    ]
    for game in args.games:
        work = Path(tempfile.mkdtemp(prefix="samedeal-rss-"))
        readings = run_loop(series(game, args.tournaments, args.players, work))
        rows += summary(game, readings, args.tournaments)
    body = (
        f"{args.tournaments} tournaments of each game in one server (a fresh SQLite file "
        f"each), {args.players} players each: joins, then "
        f"{ACTIONS['klondike']} draws a player (Klondike) or {ACTIONS['gaps']} random legal "
        "moves (Gaps), one anonymous watcher subscribed, the operator's close and its "
        "reveal pushed, the watcher gone. Memory is the PSS of the server's whole process "
        f"tree (the event loop, the SQLite writer, the workers), read every {EVERY} "
        f"tournaments after a full collection; {time.monotonic() - began:.0f} s in all.\n\n"
        + "\n".join(rows)
    )
    print(body)
    if not args.no_write:
        write_section("rss_series", "python -m bench.rss_series", body)


if __name__ == "__main__":
    main()
