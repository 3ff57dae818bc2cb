"""The two sides a connection (connection.py) meets, as protocols, so that it imports
neither: the application (`Endpoint`; its contract is in transport.py's docstring) and
the server that accepted it (`Host`: `WsServer`), each generic in the connection type."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from websockets.http11 import Request, Response

from server.net.connection_limits import ConnectionLimits
from server.net.limits import Connections, LimitLog

MessageHandler = Callable[[str | bytes], Awaitable[None]]
Conn = TypeVar("Conn")
Conn_contra = TypeVar("Conn_contra", contravariant=True)


class Endpoint(Protocol[Conn_contra]):
    async def respond_http(self, conn: Conn_contra, request: Request) -> Response | None: ...

    def opened(self, conn: Conn_contra) -> MessageHandler: ...

    def closed(self, conn: Conn_contra) -> None: ...


class Host(Protocol[Conn]):
    """What a connection needs of its server, which in turn calls only the connection's
    `keepalive` and `idle_check` (and `close`)."""

    limits: ConnectionLimits
    loop: asyncio.AbstractEventLoop
    endpoint: Endpoint[Conn]
    counts: Connections
    limit_log: LimitLog
    proxies: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]
    connections: set[Conn]
