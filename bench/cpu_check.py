"""Is the server CPU-bound? One load run with the server's own CPU use read from /proc.

    .venv/bin/python -m bench.cpu_check [--players 200] [--seconds 8] [--runs 3] [--no-write]

Starts the server on a fresh SQLite file and `bench.load_client` in another process, and
reports accepted actions/s, the cores the server used (all threads, its writer process too), and the
mean group-commit batch. This is the procedure behind the before/after table of the load
notes in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.load import Server, batch_mean, cpu_seconds, generate
from bench.report import write_section


def one_run(players: int, seconds: float, work: Path) -> dict[str, float]:
    server = Server(f"sqlite+aiosqlite:///{work / f'cpu{time.monotonic_ns()}.db'}", work)
    try:
        c0, t0 = cpu_seconds(server.proc.pid), time.monotonic()
        result = generate(server.ws, server.tournament, players, seconds, "game", f"c{t0:.0f}")
        c1, t1 = cpu_seconds(server.proc.pid), time.monotonic()
        mean, _ = batch_mean(server.metrics())
    finally:
        server.stop()
    return {
        "per_s": result["per_s"],
        "cores": (c1 - c0) / (t1 - t0),
        "batch": mean,
        "p99_ms": result["p99_ms"],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="samedeal-cpu-"))
    runs = [one_run(args.players, args.seconds, work) for _ in range(args.runs)]
    for r in runs:
        print(
            f"{r['per_s']:.0f} actions/s, server {r['cores']:.2f} cores, "
            f"{r['batch']:.1f} actions per commit, p99 {r['p99_ms']:.0f} ms",
            flush=True,
        )
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    body = (
        f"{args.players} players, {args.runs} runs of {args.seconds:g} s (medians): "
        f"{med['per_s']:,.0f} actions/s; the server process used {med['cores']:.2f} cores "
        f"(with its SQLite writer process); {med['batch']:.1f} actions per commit; "
        f"p99 {med['p99_ms']:.0f} ms. Runs: "
        + ", ".join(f"{r['per_s']:,.0f}" for r in runs)
        + " actions/s."
    )
    print(body)
    if not args.no_write:
        write_section("cpu_check", "python -m bench.cpu_check", body)


if __name__ == "__main__":
    main()
