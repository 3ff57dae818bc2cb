"""The attacks of issue 23 against a real server, one after the other, each bounded in
count and time on loopback, while a legitimate player acts: the server's peak RSS, its
CPU, and the player's act latency during each (one row per attack).

    python -m bench.attacks [--seconds S] [--entrants N] [--no-write]

The server is `python -m server serve` on a fresh SQLite database with the command
line's default limits (64 connections and 10 registrations a minute per address), but
`--idle-timeout 5` so that idle connections are seen to close within a short run. The
legitimate player connects from 127.0.0.2 (another loopback address: the attacker is
127.0.0.1) and sends a Klondike `draw` every 50 ms (always legal with unlimited passes).
A closed Gaps tournament of `--entrants` entries (1,000) is there for the bundle attack.

`python -m bench.attacks bundle --entrants 100000`: a closed tournament of 100,000
entries, its bundle fetched (plain and gzip) with the player acting meanwhile, then
`samedeal verify` on it with its peak RSS (its own process).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.frames import Frame, Opcode

from bench import operator_cli
from bench.report import write_section

PY = sys.executable
LISTENING = re.compile(r"listening on ws://127\.0\.0\.1:(\d+)/ws")
HANDSHAKE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
PLAYER_ADDRESS = "127.0.0.2"
SOURCE = ["127.0.1.1"]  # the attacker's address: a fresh one for each attack
ACT_EVERY_S = 0.05
IDLE_TIMEOUT_S = 5


# -- the server ---------------------------------------------------------------------
class Server:
    """`python -m server serve` with the command line's default limits."""

    def __init__(self, url: str, log: Path, extra: tuple[str, ...] = ()) -> None:
        self.log = log
        args = [PY, "-m", "server", "--database-url", url, "serve", "--port", "0", "--no-demo"]
        args += ["--max-connections-per-ip", "64", "--max-registrations-per-minute", "10"]
        args += ["--idle-timeout", str(IDLE_TIMEOUT_S), *extra]
        self.proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=log.open("w"), env={**os.environ}
        )
        deadline = time.monotonic() + 60
        while not (found := LISTENING.search(log.read_text())):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(log.read_text())
            time.sleep(0.05)
        self.port = int(found.group(1))

    def rss_mib(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def cpu_s(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_lines(self, pattern: str) -> int:
        return self.log.read_text().count(pattern)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def operator(url: str, *args: str) -> dict[str, Any]:
    return operator_cli.tournament(url, *args)


async def _closed_tournament(url: str, entrants: int) -> int:
    """A Gaps tournament of `entrants` entries of one to three moves each, closed."""
    from server.competition.catalogue import TournamentSpec
    from server.competition.service import Competition
    from server.domain.timing import utcnow
    from server.store.repository import Store

    store = await Store.open(url)
    try:
        comp = Competition.build(store)
        now = utcnow()
        spec = TournamentSpec("Closed", "gaps", {"redeals": 2}, now + timedelta(hours=1), now)
        t = await comp.catalogue.create(spec)
        todo = iter(range(entrants))

        async def worker() -> None:
            for i in todo:
                rnd = random.Random(i)
                player, _ = await comp.players.register(f"e{i}")
                snap = await comp.play.join(player, t.id)
                for _ in range(rnd.randint(1, 3)):
                    legal = snap.view["legal"]
                    if snap.status != "playing" or not legal:
                        break
                    action = {"kind": "move", **rnd.choice(legal)}
                    snap = await comp.play.act(player, t.id, snap.seq + 1, action)

        await asyncio.gather(*(worker() for _ in range(64)))
        await comp.lifecycle.close(t.id)
        return t.id
    finally:
        await store.close()


def prepare(work: Path, entrants: int) -> tuple[str, int, int, float]:
    """(database URL, the closed tournament, an open Klondike one, seconds taken)."""
    from server.net.app import run_loop

    t0 = time.perf_counter()
    url = f"sqlite+aiosqlite:///{work / 'attacks.db'}"
    closed = run_loop(_closed_tournament(url, entrants))
    open_one = operator(url, "create", "--name", "Play", "--game", "klondike", "--hours", "6")
    return url, closed, int(open_one["id"]), time.perf_counter() - t0


# -- the legitimate player ----------------------------------------------------------
class Player:
    """The legitimate player in a process of its own (`python -m bench.attacks player
    PORT TOURNAMENT`), so the attacks' client work never delays it: it acts every
    ACT_EVERY_S from PLAYER_ADDRESS and prints each act's end time and round trip."""

    def __init__(self, port: int, tournament: int, name: str = "legit") -> None:
        self.proc = subprocess.Popen(
            [PY, "-m", "bench.attacks", "player", str(port), str(tournament), name],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.samples: list[tuple[float, float]] = []
        self.errors = 0
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()  # "ready" once it has joined
        assert first.strip() == "ready", first
        self.task: asyncio.Task[None] | None = None

    async def collect(self) -> None:
        assert self.proc.stdout is not None
        while True:
            line = await asyncio.to_thread(self.proc.stdout.readline)
            if not line:
                return
            at, took, ok = line.split()
            self.samples.append((float(at), float(took)))
            self.errors += ok != "1"

    def between(self, start: float, end: float) -> list[float]:
        return [took for at, took in self.samples if start <= at <= end]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


async def play(port: int, tournament: int, name: str) -> None:
    url = f"ws://127.0.0.1:{port}/ws"
    async with connect(url, local_addr=(PLAYER_ADDRESS, 0), max_size=None) as ws:
        await ws.send(json.dumps({"type": "register", "name": name, "id": 0}))
        json.loads(await ws.recv())
        await ws.send(json.dumps({"type": "join", "tournament": tournament, "id": 0}))
        seq = json.loads(await ws.recv())["seq"]
        print("ready", flush=True)
        while True:
            msg = {"type": "act", "tournament": tournament, "seq": seq + 1, "id": seq}
            msg["action"] = {"kind": "draw"}
            started = time.perf_counter()
            await ws.send(json.dumps(msg))
            reply = json.loads(await asyncio.wait_for(ws.recv(), 60))
            took = time.perf_counter() - started
            ok = reply.get("type") == "state"
            if ok:
                seq = reply["seq"]
            print(f"{time.time():.4f} {took:.6f} {int(ok)}", flush=True)
            await asyncio.sleep(ACT_EVERY_S)


# -- the attacks (each returns what happened, in words) ------------------------------
def frame(opcode: Opcode, data: bytes, fin: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=True, extensions=[])


async def dial(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection to the server from the attacker's address."""
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(SOURCE[0], 0))


async def opened(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    """A raw connection past the handshake, or None when the server refuses it."""
    try:
        reader, writer = await dial(port)
        writer.write(HANDSHAKE)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    except (TimeoutError, OSError, asyncio.IncompleteReadError):
        return None
    if not head.startswith(b"HTTP/1.1 101"):
        writer.close()
        return None
    return reader, writer


async def drain_to_close(reader: asyncio.StreamReader) -> bytes:
    try:
        while await asyncio.wait_for(reader.read(65536), 30):
            pass
    except (TimeoutError, OSError):
        pass
    return b""


async def ping_flood_unread(port: int, seconds: float) -> str:
    """Two connections pinging as fast as they can, never reading; each reconnects
    when closed."""
    end = time.monotonic() + seconds
    stats = {"pings": 0, "closed": 0}
    ping = frame(Opcode.PING, b"flood") * 1000

    async def one() -> None:
        while time.monotonic() < end:
            conn = await opened(port)
            if conn is None:
                await asyncio.sleep(0.05)
                continue
            _reader, writer = conn
            while time.monotonic() < end:
                if writer.transport.is_closing():
                    break
                if writer.transport.get_write_buffer_size() < 4 << 20:  # our side's buffer
                    try:
                        writer.write(ping)
                    except (RuntimeError, OSError):
                        break
                    stats["pings"] += 1000
                await asyncio.sleep(0.001)
            stats["closed"] += time.monotonic() < end
            writer.transport.abort()

    await asyncio.gather(one(), one())
    return f"{stats['pings']:,} pings written; {stats['closed']} connections closed (1008)"


async def ping_flood_read(port: int, seconds: float) -> str:
    """Two connections pinging as fast as they can and reading the pongs; each
    reconnects when closed."""
    end = time.monotonic() + seconds
    stats = {"pings": 0, "pongs": 0, "closed": 0}

    async def one() -> None:
        while time.monotonic() < end:
            conn = await opened(port)
            if conn is None:
                await asyncio.sleep(0.05)
                continue
            reader, writer = conn

            async def read(reader: asyncio.StreamReader) -> None:
                while data := await reader.read(65536):
                    stats["pongs"] += data.count(b"\x8a\x05flood")

            reading = asyncio.create_task(read(reader))
            try:
                while time.monotonic() < end and not reading.done():
                    writer.write(frame(Opcode.PING, b"flood") * 100)
                    stats["pings"] += 100
                    await writer.drain()
                    await asyncio.sleep(0)  # drain does not yield below its limit
            except (OSError, ConnectionError):
                pass
            stats["closed"] += time.monotonic() < end  # closed by the server before the end
            writer.transport.abort()
            reading.cancel()

    await asyncio.gather(one(), one())
    return (
        f"{stats['pings']:,} pings, {stats['pongs']:,} pongs; "
        f"{stats['closed']} connections closed (1008)"
    )


async def fragment_flood(port: int, seconds: float, payload: bytes) -> str:
    """Messages in two-byte fragments (or endless empty continuations), 4 at a time,
    reconnecting when closed."""
    end = time.monotonic() + seconds
    stats = {"frames": 0, "closed": 0}

    async def one() -> None:
        while time.monotonic() < end:
            conn = await opened(port)
            if conn is None:
                await asyncio.sleep(0.05)
                continue
            reader, writer = conn
            writer.write(frame(Opcode.TEXT, payload, fin=False))
            burst = frame(Opcode.CONT, payload, fin=False) * 1000
            try:
                for _ in range(32):  # 32,001 fragments in all, then it is abandoned
                    writer.write(burst)
                    stats["frames"] += 1000
                    await writer.drain()
                    await asyncio.sleep(0)
            except (OSError, ConnectionError):
                pass
            await drain_to_close(reader)
            stats["closed"] += 1
            writer.transport.abort()

    await asyncio.gather(*(one() for _ in range(4)))
    return f"{stats['frames']:,} fragments sent; {stats['closed']} connections closed (1009)"


CLOSE = 0x8


def opcodes(data: bytes) -> list[int]:
    """The opcodes of the whole server frames (unmasked) at the start of `data`."""
    out, at = [], 0
    while at + 2 <= len(data):
        n, head = data[at + 1] & 0x7F, 2
        if n == 126:
            n, head = int.from_bytes(data[at + 2 : at + 4], "big"), 4
        elif n == 127:
            n, head = int.from_bytes(data[at + 2 : at + 10], "big"), 10
        if at + head + n > len(data):
            break
        out.append(data[at] & 0x0F)
        at += head + n
    return out


async def connection_flood(port: int, seconds: float) -> str:
    """One address opens 1,100 WebSockets and holds them, saying nothing."""
    end = time.monotonic() + seconds
    held = [c for c in await asyncio.gather(*(opened(port) for _ in range(1100))) if c]
    admitted = len(held)
    healthz = await http(port, "GET /healthz", source="127.0.0.3")
    while time.monotonic() < end:
        await asyncio.sleep(0.1)

    async def closed_by_server(reader: asyncio.StreamReader) -> bool:
        """The server sent its close frame or ended the stream (a keepalive ping may
        come first, in the same read)."""
        got = b""
        try:
            while data := await asyncio.wait_for(reader.read(4096), 0.5):
                got += data
                if CLOSE in opcodes(got):
                    return True
            return True
        except (TimeoutError, OSError):
            return False

    closed = sum(await asyncio.gather(*(closed_by_server(r) for r, _ in held)))
    for _, writer in held:
        writer.transport.abort()
    return (
        f"{admitted} of 1,100 admitted (the rest 503); /healthz from another address: "
        f"{healthz}; {closed} of the admitted closed as idle ({IDLE_TIMEOUT_S} s) by the end"
    )


async def registration_flood(port: int, seconds: float) -> str:
    """1,000 registrations from one address over 10 connections."""
    made = refused = 0

    async def one(k: int) -> None:
        nonlocal made, refused
        async with connect(f"ws://127.0.0.1:{port}/ws", local_addr=(SOURCE[0], 0)) as ws:
            for i in range(100):
                await ws.send(json.dumps({"type": "register", "name": f"sock{k}x{i}"}))
                reply = json.loads(await ws.recv())
                made += reply.get("type") == "registered"
                refused += reply.get("code") == "rate_limited"

    started = time.monotonic()
    await asyncio.gather(*(one(k) for k in range(10)))
    await asyncio.sleep(max(0.0, seconds - (time.monotonic() - started)))
    return f"{made} registered, {refused} refused (rate_limited)"


async def bundle_flood(port: int, seconds: float, tournament: int) -> str:
    """24 clients fetching bundle.json in a loop (half with gzip), plus 20 requests
    sent and abandoned."""
    end = time.monotonic() + seconds
    stats = {"200": 0, "503": 0, "bytes": 0}
    path = f"/tournaments/{tournament}/bundle.json"
    for _ in range(20):
        try:
            _, writer = await dial(port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            writer.transport.abort()
        except OSError:
            pass

    async def one(k: int) -> None:
        extra = "\r\nAccept-Encoding: gzip" if k % 2 else ""
        while time.monotonic() < end:
            try:
                reader, writer = await dial(port)
                writer.write(f"GET {path} HTTP/1.1\r\nHost: x{extra}\r\n\r\n".encode())
                head = await reader.readline()
                status = head.split(b" ")[1].decode() if head.count(b" ") else "closed"
                while data := await reader.read(1 << 20):
                    stats["bytes"] += len(data)
                writer.close()
                stats[status] = stats.get(status, 0) + 1
                if status != "200":
                    await asyncio.sleep(0.05)  # refused: a moment before trying again
            except OSError:
                await asyncio.sleep(0.05)

    await asyncio.gather(*(one(k) for k in range(24)))
    return (
        f"{stats['200']:,} bundles sent ({stats['bytes'] / 2**20:,.0f} MiB), "
        f"{stats['503']:,} refused (503: new connections per address)"
    )


async def http_flood(port: int, seconds: float) -> str:
    """GET, HEAD, OPTIONS and TRACE requests on 16 connections at a time."""
    end = time.monotonic() + seconds
    counts: dict[str, int] = {}

    async def one(k: int) -> None:
        methods = ["GET /nothing", "HEAD /", "OPTIONS /", "TRACE /"]
        i = k
        while time.monotonic() < end:
            status = await http(port, methods[i % 4])
            counts[status] = counts.get(status, 0) + 1
            i += 1

    await asyncio.gather(*(one(k) for k in range(16)))
    total = sum(counts.values())
    return f"{total:,} requests: " + ", ".join(f"{n:,} {s}" for s, n in sorted(counts.items()))


async def http(port: int, line: str, source: str | None = None) -> str:
    try:
        address = (source or SOURCE[0], 0)
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=address)
        writer.write(f"{line} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        head = await asyncio.wait_for(reader.readline(), 10)
        writer.close()
        return head.decode().split(" ", 2)[1] if head else "closed"
    except (TimeoutError, OSError, IndexError):
        return "failed"


# -- one run ------------------------------------------------------------------------
def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def measured(
    server: Server, player: Player, seconds: float, attack: Callable[[], Awaitable[str]]
) -> dict[str, Any]:
    """Run `attack` while sampling the server's RSS every 50 ms and the player's acts."""
    rss = [server.rss_mib()]
    cpu0, t0 = server.cpu_s(), time.perf_counter()
    limit_lines0 = server.log_lines("limit_hit")
    log_size0 = server.log.stat().st_size
    window_start = time.time()
    done = asyncio.Event()

    async def sample() -> None:
        while not done.is_set():
            rss.append(server.rss_mib())
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    try:
        outcome = await attack()
    finally:
        done.set()
        await sampler
    wall = time.perf_counter() - t0
    window_end = time.time()
    await asyncio.sleep(0.5)  # the player's last lines arrive; the server settles
    acts = player.between(window_start, window_end)
    return {
        "outcome": outcome,
        "rss_before": rss[0],
        "rss_peak": max(rss),
        "rss_after": server.rss_mib(),
        "cpu": (server.cpu_s() - cpu0) / wall,
        "acts": len(acts),
        "p50_ms": pct(acts, 0.5) * 1000,
        "p99_ms": pct(acts, 0.99) * 1000,
        "limit_lines": server.log_lines("limit_hit") - limit_lines0,
        "log_bytes": server.log.stat().st_size - log_size0,
        "seconds": wall,
    }


ATTACKS: list[tuple[str, str]] = [
    ("none", "no attack (the baseline, same run)"),
    ("ping_unread", "1. ping flood, never reading (2 connections)"),
    ("ping_read", "1. ping flood, reading the pongs (2 connections)"),
    ("bundle", "2. bundle.json: 24 looping clients and 20 abandoned requests"),
    ("fragments", "3. a message in 32,001 two-byte fragments (4 at a time)"),
    ("empty_fragments", "3. endless empty continuation frames (4 at a time)"),
    ("connections", "4. one address holds 1,100 WebSockets"),
    ("registrations", "4. one address registers 1,000 accounts"),
    ("http", "6. GET/HEAD/OPTIONS/TRACE flood (16 at a time)"),
]


async def run_attacks(
    server: Server, closed: int, klondike: int, seconds: float, only: set[str] | None = None
) -> dict[str, dict[str, Any]]:
    player = Player(server.port, klondike)
    player.task = asyncio.create_task(player.collect())
    port = server.port
    table: dict[str, Callable[[], Awaitable[str]]] = {
        "none": lambda: asyncio.sleep(seconds, "nothing"),
        "ping_unread": lambda: ping_flood_unread(port, seconds),
        "ping_read": lambda: ping_flood_read(port, seconds),
        "bundle": lambda: bundle_flood(port, seconds, closed),
        "fragments": lambda: fragment_flood(port, seconds, b"ab"),
        "empty_fragments": lambda: fragment_flood(port, seconds, b""),
        "connections": lambda: connection_flood(port, max(seconds, IDLE_TIMEOUT_S + 2)),
        "registrations": lambda: registration_flood(port, seconds),
        "http": lambda: http_flood(port, seconds),
    }
    results: dict[str, dict[str, Any]] = {}
    try:
        for name, _ in ATTACKS:
            if only is not None and name not in only:
                continue
            SOURCE[0] = f"127.0.1.{len(results) + 1}"  # each attack from its own address
            results[name] = await measured(server, player, seconds, table[name])
            r = results[name]
            print(
                f"{name:16} rss {r['rss_before']:.0f}->{r['rss_peak']:.0f} MiB "
                f"cpu {r['cpu']:.0%} acts {r['acts']} p50 {r['p50_ms']:.1f} "
                f"p99 {r['p99_ms']:.1f} ms log {r['limit_lines']} lines: {r['outcome']}",
                flush=True,
            )
            assert player.proc.poll() is None, "the player stopped"
    finally:
        player.stop()
    return results


def report(results: dict[str, dict[str, Any]], seconds: float, entrants: int) -> str:
    load = os.getloadavg()
    lines = [
        f"The server (`python -m server serve`, SQLite, the command line's default limits, "
        f"`--idle-timeout {IDLE_TIMEOUT_S}`) under each attack for {seconds:g} s (the "
        f"connection flood until its idle connections closed), one after the other; a "
        f"legitimate player from another loopback address sends a Klondike draw every "
        f"{ACT_EVERY_S * 1000:.0f} ms meanwhile. The closed tournament of the bundle attack "
        f"has {entrants:,} entries. The attacks run in a process at nice 10 (on loopback "
        f"the attacker's CPU is the server's machine's). RSS sampled every 50 ms; CPU is "
        f"the server's share of "
        f"one core; log lines are `limit_hit` warnings. Load average at the end "
        f"{load[0]:.1f} (the machine shared with other work).",
        "",
        "| attack | what happened | server RSS before → peak (MiB) | server CPU | "
        "acts | act p50 / p99 (ms) | limit lines |",
        "|---|---|---|---|---|---|---|",
    ]
    names = dict(ATTACKS)
    for name, r in results.items():
        lines.append(
            f"| {names[name]} | {r['outcome']} | {r['rss_before']:.0f} → {r['rss_peak']:.0f} "
            f"| {r['cpu']:.0%} | {r['acts']} | {r['p50_ms']:.1f} / {r['p99_ms']:.1f} "
            f"| {r['limit_lines']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.attacks")
    if len(sys.argv) == 5 and sys.argv[1] == "player":
        from server.net.app import run_loop

        run_loop(play(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
        return
    parser.add_argument("mode", nargs="?", default="attacks", choices=["attacks", "bundle"])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--only", default="", help="comma-separated attack names")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--keep", default="", help="bundle: a folder keeping the database")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-attacks-"))
    try:
        if args.mode == "bundle":
            big_bundle(work, args)
            return
        url, closed, klondike, took = prepare(work, args.entrants)
        print(f"prepared {args.entrants:,} entries in {took:.1f} s", flush=True)
        server = Server(url, work / "server.log")
        # On loopback the attacker's own CPU is taken from the server's machine; on the
        # internet it is the attacker's. This process (the attacks) runs at nice 10, the
        # server and the player at the default priority.
        os.nice(10)
        try:
            from server.net.app import run_loop

            only = set(args.only.split(",")) if args.only else None
            results = run_loop(run_attacks(server, closed, klondike, args.seconds, only))
        finally:
            server.stop()
        if not args.no_write and only is None:
            command = f"python -m bench.attacks --seconds {args.seconds:g}"
            write_section("attacks", command, report(results, args.seconds, args.entrants))
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- the 100,000-entrant bundle -------------------------------------------------------
def big_bundle(work: Path, args: argparse.Namespace) -> None:
    if args.keep:  # the database made once (its preparation takes minutes) and kept
        work = Path(args.keep)
        work.mkdir(parents=True, exist_ok=True)
    made = work / "prepared.json"
    if made.exists():
        url, closed, klondike, took = json.loads(made.read_text())
    else:
        url, closed, klondike, took = prepare(work, args.entrants)
        made.write_text(json.dumps([url, closed, klondike, took]))
    print(f"prepared {args.entrants:,} entries in {took:.1f} s", flush=True)
    server = Server(url, work / "server.log")
    try:
        from server.net.app import run_loop

        row = run_loop(_fetch_big(server, closed, klondike, work))
    finally:
        server.stop()
    verify_row = verify_peak(work / "bundle.json")
    print(row, verify_row, flush=True)
    if not args.no_write:
        body = _big_report(args.entrants, row, verify_row)
        write_section(
            "attacks_bundle", f"python -m bench.attacks bundle --entrants {args.entrants}", body
        )


async def _fetch_big(server: Server, closed: int, klondike: int, work: Path) -> dict[str, Any]:
    player = Player(server.port, klondike)
    player.task = asyncio.create_task(player.collect())
    out: dict[str, Any] = {}

    async def fetch(gzip: bool, target: Path | None) -> tuple[float, int]:
        t0 = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        extra = "\r\nAccept-Encoding: gzip" if gzip else ""
        writer.write(
            f"GET /tournaments/{closed}/bundle.json HTTP/1.1\r\nHost: x{extra}\r\n\r\n".encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        size = 0
        sink = target.open("wb") if target else None
        while data := await reader.read(1 << 20):
            size += len(data)
            if sink:
                sink.write(data)
        if sink:
            sink.close()
        writer.close()
        return time.perf_counter() - t0, size

    async def first() -> dict[str, Any]:
        return await measured(server, player, 0, lambda: _first_fetch(fetch, work, out))

    first_row = await first()
    again = await measured(server, player, 0, lambda: _again(fetch, out))
    player.stop()
    return {"first": first_row, "again": again, **out}


async def _first_fetch(fetch: Any, work: Path, out: dict[str, Any]) -> str:
    results = await asyncio.gather(
        fetch(False, work / "bundle.json"), *(fetch(False, None) for _ in range(3))
    )
    out["build_s"], out["plain_bytes"] = results[0]
    return f"4 concurrent requests during the build: {results[0][0]:.1f} s"


async def _again(fetch: Any, out: dict[str, Any]) -> str:
    results = await asyncio.gather(*(fetch(i % 2 == 1, None) for i in range(8)))
    out["again_s"] = max(r[0] for r in results)
    out["gzip_bytes"] = results[1][1]
    return f"8 concurrent requests from the cache: {out['again_s']:.2f} s"


def verify_peak(path: Path) -> dict[str, Any]:
    """`samedeal verify` on the file in a process of its own: status, seconds, peak RSS.
    The peak is the process's own VmHWM: its `ru_maxrss` also counts the pages of this
    process that the fork shared with it before the exec (Linux keeps the larger), so a
    bench holding a bundle made the verifier look 390 MiB bigger than it was."""
    code = (
        "import re,sys;from client_cli.verify import run;"
        "s=run(sys.argv[1], open('/dev/null','w'));"
        "print(s, re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())[1])"
    )
    t0 = time.perf_counter()
    done = subprocess.run([PY, "-c", code, str(path)], capture_output=True, text=True)
    took = time.perf_counter() - t0
    status, peak_kib = done.stdout.split()
    return {
        "status": int(status),
        "seconds": took,
        "peak_mib": int(peak_kib) / 1024,
        "size_mib": path.stat().st_size / 2**20,
    }


def _big_report(entrants: int, row: dict[str, Any], v: dict[str, Any]) -> str:
    first, again = row["first"], row["again"]
    return "\n".join(
        [
            f"A closed Gaps tournament of {entrants:,} entries (one to three moves each): its "
            f"bundle, {row['plain_bytes'] / 2**20:,.1f} MiB ({row['gzip_bytes'] / 2**20:,.1f} MiB "
            f"gzipped), fetched by 4 clients at once while it is built, then by 8 from the "
            f"cache (half gzip), a legitimate player acting every {ACT_EVERY_S * 1000:.0f} ms "
            f"meanwhile; then `samedeal verify` on it. Load average "
            f"{os.getloadavg()[0]:.1f} (the machine shared).",
            "",
            "| step | time | server RSS before → peak (MiB) | act p50 / p99 (ms) |",
            "|---|---|---|---|",
            f"| build and send (4 requests, one build) | {row['build_s']:.1f} s | "
            f"{first['rss_before']:.0f} → {first['rss_peak']:.0f} | "
            f"{first['p50_ms']:.1f} / {first['p99_ms']:.1f} |",
            f"| from the cache (8 requests) | {row['again_s']:.2f} s | {again['rss_before']:.0f} "
            f"→ {again['rss_peak']:.0f} | {again['p50_ms']:.1f} / {again['p99_ms']:.1f} |",
            "",
            f"`samedeal verify` on the {v['size_mib']:,.1f} MiB bundle: exit {v['status']}, "
            f"{v['seconds']:.1f} s, peak RSS {v['peak_mib']:.0f} MiB (bound: 300 MB).",
        ]
    )


if __name__ == "__main__":
    main()
