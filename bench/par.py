"""Gaps par and winnable deals on 200 fixed random deals (server/games/gaps_search.py).

    .venv/bin/python -m bench.par [--deals 200] [--ready 200] [--jobs 1] [--no-write]

Times are the worker's CPU time (the machine is shared). Par: for each deal (player id =
its index + 1, redeals 2, keep_runs), the search's best within gaps_search.PAR_TIERS
(positions, so the result does not depend on the machine): the share where par is a
win, by redeals used, and the time per deal (median, p95).
Winnable: the share of the deals' attempt 0 proven won with no redeal within
gaps.WIN_NODES positions, and over --ready seeds the time GapsRules.prepare_deal takes
to have a winnable deal ready (attempts 0, 1, ... until one is proven).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from bench.report import write_section
from server.games import gaps
from server.games.gaps import GAPS, deal_grid
from server.games.gaps_search import PAR_TIERS, prove_win, search_tiers


def seeds(n: int, salt: int) -> list[bytes]:
    rnd = random.Random(salt)
    return [rnd.randbytes(32) for _ in range(n)]


def one_par(args: tuple[bytes, int]) -> tuple[int, int, float]:
    seed, player = args
    t0 = time.process_time()
    found = search_tiers(deal_grid(seed), seed, player, 2, "keep_runs", PAR_TIERS)
    return found.progress, found.resets, time.process_time() - t0


def one_proof(seed: bytes) -> tuple[bool, float]:
    t0 = time.process_time()
    line = prove_win(deal_grid(seed), gaps.WIN_NODES)
    return line is not None, time.process_time() - t0


def one_ready(seed: bytes) -> tuple[float, int, bool]:
    t0 = time.process_time()
    attempt, proven, _ = GAPS.prepare_deal(seed, GAPS.parse_options({"winnable": True}))
    return time.process_time() - t0, attempt, proven


def share(k: int, n: int) -> str:
    return f"{k}/{n} = {100 * k / n:.1f}%"


def table(rows: list[tuple[str, str, str, str]]) -> str:
    head = "| figure | result | goal | anchor |\n|---|---|---|---|\n"
    return head + "\n".join(f"| {' | '.join(r)} |" for r in rows)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--ready", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    deals = seeds(args.deals, 29)
    with ProcessPoolExecutor(args.jobs) as pool:
        pars = list(pool.map(one_par, [(s, i + 1) for i, s in enumerate(deals)]))
        proofs = list(pool.map(one_proof, deals))
        ready = list(pool.map(one_ready, seeds(args.ready, 30)))
    n = len(pars)
    won = [r for p, r, _ in pars if p == 48]
    by_resets = ", ".join(f"{won.count(k)} with {k}" for k in (0, 1, 2))
    par_t = [t for *_, t in pars]
    proven = sum(ok for ok, _ in proofs)
    proof_t = [t for _, t in proofs]
    ready_t = [t for t, _, _ in ready]
    attempts = [a + 1 for _, a, _ in ready]
    unready = sum(not ok for *_, ok in ready)
    lim, more = PAR_TIERS
    med, p95 = statistics.median, pct
    rows = [
        (
            "par is a win (≤ 2 redeals)",
            f"{share(len(won), n)} ({by_resets})",
            "≥ 97%",
            "95% (independent search, 100 deals)",
        ),
        (
            "par time per deal, median / p95",
            f"{med(par_t):.3f} s / {p95(par_t, 0.95):.3f} s",
            "p95 ≤ 1 s",
            "0.23 s median (same)",
        ),
        ("no-redeal win proven (attempt 0)", share(proven, n), "—", "~86% winnable (Solvitaire)"),
        (
            "time per attempt, median / p95",
            f"{med(proof_t):.3f} s / {p95(proof_t, 0.95):.3f} s",
            "—",
            "—",
        ),
        (
            "winnable deal ready, median / p95",
            f"{med(ready_t):.2f} s / {p95(ready_t, 0.95):.2f} s (median {med(attempts):g} "
            f"attempts, {unready} unproven)",
            "p95 ≤ 2 s",
            "—",
        ),
    ]
    body = f"""
Par: {n} fixed random deals (player id = index + 1, 2 redeals, keep_runs), budget
`PAR_TIERS`: {lim.total:,} positions in all, {lim.first:,} for the deal's phase,
{lim.later:,} for each later one, the best {lim.breadth} kept-run sets of each level
redealt; only where that finds no win, again with {more.total:,} / {more.first:,} /
{more.later:,} / {more.breadth}. Winnable: attempt 0 of the same deals searched for a win
with no redeal within
`WIN_NODES` = {gaps.WIN_NODES:,} positions; then `prepare_deal(winnable)` on {len(ready)}
other seeds (attempts until one is proven, at most {gaps.WIN_ATTEMPTS}). {args.jobs}
worker process(es); load average {load:.1f} on 2 cores at the start. Every time is the
worker's CPU time (`time.process_time`), which waiting for a core does not count (on a
loaded machine wall time was up to 3 times longer, and CPU time itself up to 4 times).

{table(rows)}
"""
    print(body)
    if not args.no_write:
        cmd = f"python -m bench.par --deals {args.deals} --ready {args.ready} --jobs {args.jobs}"
        write_section("gaps-par", cmd, "## Gaps par and winnable deals (bench/par.py)\n" + body)


if __name__ == "__main__":
    main()
