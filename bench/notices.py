"""What one node pays for the others: notices received, and what each node reads.

    .venv/bin/python -m bench.notices [--players 100] [--seconds 10] [--runs 3] [--no-write]

Two server processes (nodes) on one fresh PostgreSQL database. The load generator
(`bench.load_client`) plays on node A only; node B has no client at all, so everything
it does is following A: the notices of A's actions applied to its standings and cached
games. Reported, medians of the runs:
- c_n: node B's CPU per notice received (its CPU during the load, less its CPU over the
  same time idle before the load, divided by A's accepted actions);
- the statements each node sent to the database per second, by kind, from their
  /metrics (samedeal_db_statements_total): what a node reads per second.
"""

from __future__ import annotations

import argparse
import re
import signal
import statistics
import subprocess
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from bench.load import PY, cpu_seconds, fresh_db, generate, wait_port
from bench.report import write_section
from bench.scale import PG_ADMIN, create_tournament

STATEMENTS = re.compile(r'^samedeal_db_statements_total\{kind="(\w+)"\} ([\d.e+]+)$', re.M)
ACCEPTED = re.compile(r"^samedeal_actions_accepted_total ([\d.e+]+)$", re.M)


class Node:
    """`samedeal-server serve` on a free port."""

    def __init__(self, url: str, work: Path) -> None:
        self.log = work / f"node-{uuid.uuid4().hex[:6]}.log"
        args = [PY, "-m", "server", "--database-url", url, "serve", "--no-demo", "--port", "0"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.log.open("w"))
        self.port = wait_port(self.proc, self.log)  # type: ignore[arg-type]

    def metrics(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
            text: str = r.read().decode()
            return text

    def statements(self) -> dict[str, float]:
        return {k: float(v) for k, v in STATEMENTS.findall(self.metrics())}

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def per_s(after: dict[str, float], before: dict[str, float], wall: float) -> dict[str, float]:
    return {k: (after.get(k, 0.0) - before.get(k, 0.0)) / wall for k in after}


def one_run(players: int, seconds: float, work: Path) -> dict[str, Any]:
    url, drop = fresh_db("pg", work, PG_ADMIN)
    try:
        tournament = create_tournament(url)
        a, b = Node(url, work), Node(url, work)
        try:
            time.sleep(1.0)  # both settled
            b0, t0 = cpu_seconds(b.proc.pid), time.monotonic()
            time.sleep(seconds)  # B idle: its own clock, keepalives
            idle = (cpu_seconds(b.proc.pid) - b0) / (time.monotonic() - t0)
            sa0, sb0 = a.statements(), b.statements()
            accepted0 = float(ACCEPTED.findall(a.metrics())[0])
            b0, t0 = cpu_seconds(b.proc.pid), time.monotonic()
            result = generate(
                f"ws://127.0.0.1:{a.port}/ws",
                tournament,
                players,
                seconds,
                "game",
                f"c{uuid.uuid4().hex[:5]}",
            )
            wall = time.monotonic() - t0
            time.sleep(0.5)  # the last notices arrive
            b_busy = (cpu_seconds(b.proc.pid) - b0) / (time.monotonic() - t0)
            accepted = float(ACCEPTED.findall(a.metrics())[0]) - accepted0
            return {
                "actions_per_s": accepted / wall,
                "c_n_us": 1e6 * (b_busy - idle) / (accepted / wall),
                "b_idle_cores": idle,
                "b_busy_cores": b_busy,
                "a_statements": per_s(a.statements(), sa0, wall),
                "b_statements": per_s(b.statements(), sb0, wall),
                "p99_ms": result.get("p99_ms", 0.0),
            }
        finally:
            a.stop()
            b.stop()
    finally:
        if drop:
            drop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="samedeal-notices-"))
    runs = []
    for _ in range(args.runs):
        runs.append(one_run(args.players, args.seconds, work))
        r = runs[-1]
        print(
            f"{r['actions_per_s']:,.0f} actions/s on A; c_n {r['c_n_us']:.1f} µs; "
            f"A {r['a_statements']} B {r['b_statements']}",
            flush=True,
        )

    def med(key: str) -> float:
        return statistics.median(r[key] for r in runs)

    def med_kind(node: str, kind: str) -> float:
        return statistics.median(r[node].get(kind, 0.0) for r in runs)

    kinds = sorted({k for r in runs for n in ("a_statements", "b_statements") for k in r[n]})
    rows = [
        "| figure | median | runs |",
        "|---|---|---|",
        f"| actions/s on node A ({args.players} players, PostgreSQL) "
        f"| {med('actions_per_s'):,.0f} | "
        + ", ".join(f"{r['actions_per_s']:,.0f}" for r in runs)
        + " |",
        f"| c_n: node B's CPU per notice received | {med('c_n_us'):.1f} µs | "
        + ", ".join(f"{r['c_n_us']:.1f}" for r in runs)
        + " |",
        f"| node B idle (no clients, no load) | {med('b_idle_cores') * 100:.1f}% of a core | |",
        f"| node B following A's load | {med('b_busy_cores') * 100:.1f}% of a core | |",
        *(
            f"| statements/s to the database, node A (serving), {k} "
            f"| {med_kind('a_statements', k):,.1f} | |"
            for k in kinds
        ),
        *(
            f"| statements/s to the database, node B (following), {k} "
            f"| {med_kind('b_statements', k):,.1f} | |"
            for k in kinds
        ),
    ]
    body = (
        "Two nodes on one PostgreSQL; the load on node A only, node B without clients. "
        f"{args.runs} runs of {args.seconds:g} s; 2 shared cores (the generator, both "
        "nodes and PostgreSQL share them).\n\n" + "\n".join(rows)
    )
    print(body)
    if not args.no_write:
        write_section("notices", "python -m bench.notices", body)


if __name__ == "__main__":
    main()
