"""The CPU of a standings push round, in-process: what `Fanout._push` costs per frame and
how long it holds the event loop at a time.

    .venv/bin/python -m bench.fanout [--entrants 1000 10000] [--subscribers 1000]
        [--rounds 30] [--moves 300]

A tournament of N entrants (half finished, half playing, Gaps-like figures) is loaded into
a real standings `Table` (no database: `InMemory` answers the fan-out as
`Standings.windows_now` does once a table is loaded); S of its players are
subscribed to the default window (top 10, around 5) over real `WsConnection`s whose
transport only counts bytes (websockets' protocol and the transport's framing run as in
the server, the socket does not). Each round `--moves` random players move (about 300 a
round is 1,000 players acting once a second at 3.3 rounds a second), the clock advances
300 ms, and one push round runs while a probe task measures how long the loop is held
between two of its turns. Reported: loop-thread CPU per round and per frame sent, and
the longest hold; medians over the rounds. A quick look, not written to BENCHMARKS.md
(bench.standings is the benchmark).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from datetime import UTC, datetime
from typing import Any

from websockets.protocol import State

from server.competition.standings.leaderboard import EntryRow, Leaderboard
from server.competition.standings.table import Table, View, WindowKey
from server.domain.model import Figures, Status
from server.net.app import tune_gc
from server.net.connection import WsConnection
from server.net.fanout import Fanout, Watch
from server.net.transport import ConnectionLimits

HOUR_MS = 3_600_000
TID = 1


class CountingTransport:
    def __init__(self) -> None:
        self.bytes = 0

    def write(self, data: bytes) -> None:
        self.bytes += len(data)

    def is_closing(self) -> bool:
        return False


class Server:
    limits = ConnectionLimits()


def connection() -> WsConnection:
    conn = WsConnection(Server())  # type: ignore[arg-type]
    conn.transport = CountingTransport()
    conn.ws.state = State.OPEN
    return conn


def populate(n: int, live: int, now: int, rnd: random.Random) -> tuple[Leaderboard, list[EntryRow]]:
    """N entrants: the first `live` playing, then every other one."""
    board = Leaderboard(now)
    rows = []
    for i in range(n):
        started = now - rnd.randint(1000, HOUR_MS)
        progress = rnd.randint(0, 48)
        status = Status.PLAYING if i < live or i % 2 else Status.LOST
        time_ms = 0 if status == Status.PLAYING else rnd.randint(1000, now - started)
        figures = Figures(status, progress, rnd.randint(0, 2), progress, time_ms)
        row = EntryRow(f"p{i}", figures, started, started + 6 * HOUR_MS)
        board.upsert(row)
        rows.append(row)
    return board, rows


class InMemory:
    """The standings of one loaded table, read as `Standings.windows_now` reads them."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def windows_now(self, tournament_id: int, wanted: list[WindowKey]) -> dict[WindowKey, View]:
        assert self.table.board is not None
        return self.table.windows(self.table.board, False, wanted)

    async def windows(self, tournament_id: int, wanted: list[WindowKey]) -> dict[WindowKey, View]:
        return self.windows_now(tournament_id, wanted)


async def longest_hold(stop: asyncio.Event) -> float:
    """The longest the loop went without giving this task a turn, until `stop`."""
    longest = 0.0
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0)
        t = time.perf_counter()
        longest = max(longest, t - last)
        last = t
    return longest


async def run(entrants: int, subscribers: int, rounds: int, moves: int) -> dict[str, Any]:
    tune_gc()  # the server's collector settings
    rnd = random.Random(entrants)
    now_ms = [HOUR_MS]
    table = Table(TID, None, lambda: datetime.fromtimestamp(now_ms[0] / 1000, UTC))  # type: ignore[arg-type]
    board, rows = populate(entrants, subscribers, now_ms[0], rnd)
    table.board = board
    fanout = Fanout(InMemory(table))  # type: ignore[arg-type]
    live = rows[:subscribers]
    conns = []
    for row in live:
        conn = connection()
        fanout.subscribe(TID, conn, Watch(10, 5, row.player))
        conns.append(conn)
    await fanout._push(TID)  # everyone's first frame
    holds: list[float] = []
    cpu, frames = [], []
    for _ in range(rounds):
        for _ in range(moves):
            i = rnd.randrange(len(live))
            row = live[i]
            f = row.figures
            if f.progress < 48:
                f = f._replace(progress=f.progress + 1, score=f.score + 1)
                row = live[i] = row._replace(figures=f)
                board.upsert(row)
        now_ms[0] += 300
        table.advance()  # the lifecycle's tick
        stop = asyncio.Event()
        watcher = asyncio.create_task(longest_hold(stop))
        await asyncio.sleep(0)
        sent = fanout.frames
        c0 = time.thread_time()
        await fanout._push(TID)
        cpu.append(time.thread_time() - c0)
        stop.set()
        holds.append(await watcher)
        frames.append(fanout.frames - sent)
    per_frame = [c / max(f, 1) for c, f in zip(cpu, frames, strict=True)]
    return {
        "entrants": entrants,
        "frames": statistics.median(frames),
        "cpu_ms": 1e3 * statistics.median(cpu),
        "frame_us": 1e6 * statistics.median(per_frame),
        "hold_ms": 1e3 * statistics.median(holds),
        "hold_max_ms": 1e3 * max(holds),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entrants", type=int, nargs="+", default=[1000, 10_000])
    ap.add_argument("--subscribers", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--moves", type=int, default=300)
    args = ap.parse_args()
    for n in args.entrants:
        r = asyncio.run(run(n, min(args.subscribers, n), args.rounds, args.moves))
        print(
            f"{n:,} entrants: {r['frames']:.0f} frames a round, {r['cpu_ms']:.1f} ms CPU a "
            f"round, {r['frame_us']:.1f} µs a frame; loop held {r['hold_ms']:.2f} ms at most "
            f"(median round), {r['hold_max_ms']:.2f} ms (worst round)"
        )


if __name__ == "__main__":
    main()
