"""Scale: PostgreSQL's ceiling for the action log, one node's capacity, and 1 or 2 worker
processes on this machine (the figures behind docs/SCALING.md).

    .venv/bin/python -m bench.scale [--runs 3] [--seconds 8] [--connections 1,2,4]
        [--callers 256] [--players 200] [--workers 1,2] [--parts db,node]
        [--pg postgresql+asyncpg://postgres@127.0.0.1:5432/postgres] [--no-write]

db: the action log alone, through the product's writer. For each number of connections
C, a fresh database, one tournament and C x callers entries; C processes, each with its
own Store (engine and PgWriter: one batch in flight, so one connection busy at a time)
and `callers` tasks appending their own entry's next action as fast as each append is
acknowledged (group commit). Each process also LISTENs on the notices' channel, as every
node does, and counts what arrives. Counted over --seconds after a second of warm-up.

node: `samedeal-server serve --workers N` (N = 1 is one node, the plain server) on a
fresh database and bench.load's load generator (bench.load_client: --players WebSocket
players registering, joining and playing random legal Gaps moves), in separate processes.

Both report the CPU each party used per second of the run, in cores: the bench's or the
server's processes, the load generator, and PostgreSQL (the backends of the bench's
database plus its shared background processes). The machine has 2 cores shared by all of
them (and by whatever else runs), so these shares say what bounds each figure.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time
import urllib.request
import uuid
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

from bench import operator_cli
from bench.load import PY, batch_mean, cpu_seconds, fresh_db, generate, stop_process, wait_port
from bench.report import write_section

PG_ADMIN = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
ACTION = '{"card":"6H","kind":"move","to":[0,5]}'  # a Gaps move, as stored
LOG_HASH = "ab" * 32  # a head, written at checkpoints as the server does
AUX = ("walwriter", "checkpointer", "background writer", "autovacuum launcher")


def create_tournament(url: str) -> int:
    """A tournament made by the operator's command line (after `migrate`)."""
    made = operator_cli.tournament(
        url, "create", "--name", "Scale", "--hours", "3", "--options", '{"redeals": 2}'
    )
    return int(made["id"])


def dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


class Reading:
    """PostgreSQL at one moment: CPU seconds so far of the processes serving a database
    (its backends, autovacuum included) and of the shared background processes (WAL
    writer, checkpointer, background writer), by pid; and the WAL position in bytes."""

    def __init__(self, url: str) -> None:
        pids, self.wal = asyncio.run(_pids_and_wal(url))
        self.cpu = _cpu_by_pid(pids)

    def cpu_since(self, before: Reading) -> float:
        """CPU seconds PostgreSQL spent since `before` (a process that started in between
        counts from zero; one that ended in between is missed)."""
        return sum(t - before.cpu.get(pid, 0.0) for pid, t in self.cpu.items())


async def _pids_and_wal(url: str) -> tuple[list[int], int]:
    import asyncpg

    conn = await asyncpg.connect(dsn(url).rsplit("/", 1)[0] + "/postgres")
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE (datname = $1 AND pid <> "
            "pg_backend_pid()) OR backend_type = ANY($2::text[])",
            url.rsplit("/", 1)[1],
            list(AUX),
        )
        wal = await conn.fetchval("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")
        return [r["pid"] for r in rows], int(wal)
    finally:
        await conn.close()


def _cpu_by_pid(pids: list[int]) -> dict[int, float]:
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, PermissionError):
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def cpu_stall_us() -> int:
    """Microseconds so far in which some runnable task on this machine waited for a core
    (Linux's pressure stall information; 0 where the kernel has none)."""
    try:
        line = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (FileNotFoundError, IndexError):
        return 0
    return int(line.rsplit("total=", 1)[1])


def children_cpu() -> float:
    """CPU seconds of this process's waited-for children (the load generator)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# -- db: the action log alone ------------------------------------------------------
def appender(
    url: str,
    tournament: int,
    callers: int,
    index: int,
    ready: Any,
    go: Event,
    release: Event,
    window: Any,
    results: Any,
    notify: bool = True,
) -> None:
    """One connection's process: `callers` entries appended to as fast as acknowledged."""
    try:
        import uvloop

        if not notify:  # the same writer, its pg_notify replaced by a no-op
            from server.store import pg_coordination

            pg_coordination.NOTIFY_SQL = "SELECT length($1::text)"
        result = uvloop.run(_append(url, tournament, callers, index, ready, go, release, window))
    except Exception as exc:  # reported, so the bench does not wait forever
        result = {"error": f"{type(exc).__name__}: {exc}"}
    results.put(result)


