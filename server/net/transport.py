"""WebSocket transport: the listening socket, its connections, and the application's side.

Each connection is a `WsConnection` (server/net/connection.py: websockets' Sans-I/O
protocol in one asyncio Protocol, with back-pressure and the limits against hostile
peers). It replaces the library's own asyncio `Connection`, whose queue, futures and
async context managers per message, and tasks per connection, cost more CPU and memory
(docs/BENCHMARKS.md, `bench.echo_transports`). `WsServer` accepts connections, runs the
keepalive rounds and the idle sweep, and closes them all gracefully.

Contract with the application (an `Endpoint`, declared in endpoint.py beside `Host`, what
a connection needs of its server, so that the connection never imports this module):
- `respond_http(conn, request)` answers a plain HTTP request (a `Response`), or returns
  None to accept the WebSocket handshake;
- `opened(conn)` returns the connection's message handler: it is awaited once per
  complete message (`str` for text, `bytes` for binary; text that is not UTF-8 arrives
  with its bad bytes as lone surrogates), one at a time and in order, and
  answers with `conn.send_text` or ends with `conn.close`;
- `closed(conn)` is called once an opened connection is gone. A message being handled
  then still runs to its end (an action in flight is never cut in half); the messages
  queued behind it are dropped.
"""

from __future__ import annotations

import asyncio
import time

from websockets.frames import CloseCode

from server.net.connection import WsConnection
from server.net.connection_limits import ConnectionLimits
from server.net.endpoint import Endpoint
from server.net.frames import text_header
from server.net.limits import Connections, LimitLog, networks

__all__ = ["ConnectionLimits", "Endpoint", "WsServer", "broadcast", "text_header"]


class WsServer:
    """Listening socket plus every live connection."""

    def __init__(self, endpoint: Endpoint[WsConnection], limits: ConnectionLimits) -> None:
        self.endpoint = endpoint
        self.limits = limits
        self.loop = asyncio.get_running_loop()
        self.connections: set[WsConnection] = set()
        self.counts = Connections(limits.max_connections, limits.max_connections_per_ip)
        self.limit_log = LimitLog()
        self.proxies = networks(limits.trusted_proxies)
        self.listener: asyncio.AbstractServer | None = None
        self._pinger: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None

    async def listen(self, host: str, port: int, reuse_port: bool = False) -> int:
        """Start accepting; the bound port. `reuse_port`: several processes share it
        (SO_REUSEPORT: the kernel spreads new connections among them)."""
        self.listener = await self.loop.create_server(
            lambda: WsConnection(self), host, port, reuse_port=reuse_port or None
        )
        self._pinger = self.loop.create_task(self._ping_forever())
        if self.limits.idle_timeout:
            self._sweeper = self.loop.create_task(self._sweep_idle_forever())
        return int(self.listener.sockets[0].getsockname()[1])

    def stop_accepting(self) -> None:
        if self.listener is not None:
            self.listener.close()

    async def close(self, code: int = CloseCode.GOING_AWAY, reason: str = "") -> None:
        """Stop accepting, close every connection with `code`, wait for them to go."""
        self.stop_accepting()
        for task in (self._pinger, self._sweeper):
            if task is not None:
                task.cancel()
        for conn in list(self.connections):
            conn.close(code, reason)
        deadline = self.loop.time() + self.limits.close_timeout
        while self.connections and self.loop.time() < deadline:
            await asyncio.sleep(0.01)
        for conn in list(self.connections):
            conn.transport.abort()
        if self.listener is not None:
            await self.listener.wait_closed()

    async def _ping_forever(self) -> None:
        while True:
            await asyncio.sleep(self.limits.ping_interval)
            for conn in list(self.connections):
                conn.keepalive()

    async def _sweep_idle_forever(self) -> None:
        period = max(0.05, min(5.0, self.limits.idle_timeout / 4))
        while True:
            await asyncio.sleep(period)
            now = time.monotonic()
            for conn in list(self.connections):
                conn.idle_check(now)


def broadcast(connections: list[WsConnection], data: bytes) -> None:
    """Send one text message to each open connection that is keeping up; a congested
    one misses it (standings are whole snapshots: the next push brings it up to date)."""
    for conn in connections:
        if not conn.congested:
            conn.send_text(data)
