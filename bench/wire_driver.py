"""The server's event loop alone, driven through its real WebSocket connection object
over an in-memory socket: N players register, join and play random legal Gaps moves
(as `bench.load_client`'s game mode) against a real SQLite file, every action committed
before its reply. The client side is a few lines (frames masked with a zero key, replies
read by length), so nearly all the work counted is the server's. Used by
`bench.instructions`, which counts the instructions this process runs.

    .venv/bin/python -m bench.wire_driver ACTIONS [--players 200]

Runs against the checkout it is started in (another build's worktree works too: the
server's module names of earlier builds are tried).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import random
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import orjson

from server import rng
from server.competition.catalogue import TournamentSpec
from server.net import app as app_module
from server.net import session as session_module
from server.net.transport import WsServer

try:
    from server.net.connection import WsConnection
except ImportError:  # builds before net/connection.py
    from server.net.transport import WsConnection  # type: ignore[attr-defined,no-redef]


class MemorySocket:
    """The transport a connection writes to: the replies gather in `received`."""

    def __init__(self, ip: str) -> None:
        self.ip = ip
        self.received = bytearray()
        self.closing = False
        self.waiter: asyncio.Future[None] | None = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return (self.ip, 50000) if name == "peername" else default

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def is_closing(self) -> bool:
        return self.closing

    def write(self, data: bytes) -> None:
        self.received += data
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def write_eof(self) -> None:
        pass

    def close(self) -> None:
        self.closing = True

    abort = close

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    async def more(self) -> None:
        self.waiter = asyncio.get_running_loop().create_future()
        await self.waiter

    async def handshake(self) -> None:
        while b"\r\n\r\n" not in self.received:
            await self.more()
        del self.received[: self.received.index(b"\r\n\r\n") + 4]

    async def message(self) -> dict[str, Any]:
        """The next server frame (unmasked text, RFC 6455), parsed."""
        while True:
            b = self.received
            if len(b) >= 2:
                size, start = b[1] & 0x7F, 2
                if size == 126:
                    size, start = int.from_bytes(b[2:4], "big"), 4
                elif size == 127:
                    size, start = int.from_bytes(b[2:10], "big"), 10
                if len(b) >= start + size:
                    data = bytes(b[start : start + size])
                    del b[: start + size]
                    reply: dict[str, Any] = orjson.loads(data)
                    return reply
            await self.more()


def client_frame(message: dict[str, Any]) -> bytes:
    """A client's text frame, masked with a zero key (the payload as it is)."""
    data = orjson.dumps(message)
    n = len(data)
    head = bytes([0x81, 0x80 | n]) if n < 126 else bytes([0x81, 0xFE]) + n.to_bytes(2, "big")
    return head + b"\0\0\0\0" + data


async def player(server: WsServer, tid: int, i: int, budget: list[int]) -> None:
    conn = WsConnection(server)
    sock = MemorySocket(f"10.{i // 60000}.{i // 250 % 240}.{i % 250 + 1}")
    conn.connection_made(sock)
    key = base64.b64encode(os.urandom(16)).decode()
    conn.data_received(
        (
            "GET /ws HTTP/1.1\r\nHost: bench\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    await sock.handshake()
    rnd = random.Random(i)
    games, state = 0, {"status": "over"}
    while budget[0] > 0:
        if state["status"] != "playing":
            games += 1
            conn.data_received(client_frame({"type": "register", "name": f"w{i}x{games}"}))
            await sock.message()
            conn.data_received(client_frame({"type": "join", "tournament": tid}))
            state = await sock.message()
            continue
        legal = state["view"]["legal"]
        action = {"kind": "move", **rnd.choice(legal)} if legal else {"kind": "redeal"}
        act = {"type": "act", "tournament": tid, "seq": state["seq"] + 1, "action": action}
        conn.data_received(client_frame({**act, "id": 9}))
        reply = await sock.message()
        assert reply["type"] == "state", reply
        budget[0] -= 1
        state = reply


async def drive(actions: int, players: int) -> float:
    """CPU µs of the loop's thread per accepted action (start-up excluded). The deals
    are the same every run (a fixed seed), so that counts compare like with like."""
    work = Path(tempfile.mkdtemp(prefix="samedeal-wire-"))
    app = await app_module.build_app(f"sqlite+aiosqlite:///{work / 'wire.db'}", demo=False)
    now = app.competition.catalogue.now()
    spec = TournamentSpec("Wire", "gaps", {"redeals": 2}, now + timedelta(hours=3), now)
    with mock.patch.object(rng, "new_seed", lambda: bytes(32)):  # the same deals every run
        t = await app.competition.catalogue.create(spec)
    app_module.tune_gc()
    session_module.RATE_PER_S = session_module.RATE_BURST = 1e9  # (a few players, fast)
    if hasattr(app_module, "transport_limits"):
        limits = app_module.transport_limits(app_module.ServeLimits.none())
    else:  # builds before ServeLimits
        limits = app_module.LIMITS
    server = WsServer(app, limits)
    budget = [actions]
    start = time.thread_time()
    await asyncio.gather(*(player(server, t.id, i, budget) for i in range(players)))
    used = time.thread_time() - start
    await app.store.close()
    return 1e6 * used / actions


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("actions", type=int)
    ap.add_argument("--players", type=int, default=200)
    args = ap.parse_args()
    print(f"{app_module.run_loop(drive(args.actions, args.players)):.1f} µs per action", flush=True)


if __name__ == "__main__":
    main()
