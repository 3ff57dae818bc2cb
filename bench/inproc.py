"""The server's own work per message, without sockets: N players drive `Session.handle`
directly (register, join, then random legal Gaps moves), on the server's event loop,
against a real SQLite file with every action committed before its reply. CPU seconds are
read for the whole server (its SQLite writer process included) and for the loop's thread, so
the figure is the per-message cost the network load adds to the websockets layer's.

    .venv/bin/python -m bench.inproc [--players 200] [--actions 40000] [--runs 3] [--profile]
        [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

from bench.load import cpu_seconds
from bench.report import write_section
from server.competition.catalogue import TournamentSpec
from server.net.app import build_app, run_loop, tune_gc
from server.net.session import Session


class _NoConn:
    """Stands in for a connection (only standings subscriptions would use it)."""


async def _player(app: Any, tid: int, i: int, budget: list[int], rnd: random.Random) -> None:
    session = Session(app.competition, app.fanout, app.metrics, _NoConn())
    games = 0
    state: dict[str, Any] = {"status": "over"}
    while budget[0] > 0:
        if state["status"] != "playing":
            games += 1
            name = f"p{i}x{games}"
            await session.handle(orjson.dumps({"type": "register", "name": name, "id": 1}).decode())
            state = await session.handle(
                orjson.dumps({"type": "join", "tournament": tid, "id": 2}).decode()
            )
            continue
        legal = state["view"]["legal"]
        action = {"kind": "move", **rnd.choice(legal)} if legal else {"kind": "redeal"}
        frame = {"type": "act", "tournament": tid, "seq": state["seq"] + 1, "action": action}
        reply = await session.handle(orjson.dumps({**frame, "id": 9}).decode())
        orjson.dumps(reply)  # the server serialises every reply
        assert reply["type"] == "state", reply
        budget[0] -= 1
        state = reply


async def one_run(players: int, actions: int, work: Path, profile: bool) -> tuple[float, float]:
    """Microseconds of CPU per accepted action (registrations and joins included): the
    whole server (with its writer process), and the event loop's thread alone."""
    app = await build_app(f"sqlite+aiosqlite:///{work / f'{time.monotonic_ns()}.db'}", demo=False)
    now = app.competition.catalogue.now()
    t = await app.competition.catalogue.create(
        TournamentSpec("Inproc", "gaps", {"redeals": 2}, now + timedelta(hours=3), now)
    )
    tune_gc()  # as the server does once started
    budget = [actions]
    prof = cProfile.Profile() if profile else None
    c0 = cpu_seconds(os.getpid())
    m0 = time.thread_time()
    if prof:
        prof.enable()
    await asyncio.gather(*(_player(app, t.id, i, budget, random.Random(i)) for i in range(players)))
    if prof:
        prof.disable()
    used = cpu_seconds(os.getpid()) - c0
    main_used = time.thread_time() - m0
    await app.store.close()
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(35)
    accepted = app.metrics.actions_accepted
    return 1e6 * used / accepted, 1e6 * main_used / accepted


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--actions", type=int, default=40000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="samedeal-inproc-"))
    runs = []
    for _ in range(args.runs):
        runs.append(run_loop(one_run(args.players, args.actions, work, args.profile)))
        print(f"{runs[-1][0]:.1f} µs of CPU per action ({runs[-1][1]:.1f} on the loop)", flush=True)
    total = statistics.median(r[0] for r in runs)
    loop = statistics.median(r[1] for r in runs)
    body = (
        f"{args.players} players, {args.actions:,} actions per run, medians of {args.runs} runs: "
        f"{total:.1f} µs of CPU per accepted action for the whole server, of which "
        f"{loop:.1f} µs on the event loop's thread (the rest is mostly the SQLite writer "
        "process). "
        "No sockets: this is the server's own work per action, which the network load adds "
        "to the websockets layer's."
    )
    print(body)
    if not args.no_write and not args.profile:
        write_section("inproc", "python -m bench.inproc", body)


if __name__ == "__main__":
    main()