async def _append(
    url: str,
    tournament: int,
    callers: int,
    index: int,
    ready: Any,
    go: Event,
    release: Event,
    window: Any,
) -> dict[str, Any]:
    import asyncpg

    from server.competition.live_game import CHECKPOINT
    from server.domain.model import Figures, Status, Summary
    from server.domain.timing import utcnow
    from server.store.repository import Store

    store = await Store.open(url, migrate=False)
    listener = await asyncpg.connect(dsn(url))
    heard = {"notices": 0, "bytes": 0}

    def received(_c: object, _pid: int, _channel: str, payload: str) -> None:
        heard["notices"] += payload.count("\n") + 1
        heard["bytes"] += len(payload)

    await listener.add_listener("samedeal", received)
    try:
        now = utcnow()
        writer = store.writer
        players = await asyncio.gather(
            *(
                writer.new_player(f"s{index}-{i}", f"s{index}-{i}", uuid.uuid4().hex, now)
                for i in range(callers)
            )
        )
        first = Summary(Figures(Status.PLAYING, 0, 0, 0, 0), 0, "")
        entries = await asyncio.gather(
            *(writer.new_entry(tournament, p, now, now, first) for p in players)
        )
        done = [0]
        latencies: list[float] = []
        stop = [False]

        async def caller(entry: int) -> None:
            seq = 0
            while not stop[0]:
                seq += 1
                t0 = time.perf_counter()
                await store.append(
                    tournament,
                    entry,
                    seq,
                    seq * 100,
                    ACTION,
                    Summary(
                        Figures(Status.PLAYING, seq % 48, 0, seq % 48, seq * 100),
                        seq,
                        "" if seq % CHECKPOINT else LOG_HASH,  # the head at checkpoints only
                    ),
                )
                latencies.append(time.perf_counter() - t0)
                done[0] += 1

        await asyncio.get_running_loop().run_in_executor(None, ready.wait)
        await asyncio.get_running_loop().run_in_executor(None, go.wait)
        start, end = window[0], window[1]
        tasks = [asyncio.create_task(caller(e)) for e in entries]
        await asyncio.sleep(max(0.0, start - time.time()))
        snap0 = (done[0], writer.batches, _self_cpu(), dict(heard), len(latencies))
        await asyncio.sleep(max(0.0, end - time.time()))
        snap1 = (done[0], writer.batches, _self_cpu(), dict(heard), len(latencies))
        stop[0] = True
        await asyncio.gather(*tasks)
        # connections kept until the bench has read PostgreSQL's CPU time
        await asyncio.get_running_loop().run_in_executor(None, release.wait, 60)
        window_latencies = sorted(latencies[snap0[4] : snap1[4]])
        return {
            "appends": snap1[0] - snap0[0],
            "batches": snap1[1] - snap0[1],
            "cpu": snap1[2] - snap0[2],
            "notices": snap1[3]["notices"] - snap0[3]["notices"],
            "notice_bytes": snap1[3]["bytes"] - snap0[3]["bytes"],
            "p50_ms": 1000 * _pct(window_latencies, 0.5),
            "p99_ms": 1000 * _pct(window_latencies, 0.99),
        }
    finally:
        await listener.close()
        await store.close()


