"""Microseconds per live-standings operation (server/competition/standings/leaderboard.py).

    .venv/bin/python -m bench.leaderboard [--ops 2000] [--sizes 1000 10000]

A tournament of N entrants, half of them finished and half still playing (one
Gaps-like progress 0..48, resets 0..2), is built once; then, at random players:
an upsert (a move: progress and score change), a window of the protocol's
default size (top 10, around 5: up to 21 rows), a page of 100, a rank, and a
clock advance of 250 ms (the push interval). Figures are the mean over --ops
operations, in CPU time of this process (so a busy machine inflates them less);
a quick look, not a benchmark for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from server.competition.standings.leaderboard import PLAYING, EntryRow, Leaderboard
from server.domain.model import Figures, Status

HOUR_MS = 3_600_000


def build(n: int, rnd: random.Random) -> tuple[Leaderboard, list[EntryRow]]:
    now = HOUR_MS
    lb = Leaderboard(now)
    rows = []
    for i in range(n):
        started = now - rnd.randrange(HOUR_MS)
        progress = rnd.randrange(49)
        if rnd.random() < 0.5:
            status, time_ms = rnd.choice(["won", "lost", "resigned"]), rnd.randrange(now - started)
        else:
            status, time_ms = PLAYING, 0
        figures = Figures(Status(status), progress, rnd.randrange(3), progress, time_ms)
        row = EntryRow(f"player{i}", figures, started, now + HOUR_MS)
        lb.upsert(row)
        rows.append(row)
    return lb, rows


def per_op(ops: int, f: Callable[[int], object]) -> float:
    t0 = time.process_time()
    for i in range(ops):
        f(i)
    return (time.process_time() - t0) / ops * 1e6


def measure(n: int, ops: int) -> tuple[float, dict[str, float]]:
    """(build ms, µs per operation) for a tournament of n entrants."""
    rnd = random.Random(n)
    t0 = time.process_time()
    lb, rows = build(n, rnd)
    built = (time.process_time() - t0) * 1e3
    playing = [i for i, r in enumerate(rows) if r.figures.status == PLAYING]
    picks = [rnd.choice(playing) for _ in range(ops)]
    names = [rows[rnd.randrange(n)].player for _ in range(ops)]
    offsets = [rnd.randrange(n) for _ in range(ops)]

    def upsert(i: int) -> None:
        k = picks[i]
        p = rnd.randrange(49)
        rows[k] = rows[k]._replace(figures=rows[k].figures._replace(progress=p, score=p))
        lb.upsert(rows[k])

    return built, {
        "upsert": per_op(ops, upsert),
        "window(10,5)": per_op(ops, lambda i: lb.window(10, 5, names[i])),
        "page(100)": per_op(ops, lambda i: lb.page(offsets[i], 100)),
        "rank_of": per_op(ops, lambda i: lb.rank_of(names[i])),
        "advance(250ms)": per_op(min(ops, 200), lambda i: lb.advance(lb.now + 250)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    args = ap.parse_args()
    for n in args.sizes:
        built, figures = measure(n, args.ops)
        shown = ", ".join(f"{k} {v:.1f} µs" for k, v in figures.items())
        print(f"{n:>6} entrants (built in {built:.0f} ms): {shown}")


if __name__ == "__main__":
    main()
