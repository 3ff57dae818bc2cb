"""A real server in the test's event loop, a controllable clock, and a protocol client."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect

from server.domain import timing
from server.net.app import LIMITS, App, build_app, clock, shutdown
from server.net.transport import WsServer

if TYPE_CHECKING:
    from tests.support.driven import DrivenScheduler

T0 = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)


class Clock:
    """The server's only clock, moved by the test."""

    def __init__(self, start: datetime = T0) -> None:
        self.t = start

    def __call__(self) -> datetime:
        return timing.now_ms_precision(self.t)

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)


@dataclass
class Running:
    app: App
    port: int
    clock: Clock
    frames: list[str] = field(default_factory=list)  # every frame any test client received

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def tick(self) -> None:
        await self.app.competition.lifecycle.tick()

    @asynccontextmanager
    async def client(self) -> AsyncIterator[Client]:
        async with connect(self.ws_url, max_size=None) as ws:
            yield Client(ws, self.frames)

    async def admin(self, name: str = "op") -> Client:
        """A connected, authenticated admin (closed by the test's loop end)."""
        c = Client(await connect(self.ws_url, max_size=None), self.frames)
        reg = await c.ok(type="register", name=name)
        await self.app.store.set_admin(name)
        await c.ok(type="auth", token=reg["token"])
        return c


@asynccontextmanager
async def running_server(
    url: str,
    clk: Clock | None = None,
    tick: bool = False,
    scheduler: DrivenScheduler | None = None,
) -> AsyncIterator[Running]:
    """Serve on a free port; the lifecycle's clock task runs only when `tick` is set (on
    real time) or a `scheduler` is given (on the time the test drives through it)."""
    clk = clk or Clock()
    app = await build_app(url, clk, demo=False)
    server = WsServer(app, LIMITS)
    port = await server.listen("127.0.0.1", 0)
    task = clock(app, scheduler) if tick or scheduler is not None else asyncio.sleep(0)
    ticker = asyncio.get_running_loop().create_task(task)
    try:
        yield Running(app, port, clk)
    finally:
        await shutdown(server, app, ticker)


class Client:
    """Request/reply over one connection; pushes (no `re`) are kept aside."""

    _ids = itertools.count(1)

    def __init__(self, ws: ClientConnection, sink: list[str]) -> None:
        self.ws = ws
        self.sink = sink
        self.received: list[str] = []  # this connection's frames
        self.pushes: list[dict[str, Any]] = []

    async def recv(self, timeout: float = 30) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        self.sink.append(raw)
        self.received.append(raw)
        return json.loads(raw)

    async def send_raw(self, frame: str | bytes) -> dict[str, Any]:
        await self.ws.send(frame)
        return await self.recv()

    async def req(self, **msg: Any) -> dict[str, Any]:
        msg.setdefault("id", next(self._ids))
        await self.ws.send(json.dumps(msg))
        while True:
            reply = await self.recv()
            if reply.get("re") == msg["id"] and "re" in reply:
                return reply
            self.pushes.append(reply)

    async def ok(self, **msg: Any) -> dict[str, Any]:
        reply = await self.req(**msg)
        assert reply["type"] != "error", reply
        return reply

    async def err(self, code: str, **msg: Any) -> dict[str, Any]:
        reply = await self.req(**msg)
        assert reply["type"] == "error" and reply["code"] == code, reply
        return reply

    async def push(self, kind: str, timeout: float = 30) -> dict[str, Any]:
        """The next pushed message of `kind` (already received or arriving)."""
        for i, p in enumerate(self.pushes):
            if p["type"] == kind:
                return self.pushes.pop(i)
        while True:
            m = await self.recv(timeout)
            if m["type"] == kind and "re" not in m:
                return m
            self.pushes.append(m)

    async def close(self) -> None:
        await self.ws.close()


def create_msg(**over):
    msg = {
        "type": "create_tournament",
        "name": "Friday Gaps",
        "game": "gaps",
        "options": {"redeals": 2},
        "starts_at": T0.isoformat(),
        "ends_at": (T0 + timedelta(hours=1)).isoformat(),
        "time_limit_s": 900,
    }
    msg.update(over)
    return msg


def http_get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


# -- several nodes (real server processes) ------------------------------------------
@asynccontextmanager
async def ws_client(port: int) -> AsyncIterator[Client]:
    """A protocol client of the server listening on `port` (a node of its own process)."""
    async with connect(f"ws://127.0.0.1:{port}/ws", max_size=None, open_timeout=10) as ws:
        yield Client(ws, [])


async def until(check: Any, seconds: float = 1.0, step: float = 0.02) -> float:
    """Wait for `await check()` to be true; the time it took (fails after `seconds`)."""
    start = time.monotonic()
    while not await check():
        assert time.monotonic() - start < seconds, f"not within {seconds} s"
        await asyncio.sleep(step)
    return time.monotonic() - start


def open_now(**over: Any) -> dict[str, Any]:
    """A create_tournament message: Gaps, open from now until far ahead, no time limit."""
    msg: dict[str, Any] = create_msg(  # type: ignore[no-untyped-call]
        starts_at=datetime.now(UTC).isoformat(),
        ends_at="2099-01-01T00:00:00+00:00",
        time_limit_s=None,
    )
    msg.update(over)
    return msg


def random_move(state: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """A legal Gaps action from a STATE's view: a move, or a redeal when none is left."""
    legal = state["view"]["legal"]
    return {"kind": "move", **rnd.choice(legal)} if legal else {"kind": "redeal"}
