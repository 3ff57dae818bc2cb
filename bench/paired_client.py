"""Load generator for builds side by side: N players on each of several servers, loaded
in turn, a short window each, so that the machine's drift hits them alike.

    python -m bench.paired_client --url ws://A --tournament 1 --pid 123 \
        --url ws://B --tournament 1 --pid 456 [--players 200] [--window 1.5] [--windows 20]

Every server gets its own N players (each registered and joined, as `bench.load_client`'s
game mode: random legal Gaps moves as fast as the server answers, a finished game
followed by a new player's). Then, window after window, the servers are loaded one at a
time for `--window` seconds while the others idle, in an order that alternates (A B, B A,
...) so that neither always goes first. A window counts the actions accepted within it,
then lets the requests in flight finish before the next server's window starts. The
server's CPU time (its writer process included) is read from /proc around each window.
Prints one JSON line: per server, the accepted actions/s and CPU µs per action of each
window.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from bench.load import cpu_seconds

REPLY_TIMEOUT_S = 60.0  # a server that stops answering fails the bench, not hangs it


async def call(ws: ClientConnection, msg: dict[str, Any]) -> dict[str, Any]:
    async with asyncio.timeout(REPLY_TIMEOUT_S):
        await ws.send(json.dumps(msg))
        reply: dict[str, Any] = json.loads(await ws.recv())
    return reply


class Player:
    """One player on one server: its connection and its game as last answered."""

    def __init__(self, server: int, i: int, tournament: int, prefix: str) -> None:
        self.name = f"{prefix}-{server}-{i}"
        self.rnd = random.Random(i)
        self.tournament = tournament
        self.games = 0
        self.ws: ClientConnection | None = None
        self.state: dict[str, Any] = {}

    async def start(self, url: str) -> None:
        self.ws = await connect(url, max_size=None, open_timeout=120)
        await self.new_game()

    async def new_game(self) -> None:
        assert self.ws is not None
        self.games += 1
        name = f"{self.name}-{self.games}"
        reg = await call(self.ws, {"type": "register", "name": name, "id": 1})
        assert reg["type"] == "registered", reg
        self.state = await call(self.ws, {"type": "join", "tournament": self.tournament, "id": 2})
        assert self.state["type"] == "state", self.state

    async def play_until(self, end: float) -> int:
        """Actions accepted before `end` (perf_counter); the one in flight at `end` ends."""
        assert self.ws is not None
        accepted = 0
        while time.perf_counter() < end:
            if self.state.get("status") != "playing":
                await self.new_game()
                continue
            view = self.state["view"]
            action = (
                {"kind": "move", **self.rnd.choice(view["legal"])}
                if view["legal"]
                else {"kind": "redeal"}
            )
            msg = {
                "type": "act",
                "tournament": self.tournament,
                "seq": self.state["seq"] + 1,
                "action": action,
                "id": 9,
            }
            reply = await call(self.ws, msg)
            if reply["type"] == "state":
                self.state = reply
                if time.perf_counter() <= end:
                    accepted += 1
        return accepted


async def window(players: list[Player], pid: int, seconds: float) -> tuple[float, float]:
    """(accepted actions/s, server CPU µs per accepted action) of one window."""
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    counts = await asyncio.gather(*(p.play_until(t0 + seconds) for p in players))
    cpu1 = cpu_seconds(pid)
    accepted = max(1, sum(counts))
    return accepted / seconds, 1e6 * (cpu1 - cpu0) / accepted


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", action="append", required=True)
    ap.add_argument("--tournament", type=int, action="append", required=True)
    ap.add_argument("--pid", type=int, action="append", required=True)
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--window", type=float, default=1.5)
    ap.add_argument("--windows", type=int, default=20)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--prefix", default="paired")
    args = ap.parse_args()
    servers = list(zip(args.url, args.tournament, args.pid, strict=True))
    fields = []
    for s, (url, tournament, _) in enumerate(servers):
        players = [Player(s, i, tournament, args.prefix) for i in range(args.players)]
        for start in range(0, len(players), 50):  # connect and register 50 at a time
            await asyncio.gather(*(p.start(url) for p in players[start : start + 50]))
        fields.append(players)
    for s, (_, _, pid) in enumerate(servers):  # warm each server up once
        await window(fields[s], pid, args.warmup)
    results: list[list[tuple[float, float]]] = [[] for _ in servers]
    for w in range(args.windows):
        order = range(len(servers)) if w % 2 == 0 else reversed(range(len(servers)))
        for s in order:
            results[s].append(await window(fields[s], servers[s][2], args.window))
    for players in fields:
        await asyncio.gather(*(p.ws.close() for p in players if p.ws is not None))
    print(json.dumps({"windows": results}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
