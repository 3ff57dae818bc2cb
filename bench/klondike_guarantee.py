"""Share of Klondike deals the guaranteed-deal search proves within 5,000 positions.

    .venv/bin/python -m bench.klondike_guarantee [--seeds 200] [--deals 30] [--jobs 2] [--no-write]

For each setting of the rules' table: over --seeds fixed seeds, the share of
attempt-0 deals proven, the median and p95 time per attempt; and over --deals
seeds, the median time to produce a guaranteed tournament deal (attempts 0, 1,
... until one is proven, at most 60).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from bench.report import write_section
from server.games.klondike_core import KlondikeOptions
from server.games.klondike_search import guaranteed_deal, solve_attempt

SETTINGS = [
    ("draw 1, unlimited", 1, None, "48%", "about 57%"),
    ("draw 3, unlimited", 3, None, "37%", "about 53%"),
    ("draw 3, 3 passes", 3, 3, "14%", "—"),
    ("draw 1, 1 pass", 1, 1, "8%", "—"),
]


def seeds(n: int, salt: int) -> list[bytes]:
    rnd = random.Random(salt)
    return [rnd.randbytes(32) for _ in range(n)]


def one_attempt(args: tuple[bytes, int, int | None]) -> tuple[bool, float]:
    seed, draw, passes = args
    t0 = time.perf_counter()
    solution, _ = solve_attempt(seed, KlondikeOptions(draw=draw, passes=passes), 0)
    return solution is not None, time.perf_counter() - t0


def one_deal(args: tuple[bytes, int, int | None]) -> tuple[float, int, bool]:
    seed, draw, passes = args
    t0 = time.perf_counter()
    attempt, proven, _ = guaranteed_deal(seed, KlondikeOptions(draw=draw, passes=passes))
    return time.perf_counter() - t0, attempt, proven


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rows = [
        "| setting | proven (attempt 0) | source's search | C++ solver, 5,000 states "
        "| median / p95 per attempt | median time to a guaranteed deal (attempts) |",
        "|---|---|---|---|---|---|",
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        for label, draw, passes, source, cpp in SETTINGS:
            results = list(pool.map(one_attempt, [(s, draw, passes) for s in seeds(args.seeds, 1)]))
            proven = sum(ok for ok, _ in results)
            times = [t for _, t in results]
            deals = list(pool.map(one_deal, [(s, draw, passes) for s in seeds(args.deals, 2)]))
            deal_t = statistics.median(t for t, _, _ in deals)
            attempts = statistics.median(a + 1 for _, a, _ in deals)
            unproven = sum(not p for _, _, p in deals)
            row = (
                f"| {label} | {proven}/{args.seeds} = {100 * proven / args.seeds:.0f}% | {source} "
                f"| {cpp} | {statistics.median(times):.3f} s / {pct(times, 0.95):.3f} s "
                f"| {deal_t:.2f} s ({attempts:g} attempts; {unproven} of {args.deals} unproven "
                f"after 60) |"
            )
            print(row, flush=True)
            rows.append(row)
    body = "\n".join(rows) + (
        f"\n\nSeeds are fixed (random.Random(1) for the share, random.Random(2) for the deals), "
        f"{args.jobs} worker processes; a position is a distinct state the search expands."
    )
    if not args.no_write:
        write_section("klondike_guarantee", "python -m bench.klondike_guarantee", body)


if __name__ == "__main__":
    main()
