"""The server in-process without a socket: an `App` built on a SQLite file with a clock
the test moves; `Wire`, one connection's `Session` fed frames directly (what the
transport would hand it) with the replies and pushes it makes kept; and `Host`, what a
`WsConnection` needs of its server, to answer HTTP requests made by the test."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request

from server.net.app import LIMITS, App, build_app
from server.net.connection import WsConnection
from server.net.limits import Connections, LimitLog
from server.net.session import Session
from tests.support.harness import Clock


class Conn:
    """A connection as a Session and the App see it: what was sent to it is kept."""

    def __init__(self, ip: str = "10.0.0.1") -> None:
        self.ip = ip
        self.host: str | None = None
        self.congested = False
        self.engaged = False
        self.sent: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None
        self.limits_hit: list[str] = []

    def send_text(self, data: bytes) -> None:
        self.sent.append(orjson.loads(data))

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)

    def limit_hit(self, limit: str, **fields: object) -> None:
        self.limits_hit.append(limit)


class Wire:
    """One connection's Session, fed JSON frames directly."""

    def __init__(self, app: App, conn: Conn | None = None) -> None:
        self.app = app
        self.conn = conn or Conn()
        self.session = Session(app.competition, app.fanout, app.metrics, self.conn)

    async def req(self, **msg: Any) -> dict[str, Any]:
        return await self.session.handle(orjson.dumps(msg).decode())

    async def ok(self, **msg: Any) -> dict[str, Any]:
        reply = await self.req(**msg)
        assert reply["type"] != "error", reply
        return reply

    async def err(self, error: str, /, **msg: Any) -> dict[str, Any]:
        reply = await self.req(**msg)
        assert reply["type"] == "error" and reply["code"] == error, reply
        return reply

    async def pushed(self) -> list[dict[str, Any]]:
        """What was sent to the connection besides the replies (sent soon after them)."""
        await asyncio.sleep(0)
        return self.conn.sent


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="session")
def migrated(migrated_sqlite: Path) -> Path:
    """An empty SQLite database at the schema's head, made once per run (tests/conftest.py)."""
    return migrated_sqlite


@pytest.fixture
async def app(migrated: Path, tmp_path: Path, clock: Clock) -> AsyncIterator[App]:
    """A server's whole application on SQLite, no socket, no clock task, no demo."""
    copy = shutil.copy(migrated, tmp_path / "samedeal.db")
    built = await build_app(f"sqlite+aiosqlite:///{copy}", clock, demo=False)
    try:
        yield built
    finally:
        await built.competition.lifecycle.stop()
        await built.store.close()


async def signed_in(app: App, name: str, admin: bool = False) -> Wire:
    """A connection registered as `name` (an admin when asked)."""
    wire = Wire(app)
    token = (await wire.ok(type="register", name=name))["token"]
    if admin:
        await app.store.set_admin(name)
        await wire.ok(type="auth", token=token)
    return wire


Limits = type(LIMITS)  # what one connection may hold or take (connection_limits.py)


class Host:
    """What a connection needs of its server (endpoint.Host), without a listening socket."""

    def __init__(self, endpoint: Any = None, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.loop = asyncio.get_running_loop()
        self.endpoint = endpoint
        self.counts = Connections(self.limits.max_connections, self.limits.max_connections_per_ip)
        self.limit_log = LimitLog()
        self.proxies: tuple[Any, ...] = ()
        self.connections: set[WsConnection] = set()


def http_conn(ip: str = "10.0.0.1") -> WsConnection:
    """A connection that has not upgraded, from `ip`: one an HTTP request is answered on."""
    conn = WsConnection(Host())
    conn.ip = conn.counted_ip = ip
    return conn


def request(target: str, method: str = "GET", **headers: str) -> Request:
    """An HTTP request for `target` (path and query); headers by name, `_` for `-`."""
    given = Headers([(name.replace("_", "-"), value) for name, value in headers.items()])
    return Request(target, given, method=method)
