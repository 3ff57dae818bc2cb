"""Memory over a season: one server process runs tournament after tournament (Gaps, 30
players each: join, a few moves, a watcher subscribed, the close, the watcher gone) and
prints its resident set growth per 100 tournaments. Sessions are driven in process
(`Session.handle`, as bench.inproc), against a real SQLite file with its writer process.

    .venv/bin/python -m bench.rss_series [--tournaments 300] [--players 30] [--moves 3]
        [--no-write]

Goal (issue 22): at most 1 MiB per 100 tournaments once warmed up.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
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

# Tournaments before the first reading: caches (16 closed tournaments, SQLite's page cache
# of about 2 MiB a connection, filled as the file grows), the par and rating workers'
# first jobs, allocator arenas. With 20, the first 100 still grew 2.3-2.9 MiB, the next
# 500 together 0.8 MiB (a plateau at 100.4 MiB), so the warm-up is 100.
WARMUP = 100


class Watcher:
    """A connection with the transport's broadcast interface, counting what it gets."""

    congested = False
    writable = None

    def __init__(self) -> None:
        self.frames = 0

    def send_text(self, data: bytes) -> None:
        self.frames += 1


def rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def ask(session: Session, message: dict[str, Any]) -> dict[str, Any]:
    return await session.handle(orjson.dumps({**message, "id": 1}).decode())


async def one_tournament(app: App, sessions: list[Session], moves: int, rnd: random.Random) -> int:
    """One tournament from creation to close; the frames its watcher got."""
    now = app.competition.catalogue.now()
    spec = TournamentSpec("Series", "gaps", {"redeals": 2}, now + timedelta(hours=1), now)
    t = await app.competition.catalogue.create(spec)
    watcher = Watcher()
    watching = Session(app.competition, app.fanout, app.metrics, watcher)
    await ask(watching, {"type": "subscribe", "tournament": t.id})

    async def play(session: Session) -> None:
        state = await ask(session, {"type": "join", "tournament": t.id})
        for _ in range(moves):
            legal = state["view"]["legal"]
            action = {"kind": "move", **rnd.choice(legal)} if legal else {"kind": "resign"}
            act = {"type": "act", "tournament": t.id, "seq": state["seq"] + 1, "action": action}
            state = await ask(session, act)
            if state.get("status") != "playing":
                break

    await asyncio.gather(*(play(s) for s in sessions))
    await app.competition.lifecycle.close(t.id)
    await app.fanout.settled()  # the final window and the reveal are pushed
    app.closed(watcher)  # type: ignore[arg-type]  # the watcher's connection goes
    return watcher.frames


async def series(tournaments: int, players: int, moves: int, work: Path) -> list[tuple[int, int]]:
    """(tournaments run, RSS in KiB) after the warm-up and every 100 tournaments."""
    app = await build_app(f"sqlite+aiosqlite:///{work / 'series.db'}", demo=False)
    app.metrics.connections += 1
    sessions = []
    for i in range(players):
        session = Session(app.competition, app.fanout, app.metrics, Watcher())
        await ask(session, {"type": "register", "name": f"s{i}"})
        sessions.append(session)
    tune_gc()
    rnd = random.Random(7)
    readings: list[tuple[int, int]] = []
    for n in range(1, WARMUP + tournaments + 1):
        frames = await one_tournament(app, sessions, moves, rnd)
        assert frames >= 2, "the watcher got the final window and the reveal"
        done = n - WARMUP
        if done >= 0 and done % 100 == 0:
            gc.collect()
            readings.append((done, rss_kib()))
            held = len(app.competition.catalogue.tournaments)
            print(
                f"{done:4d} tournaments: RSS {readings[-1][1] / 1024:.1f} MiB, "
                f"tournaments in memory {held}, fan-out rooms {len(app.fanout.rooms)}",
                flush=True,
            )
    await app.competition.lifecycle.stop()
    await app.store.close()
    return readings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tournaments", type=int, default=300)
    ap.add_argument("--players", type=int, default=30)
    ap.add_argument("--moves", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="samedeal-rss-"))
    began = time.monotonic()
    readings = run_loop(series(args.tournaments, args.players, args.moves, work))
    steps = [(b[1] - a[1]) / 1024 for a, b in itertools.pairwise(readings)]
    per_100 = ", ".join(f"{s:+.2f}" for s in steps)
    body = (
        f"{args.tournaments} Gaps tournaments of {args.players} players in one server "
        f"process (each: joins, {args.moves} moves a player, a watcher subscribed, the close "
        f"and its reveal pushed, the watcher gone), after {WARMUP} to warm up: RSS "
        f"{readings[0][1] / 1024:.1f} MiB, then growth per 100 tournaments {per_100} MiB "
        f"(goal: at most 1 MiB; {time.monotonic() - began:.0f} s in all). Before issue 22 the "
        "same series grew 11.5 MiB per 100 tournaments (the issue's measure)."
    )
    print(body)
    if not args.no_write:
        write_section("rss_series", "python -m bench.rss_series", body)


if __name__ == "__main__":
    main()
