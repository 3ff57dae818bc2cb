"""Builds side by side by the instructions their event loop runs per action: a count
that the machine's load and speed do not move (throughput drifts ±10% here within a
minute). With 200 players it still varies by about ±3% from run to run, as the group
commit's batches follow the writer process's timing; with one player (the default), by
under 1%. The median of `--runs` is reported.

    .venv/bin/python -m bench.instructions REV [REV ...] [--runs 3] [--players 1]
        [--small 1000] [--large 5000] [--no-write]

Each build (a git revision checked out into a temporary worktree, given this checkout's
`bench/`, as `bench.builds` does) runs `bench.wire_driver` (players through the real
WebSocket connection object on an in-memory socket, SQLite, every action committed before
its reply; one player by default, so that every commit carries one action and the count
does not follow the writer's timing) under valgrind's cachegrind, once with `--small`
actions and once with `--large`; the difference of the two counts over the difference
of actions is the instructions per action, start-up excluded. The SQLite writer process
is not counted (cachegrind follows no child process): the writers of the builds compared
here are the same program. Needs valgrind (Debian: `apt install valgrind`).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.builds import ROOT, worktree
from bench.report import write_section

REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(path: Path, actions: int, players: int, out: Path) -> int:
    """Instructions the process of `bench.wire_driver ACTIONS` ran, in build `path`."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            f"--cachegrind-out-file={out}",
            sys.executable,
            "-m",
            "bench.wire_driver",
            str(actions),
            "--players",
            str(players),
        ],
        cwd=path,
        capture_output=True,
        text=True,
        check=True,
    )
    found = REFS.search(done.stderr)
    if found is None:
        raise RuntimeError(done.stderr[-3000:])
    return int(found.group(1).replace(",", ""))


def per_action(path: Path, small: int, large: int, players: int, work: Path) -> float:
    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # (one valgrind per core)
        a = pool.submit(instructions, path, small, players, work / f"{path.name}-small.out")
        b = pool.submit(instructions, path, large, players, work / f"{path.name}-large.out")
        return (b.result() - a.result()) / (large - small)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("revs", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--players", type=int, default=1)
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--large", type=int, default=5000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("bench.instructions needs valgrind (Debian: apt install valgrind)")
    base = Path(tempfile.mkdtemp(prefix="samedeal-instructions-"))
    paths = {rev: worktree(rev, base) for rev in args.revs}
    runs: dict[str, list[float]] = {rev: [] for rev in args.revs}
    try:
        for _ in range(args.runs):
            for rev, path in paths.items():
                runs[rev].append(per_action(path, args.small, args.large, args.players, base))
                print(f"{rev}: {runs[rev][-1]:,.0f} instructions per action", flush=True)
    finally:
        for path in paths.values():
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False
            )
    counts = {rev: statistics.median(found) for rev, found in runs.items()}
    first = counts[args.revs[0]]
    rows = ["| build | instructions per action (median) | vs first | runs |", "|---|---|---|---|"]
    for rev, n in counts.items():
        each = ", ".join(f"{x:,.0f}" for x in runs[rev])
        rows.append(f"| `{rev}` | {n:,.0f} | {100 * (n / first - 1):+.1f}% | {each} |")
    body = (
        "The event loop's process per accepted action (`bench.wire_driver`: "
        f"{args.players} player{'s' if args.players > 1 else ''} through the real "
        "connection object, SQLite; cachegrind, the runs of "
        f"{args.small:,} and {args.large:,} actions differenced; median of {args.runs} "
        "runs):\n\n" + "\n".join(rows)
    )
    print(body)
    if not args.no_write:
        write_section("instructions", "python -m bench.instructions " + " ".join(args.revs), body)


if __name__ == "__main__":
    main()
