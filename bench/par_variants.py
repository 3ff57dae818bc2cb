"""Gaps par for each family variant (RULES-GAPS.md "Family variants") on fixed random
deals (server/games/gaps_par.py, gaps_search.py).

    .venv/bin/python -m bench.par_variants [--deals 100] [--jobs 1] [--no-write]

For each variant, with its default options (keep_runs; redeals 2, addiction 3) and the
same seeds (player id = index + 1): par_for with the default PAR_TIERS budgets (counted in
positions, so the results do not depend on the machine), the share of deals whose par is
a win (by redeals used) and the worker's CPU time per deal (median, p95).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from bench.par import pct, seeds, share
from bench.report import write_section
from server.games.gaps import GAPS
from server.games.gaps_options import VARIANT_NAMES
from server.games.gaps_par import par_for
from server.games.gaps_search import PAR_TIERS


def one_par(args: tuple[str, bytes, int]) -> tuple[int, int, float]:
    variant, seed, player = args
    t0 = time.process_time()
    par = par_for(seed, {"variant": variant}, player)
    return par.progress, par.resets, time.process_time() - t0


def row(variant: str, pars: list[tuple[int, int, float]]) -> str:
    redeals = GAPS.parse_options({"variant": variant}).redeals
    won = [r for p, r, _ in pars if p == 48]
    by = ", ".join(f"{won.count(k)} with {k}" for k in range(redeals + 1))
    times = [t for *_, t in pars]
    progress = statistics.mean(p for p, _, _ in pars)
    return (
        f"| `{variant}` | {redeals} | {share(len(won), len(pars))} ({by}) | {progress:.1f} "
        f"| {statistics.median(times):.3f} s / {pct(times, 0.95):.3f} s |"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    deals = seeds(args.deals, 35)
    rows = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for variant in VARIANT_NAMES:
            jobs = [(variant, s, i + 1) for i, s in enumerate(deals)]
            rows.append(row(variant, list(pool.map(one_par, jobs))))
    lim, more = PAR_TIERS
    body = f"""
{args.deals} fixed random deals, the same for every variant (player id = index + 1), each
variant with its default options (keep_runs; 2 redeals, addiction 3). Par as the server
computes it after a close (`par_for`, budget `PAR_TIERS`: {lim.total:,} positions, then
{more.total:,} only where the first found no win). {args.jobs} worker process(es); load
average {load:.1f} on 2 cores at the start; times are the worker's CPU time.

| variant | redeals | par is a win | mean par (cards in place) | time per deal, median / p95 |
|---|---|---|---|---|
{chr(10).join(rows)}
"""
    print(body)
    if not args.no_write:
        cmd = f"python -m bench.par_variants --deals {args.deals} --jobs {args.jobs}"
        write_section(
            "gaps-par-variants",
            cmd,
            "## Gaps par for each variant (bench/par_variants.py)\n" + body,
        )


if __name__ == "__main__":
    main()
