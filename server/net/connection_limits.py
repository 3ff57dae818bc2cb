"""What one connection of the transport may hold or take (`ConnectionLimits`, the server's
settings by default) and the transport's fixed sizes and answers."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """What one connection may hold or take; the defaults are the server's settings."""

    max_size: int = 64 * 1024  # a larger message closes the connection with 1009
    max_queue: int = 32  # messages received but not yet handled before reading pauses
    write_limit: int = 32 * 1024  # unsent bytes before handling pauses (and pushes skip)
    ping_interval: float = 20.0  # a ping this often; no pong by the next one closes (1011)
    open_timeout: float = 10.0  # to complete the opening handshake
    close_timeout: float = 10.0  # for the peer to finish the closing handshake
    rate: float = 100.0  # messages and control/continuation frames a second (sustained)
    burst: float = 200.0  # ... at once
    abuse_strikes: int = 500  # frames past the rate in a row before closing (1008)
    max_fragments: int = 64  # frames one message may be split into (more: 1009)
    max_connections: int = 0  # open connections in all; 0: no cap
    max_connections_per_ip: int = 0  # open connections from one address; 0: no cap
    idle_timeout: float = 0.0  # a connection not engaged closes this long silent; 0: never
    trusted_proxies: tuple[str, ...] = ()  # their connections count under X-Forwarded-For


TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: 21\r\nConnection: close\r\nRetry-After: 10\r\n\r\ntoo many connections\n"
)
BODY_CHUNK = 256 * 1024  # a large HTTP body is written this much at a time
FEED_SLICE = 1024  # bytes handed to the protocol at once
FEED_BUDGET_S = 0.001  # one connection's bytes are parsed this long per turn of the loop
