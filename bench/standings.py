"""Live standings under load: what subscribing costs the players and the server.

    .venv/bin/python -m bench.standings [--sizes 1000 10000] [--live 1000] [--seconds 20]
        [--warmup 5] [--rounds 3] [--no-write] [--save runs.json | --render runs.json]

One Gaps tournament (no time limit, open 6 hours) on a fresh SQLite database (the
default backend) per run. A tournament of N entrants has `--live` live players over real
WebSocket connections; the other N - live entries are played beforehand through the
product's own store and competition layer in-process (register, join, 1 to 30 random
legal actions, a third of them then resign) into a template database that the round's
runs of that size copy. Each round deals a different (fixed) deal, the same for every
size. Then the server (`python -m server serve`, through the thin `serve` wrapper below)
and the load generator (`client` below, its own process, on uvloop, its connections on
websockets' Sans-I/O protocol as the server's are: `LeanSocket`) start; every live
player registers, joins, subscribes to the tournament's standings with the default
window (top 10, around 5) or not (the baseline), and acts about once a second (a random
legal Gaps move, a redeal when blocked; a finished game is followed by a new player's
game and subscription). After `--warmup` seconds the run is measured for `--seconds`.
Every configuration (size x subscribed or not) runs once per round, side by side;
figures are medians over `--rounds` rounds.

Measured: act round trips at the client (p50/p99); the standings frames and bytes each
player receives per second (pushes only); the largest standings frame (subscribe replies
included), and after the measured window the widest a client may ask for (top 100,
around 50, and a page of 100); push rounds and frames sent (`Fanout.pushes`,
`Fanout.frames`) and the event loop thread's CPU and wall time inside `Fanout._push`
(and `Standings.windows`, `Table.advance`), read through /metrics, where the `serve`
wrapper adds them (nothing else differs from `python -m server serve`); the CPU time of
the server process with its SQLite writer process, of the load generator, and of
everything else on the machine over the measured window.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

from bench.load import cpu_seconds, stop_process, wait_port
from bench.report import write_section

PY = sys.executable
SELF = [PY, "-m", "bench.standings"]
HOURS = 6
GOAL_P99_RATIO = 2.0
GOAL_KIB_S = 8.0
GOAL_FRAME_KIB = 16.0
MAX_ROUNDS_S = 1 / 0.3  # the most push rounds a second the server makes (MIN_INTERVAL_S)


# -- the template databases (entries played in-process) ----------------------------
async def _prepare(url: str, entries: int, deal: int) -> tuple[int, float]:
    """A tournament and `entries` entries played through the store; (its id, seconds).
    Its secret seed is fixed by `deal` (same deal for every size of a round)."""
    from unittest import mock

    from server import rng
    from server.competition.catalogue import TournamentSpec
    from server.competition.errors import CompetitionError
    from server.competition.service import Competition
    from server.domain.timing import utcnow
    from server.store.repository import Store

    t0 = time.perf_counter()
    store = await Store.open(url)
    try:
        comp = Competition.build(store)
        now = utcnow()
        spec = TournamentSpec(
            "Standings", "gaps", {"redeals": 2}, now + timedelta(hours=HOURS), now
        )
        seed = hashlib.sha256(f"bench.standings deal {deal}".encode()).digest()
        with mock.patch.object(rng, "new_seed", lambda: seed):
            t = await comp.catalogue.create(spec)
        todo = iter(range(entries))

        async def worker() -> None:
            for i in todo:
                rnd = random.Random(deal * 1_000_003 + i)
                player, _ = await comp.players.register(f"s{i}")
                snap = await comp.play.join(player, t.id)
                for _ in range(rnd.randint(1, 30)):
                    if snap.status != "playing":
                        break
                    legal = snap.view["legal"]
                    action = {"kind": "move", **rnd.choice(legal)} if legal else {"kind": "redeal"}
                    try:
                        snap = await comp.play.act(player, t.id, snap.seq + 1, action)
                    except CompetitionError:  # a lost game: no redeal left
                        break
                if snap.status == "playing" and rnd.random() < 1 / 3:
                    await comp.play.act(player, t.id, snap.seq + 1, {"kind": "resign"})

        await asyncio.gather(*(worker() for _ in range(100)))
        return t.id, time.perf_counter() - t0
    finally:
        await store.close()


def template(work: Path, entries: int, deal: int) -> tuple[Path, int, float]:
    """The template database of a tournament with `entries` stored entries."""
    from server.net.app import run_loop

    path = work / f"template-{deal}-{entries}.db"
    tid, took = run_loop(_prepare(f"sqlite+aiosqlite:///{path}", entries, deal))
    return path, tid, took


def fresh_copy(src: Path, work: Path) -> str:
    dst = work / f"run-{uuid.uuid4().hex[:8]}.db"
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", f"{dst}{suffix}")
    return f"sqlite+aiosqlite:///{dst}"


# -- the server (python -m server serve, with Fanout's counters in /metrics) ---------
COUNTERS = (
    "standings_pushes",  # Fanout.pushes: push rounds computed
    "standings_frames",  # Fanout.frames: standings frames sent
    "actions_accepted",
    "bench_push_cpu_seconds",  # loop-thread CPU of the rounds' own work (windows, frames, sends)
    "bench_push_held_seconds",  # wall time the rounds' slices held the loop (Fanout._push)
    "bench_windows_cpu_seconds",  # of which Standings.windows (the rows of every window)
    "bench_advance_cpu_seconds",  # Table.advance (the running clocks, every tick)
)
GAUGES = (  # since the last scrape
    "bench_push_cpu_max_seconds",  # the most CPU one round took
    "bench_push_held_max_seconds",  # the longest one round held the loop (its slices)
    "bench_slice_max_seconds",  # the longest one slice held the loop (Fanout.longest_hold)
)


def serve(argv: list[str]) -> int:
    """`python -m server serve`, with Fanout's counters and the time spent in push rounds
    in /metrics (wrappers around Fanout._push, Standings.windows and Table.advance,
    timed with the event loop thread's CPU clock; nothing else changes)."""
    from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily
    from prometheus_client.registry import Collector

    import server.net.app as app_module
    from server.__main__ import main as server_main
    from server.competition.standings.reading import Standings
    from server.competition.standings.table import Table
    from server.net.fanout import Fanout, _Frames

    sums = dict.fromkeys(COUNTERS[3:], 0.0)
    peaks = dict.fromkeys(GAUGES, 0.0)

    class FanoutCollector(Collector):
        def __init__(self, fanout: Any) -> None:
            self.fanout = fanout

        def collect(self) -> Iterator[Any]:
            yield CounterMetricFamily(
                "samedeal_standings_pushes", "Push rounds.", value=self.fanout.pushes
            )
            yield CounterMetricFamily(
                "samedeal_standings_frames", "Standings frames pushed.", value=self.fanout.frames
            )
            for name, value in sums.items():
                yield CounterMetricFamily(f"samedeal_{name}", name, value=value)
            for name, value in peaks.items():
                yield GaugeMetricFamily(f"samedeal_{name}", name, value=value)
                peaks[name] = 0.0

    push, windows, advance = Fanout._push, Standings.windows, Table.advance
    windows_now = Standings.windows_now
    add, send = _Frames.add, Fanout._send

    async def timed_push(self: Fanout, *args: Any) -> float:
        c0 = sums["bench_push_cpu_seconds"]
        held = 0.0
        try:
            held = await push(self, *args)
            return held
        finally:
            cpu = sums["bench_push_cpu_seconds"] - c0
            sums["bench_push_held_seconds"] += held
            peaks["bench_push_cpu_max_seconds"] = max(peaks["bench_push_cpu_max_seconds"], cpu)
            peaks["bench_push_held_max_seconds"] = max(peaks["bench_push_held_max_seconds"], held)
            peaks["bench_slice_max_seconds"] = max(
                peaks["bench_slice_max_seconds"], self.longest_hold
            )
            self.longest_hold = 0.0

    def cpu_into(*names: str) -> Callable[[float], None]:
        """Adds a measured CPU time to each named sum."""

        def add_cpu(cpu: float) -> None:
            for name in names:
                sums[name] += cpu

        return add_cpu

    def timed(fn: Any, add_cpu: Callable[[float], None]) -> Any:
        """`fn` with its event-loop-thread CPU time added (it must not suspend)."""

        def wrapper(*args: Any) -> Any:
            c0 = time.thread_time()
            try:
                return fn(*args)
            finally:
                add_cpu(time.thread_time() - c0)

        return wrapper

    async def timed_windows(self: Standings, *args: Any) -> Any:
        c0 = time.thread_time()
        try:
            return await windows(self, *args)  # (a round calls it only to load the table)
        finally:
            in_rounds(time.thread_time() - c0)

    in_rounds = cpu_into("bench_windows_cpu_seconds", "bench_push_cpu_seconds")
    timed_windows_now = timed(windows_now, in_rounds)
    timed_add = timed(add, cpu_into("bench_push_cpu_seconds"))
    timed_send = timed(send, cpu_into("bench_push_cpu_seconds"))
    timed_advance = timed(advance, cpu_into("bench_advance_cpu_seconds"))

    Fanout._push = timed_push  # type: ignore[method-assign]
    _Frames.add = timed_add  # type: ignore[method-assign]
    Fanout._send = timed_send  # type: ignore[method-assign]
    Standings.windows = timed_windows  # type: ignore[method-assign]
    Standings.windows_now = timed_windows_now  # type: ignore[method-assign]
    Table.advance = timed_advance  # type: ignore[method-assign]
    built = app_module.build_app

    async def build_app(*args: Any, **kwargs: Any) -> Any:
        app = await built(*args, **kwargs)
        app.metrics.registry.register(FanoutCollector(app.fanout))
        return app

    app_module.build_app = build_app
    return server_main(argv)


class Server:
    def __init__(self, url: str, work: Path) -> None:
        self.log = work / f"server-{uuid.uuid4().hex[:6]}.log"
        self.proc = subprocess.Popen(
            [*SELF, "serve", "--database-url", url, "serve", "--port", "0", "--no-demo"],
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("w"),
            text=True,
        )
        self.port = wait_port(self.proc, self.log)
        self.ws = f"ws://127.0.0.1:{self.port}/ws"

    def counters(self) -> dict[str, float]:
        url = f"http://127.0.0.1:{self.port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as r:
            text = r.read().decode()
        out = {}
        for name in COUNTERS + GAUGES:
            found = re.search(rf"^samedeal_{name}(?:_total)? (\S+)$", text, re.M)
            out[name] = float(found.group(1)) if found else 0.0
        return out

    def stop(self) -> None:
        stop_process(self.proc)


# -- the load generator ----------------------------------------------------------
class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.acts = 0
        self.errors = 0
        self.push_frames = 0
        self.push_bytes = 0
        self.largest = 0
        self.versions: set[int] = set()
        self.games_ended = 0
        self.measuring = False
        self.probing = False  # asking for the widest windows: not counted as largest


class LeanSocket(asyncio.Protocol):
    """A client connection on websockets' Sans-I/O protocol, as the server's transport
    is: each whole text message goes to `on_message` as it is parsed, without the
    library's asyncio connection (its queue and futures per message), so that a
    thousand players' pushes cost the load generator, which shares the machine's two
    cores with the server, as little as they can."""

    def __init__(self, url: str, on_message: Any, on_lost: Any) -> None:
        from websockets.client import ClientProtocol
        from websockets.uri import parse_uri

        self.ws = ClientProtocol(parse_uri(url), max_size=None)
        self.on_message, self.on_lost = on_message, on_lost
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        from websockets.frames import Frame, Opcode
        from websockets.http11 import Response

        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Frame):
                if event.opcode is Opcode.TEXT:  # the server sends whole messages
                    self.on_message(bytes(event.data))
            elif isinstance(event, Response) and not self.opened.done():
                if event.status_code == 101:
                    self.opened.set_result(None)
                else:
                    self.opened.set_exception(ConnectionError(f"HTTP {event.status_code}"))
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed"))
        self.on_lost()

    def send(self, data: bytes) -> None:
        self.ws.send_text(data)
        self._flush()

    def close(self) -> None:
        self.ws.send_close()
        self._flush()

    def _flush(self) -> None:
        for chunk in self.ws.data_to_send():
            if self.transport.is_closing():
                return
            if chunk:
                self.transport.write(chunk)
            else:
                self.transport.write_eof()


