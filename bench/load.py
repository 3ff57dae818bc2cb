"""End-to-end load against the echo ceiling, latency, memory per connection, durability cost.

    .venv/bin/python -m bench.load [--players 200] [--seconds 10] [--runs 3]
        [--big 1000] [--idle 5000] [--pg postgresql+asyncpg://postgres@127.0.0.1:5432/postgres]
        [--no-write]

Each run starts the server (`python -m server serve`) on a fresh database and the load
generator (`bench.load_client`) in separate processes, then the same generator against
`bench.echo_server` (same transport and limits, JSON in, JSON of the same size out, no
validation, no database), on the server's transport and on websockets' own `Connection`.
Every accepted action is durable before its reply.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from bench import operator_cli
from bench.report import write_section

PY = sys.executable
LISTEN = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)/ws")


def wait_port(proc: subprocess.Popen[str], log: Path) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = LISTEN.search(log.read_text())
        if found:
            return int(found.group(1))
        if proc.poll() is not None:
            raise RuntimeError(log.read_text())
        time.sleep(0.05)
    raise TimeoutError(log.read_text())


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of a process (all its threads) and of its running
    child processes (the server's SQLite writer process)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        total += sum(cpu_seconds(int(child)) for child in children)
    return total


def costed(pid: int, *generate_args: Any) -> dict[str, Any]:
    """`generate(*generate_args)` plus the microseconds of CPU process `pid` (the server
    under load) spent per reply."""
    before = cpu_seconds(pid)
    result = generate(*generate_args)
    replies = result["accepted"] + result["errors"]
    result["cpu_us"] = 1e6 * (cpu_seconds(pid) - before) / max(1, replies)
    return result


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Server:
    """The real server in its own process on a fresh database."""

    def __init__(self, url: str, workdir: Path, cwd: Path | None = None) -> None:
        """`cwd`: the checkout whose server runs (another build's worktree; this one's
        by default)."""
        self.url = url
        made = operator_cli.tournament(
            url, "create", "--name", "Load", "--hours", "3", "--options", '{"redeals": 2}', cwd=cwd
        )
        self.tournament = made["id"]
        self.log = workdir / f"server-{uuid.uuid4().hex[:6]}.log"
        self.proc = subprocess.Popen(
            [PY, "-m", "server", "--database-url", url, "serve", "--port", "0", "--no-demo"],
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("w"),
            text=True,
            cwd=cwd,
        )
        self.port = wait_port(self.proc, self.log)

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def metrics(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
            return r.read().decode()

    def stop(self) -> None:
        stop_process(self.proc, timeout=30)


class Echo:
    def __init__(self, reply_bytes: int, workdir: Path, *extra: str) -> None:
        self.log = workdir / "echo.log"
        self.proc = subprocess.Popen(
            [PY, "-m", "bench.echo_server", "--reply-bytes", str(reply_bytes), *extra],
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.port = wait_port(self.proc, self.log)
        self.ws = f"ws://127.0.0.1:{self.port}/ws"

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def stop_process(proc: subprocess.Popen[Any], timeout: float = 60) -> None:
    """SIGTERM (a graceful stop), then SIGKILL after `timeout` seconds; reaped either way."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def generate(
    url: str, tournament: int, players: int, seconds: float, mode: str, prefix: str
) -> dict[str, Any]:
    done = subprocess.run(
        [
            PY,
            "-m",
            "bench.load_client",
            "--url",
            url,
            "--tournament",
            str(tournament),
            "--players",
            str(players),
            "--seconds",
            str(seconds),
            "--mode",
            mode,
            "--prefix",
            prefix,
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def batch_mean(metrics: str) -> tuple[float, float]:
    """(mean actions per commit, share of commits carrying more than one action)."""
    total = float(re.search(r"samedeal_commit_batch_size_sum (\S+)", metrics).group(1))
    count = float(re.search(r"samedeal_commit_batch_size_count (\S+)", metrics).group(1))
    ones = float(re.search(r'samedeal_commit_batch_size_bucket\{le="1"\} (\S+)', metrics).group(1))
    return (total / count if count else 0.0), ((count - ones) / count if count else 0.0)


def fresh_db(kind: str, workdir: Path, pg_admin: str | None) -> tuple[str, Any]:
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{workdir / f'{uuid.uuid4().hex[:8]}.db'}", None
    import asyncpg

    name = f"samedeal_bench_{uuid.uuid4().hex[:8]}"
    dsn = (pg_admin or "").replace("postgresql+asyncpg://", "postgresql://")

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    base = (pg_admin or "").rsplit("/", 1)[0]
    return f"{base}/{name}", lambda: asyncio.run(admin(f'DROP DATABASE "{name}" WITH (FORCE)'))


def game_run(
    kind: str, players: int, seconds: float, workdir: Path, pg: str | None
) -> dict[str, Any]:
    url, drop = fresh_db(kind, workdir, pg)
    server = Server(url, workdir)
    try:
        result = costed(
            server.proc.pid,
            server.ws,
            server.tournament,
            players,
            seconds,
            "game",
            f"l{uuid.uuid4().hex[:5]}",
        )
        result["batch_mean"], result["batched_share"] = batch_mean(server.metrics())
    finally:
        server.stop()
        if drop:
            drop()
    return result


def memory(kind: str, connections: int, mode: str, workdir: Path) -> float:
    """KiB of server memory per authenticated connection (idle) or per game in progress."""
    url, _ = fresh_db(kind, workdir, None)
    server = Server(url, workdir)
    try:
        time.sleep(1)
        before = rss_kib(server.proc.pid)
        gen = subprocess.Popen(
            [
                PY,
                "-m",
                "bench.load_client",
                "--url",
                server.ws,
                "--tournament",
                str(server.tournament),
                "--players",
                str(connections),
                "--seconds",
                "8",
                "--mode",
                "idle",
                "--prefix",
                f"m{uuid.uuid4().hex[:5]}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert gen.stdout is not None
        line = gen.stdout.readline()  # {"ready": true} once every connection is in
        if '"ready"' not in line:
            raise RuntimeError(gen.stderr.read() if gen.stderr else "generator failed")
        time.sleep(2)
        after = rss_kib(server.proc.pid)
        gen.wait(timeout=120)
        return (after - before) / connections
    finally:
        server.stop()


def med(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--big", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--idle", type=int, default=5000)
    ap.add_argument("--pg", default="postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="samedeal-load-"))
    sqlite, echo, echo_conn, pg, big = [], [], [], [], []
    for run in range(args.runs):
        sqlite.append(game_run("sqlite", args.players, args.seconds, work, None))
        reply = int(sqlite[-1]["reply_bytes"])
        for rows, extra in ((echo, ()), (echo_conn, ("--connection",))):
            e = Echo(reply, work, *extra)
            try:
                rows.append(costed(e.proc.pid, e.ws, 1, args.players, args.seconds, "echo", "e"))
            finally:
                e.stop()
        if args.pg:
            pg.append(game_run("pg", args.players, args.seconds, work, args.pg))
        big.append(game_run("sqlite", args.big, args.seconds, work, None))
        print(
            f"run {run + 1}: sqlite {sqlite[-1]['per_s']:.0f}/s p99 {sqlite[-1]['p99_ms']:.1f} ms"
            f" | echo {echo[-1]['per_s']:.0f}/s p99 {echo[-1]['p99_ms']:.1f} ms"
            f" | echo on Connection {echo_conn[-1]['per_s']:.0f}/s"
            + (f" | pg {pg[-1]['per_s']:.0f}/s" if pg else "")
            + f" | {args.big} players {big[-1]['per_s']:.0f}/s",
            flush=True,
        )
    idle_kib = memory("sqlite", args.idle, "idle", work)
    games_kib = memory("sqlite", args.big, "idle", work)

    def row(label: str, rows: list[dict[str, Any]], batches: bool = True) -> str:
        extra = (
            (
                f"{med(rows, 'batch_mean'):.1f} ({100 * med(rows, 'batched_share'):.0f}% of "
                f"commits batched)"
            )
            if batches
            else "—"
        )
        return (
            f"| {label} | {med(rows, 'per_s'):,.0f} | {med(rows, 'p50_ms'):.1f} "
            f"| {med(rows, 'p95_ms'):.1f} | {med(rows, 'p99_ms'):.1f} "
            f"| {sum(r['errors'] for r in rows)} | {med(rows, 'cpu_us'):.0f} | {extra} |"
        )

    lines = [
        f"Medians of {args.runs} runs of {args.seconds:g} s each; server and load generator "
        "in separate processes on loopback.",
        "",
        "| load | actions/s | p50 ms | p95 ms | p99 ms | errors | server CPU µs per reply "
        "| actions per commit |",
        "|---|---|---|---|---|---|---|---|",
        row(f"server, SQLite, {args.players} players", sqlite),
        row(f"echo ceiling, {args.players} players", echo, batches=False),
        row(f"echo on websockets' Connection, {args.players} players", echo_conn, batches=False),
    ]
    if pg:
        lines.append(row(f"server, PostgreSQL, {args.players} players", pg))
    lines += [
        row(f"server, SQLite, {args.big} players", big),
        "",
        f"- throughput server/echo at {args.players} players (SQLite): "
        f"{med(sqlite, 'per_s') / med(echo, 'per_s'):.0%}; p99 server/echo: "
        f"{med(sqlite, 'p99_ms') / med(echo, 'p99_ms'):.1f}×; against the echo on websockets' "
        f"own `Connection`: {med(sqlite, 'per_s') / med(echo_conn, 'per_s'):.0%} and "
        f"{med(sqlite, 'p99_ms') / med(echo_conn, 'p99_ms'):.1f}×",
        "- the echo ceiling runs on the server's transport (`server.net.transport`, websockets' "
        "Sans-I/O core), like the server; the second echo runs on websockets' asyncio "
        "`Connection` (`serve`), the transport the server used before its own",
        f"- memory: {idle_kib:.1f} KiB per idle authenticated connection ({args.idle} "
        f"connections); {games_kib:.1f} KiB per game in progress ({args.big} games)",
        "- server CPU per reply: the CPU time of the server process and its SQLite writer "
        "process (all threads, registrations and joins included) over the run, divided by "
        "the replies to act messages",
        f"- average reply size {med(sqlite, 'reply_bytes'):.0f} bytes (the echo answers the "
        "same size)",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("load", "python -m bench.load", body)


if __name__ == "__main__":
    main()
