"""From the close to every entry's par (competition/par.py) for a Gaps tournament.

    .venv/bin/python -m bench.par_close [--entrants 100] [--moves 60] [--no-write]

A tournament on SQLite (a temporary file) with --entrants players, each making up to
--moves random legal moves (redealing when stuck) and resigning; then the close and the
server's par step as a server runs it (its pool: par.PAR_WORKERS processes niced by
par.NICE, started by the first job). Figures: wall time from the close's tick to the
par step done (all pars stored, the tournament marked), to the top par.TOP stored; CPU
time of the pool's workers (their whole lives, start-up included) and of the server's
own process meanwhile; the load average before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

from bench.report import write_section
from server.competition import par, ratings
from server.competition.catalogue import TournamentSpec
from server.competition.compute import Compute
from server.competition.par import ParStep
from server.competition.service import Competition
from server.domain import timing
from server.store import par as stored
from server.store.repository import Store


class Clock:
    """The competition's clock, moved by the bench (the close without waiting an hour)."""

    def __init__(self) -> None:
        self.t = timing.utcnow().replace(microsecond=0)

    def __call__(self) -> datetime:
        return timing.now_ms_precision(self.t)


async def _play(comp: Competition, clock: Clock, entrants: int, moves: int) -> int:
    begin = clock.t
    spec = TournamentSpec(
        name="par bench",
        game="gaps",
        options={"redeals": 2},
        starts_at=begin,
        ends_at=begin + timedelta(hours=1),
        time_limit_s=None,
    )
    t = await comp.catalogue.create(spec)
    await comp.lifecycle.tick()
    rnd = random.Random(entrants)
    for i in range(entrants):
        p, _ = await comp.players.register(f"player{i:05d}")
        snap = await comp.play.join(p, t.id)
        seq = 1
        for _ in range(rnd.randrange(moves + 1)):
            legal = snap.view["legal"]
            if legal:
                action = {"kind": "move", **rnd.choice(legal)}
            elif snap.view.get("redeals_left", 0):
                action = {"kind": "redeal"}
            else:
                break
            snap = await comp.play.act(p, t.id, seq, action)
            seq += 1
            if snap.status != "playing":
                break
        if snap.status == "playing":
            await comp.play.act(p, t.id, seq, {"kind": "resign"})
    clock.t = begin + timedelta(hours=1)
    return t.id


async def run(entrants: int, moves: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}")
        clock = Clock()
        comp = Competition.build(store, None, clock)
        tid = await _play(comp, clock, entrants, moves)
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(
            par.PAR_WORKERS, mp_context=context, initializer=os.nice, initargs=(par.NICE,)
        )
        step = comp.lifecycle.enable_par(
            ParStep(store, comp.lifecycle._par_added, comp.lifecycle.now, Compute(pool))
        )
        load_before = os.getloadavg()[0]
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        top_at = 0.0
        await comp.lifecycle.tick()  # the close, which wakes the par step
        await ratings.settle()
        while not step._task or not step._task.done():
            if not top_at and len(await stored.figures(store, tid)) >= min(par.TOP, entrants):
                top_at = time.perf_counter() - wall0
            await asyncio.sleep(0.05)
        await step.settle()
        wall = time.perf_counter() - wall0
        own = time.process_time() - cpu0
        pool.shutdown(wait=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        workers = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
        done = len(await stored.figures(store, tid))
        await store.close()
    return {
        "entrants": entrants,
        "done": done,
        "wall": wall,
        "top": top_at or wall,
        "workers_cpu": workers,
        "own_cpu": own,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


HEAD = (
    "| entrants | with par | close → top {top} stored | close → all stored, marked "
    "| workers' CPU | server process CPU | load |\n|---|---|---|---|---|---|---|"
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entrants", type=int, nargs="+", default=[100])
    ap.add_argument("--moves", type=int, default=60)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rows = []
    for n in args.entrants:
        r = asyncio.run(run(n, args.moves))
        goal = "≤ 60 s" if n <= par.TOP else "—"
        rows.append(
            f"| {n} | {int(r['done'])}/{n} | {r['top']:.1f} s | {r['wall']:.1f} s ({goal}) | "
            f"{r['workers_cpu']:.1f} s ({r['workers_cpu'] / n:.3f} s) | {r['own_cpu']:.2f} s | "
            f"{r['load_before']:.1f} → {r['load_after']:.1f} |"
        )
        print(rows[-1])
    sizes = " ".join(str(n) for n in args.entrants)
    body = f"""
A closed Gaps tournament (2 redeals, keep_runs; each entrant made up to {args.moves}
random legal moves, then resigned), on SQLite; the server's par step from the close's
tick: {par.PAR_WORKERS} worker processes niced by {par.NICE}, started by its first job;
each entry's search within `gaps_search.PAR_TIERS`; the top {par.TOP} by rank first.
Wall times from the close's tick; CPU: the workers' whole lives (start-up included; per
entry in brackets) and the server's own process meanwhile; load average before → after
(2 cores, shared with other work).

{HEAD.format(top=par.TOP)}
{chr(10).join(rows)}
"""
    print(body)
    if not args.no_write:
        cmd = f"python -m bench.par_close --entrants {sizes} --moves {args.moves}"
        write_section("par-close", cmd, "## Par after the close (bench/par_close.py)\n" + body)


if __name__ == "__main__":
    main()
