"""Load generator: N players over real WebSocket connections, in its own process.

    python -m bench.load_client --url ws://... --tournament 1 --players 200 --seconds 10 \
        [--mode game|echo|idle] [--prefix load]

game: each player registers, joins, then plays random legal Gaps moves as fast as the
server answers (a finished game is followed by a new player's game). echo: the same
request loop against the echo server. idle: connect and authenticate, then hold the
connections (--seconds) so the server's memory can be read. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect


async def call(ws: ClientConnection, msg: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(msg))
    return json.loads(await ws.recv())


class Player:
    def __init__(self, i: int, args: argparse.Namespace) -> None:
        self.i, self.args = i, args
        self.rnd = random.Random(i)
        self.latencies: list[float] = []
        self.accepted = 0
        self.errors = 0
        self.games = 0
        self.bytes = 0
        self.replies = 0

    async def start_game(self, ws: ClientConnection) -> dict[str, Any]:
        name = f"{self.args.prefix}-{self.i}-{self.games}"
        self.games += 1
        reg = await call(ws, {"type": "register", "name": name, "id": 1})
        assert reg["type"] == "registered", reg
        state = await call(ws, {"type": "join", "tournament": self.args.tournament, "id": 2})
        assert state["type"] == "state", state
        return state

    async def run(
        self, sem: asyncio.Semaphore, ready: asyncio.Barrier, stop_at: list[float]
    ) -> None:
        async with sem:  # connect and register a bounded number at a time
            ws = await connect(self.args.url, max_size=None, open_timeout=120)
            state: dict[str, Any] = {}
            if self.args.mode in ("game", "idle"):
                state = await self.start_game(ws)
        try:
            await ready.wait()
            if self.args.mode == "idle":
                await asyncio.sleep(self.args.seconds)
                return
            await self.loop(ws, state, stop_at)
        finally:
            await ws.close()

    async def loop(self, ws: ClientConnection, state: dict[str, Any], stop_at: list[float]) -> None:
        while time.perf_counter() < stop_at[0]:
            if self.args.mode == "game" and state.get("status") != "playing":
                state = await self.start_game(ws)
                continue
            msg = self.next_message(state)
            t0 = time.perf_counter()
            await ws.send(json.dumps(msg))
            raw = await ws.recv()
            self.latencies.append(time.perf_counter() - t0)
            self.bytes += len(raw)
            self.replies += 1
            reply = json.loads(raw)
            if reply["type"] == "error":
                self.errors += 1
                continue
            self.accepted += 1
            if self.args.mode == "game":
                state = reply

    def next_message(self, state: dict[str, Any]) -> dict[str, Any]:
        if self.args.mode == "echo":
            return {
                "type": "act",
                "tournament": 1,
                "seq": self.accepted + 1,
                "id": 9,
                "action": {"kind": "move", "card": "6H", "to": [0, 5]},
            }
        view = state["view"]
        action = (
            {"kind": "move", **self.rnd.choice(view["legal"])}
            if view["legal"]
            else {"kind": "redeal"}
        )
        return {
            "type": "act",
            "tournament": self.args.tournament,
            "seq": state["seq"] + 1,
            "action": action,
            "id": 9,
        }


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--tournament", type=int, default=1)
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--mode", choices=["game", "echo", "idle"], default="game")
    ap.add_argument("--prefix", default="load")
    args = ap.parse_args()
    players = [Player(i, args) for i in range(args.players)]
    ready = asyncio.Barrier(args.players + 1)
    stop_at = [float("inf")]
    sem = asyncio.Semaphore(100)
    tasks = [asyncio.get_running_loop().create_task(p.run(sem, ready, stop_at)) for p in players]
    await ready.wait()
    if args.mode == "idle":
        print(json.dumps({"ready": True}), flush=True)
    t0 = time.perf_counter()
    stop_at[0] = t0 + args.seconds
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    lat = [x for p in players for x in p.latencies]
    replies = sum(p.replies for p in players)
    print(
        json.dumps(
            {
                "mode": args.mode,
                "players": args.players,
                "seconds": elapsed,
                "accepted": sum(p.accepted for p in players),
                "errors": sum(p.errors for p in players),
                "per_s": sum(p.accepted for p in players) / elapsed,
                "p50_ms": 1000 * pct(lat, 0.5),
                "p95_ms": 1000 * pct(lat, 0.95),
                "p99_ms": 1000 * pct(lat, 0.99),
                "reply_bytes": (sum(p.bytes for p in players) / replies) if replies else 0,
                "games": sum(p.games for p in players),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    asyncio.run(main())
