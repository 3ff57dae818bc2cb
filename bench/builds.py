"""Successive builds side by side: before/after figures measured in one run.

    .venv/bin/python -m bench.builds REV [REV ...] [--rounds 3] [--seconds 8] [--no-write]

Checks each git revision out into a temporary worktree, gives it this checkout's `bench/`
(so every build is measured by the same instrument), then runs one `bench.cpu_check`
load (200 players, fresh SQLite file) per build per round, the builds interleaved so
that the machine's drift hits them alike. Reports the median actions/s and p99 of each,
the median of its round-by-round ratio to the first build (each round's builds ran
seconds apart, so drift between rounds cancels), and the server's CPU per action (the
server process and its writer; CPU time, less sensitive than throughput to what else
the machine runs).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.report import write_section

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"(\d+) actions/s, server ([\d.]+) cores, ([\d.]+) actions per commit, p99 (\d+)")


def worktree(rev: str, base: Path) -> Path:
    path = base / rev
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(path), rev], check=True
    )
    shutil.rmtree(path / "bench")
    shutil.copytree(ROOT / "bench", path / "bench")
    return path


def one_load(path: Path, seconds: float) -> tuple[float, float, float]:
    """(actions/s, p99 ms, server CPU µs per action) of one load."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.cpu_check",
            "--runs",
            "1",
            "--seconds",
            str(seconds),
            "--no-write",
        ],
        cwd=path,
        capture_output=True,
        text=True,
        check=True,
    )
    found = LINE.search(done.stdout)
    if found is None:
        raise RuntimeError(done.stdout + done.stderr)
    per_s = float(found.group(1))
    return per_s, float(found.group(4)), 1e6 * float(found.group(2)) / per_s


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("revs", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="samedeal-builds-"))
    paths = {rev: worktree(rev, base) for rev in args.revs}
    results: dict[str, list[tuple[float, float, float]]] = {rev: [] for rev in args.revs}
    try:
        for _ in range(args.rounds):
            for rev, path in paths.items():
                results[rev].append(one_load(path, args.seconds))
                print(rev, *results[rev][-1], flush=True)
    finally:
        for path in paths.values():
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False
            )
    rows = [
        "| build | actions/s (median) | vs first, round by round (median) | p99 ms (median) "
        "| server CPU µs per action (median) | runs (actions/s) |",
        "|---|---|---|---|---|---|",
    ]
    first = results[args.revs[0]]
    for rev in args.revs:
        per_s = [r[0] for r in results[rev]]
        p99 = [r[1] for r in results[rev]]
        cpu = [r[2] for r in results[rev]]
        ratio = statistics.median(r[0] / f[0] - 1 for r, f in zip(results[rev], first, strict=True))
        runs = ", ".join(f"{x:,.0f}" for x in per_s)
        rows.append(
            f"| `{rev}` | {statistics.median(per_s):,.0f} | {100 * ratio:+.1f}% "
            f"| {statistics.median(p99):.0f} | {statistics.median(cpu):.0f} | {runs} |"
        )
    body = (
        f"200 players, SQLite, {args.rounds} interleaved rounds of {args.seconds:g} s per build "
        "(each build measured by this checkout's bench):\n\n" + "\n".join(rows)
    )
    print(body)
    if not args.no_write:
        write_section("builds", "python -m bench.builds " + " ".join(args.revs), body)


if __name__ == "__main__":
    main()
