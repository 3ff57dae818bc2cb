"""Successive builds side by side: before/after figures measured in one run.

    .venv/bin/python -m bench.builds REV [REV ...] [--rounds 3] [--windows 40] [--window 1.5]
        [--no-write]

Checks each git revision out into a temporary worktree and gives it this checkout's
`bench/` (so every build is measured by the same instrument). Each round starts every
build's server on a fresh SQLite file at once, and one `bench.paired_client` process with
200 players on each; it loads the servers in turn, one short window each (1.5 s; the
order alternates), so that the machine's drift, which moves a loaded run by ±10% over
tens of seconds here, hits the builds alike. Reports per build the median actions/s,
the median of its window-by-window ratio to the first build's neighbouring window, and
the server's CPU per action (the server process and its writer; CPU time).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.load import Server
from bench.report import write_section

ROOT = Path(__file__).resolve().parents[1]


def worktree(rev: str, base: Path) -> Path:
    path = base / rev
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(path), rev], check=True
    )
    shutil.rmtree(path / "bench")
    shutil.copytree(ROOT / "bench", path / "bench")
    return path


def one_round(paths: dict[str, Path], windows: int, window: float, work: Path) -> dict[str, Any]:
    """Every build's server started at once, loaded in turn by one paired client: per
    build, the (actions/s, CPU µs per action) of each window."""
    servers = {}
    try:
        for rev, path in paths.items():
            db = work / f"{rev}-{time.monotonic_ns()}.db"
            servers[rev] = Server(f"sqlite+aiosqlite:///{db}", work, cwd=path)
        command = [sys.executable, "-m", "bench.paired_client"]
        for server in servers.values():
            command += ["--url", server.ws, "--tournament", str(server.tournament)]
            command += ["--pid", str(server.proc.pid)]
        command += ["--windows", str(windows), "--window", str(window)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-3000:])
        found = json.loads(done.stdout.strip().splitlines()[-1])["windows"]
    finally:
        for server in servers.values():
            server.stop()
    return dict(zip(paths, found, strict=True))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("revs", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--windows", type=int, default=40)
    ap.add_argument("--window", type=float, default=1.5)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="samedeal-builds-"))
    paths = {rev: worktree(rev, base) for rev in args.revs}
    results: dict[str, list[tuple[float, float]]] = {rev: [] for rev in args.revs}
    try:
        for _ in range(args.rounds):
            found = one_round(paths, args.windows, args.window, base)
            for rev in args.revs:
                results[rev] += [(w[0], w[1]) for w in found[rev]]
            print(
                " ".join(
                    f"{rev} {statistics.median(w[0] for w in found[rev]):,.0f}/s"
                    for rev in args.revs
                ),
                flush=True,
            )
    finally:
        for path in paths.values():
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False
            )
    print(table(args, results, f"{os.getloadavg()[0]:.1f}"))


def table(
    args: argparse.Namespace, results: dict[str, list[tuple[float, float]]], load: str
) -> str:
    rows = [
        "| build | actions/s (median) | vs first, window by window: median (middle half) "
        "| server CPU µs per action (median) | windows |",
        "|---|---|---|---|---|",
    ]
    first = results[args.revs[0]]
    for rev in args.revs:
        mine = results[rev]
        ratios = [100 * (m[0] / f[0] - 1) for m, f in zip(mine, first, strict=True)]
        low, _, high = statistics.quantiles(ratios, n=4)
        rows.append(
            f"| `{rev}` | {statistics.median(m[0] for m in mine):,.0f} "
            f"| {statistics.median(ratios):+.1f}% ({low:+.1f}% to {high:+.1f}%) "
            f"| {statistics.median(m[1] for m in mine):.0f} | {len(mine)} |"
        )
    body = (
        f"200 players per build, SQLite, {args.rounds} rounds of {args.windows} windows of "
        f"{args.window:g} s per build, loaded in turn (each build measured by this "
        f"checkout's bench; load average {load} at the start):\n\n" + "\n".join(rows)
    )
    if not args.no_write:
        write_section("builds", "python -m bench.builds " + " ".join(args.revs), body)
    return body


if __name__ == "__main__":
    main()