def _self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _pct(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def db_run(
    connections: int, callers: int, seconds: float, work: Path, pg_admin: str, notify: bool
) -> dict[str, Any]:
    """Appends/s of `connections` writers on a fresh database (see the module's text)."""
    url, drop = fresh_db("pg", work, pg_admin)
    try:
        tournament = create_tournament(url)
        ctx = multiprocessing.get_context("spawn")
        ready, go, release = ctx.Barrier(connections + 1), ctx.Event(), ctx.Event()
        window, results = ctx.Array("d", 2), ctx.Queue()
        procs = [
            ctx.Process(
                target=appender,
                args=(url, tournament, callers, i, ready, go, release, window, results, notify),
            )
            for i in range(connections)
        ]
        for p in procs:
            p.start()
        try:
            ready.wait(timeout=180)
            start = time.time() + 1.0  # a second of warm-up
            window[0], window[1] = start, start + seconds
            go.set()
            time.sleep(max(0.0, start - time.time()))
            pg0, stall0 = Reading(url), cpu_stall_us()
            time.sleep(max(0.0, start + seconds - time.time()))
            pg1, stall1 = Reading(url), cpu_stall_us()
            release.set()
            rows = [results.get(timeout=120) for _ in procs]
        finally:
            release.set()
            for p in procs:
                p.join(timeout=30)
                if p.is_alive():
                    p.kill()
        errors = [r["error"] for r in rows if "error" in r]
        if errors:
            raise RuntimeError("; ".join(errors))
        appends = sum(r["appends"] for r in rows)
        return {
            "connections": connections,
            "per_s": appends / seconds,
            "batch_mean": appends / max(1, sum(r["batches"] for r in rows)),
            "p50_ms": statistics.median(r["p50_ms"] for r in rows),
            "p99_ms": max(r["p99_ms"] for r in rows),
            "bench_cores": sum(r["cpu"] for r in rows) / seconds,
            "pg_cores": pg1.cpu_since(pg0) / seconds,
            "stall": (stall1 - stall0) / 1e6 / seconds,
            "wal_per_action": (pg1.wal - pg0.wal) / max(1, appends),
            "notices_per_s": statistics.median(r["notices"] for r in rows) / seconds,
            "notice_kib_per_s": statistics.median(r["notice_bytes"] for r in rows) / seconds / 1024,
        }
    finally:
        if drop:
            drop()


# -- node: the whole server under the load generator -----------------------------
class Workers:
    """`samedeal-server serve --workers N` on a fresh database with one tournament."""

    def __init__(self, url: str, workers: int, work: Path) -> None:
        self.url, self.workers = url, workers
        self.tournament = create_tournament(url)
        self.log = work / f"workers{workers}-{uuid.uuid4().hex[:6]}.log"
        args = [PY, "-m", "server", "--database-url", url, "serve", "--no-demo"]
        args += ["--workers", str(workers), "--port", "0" if workers == 1 else str(_port())]
        self.proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=self.log.open("w"), text=True
        )
        self.port = wait_port(self.proc, self.log)
        deadline = time.monotonic() + 60
        while len(re.findall(r"listening on ws://", self.log.read_text())) < workers:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(self.log.read_text()[-3000:])
            time.sleep(0.05)

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def metrics(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as r:
            return r.read().decode()

    def stop(self) -> None:
        stop_process(self.proc)


def _port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def node_run(
    workers: int, players: int, seconds: float, work: Path, pg_admin: str
) -> dict[str, Any]:
    url, drop = fresh_db("pg", work, pg_admin)
    try:
        server = Workers(url, workers, work)
        try:
            server_cpu0, gen_cpu0 = cpu_seconds(server.proc.pid), children_cpu()
            pg0, stall0 = Reading(url), cpu_stall_us()
            t0 = time.monotonic()
            result = generate(
                server.ws, server.tournament, players, seconds, "game", f"n{uuid.uuid4().hex[:5]}"
            )
            wall = time.monotonic() - t0
            server_cpu = cpu_seconds(server.proc.pid) - server_cpu0
            result["server_cores"] = server_cpu / wall
            result["generator_cores"] = (children_cpu() - gen_cpu0) / wall
            pg1 = Reading(url)
            result["stall"] = (cpu_stall_us() - stall0) / 1e6 / wall
            result["pg_cores"] = pg1.cpu_since(pg0) / wall
            result["wal_per_action"] = (pg1.wal - pg0.wal) / max(1, result["accepted"])
            replies = result["accepted"] + result["errors"]
            result["cpu_us"] = 1e6 * server_cpu / max(1, replies)
            result["workers"] = workers
            if workers == 1:  # with several, /metrics answers for whichever worker
                result["batch_mean"], _ = batch_mean(server.metrics())
        finally:
            server.stop()
    finally:
        if drop:
            drop()
    return result


# -- the report --------------------------------------------------------------------
def med(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def runs_of(rows: list[dict[str, Any]], key: str, fmt: str = "{:,.0f}") -> str:
    return " / ".join(fmt.format(r[key]) for r in rows)


def pg_settings(pg_admin: str) -> str:
    import asyncpg

    async def read() -> str:
        conn = await asyncpg.connect(dsn(pg_admin))
        try:
            version = await conn.fetchval("SHOW server_version")
            fsync = await conn.fetchval("SHOW fsync")
            sync = await conn.fetchval("SHOW synchronous_commit")
            buffers = await conn.fetchval("SHOW shared_buffers")
            return (
                f"PostgreSQL {version.split()[0]} on this machine over loopback, fsync {fsync}, "
                f"synchronous_commit {sync}, shared_buffers {buffers}"
            )
        finally:
            await conn.close()

    return asyncio.run(read())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--connections", default="1,2,4")
    ap.add_argument("--silent", default="1,4", help="connections to run again without NOTIFY")
    ap.add_argument("--callers", type=int, default=256, help="appending tasks per connection")
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--parts", default="db,node")
    ap.add_argument("--pg", default=PG_ADMIN)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    configs: list[tuple[int, bool]] = []
    if "db" in parts:
        configs += [(int(x), True) for x in args.connections.split(",") if x]
        configs += [(int(x), False) for x in args.silent.split(",") if x]
    workers = [int(x) for x in args.workers.split(",") if x] if "node" in parts else []
    work = Path(tempfile.mkdtemp(prefix="samedeal-scale-"))
    db: dict[tuple[int, bool], list[dict[str, Any]]] = {c: [] for c in configs}
    node: dict[int, list[dict[str, Any]]] = {w: [] for w in workers}
    for run in range(args.runs):  # the configurations interleaved, so drift hits all
        line = [f"run {run + 1}:"]
        for c, notify in configs:
            r = db_run(c, args.callers, args.seconds, work, args.pg, notify)
            db[(c, notify)].append(r)
            line.append(
                f"log x{c}{'' if notify else ' silent'} {r['per_s']:,.0f}/s "
                f"(pg {r['pg_cores']:.2f}, bench {r['bench_cores']:.2f} cores, "
                f"CPU wait {100 * r['stall']:.0f}%)"
            )
        for w in workers:
            r = node_run(w, args.players, args.seconds, work, args.pg)
            node[w].append(r)
            line.append(
                f"{w} worker(s) {r['per_s']:,.0f}/s (server {r['server_cores']:.2f}, "
                f"generator {r['generator_cores']:.2f}, pg {r['pg_cores']:.2f} cores, "
                f"CPU wait {100 * r['stall']:.0f}%)"
            )
        print(" | ".join(line), flush=True)

    lines = [
        f"Medians of {args.runs} runs of {args.seconds:g} s each, the configurations "
        "interleaved run by run (the single runs, in run order, beside each median); "
        f"{pg_settings(args.pg)}. The machine has 2 cores, shared by PostgreSQL, the "
        "processes measured, the load generator and any other work on it. The cores "
        "columns say who used them (CPU seconds per second of the run); CPU wait is the "
        "share of the run in which some runnable task waited for a core (Linux's pressure "
        "stall information): near 0% the cores were not the limit, near 100% they were.",
        "",
    ]
    if configs:
        lines += [
            f"**The action log alone** (`PgWriter` through `Store.append`, {args.callers} "
            "appending tasks per connection, each connection a process with its own Store "
            "and one listener on the notices' channel, as every node has; a fresh database "
            "per run):",
            "",
            "| connections | appends/s (median) | runs | actions per commit | p50 / p99 ms "
            "| PostgreSQL cores | bench cores | CPU wait | WAL bytes per action "
            "| notices heard per listener /s (KiB/s) |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for (c, notify), rows in db.items():
            label = str(c) if notify else f"{c}, no NOTIFY"
            lines.append(
                f"| {label} | {med(rows, 'per_s'):,.0f} | {runs_of(rows, 'per_s')} "
                f"| {med(rows, 'batch_mean'):.0f} | {med(rows, 'p50_ms'):.0f} / "
                f"{med(rows, 'p99_ms'):.0f} | {med(rows, 'pg_cores'):.2f} "
                f"| {med(rows, 'bench_cores'):.2f} | {100 * med(rows, 'stall'):.0f}% "
                f"| {med(rows, 'wal_per_action'):,.0f} "
                f"| {med(rows, 'notices_per_s'):,.0f} ({med(rows, 'notice_kib_per_s'):,.0f}) |"
            )
        lines += [
            "",
            "- no NOTIFY: the same writer with its `pg_notify` replaced by a no-op query, to "
            "show what the notices cost (a transaction that notifies holds one lock of the "
            "whole PostgreSQL server from its commit's start to its end, so such commits "
            "never share a flush)",
            "- WAL bytes: the server's WAL position moved over the window, per action "
            "appended (other databases' writes on the same server would count too)",
            "",
        ]
    if workers:
        lines += [
            f"**The server** (`samedeal-server serve --workers N`, {args.players} players "
            "of bench.load_client in one process, random legal Gaps moves, every action "
            "durable before its reply; a fresh database per run):",
            "",
            "| workers | actions/s (median) | runs | p50 / p99 ms | server CPU µs per reply "
            "| server cores | load generator cores | PostgreSQL cores | CPU wait |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for w, rows in node.items():
            lines.append(
                f"| {w} | {med(rows, 'per_s'):,.0f} | {runs_of(rows, 'per_s')} "
                f"| {med(rows, 'p50_ms'):.1f} / {med(rows, 'p99_ms'):.1f} "
                f"| {med(rows, 'cpu_us'):.0f} | {med(rows, 'server_cores'):.2f} "
                f"| {med(rows, 'generator_cores'):.2f} | {med(rows, 'pg_cores'):.2f} "
                f"| {100 * med(rows, 'stall'):.0f}% |"
            )
        lines.append("")
        if 1 in node:
            lines.append(
                f"- one node (1 worker): {med(node[1], 'batch_mean'):.0f} actions per commit, "
                f"{med(node[1], 'wal_per_action'):,.0f} WAL bytes per action (registrations "
                "and joins included)"
            )
        lines.append(
            "- cores: CPU seconds per second of the generator's run (its connecting and "
            "registering included) of the server's processes (supervisor and workers), of "
            "the load generator, and of PostgreSQL's backends for the bench's database plus "
            "its WAL writer, checkpointer and background writer"
        )
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("scale", "python -m bench.scale", body)


if __name__ == "__main__":
    main()
