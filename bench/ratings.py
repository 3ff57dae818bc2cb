"""Ratings: rating one close of 100,000 entrants, and recomputing every rating from
1,000 closed tournaments of 1,000 entrants (goals: ≤ 2 s and ≤ 30 s).

    .venv/bin/python -m bench.ratings [--field 100000] [--tournaments 1000]
        [--entrants 1000] [--players 20000] [--rounds 3] [--no-store] [--no-write]

Measured, each as the median of --rounds runs:
- the Plackett–Luce update alone (server/domain/ratings.rate) and openskill 6.2.0's
  `PlackettLuce.rate` on the same fields of 1,000 and 4,000 (side by side, a ratio);
- the worker's whole job at a close of --field entrants (ranking by the standings'
  rule, then rating: take_in), and the replay of every tournament (replay);
- with the store (unless --no-store), on a SQLite file filled directly: the close's
  rating step (catch_up: read the field and the ratings, the worker, write placings
  and ratings in one transaction) and `ratings rebuild` (read every closed
  tournament's entries, replay in the worker, replace every placing and rating).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from itertools import repeat
from pathlib import Path
from typing import Any

from bench.report import write_section
from server.competition.ratings import without_gc
from server.domain.ratings import Field, rate, replay, take_in

T = "2026-12-01 10:00:00.000000"


def timed(fn: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def random_field(rng: random.Random, n: int) -> tuple[list[float], list[float], list[int]]:
    mus = [rng.gauss(25, 6) for _ in range(n)]
    sigmas = [rng.uniform(1.0, 25 / 3) for _ in range(n)]
    ranks = sorted(rng.randint(1, max(2, n // 3)) for _ in range(n))
    return mus, sigmas, ranks


def entries(rng: random.Random, players: list[int], bots: int = 0) -> Field:
    """A closed Gaps field: progress and time random, ties on purpose (few resets)."""
    n = len(players)
    return Field(
        list(players),
        [i < bots for i in range(n)],
        [rng.randint(0, 48) for _ in range(n)],
        [rng.randint(0, 2) for _ in range(n)],
        [rng.randint(1, 40) * 1000 for _ in range(n)],
    )


def math_figures(args: argparse.Namespace, rng: random.Random) -> list[str]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    lines = ["| work | size | this code | openskill 6.2.0 | ratio |", "|---|---|---|---|---|"]
    for n in (1000, 4000):
        mus, sigmas, ranks = random_field(rng, n)
        teams = [[model.rating(mu=m, sigma=s)] for m, s in zip(mus, sigmas, strict=True)]
        ours = timed(lambda: rate(mus, sigmas, ranks), args.rounds)  # noqa: B023
        theirs = timed(lambda: model.rate(teams, ranks=ranks), 1 if n > 1000 else args.rounds)  # noqa: B023
        lines.append(
            f"| Plackett–Luce update | {n:,} | {ours * 1e3:.2f} ms | {theirs * 1e3:.0f} ms "
            f"| {theirs / ours:,.0f}x |"
        )
    mus, sigmas, ranks = random_field(rng, args.field)
    ours = timed(lambda: rate(mus, sigmas, ranks), args.rounds)
    lines.append(f"| Plackett–Luce update | {args.field:,} | {ours * 1e3:.1f} ms | — | |")
    field = entries(rng, list(range(1, args.field + 1)), bots=args.field // 100)
    close = timed(lambda: without_gc(take_in, True, field, {}), args.rounds)
    lines.append(
        f"| a close's worker job (rank + rate, 1% bots) | {args.field:,} | {close:.2f} s | — | |"
    )
    fields = tournaments(rng, args)
    total = timed(lambda: without_gc(replay, fields), max(1, args.rounds - 2))
    lines.append(
        f"| replay of every tournament | {args.tournaments:,} × {args.entrants:,} "
        f"(pool of {args.players:,} players) | {total:.2f} s | — | |"
    )
    print("\n".join(lines))
    return lines


def tournaments(rng: random.Random, args: argparse.Namespace) -> list[tuple[str, bool, Field]]:
    pool = list(range(1, args.players + 1))
    return [
        ("gaps", True, entries(rng, rng.sample(pool, args.entrants)))
        for _ in range(args.tournaments)
    ]


# -- with the store ----------------------------------------------------------------
def fill(path: Path, n_players: int, fields: list[tuple[int, Field]]) -> None:
    """Players, closed tournaments and their entries written straight into the file."""
    conn = sqlite3.connect(path)
    conn.executemany(
        "INSERT INTO players (id, name, name_key, token_hash, admin, created_at, bot)"
        " VALUES (?, ?, ?, ?, 0, ?, 0)",
        ((p, f"p{p}", f"p{p}", f"{p:064x}", T) for p in range(1, n_players + 1)),
    )
    for tid, field in fields:
        closed = f"2026-12-01 10:{tid // 60 % 60:02d}:{tid % 60:02d}.000000"
        conn.execute(
            "INSERT INTO tournaments (id, name, game, options, commitment, starts_at, ends_at,"
            " join_until, time_limit_s, status, deal_attempt, guaranteed, solution,"
            " created_at, closed_at, rated)"
            " VALUES (?, ?, 'gaps', '{}', ?, ?, ?, ?, NULL, 'closed', 0, 0, NULL, ?, ?, 1)",
            (tid, f"t{tid}", "0" * 64, T, T, T, T, closed),
        )
        conn.executemany(
            "INSERT INTO entries (tournament_id, player_id, started_at, deadline, status,"
            " progress, resets, score, time_ms, seq, log_hash, log_seq)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, 1, '', 0)",
            zip(
                repeat(tid),
                field.players,
                repeat(T),
                repeat(T),
                repeat("resigned"),
                field.progress,
                field.resets,
                field.time_ms,
            ),
        )
    conn.commit()
    conn.close()


async def store_figures(args: argparse.Namespace, rng: random.Random) -> list[str]:
    from server.competition import ratings
    from server.store import db
    from server.store.repository import Store

    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "close.db"
        url = f"sqlite+aiosqlite:///{path}"
        await asyncio.to_thread(db.migrate, url)
        fill(path, args.field, [(1, entries(rng, list(range(1, args.field + 1))))])
        store = Store(db.make_engine(url))
        await ratings.rate_closed(store, 1)  # the worker process started, warm
        times = []
        for _ in range(args.rounds):
            async with store._session() as s:  # the last round's step undone
                from sqlalchemy import delete, update

                from server.store.models import Placing, PlayerRating, TournamentRow

                await s.execute(delete(Placing))
                await s.execute(delete(PlayerRating))
                await s.execute(update(TournamentRow).values(rated_at=None))
                await s.commit()
            t0 = time.perf_counter()
            assert await ratings.catch_up(store, "gaps") == 1
            times.append(time.perf_counter() - t0)
        await store.close()
        lines.append(
            f"| the close's rating step on SQLite (read, worker, write {args.field:,} "
            f"placings + ratings) | {args.field:,} | {statistics.median(times):.2f} s | — | |"
        )
        path = Path(tmp) / "rebuild.db"
        url = f"sqlite+aiosqlite:///{path}"
        await asyncio.to_thread(db.migrate, url)
        fields = tournaments(rng, args)
        fill(path, args.players, [(i, f) for i, (_, _, f) in enumerate(fields, 1)])
        store = Store(db.make_engine(url))
        times = []
        for _ in range(max(1, args.rounds - 2)):
            t0 = time.perf_counter()
            done = await ratings.rebuild(store)
            times.append(time.perf_counter() - t0)
        assert done.tournaments == args.tournaments
        await store.close()
        lines.append(
            f"| `ratings rebuild` on SQLite (read, replay, write "
            f"{args.tournaments * args.entrants:,} placings) | {args.tournaments:,} × "
            f"{args.entrants:,} | {statistics.median(times):.2f} s | — | |"
        )
    print("\n".join(lines))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--field", type=int, default=100_000)
    ap.add_argument("--tournaments", type=int, default=1000)
    ap.add_argument("--entrants", type=int, default=1000)
    ap.add_argument("--players", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-store", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rng = random.Random(26)
    lines = math_figures(args, rng)
    if not args.no_store:
        lines += asyncio.run(store_figures(args, rng))
    if not args.no_write:
        command = (
            f"python -m bench.ratings --field {args.field} --tournaments {args.tournaments}"
            f" --entrants {args.entrants} --players {args.players} --rounds {args.rounds}"
            + (" --no-store" if args.no_store else "")
        )
        body = "\n".join(lines) + (
            f"\n\nMedians of the rounds; load average {os.getloadavg()[0]:.1f} on 2 cores "
            "at the end. Goals: a 100,000-entrant close rated in ≤ 2 s, every rating "
            "recomputed from 1,000 tournaments of 1,000 in ≤ 30 s."
        )
        write_section("ratings", command, body)


if __name__ == "__main__":
    main()