class Live:
    """One live player over its own connection; replies and pushes are routed as they
    arrive."""

    def __init__(self, i: int, args: argparse.Namespace, stats: Stats) -> None:
        self.i, self.args, self.stats = i, args, stats
        self.rnd = random.Random(i)
        self.ws: Any = None
        self.waiting: asyncio.Future[tuple[float, dict[str, Any]]] | None = None
        self.games = 0
        self.next_id = 0
        self.state: dict[str, Any] = {}
        self.last_size = 0

    def received(self, raw: bytes) -> None:
        at = time.perf_counter()
        stats = self.stats
        msg = orjson.loads(raw)
        if msg.get("type") == "standings" and not stats.probing:
            stats.largest = max(stats.largest, len(raw))
            if "re" not in msg and stats.measuring:
                stats.push_frames += 1
                stats.push_bytes += len(raw)
                stats.versions.add(msg["version"])
        if "re" in msg and self.waiting is not None and not self.waiting.done():
            self.last_size = len(raw)
            self.waiting.set_result((at, msg))

    def lost(self) -> None:
        if self.waiting is not None and not self.waiting.done():
            self.waiting.set_exception(ConnectionError("closed"))

    async def call(self, msg: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        self.next_id += 1
        msg["id"] = self.next_id
        self.waiting = asyncio.get_running_loop().create_future()
        t0 = time.perf_counter()
        self.ws.send(orjson.dumps(msg))
        at, reply = await self.waiting
        assert reply["re"] == self.next_id, reply
        return at - t0, reply

    async def start_game(self) -> None:
        name = f"{self.args.prefix}-{self.i}-{self.games}"
        self.games += 1
        _, reg = await self.call({"type": "register", "name": name})
        assert reg["type"] == "registered", reg
        tid = self.args.tournament
        _, self.state = await self.call({"type": "join", "tournament": tid})
        assert self.state["type"] == "state", self.state
        if self.args.subscribe:
            _, sub = await self.call({"type": "subscribe", "tournament": tid})
            assert sub["type"] == "standings", sub

    async def connect(self, sem: asyncio.Semaphore) -> None:
        async with sem:
            host, port = self.args.url.split("//")[1].split("/")[0].split(":")
            _, self.ws = await asyncio.get_running_loop().create_connection(
                lambda: LeanSocket(self.args.url, self.received, self.lost), host, int(port)
            )
            await asyncio.wait_for(self.ws.opened, 120)
            await self.start_game()

    async def play(self, start: float, measure: float, end: float) -> None:
        stats, tid = self.stats, self.args.tournament
        next_at = start + self.rnd.random()  # players spread over the second
        while next_at < end:
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if self.state["status"] != "playing":
                stats.games_ended += 1
                await self.start_game()
                continue
            legal = self.state["view"]["legal"]
            action = {"kind": "move", **self.rnd.choice(legal)} if legal else {"kind": "redeal"}
            sent = time.perf_counter()
            took, reply = await self.call(
                {"type": "act", "tournament": tid, "seq": self.state["seq"] + 1, "action": action}
            )
            counted = measure <= sent < end
            if reply["type"] != "state":
                stats.errors += counted
            else:
                self.state = reply
                if counted:
                    stats.acts += 1
                    stats.latencies.append(took)
            next_at += 1.0


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def client(args: argparse.Namespace) -> None:
    stats = Stats()
    players = [Live(args.offset + i, args, stats) for i in range(args.players)]
    t0 = time.perf_counter()
    sem = asyncio.Semaphore(50)
    await asyncio.gather(*(p.connect(sem) for p in players))
    print(json.dumps({"ready": True, "setup_s": time.perf_counter() - t0}), flush=True)
    if args.go:  # one of a fleet: every process starts when the bench says go
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    start = time.perf_counter() + 0.2
    measure = start + args.warmup
    end = measure + args.seconds
    tasks = [asyncio.get_running_loop().create_task(p.play(start, measure, end)) for p in players]
    await asyncio.sleep(measure - time.perf_counter())
    stats.measuring = True
    print(json.dumps({"phase": "measure"}), flush=True)
    await asyncio.sleep(end - time.perf_counter())
    stats.measuring = False
    print(json.dumps({"phase": "done"}), flush=True)
    await asyncio.gather(*tasks)
    widest = 0
    stats.probing = True
    for p in players[:5]:  # the widest frames a client may ask for
        tid = args.tournament
        for ask in (
            {"type": "subscribe", "tournament": tid, "top": 100, "around": 50},
            {"type": "standings_page", "tournament": tid, "offset": 0, "limit": 100},
        ):
            _, reply = await p.call(ask)
            assert reply["type"] == "standings", reply
            widest = max(widest, p.last_size)
    for p in players:
        p.ws.close()
    await asyncio.sleep(0.5)  # the closing handshakes
    lat = stats.latencies
    print(
        json.dumps(
            {
                "players": args.players,
                "subscribed": args.subscribe,
                "seconds": args.seconds,
                "acts": stats.acts,
                "errors": stats.errors,
                "p50_ms": 1000 * pct(lat, 0.5),
                "p99_ms": 1000 * pct(lat, 0.99),
                "push_frames": stats.push_frames,
                "push_bytes": stats.push_bytes,
                "largest": stats.largest,
                "widest": widest,
                "versions": len(stats.versions),
                "games_ended": stats.games_ended,
                **({"latencies": lat} if args.go else {}),
            }
        ),
        flush=True,
    )


def client_main(argv: list[str]) -> None:
    from server.net.app import run_loop

    ap = argparse.ArgumentParser(prog="bench.standings client")
    ap.add_argument("--url", required=True)
    ap.add_argument("--tournament", type=int, required=True)
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--warmup", type=float, default=5)
    ap.add_argument("--subscribe", action="store_true")
    ap.add_argument("--prefix", default="live")
    ap.add_argument("--offset", type=int, default=0, help="the first player's number")
    ap.add_argument("--go", action="store_true", help="start on a line on stdin (a fleet)")
    run_loop(client(ap.parse_args(argv)))


# -- one run -----------------------------------------------------------------------
def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def one_run(
    db: Path, tid: int, entrants: int, subscribe: bool, args: argparse.Namespace, work: Path
) -> dict[str, Any]:
    server = Server(fresh_copy(db, work), work)
    gens: list[subprocess.Popen[str]] = []
    load = os.getloadavg()[0]
    fleet = args.procs > 1
    try:
        for k in range(args.procs):
            share = args.live // args.procs + (k < args.live % args.procs)
            gens.append(
                subprocess.Popen(
                    [
                        *SELF,
                        "client",
                        *("--url", server.ws, "--tournament", str(tid), "--players", str(share)),
                        *("--seconds", str(args.seconds), "--warmup", str(args.warmup)),
                        *("--prefix", f"l{uuid.uuid4().hex[:4]}", "--offset", str(k * 100_000)),
                        *(["--subscribe"] if subscribe else []),
                        *(["--go"] if fleet else []),
                    ],
                    stdin=subprocess.PIPE if fleet else subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=(work / f"client-{uuid.uuid4().hex[:6]}.log").open("w"),
                    text=True,
                )
            )
        marks: dict[str, Any] = {"results": []}
        for gen in gens:  # every process connected its players
            assert gen.stdout is not None
            ready = json.loads(gen.stdout.readline() or "{}")
            if not ready.get("ready"):
                raise RuntimeError(f"load generator failed (see {work})")
            marks["setup_s"] = max(marks.get("setup_s", 0.0), ready["setup_s"])
        for gen in gens if fleet else ():
            assert gen.stdin is not None
            gen.stdin.write("go\n")
            gen.stdin.flush()
        for i, gen in enumerate(gens):  # the first process's phases time the window
            assert gen.stdout is not None
            for line in gen.stdout:
                msg = json.loads(line)
                if msg.get("phase") in ("measure", "done") and i == 0:
                    marks[msg["phase"]] = (
                        time.perf_counter(),
                        cpu_seconds(server.proc.pid),
                        sum(cpu_seconds(g.pid) for g in gens),
                        machine_busy(),
                        server.counters(),
                    )
                elif "p99_ms" in msg:
                    marks["results"].append(msg)
        if any(gen.wait() != 0 for gen in gens) or len(marks["results"]) != len(gens):
            raise RuntimeError(f"load generator failed (see {work})")
    finally:
        for gen in gens:
            if gen.poll() is None:
                gen.kill()
        server.stop()
    r = merged(marks["results"]) if fleet else marks["results"][0]
    (t0, s0, c0, m0, k0), (t1, s1, c1, m1, k1) = marks["measure"], marks["done"]
    wall = t1 - t0
    d = {name: k1[name] - k0[name] for name in COUNTERS}
    pushes = max(1.0, d["standings_pushes"])
    players, secs = args.live, r["seconds"]
    cores = os.cpu_count() or 1
    busy = (m1[0] - m0[0]) / max(1, m1[1] - m0[1])  # share of all the machine's cores
    return {
        **r,
        "players": args.live,
        "load": load,
        "entrants": entrants,
        "setup_s": marks["setup_s"],
        "wall": wall,
        "server_cpu": (s1 - s0) / wall,  # cores: the server process and its writer
        "client_cpu": (c1 - c0) / wall,
        "others_cpu": cores * busy - (s1 - s0 + c1 - c0) / wall,  # everything else
        "server_cpu_s": s1 - s0,
        "accepted": d["actions_accepted"],
        "pushes": d["standings_pushes"],
        "pushes_per_s": d["standings_pushes"] / wall,
        "frames_sent": d["standings_frames"],
        "frames_per_round": d["standings_frames"] / pushes,
        "push_cpu_ms": 1e3 * d["bench_push_cpu_seconds"] / pushes,
        "push_held_ms": 1e3 * d["bench_push_held_seconds"] / pushes,
        "windows_cpu_ms": 1e3 * d["bench_windows_cpu_seconds"] / pushes,
        "push_cpu_max_ms": 1e3 * k1["bench_push_cpu_max_seconds"],
        "push_held_max_ms": 1e3 * k1["bench_push_held_max_seconds"],
        "slice_max_ms": 1e3 * k1["bench_slice_max_seconds"],
        "push_cpu_cores": d["bench_push_cpu_seconds"] / wall,
        "advance_cpu_ms_s": 1e3 * d["bench_advance_cpu_seconds"] / wall,
        "frame_us": 1e6 * d["bench_push_cpu_seconds"] / max(1.0, d["standings_frames"]),
        "kib_s": r["push_bytes"] / 1024 / players / secs,
        "frames_s": r["push_frames"] / players / secs,
        "acts_s": r["acts"] / secs,
        "mean_frame": r["push_bytes"] / r["push_frames"] if r["push_frames"] else 0.0,
    }


def merged(results: list[dict[str, Any]]) -> dict[str, Any]:
    """A fleet's figures: its processes' counts summed, their act latencies pooled."""
    lat = [x for r in results for x in r.pop("latencies")]
    out = dict(results[0])
    for key in ("acts", "errors", "push_frames", "push_bytes", "games_ended"):
        out[key] = sum(r[key] for r in results)
    for key in ("largest", "widest", "versions"):
        out[key] = max(r[key] for r in results)
    out["p50_ms"], out["p99_ms"] = 1000 * pct(lat, 0.5), 1000 * pct(lat, 0.99)
    return out


# -- the whole bench ---------------------------------------------------------------
def med(rows: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(r[key] for r in rows))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        sys.exit(serve(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "client":
        client_main(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    ap.add_argument("--live", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--warmup", type=float, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--procs",
        type=int,
        default=1,
        help="client processes sharing the live players (a fleet: each its own event loop)",
    )
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--save", type=Path, help="write every run's figures to this JSON file")
    ap.add_argument("--render", type=Path, help="report the runs saved in this file only")
    args = ap.parse_args()
    if args.render is not None:
        saved = json.loads(args.render.read_text())
        loaded: dict[tuple[int, bool], list[dict[str, Any]]] = {}
        for r in saved["runs"]:
            loaded.setdefault((r["entrants"], r["subscribed"]), []).append(r)
        for key, value in saved["args"].items():
            setattr(args, key, value)
        finish(loaded, {int(k): v for k, v in saved["templates"].items()}, args)
        return
    work = Path(tempfile.mkdtemp(prefix="samedeal-standings-"))
    templates: dict[int, list[float]] = {size: [] for size in args.sizes}
    runs: dict[tuple[int, bool], list[dict[str, Any]]] = {}
    try:
        for rnd in range(args.rounds):
            for size in args.sizes:
                stored = max(0, size - args.live)
                db, tid, took = template(work, stored, rnd + 1)
                templates[size].append(took)
                print(
                    f"round {rnd + 1}, {size} entrants: {stored} entries played in-process "
                    f"in {took:.1f} s",
                    flush=True,
                )
                for subscribe in (False, True):
                    r = one_run(db, tid, size, subscribe, args, work)
                    runs.setdefault((size, subscribe), []).append(r)
                    print(
                        f"round {rnd + 1}, {size} entrants, "
                        f"{'subscribed' if subscribe else 'unsubscribed'}: "
                        f"{r['acts_s']:.0f} acts/s, p50 {r['p50_ms']:.1f} ms, "
                        f"p99 {r['p99_ms']:.1f} ms, {r['kib_s']:.2f} KiB/s and "
                        f"{r['frames_s']:.2f} frames/s per player, largest {r['largest']} B, "
                        f"{r['pushes_per_s']:.2f} pushes/s ({r['frames_sent']:.0f} frames sent, "
                        f"{r['push_frames']} received, {r['versions']} versions), server "
                        f"{100 * r['server_cpu']:.0f}% of a core, load generator "
                        f"{100 * r['client_cpu']:.0f}%, other processes {r['others_cpu']:.2f} "
                        f"cores, {r['errors']} errors, {r['games_ended']} games ended, "
                        f"setup {r['setup_s']:.1f} s",
                        flush=True,
                    )
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{db}{suffix}").unlink(missing_ok=True)
    finally:
        if os.environ.get("SAMEDEAL_KEEP_BENCH") is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.save is not None:
        names = ("sizes", "live", "seconds", "warmup", "rounds", "procs")
        kept = {k: getattr(args, k) for k in names}
        everything = [r for rows in runs.values() for r in rows]
        args.save.write_text(
            json.dumps({"args": kept, "templates": templates, "runs": everything}, indent=1)
        )
    finish(runs, templates, args)


def finish(
    runs: dict[tuple[int, bool], list[dict[str, Any]]],
    templates: dict[int, list[float]],
    args: argparse.Namespace,
) -> None:
    body = report(runs, templates, args)
    print(body)
    if not args.no_write:
        if args.procs > 1:  # (its own section: the one-process bench's stays)
            sizes = " ".join(map(str, args.sizes))
            command = f"python -m bench.standings --procs {args.procs} --sizes {sizes}"
            write_section("standings_fleet", command, body)
        else:
            write_section("standings", "python -m bench.standings", body)


def report(
    runs: dict[tuple[int, bool], list[dict[str, Any]]],
    templates: dict[int, list[float]],
    args: argparse.Namespace,
) -> str:
    others = statistics.median(r["others_cpu"] for rows in runs.values() for r in rows)
    loads = [r.get("load", float("nan")) for rows in runs.values() for r in rows]
    procs = getattr(args, "procs", 1)
    fleet = (
        f" The live players are a fleet: {procs} client processes of about "
        f"{args.live // procs:,} connections each, every connection reading its pushes; "
        "latencies pooled over the processes."
        if procs > 1
        else ""
    )
    lines = [
        f"One Gaps tournament; {args.live:,} live players over WebSocket, each acting about "
        "once a second, subscribed to the default window (top 10, around 5) or not; the "
        "other entries played through the store before the server starts. Fresh SQLite "
        f"database per run (the default backend). Medians of {args.rounds} rounds (a "
        f"different deal each) of {args.seconds:g} s measured after {args.warmup:g} s of "
        f"warm-up.{fleet} Load average (1 min) at the start of each run: "
        + ", ".join(f"{x:.1f}" for x in loads)
        + ".",
        "",
        "| entrants | subscribed | acts/s | act p50 ms | act p99 ms | p99 vs unsubscribed "
        "| standings KiB/s per player | frames/s per player | mean frame B | largest frame B "
        "| push rounds/s | server CPU (cores) | load generator CPU (cores) "
        "| other processes (cores) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    pushes = [
        "",
        "Push rounds (subscribed runs; the event loop's thread):",
        "",
        "| entrants | frames per round | loop CPU per round ms (max) | of which windows ms "
        "| loop held per round ms (max) | longest slice ms | CPU per frame µs "
        f"| KiB/s per player at {MAX_ROUNDS_S:.1f} rounds/s | Table.advance ms/s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    verdicts, wholes = [], []
    for size in args.sizes:
        base, sub = runs[(size, False)], runs[(size, True)]
        ratio = med(sub, "p99_ms") / med(base, "p99_ms")
        for label, rows in (("no", base), ("yes", sub)):
            lines.append(
                f"| {size:,} | {label} | {med(rows, 'acts_s'):,.0f} | {med(rows, 'p50_ms'):.1f} "
                f"| {med(rows, 'p99_ms'):.1f} | "
                + (f"{ratio:.2f}×" if rows is sub else "—")
                + f" | {med(rows, 'kib_s'):.2f} | {med(rows, 'frames_s'):.2f} "
                f"| {med(rows, 'mean_frame'):,.0f} | {max(r['largest'] for r in rows):,} "
                f"| {med(rows, 'pushes_per_s'):.2f} | {med(rows, 'server_cpu'):.2f} "
                f"| {med(rows, 'client_cpu'):.2f} | {med(rows, 'others_cpu'):.2f} |"
            )
        # The whole server's CPU beyond what the same acts cost unsubscribed, per round.
        whole = statistics.median(
            1e3
            * (s["server_cpu_s"] - s["accepted"] * b["server_cpu_s"] / max(1.0, b["accepted"]))
            / max(1.0, s["pushes"])
            for b, s in zip(base, sub, strict=True)
        )
        full_rate = statistics.median(
            MAX_ROUNDS_S * r["mean_frame"] * r["frames_per_round"] / args.live / 1024 for r in sub
        )
        pushes.append(
            f"| {size:,} | {med(sub, 'frames_per_round'):,.0f} "
            f"| {med(sub, 'push_cpu_ms'):.1f} ({max(r['push_cpu_max_ms'] for r in sub):.0f}) "
            f"| {med(sub, 'windows_cpu_ms'):.1f} "
            f"| {med(sub, 'push_held_ms'):.1f} ({max(r['push_held_max_ms'] for r in sub):.0f}) "
            f"| {max(r['slice_max_ms'] for r in sub):.1f} "
            f"| {med(sub, 'frame_us'):.0f} | {full_rate:.2f} "
            f"| {med(sub, 'advance_cpu_ms_s'):.1f} |"
        )
        wholes.append(f"{whole:.1f} ms ({size:,} entrants)")
        largest = max(r["largest"] for r in sub) / 1024
        widest = max(r["widest"] for r in sub) / 1024
        kib = med(sub, "kib_s")
        verdicts.append(
            f"- {size:,} entrants: act p99 {ratio:.2f}× the unsubscribed p99 "
            f"({'met' if ratio <= GOAL_P99_RATIO else 'MISSED'}, goal ≤ {GOAL_P99_RATIO:g}×); "
            f"{kib:.2f} KiB/s of standings per player at the {med(sub, 'pushes_per_s'):.1f} "
            f"push rounds/s the server managed, {full_rate:.2f} KiB/s at the most it ever "
            f"makes, {MAX_ROUNDS_S:.1f} "
            f"({'met' if max(kib, full_rate) <= GOAL_KIB_S else 'MISSED'}, goal ≤ "
            f"{GOAL_KIB_S:g}); largest frame {largest:.1f} KiB with the default window "
            f"({'met' if largest <= GOAL_FRAME_KIB else 'MISSED'}, goal ≤ {GOAL_FRAME_KIB:g} "
            f"KiB), {widest:.1f} KiB with the widest a client may ask for (top 100, around "
            f"50; or a page of 100) "
            + (
                "(met)"
                if widest <= GOAL_FRAME_KIB
                else "(over 16 KiB: 201 rows of about 100 bytes cannot fit it; bounded "
                "whatever the number of entrants)"
            )
        )
    prep = "; ".join(
        f"{size - args.live:,} entries in {statistics.median(templates[size]):.0f} s"
        for size in args.sizes
        if size > args.live
    )
    lines += pushes
    if others > 0.5:
        lines += [
            "",
            f"Other engineers' work used a median {others:.2f} of the machine's 2 cores "
            "during the measured windows: the server got what was left, so the latencies "
            "and the push rate are those of a CPU-starved server. The CPU per push round "
            "(the loop's own CPU clock) does not depend on that and is the figure to go by.",
        ]
    lines += ["", "Goals:", *verdicts, ""]
    lines += [
        "- act latency: at the client, from sending `act` to its reply, for acts sent in the "
        "measured window; the load generator is one process on uvloop, its connections on "
        "websockets' Sans-I/O protocol (as the server's transport), so that reading a "
        "thousand players' pushes delays their replies as little as it can",
        "- standings bytes: payload of the pushed `standings` frames each player receives "
        "(no compression is negotiated); the largest frame includes the subscribe replies; "
        "the widest window is asked for by five live players after the measured window",
        "- push rounds: `Fanout.pushes` and `Fanout.frames`; the loop thread's CPU in a "
        "round's own work (`Standings.windows_now`, `_Frames.add`, `Fanout._send`, which "
        "never suspend); the wall time its slices held the loop (what `Fanout._push` returns: "
        "between two slices the loop runs the acts waiting) and the longest slice "
        "(`Fanout.longest_hold`), read through /metrics from a wrapper "
        "(`python -m bench.standings serve`, otherwise `python -m server serve`); "
        "the whole server (process and SQLite writer) CPU of a subscribed run less what "
        "the same number of acts cost unsubscribed, over its push rounds: "
        f"{', '.join(wholes)}; below the loop's own CPU per round when the server is "
        "CPU-starved, as acts then batch up and cost less each, so not the figure to go by",
        "- CPU in cores: CPU seconds per wall second over the measured window; the machine "
        "has 2 cores shared by the server, its SQLite writer, the load generator and other "
        f"engineers' work (a median {others:.2f} cores during the measured windows)",
        f"- stored entries played in-process before each size's runs ({prep}); 1 to 30 "
        "random legal actions each, a third then resigned, the rest still playing",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
